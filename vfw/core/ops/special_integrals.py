"""Special functions defined by integrals (none is an ONNX operator): Dawson's integral ``Dawsn``, the exponential
integral ``Expint`` (``Ei``), the Fresnel integrals ``FresnelCos`` and ``FresnelSin`` and Spence's function
``Spence`` (the dilogarithm ``Li2(1 - x)``).

Each computes in float64 and rounds once to the input's float dtype:

* ``Dawsn(x) = e^-x^2 int_0^x e^t^2 dt``: the all-positive series ``x e^-x^2 sum_k x^2k / (k! (2k + 1))`` (no
  cancellation) up to |x| = 7, the asymptotic expansion ``(1 / 2x) sum_k (2k - 1)!! / (2 x^2)^k`` beyond (its
  smallest term there is below float64 round-off). Odd; 0 at +-inf.
* ``Expint(x) = Ei(x) = gamma + log x + sum_k x^k / (k k!)`` up to x = 40, ``e^x / x sum_k k! / x^k`` beyond.
  ``-inf`` at 0, ``+inf`` at ``+inf``; NaN for x < 0 (as Cephes, this op covers the positive axis only).
* ``FresnelCos/Sin(x) = int_0^x cos/sin(pi t^2 / 2) dt``: Gauss-Legendre quadrature on [0, |x|] (exact to round-off
  for |x| <= 6 with 160 nodes) and beyond ``(1 + i) / 2 - e^(i pi x^2 / 2) sum_k (2k - 1)!! / (i pi)^(k+1) /
  x^(2k+1)``; odd, +-1/2 at +-inf.
* ``Spence(x) = Li2(1 - x) = -int_1^x log t / (t - 1) dt`` for x >= 0: the series ``sum_k a^k / k^2`` with
  ``|a| <= 1/2`` after Euler's reflection ``Li2(z) + Li2(1 - z) = pi^2/6 - log z log(1 - z)`` and the Landen
  transformation ``Li2(z) = -Li2(z / (z - 1)) - log(1 - z)^2 / 2``. ``pi^2 / 6`` at 0, ``-inf`` at ``+inf``, NaN
  for x < 0.

Gradients (engine ops, so every order follows): ``Dawsn' = 1 - 2 x Dawsn``, ``Expint' = e^x / x``,
``FresnelCos' = cos(pi x^2 / 2)``, ``FresnelSin' = sin(pi x^2 / 2)``, ``Spence' = log x / (1 - x)`` (its limit -1 at
x = 1).
"""

import math

import numpy as np

from vfw.core.autograd import register_gradient
from vfw.core.ops._common import execute, scalar
from vfw.core.ops.special_math import define_float64_unaries

_EULER_GAMMA = 0.5772156649015329
_DAWSON_SERIES_LIMIT = 7.0
_EI_SERIES_LIMIT = 40.0
_FRESNEL_QUADRATURE_LIMIT = 6.0
_FRESNEL_TAIL_NEGLIGIBLE = 1e17
_GAUSS_NODES, _GAUSS_WEIGHTS = np.polynomial.legendre.leggauss(160)
_UNIT_NODES, _UNIT_WEIGHTS = (_GAUSS_NODES + 1) / 2, _GAUSS_WEIGHTS / 2  # on [0, 1]


def _split(x, limit, near, far):
    """``near(x)`` where ``|x| <= limit``, ``far(x)`` elsewhere (each called only on its own elements)."""
    out = np.empty_like(x)
    chosen = np.abs(x) <= limit
    out[chosen] = near(x[chosen])
    out[~chosen] = far(x[~chosen])
    return out


# -- Dawson's integral ----------------------------------------------------------------------------------
def _dawson_series(x):
    square = x * x
    term = np.ones_like(x)
    total = np.ones_like(x)
    for k in range(1, 200):  # the terms peak near k = x^2 <= 49 and are below round-off past k = 200
        term = term * square / k
        total = total + term / (2 * k + 1)
    return x * np.exp(-square) * total


