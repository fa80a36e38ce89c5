"""Gradients of the elementwise math family: Exp, Log, trigonometric and hyperbolic functions, Erf."""

import math

import ml_dtypes
import numpy as np
import pytest

from tests.autograd.gradcheck import check_gradient, check_higher_order
from vfw.core import Tensor, execute
from vfw.core.autograd import gradient
from vfw.core.registry import get_schema

RNG = np.random.default_rng(11)

# Sample ranges inside each op's domain, away from poles and branch points.
DOMAINS = {
    "Exp": (-2.0, 2.0), "Log": (0.3, 3.0), "Sqrt": (0.3, 3.0),
    "Sin": (-3.0, 3.0), "Cos": (-3.0, 3.0), "Tan": (-1.2, 1.2),
    "Asin": (-0.9, 0.9), "Acos": (-0.9, 0.9), "Atan": (-3.0, 3.0),
    "Sinh": (-2.0, 2.0), "Cosh": (-2.0, 2.0), "Tanh": (-2.0, 2.0),
    "Asinh": (-3.0, 3.0), "Acosh": (1.2, 4.0), "Atanh": (-0.9, 0.9),
    "Erf": (-2.5, 2.5),
}
OPS = sorted(DOMAINS)


def sample(op, shape):
    return RNG.uniform(*DOMAINS[op], shape)


def grad_of(op, x, weight=None):
    t = Tensor(x, requires_grad=True)
    (g,) = gradient(execute(op, t), [t], None if weight is None else [Tensor(weight)])
    return g


@pytest.mark.parametrize("op", OPS)
def test_every_op_has_a_maker(op):
    schema = get_schema(op)
    assert schema.differentiable is True and schema.gradient is not None


@pytest.mark.parametrize("op", ["IsNaN", "IsInf"])
def test_predicates_are_not_differentiable(op):
    assert get_schema(op).differentiable is False
    assert not execute(op, Tensor(np.array([1.0, np.inf, np.nan]), requires_grad=True)).requires_grad


@pytest.mark.parametrize("shape", [(), (4,), (2, 3)])
@pytest.mark.parametrize("op", OPS)
def test_first_order(op, shape):
    check_gradient(op, [sample(op, shape)])


@pytest.mark.parametrize("op", OPS)
def test_second_order(op):
    # Required: Sin, Cos, Tanh, Log, Sqrt; the rest are as cheap to check.
    check_higher_order(op, [sample(op, (2, 3))], order=2)


@pytest.mark.parametrize("op", ["Exp", "Sin", "Tanh"])
def test_third_order(op):
    check_higher_order(op, [sample(op, (2, 3))], order=3)


def test_erf_derivative_formula():
    x = np.linspace(-3, 3, 13)
    np.testing.assert_allclose(grad_of("Erf", x).array, 2 / math.sqrt(math.pi) * np.exp(-x * x), rtol=1e-15)


def test_near_domain_edges():
    # (1 - x)(1 + x) and (x - 1)(x + 1) stay accurate where x**2 - 1 would cancel.
    x = np.array([1 - 2.0 ** -30, -(1 - 2.0 ** -30)])
    one_minus_sq = (1 - x) * (1 + x)
    np.testing.assert_allclose(grad_of("Asin", x).array, 1 / np.sqrt(one_minus_sq), rtol=1e-15)
    np.testing.assert_allclose(grad_of("Atanh", x).array, 1 / one_minus_sq, rtol=1e-15)
    x = np.array([1 + 2.0 ** -30])
    np.testing.assert_allclose(grad_of("Acosh", x).array, 1 / np.sqrt((x - 1) * (x + 1)), rtol=1e-15)


def test_poles_give_ieee_values():
    # As torch: d sqrt(x)/dx and d log(x)/dx are inf at 0; d asin(x)/dx is inf at +-1.
    assert grad_of("Sqrt", np.array([0.0])).array[0] == np.inf
    assert grad_of("Log", np.array([0.0])).array[0] == np.inf
    np.testing.assert_array_equal(grad_of("Asin", np.array([-1.0, 1.0])).array, [np.inf, np.inf])


@pytest.mark.parametrize("dtype", [np.float32, np.float16, ml_dtypes.bfloat16])
@pytest.mark.parametrize("op", OPS)
def test_gradients_keep_the_input_dtype(op, dtype):
    x = sample(op, (2, 3)).astype(dtype)
    w = RNG.standard_normal((2, 3)).astype(dtype)
    g = grad_of(op, x, w)
    assert g.dtype == x.dtype and g.shape == x.shape
    expected = grad_of(op, x.astype(np.float64), w.astype(np.float64)).array
    tol = {np.float32: 1e-5, np.float16: 1e-2, ml_dtypes.bfloat16: 6e-2}[dtype]
    np.testing.assert_allclose(g.array.astype(np.float64), expected, rtol=tol, atol=tol * np.abs(expected).max())
