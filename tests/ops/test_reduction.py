import ml_dtypes
import numpy as np
import pytest

from tests.ops.oracle import assert_same, check_op, onnx_run, rand, vfw_run
from vfw.core.errors import DTypeError, OpAttributeError, OpInputError, ShapeError
from vfw.core.registry import TensorInfo, get_schema

BF16 = np.dtype(ml_dtypes.bfloat16)
SUM_OPS = ["ReduceSum", "ReduceMean", "ReduceProd", "ReduceMax", "ReduceMin", "ReduceL1", "ReduceL2",
           "ReduceSumSquare"]
FLOAT_OPS = ["ReduceLogSum", "ReduceLogSumExp"]
ALL_OPS = SUM_OPS + FLOAT_OPS
AXES = [None, [], [0], [-1], [1], [0, 2], [-3, 1], [2, 0, 1]]


def axes_input(axes):
    return None if axes is None else np.array(axes, np.int64)


def data_for(op, shape, dtype, seed=0):
    # ReduceLogSum needs positive sums.
    if op == "ReduceLogSum":
        return rand(shape, dtype, low=0.1, high=3, seed=seed)
    return rand(shape, dtype, seed=seed)


def check_half(op, inputs, attrs=None, n_outputs=1, rtol=2e-3, atol=1e-3):
    """Compare a half-precision run with the oracle run in float32 and rounded once.

    The reference evaluator accumulates float16 in float16 (errors of several ulps on sums);
    vfw accumulates in float32 and rounds once, so the float32 oracle is the fair reference.
    """
    ours = vfw_run(op, inputs, attrs)
    up = [x.astype(np.float32) if x is not None and x.dtype in (np.float16, BF16) else x for x in inputs]
    theirs = onnx_run(op, up, attrs, n_outputs)
    for i in range(n_outputs):
        expected = theirs[i].astype(inputs[0].dtype) if theirs[i].dtype == np.float32 else theirs[i]
        assert_same(ours[i], expected, rtol=rtol, atol=atol, what=f"{op} output {i}")
    return ours


# -- reductions ----------------------------------------------------------------------------
@pytest.mark.parametrize("op", ALL_OPS)
@pytest.mark.parametrize("axes", AXES)
@pytest.mark.parametrize("keepdims", [0, 1])
@pytest.mark.parametrize("noop", [0, 1])
def test_reduce_axes_match_onnx(op, axes, keepdims, noop):
    x = data_for(op, (2, 3, 4), np.float32)
    check_op(op, [x, axes_input(axes)], {"keepdims": keepdims, "noop_with_empty_axes": noop})


@pytest.mark.parametrize("op", SUM_OPS)
@pytest.mark.parametrize("dtype", [np.float64, np.int32, np.int64, np.uint32, np.uint64])
@pytest.mark.parametrize("axes", [None, [1], [0, -1]])
def test_reduce_dtypes_match_onnx(op, dtype, axes):
    x = data_for(op, (3, 4, 5), dtype, seed=3)
    if op == "ReduceSumSquare" and dtype in (np.int32, np.uint32):
        # The reference's np.sum promotes 32-bit ints to 64 bits; ONNX's output type is T.
        got = vfw_run(op, [x, axes_input(axes)], {"keepdims": 0})[0]
        ax = None if axes is None else tuple(axes)
        assert_same(got, np.asarray(np.sum(x * x, axis=ax, dtype=dtype)))
    else:
        check_op(op, [x, axes_input(axes)], {"keepdims": 0})


@pytest.mark.parametrize("op", ["ReduceMax", "ReduceMin"])
@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.bool_])
@pytest.mark.parametrize("axes", [None, [0], [-1]])
def test_reduce_max_min_small_types(op, dtype, axes):
    check_op(op, [rand((4, 6), dtype, seed=5), axes_input(axes)])


@pytest.mark.parametrize("op", ["ReduceMean", "ReduceL2"])
def test_int_mean_and_l2_truncate(op):
    x = np.array([[-3, -4], [5, -8], [1, 1], [7, 7], [2, 2]], np.int32)
    out = check_op(op, [x, np.array([1])], {"keepdims": 0})[0]
    if op == "ReduceMean":
        np.testing.assert_array_equal(out, [-3, -1, 1, 7, 2])  # toward zero, not floor


