"""Bessel functions (none is an ONNX operator): the modified ones of the first kind ``BesselI0``,
``BesselI1`` and their exponentially scaled forms ``BesselI0e = e^-|x| I_0``, ``BesselI1e``; of the
second kind ``BesselK0``, ``BesselK1``, ``BesselK0e = e^x K_0``, ``BesselK1e``; the ordinary ones
``BesselJ0``, ``BesselJ1``, ``BesselY0``, ``BesselY1``; and ``SphericalBesselJ0 = sin(x) / x``.

Each computes in float64 and rounds once to the input's float dtype:

* ``e^-|x| I_n(|x|)``: the power series up to |x| = 30, the asymptotic expansion
  ``(2 pi x)^-1/2 sum_k (-1)^k a_k(n) / x^k`` beyond (both exact to float64 round-off there).
* ``e^x K_n(x)``: the series with logarithms up to x = 1; up to x = 50 the integral
  ``int_0^inf exp(-x (cosh t - 1)) cosh(n t) dt`` by the trapezoidal rule (which converges
  exponentially for such integrands); beyond, the asymptotic expansion with all signs positive.
  ``+inf`` at 0, NaN below.
* ``J_n``: the periodic integral ``(1/2 pi) int_0^2pi cos(n t - x sin t) dt`` by the trapezoidal rule
  (exact to round-off for |x| <= 25 with 64 points), Hankel's asymptotic expansion beyond.
  ``Y_n``: the series with logarithms up to x = 2, Bessel's integrals (Gauss-Legendre) up to 25,
  Hankel's expansion beyond; ``-inf`` at 0, NaN below.

Gradients (engine ops, so every order follows): ``I0' = I1``, ``I0e' = I1e - sign(x) I0e``,
``I1' = I0 - I1 / x``, ``I1e' = I0e - sign(x) I1e - I1e / x`` (``I1 / x`` and ``I1e / x`` take their
limit 1/2 at 0).  The K, J, Y and spherical functions are not differentiable here (neither framework
defines their derivatives).
"""

import numpy as np

from vfw.core.autograd import not_differentiable, register_gradient
from vfw.core.ops._common import execute, scalar
from vfw.core.ops.special_math import define_float64_unaries

_SERIES_LIMIT = 30.0
_TRAPEZOID_LIMIT = 50.0
_HANKEL_FROM = 25.0
_EULER_GAMMA = 0.5772156649015329


# -- modified Bessel functions ----------------------------------------------------------------------
def _asymptotic(x, order, alternating):
    """``sum_k (+-1)^k a_k(order) / x^k`` with ``a_k = prod_{j<=k} (4 order^2 - (2j - 1)^2) / (8 j)``."""
    mu = 4.0 * order * order
    term = np.ones_like(x)
    total = np.ones_like(x)
    for k in range(1, 30):
        term = term * (mu - (2 * k - 1) ** 2) / (8.0 * k * x)
        total = total + (-term if alternating and k % 2 else term)
    return total


def scaled_i(x, order):
    """``e^-|x| I_order(x)`` (order 0 or 1) of a float64 array of rank >= 1."""
    ax = np.abs(x)
    out = np.empty_like(ax)
    small = ax <= _SERIES_LIMIT
    xs = ax[small]
    quarter_square = xs * xs / 4
    term = (xs / 2) ** order
    total = term.copy()
    for k in range(1, 100):
        term = term * quarter_square / (k * (k + order))
        total = total + term
    out[small] = total * np.exp(-xs)
    xl = ax[~small]
    out[~small] = _asymptotic(xl, order, True) / np.sqrt(2 * np.pi * xl)
    return np.where(x < 0, -out, out) if order % 2 else out


def _log_series(q, order, start, terms):
    """The power series beside the logarithm in ``K_order`` and ``Y_order``: ``sum_k c_k start q^k / (k! (k +
    order)!)`` with ``c_k = H_k`` (harmonic numbers) for order 0 and ``psi(k + 1) + psi(k + 2)`` for order 1."""
    term = start
    if order == 0:
        harmonic, total = 0.0, np.zeros_like(q)
        for k in range(1, terms):
            term = term * q / (k * k)
            harmonic += 1.0 / k
            total = total + term * harmonic
        return total
    psi_k1, psi_k2 = -_EULER_GAMMA, 1.0 - _EULER_GAMMA
    total = term * (psi_k1 + psi_k2)
    for k in range(1, terms):
        term = term * q / (k * (k + 1))
        psi_k1 += 1.0 / k
        psi_k2 += 1.0 / (k + 1)
        total = total + term * (psi_k1 + psi_k2)
    return total


