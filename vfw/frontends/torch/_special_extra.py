"""More of torch.special, numpy only: Bessel functions of the first and second kind (orders 0 and 1),
``spherical_bessel_j0``, the Hurwitz zeta function and the classical orthogonal polynomials.

``J_n``: the periodic integral ``(1/2 pi) int_0^2pi cos(n t - x sin t) dt`` by the trapezoidal rule
(exact to round-off for |x| <= 25 with 64 points), Hankel's asymptotic expansion beyond.
``Y_n``: the series with logarithms up to x = 2, Bessel's integrals (Gauss-Legendre) up to 25,
the asymptotic expansion beyond. ``zeta(x, q)``: Euler-Maclaurin
summation. Polynomials of degree ``n`` (truncated to an integer; negative: 0) by their three-term
recurrences (Chebyshev polynomials inside (-1, 1) with n > 6 by their trigonometric forms).
None of these has a derivative in torch except ``zeta`` with respect to ``q``.
"""

from fractions import Fraction
from math import comb, factorial

import numpy as np

from vfw.core.tensor import Tensor as CoreTensor
from vfw.frontends.torch import _dispatch, _dtype
from vfw.frontends.torch.autograd.function import Function

__all__ = ["bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "chebyshev_polynomial_t", "chebyshev_polynomial_u",
           "chebyshev_polynomial_v", "chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he",
           "laguerre_polynomial_l", "legendre_polynomial_p", "shifted_chebyshev_polynomial_t",
           "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v", "shifted_chebyshev_polynomial_w",
           "spherical_bessel_j0", "zeta"]

_EULER_GAMMA = 0.5772156649015329
_ASYMPTOTIC_FROM = 25.0


def _operands(name, *values):
    """float64 arrays of the (broadcast) operands and the result's numpy dtype (torch's promotion; integers give
    the default dtype; half precision refused as torch's kernels do)."""
    tensors = [v for v in values if isinstance(v, CoreTensor)]
    dtypes = [t.array.dtype for t in tensors] or [np.dtype(np.float64)]
    result = dtypes[0]
    for d in dtypes[1:]:
        result = _dtype.promote_types(result, d)
    if not tensors:
        result = _dtype.default_float_np()
    if not _dtype.from_numpy_dtype(result).is_floating_point:
        result = _dtype.default_float_np()
    if result.itemsize < 4 or result.name == "bfloat16":
        raise NotImplementedError(f"\"{name}_cpu\" not implemented for '{_dispatch.type_name(result)}'")
    arrays = [np.asarray(v.array if isinstance(v, CoreTensor) else v, np.float64) for v in values]
    return np.broadcast_arrays(*arrays), result


def _evaluate(name, kernel, *values, out=None):
    arrays, np_dtype = _operands(name, *values)
    with np.errstate(all="ignore"):
        result = _dispatch.wrap(np.asarray(kernel(*arrays)).astype(np_dtype))
    return result if out is None else _dispatch.finish(result, out, name)


# --- Bessel functions of the first and second kind --------------------------------------------------------------

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
    near = ax <= _ASYMPTOTIC_FROM
    phases = order * _PERIOD_NODES - np.multiply.outer(ax[near], np.sin(_PERIOD_NODES))
    out[near] = np.cos(phases).mean(axis=-1)
    out[~near] = _hankel(ax[~near], order)[0]
    return np.where(x < 0, -out, out) if order % 2 else out


def _y_series(x, order):
    """``Y_order`` for 0 < x <= 2 (Abramowitz & Stegun 9.1.13 and 9.1.11)."""
    q = -x * x / 4
    log_term = 2 / np.pi * (np.log(x / 2) + (_EULER_GAMMA if order == 0 else 0.0)) * _bessel_j(x, order)
    if order == 0:
        term, harmonic, total = np.ones_like(x), 0.0, np.zeros_like(x)
        for k in range(1, 40):
            term = term * q / (k * k)
            harmonic += 1.0 / k
            total = total + term * harmonic
        return log_term - 2 / np.pi * total
    term = x / 2
    psi_k1, psi_k2 = -_EULER_GAMMA, 1.0 - _EULER_GAMMA
    total = term * (psi_k1 + psi_k2)
    for k in range(1, 40):
        term = term * q / (k * (k + 1))
        psi_k1 += 1.0 / k
        psi_k2 += 1.0 / (k + 1)
        total = total + term * (psi_k1 + psi_k2)
    return log_term - 2 / (np.pi * x) - total / np.pi


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
    out = np.full_like(x, np.nan)
    out[x == 0] = -np.inf
    pieces = ((0.0, 2.0, lambda v: _y_series(v, order)), (2.0, _ASYMPTOTIC_FROM, lambda v: _y_integrals(v, order)),
              (_ASYMPTOTIC_FROM, np.inf, lambda v: _hankel(v, order)[1]))
    for lo, hi, kernel in pieces:
        chosen = (x > lo) & (x <= hi)
        if chosen.any():
            out[chosen] = kernel(x[chosen])
    return out


