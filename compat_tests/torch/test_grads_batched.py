"""torch.autograd.grad(is_grads_batched=True): one vector-Jacobian product per batch row of grad_outputs,
compared with real torch (values, stacking, unused inputs, double backward, errors and their messages)."""

import numpy as np
import pytest

from compat_tests.torch.harness import check, real, vt

RNG = np.random.default_rng(0)
X = RNG.standard_normal(3).astype(np.float32)
W = RNG.standard_normal((3, 4)).astype(np.float32)


def _jacobian_rows(torch, x, w):
    x = x.requires_grad_()
    w = w.requires_grad_()
    y = torch.tanh(x @ w) * x.sum()
    return torch.autograd.grad(y, (x, w), torch.eye(4), is_grads_batched=True)


def test_jacobian_rows_of_two_inputs():
    check(_jacobian_rows, X, W)


def test_several_outputs_and_unused_inputs():
    def fn(torch, x, w):
        x = x.requires_grad_()
        z = torch.ones(2, requires_grad=True)
        unused = torch.ones(5, requires_grad=True)
        grads = torch.autograd.grad([x.sin(), z * 3], [x, z, unused], [torch.eye(3), torch.ones(3, 2) * w[:, :2]],
                                    is_grads_batched=True, allow_unused=True, retain_graph=True)
        materialized = torch.autograd.grad([x.sin(), z * 3], [x, unused], [torch.eye(3), torch.ones(3, 2)],
                                           is_grads_batched=True, materialize_grads=True)
        return grads[0], grads[1], grads[2] is None, materialized[1]

    check(fn, X, W)


def test_create_graph_gives_differentiable_rows():
    def fn(torch, x):
        x = x.requires_grad_()
        rows, = torch.autograd.grad(x.pow(3), x, torch.eye(3) * 2, is_grads_batched=True, create_graph=True)
        return rows, torch.autograd.grad((rows * torch.arange(9.0).reshape(3, 3)).sum(), x)[0]

    check(fn, X)


def test_graph_is_freed_after_the_batch_unless_retained():
    def fn(torch, x):
        x = x.requires_grad_()
        y = x.exp()
        torch.autograd.grad(y, x, torch.eye(3), is_grads_batched=True)
        return torch.autograd.grad(y, x, torch.ones(3))

    check(fn, X)


@pytest.mark.parametrize("grad_output", [None, "scalar", (3,), (2, 4), (2, 4, 5)])
def test_bad_grad_outputs_raise_as_torch(grad_output):
    messages = []
    for torch in (real, vt):
        x = torch.from_numpy(X.copy()).requires_grad_()
        y = x * 2
        if grad_output == "scalar":
            y, grad_output_value = y.sum(), None
        else:
            grad_output_value = None if grad_output is None else torch.ones(grad_output)
        with pytest.raises((RuntimeError, ValueError)) as info:
            torch.autograd.grad(y, x, grad_output_value, is_grads_batched=True)
        messages.append((info.type, str(info.value)))
    assert messages[0] == messages[1]


def test_mismatched_batch_sizes_raise_value_error():
    def fn(torch, x):
        x = x.requires_grad_()
        z = torch.ones(2, requires_grad=True)
        return torch.autograd.grad([x * 2, z * 3], [x, z], [torch.eye(3), torch.ones(2, 2)], is_grads_batched=True)

    check(fn, X)
