"""CumProd, CumMax, CumMin and LogCumSumExp (vfw.core.ops.scan_sort).

ONNX has no such operators, so the oracle is numpy: ``np.cumprod``, a running max/min with
the index rule written out element by element (the spec the vectorized kernel must meet),
and ``log(cumsum(exp(x)))`` in float64 where it does not underflow.
"""

import ml_dtypes
import numpy as np
import pytest

from tests.ops.oracle import assert_same, rand, vfw_run
from vfw.core.errors import DTypeError, OpInputError, ShapeError
from vfw.core.registry import TensorInfo, get_schema

BF16 = np.dtype(ml_dtypes.bfloat16)
SHAPES_AXES = [((7,), 0), ((7,), -1), ((3, 4), 0), ((3, 4), 1), ((2, 3, 4), -2), ((2, 0, 3), 1), ((0, 3), 1)]


def axis(a, dtype=np.int64):
    return np.array(a, dtype)


def flip(x, ax):
    return np.flip(x, ax)


# -- CumProd -------------------------------------------------------------------------------------
@pytest.mark.parametrize("shape,ax", SHAPES_AXES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64, np.uint32, np.uint64])
@pytest.mark.parametrize("reverse", [0, 1])
def test_cumprod_matches_numpy(shape, ax, dtype, reverse):
    x = rand(shape, dtype, low=0 if np.dtype(dtype).kind == "u" else -2, high=2, seed=1)
    expected = np.cumprod(x, axis=ax, dtype=dtype)
    if reverse:
        expected = flip(np.cumprod(flip(x, ax), axis=ax, dtype=dtype), ax)
    (got,) = vfw_run("CumProd", [x, axis(ax)], {"reverse": reverse})
    assert_same(got, expected)


@pytest.mark.parametrize("dtype", [np.float16, BF16])
def test_cumprod_half_accumulates_in_float32(dtype):
    x = rand((4, 9), dtype, low=0.5, high=1.5, seed=2)
    (got,) = vfw_run("CumProd", [x, axis([1], np.int32)])
    assert_same(got, np.cumprod(x.astype(np.float32), axis=1).astype(dtype), rtol=1e-2 if dtype == BF16 else 1e-3)


def test_cumprod_zero_dim_and_special_values():
    (got,) = vfw_run("CumProd", [np.array(2.5, np.float32), axis(0)])
    assert_same(got, np.array(2.5, np.float32))
    x = np.array([2.0, np.inf, 0.0, np.nan, -1.0], np.float64)
    (got,) = vfw_run("CumProd", [x, axis(0)])
    with np.errstate(invalid="ignore"):  # inf * 0
        assert_same(got, np.cumprod(x))


# -- CumMax / CumMin ---------------------------------------------------------------------------------
def running_extreme(x, ax, largest):
    """Element-by-element spec: an element replaces the running value when it is at least as good
    (ties move the index forward) or NaN; a NaN running value stays until a later NaN moves the index."""
    moved = np.moveaxis(x, ax, -1)
    values = np.empty_like(moved)
    indices = np.zeros(moved.shape, np.int64)
    for pos in np.ndindex(moved.shape[:-1]):
        best, where = None, 0
        for i, v in enumerate(moved[pos]):
            if best is None or v != v or (best == best and (v >= best if largest else v <= best)):  # v != v: NaN
                best, where = v, i
            values[pos + (i,)], indices[pos + (i,)] = best, where
    return np.moveaxis(values, -1, ax), np.moveaxis(indices, -1, ax)


@pytest.mark.parametrize("op", ["CumMax", "CumMin"])
@pytest.mark.parametrize("shape,ax", SHAPES_AXES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16, np.int8, np.int64, np.uint8, np.bool_])
def test_cum_extreme_matches_spec(op, shape, ax, dtype):
    x = rand(shape, dtype, low=0 if np.dtype(dtype).kind == "u" else -2, high=2, seed=3)  # small range: ties
    values, indices = vfw_run(op, [x, axis(ax)])
    want_values, want_indices = running_extreme(x, ax, op == "CumMax")
    assert_same(values, want_values)
    assert_same(indices, want_indices)


