"""Incomplete gamma and beta functions and the Hurwitz zeta function (none is an ONNX operator):
``Igamma(a, x) = P(a, x)``, ``Igammac(a, x) = Q(a, x) = 1 - P(a, x)``, ``Betainc(a, b, x) = I_x(a, b)``,
``Zeta(x, q) = sum_k (k + q)^-x``, and ``IgammaGradA`` (``dP/da``, or ``dQ/da`` with ``upper=1``).

Inputs broadcast (multidirectionally) and share one float dtype; values are computed in float64 and
rounded once:

* ``P(a, x)`` by its power series ``x^a e^-x / Gamma(a + 1) sum_n x^n / ((a + 1) ... (a + n))`` where
  ``x < a + 1``, and ``Q(a, x)`` by its continued fraction (modified Lentz) elsewhere; the other one is
  the complement.  Edges: ``P(0, x > 0) = 1``, ``P(a > 0, 0) = 0``, ``P(a > 0, inf) = 1`` (the limits);
  NaN for ``a < 0``, ``x < 0``, ``P(0, 0)`` and NaN inputs.
* ``I_x(a, b)`` by its continued fraction ``x^a (1 - x)^b / (a B(a, b)) / (1 + d1 / (1 + d2 / ...))``
  where ``x < (a + 1) / (a + b + 2)`` and through ``1 - I_{1-x}(b, a)`` elsewhere; 0 at ``x = 0`` and 1 at
  ``x = 1``; NaN for ``a <= 0``, ``b <= 0`` or ``x`` outside [0, 1].
* Zeta by Euler-Maclaurin summation (terms with ``k + q <= 0`` summed directly); ``+inf`` at ``x = 1``
  and at the poles ``q = 0, -1, ...``; NaN for ``x < 1`` and for negative ``q`` with a non-integer ``x``.
  Each iterative loop runs on whole arrays and stops once every element has converged.

Gradients (engine ops): with respect to ``x`` the densities ``x^(a-1) e^-x / Gamma(a)`` (0 where
``x <= 0``; negated for Q) and ``x^(a-1) (1-x)^(b-1) / B(a, b)``, and ``-x Zeta(x + 1, q)`` with
respect to ``q``; with respect to ``a`` of Igamma/Igammac, ``IgammaGradA``: a Richardson-extrapolated
central difference in float64 (about 1e-9 relative); none with respect to ``a``, ``b`` of Betainc and
``x`` of Zeta (frontends raise or return None as their framework does).
"""

from fractions import Fraction
from math import comb, factorial

import numpy as np

from vfw.core import dtypes as dt
from vfw.core.autograd import not_differentiable, register_gradient
from vfw.core.ops._common import broadcast_infer, execute, scalar, unbroadcast
from vfw.core.ops.special_math import _lgamma, float64_kernel
from vfw.core.registry import Attr, defop

_MAX_ITERATIONS = 2000
_EPSILON = 1e-16
_TINY = 1e-300


# -- incomplete gamma ---------------------------------------------------------------------------------
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


def regularized_gamma(a, x, upper):
    """``Q(a, x)`` if ``upper`` else ``P(a, x)`` of broadcast float64 arrays."""
    result = np.full(a.shape, np.nan)
    inside = (a > 0) & (x > 0) & np.isfinite(x) & np.isfinite(a)
    series = inside & (x < a + 1)
    fraction = inside & ~series
    if series.any():
        p = _gamma_series(a[series], x[series])
        result[series] = 1.0 - p if upper else p
    if fraction.any():
        q = _gamma_fraction(a[fraction], x[fraction])
        result[fraction] = q if upper else 1.0 - q
    lower_limit, upper_limit = (1.0, 0.0) if upper else (0.0, 1.0)
    result[(a > 0) & (x == 0)] = lower_limit
    result[((a > 0) & (x == np.inf)) | ((a == 0) & (x > 0))] = upper_limit
    return result


def _gamma_derivative_a(a, x, upper):
    """``dP/da`` (``dQ/da`` if ``upper``) by Richardson-extrapolated central differences."""
    h = 1e-3 * np.maximum(np.abs(a), 1e-2)

    def central(step):
        return (regularized_gamma(a + step, x, upper) - regularized_gamma(a - step, x, upper)) / (2 * step)

    derivative = (4 * central(h / 2) - central(h)) / 3
    derivative = np.where((a - h <= 0), np.nan, derivative)
    # Where P is flat in a (x = 0 or x = inf) the exact derivative is 0.
    return np.where((x == 0) | (x == np.inf), np.where(a > 0, 0.0, np.nan), derivative)


# -- incomplete beta ------------------------------------------------------------------------------------
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


def regularized_beta(a, b, x):
    """``I_x(a, b)`` of broadcast float64 arrays."""
    result = np.full(x.shape, np.nan)
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


# -- Hurwitz zeta -----------------------------------------------------------------------------------------
def _bernoulli_even(count):
    """``B_2, B_4, ..., B_2count`` (exact fractions, from the recurrence ``sum_k C(m+1, k) B_k = 0``)."""
    numbers = [Fraction(1)]
    for m in range(1, 2 * count + 1):
        numbers.append(-sum(comb(m + 1, k) * numbers[k] for k in range(m)) / (m + 1))
    return [float(numbers[2 * j]) for j in range(1, count + 1)]


_EM_TERMS = 10
_EM_CORRECTIONS = [b / factorial(2 * j + 2) for j, b in enumerate(_bernoulli_even(12))]