@pytest.mark.parametrize("op", ALL_OPS)
@pytest.mark.parametrize("dtype", [np.float16, BF16])
@pytest.mark.parametrize("axes", [None, [1], [-1, 0]])
def test_reduce_half(op, dtype, axes):
    x = data_for(op, (3, 7, 5), dtype, seed=7)
    check_half(op, [x, axes_input(axes)], rtol=1e-2 if dtype == BF16 else 2e-3)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # the reference's np.mean of nothing
@pytest.mark.parametrize("op", ALL_OPS)
@pytest.mark.parametrize("axes", [None, [0], [1]])
@pytest.mark.parametrize("keepdims", [0, 1])
def test_reduce_empty(op, axes, keepdims):
    # Empty sets reduce to the identity: 0, 1, -inf / +inf, log(0) = -inf; ReduceMean gives NaN.
    check_op(op, [np.zeros((0, 3), np.float32), axes_input(axes)], {"keepdims": keepdims})


@pytest.mark.parametrize("op,dtype", [("ReduceMax", np.int32), ("ReduceMin", np.uint8), ("ReduceMax", np.bool_),
                                      ("ReduceMin", np.int64), ("ReduceSum", np.int32), ("ReduceProd", np.int64)])
def test_reduce_empty_ints(op, dtype):
    # ReduceMax/Min of nothing: the dtype's minimum/maximum (False/True for bool).
    check_op(op, [np.zeros((0, 4), dtype), np.array([0])])


@pytest.mark.parametrize("op", ALL_OPS)
@pytest.mark.parametrize("noop", [0, 1])
def test_reduce_rank0(op, noop):
    x = np.array(1.5, np.float32)
    for axes, keepdims in ((None, 1), (np.array([], np.int64), 0)):
        attrs = {"keepdims": keepdims, "noop_with_empty_axes": noop}
        if op == "ReduceLogSumExp":  # the reference raises a TypeError on rank 0
            assert_same(vfw_run(op, [x, axes], attrs)[0], x)
        else:
            check_op(op, [x, axes], attrs)
    # A rank-0 tensor has no axis: the accepted range [-r, r-1] is empty.
    with pytest.raises(ShapeError, match=f"{op}: axes=\\[0\\] is out of range"):
        vfw_run(op, [x, np.array([0])])


@pytest.mark.parametrize("op", ["ReduceMax", "ReduceMin", "ReduceSum", "ReduceLogSumExp"])
def test_reduce_nan_propagates(op):
    x = rand((3, 4), np.float32)
    x[1, 2] = np.nan
    out = check_op(op, [x, np.array([1])], {"keepdims": 0})[0]
    assert np.isnan(out[1]) and not np.isnan(out[[0, 2]]).any()


def test_log_sum_exp_is_stable():
    # The reference computes exp directly; compare with a float64 log-sum-exp done by hand.
    x = np.array([[1000.0, 1000.0, 999.0], [-1000.0, -1001.0, -np.inf], [np.inf, 1.0, 2.0],
                  [-np.inf, -np.inf, -np.inf]], np.float32)
    out = vfw_run("ReduceLogSumExp", [x, np.array([1])], {"keepdims": 0})[0]
    x64 = x.astype(np.float64)
    m = np.max(x64[:2], axis=1)
    expected = m + np.log(np.exp(x64[:2] - m[:, None]).sum(axis=1))
    assert_same(out, np.concatenate([expected, [np.inf, -np.inf]]).astype(np.float32))
    half = vfw_run("ReduceLogSumExp", [np.full((4,), 60000, np.float16)], {"keepdims": 0})[0]
    assert half.dtype == np.float16 and np.isclose(float(half), 60000 + np.log(4), rtol=1e-3)


def test_reduce_writes_out():
    x = rand((3, 4), np.float32)
    out = np.empty((3,), np.float32)
    from vfw.core import run

    assert run("ReduceSum", x, np.array([1]), out=out, keepdims=0) is out
    np.testing.assert_allclose(out, x.sum(axis=1), rtol=1e-6)
    out16 = np.empty((1, 4), np.float16)
    assert run("ReduceMax", x.astype(np.float16), np.array([0]), out=out16) is out16


def test_reduce_full_returns_ndarray():
    for op in ALL_OPS:
        out = vfw_run(op, [rand((2, 3), np.float64, low=0.5)], {"keepdims": 0})[0]
        assert type(out) is np.ndarray and out.shape == () and out.dtype == np.float64, op


