import numpy as np
import pytest

from tests.ops.oracle import assert_same, check_op, onnx_run, rand, vfw_run
from vfw.core import (
    DTypeError,
    IndexOutOfRangeError,
    OpAttributeError,
    ShapeError,
    TensorInfo,
    dtypes,
    get_schema,
    run,
)

F16, F32, F64, BF16 = np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64), dtypes.bfloat16
LOW = {F16: (1e-3, 1e-4), BF16: (1e-2, 1e-3)}  # about one unit in the last place of each half type
OPS = ["SoftmaxCrossEntropyLoss", "NegativeLogLikelihoodLoss"]
N_OUT = {"SoftmaxCrossEntropyLoss": 2, "NegativeLogLikelihoodLoss": 1}
# (scores shape, ignore_index): ignore_index in range and present, negative and present, absent, or none.
SHAPES = [(5, 4), (3, 4, 6), (2, 3, 2, 3)]
IGNORE = [None, 1, -1, 100]


def make(op, shape, dtype=F32, tdtype=np.int64, weighted=False, ignore_index=None, seed=0):
    """Scores (log-probs for NLL), labels in [0, C) with ignore_index planted, optional weights."""
    c = shape[1]
    scores = rand(shape, dtype, seed=seed)
    if op == "NegativeLogLikelihoodLoss":
        scores = (-np.abs(scores.astype(F32))).astype(dtype)
    labels = rand(shape[:1] + shape[2:], tdtype, low=0, high=c - 1, seed=seed + 1)
    if ignore_index is not None and ignore_index != 100:
        labels.flat[::3] = ignore_index
    weights = rand((c,), dtype, low=0.1, high=2.0, seed=seed + 2) if weighted else None
    return [scores, labels, weights]


def check_wide(op, inputs, attrs):
    """Half types: compare with the reference on float32-widened inputs, results cast back.

    The reference computes float16 in float16 throughout; vfw computes in float32 and rounds once.
    """
    ours = vfw_run(op, inputs, attrs)
    dtype = inputs[0].dtype
    wide = [x.astype(F32) if x is not None and x.dtype == dtype else x for x in inputs]
    theirs = onnx_run(op, wide, attrs, len(ours))
    rtol, atol = LOW[dtype]
    for i, (a, b) in enumerate(zip(ours, theirs)):
        assert_same(a, b.astype(dtype), rtol=rtol, atol=atol, what=f"{op} output {i}")


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("ignore_index", IGNORE)
def test_loss_matches_onnx(op, shape, reduction, weighted, ignore_index):
    inputs = make(op, shape, weighted=weighted, ignore_index=ignore_index)
    attrs = {"reduction": reduction, "ignore_index": ignore_index}
    if op == "NegativeLogLikelihoodLoss" and ignore_index == -1 and reduction == "mean" and not weighted:
        # The reference divides by all N*d1*...*dk elements here (only for a negative ignore_index); the mean
        # is over the non-ignored ones, as for ignore_index >= 0, in SoftmaxCrossEntropyLoss and onnxruntime.
        losses = onnx_run(op, inputs, {**attrs, "reduction": "none"})[0]
        want = losses.sum() / np.count_nonzero(inputs[1] != -1)
        assert_same(vfw_run(op, inputs, attrs)[0], want.astype(F32))
        return
    check_op(op, inputs, attrs, n_outputs=N_OUT[op])


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("dtype", [F64, F16, BF16])
@pytest.mark.parametrize("tdtype", [np.int32, np.int64])
@pytest.mark.parametrize("reduction", ["none", "mean"])
def test_loss_dtypes(op, dtype, tdtype, reduction):
    inputs = make(op, (3, 4, 5), dtype, tdtype, weighted=True, ignore_index=2, seed=4)
    attrs = {"reduction": reduction, "ignore_index": 2}
    if dtype == F64:
        check_op(op, inputs, attrs, n_outputs=N_OUT[op], rtol=1e-12, atol=1e-12)
    else:
        check_wide(op, inputs, attrs)


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # the reference's 0/0 warns
def test_loss_all_ignored_mean_is_nan(op, weighted):
    # Mean over zero non-ignored elements (total weight zero) is 0/0, as in the reference and PyTorch.
    inputs = make(op, (4, 3), weighted=weighted)
    inputs[1][:] = 2
    ours = check_op(op, inputs, {"ignore_index": 2}, n_outputs=N_OUT[op])
    assert np.isnan(ours[0])