@pytest.mark.parametrize("op", ["CumMax", "CumMin"])
def test_cum_extreme_nan_and_bfloat16(op):
    x = np.array([[1.0, 3.0, 3.0, np.nan, 2.0, np.nan, 5.0], [np.nan, 0.0, -1.0, -1.0, 4.0, 4.0, np.nan]], np.float32)
    values, indices = vfw_run(op, [x, axis(1)])
    want_values, want_indices = running_extreme(x, 1, op == "CumMax")
    assert_same(values, want_values)
    assert_same(indices, want_indices)
    values, indices = vfw_run(op, [x.astype(BF16), axis(1)])
    assert_same(values, want_values.astype(BF16))
    assert_same(indices, want_indices)
    values, indices = vfw_run(op, [np.array(4, np.int32), axis(0)])
    assert_same(values, np.array(4, np.int32))
    assert_same(indices, np.array(0, np.int64))


# -- LogCumSumExp ---------------------------------------------------------------------------------
@pytest.mark.parametrize("shape,ax", SHAPES_AXES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("reverse", [0, 1])
def test_logcumsumexp_matches_numpy(shape, ax, dtype, reverse):
    x = rand(shape, dtype, low=-5, high=5, seed=4)
    work = flip(x, ax) if reverse else x
    expected = np.log(np.cumsum(np.exp(work.astype(np.float64)), axis=ax))
    expected = (flip(expected, ax) if reverse else expected).astype(dtype)
    (got,) = vfw_run("LogCumSumExp", [x, axis(ax)], {"reverse": reverse})
    assert_same(got, expected)


def test_logcumsumexp_is_stable_and_handles_infinities():
    x = np.array([-1000.0, 0.0, 1000.0, 1000.0], np.float32)
    (got,) = vfw_run("LogCumSumExp", [x, axis(0)])
    assert_same(got, np.array([-1000.0, 0.0, 1000.0, 1000.0 + np.log(2.0)], np.float32))
    x = np.array([-np.inf, -np.inf, 1.0, np.inf, np.nan, 2.0], np.float64)
    (got,) = vfw_run("LogCumSumExp", [x, axis(0)])
    assert_same(got, np.array([-np.inf, -np.inf, 1.0, np.inf, np.nan, np.nan]))
    x = rand((3, 5), np.float16, seed=5)
    (got,) = vfw_run("LogCumSumExp", [x, axis(1)])
    assert_same(got, np.logaddexp.accumulate(x.astype(np.float32), axis=1).astype(np.float16), rtol=1e-3, atol=1e-3)


# -- errors and shape inference ------------------------------------------------------------------
@pytest.mark.parametrize("op", ["CumProd", "CumMax", "CumMin", "LogCumSumExp"])
def test_bad_inputs_raise(op):
    x = rand((2, 3), np.float32)
    with pytest.raises(ShapeError, match=op):
        vfw_run(op, [x, axis(2)])
    with pytest.raises(OpInputError, match=op):
        vfw_run(op, [x, axis([0, 1])])
    with pytest.raises(DTypeError, match=op):
        vfw_run(op, [x, axis(0, np.float32)])


def test_bad_dtypes_raise():
    with pytest.raises(DTypeError, match="CumProd"):
        vfw_run("CumProd", [np.ones(3, np.bool_), axis(0)])
    with pytest.raises(DTypeError, match="LogCumSumExp"):
        vfw_run("LogCumSumExp", [np.ones(3, np.int64), axis(0)])


@pytest.mark.parametrize("op", ["CumProd", "CumMax", "CumMin", "LogCumSumExp"])
@pytest.mark.parametrize("shape", [(), (4,), (2, None, 3)])
def test_infer(op, shape):
    schema = get_schema(op)
    infos = schema.infer(schema.bind_attrs({}), [TensorInfo(shape, np.float32), TensorInfo((), np.int64)])
    assert infos[0] == TensorInfo(shape, np.float32)
    if op in ("CumMax", "CumMin"):
        assert infos[1] == TensorInfo(shape, np.int64)
    if None not in shape:
        real = vfw_run(op, [np.ones(shape, np.float32), axis(0)])
        assert [TensorInfo(r.shape, r.dtype) for r in real] == infos