@pytest.mark.parametrize("axes,keepdims,noop,shape", [
    (None, 1, 0, (1, 1, 1)), (None, 0, 0, ()), (None, 1, 1, (2, 3, 4)), ([], 0, 1, (2, 3, 4)),
    ([0, -1], 0, 0, (3,)), ([1], 1, 0, (2, 1, 4)), ([], 0, 0, ())])
def test_reduce_infer(axes, keepdims, noop, shape):
    schema = get_schema("ReduceSum")
    attrs = schema.bind_attrs({"keepdims": keepdims, "noop_with_empty_axes": noop})
    x = rand((2, 3, 4))
    infos = [TensorInfo(x.shape, x.dtype)]
    if axes is not None:
        infos.append(TensorInfo((len(axes),), np.int64, np.array(axes, np.int64)))
    (info,) = schema.infer(attrs, infos)
    real = vfw_run("ReduceSum", [x, axes_input(axes)], {"keepdims": keepdims, "noop_with_empty_axes": noop})[0]
    assert info == TensorInfo(real.shape, real.dtype) and info.shape == shape


def test_reduce_infer_unknown_axes():
    schema = get_schema("ReduceMax")
    infos = [TensorInfo((2, 3), np.float32), TensorInfo((1,), np.int64)]
    assert schema.infer(schema.bind_attrs({}), infos)[0].shape == (None, None)
    assert schema.infer(schema.bind_attrs({"keepdims": 0}), infos)[0].shape is None


@pytest.mark.parametrize("axes", [[2], [-3], [0, 0], [1, -1]])
def test_reduce_bad_axes(axes):
    with pytest.raises(ShapeError, match="ReduceSum: axes"):
        vfw_run("ReduceSum", [rand((2, 3)), np.array(axes)])
    schema = get_schema("ReduceSum")
    with pytest.raises(ShapeError, match="ReduceSum"):
        schema.infer(schema.bind_attrs({}), [TensorInfo((2, 3), np.float32),
                                             TensorInfo((len(axes),), np.int64, np.array(axes))])


def test_reduce_bad_types_and_attrs():
    with pytest.raises(DTypeError, match="ReduceLogSum"):
        vfw_run("ReduceLogSum", [np.ones((2,), np.int32)])
    with pytest.raises(DTypeError, match="ReduceSum"):
        vfw_run("ReduceSum", [np.ones((2,), np.int8)])
    with pytest.raises(DTypeError, match="ReduceSum"):
        vfw_run("ReduceSum", [np.ones((2,), np.float32), np.array([0], np.int32)])
    with pytest.raises(OpAttributeError, match="ReduceMean"):
        vfw_run("ReduceMean", [np.ones((2,), np.float32)], {"keepdims": 2})


# -- ArgMax / ArgMin -------------------------------------------------------------------------
@pytest.mark.parametrize("op", ["ArgMax", "ArgMin"])
@pytest.mark.parametrize("axis", [0, 1, -1, -3])
@pytest.mark.parametrize("keepdims", [0, 1])
@pytest.mark.parametrize("last", [0, 1])
def test_arg_matches_onnx(op, axis, keepdims, last):
    # Small ints give many ties, which select_last_index must break.
    for x in (rand((3, 4, 5), np.float32), rand((3, 4, 5), np.int32, low=-1, high=1, seed=2)):
        check_op(op, [x], {"axis": axis, "keepdims": keepdims, "select_last_index": last})


@pytest.mark.parametrize("op", ["ArgMax", "ArgMin"])
@pytest.mark.parametrize("dtype", [np.float16, BF16, np.float64, np.int8, np.uint8, np.int16, np.uint16,
                                   np.uint32, np.int64, np.uint64])
def test_arg_dtypes(op, dtype):
    x = rand((4, 6), dtype, low=-2, high=2, seed=4)
    if dtype == BF16:  # the reference's argmax handles bfloat16 as float32 (an exact conversion)
        expected = onnx_run(op, [x.astype(np.float32)], {"axis": 1, "select_last_index": 1})[0]
        assert_same(vfw_run(op, [x], {"axis": 1, "select_last_index": 1})[0], expected)
    else:
        check_op(op, [x], {"axis": 1, "select_last_index": 1})
        check_op(op, [x], {"axis": 0})


def test_arg_nan_and_rank0():
    x = np.array([[1.0, np.nan, 3.0, np.nan]], np.float32)
    check_op("ArgMax", [x], {"axis": 1})
    check_op("ArgMin", [x], {"axis": 1, "select_last_index": 1})
    check_op("ArgMax", [np.array(2.0, np.float32)], {"axis": 0})