def test_sce_extreme_scores_stable():
    # log-softmax via max shift + log-sum-exp: huge scores give finite losses and log-probs.
    scores = np.array([[1000.0, 0.0, -1000.0], [-1e4, -1e4, -1e4]], F32)
    loss, logp = run("SoftmaxCrossEntropyLoss", scores, np.array([1, 2]), reduction="none")
    np.testing.assert_allclose(loss, [1000.0, np.log(3)], rtol=1e-6)
    assert np.isfinite(logp[0, :2]).all() and logp[0, 0] == 0


def test_nll_formula():
    # ONNX spec example 3 (weighted mean).
    x = np.array([[[1.0, 2.0], [2.0, 2.0], [3.0, 2.0]], [[0.0, 1.0], [2.0, 2.0], [1.0, 2.0]]], F32)
    t = np.array([[2, 1], [0, 2]], np.int64)
    w = np.array([0.2, 0.3, 0.1], F32)
    # The spec prints -1.57: sum(loss) / sum(weight[target]) = -1.1 / 0.7.
    np.testing.assert_allclose(run("NegativeLogLikelihoodLoss", x, t, w), -1.1 / 0.7, rtol=1e-6)
    np.testing.assert_allclose(run("NegativeLogLikelihoodLoss", x, t, w, reduction="sum"), -1.1, rtol=1e-6)


@pytest.mark.parametrize("op", OPS)
def test_empty_batch(op):
    # The reference cannot reshape an empty batch; the results follow from the definition.
    scores, labels, _ = make(op, (0, 3, 2))
    loss = run(op, scores, labels, reduction="none")
    assert_same(loss[0] if isinstance(loss, tuple) else loss, np.zeros((0, 2), F32))
    total = run(op, scores, labels, reduction="sum")
    assert_same(total[0] if isinstance(total, tuple) else total, np.zeros((), F32))


@pytest.mark.parametrize("op", OPS)
def test_label_out_of_range(op):
    scores, labels, _ = make(op, (4, 3, 2))
    labels[2, 1] = 3
    lname = "labels" if op == OPS[0] else "target"
    with pytest.raises(IndexOutOfRangeError, match=rf"{op}: {lname}\[2, 1\] = 3 is out of range for C=3"):
        run(op, scores, labels)
    labels[2, 1] = -1  # negative labels are not wrapped around
    with pytest.raises(IndexOutOfRangeError, match=rf"{op}: {lname}\[2, 1\] = -1 is out of range for C=3"):
        run(op, scores, labels, ignore_index=-100)
    labels[2, 1] = 1
    labels[0, 0] = 7
    with pytest.raises(IndexOutOfRangeError, match=rf"{op}: .*= 7 is out of range for C=3 .*ignore_index=1"):
        run(op, scores, labels, ignore_index=1)


@pytest.mark.parametrize("op", OPS)
def test_bad_shapes_and_attrs(op):
    scores, labels, weights = make(op, (4, 3, 2), weighted=True)
    with pytest.raises(ShapeError, match=rf"{op}: .*int64\[4, 3\] must have shape \(4, 2\)"):
        run(op, scores, labels.reshape(4, 2, 1)[:, :, 0][:, [0, 1, 1]])
    with pytest.raises(ShapeError, match=rf"{op}: weights? has shape \(4,\), expected \(3,\)"):
        run(op, scores, labels, rand((4,)))
    with pytest.raises(ShapeError, match=rf"{op}: .* must have shape \(N, C\)"):
        run(op, rand((3,)), np.array(1))
    with pytest.raises(OpAttributeError, match=rf"{op}.*reduction"):
        run(op, scores, labels, reduction="avg")
    with pytest.raises(DTypeError, match=op):
        run(op, scores, labels.astype(np.int16))
    with pytest.raises(DTypeError, match=op):
        run(op, scores, labels, weights.astype(F64))


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("reduction", ["none", "mean"])
def test_infer(op, reduction):
    inputs = make(op, (2, 3, 4), F16, np.int32, weighted=True)
    schema = get_schema(op)
    got = schema.infer(schema.bind_attrs({"reduction": reduction}),
                       [TensorInfo(x.shape, x.dtype) for x in inputs])
    real = vfw_run(op, inputs, {"reduction": reduction})
    assert got == [TensorInfo(r.shape, r.dtype) for r in real]
    got = schema.infer(schema.bind_attrs({"reduction": reduction}),
                       [TensorInfo(None, F32), TensorInfo((2, 4), np.int64), None])
    assert got[0] == TensorInfo((2, 4) if reduction == "none" else (), F32)
