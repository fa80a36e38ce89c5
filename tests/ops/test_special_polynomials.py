"""OrthogonalPolynomial against numpy.polynomial, and NextAfter against numpy."""

import ml_dtypes
import numpy as np
import pytest
from numpy.polynomial import chebyshev, hermite, hermite_e, laguerre, legendre

from vfw.core import Tensor, execute, run
from vfw.core.errors import DTypeError, OpAttributeError
from vfw.core.registry import TensorInfo, get_schema

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

X = np.array([-1.5, -1.0, -0.7, -0.3, 0.0, 0.2, 0.5, 0.9, 1.0, 1.3, 2.0])
DEGREES = np.arange(0, 12)


def _chebyshev_u(x, n):
    """U_n = T_(n+1)' / (n + 1) (numpy's Chebyshev series derivative)."""
    return chebyshev.chebval(x, chebyshev.chebder(np.eye(n + 2)[n + 1])) / (n + 1) if n >= 0 else 0.0


ORACLES = {
    "chebyshev_t": lambda x, n: chebyshev.chebval(x, np.eye(n + 1)[n]),
    "chebyshev_u": _chebyshev_u,
    "chebyshev_v": lambda x, n: _chebyshev_u(x, n) - _chebyshev_u(x, n - 1),
    "chebyshev_w": lambda x, n: _chebyshev_u(x, n) + _chebyshev_u(x, n - 1),
    "hermite_h": lambda x, n: hermite.hermval(x, np.eye(n + 1)[n]),
    "hermite_he": lambda x, n: hermite_e.hermeval(x, np.eye(n + 1)[n]),
    "laguerre_l": lambda x, n: laguerre.lagval(x, np.eye(n + 1)[n]),
    "legendre_p": lambda x, n: legendre.legval(x, np.eye(n + 1)[n]),
}


@pytest.mark.parametrize("shifted", [0, 1])
@pytest.mark.parametrize("family", sorted(ORACLES))
def test_values(family, shifted):
    x, n = np.meshgrid(X, DEGREES)
    got = run("OrthogonalPolynomial", x, n.astype(np.float64), family=family, shifted=shifted)
    at = 2 * x - 1 if shifted else x
    want = np.vectorize(lambda v, k: ORACLES[family](v, int(k)))(at, n)
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("family", ["chebyshev_t", "chebyshev_u", "chebyshev_v", "chebyshev_w"])
def test_chebyshev_high_degree_inside(family):
    x = np.linspace(-0.99, 0.99, 23)
    got = run("OrthogonalPolynomial", x, np.array(40.0), family=family)
    want = np.array([ORACLES[family](v, 40) for v in x])
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-9)


def test_degrees_are_truncated_and_negative_or_nan_give_zero():
    x = np.array([0.3, 0.3, 0.3, 0.3])
    got = run("OrthogonalPolynomial", x, np.array([2.7, -1.0, np.nan, np.inf]), family="legendre_p")
    np.testing.assert_allclose(got, [legendre.legval(0.3, [0, 0, 1]), 0.0, 0.0, 0.0], rtol=1e-15)


def test_polynomial_dtypes_shapes_and_errors():
    x32 = X.astype(np.float32)
    got = run("OrthogonalPolynomial", x32, np.float32(3), family="hermite_he")
    assert got.dtype == np.float32 and got.shape == X.shape
    np.testing.assert_array_equal(got, run("OrthogonalPolynomial", x32.astype(np.float64), np.float64(3),
                                           family="hermite_he").astype(np.float32))
    assert run("OrthogonalPolynomial", np.zeros((2, 1)), np.arange(3.0), family="chebyshev_t").shape == (2, 3)
    with pytest.raises(OpAttributeError):
        run("OrthogonalPolynomial", X, np.float64(2), family="jacobi")
    with pytest.raises(DTypeError):
        run("OrthogonalPolynomial", x32, np.float64(2), family="legendre_p")
    infos = [TensorInfo((2, 1), np.float64), TensorInfo((3,), np.float64)]
    assert get_schema("OrthogonalPolynomial").infer({"family": "legendre_p", "shifted": 0}, infos) == [
        TensorInfo((2, 3), np.float64)]


@pytest.mark.parametrize("dtype", [np.float16, ml_dtypes.bfloat16, np.float32, np.float64])
def test_next_after(dtype):
    a = np.array([0.0, 1.0, 1.0, -2.0, np.inf, 0.0, np.nan], dtype)
    b = np.array([1.0, 0.0, 1.0, 5.0, 0.0, -1.0, 1.0], dtype)
    got = run("NextAfter", a, b)
    assert got.dtype == a.dtype
    np.testing.assert_array_equal(got.astype(np.float64), np.nextafter(a, b).astype(np.float64))
    assert run("NextAfter", a[:, None], b[None, :3]).shape == (7, 3)
    # not differentiable: the output of a watched input carries no gradient
    assert not execute("NextAfter", Tensor(a, requires_grad=True), Tensor(b)).requires_grad
