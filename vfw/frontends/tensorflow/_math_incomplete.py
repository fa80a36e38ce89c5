"""tf.math incomplete gamma and beta functions: ``igamma`` (P), ``igammac`` (Q = 1 - P) and ``betainc``.

Computed in float64 with numpy:
- ``P(a, x)`` by its power series ``x^a e^-x / Gamma(a + 1) * sum_n x^n / ((a + 1) ... (a + n))`` where
  ``x < a + 1``, and ``Q(a, x)`` by its continued fraction (modified Lentz) elsewhere; the other one is the
  complement.
- ``I_x(a, b)`` by its continued fraction ``x^a (1 - x)^b / (a B(a, b)) / (1 + d1 / (1 + d2 / ...))`` where
  ``x < (a + 1) / (a + b + 2)`` and through ``1 - I_{1-x}(b, a)`` elsewhere.
Each iteration runs on whole arrays and the loops stop once every element has converged.

Gradients are TF's: with respect to ``x`` the densities (``exp(-x + (a - 1) log x - lgamma(a))`` and
``exp((a - 1) log x + (b - 1) log1p(-x) - log B(a, b))``), with respect to ``a`` of igamma/igammac a
Richardson-extrapolated central difference in float64 (TF's IgammaGradA is exact; the difference agrees
to about 1e-9 relative), and none with respect to ``a`` and ``b`` of betainc (as TF).
"""

import numpy as np

from vfw.core.ops.special_math import _lgamma
from vfw.frontends.tensorflow._dispatch import call, host, op_error
from vfw.frontends.tensorflow._op_support import OpTypes, check_broadcast, detached, matching, with_gradient

_IGAMMA_TYPES = OpTypes("Igamma", "bfloat16 float16 float32 float64", "float32 float64")
_IGAMMAC_TYPES = OpTypes("Igammac", "bfloat16 float16 float32 float64", "float32 float64")
_BETAINC_TYPES = OpTypes("Betainc", "float32 float64")
_MAX_ITERATIONS = 2000
_EPSILON = 1e-16
_TINY = 1e-300


def _lentz(numerator, denominator, start):
    """``start`` times the continued fraction ``1 / (b1 + a2 / (b2 + a3 / ...))`` with terms ``numerator(n)``
    (``a_n``, n >= 2) and ``denominator(n)`` (``b_n``, n >= 1), by the modified Lentz method."""
    def guard(v):
        return np.where(np.abs(v) < _TINY, _TINY, v)

    d = 1.0 / guard(denominator(1))
    c = np.full_like(d, 1.0 / _TINY)
    value = d
    for n in range(2, _MAX_ITERATIONS):
        an, bn = numerator(n), denominator(n)
        d = 1.0 / guard(bn + an * d)
        c = guard(bn + an / c)
        delta = c * d
        value = value * delta
        if np.all(~np.isfinite(delta) | (np.abs(delta - 1.0) < _EPSILON)):
            break
    return start * value


def _gamma_series(a, x):
    """``P(a, x)`` by the power series (for ``x < a + 1``)."""
    term = 1.0 / a
    total = term
    for n in range(1, _MAX_ITERATIONS):
        term = term * x / (a + n)
        total = total + term
        if np.all(~np.isfinite(total) | (np.abs(term) <= np.abs(total) * _EPSILON)):
            break
    return total * np.exp(a * np.log(x) - x - _lgamma(a))


def _gamma_fraction(a, x):
    """``Q(a, x)`` by the continued fraction (for ``x >= a + 1``)."""
    prefactor = np.exp(a * np.log(x) - x - _lgamma(a))
    return _lentz(lambda n: -(n - 1) * (n - 1 - a), lambda n: x + 2 * n - 1 - a, prefactor)


def _regularized_gamma(a, x, upper):
    """``Q(a, x)`` if ``upper`` else ``P(a, x)`` of float64 arrays, with TF's values at the edges."""
    a, x = np.broadcast_arrays(np.asarray(a, np.float64), np.asarray(x, np.float64))
    result = np.full(a.shape, np.nan)
    with np.errstate(all="ignore"):
        inside = (a > 0) & (x > 0) & np.isfinite(x) & np.isfinite(a)
        series = inside & (x < a + 1)
        fraction = inside & ~series
        if series.any():
            p = _gamma_series(a[series], x[series])
            result[series] = 1.0 - p if upper else p
        if fraction.any():
            q = _gamma_fraction(a[fraction], x[fraction])
            result[fraction] = q if upper else 1.0 - q
    result[(a > 0) & (x == 0)] = 1.0 if upper else 0.0
    if not upper:  # TF's P(0, 0) is 0 (its Q(0, 0) stays NaN)
        result[(a == 0) & (x == 0)] = 0.0
    result[(a > 0) & (x == np.inf)] = 0.0 if upper else 1.0
    return result


def _gamma_density(a, x):
    """``dP/dx = exp(-x + (a - 1) log x - lgamma(a))`` as TF computes it (0 where lgamma(a) is infinite)."""
    with np.errstate(all="ignore"):
        return np.exp(-x + (a - 1) * np.log(x) - _lgamma(a))