def _dawson_asymptotic(x):
    inverse_double_square = 1 / (2 * x * x)
    term = np.ones_like(x)
    total = np.ones_like(x)
    for k in range(1, 49):  # stops before the smallest term (k ~ x^2 >= 49)
        term = term * (2 * k - 1) * inverse_double_square
        total = total + term
    return np.where(np.isinf(x), 0.0, total / (2 * x))


def _dawson(x):
    return _split(x, _DAWSON_SERIES_LIMIT, _dawson_series, _dawson_asymptotic)


# -- exponential integral ------------------------------------------------------------------------------
def _ei_series(x):
    term = np.ones_like(x)
    total = np.zeros_like(x)
    for k in range(1, 160):  # x <= 40: the terms are below round-off of the sum past k = 160
        term = term * x / k
        total = total + term / k
    with np.errstate(divide="ignore"):
        return _EULER_GAMMA + np.log(x) + total


def _ei_asymptotic(x):
    inverse = 1 / x
    term = np.ones_like(x)
    total = np.ones_like(x)
    for k in range(1, 40):  # stops before the smallest term (k ~ x >= 40)
        term = term * k * inverse
        total = total + term
    with np.errstate(over="ignore", invalid="ignore"):
        return np.where(np.isinf(x), np.inf, np.exp(x - np.log(x)) * total)  # e^x / x without overflowing e^x


def _expint(x):
    positive = np.where(x < 0, np.nan, x)
    return _split(positive, _EI_SERIES_LIMIT, _ei_series, _ei_asymptotic)


# -- Fresnel integrals ---------------------------------------------------------------------------------
def _fresnel_quadrature(ax):
    """``C + i S`` at ``0 <= ax <= 6`` by Gauss-Legendre quadrature on [0, ax]."""
    t = np.multiply.outer(ax, _UNIT_NODES)
    return (np.exp(0.5j * np.pi * t * t) @ _UNIT_WEIGHTS) * ax


def _square_mod_4(x):
    """``x^2 mod 4`` (the phase ``pi x^2 / 2`` mod 2 pi) with an error ~|x| eps rather than x^2 eps: from
    ``x = a + f`` with integer ``a``, ``x^2 = a^2 + 2 a f + f^2`` and ``a^2 = (a mod 4)^2 mod 4``."""
    a = np.round(x)
    f = x - a
    return np.mod(np.mod(a, 4) ** 2 + np.mod(2 * a * f, 4) + f * f, 4)


def _fresnel_asymptotic(ax):
    """``C + i S`` at ``ax > 6`` (+inf included) from the tail ``int_ax^inf e^(i pi t^2 / 2) dt``, which is below
    round-off of 1/2 past ``_FRESNEL_TAIL_NEGLIGIBLE`` (where ``x^2`` may overflow)."""
    negligible = ax > _FRESNEL_TAIL_NEGLIGIBLE
    finite = np.where(negligible, 1.0, ax)
    ratio = 1 / (1j * np.pi * finite * finite)
    term = np.ones_like(ratio)
    total = np.ones_like(ratio)
    for k in range(1, 40):  # the k-th term is below e^-56 at ax = 6 and decreases with ax
        term = term * (2 * k - 1) * ratio
        total = total + term
    tail = np.exp(0.5j * np.pi * _square_mod_4(finite)) * total / (1j * np.pi * finite)
    return np.where(negligible, 0.5 + 0.5j, (0.5 + 0.5j) + tail)


def _fresnel(x):
    """``C(x) + i S(x)`` of a float64 array (odd in x; NaN passes through)."""
    ax = np.abs(x)
    out = np.empty(x.shape, np.complex128)
    near = ax <= _FRESNEL_QUADRATURE_LIMIT
    out[near] = _fresnel_quadrature(ax[near])
    far = ax > _FRESNEL_QUADRATURE_LIMIT
    out[far] = _fresnel_asymptotic(ax[far])
    out[np.isnan(x)] = complex(np.nan, np.nan)
    return np.where(x < 0, -out, out)