def _k_series(x, order):
    """``K_order(x)`` for small x > 0 from the series with logarithms (Abramowitz & Stegun 9.6.13, 9.6.11)."""
    q = x * x / 4
    log_half = np.log(x / 2)
    total = _log_series(q, order, np.ones_like(x), 30)
    if order == 0:
        return -(log_half + _EULER_GAMMA) * scaled_i(x, 0) * np.exp(x) + total
    # K1(x) = 1/x + ln(x/2) I1(x) - (x/4) sum_k (psi(k+1) + psi(k+2)) q^k / (k! (k+1)!)
    return 1 / x + log_half * scaled_i(x, 1) * np.exp(x) - x / 4 * total


def _k_trapezoid(x, order):
    """``e^x K_order(x)`` by the trapezoidal rule on ``int_0^T exp(-x (cosh t - 1)) cosh(order t) dt``."""
    step = 0.02
    end = np.arccosh(1 + 750.0 / x.min()) if x.size else 0.0
    t = np.arange(0.0, end + step, step)
    values = np.exp(-np.multiply.outer(x, np.cosh(t) - 1)) * np.cosh(order * t)
    return step * (values.sum(axis=-1) - values[..., 0] / 2)


def _piecewise(x, fill, zero, pieces):
    """``fill`` everywhere, ``zero`` at 0, and ``kernel(x)`` on each ``(lo, hi, kernel)`` interval ``(lo, hi]``."""
    out = np.full_like(x, fill)
    out[x == 0] = zero
    for lo, hi, kernel in pieces:
        chosen = (x > lo) & (x <= hi)
        if chosen.any():
            out[chosen] = kernel(x[chosen])
    return out


def scaled_k(x, order):
    """``e^x K_order(x)`` of a float64 array (inf at 0, NaN below)."""
    return _piecewise(x, np.nan, np.inf, (
        (0.0, 1.0, lambda v: _k_series(v, order) * np.exp(v)),
        (1.0, _TRAPEZOID_LIMIT, lambda v: _k_trapezoid(v, order)),
        (_TRAPEZOID_LIMIT, np.inf, lambda v: _asymptotic(v, order, False) * np.sqrt(np.pi / (2 * v)))))


