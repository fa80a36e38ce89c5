"""Gradients of the reductions, CumSum and TopK (vfw.core.ops.reduction) against finite differences."""

import numpy as np
import pytest

from tests.autograd.gradcheck import check_gradient, check_higher_order
from vfw.core import Tensor, autograd, execute
from vfw.core.registry import get_schema

RNG = np.random.default_rng(0)

REDUCTIONS = ["ReduceSum", "ReduceMean", "ReduceProd", "ReduceMax", "ReduceMin", "ReduceL1", "ReduceL2",
              "ReduceSumSquare", "ReduceLogSum", "ReduceLogSumExp"]


def i64(*values):
    return np.array(values, np.int64)


def data_for(op, shape):
    """Inputs away from the op's kinks: no zeros for L1, positive for LogSum, distinct values for Max/Min."""
    x = RNG.standard_normal(shape)
    if op == "ReduceL1":
        return np.sign(x) * (0.5 + np.abs(x))
    if op == "ReduceLogSum":
        return 0.5 + RNG.uniform(size=shape)
    if op == "ReduceProd":
        return np.sign(x) * (0.5 + np.abs(x))  # magnitudes near 1 keep the product well scaled
    return x  # standard normal draws are distinct (no ties for Max/Min)


# axes=None: input absent; () : an empty axes input.
AXES = [None, (), (0,), (-1,), (0, 2), (1, -1), (2, 0, 1)]


@pytest.mark.parametrize("op", REDUCTIONS)
@pytest.mark.parametrize("axes", AXES)
@pytest.mark.parametrize("keepdims", [0, 1])
def test_reduction(op, axes, keepdims):
    inputs = [data_for(op, (2, 3, 4))] + ([] if axes is None else [i64(*axes)])
    check_gradient(op, inputs, {"keepdims": keepdims})


@pytest.mark.parametrize("op", REDUCTIONS)
@pytest.mark.parametrize("axes", [None, ()])
@pytest.mark.parametrize("keepdims", [0, 1])
def test_reduction_noop_with_empty_axes(op, axes, keepdims):
    # No axes and noop_with_empty_axes=1: an elementwise op (Square, Log, Abs, ... or the identity).
    inputs = [data_for(op, (2, 3))] + ([] if axes is None else [i64(*axes)])
    check_gradient(op, inputs, {"keepdims": keepdims, "noop_with_empty_axes": 1})


@pytest.mark.parametrize("op", REDUCTIONS)
@pytest.mark.parametrize(("shape", "axes"), [((), None), ((5,), (0,)), ((5,), (-1,)), ((1, 4), (0,)), ((3, 1), (1,))])
def test_reduction_small_ranks(op, shape, axes):
    inputs = [data_for(op, shape)] + ([] if axes is None else [i64(*axes)])
    check_gradient(op, inputs, {"keepdims": 0})


@pytest.mark.parametrize("op", REDUCTIONS)
def test_reduction_empty_input(op):
    x = Tensor(np.zeros((0, 3)), requires_grad=True)
    y = execute(op, x, i64(0), keepdims=0)
    (g,) = autograd.gradient(y, [x])
    assert g.shape == (0, 3) and g.dtype == np.float64


@pytest.mark.parametrize("x", [
    [[2.0, 3.0, 4.0], [5.0, 6.0, 7.0]],  # no zero: prod / x
    [[2.0, 0.0, 4.0], [5.0, 6.0, 7.0]],  # one zero: only it gets a gradient
    [[0.0, 3.0, 0.0], [5.0, 0.0, 7.0]],  # two zeros in a row: nothing
    [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]],
])
@pytest.mark.parametrize("axes", [(1,), (0, 1), (0,)])
def test_reduce_prod_with_zeros(x, axes):
    # The product is a polynomial, so central differences are exact at zeros too.
    check_gradient("ReduceProd", [np.array(x), i64(*axes)], {"keepdims": 0})


def test_reduce_prod_with_zeros_explicit():
    x = Tensor(np.array([[2.0, 0.0, 4.0], [0.0, 3.0, 0.0], [1.0, 2.0, 3.0]]), requires_grad=True)
    (g,) = autograd.gradient(execute("ReduceProd", x, i64(1), keepdims=0), [x])
    np.testing.assert_array_equal(g.array, [[0.0, 8.0, 0.0], [0.0, 0.0, 0.0], [6.0, 3.0, 2.0]])