# -- Spence's function ------------------------------------------------------------------------------------
def _dilog_series(a):
    """``Li2(a) = sum_k a^k / k^2`` for ``|a| <= 1/2``."""
    power = np.ones_like(a)
    total = np.zeros_like(a)
    for k in range(1, 60):
        power = power * a
        total = total + power / (k * k)
    return total


def _spence(x):
    """``Li2(1 - x)`` written in x so that ``1 - z = x`` is exact (Cephes' ``spence``)."""
    out = np.full_like(x, np.nan)
    out[x == 0] = math.pi ** 2 / 6
    out[np.isposinf(x)] = -np.inf
    small = (x > 0) & (x < 0.5)  # z = 1 - x in (1/2, 1): reflect to Li2(x)
    xs = x[small]
    out[small] = math.pi ** 2 / 6 - np.log1p(-xs) * np.log(xs) - _dilog_series(xs)
    middle = (x >= 0.5) & (x <= 1.5)  # |z| <= 1/2
    out[middle] = _dilog_series(1 - x[middle])
    # z = 1 - x < -1/2: Landen, Li2(z) = -Li2(w) - log(x)^2 / 2 with w = z / (z - 1) = 1 - 1/x in (1/3, 1)
    landen = (x > 1.5) & (x <= 2)
    xl = x[landen]
    out[landen] = -_dilog_series((xl - 1) / xl) - np.log(xl) ** 2 / 2
    # w > 1/2: reflect Li2(w) = pi^2/6 - log(w) log(1 - w) - Li2(1/x), with log(1 - w) = -log x
    large = (x > 2) & np.isfinite(x)
    xl = x[large]
    log_x = np.log(xl)
    li2_w = math.pi ** 2 / 6 + np.log1p(-1 / xl) * log_x - _dilog_series(1 / xl)
    out[large] = -li2_w - log_x ** 2 / 2
    return out


# -- the ops ------------------------------------------------------------------------------------------------
_FUNCTIONS = {
    "Dawsn": (_dawson, "Dawson's integral e^-x^2 int_0^x e^t^2 dt."),
    "Expint": (_expint, "Exponential integral Ei(x) for x >= 0 (-inf at 0, NaN for x < 0)."),
    "FresnelCos": (lambda x: _fresnel(x).real, "Fresnel cosine integral int_0^x cos(pi t^2 / 2) dt."),
    "FresnelSin": (lambda x: _fresnel(x).imag, "Fresnel sine integral int_0^x sin(pi t^2 / 2) dt."),
    "Spence": (_spence, "Spence's function Li2(1 - x) for x >= 0 (pi^2/6 at 0, NaN for x < 0)."),
}


define_float64_unaries(_FUNCTIONS)


# -- gradients ----------------------------------------------------------------------------------------------
def _mul(a, b):
    return execute("Mul", a, b)


def _half_pi_square(x):
    """``pi x^2 / 2``."""
    return _mul(_mul(x, x), scalar(math.pi / 2, x.array.dtype))


@register_gradient("Dawsn")
def _dawsn_grad(node, g):
    x = node.inputs[0]
    two_x = _mul(x, scalar(2, x.array.dtype))
    return (_mul(g, execute("Sub", scalar(1, x.array.dtype), _mul(two_x, node.output(0)))),)


@register_gradient("Expint")
def _expint_grad(node, g):
    x = node.inputs[0]
    return (_mul(g, execute("Div", execute("Exp", x), x)),)


@register_gradient("FresnelCos")
def _fresnel_cos_grad(node, g):
    return (_mul(g, execute("Cos", _half_pi_square(node.inputs[0]))),)


@register_gradient("FresnelSin")
def _fresnel_sin_grad(node, g):
    return (_mul(g, execute("Sin", _half_pi_square(node.inputs[0]))),)


@register_gradient("Spence")
def _spence_grad(node, g):
    x = node.inputs[0]
    dtype = x.array.dtype
    slope = execute("Div", execute("Log", x), execute("Sub", scalar(1, dtype), x))
    at_one = execute("Equal", x, scalar(1, dtype))
    return (_mul(g, execute("Where", at_one, scalar(-1, dtype), slope)),)
