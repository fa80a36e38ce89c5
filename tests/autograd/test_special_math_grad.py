"""Gradients of the special math ops (float64 central differences; higher orders by nested VJPs)."""

import math

import numpy as np
import pytest

from tests.autograd.gradcheck import check_gradient, check_higher_order
from vfw.core import Tensor, execute
from vfw.core.autograd import gradient
from vfw.core.registry import get_schema

RNG = np.random.default_rng(5)

# Sample ranges inside each op's domain, away from poles (the gamma family also on negative arguments).
UNARY = {
    "Log1p": (-0.7, 3.0), "Expm1": (-2.0, 2.0), "Log2": (0.3, 3.0), "Log10": (0.3, 3.0),
    "Erfc": (-2.5, 2.5), "Erfinv": (-0.9, 0.9), "Lgamma": (0.2, 6.0), "Digamma": (0.2, 6.0),
    "Polygamma": (0.3, 6.0),
}
NEGATIVE = {"Lgamma": (-2.8, -2.2), "Digamma": (-3.7, -3.3), "Polygamma": (-1.8, -1.2)}
BINARY = ["Atan2", "Hypot", "Copysign"]
SHAPE_PAIRS = [((2, 3), (2, 3)), ((2, 3), (3,)), ((4, 1), (1, 3)), ((), (2,))]


def grad_of(op, *xs, **attrs):
    ts = [Tensor(x, requires_grad=True) for x in xs]
    return [g.array for g in gradient(execute(op, *ts, **attrs), ts)]


@pytest.mark.parametrize("op", sorted(UNARY) + BINARY + ["Trunc", "FloorDiv"])
def test_differentiable_with_a_maker(op):
    schema = get_schema(op)
    assert schema.differentiable is True and callable(schema.gradient)


@pytest.mark.parametrize("shape", [(), (5,), (2, 3)])
@pytest.mark.parametrize("op", sorted(UNARY))
def test_unary_first_order(op, shape):
    check_gradient(op, [RNG.uniform(*UNARY[op], shape)])


@pytest.mark.parametrize("op", sorted(NEGATIVE))
def test_gamma_family_on_negative_arguments(op):
    check_gradient(op, [RNG.uniform(*NEGATIVE[op], (2, 3))])


@pytest.mark.parametrize("n", [1, 2, 3])
def test_polygamma_orders(n):
    check_gradient("Polygamma", [RNG.uniform(0.5, 4.0, (4,))], {"n": n}, rtol=1e-4)


@pytest.mark.parametrize("op", sorted(UNARY))
def test_unary_second_order(op):
    check_higher_order(op, [RNG.uniform(*UNARY[op], (2, 3))], order=2)


@pytest.mark.parametrize("op", ["Lgamma", "Erfinv", "Expm1"])
def test_third_order(op):
    check_higher_order(op, [RNG.uniform(*UNARY[op], (4,))], order=3)


@pytest.mark.parametrize("shapes", SHAPE_PAIRS)
@pytest.mark.parametrize("op", BINARY)
def test_binary_first_order(op, shapes):
    a = RNG.uniform(0.5, 2.0, shapes[0]) * RNG.choice([-1.0, 1.0], shapes[0])
    b = RNG.uniform(0.5, 2.0, shapes[1]) * RNG.choice([-1.0, 1.0], shapes[1])
    check_gradient(op, [a, b])


@pytest.mark.parametrize("op", ["Atan2", "Hypot"])
def test_binary_second_order(op):
    check_higher_order(op, [RNG.uniform(0.5, 2.0, (2, 3)), RNG.uniform(-2.0, -0.5, (3,))], order=2)


def test_copysign_gradients_follow_torch():
    # d/dA is +-1 (0 at A == 0); the sign source B gets zeros, not None.
    ga, gb = grad_of("Copysign", np.array([1.0, -2.0, 0.0, 3.0]), np.array([-1.0, -1.0, 1.0, 2.0]))
    np.testing.assert_array_equal(ga, [-1.0, 1.0, 0.0, 1.0])
    np.testing.assert_array_equal(gb, [0.0, 0.0, 0.0, 0.0])


@pytest.mark.parametrize("op", ["Trunc", "FloorDiv"])
def test_piecewise_constant_ops_give_zero_gradients(op):
    xs = [np.array([1.5, -2.5, 3.25])] + ([np.array([2.0, 0.5, -1.0])] if op == "FloorDiv" else [])
    for g, x in zip(grad_of(op, *xs), xs):
        np.testing.assert_array_equal(g, np.zeros_like(x))


def test_closed_forms():
    x = np.array([0.5, 1.0, 2.5])
    (g,) = grad_of("Lgamma", x)
    np.testing.assert_allclose(g, execute("Digamma", Tensor(x)).array, rtol=1e-15)
    (g,) = grad_of("Digamma", np.array([1.0]))
    np.testing.assert_allclose(g, [math.pi ** 2 / 6], rtol=1e-14)
    y = np.array([-0.5, 0.0, 0.7])
    (g,) = grad_of("Erfinv", y)
    np.testing.assert_allclose(g, math.sqrt(math.pi) / 2 * np.exp(execute("Erfinv", Tensor(y)).array ** 2),
                               rtol=1e-15)


def test_hypot_and_atan2_at_the_origin_are_nan():
    # As torch's hypot and TF's atan2 (the default): 0/0 in both formulas.
    for op in ("Hypot", "Atan2"):
        ga, gb = grad_of(op, np.array([0.0]), np.array([0.0]))
        assert np.isnan(ga).all() and np.isnan(gb).all()


def test_atan2_zero_at_origin_gradient():
    # torch's atan2 (zero_at_origin=1) takes the reciprocal of a zero A^2 + B^2 as 0: a zero gradient there.
    y = Tensor(np.array([0.0, 1e-200, 1.0]), requires_grad=True)
    x = Tensor(np.array([0.0, 0.0, 2.0]), requires_grad=True)
    out = execute("Atan2", y, x, zero_at_origin=1)
    ga, gb = gradient(out, [y, x], [Tensor(np.ones(3))])
    np.testing.assert_array_equal(ga.array, [0.0, 0.0, 0.4])
    np.testing.assert_array_equal(gb.array, [0.0, 0.0, -0.2])


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("op", ["Lgamma", "Erfinv", "Log1p", "Erfc"])
def test_gradients_keep_the_input_dtype(op, dtype):
    x = RNG.uniform(*UNARY[op], (2, 3)).astype(dtype)
    (g,) = grad_of(op, x)
    assert g.dtype == np.dtype(dtype) and g.shape == x.shape
    (expected,) = grad_of(op, x.astype(np.float64))
    tol = 1e-5 if dtype == np.float32 else 1e-2
    np.testing.assert_allclose(g.astype(np.float64), expected, rtol=tol, atol=tol)