def test_arg_errors_and_infer():
    with pytest.raises(ShapeError, match="ArgMax: .*empty"):
        vfw_run("ArgMax", [np.zeros((2, 0), np.float32)], {"axis": 1})
    with pytest.raises(ShapeError, match="ArgMin: axis=2"):
        vfw_run("ArgMin", [np.zeros((2, 3), np.float32)], {"axis": 2})
    with pytest.raises(DTypeError, match="ArgMax"):
        vfw_run("ArgMax", [np.zeros((2,), np.bool_)])
    schema = get_schema("ArgMin")
    for attrs in ({"axis": -1, "keepdims": 0}, {"axis": 1}):
        x = rand((2, 3, 4))
        real = vfw_run("ArgMin", [x], attrs)[0]
        assert schema.infer(schema.bind_attrs(attrs), [TensorInfo(x.shape, x.dtype)]) == [
            TensorInfo(real.shape, np.int64)]
    # Empty along other axes is fine.
    check_op("ArgMax", [np.zeros((0, 3), np.float32)], {"axis": 1})


# -- CumSum ----------------------------------------------------------------------------------
@pytest.mark.parametrize("axis", [0, 1, -1, -2])
@pytest.mark.parametrize("exclusive", [0, 1])
@pytest.mark.parametrize("reverse", [0, 1])
def test_cumsum_matches_onnx(axis, exclusive, reverse):
    attrs = {"exclusive": exclusive, "reverse": reverse}
    for ax in (np.array(axis, np.int64), np.array(axis, np.int32)):
        check_op("CumSum", [rand((3, 4), np.float32), ax], attrs)
    # ONNX wants a 0-D axis; a 1-element 1-D one is accepted as well.
    assert_same(vfw_run("CumSum", [rand((3, 4)), np.array([axis])], attrs)[0],
                vfw_run("CumSum", [rand((3, 4)), np.array(axis)], attrs)[0])
    check_op("CumSum", [rand((2, 3, 4), np.int32), np.array(axis)], attrs)
    check_op("CumSum", [rand((6,), np.float64), np.array(0)], attrs)


@pytest.mark.parametrize("dtype", [np.int64, np.uint32, np.uint64, np.float16, BF16])
@pytest.mark.parametrize("exclusive,reverse", [(0, 0), (1, 1)])
def test_cumsum_dtypes(dtype, exclusive, reverse):
    x = rand((3, 50), dtype, seed=8)
    attrs = {"exclusive": exclusive, "reverse": reverse}
    if np.dtype(dtype) in (np.float16, BF16):
        check_half("CumSum", [x, np.array(1)], attrs, rtol=1e-2 if dtype == BF16 else 2e-3, atol=2e-2)
    else:
        check_op("CumSum", [x, np.array(1)], attrs)


def test_cumsum_empty_out_and_errors():
    check_op("CumSum", [np.zeros((0, 3), np.float32), np.array(0)], {"exclusive": 1})
    check_op("CumSum", [np.zeros((2, 0), np.float32), np.array(1)], {"reverse": 1})
    x = rand((3, 4))
    out = np.empty_like(x)
    from vfw.core import run

    assert run("CumSum", x, np.array(1), out=out, reverse=1) is out
    np.testing.assert_allclose(out, np.cumsum(x[:, ::-1], axis=1)[:, ::-1], rtol=1e-6)
    with pytest.raises(ShapeError, match="CumSum: axis=2"):
        vfw_run("CumSum", [x, np.array(2)])
    with pytest.raises(OpInputError, match="CumSum: input 'axis'"):
        vfw_run("CumSum", [x, np.array([0, 1])])
    with pytest.raises(DTypeError, match="CumSum"):
        vfw_run("CumSum", [x, np.array(0.0, np.float32)])


# -- TopK ------------------------------------------------------------------------------------
@pytest.mark.parametrize("axis", [0, 1, -1])
@pytest.mark.parametrize("largest", [0, 1])
@pytest.mark.parametrize("k", [0, 1, 3, 4])
def test_topk_matches_onnx(axis, largest, k):
    for x in (rand((4, 5, 6), np.float32), rand((4, 5, 6), np.int64, low=-2, high=2, seed=3)):
        check_op("TopK", [x, np.array([k])], {"axis": axis, "largest": largest})


