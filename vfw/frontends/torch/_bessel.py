"""Modified Bessel functions of the first and second kind, orders 0 and 1 (numpy only):
``torch.special.i0e / i1 / i1e / modified_bessel_i0 / i1 / k0 / k1 / scaled_modified_bessel_k0 / k1``.

``e^-|x| I_n(|x|)``: the power series up to |x| = 30, the asymptotic expansion
``(2 pi x)^-1/2 sum_k (-1)^k a_k(n) / x^k`` beyond (both exact to float64 round-off there).
``e^x K_n(x)``: the series with logarithms up to x = 1; up to x = 50 the integral
``int_0^inf exp(-x (cosh t - 1)) cosh(n t) dt`` by the trapezoidal rule (which converges
exponentially for such integrands); beyond, the asymptotic expansion with all signs positive.
``i0e``, ``i1`` and ``i1e`` are differentiable as in torch; the ``modified_bessel_*`` functions
are not (torch has no derivative for them either).
"""

import numpy as np

from vfw.frontends.torch import _dispatch, _dtype
from vfw.frontends.torch._pointwise import tensor_arg
from vfw.frontends.torch._special_functions import i0
from vfw.frontends.torch.autograd.function import Function

__all__ = ["i0e", "i1", "i1e", "modified_bessel_i0", "modified_bessel_i1", "modified_bessel_k0",
           "modified_bessel_k1", "scaled_modified_bessel_k0", "scaled_modified_bessel_k1"]

_SERIES_LIMIT = 30.0
_TRAPEZOID_LIMIT = 50.0
_EULER_GAMMA = 0.5772156649015329


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
    """``e^-|x| I_order(x)`` (order 0 or 1) of a float64 array."""
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


def _k_series(x, order):
    """``K_order(x)`` for small x > 0 from the series with logarithms (Abramowitz & Stegun 9.6.13, 9.6.11)."""
    q = x * x / 4
    log_half = np.log(x / 2)
    if order == 0:
        term, harmonic, total = np.ones_like(x), 0.0, np.zeros_like(x)
        for k in range(1, 30):
            term = term * q / (k * k)
            harmonic += 1.0 / k
            total = total + term * harmonic
        return -(log_half + _EULER_GAMMA) * scaled_i(x, 0) * np.exp(x) + total
    # K1(x) = 1/x + ln(x/2) I1(x) - (x/4) sum_k (psi(k+1) + psi(k+2)) q^k / (k! (k+1)!)
    term = np.ones_like(x)
    psi_k1, psi_k2 = -_EULER_GAMMA, 1.0 - _EULER_GAMMA
    total = term * (psi_k1 + psi_k2)
    for k in range(1, 30):
        term = term * q / (k * (k + 1))
        psi_k1 += 1.0 / k
        psi_k2 += 1.0 / (k + 1)
        total = total + term * (psi_k1 + psi_k2)
    return 1 / x + log_half * scaled_i(x, 1) * np.exp(x) - x / 4 * total


def _k_trapezoid(x, order):
    """``e^x K_order(x)`` by the trapezoidal rule on ``int_0^T exp(-x (cosh t - 1)) cosh(order t) dt``."""
    step = 0.02
    end = np.arccosh(1 + 750.0 / x.min()) if x.size else 0.0
    t = np.arange(0.0, end + step, step)
    values = np.exp(-np.multiply.outer(x, np.cosh(t) - 1)) * np.cosh(order * t)
    return step * (values.sum(axis=-1) - values[..., 0] / 2)


def scaled_k(x, order):
    """``e^x K_order(x)`` of a float64 array (inf at 0, NaN below)."""
    out = np.full_like(x, np.nan)
    out[x == 0] = np.inf
    pieces = ((0.0, 1.0, lambda v: _k_series(v, order) * np.exp(v)),
              (1.0, _TRAPEZOID_LIMIT, lambda v: _k_trapezoid(v, order)),
              (_TRAPEZOID_LIMIT, np.inf, lambda v: _asymptotic(v, order, False) * np.sqrt(np.pi / (2 * v))))
    for lo, hi, kernel in pieces:
        chosen = (x > lo) & (x <= hi)
        if chosen.any():
            out[chosen] = kernel(x[chosen])
    return out


def _compute(name, input, kernel):
    """``kernel`` (float64 in, float64 out) on ``input``'s values, in ``input``'s float dtype (integers: the
    default dtype)."""
    tensor_arg(input, name)
    np_dtype = input.array.dtype
    if not _dtype.from_numpy_dtype(np_dtype).is_floating_point:
        np_dtype = _dtype.default_float_np()
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        values = kernel(np.asarray(input.array, np.float64))
    return _dispatch.wrap(values.astype(np_dtype))