# -- Bessel functions of the first and second kind -----------------------------------------------------
def _hankel(x, order):
    """``(J, Y)`` from Hankel's expansion ``sqrt(2 / (pi x)) (P cos chi - Q sin chi, P sin chi + Q cos chi)``."""
    mu = 4.0 * order * order
    term = np.ones_like(x)
    p, q = np.ones_like(x), np.zeros_like(x)
    for k in range(1, 40):
        term = term * (mu - (2 * k - 1) ** 2) / (8.0 * k * x)
        sign = -1 if (k // 2) % 2 else 1
        if k % 2:
            q = q + sign * term
        else:
            p = p + sign * term
    chi = x - (order / 2 + 0.25) * np.pi
    scale = np.sqrt(2 / (np.pi * x))
    return scale * (p * np.cos(chi) - q * np.sin(chi)), scale * (p * np.sin(chi) + q * np.cos(chi))


_PERIOD_NODES = np.arange(64) * (2 * np.pi / 64)


def _bessel_j(x, order):
    ax = np.abs(x)
    out = np.empty_like(ax)
    near = ax <= _HANKEL_FROM
    phases = order * _PERIOD_NODES - np.multiply.outer(ax[near], np.sin(_PERIOD_NODES))
    out[near] = np.cos(phases).mean(axis=-1)
    out[~near] = _hankel(ax[~near], order)[0]
    return np.where(x < 0, -out, out) if order % 2 else out


def _y_series(x, order):
    """``Y_order`` for 0 < x <= 2 (Abramowitz & Stegun 9.1.13 and 9.1.11)."""
    q = -x * x / 4
    log_term = 2 / np.pi * (np.log(x / 2) + (_EULER_GAMMA if order == 0 else 0.0)) * _bessel_j(x, order)
    if order == 0:
        return log_term - 2 / np.pi * _log_series(q, 0, np.ones_like(x), 40)
    return log_term - 2 / (np.pi * x) - _log_series(q, 1, x / 2, 40) / np.pi


_GAUSS_NODES, _GAUSS_WEIGHTS = np.polynomial.legendre.leggauss(96)


def _y_integrals(x, order):
    """``(1/pi) int_0^pi sin(x sin t - n t) dt - (1/pi) int_0^inf (e^(nt) + (-1)^n e^(-nt)) e^(-x sinh t) dt``."""
    theta = (_GAUSS_NODES + 1) * np.pi / 2
    oscillating = (np.sin(np.multiply.outer(x, np.sin(theta)) - order * theta) @ _GAUSS_WEIGHTS) / 2
    end = np.arcsinh(60.0 / x.min()) if x.size else 1.0  # e^-60 beyond
    t = (_GAUSS_NODES + 1) * end / 2
    weights = np.exp(order * t) + (-1) ** order * np.exp(-order * t)
    tail = (np.exp(-np.multiply.outer(x, np.sinh(t))) * weights) @ _GAUSS_WEIGHTS * end / 2
    return oscillating - tail / np.pi


def _bessel_y(x, order):
    return _piecewise(x, np.nan, -np.inf, (
        (0.0, 2.0, lambda v: _y_series(v, order)), (2.0, _HANKEL_FROM, lambda v: _y_integrals(v, order)),
        (_HANKEL_FROM, np.inf, lambda v: _hankel(v, order)[1])))


def _spherical_j0(x):
    safe = np.where(x == 0, 1.0, x)
    return np.where(x == 0, 1.0, np.where(np.isinf(x), 0.0, np.sin(x) / safe))


# -- the ops ----------------------------------------------------------------------------------------
def _exp_abs(x):
    return np.exp(np.abs(x))


_FUNCTIONS = {
    "BesselI0": (lambda x: scaled_i(x, 0) * _exp_abs(x), "Modified Bessel function of the first kind, order 0."),
    "BesselI0e": (lambda x: scaled_i(x, 0), "Exponentially scaled I_0: e^-|x| I_0(x)."),
    "BesselI1": (lambda x: scaled_i(x, 1) * _exp_abs(x), "Modified Bessel function of the first kind, order 1."),
    "BesselI1e": (lambda x: scaled_i(x, 1), "Exponentially scaled I_1: e^-|x| I_1(x)."),
    "BesselK0": (lambda x: scaled_k(x, 0) * np.exp(-x),
                 "Modified Bessel function of the second kind, order 0 (inf at 0, NaN below)."),
    "BesselK1": (lambda x: scaled_k(x, 1) * np.exp(-x),
                 "Modified Bessel function of the second kind, order 1 (inf at 0, NaN below)."),
    "BesselK0e": (lambda x: scaled_k(x, 0), "Exponentially scaled K_0: e^x K_0(x)."),
    "BesselK1e": (lambda x: scaled_k(x, 1), "Exponentially scaled K_1: e^x K_1(x)."),
    "BesselJ0": (lambda x: _bessel_j(x, 0), "Bessel function of the first kind, order 0."),
    "BesselJ1": (lambda x: _bessel_j(x, 1), "Bessel function of the first kind, order 1."),
    "BesselY0": (lambda x: _bessel_y(x, 0), "Bessel function of the second kind, order 0 (-inf at 0, NaN below)."),
    "BesselY1": (lambda x: _bessel_y(x, 1), "Bessel function of the second kind, order 1 (-inf at 0, NaN below)."),
    "SphericalBesselJ0": (_spherical_j0, "Spherical Bessel function of the first kind, order 0: sin(x) / x "
                                         "(1 at 0, 0 at +-inf)."),
}


define_float64_unaries(_FUNCTIONS)


# -- gradients ----------------------------------------------------------------------------------------
def _mul(a, b):
    return execute("Mul", a, b)


def _sub(a, b):
    return execute("Sub", a, b)


def _over_x(y, x):
    """``y / x`` with the limit 1/2 at x = 0 (``I_1(x) / x`` and ``e^-|x| I_1(x) / x`` both tend to 1/2)."""
    dtype = x.array.dtype
    zero = execute("Equal", x, scalar(0, dtype))
    safe = execute("Where", zero, scalar(1, dtype), x)
    return execute("Where", zero, scalar(0.5, dtype), execute("Div", y, safe))


@register_gradient("BesselI0")
def _i0_grad(node, g):
    return (_mul(g, execute("BesselI1", node.inputs[0])),)


@register_gradient("BesselI0e")
def _i0e_grad(node, g):
    x = node.inputs[0]
    return (_mul(g, _sub(execute("BesselI1e", x), _mul(execute("Sign", x), node.output(0)))),)


@register_gradient("BesselI1")
def _i1_grad(node, g):
    x = node.inputs[0]
    return (_mul(g, _sub(execute("BesselI0", x), _over_x(node.output(0), x))),)


@register_gradient("BesselI1e")
def _i1e_grad(node, g):
    x, y = node.inputs[0], node.output(0)
    slope = _sub(_sub(execute("BesselI0e", x), _mul(execute("Sign", x), y)), _over_x(y, x))
    return (_mul(g, slope),)


not_differentiable("BesselK0", "BesselK1", "BesselK0e", "BesselK1e", "BesselJ0", "BesselJ1", "BesselY0", "BesselY1",
                   "SphericalBesselJ0")