def _hurwitz(s, q):
    """``sum_k (k + q)^-s``: the first terms summed, the rest by Euler-Maclaurin."""
    out = np.zeros_like(s)
    head = np.maximum(np.ceil(-q), 0)  # terms with k + q <= 0 are summed directly
    head = np.where(np.isfinite(head), head, 0)
    shift = head + _EM_TERMS
    for k in range(_EM_TERMS):
        out = out + np.power(q + k, -s)
    extra = int(head.max()) if head.size else 0
    for k in range(_EM_TERMS, _EM_TERMS + extra):
        out = out + np.where(k < shift, np.power(q + k, -s), 0.0)
    a = q + shift
    out = out + np.power(a, 1 - s) / (s - 1) + np.power(a, -s) / 2
    rising = s.copy()  # s (s+1) ... (s + 2j - 2)
    power = np.power(a, -s - 1)
    for j, correction in enumerate(_EM_CORRECTIONS):
        out = out + correction * rising * power
        rising = rising * (s + 2 * j + 1) * (s + 2 * j + 2)
        power = power / (a * a)
    return out


def hurwitz_zeta(s, q):
    """``zeta(s, q)`` of broadcast float64 arrays, with the values at poles and outside the domain."""
    out = _hurwitz(s, q)
    out = np.where(s == 1, np.inf, out)
    out = np.where(s < 1, np.nan, out)
    pole = (q <= 0) & (q == np.floor(q))
    out = np.where(pole & (s >= 1), np.inf, out)
    return np.where((q < 0) & ~pole & (s != np.floor(s)), np.nan, out)


# -- the ops ----------------------------------------------------------------------------------------------
def _same_type(names):
    return {"inputs": " ".join(f"{n}:T" for n in names), "outputs": "z:T", "types": {"T": dt.FLOATS},
            "infer": broadcast_infer}


@defop("Igamma", **_same_type("ax"))
def igamma():
    """Regularized lower incomplete gamma function ``P(a, x)``."""
    return float64_kernel(lambda a, x: regularized_gamma(a, x, False))


@defop("Igammac", **_same_type("ax"))
def igammac():
    """Regularized upper incomplete gamma function ``Q(a, x) = 1 - P(a, x)``."""
    return float64_kernel(lambda a, x: regularized_gamma(a, x, True))


@defop("IgammaGradA", **_same_type("ax"), attrs={"upper": Attr("int", 0, choices=(0, 1))})
def igamma_grad_a(upper):
    """``dP(a, x)/da`` (``dQ/da`` with ``upper=1``), by extrapolated central differences (NaN for small a)."""
    return float64_kernel(lambda a, x: _gamma_derivative_a(a, x, bool(upper)))


@defop("Betainc", **_same_type("abx"))
def betainc():
    """Regularized incomplete beta function ``I_x(a, b)``."""
    return float64_kernel(regularized_beta)


@defop("Zeta", **_same_type("xq"))
def zeta():
    """Hurwitz zeta function ``sum_{k >= 0} (k + q)^-x`` (Riemann's for q = 1)."""
    return float64_kernel(hurwitz_zeta)


# -- gradients --------------------------------------------------------------------------------------------
def _const(value, like):
    return scalar(value, like.array.dtype)


def _grads(node, grads):
    """``grads`` (callables, one per input, or None) evaluated for the inputs that need them, summed back to
    the inputs' shapes."""
    return tuple(unbroadcast(make(), x.array.shape) if need and make is not None else None
                 for x, need, make in zip(node.inputs, node.needs_input_grad, grads))


def _gamma_density(a, x):
    """``x^(a-1) e^-x / Gamma(a)`` where ``x > 0``, else 0: the derivative of ``P`` in ``x``."""
    log_density = execute("Sub", execute("Sub", execute("Mul", execute("Log", x), execute("Sub", a, _const(1, a))),
                                         x), execute("Lgamma", a))
    return execute("Where", execute("Greater", x, _const(0, x)), execute("Exp", log_density), _const(0, x))


@register_gradient("Igamma", "Igammac")
def _igamma_grad(node, g):
    a, x = node.inputs
    upper = node.op.schema.op_type == "Igammac"
    return _grads(node, (
        lambda: execute("Mul", g, execute("IgammaGradA", a, x, upper=int(upper))),
        lambda: execute("Mul", g, execute("Neg", _gamma_density(a, x)) if upper else _gamma_density(a, x))))


@register_gradient("Betainc")
def _betainc_grad(node, g):
    a, b, x = node.inputs

    def density():
        one = _const(1, x)
        log_beta = execute("Sub", execute("Add", execute("Lgamma", a), execute("Lgamma", b)),
                           execute("Lgamma", execute("Add", a, b)))
        log_density = execute("Add", execute("Mul", execute("Sub", a, one), execute("Log", x)),
                              execute("Mul", execute("Sub", b, one), execute("Log1p", execute("Neg", x))))
        return execute("Mul", g, execute("Exp", execute("Sub", log_density, log_beta)))

    return _grads(node, (None, None, density))


@register_gradient("Zeta")
def _zeta_grad(node, g):
    s, q = node.inputs
    return _grads(node, (None, lambda: execute("Mul", g, execute("Neg", execute(
        "Mul", s, execute("Zeta", execute("Add", s, _const(1, s)), q))))))


not_differentiable("IgammaGradA")
