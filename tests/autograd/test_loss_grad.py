"""Gradients of SoftmaxCrossEntropyLoss and NegativeLogLikelihoodLoss (central finite differences of the kernels).

Both ops get gradients to their scores/input and to the class weights (PyTorch gives the weights none; the
derivative is well defined, including through the weighted 'mean' denominator), never to the labels.
"""

import numpy as np
import pytest

from tests.autograd.gradcheck import check_gradient, check_higher_order
from vfw.core import Tensor, autograd, execute

RNG = np.random.default_rng(0)
OPS = ["SoftmaxCrossEntropyLoss", "NegativeLogLikelihoodLoss"]
SHAPES = [(5, 4), (3, 4, 3), (2, 3, 2, 2)]


def case(op, shape, ignore_index=None, weighted=False, label_dtype=np.int64):
    """Inputs for ``op``: scores (log-probabilities for NLL), labels with some ignored, optional weights."""
    scores = RNG.standard_normal(shape)
    if op == "NegativeLogLikelihoodLoss":  # any real input is valid; log-softmax keeps it realistic
        scores = scores - np.log(np.exp(scores).sum(axis=1, keepdims=True))
    labels = RNG.integers(0, shape[1], shape[:1] + shape[2:]).astype(label_dtype)
    if ignore_index is not None:
        labels.flat[::3] = ignore_index
    return [scores, labels, RNG.random(shape[1]) + 0.5 if weighted else None]


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("weighted", [False, True])
def test_loss(op, reduction, shape, weighted):
    check_gradient(op, case(op, shape, weighted=weighted), {"reduction": reduction})


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
@pytest.mark.parametrize("ignore_index", [1, -100, 7])
@pytest.mark.parametrize("weighted", [False, True])
def test_loss_ignore_index(op, reduction, ignore_index, weighted):
    # 1 is a class index; -100 and 7 are outside [0, C) (C = 4)
    attrs = {"reduction": reduction, "ignore_index": ignore_index}
    check_gradient(op, case(op, (6, 4), ignore_index, weighted), attrs)
    check_gradient(op, case(op, (3, 4, 2), ignore_index, weighted), attrs)


@pytest.mark.parametrize("op", OPS)
def test_ignore_index_that_no_label_uses(op):
    check_gradient(op, case(op, (4, 3), weighted=True), {"ignore_index": 5})
    inputs = case(op, (4, 3), weighted=True)
    inputs[1][:] = np.array([1, 2, 1, 2])  # ignore_index 0 is a class no label picks
    check_gradient(op, inputs, {"ignore_index": 0})


@pytest.mark.parametrize("op", OPS)
def test_int32_labels(op):
    check_gradient(op, case(op, (3, 4, 2), 2, True, np.int32), {"ignore_index": 2, "reduction": "mean"})


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("wrt", [[0], [2]])
def test_single_inputs(op, wrt):
    check_gradient(op, case(op, (4, 3, 2), 1, True), {"ignore_index": 1}, wrt=wrt)


@pytest.mark.parametrize("reduction", ["none", "mean"])
def test_softmax_cross_entropy_log_prob_output(reduction):
    inputs = case("SoftmaxCrossEntropyLoss", (3, 4, 2), 0, True)
    attrs = {"reduction": reduction, "ignore_index": 0}
    check_gradient("SoftmaxCrossEntropyLoss", inputs, attrs, outputs=[1])  # log_prob alone
    check_gradient("SoftmaxCrossEntropyLoss", inputs, attrs, outputs=[0])  # loss alone
    check_gradient("SoftmaxCrossEntropyLoss", inputs, attrs)  # both


def test_labels_get_no_gradient():
    scores, labels, weights = case("SoftmaxCrossEntropyLoss", (3, 4), weighted=True)
    s, w = Tensor(scores, requires_grad=True), Tensor(weights, requires_grad=True)
    loss, _ = execute("SoftmaxCrossEntropyLoss", s, Tensor(labels), w)
    ds, dw = autograd.gradient([loss], [s, w])
    # mean reduction: each row of the scores gradient is (softmax - onehot) * w[label] / sum(w[labels])
    p = np.exp(scores - np.log(np.exp(scores).sum(axis=1, keepdims=True)))
    expected = (p - np.eye(4)[labels]) * (weights[labels] / weights[labels].sum())[:, None]
    np.testing.assert_allclose(ds.array, expected, rtol=1e-12, atol=1e-15)
    assert dw.shape == (4,)


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("reduction", ["none", "mean"])
def test_second_order(op, reduction):
    inputs = case(op, (3, 3, 2), 1, True)
    check_higher_order(op, inputs, {"reduction": reduction, "ignore_index": 1})


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("dtype, tol", [(np.float32, 1e-5), (np.float16, 3e-3)])
def test_low_precision(op, dtype, tol):
    scores, labels, weights = case(op, (4, 3, 2), 1, True)
    low = [scores.astype(dtype), weights.astype(dtype)]
    results = []
    for arrays in (low, [a.astype(np.float64) for a in low]):
        s, w = (Tensor(a, requires_grad=True) for a in arrays)
        out = execute(op, s, Tensor(labels), w, ignore_index=1)
        out = out if isinstance(out, tuple) else (out,)
        results.append(autograd.gradient(list(out), [s, w]))
    for g, ref, a in zip(*results, low):
        assert g.dtype == a.dtype
        np.testing.assert_allclose(g.array.astype(np.float64), ref.array, rtol=tol, atol=tol)
