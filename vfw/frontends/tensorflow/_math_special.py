"""tf.math special functions computed in numpy: modified Bessel functions ``bessel_i0/i0e/i1/i1e``, the Hurwitz
``zeta``, ``polygamma`` and ``nextafter``.

Values are computed in float64 (power series for small arguments, the asymptotic expansion for large ones;
Euler-Maclaurin summation for zeta) and rounded to the input's dtype.  Gradients follow TF's formulas
(``i0' = i1``, ``i1' = i0 - i1 / x``, ``d zeta(x, q) / dq = -x zeta(x + 1, q)``, ``d polygamma(n, x) / dx =
polygamma(n + 1, x)``; none for the orders, ``x`` of zeta, and nextafter).
"""

import math

import numpy as np

from vfw.frontends.tensorflow import _dtypes
from vfw.frontends.tensorflow._dispatch import call, convert_to_tensor, host
from vfw.frontends.tensorflow._op_support import OpTypes, detached, matching, with_gradient

_SERIES_TERMS = 80
_ASYMPTOTIC_FROM = 30.0  # |x| from which the asymptotic expansion is exact to float64
_ASYMPTOTIC_TERMS = 25


def _scaled_bessel(order, x):
    """``exp(-|x|) I_order(|x|)`` (order 0 or 1) in float64."""
    ax = np.abs(x.astype(np.float64))
    small = np.minimum(ax, _ASYMPTOTIC_FROM)
    # power series: I_n(x) = sum_k (x/2)^(2k+n) / (k! (k+n)!)
    half = small / 2.0
    term = half ** order / math.factorial(order)
    total = term.copy()
    for k in range(1, _SERIES_TERMS):
        term = term * half * half / (k * (k + order))
        total = total + term
    series = total * np.exp(-small)
    # asymptotic: exp(x) / sqrt(2 pi x) * sum_k (-1)^k prod_{j<=k} (4 n^2 - (2j-1)^2) / (k! (8x)^k)
    large = np.maximum(ax, _ASYMPTOTIC_FROM)
    term = np.ones_like(large)
    total = term.copy()
    for k in range(1, _ASYMPTOTIC_TERMS):
        term = -term * (4.0 * order * order - (2 * k - 1) ** 2) / (k * 8.0 * large)
        total = total + term
    asymptotic = total / np.sqrt(2.0 * np.pi * large)
    return np.where(ax < _ASYMPTOTIC_FROM, series, asymptotic)


def _bessel_values(order, scaled, x):
    value = _scaled_bessel(order, x)
    if not scaled:
        with np.errstate(over="ignore"):
            value = value * np.exp(np.abs(x.astype(np.float64)))
    if order == 1:
        value = np.copysign(value, x)  # I1 is odd
    return value.astype(x.dtype)


_BESSEL_TYPES = {name: OpTypes(name, "bfloat16 float16 float32 float64", "float16 float32 float64")
                 for name in ("BesselI0", "BesselI0e", "BesselI1", "BesselI1e")}


def _bessel(order, scaled, x, tf_op):
    x = convert_to_tensor(x)
    _BESSEL_TYPES[tf_op].check(x.array.dtype)
    return with_gradient(lambda x: host(lambda a: _bessel_values(order, scaled, a), detached(x)),
                         lambda g, x: (call("Mul", g, _bessel_derivative(order, scaled, x)),), x)


def _bessel_derivative(order, scaled, x):
    def derivative(a):
        i0, i1 = _bessel_values(0, scaled, a), _bessel_values(1, scaled, a)
        sign = np.sign(a) if scaled else 0
        if order == 0:
            return (i1 - sign * i0).astype(a.dtype)
        # at 0 TF takes i1(x) / x as 0 (bessel_i1's gradient is 1 there) and i1e(x) / x as its limit 1/2
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(a == 0, np.asarray(0.5 if scaled else 0.0, a.dtype), i1 / a)
        return (i0 - sign * i1 - ratio).astype(a.dtype)

    return host(derivative, detached(x))


def bessel_i0(x, name=None):
    """Modified Bessel function of the first kind of order 0, elementwise."""
    return _bessel(0, False, x, "BesselI0")


def bessel_i0e(x, name=None):
    """``exp(-|x|) * bessel_i0(x)``, elementwise."""
    return _bessel(0, True, x, "BesselI0e")


def bessel_i1(x, name=None):
    """Modified Bessel function of the first kind of order 1, elementwise."""
    return _bessel(1, False, x, "BesselI1")


def bessel_i1e(x, name=None):
    """``exp(-|x|) * bessel_i1(x)``, elementwise."""
    return _bessel(1, True, x, "BesselI1e")


# Bernoulli numbers B_2j / (2j)! for the Euler-Maclaurin tail of zeta
_EULER_MACLAURIN = [1 / 12, -1 / 720, 1 / 30240, -1 / 1209600, 1 / 47900160, -691 / 1307674368000,
                    1 / 74724249600, -3617 / 10670622842880000, 43867 / 5109094217170944000,
                    -174611 / 802857662698291200000, 77683 / 1556132284166476800000,
                    -236364091 / 9526380638125489889280000]