def _gamma_derivative_a(a, x, upper):
    """``dP/da`` (``dQ/da`` if ``upper``) by Richardson-extrapolated central differences."""
    h = 1e-3 * np.maximum(np.abs(a), 1e-2)

    def central(step):
        with np.errstate(all="ignore"):
            return (_regularized_gamma(a + step, x, upper) - _regularized_gamma(a - step, x, upper)) / (2 * step)

    with np.errstate(all="ignore"):
        derivative = (4 * central(h / 2) - central(h)) / 3
        derivative = np.where((a - h <= 0), np.nan, derivative)
        # Where P is flat in a (x = 0 or x = inf) the exact derivative is 0, as TF gives.
        return np.where((x == 0) | (x == np.inf), np.where(a > 0, 0.0, np.nan), derivative)


def _incomplete_gamma(a, x, upper, types):
    a, x = matching(types.name, a, x, types=types)
    check_broadcast(types.name, a.array, x.array)
    dtype = a.array.dtype
    sign = -1.0 if upper else 1.0

    def forward(a, x):
        return host(lambda a, x: _regularized_gamma(a, x, upper).astype(dtype), detached(a), detached(x))

    def backward(g, a, x):
        grad_a = host(lambda a, x: _gamma_derivative_a(a.astype(np.float64), x.astype(np.float64), upper).astype(
            dtype), detached(a), detached(x))
        grad_x = host(lambda a, x: (sign * _gamma_density(a.astype(np.float64), x.astype(np.float64))).astype(dtype),
                      detached(a), detached(x))
        return call("Mul", g, grad_a), call("Mul", g, grad_x)

    return with_gradient(forward, backward, a, x)


def igamma(a, x, name=None):
    """The regularized lower incomplete gamma function ``P(a, x)`` (float32/float64; NaN for ``a <= 0`` or
    ``x < 0``)."""
    return _incomplete_gamma(a, x, False, _IGAMMA_TYPES)


def igammac(a, x, name=None):
    """The regularized upper incomplete gamma function ``Q(a, x) = 1 - P(a, x)``."""
    return _incomplete_gamma(a, x, True, _IGAMMAC_TYPES)


# -- incomplete beta ---------------------------------------------------------------------------------------------------
def _log_beta(a, b):
    return _lgamma(a) + _lgamma(b) - _lgamma(a + b)


def _beta_fraction(a, b, x):
    """``I_x(a, b)`` by its continued fraction (accurate for ``x < (a + 1) / (a + b + 2)``)."""
    prefactor = np.exp(a * np.log(x) + b * np.log1p(-x) - _log_beta(a, b)) / a

    def numerator(n):  # d_{n-1} of the fraction 1 / (1 + d1 / (1 + d2 / ...))
        m, odd = divmod(n - 1, 2)
        if odd:
            return -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))
        return m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m))

    return _lentz(numerator, lambda n: np.ones_like(x), prefactor)


def _regularized_beta(a, b, x):
    a, b, x = np.broadcast_arrays(*(np.asarray(v, np.float64) for v in (a, b, x)))
    result = np.full(x.shape, np.nan)
    with np.errstate(all="ignore"):
        valid = (a > 0) & (b > 0) & np.isfinite(a) & np.isfinite(b)
        inside = valid & (x > 0) & (x < 1)
        direct = inside & (x < (a + 1) / (a + b + 2))
        mirrored = inside & ~direct
        if direct.any():
            result[direct] = _beta_fraction(a[direct], b[direct], x[direct])
        if mirrored.any():
            result[mirrored] = 1.0 - _beta_fraction(b[mirrored], a[mirrored], 1.0 - x[mirrored])
    result[valid & (x == 0)] = 0.0
    result[valid & (x == 1)] = 1.0
    return result


def betainc(a, b, x, name=None):
    """The regularized incomplete beta function ``I_x(a, b)`` (float32/float64; ``a``, ``b``, ``x`` of one
    shape, or scalars; NaN for ``a <= 0``, ``b <= 0`` or ``x`` outside [0, 1]).  Differentiable in ``x``
    only (as TF)."""
    a, b, x = matching("Betainc", a, b, x, types=_BETAINC_TYPES)
    shapes = [t.array.shape for t in (a, b, x)]
    full = [s for s in shapes if s != ()]
    for label, shape in zip("abx", shapes):
        if shape != () and shape != full[0]:
            first = "abx"[shapes.index(full[0])]
            raise op_error(f"Shapes of {first} and {label} are inconsistent: {_dims(full[0])} vs. {_dims(shape)}",
                           "Betainc")
    dtype = x.array.dtype

    def forward(a, b, x):
        return host(lambda a, b, x: _regularized_beta(a, b, x).astype(dtype), detached(a), detached(b), detached(x))

    def backward(g, a, b, x):
        def density(a, b, x):
            a, b, x = (v.astype(np.float64) for v in (a, b, x))
            with np.errstate(all="ignore"):
                return np.exp((a - 1) * np.log(x) + (b - 1) * np.log1p(-x) - _log_beta(a, b)).astype(dtype)
        return None, None, call("Mul", g, host(density, detached(a), detached(b), detached(x)))

    return with_gradient(forward, backward, a, b, x)


def _dims(shape):
    return "[" + ",".join(str(d) for d in shape) + "]"


NAMESPACES = {"math": ["igamma", "igammac", "betainc"]}
TENSOR_METHODS = {}
