"""The fused backward kernels of SoftmaxCrossEntropyLoss and NegativeLogLikelihoodLoss (used when the backward is
not recorded) give the gradients of the composed engine-op backward (used under ``create_graph``), which the
finite-difference tests of ``test_loss_grad.py`` check; and their kernels' own arguments and errors."""

import numpy as np
import pytest

from vfw.core import ShapeError, Tensor, autograd, dtypes, execute, run

OPS = ["SoftmaxCrossEntropyLoss", "NegativeLogLikelihoodLoss"]
CASES = [((5, 4), None, False), ((3, 4, 2), 1, True), ((2, 3, 2, 2), -100, True), ((6, 3), 2, False)]


def inputs(shape, ignore_index, weighted, dtype=np.float64, seed=0):
    rng = np.random.default_rng(seed)
    scores = rng.standard_normal(shape).astype(dtype)
    labels = rng.integers(0, shape[1], shape[:1] + shape[2:])
    if ignore_index is not None:
        labels.flat[::3] = ignore_index
    weights = rng.uniform(0.5, 2.0, shape[1]).astype(dtype) if weighted else None
    return scores, labels, weights


def gradients(op, scores, labels, weights, attrs, output_weights, create_graph):
    s = Tensor(scores, requires_grad=True)
    outs = execute(op, s, labels, weights, **attrs)
    outs = outs if isinstance(outs, tuple) else (outs,)
    targets = [o for o, w in zip(outs, output_weights) if w is not None]
    (g,) = autograd.gradient(targets, [s], [Tensor(w) for w in output_weights if w is not None],
                             create_graph=create_graph)
    return g.array


@pytest.mark.parametrize("op, with_log_prob", [(OPS[0], False), (OPS[0], True), (OPS[1], False)])
@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
def test_fused_equals_composed(op, with_log_prob, case, reduction):
    shape, ignore_index, weighted = case
    scores, labels, weights = inputs(shape, ignore_index, weighted)
    attrs = {"reduction": reduction, "ignore_index": ignore_index}
    rng = np.random.default_rng(1)
    loss_shape = run(op, scores, labels, weights, **attrs)
    loss_shape = (loss_shape[0] if isinstance(loss_shape, tuple) else loss_shape).shape
    output_weights = [rng.standard_normal(loss_shape), rng.standard_normal(shape) if with_log_prob else None]
    if op == "NegativeLogLikelihoodLoss":
        output_weights = output_weights[:1]
    fused = gradients(op, scores, labels, weights, attrs, output_weights, False)
    composed = gradients(op, scores, labels, weights, attrs, output_weights, True)
    np.testing.assert_allclose(fused, composed, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("dtype", [np.float32, np.float16, dtypes.bfloat16])
def test_fused_dtypes(op, dtype):
    scores, labels, weights = inputs((4, 5, 2), 1, True, dtype)
    attrs = {"reduction": "mean", "ignore_index": 1}
    ones = [np.ones((), dtype)]
    fused = gradients(op, scores, labels, weights, attrs, ones, False)
    composed = gradients(op, scores, labels, weights, attrs, ones, True)
    assert fused.dtype == dtype
    np.testing.assert_allclose(fused.astype(np.float32), composed.astype(np.float32), rtol=1e-6, atol=1e-7)


def test_softmax_cross_entropy_grad_kernel():
    scores, labels, weights = inputs((3, 4), None, True)
    _, logp = run("SoftmaxCrossEntropyLoss", scores, labels, weights, reduction="none")
    dy = np.array([1.0, -2.0, 0.5])
    dlogp = np.random.default_rng(2).standard_normal((3, 4))
    got = run("SoftmaxCrossEntropyLossGrad", dy, logp, labels, weights, dlogp, reduction="none")
    p = np.exp(logp)
    a = dy * weights[labels]
    want = a[:, None] * (p - np.eye(4)[labels]) + dlogp - p * dlogp.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)
    with pytest.raises(ShapeError, match="labels"):
        run("SoftmaxCrossEntropyLossGrad", dy, logp, labels[:2], reduction="none")
    with pytest.raises(ShapeError, match="dY"):
        run("SoftmaxCrossEntropyLossGrad", dy[:2], logp, labels, reduction="none")


def test_negative_log_likelihood_grad_kernel():
    x, labels, weights = inputs((3, 4, 2), 0, True)
    got = run("NegativeLogLikelihoodLossGrad", np.array(2.0), x, labels, weights, reduction="mean", ignore_index=0)
    picked = np.where(labels == 0, 0.0, weights[labels])
    want = np.zeros((3, 4, 2))
    n, k = np.indices(labels.shape)
    want[n, labels, k] = -2.0 * picked / picked.sum()
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)