@pytest.mark.parametrize("largest", [0, 1])
@pytest.mark.parametrize("axis", [0, -1])
@pytest.mark.parametrize("k", [1, 7, 40])
def test_topk_partition_path_with_ties(largest, axis, k):
    # n >= 256 and k <= n/8 takes the argpartition path; few distinct values force ties at the k-th.
    x = rand((3, 400), np.int32, low=-5, high=5, seed=11)
    x = x if axis == -1 else np.ascontiguousarray(x.T)
    check_op("TopK", [x, np.array([k])], {"axis": axis, "largest": largest})
    xf = rand((2, 333), np.float32, seed=12).round(1)
    check_op("TopK", [xf, np.array([k])], {"axis": -1, "largest": largest})
    # Distinct values except for ties inside the top k (no tie straddles the k-th place).
    xu = rand((2, 512), np.float64, seed=13)
    best = np.argsort(xu, axis=1)[:, -1 if largest else 0]
    xu[:, 100] = xu[:, 7] = xu[[0, 1], best]
    check_op("TopK", [xu, np.array([k])], {"axis": -1, "largest": largest})


@pytest.mark.parametrize("n,k", [(6, 3), (500, 9)])
@pytest.mark.parametrize("largest", [0, 1])
def test_topk_unsorted_same_set(n, k, largest):
    # sorted=0 leaves the order unspecified: compare (index, value) pairs as sets.
    x = rand((3, n), np.int32, low=-4, high=4, seed=5)
    values, idx = vfw_run("TopK", [x, np.array([k])], {"largest": largest, "sorted": 0})
    ref_values, ref_idx = onnx_run("TopK", [x, np.array([k])], {"largest": largest}, 2)
    order, ref_order = np.argsort(idx, axis=1), np.argsort(ref_idx, axis=1)
    np.testing.assert_array_equal(np.take_along_axis(idx, order, 1), np.take_along_axis(ref_idx, ref_order, 1))
    np.testing.assert_array_equal(np.take_along_axis(values, order, 1), np.take_along_axis(ref_values, ref_order, 1))
    assert idx.dtype == np.int64 and values.dtype == np.int32


@pytest.mark.parametrize("dtype", [np.float16, BF16, np.float64, np.int8, np.uint8, np.uint16, np.uint64])
def test_topk_dtypes(dtype):
    x = rand((3, 300), dtype, seed=6)
    for k in (2, 100):
        if dtype == BF16:  # compare with the float32 oracle: the conversion is exact
            got = vfw_run("TopK", [x, np.array([k])])
            ref = onnx_run("TopK", [x.astype(np.float32), np.array([k])], n_outputs=2)
            assert_same(got[0], ref[0].astype(BF16))
            assert_same(got[1], ref[1])
        else:
            check_op("TopK", [x, np.array([k])], {"largest": 0})
            check_op("TopK", [x, np.array([k])])


def test_topk_nan_orders_above_inf():
    x = np.array([[1.0, np.nan, np.inf, 2.0, -np.inf]], np.float32)
    for largest in (0, 1):
        check_op("TopK", [x, np.array([3])], {"largest": largest})
    big = np.tile(rand((600,), np.float32), (2, 1))
    big[0, 17] = np.nan
    check_op("TopK", [big, np.array([5])])


def test_topk_errors_and_infer():
    x = rand((3, 4))
    with pytest.raises(OpInputError, match="TopK: K=5"):
        vfw_run("TopK", [x, np.array([5])])
    with pytest.raises(OpInputError, match="TopK: K=-1"):
        vfw_run("TopK", [x, np.array([-1])])
    with pytest.raises(OpInputError, match="TopK: input 'K'"):
        vfw_run("TopK", [x, np.array([1, 2])])
    with pytest.raises(ShapeError, match="TopK: axis=2"):
        vfw_run("TopK", [x, np.array([1])], {"axis": 2})
    with pytest.raises(ShapeError, match="TopK: input 'X' must have rank"):
        vfw_run("TopK", [np.array(1.0, np.float32), np.array([1])])
    schema = get_schema("TopK")
    attrs = schema.bind_attrs({"axis": 0})
    got = schema.infer(attrs, [TensorInfo((3, 4), np.float32), TensorInfo((1,), np.int64, np.array([2]))])
    real = vfw_run("TopK", [x, np.array([2])], {"axis": 0})
    assert got == [TensorInfo(r.shape, r.dtype) for r in real]
    got = schema.infer(attrs, [TensorInfo((3, 4), np.float32), TensorInfo((1,), np.int64)])
    assert got == [TensorInfo((None, 4), np.float32), TensorInfo((None, 4), np.int64)]
