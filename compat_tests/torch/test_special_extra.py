"""torch.special Bessel J/Y, spherical_bessel_j0, zeta and the orthogonal polynomials against real torch 2.13
(float32, and dtypes/errors) and mpmath (float64 values: torch 2.13's own float64 J0 is ~4e-7 off near its zeros)."""

import numpy as np
import pytest

from compat_tests.torch.harness import check, check_grad, vt

mpmath = pytest.importorskip("mpmath")

GRID = np.concatenate([np.linspace(-60, 60, 241), [0.0, 1e-7, 1.999, 2.001, 24.99, 25.01, 5.04, 300.0]])
POSITIVE = GRID[GRID > 0]

EXACT = {
    "bessel_j0": lambda v: mpmath.besselj(0, v), "bessel_j1": lambda v: mpmath.besselj(1, v),
    "bessel_y0": lambda v: mpmath.bessely(0, v), "bessel_y1": lambda v: mpmath.bessely(1, v),
    "spherical_bessel_j0": lambda v: mpmath.sin(v) / v if v else 1,
}


@pytest.mark.parametrize("name", list(EXACT))
def test_bessel_float64_against_mpmath(name):
    values = POSITIVE if name.startswith("bessel_y") else GRID
    got = getattr(vt.special, name)(vt.tensor(values)).numpy()
    want = np.array([float(EXACT[name](mpmath.mpf(float(v)))) for v in values])
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-14)


@pytest.mark.parametrize("name", list(EXACT))
def test_bessel_float32_and_edges_against_torch(name):
    check(lambda t, x: getattr(t.special, name)(x), GRID.astype(np.float32), rtol=1e-5, atol=1e-6)
    check(lambda t: getattr(t.special, name)(t.tensor([0.0, -1.0, float("inf"), float("nan")], dtype=t.float64)))
    check(lambda t: getattr(t.special, name)(t.tensor([1, 2])))
    check(lambda t: getattr(t.special, name)(t.tensor([1.0], dtype=t.float16)))


ZETA_S = np.array([2.0, 3.0, 1.5, 1.1, 10.0, 2.0, 2.0, 3.0, 4.5, 1.0, 0.5, 2.0, 2.0, 2.5, 3.0, 2.0])
ZETA_Q = np.array([1.0, 2.0, 0.3, 5.0, 1.0, -1.5, 1e-3, 100.0, 0.5, 1.0, 1.0, 0.0, -1.0, -1.5, -1.5, 1e-20])


def test_zeta():
    check(lambda t, s, q: t.special.zeta(s, q), ZETA_S, ZETA_Q, rtol=1e-13, atol=0)
    check(lambda t, s, q: t.special.zeta(s, q), ZETA_S.astype(np.float32), ZETA_Q.astype(np.float32), rtol=1e-5)
    check(lambda t: (t.special.zeta(2.0, t.tensor([1.0, 2.0])), t.special.zeta(t.tensor([2, 3]), t.tensor([1, 2]))))
    check(lambda t: t.special.zeta(t.tensor([2.0], dtype=t.float16), t.tensor([1.0], dtype=t.float16)))


def test_zeta_gradient_in_q():
    check_grad(lambda t, q: t.special.zeta(t.tensor([2.0, 3.5, 5.0], dtype=t.float64), q), np.array([0.7, 2.0, 9.0]),
               rtol=1e-10, atol=1e-12)
    import torch as real
    for torch in (real, vt):
        s = torch.tensor([2.0], requires_grad=True)
        with pytest.raises(NotImplementedError, match="the derivative for 'zeta' is not implemented"):
            torch.special.zeta(s, torch.tensor([1.0])).sum().backward()


POLYNOMIALS = ["chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v", "chebyshev_polynomial_w",
               "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
               "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he",
               "laguerre_polynomial_l", "legendre_polynomial_p"]
X = np.array([-1.5, -1.0, -0.7, -0.3, 0.0, 0.2, 0.5, 0.9, 1.0, 1.3, 2.0])


@pytest.mark.parametrize("name", POLYNOMIALS)
def test_polynomials(name):
    degrees = np.arange(0, 12, dtype=np.float64)
    x_grid, n_grid = np.meshgrid(X, degrees)
    check(lambda t, x, n: getattr(t.special, name)(x, n), x_grid, n_grid, rtol=1e-10, atol=1e-10)
    check(lambda t, x, n: getattr(t.special, name)(x, n), x_grid.astype(np.float32), n_grid.astype(np.float32),
          rtol=2e-5, atol=1e-5)
    check(lambda t, x: (getattr(t.special, name)(x, 3), getattr(t.special, name)(x, -1),
                        getattr(t.special, name)(x, 2.7), getattr(t.special, name)(x, t.tensor(0))), X)
    check(lambda t: getattr(t.special, name)(t.tensor([1, 2]), 2))
    check(lambda t: getattr(t.special, name)(t.tensor([0.5]), t.tensor([3.0], dtype=t.float64)))
    check(lambda t: getattr(t.special, name)(t.tensor([0.5], dtype=t.float16), 2))


@pytest.mark.parametrize("name", POLYNOMIALS[:4])
def test_chebyshev_high_degree_inside(name):
    check(lambda t, x: getattr(t.special, name)(x, 40), np.linspace(-0.99, 0.99, 23), rtol=1e-9, atol=1e-9)
