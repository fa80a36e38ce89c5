"""Gradients of CumProd, CumMax, CumMin and LogCumSumExp (vfw.core.ops.scan_sort) against finite differences."""

import numpy as np
import pytest

from tests.autograd.gradcheck import check_gradient, check_higher_order

RNG = np.random.default_rng(0)
CASES = [((5,), 0), ((3, 4), 1), ((3, 4), -2), ((2, 3, 2), 1), ((), 0)]


def i64(value):
    return np.array(value, np.int64)


def away_from_zero(shape):
    x = RNG.standard_normal(shape)
    return np.sign(x) * (0.5 + 0.5 * np.abs(x))  # magnitudes near 1: products stay well scaled


@pytest.mark.parametrize("shape,ax", CASES)
@pytest.mark.parametrize("reverse", [0, 1])
def test_cumprod(shape, ax, reverse):
    check_gradient("CumProd", [away_from_zero(shape), i64(ax)], {"reverse": reverse})


@pytest.mark.parametrize("reverse", [0, 1])
def test_cumprod_with_zeros(reverse):
    # One zero, two zeros, a leading and a trailing zero: the gradient is a polynomial in x, so
    # central differences are exact up to rounding even at the zeros.
    x = np.array([[2.0, 0.0, 3.0, 0.0, 4.0], [0.0, 1.5, -2.0, 0.5, 3.0], [1.0, 0.7, 2.0, 0.5, 0.0],
                  [1.2, -0.5, 0.0, 0.8, 1.1]])
    check_gradient("CumProd", [x, i64(1)], {"reverse": reverse})
    check_gradient("CumProd", [x, i64(0)], {"reverse": reverse})


@pytest.mark.parametrize("reverse", [0, 1])
def test_cumprod_higher_order(reverse):
    x = away_from_zero((2, 4))
    check_higher_order("CumProd", [x, i64(1)], {"reverse": reverse}, order=2)
    check_higher_order("CumProd", [x[:, :3], i64(-1)], {"reverse": reverse}, order=3)


@pytest.mark.parametrize("op", ["CumMax", "CumMin"])
@pytest.mark.parametrize("shape,ax", CASES)
def test_cum_extreme(op, shape, ax):
    # Distinct values: no ties, so the running extreme is differentiable.
    x = RNG.permutation(int(np.prod(shape))).reshape(shape) / 3.0 + RNG.uniform(-0.01, 0.01, shape)
    check_gradient(op, [x, i64(ax)])


@pytest.mark.parametrize("op", ["CumMax", "CumMin"])
def test_cum_extreme_higher_order_vanishes(op):
    check_higher_order(op, [RNG.permutation(6).reshape(2, 3) / 2.0, i64(1)], order=2)


@pytest.mark.parametrize("shape,ax", CASES)
@pytest.mark.parametrize("reverse", [0, 1])
def test_logcumsumexp(shape, ax, reverse):
    check_gradient("LogCumSumExp", [RNG.standard_normal(shape) * 2, i64(ax)], {"reverse": reverse})


def test_logcumsumexp_large_range():
    # exp(-y) alone would overflow here; the gradient is computed in log space.
    x = np.array([[-800.0, 0.0, 1.0, 700.0, 700.5], [3.0, -2.0, 1.0, 0.5, 2.0]])
    check_gradient("LogCumSumExp", [x, i64(1)])
    check_gradient("LogCumSumExp", [x, i64(1)], {"reverse": 1})


@pytest.mark.parametrize("reverse", [0, 1])
def test_logcumsumexp_higher_order(reverse):
    x = RNG.standard_normal((2, 4))
    check_higher_order("LogCumSumExp", [x, i64(1)], {"reverse": reverse}, order=2)
    check_higher_order("LogCumSumExp", [x[:, :3], i64(0)], {"reverse": reverse}, order=3)