_DIRECT_TERMS = 10


def _zeta_values(x, q):
    """Hurwitz zeta ``sum_k (k + q)^-x`` by Euler-Maclaurin summation (float64 math, TF's domain rules)."""
    s, a = np.broadcast_arrays(x.astype(np.float64), q.astype(np.float64))
    with np.errstate(all="ignore"):
        total = np.zeros(s.shape)
        for k in range(_DIRECT_TERMS):
            total = total + (a + k) ** -s
        tail = a + _DIRECT_TERMS
        total = total + tail ** (1.0 - s) / (s - 1.0) + 0.5 * tail ** -s
        rising = s.copy()  # s (s + 1) ... (s + 2j - 2)
        power = tail ** (-s - 1.0)
        for j, coefficient in enumerate(_EULER_MACLAURIN):
            total = total + coefficient * rising * power
            rising = rising * (s + 2 * j + 1) * (s + 2 * j + 2)
            power = power / (tail * tail)
        pole = (a <= 0) & (a == np.floor(a))
        total = np.where(s == 1, np.inf, np.where(s < 1, np.nan, total))
        total = np.where(pole & (s > 1), np.inf, np.where((a <= 0) & ~pole & (s != np.floor(s)), np.nan, total))
    return total.astype(x.dtype)


_ZETA_TYPES = OpTypes("Zeta", "float32 float64")


def _zeta(x, q):
    return with_gradient(lambda x, q: host(_zeta_values, detached(x), detached(q)),
                         lambda g, x, q: (None, call("Mul", g, call("Neg", call("Mul", x, _zeta(
                             call("Add", x, convert_to_tensor(1, _dtypes.of_array(x.array))), q))))), x, q)


def zeta(x, q, name=None):
    """Hurwitz zeta function ``sum_{k >= 0} (k + q)^-x`` (float32/float64; x and q broadcast)."""
    x, q = matching("Zeta", x, q, types=_ZETA_TYPES)
    return _zeta(x, q)


def _polygamma_values(n, x):
    """``(-1)^(n+1) n! zeta(n + 1, x)`` for integer orders n >= 1; digamma for n = 0; NaN for other orders."""
    order, value = np.broadcast_arrays(n.astype(np.float64), x.astype(np.float64))
    with np.errstate(all="ignore"):
        factorial = np.exp(np.array([math.lgamma(v + 1.0) if v >= 0 and np.isfinite(v) else np.nan
                                     for v in order.reshape(-1)]).reshape(order.shape))
        result = (-1.0) ** (order + 1) * factorial * _zeta_values(order + 1.0, value)
        result = np.where(order == 0, _digamma(value), result)
        result = np.where((order < 0) | (order != np.floor(order)), np.nan, result)
    return result.astype(x.dtype)


def _digamma(x):
    """float64 digamma by recurrence up to 10 and the asymptotic series (for polygamma's order 0)."""
    shift = np.zeros_like(x)
    y = x.copy()
    for _ in range(10):
        small = y < 10
        shift = shift - np.where(small, 1.0 / y, 0.0)
        y = np.where(small, y + 1.0, y)
    inv2 = 1.0 / (y * y)
    series = np.log(y) - 0.5 / y - inv2 * (1 / 12 - inv2 * (1 / 120 - inv2 * (1 / 252 - inv2 * (1 / 240 - inv2 / 132))))
    return np.where((x <= 0) & (x == np.floor(x)), np.nan, shift + series)


def _polygamma(n, x):
    return with_gradient(lambda n, x: host(_polygamma_values, detached(n), detached(x)),
                         lambda g, n, x: (None, call("Mul", g, _polygamma(
                             call("Add", n, convert_to_tensor(1, _dtypes.of_array(n.array))), x))), n, x)


def polygamma(a, x, name=None):
    """The ``a``-th derivative of digamma at ``x`` (``a`` integer-valued floats; NaN for other orders)."""
    a, x = matching("Polygamma", a, x, types=_ZETA_TYPES)
    return _polygamma(a, x)


_NEXTAFTER_TYPES = OpTypes("NextAfter", "float32 float64")


def nextafter(x1, x2, name=None):
    """The next representable value after ``x1`` towards ``x2``, elementwise (no gradient)."""
    # the op's type attribute defaults to float32, which TF gives as the hint to non-tensor arguments
    x1, x2 = (convert_to_tensor(x, dtype_hint=_dtypes.float32) for x in (x1, x2))
    x1, x2 = matching("NextAfter", x1, x2, types=_NEXTAFTER_TYPES)
    return host(lambda a, b: np.nextafter(a, b), detached(x1), detached(x2))


NAMESPACES = {"math": ["bessel_i0", "bessel_i0e", "bessel_i1", "bessel_i1e", "zeta", "polygamma", "nextafter"]}
