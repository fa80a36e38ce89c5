"""Gradients of the logic family: Where (by the condition, unbroadcast), casts; comparisons and logic have none."""

import numpy as np
import pytest

from tests.autograd.gradcheck import check_gradient, check_higher_order
from vfw.core import Tensor, autograd, execute
from vfw.core import dtypes as dt
from vfw.core.registry import get_schema

RNG = np.random.default_rng(11)


def leaf(shape, dtype=np.float64):
    return Tensor(RNG.standard_normal(shape).astype(dtype), requires_grad=True)


@pytest.mark.parametrize("shapes", [((3, 4), (3, 4), (3, 4)), ((3, 1), (1, 4), (3, 4)), ((), (2, 3), (3,)),
                                    ((2, 3), (), ()), ((4,), (2, 1, 4), (1,)), ((2, 1, 3), (2, 3), (1, 1, 1))],
                         ids=str)
def test_where_routes_the_gradient_by_the_condition(shapes):
    cs, xs, ys = shapes
    condition = RNG.random(cs) < 0.5
    check_gradient("Where", [condition, RNG.standard_normal(xs), RNG.standard_normal(ys)])


def test_where_values_and_no_gradient_for_the_condition():
    condition = Tensor(np.array([[True], [False]]))
    x, y = leaf((2, 3)), leaf((3,))
    gc, gx, gy = autograd.gradient(execute("Where", condition, x, y), [condition, x, y], [Tensor(np.ones((2, 3)))])
    assert gc is None
    np.testing.assert_array_equal(gx.array, [[1, 1, 1], [0, 0, 0]])
    np.testing.assert_array_equal(gy.array, [1, 1, 1])


def test_where_only_one_branch_needs_a_gradient():
    condition = np.array([True, False, True])
    x, y = leaf(3), Tensor(RNG.standard_normal(3))
    (gx,) = autograd.gradient(execute("Where", condition, x, y), [x])
    np.testing.assert_array_equal(gx.array, [1, 0, 1])


def test_where_second_order_through_a_product():
    # f = sum(w * Where(c, x * x, y)): d/dx = 2 w x on c, d2/dx2 = 2 w on c.
    check_higher_order("Where", [np.array([True, False, True, True]), RNG.standard_normal(4), RNG.standard_normal(4)])
    c = np.array([True, False, True])
    x, y, w = leaf(3), leaf(3), RNG.standard_normal(3)
    z = execute("Where", c, execute("Mul", x, x), execute("Mul", y, x))
    (gx,) = autograd.gradient(z, [x], [Tensor(w)], create_graph=True)
    np.testing.assert_allclose(gx.array, np.where(c, 2 * w * x.array, w * y.array))
    gxx, gxy = autograd.gradient(execute("ReduceSum", gx, np.zeros(0, np.int64), keepdims=0), [x, y])
    np.testing.assert_allclose(gxx.array, np.where(c, 2 * w, 0))
    np.testing.assert_allclose(gxy.array, np.where(c, 0, w))


def test_where_gradient_keeps_half_dtypes():
    for dtype in (np.float16, dt.bfloat16, np.float32):
        x, y = leaf((2, 2), dtype), leaf((2,), dtype)
        gx, gy = autograd.gradient(execute("Where", np.array([True, False]), x, y), [x, y])
        assert gx.dtype == gy.dtype == np.dtype(dtype)
        np.testing.assert_array_equal(gy.array.astype(np.float64), [0, 2])


# -- casts -------------------------------------------------------------------------------------------------------

FLOAT_PAIRS = [(a, b) for a in (np.float64, np.float32, np.float16, dt.bfloat16)
               for b in (np.float64, np.float32, np.float16, dt.bfloat16)]