def _exp_abs(x):
    with np.errstate(over="ignore"):
        return np.exp(np.abs(x))


def _i1_values(x):
    return scaled_i(x, 1) * _exp_abs(x)


class _Differentiable(Function):
    """A Bessel function whose derivative torch defines (``derivative(x, y)`` in vfw.torch operations)."""

    kernel = None
    derivative = None

    @classmethod
    def forward(cls, ctx, x):
        y = _compute(cls.name, x, cls.kernel)
        ctx.save_for_backward(x, y)
        return y

    @classmethod
    def backward(cls, ctx, grad):
        x, y = ctx.saved_tensors
        return grad * cls.derivative(x, y)


def _safe_ratio(y, x):
    """``y / x`` with the limit 1/2 at x = 0 (``I_1(x) / x`` and ``i1e(x) / x`` both tend to 1/2)."""
    zero = x == 0
    return (y / x.masked_fill(zero, 1)).masked_fill(zero, 0.5)


class _I0e(_Differentiable):
    name = "special_i0e"
    kernel = staticmethod(lambda x: scaled_i(x, 0))
    derivative = staticmethod(lambda x, y: i1e(x) - x.sign() * y)


class _I1(_Differentiable):
    name = "special_i1"
    kernel = staticmethod(_i1_values)
    derivative = staticmethod(lambda x, y: i0(x) - _safe_ratio(y, x))


class _I1e(_Differentiable):
    name = "special_i1e"
    kernel = staticmethod(lambda x: scaled_i(x, 1))
    derivative = staticmethod(lambda x, y: i0e(x) - y * x.sign() - _safe_ratio(y, x))


def _differentiable(function, input):
    tensor_arg(input, function.name)
    if input.requires_grad and input.array.dtype.kind == "f":
        return function.apply(input)
    return _compute(function.name, input, function.kernel)


def i0e(input, *, out=None):
    """Exponentially scaled modified Bessel function of the first kind, order 0: ``e^-|x| I_0(x)``."""
    return _finish(_differentiable(_I0e, input), out)


def i1(input, *, out=None):
    """Modified Bessel function of the first kind, order 1."""
    return _finish(_differentiable(_I1, input), out)


def i1e(input, *, out=None):
    """Exponentially scaled modified Bessel function of the first kind, order 1: ``e^-|x| I_1(x)``."""
    return _finish(_differentiable(_I1e, input), out)


def _plain(name, input, kernel, out):
    """``kernel`` on ``input`` without autograd (torch defines no derivative), float32/float64 only."""
    return _finish(_compute(name, _full_precision(name, input), kernel), out)


def modified_bessel_i0(input, *, out=None):
    """``I_0(x)`` (not differentiable, as in torch)."""
    return _plain("modified_bessel_i0", input, lambda x: scaled_i(x, 0) * _exp_abs(x), out)


def modified_bessel_i1(input, *, out=None):
    """``I_1(x)`` (not differentiable, as in torch)."""
    return _plain("modified_bessel_i1", input, _i1_values, out)


def modified_bessel_k0(input, *, out=None):
    """``K_0(x)``: inf at 0, NaN for negative x (not differentiable, as in torch)."""
    return _plain("modified_bessel_k0", input, lambda x: scaled_k(x, 0) * np.exp(-x), out)


def modified_bessel_k1(input, *, out=None):
    """``K_1(x)``: inf at 0, NaN for negative x (not differentiable, as in torch)."""
    return _plain("modified_bessel_k1", input, lambda x: scaled_k(x, 1) * np.exp(-x), out)


def scaled_modified_bessel_k0(input, *, out=None):
    """``e^x K_0(x)`` (not differentiable, as in torch)."""
    return _plain("scaled_modified_bessel_k0", input, lambda x: scaled_k(x, 0), out)


def scaled_modified_bessel_k1(input, *, out=None):
    """``e^x K_1(x)`` (not differentiable, as in torch)."""
    return _plain("scaled_modified_bessel_k1", input, lambda x: scaled_k(x, 1), out)


def _full_precision(name, input):
    """torch has these kernels for float32/float64 (and integers) only."""
    tensor_arg(input, name)
    if input.array.dtype.kind == "f" and input.array.dtype.itemsize < 4 or input.array.dtype.name == "bfloat16":
        raise NotImplementedError(f"\"{name}_cpu\" not implemented for '{_dispatch.type_name(input.array.dtype)}'")
    return input


def _finish(result, out):
    return result if out is None else _dispatch.finish(result, out, "special")

