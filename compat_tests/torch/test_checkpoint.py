"""torch.utils.checkpoint against real torch: values and gradients of checkpointed segments (both variants,
with dropout under a seed), the reentrant variant's outputs without history when no input requires grad, the
argument errors and warnings, and checkpoint_sequential."""

import warnings

import numpy as np
import pytest

from compat_tests.torch.harness import real, vt


def _model_and_input(torch, x_requires_grad=True):
    torch.manual_seed(0)
    block = torch.nn.Sequential(torch.nn.Linear(4, 6), torch.nn.Dropout(0.3), torch.nn.Tanh(), torch.nn.Linear(6, 4))
    x = torch.randn(5, 4, requires_grad=x_requires_grad)
    return block, x


def _grads(torch, use_reentrant, x_requires_grad=True, **kwargs):
    block, x = _model_and_input(torch, x_requires_grad)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        y = torch.utils.checkpoint.checkpoint(block, x, use_reentrant=use_reentrant, **kwargs)
    out = {"y": y.detach().numpy(), "requires_grad": y.requires_grad,
           "warnings": sorted(str(w.message) for w in caught)}
    if y.requires_grad:
        (y * y).sum().backward()
        out["grads"] = [p.grad.numpy() for p in block.parameters()]
        out["x_grad"] = None if x.grad is None else x.grad.numpy()
    return out


def _assert_same(want, got):
    assert got.keys() == want.keys()
    for key in want:
        if key in ("requires_grad", "warnings"):
            assert got[key] == want[key], key
        elif key == "grads":
            for g, w in zip(got[key], want[key]):
                np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)
        elif want[key] is None:
            assert got[key] is None
        else:
            np.testing.assert_allclose(got[key], want[key], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("use_reentrant", [False, True, None])
@pytest.mark.parametrize("x_requires_grad", [True, False])
def test_checkpoint_values_gradients_and_warnings(use_reentrant, x_requires_grad):
    _assert_same(_grads(real, use_reentrant, x_requires_grad), _grads(vt, use_reentrant, x_requires_grad))


def test_checkpoint_passes_keyword_arguments_without_reentrance():
    for torch in (real, vt):
        x = torch.ones(2)
        got = torch.utils.checkpoint.checkpoint(lambda a, scale=1.0: a * scale, x, use_reentrant=False, scale=3.0)
        assert got.tolist() == [3.0, 3.0]


@pytest.mark.parametrize("kwargs", [{"foo": 1}, {"context_fn": lambda: (None, None)}, {"debug": True}])
def test_reentrant_checkpoint_refuses_keyword_arguments(kwargs):
    messages = []
    for torch in (real, vt):
        with pytest.raises(ValueError) as info:
            torch.utils.checkpoint.checkpoint(lambda a, **k: a, torch.ones(2, requires_grad=True),
                                              use_reentrant=True, **kwargs)
        messages.append(str(info.value))
    assert messages[1] == messages[0]


@pytest.mark.parametrize("segments", [1, 2, 3])
def test_checkpoint_sequential(segments):
    results = []
    for torch in (real, vt):
        torch.manual_seed(1)
        model = torch.nn.Sequential(*[torch.nn.Linear(3, 3) for _ in range(5)])
        x = torch.randn(2, 3, requires_grad=True)
        y = torch.utils.checkpoint.checkpoint_sequential(model, segments, x, use_reentrant=False)
        y.sum().backward()
        results.append([y.detach().numpy(), x.grad.numpy()] + [p.grad.numpy() for p in model.parameters()])
    for got, want in zip(results[1], results[0]):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
