"""CTCLoss's gradient (CTCLossGrad) against central finite differences of the kernel.

The op's gradient is PyTorch's: ``exp(log_probs) + d loss / d log_probs`` at steps before each input length
(0 after), i.e. the true gradient plus the softmax of the step; through a log-softmax that produced the
log-probabilities (each step's softmax sums to 1) it is exactly the true gradient with respect to the logits.
Both identities are checked here.
"""

import numpy as np
import pytest

from tests.autograd.gradcheck import numeric_grad
from vfw.core import ShapeError, Tensor, autograd, execute, run


def case(seed=0, steps=6, n=3, c=4):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((steps, n, c))
    targets = rng.integers(1, c, (n, 3))
    targets[0, :2] = targets[0, 0]
    return x, targets, np.array([6, 5, 3]), np.array([3, 2, 1])


def log_softmax(x):
    return x - np.log(np.exp(x).sum(axis=2, keepdims=True))


@pytest.mark.parametrize("blank", [0, 3])
def test_gradient_is_true_gradient_plus_softmax(blank):
    x, targets, il, tl = case()
    targets = np.where(targets == blank, 1, targets)
    lp = log_softmax(x)
    w = np.random.default_rng(1).standard_normal(3)

    def f(arrays):
        return float(np.dot(run("CTCLoss", arrays[0], targets, il, tl, blank=blank)[0], w))

    true = numeric_grad(f, [lp.copy()], 0, 1e-6)
    t = Tensor(lp, requires_grad=True)
    loss, _ = execute("CTCLoss", t, targets, il, tl, blank=blank)
    (g,) = autograd.gradient([loss], [t], [Tensor(w)])
    used = (np.arange(6)[:, None] < il[None, :])[:, :, None]
    expected = true + np.where(used, np.exp(lp) * w[None, :, None], 0)
    np.testing.assert_allclose(g.array, expected, rtol=1e-6, atol=1e-8)


def test_gradient_through_log_softmax_is_exact():
    x, targets, il, tl = case(2)
    w = np.random.default_rng(3).standard_normal(3)

    def f(arrays):
        return float(np.dot(run("CTCLoss", log_softmax(arrays[0]), targets, il, tl)[0], w))

    t = Tensor(x, requires_grad=True)
    loss, _ = execute("CTCLoss", execute("LogSoftmax", t, axis=2), targets, il, tl)
    (g,) = autograd.gradient([loss], [t], [Tensor(w)])
    np.testing.assert_allclose(g.array, numeric_grad(f, [x.copy()], 0, 1e-6), rtol=1e-6, atol=1e-8)


def test_zero_infinity_and_impossible_targets():
    x, targets, il, tl = case(4)
    lp = log_softmax(x)
    il = np.array([2, 5, 3])  # 3 labels (one repeat) cannot fit in 2 steps
    t = Tensor(lp, requires_grad=True)
    loss, _ = execute("CTCLoss", t, targets, il, tl)
    (g,) = autograd.gradient([loss], [t])
    assert np.isinf(loss.array[0]) and np.isnan(g.array[:2, 0]).all() and (g.array[2:, 0] == 0).all()
    t = Tensor(lp, requires_grad=True)
    loss, _ = execute("CTCLoss", t, targets, il, tl, zero_infinity=1)
    (g,) = autograd.gradient([loss], [t])
    assert loss.array[0] == 0 and (g.array[:, 0] == 0).all() and np.isfinite(g.array).all()


def test_float32_matches_float64():
    x, targets, il, tl = case(5)
    grads = []
    for dtype in (np.float32, np.float64):
        t = Tensor(log_softmax(x).astype(dtype), requires_grad=True)
        loss, _ = execute("CTCLoss", t, targets, il, tl)
        (g,) = autograd.gradient([loss], [t])
        assert g.array.dtype == dtype
        grads.append(g.array)
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-4, atol=1e-5)


def test_grad_op_has_no_gradient():
    x, targets, il, tl = case(6)
    t = Tensor(log_softmax(x), requires_grad=True)
    loss, _ = execute("CTCLoss", t, targets, il, tl)
    (g,) = autograd.gradient([loss], [t], create_graph=True)
    assert not g.requires_grad  # CTCLossGrad is not differentiable (as torch's ctc backward)


def test_grad_kernel_direct_call():
    x, targets, il, tl = case(7)
    lp = log_softmax(x)
    dy = np.array([1.0, -0.5, 2.0])
    loss, log_alpha = run("CTCLoss", lp, targets, il, tl)
    t = Tensor(lp, requires_grad=True)
    recorded, _ = execute("CTCLoss", t, targets, il, tl)
    (want,) = autograd.gradient([recorded], [t], [Tensor(dy)])
    got = run("CTCLossGrad", dy, lp, targets, il, tl, log_alpha)
    np.testing.assert_array_equal(got, want.array)
    with pytest.raises(ShapeError, match="dY"):
        run("CTCLossGrad", dy[:2], lp, targets, il, tl, log_alpha)
    with pytest.raises(ShapeError, match="log_alpha"):
        run("CTCLossGrad", dy, lp, targets, il, tl, log_alpha[:, :, :3])
