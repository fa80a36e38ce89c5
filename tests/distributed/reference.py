"""The oracle of the data-parallel tests: real torch, one process, the global batch, rank 0's initial weights."""

import pytest

from tests.distributed import ddp_script


def train_single_process(size, batch, steps):
    """``ddp_script``'s model and data trained with batch ``size * batch``; the final parameters by name."""
    torch = pytest.importorskip("torch")
    data, target = ddp_script.dataset(batch * size * steps)
    model = ddp_script.build(torch, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=ddp_script.LR, momentum=ddp_script.MOMENTUM)
    for _ in range(ddp_script.EPOCHS):
        for i in range(steps):
            rows = slice(i * size * batch, (i + 1) * size * batch)
            x, y = torch.from_numpy(data[rows]), torch.from_numpy(target[rows])
            torch.nn.functional.mse_loss(model(x), y).backward()
            optimizer.step()
            optimizer.zero_grad()
    return {k: v.detach().numpy() for k, v in model.state_dict().items()}


def assert_trained_like_reference(path, size, batch, steps):
    import numpy as np

    trained, expected = np.load(path), train_single_process(size, batch, steps)
    assert sorted(trained) == sorted(expected)
    for name, value in expected.items():
        np.testing.assert_allclose(trained[name], value, rtol=1e-5, atol=1e-6, err_msg=name)
    # the run moved the weights (the comparison is not of two untouched initializations)
    assert not np.allclose(expected["0.weight"], ddp_script.initial_weights(1)["0.weight"], atol=1e-3)
