"""The Airy function of the first kind ``AiryAi`` (not an ONNX operator), computed in float64 and rounded once.

* ``-7 <= x <= 2``: the Maclaurin series ``Ai(x) = Ai(0) f(x) + Ai'(0) g(x)`` with
  ``f = sum_k 3^k (1/3)_k x^3k / (3k)!`` and ``g = sum_k 3^k (2/3)_k x^(3k+1) / (3k+1)!``
  (its terms stay below ~1e5 there, so cancellation costs at most a few digits of float64).
* ``2 < x <= 20``: ``Ai(x) = e^-zeta / pi int_0^inf exp(-sqrt(x) t^2) cos(t^3 / 3) dt`` with ``zeta = 2/3 x^3/2``,
  by the trapezoidal rule (the integrand is even and analytic, so the rule converges exponentially).
* ``x > 20``: ``Ai(x) ~ e^-zeta / (2 sqrt(pi) x^1/4) sum_k (-1)^k u_k zeta^-k``.
* ``x < -7``: ``Ai(x) ~ (cos(zeta - pi/4) P + sin(zeta - pi/4) Q) / (sqrt(pi) |x|^1/4)``, ``zeta = 2/3 |x|^3/2``,
  ``P = sum_k (-1)^k u_2k zeta^-2k``, ``Q = sum_k (-1)^k u_(2k+1) zeta^-(2k+1)``.

The asymptotic sums stop at ``u_19``, before their smallest term (about ``e^-2 zeta``) for every ``zeta >= 12``:
errors stay near 1e-10 of the amplitude around x = -7 and at float64 round-off elsewhere. ``+-inf`` give NaN, as
torch's kernel does. Not differentiable (torch defines no derivative).
"""

import math

import numpy as np

from vfw.core.autograd import not_differentiable
from vfw.core.ops.special_math import define_float64_unaries

_SERIES_LOW, _SERIES_HIGH = -7.0, 2.0
_ASYMPTOTIC_FROM = 20.0
_AI_0 = 0.355028053887817239260063186004  # Ai(0) = 1 / (3^2/3 Gamma(2/3))
_AI_PRIME_0 = -0.258819403792806798405183560189  # Ai'(0) = -1 / (3^1/3 Gamma(1/3))
_SERIES_TERMS = 40
_ASYMPTOTIC_TERMS = 20
_STEP = 0.1
# trapezoid nodes t_k = k * _STEP while exp(-sqrt(2) t^2) > ~1e-18 (sqrt(x) > sqrt(2) on the integral's range)
_NODES = _STEP * np.arange(1, int(np.ceil(np.sqrt(42.0 / np.sqrt(2.0)) / _STEP)) + 1)


def _asymptotic_coefficients(count):
    """``u_0 .. u_(count-1)``: ``u_k = u_(k-1) (6k-5)(6k-3)(6k-1) / ((2k-1) 216 k)``, ``u_0 = 1``."""
    u = [1.0]
    for k in range(1, count):
        u.append(u[-1] * (6 * k - 5) * (6 * k - 3) * (6 * k - 1) / ((2 * k - 1) * 216 * k))
    return u


_U = _asymptotic_coefficients(_ASYMPTOTIC_TERMS)


def _maclaurin(x):
    cube = x * x * x
    f_term, g_term = np.ones_like(x), x.copy()
    f_sum, g_sum = f_term.copy(), g_term.copy()
    for k in range(1, _SERIES_TERMS):
        f_term = f_term * cube / ((3 * k - 1) * (3 * k))
        g_term = g_term * cube / ((3 * k) * (3 * k + 1))
        f_sum += f_term
        g_sum += g_term
    return _AI_0 * f_sum + _AI_PRIME_0 * g_sum


def _integral(x):
    """``2 < x <= 20``: the trapezoidal rule on the decaying integral (nodes along a new last axis)."""
    root = np.sqrt(x)
    zeta = 2.0 / 3.0 * x * root
    terms = np.exp(-root[:, None] * _NODES ** 2) * np.cos(_NODES ** 3 / 3.0)
    return np.exp(-zeta) / math.pi * _STEP * (0.5 + terms.sum(axis=1))


def _decaying(x):
    """Large positive ``x``."""
    zeta = 2.0 / 3.0 * x * np.sqrt(x)
    total = np.zeros_like(x)
    for k in reversed(range(_ASYMPTOTIC_TERMS)):
        total = total * (-1.0 / zeta) + _U[k]
    return np.exp(-zeta) / (2.0 * math.sqrt(math.pi) * np.sqrt(np.sqrt(x))) * total


def _oscillating(x):
    """Large negative ``x``."""
    z = -x
    zeta = 2.0 / 3.0 * z * np.sqrt(z)
    inverse_square = -1.0 / (zeta * zeta)
    even, odd = np.zeros_like(z), np.zeros_like(z)
    for k in reversed(range(_ASYMPTOTIC_TERMS // 2)):
        even = even * inverse_square + _U[2 * k]
        odd = odd * inverse_square + _U[2 * k + 1]
    phase = zeta - math.pi / 4
    return (np.cos(phase) * even + np.sin(phase) * odd / zeta) / (math.sqrt(math.pi) * np.sqrt(np.sqrt(z)))


def airy_ai(x):
    """``Ai(x)`` of a float64 array of rank >= 1."""
    out = np.full_like(x, np.nan)
    finite = np.isfinite(x)
    pieces = ((_maclaurin, (x >= _SERIES_LOW) & (x <= _SERIES_HIGH)),
              (_integral, (x > _SERIES_HIGH) & (x <= _ASYMPTOTIC_FROM)),
              (_decaying, (x > _ASYMPTOTIC_FROM) & finite),
              (_oscillating, (x < _SERIES_LOW) & finite))
    for piece, where in pieces:
        out[where] = piece(x[where])
    return out


define_float64_unaries({"AiryAi": (airy_ai, "Airy function of the first kind Ai(x) (NaN at +-inf).")})
not_differentiable("AiryAi")