@pytest.mark.parametrize(("op", "x", "expected"), [
    ("ReduceMax", [1.0, 3.0, 3.0, -2.0], [0.0, 0.5, 0.5, 0.0]),
    ("ReduceMin", [1.0, -3.0, -3.0, -3.0], [0.0, 1 / 3, 1 / 3, 1 / 3]),
    ("ReduceMax", [5.0, 1.0, 2.0, 3.0], [1.0, 0.0, 0.0, 0.0]),
])
def test_reduce_max_min_ties_split_evenly(op, x, expected):
    # As torch.amax/amin: the gradient is shared evenly among the tied extremes.
    t = Tensor(np.array(x), requires_grad=True)
    (g,) = autograd.gradient(execute(op, t, keepdims=0), [t])
    np.testing.assert_allclose(g.array, expected)


def test_reduce_max_ties_per_row():
    t = Tensor(np.array([[1.0, 1.0], [2.0, 0.0]]), requires_grad=True)
    y = execute("ReduceMax", t, i64(1), keepdims=1)
    (g,) = autograd.gradient(y, [t], [Tensor(np.array([[4.0], [6.0]]))])
    np.testing.assert_allclose(g.array, [[2.0, 2.0], [6.0, 0.0]])


def test_reduce_l2_of_a_zero_vector_has_zero_gradient():
    # torch's norm subgradient at 0 (rather than 0/0 = NaN).
    t = Tensor(np.array([[0.0, 0.0], [3.0, 4.0]]), requires_grad=True)
    (g,) = autograd.gradient(execute("ReduceL2", t, i64(1), keepdims=0), [t])
    np.testing.assert_allclose(g.array, [[0.0, 0.0], [0.6, 0.8]])


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("op", REDUCTIONS)
def test_reduction_low_precision_matches_float64(op, dtype):
    x64 = data_for(op, (3, 4))
    grads = []
    for dt in (np.float64, dtype):
        t = Tensor(x64.astype(dt), requires_grad=True)
        (g,) = autograd.gradient(execute(op, t, i64(1), keepdims=0), [t], [Tensor(np.linspace(-1, 1, 3).astype(dt))])
        assert g.dtype == dt
        grads.append(g.array.astype(np.float64))
    tol = 1e-5 if dtype == np.float32 else 2e-2
    np.testing.assert_allclose(grads[1], grads[0], rtol=tol, atol=tol)


@pytest.mark.parametrize("op", ["ReduceMean", "ReduceProd", "ReduceL2", "ReduceSumSquare", "ReduceLogSum",
                                "ReduceLogSumExp"])
def test_reduction_second_order(op):
    check_higher_order(op, [data_for(op, (2, 3)), i64(1)], {"keepdims": 0})


# -- CumSum -----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("exclusive", [0, 1])
@pytest.mark.parametrize("reverse", [0, 1])
@pytest.mark.parametrize(("shape", "axis"), [((5,), 0), ((3, 4), 0), ((3, 4), 1), ((2, 3, 4), -1), ((2, 3, 4), -2)])
def test_cumsum(exclusive, reverse, shape, axis):
    check_gradient("CumSum", [RNG.standard_normal(shape), np.array(axis)], {"exclusive": exclusive, "reverse": reverse})


def test_cumsum_int32_axis_and_second_order():
    check_gradient("CumSum", [RNG.standard_normal((3, 4)), np.array([1], np.int32)], {"exclusive": 1})
    check_higher_order("CumSum", [RNG.standard_normal((3, 4)), np.array(0)], {"reverse": 1})


# -- TopK -------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("largest", [0, 1])
@pytest.mark.parametrize("sorted_", [0, 1])
@pytest.mark.parametrize(("shape", "k", "axis"), [
    ((6,), 3, -1), ((3, 5), 2, 1), ((3, 5), 3, 0), ((2, 3, 4), 4, -1), ((2, 3, 4), 1, 1), ((4, 3), 0, 0),
])
def test_topk(largest, sorted_, shape, k, axis):
    check_gradient("TopK", [RNG.standard_normal(shape), i64(k)], {"axis": axis, "largest": largest,
                                                                   "sorted": sorted_})


def test_topk_large_axis_partition_path():
    # Axis >= 256 with k small uses the partition kernel; the gradient only follows Indices.
    check_gradient("TopK", [RNG.standard_normal((2, 300)), i64(3)], {"axis": 1})


def test_topk_indices_are_not_differentiable_and_second_order():
    t = Tensor(RNG.standard_normal((3, 4)), requires_grad=True)
    values, indices = execute("TopK", t, i64(2))
    assert values.requires_grad and indices.dtype == np.int64
    check_higher_order("TopK", [RNG.standard_normal((3, 4)), i64(2)], {"axis": 0})


# -- ArgMax / ArgMin --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("op", ["ArgMax", "ArgMin"])
def test_arg_ops_are_not_differentiable(op):
    assert get_schema(op).differentiable is False
    t = Tensor(RNG.standard_normal((3, 4)), requires_grad=True)
    y = execute(op, t, axis=1)
    assert not y.requires_grad and y.grad_node is None