@pytest.mark.parametrize("src,dst", FLOAT_PAIRS, ids=str)
@pytest.mark.parametrize("op", ["Cast", "CastLike"])
def test_float_casts_cast_the_gradient_back(op, src, dst):
    x = Tensor(np.array([[0.5, -1.25, 3.0]], src), requires_grad=True)
    target = Tensor(np.zeros(1, dst), requires_grad=True)
    y = execute("Cast", x, to=np.dtype(dst)) if op == "Cast" else execute("CastLike", x, target)
    assert y.dtype == np.dtype(dst) and y.requires_grad
    w = np.array([[1.5, -2.0, 0.25]], dst)
    gx, gt = autograd.gradient(y, [x, target], [Tensor(w)])
    assert gt is None  # target_type lends its dtype, not its values
    assert gx.dtype == np.dtype(src) and gx.shape == x.shape
    np.testing.assert_array_equal(gx.array.astype(np.float64), w.astype(np.float64))


@pytest.mark.parametrize("op", ["Cast", "CastLike"])
def test_float64_cast_matches_finite_differences(op):
    x = RNG.standard_normal((2, 3))
    if op == "Cast":
        check_gradient("Cast", [x], {"to": np.dtype(np.float64)})
    else:
        check_gradient("CastLike", [x, np.zeros(1)], wrt=[0])


@pytest.mark.parametrize("op", ["Cast", "CastLike"])
@pytest.mark.parametrize("dst", [np.int32, np.int64, np.uint8, np.bool_], ids=str)
def test_casts_to_non_floats_pass_no_gradient(op, dst):
    x = leaf(4)
    y = execute("Cast", x, to=np.dtype(dst)) if op == "Cast" else execute("CastLike", x, np.zeros(1, dst))
    assert not y.requires_grad
    (g,) = autograd.gradient(execute("Mul", x, x), [x])  # x itself is still differentiable
    np.testing.assert_allclose(g.array, 2 * x.array)
    assert autograd.gradient(y, [x]) == [None]


def test_cast_from_integers_starts_no_graph():
    i = Tensor(np.arange(3, dtype=np.int64))
    y = execute("Cast", i, to=np.dtype(np.float32))
    assert y.grad_node is None and not y.requires_grad


def test_cast_maker_returns_none_for_non_float_input():
    # A float target fed by an integer input (possible through a recorded mixed node) gets no gradient.
    from vfw.core.ops.logic import _cast_back

    assert _cast_back(np.zeros(2, np.int32), Tensor(np.ones(2))) is None
    assert _cast_back(np.zeros(2, np.float32), Tensor(np.ones(2, np.int64))) is None


def test_second_order_through_a_narrowing_cast():
    # y = Sigmoid(Cast(x * x, float32)): the second derivative passes both casts and Sigmoid's maker.
    x = Tensor(np.array([0.3, -0.7, 1.1]), requires_grad=True)
    y = execute("Sigmoid", execute("Cast", execute("Mul", x, x), to=np.dtype(np.float32)))
    (g,) = autograd.gradient(y, [x], create_graph=True)
    assert g.dtype == np.float64
    s = 1 / (1 + np.exp(-x.array ** 2))
    np.testing.assert_allclose(g.array, 2 * x.array * s * (1 - s), rtol=1e-6)
    (gg,) = autograd.gradient(g, [x])
    expected = 2 * s * (1 - s) + 4 * x.array ** 2 * s * (1 - s) * (1 - 2 * s)
    np.testing.assert_allclose(gg.array, expected, rtol=1e-5)


# -- no gradient -------------------------------------------------------------------------------------------------

NOT_DIFFERENTIABLE = ["Equal", "Less", "LessOrEqual", "Greater", "GreaterOrEqual", "And", "Or", "Xor", "Not"]


@pytest.mark.parametrize("op", NOT_DIFFERENTIABLE)
def test_comparisons_and_logic_are_not_differentiable(op):
    schema = get_schema(op)
    assert schema.differentiable is False and schema.gradient is None
    if op in ("And", "Or", "Xor", "Not"):
        return
    a, b = leaf((2, 3)), leaf((3,))
    y = execute(op, a, b)
    assert y.grad_node is None and not y.requires_grad


def test_every_logic_op_has_a_gradient_decision():
    for op in NOT_DIFFERENTIABLE + ["Where", "Cast", "CastLike"]:
        schema = get_schema(op)
        assert schema.differentiable is (op in ("Where", "Cast", "CastLike")), op
        assert (schema.gradient is not None) is schema.differentiable, op