def bessel_j0(input, *, out=None):
    """Bessel function of the first kind of order 0."""
    return _evaluate("bessel_j0", lambda x: _bessel_j(x, 0), input, out=out)


def bessel_j1(input, *, out=None):
    """Bessel function of the first kind of order 1."""
    return _evaluate("bessel_j1", lambda x: _bessel_j(x, 1), input, out=out)


def bessel_y0(input, *, out=None):
    """Bessel function of the second kind of order 0 (-inf at 0, NaN below)."""
    return _evaluate("bessel_y0", lambda x: _bessel_y(x, 0), input, out=out)


def bessel_y1(input, *, out=None):
    """Bessel function of the second kind of order 1 (-inf at 0, NaN below)."""
    return _evaluate("bessel_y1", lambda x: _bessel_y(x, 1), input, out=out)


def spherical_bessel_j0(input, *, out=None):
    """``sin(x) / x`` (1 at 0, 0 at +-inf)."""
    return _evaluate("spherical_bessel_j0", lambda x: np.where(
        x == 0, 1.0, np.where(np.isinf(x), 0.0, np.sin(x) / np.where(x == 0, 1.0, x))), input, out=out)


# --- Hurwitz zeta ---------------------------------------------------------------------------------------------

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


def _zeta_values(s, q):
    out = _hurwitz(s, q)
    out = np.where(s == 1, np.inf, out)
    out = np.where(s < 1, np.nan, out)
    pole = (q <= 0) & (q == np.floor(q))
    out = np.where(pole & (s >= 1), np.inf, out)
    out = np.where((q < 0) & ~pole & (s != np.floor(s)), np.nan, out)
    return out


class _Zeta(Function):
    @staticmethod
    def forward(ctx, x, q, np_dtype):
        ctx.save_for_backward(x, q)
        arrays, _ = _operands("zeta", x, q)
        with np.errstate(all="ignore"):
            return _dispatch.wrap(np.asarray(_zeta_values(*arrays)).astype(np_dtype))

    @staticmethod
    def backward(ctx, grad):
        x, q = ctx.saved_tensors
        if ctx.needs_input_grad[0]:
            raise NotImplementedError("the derivative for 'zeta' is not implemented.")
        return None, grad * -x * zeta(x + 1, q), None


def zeta(input, other, *, out=None):
    """Hurwitz zeta ``sum_k (k + other)^-input`` (Riemann's for ``other`` = 1); differentiable in ``other``."""
    x = input if isinstance(input, CoreTensor) else _dispatch.wrap(np.asarray(input, np.float64))
    q = other if isinstance(other, CoreTensor) else _dispatch.wrap(np.asarray(other, np.float64))
    _, np_dtype = _operands("zeta", input, other)
    torch_dtype = _dtype.from_numpy_dtype(np_dtype)
    x, q = x.to(torch_dtype), q.to(torch_dtype)
    result = _Zeta.apply(x, q, np_dtype) if (x.requires_grad or q.requires_grad) else \
        _evaluate("zeta", _zeta_values, x, q)
    return result if out is None else _dispatch.finish(result, out, "zeta")


# --- orthogonal polynomials -----------------------------------------------------------------------------------

def _recurrence(x, degree, first, step):
    """``p_degree(x)`` from ``p_0 = 1``, ``p_1 = first(x)``, ``p_(k+1) = step(k, x, p_k, p_(k-1))``."""
    previous, current = np.ones_like(x), first(x)
    out = np.where(degree == 0, previous, np.where(degree == 1, current, 0.0))
    top = int(degree.max()) if degree.size else 0
    for k in range(1, top):
        previous, current = current, step(k, x, current, previous)
        out = np.where(degree == k + 1, current, out)
    return out


