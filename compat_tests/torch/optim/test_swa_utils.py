"""torch.optim.swa_utils against real torch: AveragedModel (SWA running mean, EMA through multi_avg_fn and
avg_fn, with and without buffers), SWALR's cosine/linear annealing, update_bn, and the state_dict layout."""

import numpy as np
import pytest

from compat_tests.torch.harness import real, vt


def _run(torch, strategy, anneal_epochs):
    swa_utils = torch.optim.swa_utils
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.BatchNorm1d(4), torch.nn.ReLU(),
                                torch.nn.Linear(4, 1))
    optimizer = torch.optim.SGD([{"params": model[0].parameters()}, {"params": model[3].parameters(), "lr": 0.1}] +
                                [{"params": model[1].parameters()}], lr=0.5)
    averages = [swa_utils.AveragedModel(model), swa_utils.AveragedModel(model, use_buffers=True),
                swa_utils.AveragedModel(model, multi_avg_fn=swa_utils.get_ema_multi_avg_fn(0.9)),
                swa_utils.AveragedModel(model, avg_fn=swa_utils.get_ema_avg_fn(0.8), use_buffers=True),
                swa_utils.AveragedModel(model, avg_fn=swa_utils.get_swa_avg_fn())]
    scheduler = swa_utils.SWALR(optimizer, swa_lr=[0.05, 0.01, 0.02], anneal_epochs=anneal_epochs,
                                anneal_strategy=strategy)
    data = [torch.randn(8, 3) for _ in range(3)]
    numbers = []
    for _ in range(5):
        for x in data:
            loss = model(x).pow(2).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        for average in averages:
            average.update_parameters(model)
        scheduler.step()
        numbers += scheduler.get_last_lr()
    swa_utils.update_bn(data, averages[0])
    for average in averages:
        numbers += [t.detach().double().sum().item() for t in list(average.parameters()) + list(average.buffers())]
    numbers.append(averages[0](data[0]).sum().item())
    texts = [",".join(averages[0].state_dict()), str(averages[0].training), str(averages[0].n_averaged.item())]
    return numbers, texts


@pytest.mark.parametrize("strategy", ["cos", "linear"])
@pytest.mark.parametrize("anneal_epochs", [0, 1, 3])
def test_averaged_models_and_swalr(strategy, anneal_epochs):
    want_numbers, want_texts = _run(real, strategy, anneal_epochs)
    got_numbers, got_texts = _run(vt, strategy, anneal_epochs)
    assert got_texts == want_texts
    np.testing.assert_allclose(got_numbers, want_numbers, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("make", [
    lambda torch: torch.optim.swa_utils.SWALR(torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1),
                                              swa_lr=0.1, anneal_strategy="exp"),
    lambda torch: torch.optim.swa_utils.SWALR(torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1),
                                              swa_lr=0.1, anneal_epochs=-1),
    lambda torch: torch.optim.swa_utils.SWALR(torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1),
                                              swa_lr=[0.1, 0.2]),
])
def test_swalr_errors(make):
    errors = []
    for torch in (real, vt):
        with pytest.raises(Exception) as info:
            make(torch)
        errors.append(info.value)
    assert type(errors[1]) is type(errors[0]), errors
    assert str(errors[1]) == str(errors[0])
