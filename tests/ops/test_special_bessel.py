"""Bessel ops (not ONNX operators): values against mpmath, dtypes, shapes, and gradients by finite differences."""

import ml_dtypes
import numpy as np
import pytest

from tests.autograd.gradcheck import check_gradient, check_higher_order
from vfw.core import run
from vfw.core.errors import DTypeError
from vfw.core.registry import TensorInfo, get_schema

mpmath = pytest.importorskip("mpmath")
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

SIGNED = np.concatenate([np.linspace(-45, 45, 37), [0.0, 1e-7, -0.3, 29.99, 30.01, 60.0, -250.0, 700.0]])
POSITIVE = np.concatenate([np.geomspace(1e-5, 300, 30), [0.999, 1.001, 1.999, 2.001, 24.99, 25.01, 49.99, 50.01]])


def _scaled_i(order):
    return lambda v: mpmath.besseli(order, v) * mpmath.exp(-abs(v))


def _scaled_k(order):
    return lambda v: mpmath.besselk(order, v) * mpmath.exp(v)


ORACLES = {  # op -> (mpmath function, points, rtol)
    "BesselI0": (lambda v: mpmath.besseli(0, v), SIGNED, 1e-13),
    "BesselI1": (lambda v: mpmath.besseli(1, v), SIGNED, 1e-13),
    "BesselI0e": (_scaled_i(0), SIGNED, 1e-13),
    "BesselI1e": (_scaled_i(1), SIGNED, 1e-13),
    "BesselK0": (lambda v: mpmath.besselk(0, v), POSITIVE, 1e-12),
    "BesselK1": (lambda v: mpmath.besselk(1, v), POSITIVE, 1e-12),
    "BesselK0e": (_scaled_k(0), POSITIVE, 1e-12),
    "BesselK1e": (_scaled_k(1), POSITIVE, 1e-12),
    "BesselJ0": (lambda v: mpmath.besselj(0, v), SIGNED, 1e-12),
    "BesselJ1": (lambda v: mpmath.besselj(1, v), SIGNED, 1e-12),
    "BesselY0": (lambda v: mpmath.bessely(0, v), POSITIVE, 1e-12),
    "BesselY1": (lambda v: mpmath.bessely(1, v), POSITIVE, 1e-12),
    "SphericalBesselJ0": (lambda v: mpmath.sin(v) / v if v else mpmath.mpf(1), SIGNED, 1e-14),
}


@pytest.mark.parametrize("op", sorted(ORACLES))
def test_values_against_mpmath(op):
    fn, points, rtol = ORACLES[op]
    want = np.array([float(fn(mpmath.mpf(float(v)))) for v in points])
    # atol: J/Y near their zeros are compared absolutely (relative error there is unbounded)
    np.testing.assert_allclose(run(op, points), want, rtol=rtol, atol=1e-14 if op[:7] in ("BesselJ", "BesselY") else 0)


@pytest.mark.parametrize("op", ["BesselK0", "BesselK1", "BesselK0e", "BesselK1e", "BesselY0", "BesselY1"])
def test_second_kind_edges(op):
    got = run(op, np.array([0.0, -1.0, np.nan]))
    assert got[0] == (-np.inf if op.startswith("BesselY") else np.inf)
    assert np.isnan(got[1]) and np.isnan(got[2])


def test_spherical_j0_edges_and_odd_orders():
    np.testing.assert_array_equal(run("SphericalBesselJ0", np.array([0.0, np.inf, -np.inf])), [1.0, 0.0, 0.0])
    x = np.array([0.5, 3.0, 40.0])
    for op in ("BesselI1", "BesselI1e", "BesselJ1"):
        np.testing.assert_array_equal(run(op, -x), -run(op, x))


@pytest.mark.parametrize("dtype", [np.float16, ml_dtypes.bfloat16, np.float32])
@pytest.mark.parametrize("op", sorted(ORACLES))
def test_narrow_dtypes_round_the_float64_value_once(op, dtype):
    x = np.array([[0.5, 1.5], [2.5, 7.0]], dtype)
    got = run(op, x)
    assert got.dtype == x.dtype and got.shape == x.shape
    np.testing.assert_array_equal(got, run(op, x.astype(np.float64)).astype(dtype))


@pytest.mark.parametrize("op", ["BesselI0", "BesselJ0", "BesselK1e"])
def test_shapes_and_dtype_errors(op):
    assert run(op, np.float64(1.5)).shape == ()
    assert run(op, np.zeros((0, 3))).shape == (0, 3)
    with pytest.raises(DTypeError):
        run(op, np.array([1, 2]))
    assert get_schema(op).infer({}, [TensorInfo((2, None), np.float32)]) == [TensorInfo((2, None), np.float32)]


@pytest.mark.parametrize("op", ["BesselI0", "BesselI0e", "BesselI1", "BesselI1e"])
def test_gradients(op):
    # 35 only for the scaled forms: I0(35) ~ 1e14 would drown the others' differences in the summed check
    x = np.array([-3.0, -0.5, 0.25, 2.0] + ([35.0] if op.endswith("e") else []))
    check_gradient(op, [x], rtol=1e-6, atol=1e-9)
    check_higher_order(op, [x], rtol=1e-5, atol=1e-8)


@pytest.mark.parametrize("op", ["BesselI1", "BesselI1e"])
def test_gradient_at_zero_is_the_limit(op):
    # I1'(0) = I0(0) - lim I1(x)/x = 1 - 1/2; the same for I1e (sign(0) = 0)
    check_gradient(op, [np.array([0.0])], rtol=1e-6, atol=1e-9)
