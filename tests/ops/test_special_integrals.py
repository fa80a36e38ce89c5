"""Dawsn, Expint, FresnelCos/Sin and Spence (not ONNX operators): values against mpmath over every regime of each
kernel, edges, dtypes and shapes, and gradients by finite differences."""

import ml_dtypes
import numpy as np
import pytest

from tests.autograd.gradcheck import check_gradient, check_higher_order
from vfw.core import run
from vfw.core.errors import DTypeError

mpmath = pytest.importorskip("mpmath")
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

SIGNED = np.concatenate([np.linspace(-60, 60, 49), [1e-8, -0.3, 5.99, 6.01, 6.99, 7.01, 30.5, 1234.5, -40000.0]])
POSITIVE = np.concatenate([np.geomspace(1e-8, 700, 40), [0.3725074107813666, 39.99, 40.01, 0.49, 0.51, 1.49, 1.51,
                                                          1.99, 2.01, 1e6]])


def _fresnel(part):
    # mpmath's fresnelc/fresnels use the same normalisation, int_0^x cos/sin(pi t^2 / 2) dt
    return mpmath.fresnelc if part == "cos" else mpmath.fresnels


ORACLES = {  # op -> (mpmath function, points, rtol)
    "Dawsn": (lambda v: mpmath.sqrt(mpmath.pi) / 2 * mpmath.exp(-v * v) * mpmath.erfi(v), SIGNED, 1e-13),
    "Expint": (mpmath.ei, POSITIVE, 1e-13),
    "FresnelCos": (_fresnel("cos"), SIGNED, 1e-13),
    "FresnelSin": (_fresnel("sin"), SIGNED, 1e-13),
    "Spence": (lambda v: mpmath.polylog(2, 1 - v), np.concatenate([[0.0], POSITIVE]), 1e-13),
}


@pytest.mark.parametrize("op", sorted(ORACLES))
def test_values_against_mpmath(op):
    fn, points, rtol = ORACLES[op]
    with mpmath.workdps(40):
        want = np.array([float(fn(mpmath.mpf(float(v)))) for v in points])
    # atol only matters at Ei's root (0.3725...) and the other zeros of these functions
    np.testing.assert_allclose(run(op, points), want, rtol=rtol, atol=1e-15)


def test_edges():
    inf, nan = np.inf, np.nan
    np.testing.assert_array_equal(run("Dawsn", np.array([inf, -inf, 0.0])), [0.0, 0.0, 0.0])
    np.testing.assert_array_equal(run("Expint", np.array([0.0, inf, -1.0, -inf, 800.0])), [-inf, inf, nan, nan, inf])
    np.testing.assert_array_equal(run("FresnelCos", np.array([inf, -inf, 1e200, 0.0])), [0.5, -0.5, 0.5, 0.0])
    np.testing.assert_array_equal(run("FresnelSin", np.array([inf, -inf, 1e200, nan])), [0.5, -0.5, 0.5, nan])
    np.testing.assert_array_equal(run("Spence", np.array([inf, -1e-9, nan, 1.0])), [-inf, nan, nan, 0.0])
    assert run("Spence", np.array([0.0]))[0] == np.pi ** 2 / 6


@pytest.mark.parametrize("op", sorted(ORACLES))
@pytest.mark.parametrize("dtype", [np.float16, ml_dtypes.bfloat16, np.float32])
def test_narrow_dtypes_round_the_float64_value_once(op, dtype):
    x = np.array([[0.5, 1.5], [2.5, 7.0]], dtype)
    got = run(op, x)
    assert got.dtype == x.dtype and got.shape == x.shape
    np.testing.assert_array_equal(got, run(op, x.astype(np.float64)).astype(dtype))


@pytest.mark.parametrize("op", sorted(ORACLES))
def test_shapes_and_dtype_errors(op):
    assert run(op, np.float64(1.5)).shape == ()
    assert run(op, np.zeros((0, 3))).shape == (0, 3)
    with pytest.raises(DTypeError):
        run(op, np.array([1, 2]))


@pytest.mark.parametrize("op", sorted(ORACLES))
def test_gradients(op):
    x = np.array([0.2, 0.7, 1.3, 2.6, 8.0]) if op in ("Expint", "Spence") else np.array([-3.0, -0.5, 0.25, 2.0, 6.5])
    check_gradient(op, [x], rtol=1e-6, atol=1e-9)
    check_higher_order(op, [x], rtol=1e-5, atol=1e-8)


def test_spence_gradient_at_one_is_the_limit():
    check_gradient("Spence", [np.array([1.0])], rtol=1e-6, atol=1e-9)