def _chebyshev(kind):
    first = {"t": lambda x: x, "u": lambda x: 2 * x, "v": lambda x: 2 * x - 1, "w": lambda x: 2 * x + 1}[kind]
    trig = {"t": lambda th, n: np.cos(n * th),
            "u": lambda th, n: np.sin((n + 1) * th) / np.sin(th),
            "v": lambda th, n: np.cos((n + 0.5) * th) / np.cos(th / 2),
            "w": lambda th, n: np.sin((n + 0.5) * th) / np.sin(th / 2)}[kind]

    def values(x, degree):
        out = _recurrence(x, np.where((np.abs(x) < 1) & (degree > 6), 0, degree), first,
                          lambda k, x, p, q: 2 * x * p - q)
        inside = (np.abs(x) < 1) & (degree > 6)
        theta = np.arccos(np.clip(x, -1, 1))
        return np.where(inside, trig(theta, degree), out)

    return values


_POLYNOMIALS = {
    "chebyshev_polynomial_t": _chebyshev("t"), "chebyshev_polynomial_u": _chebyshev("u"),
    "chebyshev_polynomial_v": _chebyshev("v"), "chebyshev_polynomial_w": _chebyshev("w"),
    "hermite_polynomial_h": lambda x, n: _recurrence(x, n, lambda x: 2 * x, lambda k, x, p, q: 2 * x * p - 2 * k * q),
    "hermite_polynomial_he": lambda x, n: _recurrence(x, n, lambda x: x, lambda k, x, p, q: x * p - k * q),
    "laguerre_polynomial_l": lambda x, n: _recurrence(x, n, lambda x: 1 - x,
                                                      lambda k, x, p, q: ((2 * k + 1 - x) * p - k * q) / (k + 1)),
    "legendre_polynomial_p": lambda x, n: _recurrence(x, n, lambda x: x,
                                                      lambda k, x, p, q: ((2 * k + 1) * x * p - k * q) / (k + 1)),
}


def _polynomial(name, values, shifted=False):
    def kernel(x, n):
        degree = np.trunc(n)
        degree = np.where(np.isfinite(degree), degree, -1).astype(np.int64)
        return np.where(degree < 0, 0.0, values(2 * x - 1 if shifted else x, np.maximum(degree, 0)))

    def polynomial(input, n, *, out=None):
        return _evaluate(name, kernel, input, n, out=out)

    polynomial.__name__ = polynomial.__qualname__ = name
    polynomial.__doc__ = f"``{name}(input, n)``: the polynomial of degree ``n`` (truncated; negative: 0) at ``input``."
    return polynomial


chebyshev_polynomial_t = _polynomial("chebyshev_polynomial_t", _POLYNOMIALS["chebyshev_polynomial_t"])
chebyshev_polynomial_u = _polynomial("chebyshev_polynomial_u", _POLYNOMIALS["chebyshev_polynomial_u"])
chebyshev_polynomial_v = _polynomial("chebyshev_polynomial_v", _POLYNOMIALS["chebyshev_polynomial_v"])
chebyshev_polynomial_w = _polynomial("chebyshev_polynomial_w", _POLYNOMIALS["chebyshev_polynomial_w"])
hermite_polynomial_h = _polynomial("hermite_polynomial_h", _POLYNOMIALS["hermite_polynomial_h"])
hermite_polynomial_he = _polynomial("hermite_polynomial_he", _POLYNOMIALS["hermite_polynomial_he"])
laguerre_polynomial_l = _polynomial("laguerre_polynomial_l", _POLYNOMIALS["laguerre_polynomial_l"])
legendre_polynomial_p = _polynomial("legendre_polynomial_p", _POLYNOMIALS["legendre_polynomial_p"])
shifted_chebyshev_polynomial_t = _polynomial("shifted_chebyshev_polynomial_t",
                                               _POLYNOMIALS["chebyshev_polynomial_t"], shifted=True)
shifted_chebyshev_polynomial_u = _polynomial("shifted_chebyshev_polynomial_u",
                                               _POLYNOMIALS["chebyshev_polynomial_u"], shifted=True)
shifted_chebyshev_polynomial_v = _polynomial("shifted_chebyshev_polynomial_v",
                                               _POLYNOMIALS["chebyshev_polynomial_v"], shifted=True)
shifted_chebyshev_polynomial_w = _polynomial("shifted_chebyshev_polynomial_w",
                                               _POLYNOMIALS["chebyshev_polynomial_w"], shifted=True)
