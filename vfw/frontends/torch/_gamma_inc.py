"""Regularized incomplete gamma functions ``P(a, x)`` (``torch.special.gammainc``, ``torch.igamma``) and
``Q(a, x) = 1 - P(a, x)`` (``gammaincc``, ``igammac``), numpy only.

Below ``x = a + 1`` the series ``P = x^a e^-x / Gamma(a + 1) sum_n x^n / ((a + 1)...(a + n))``
converges fast; above, the continued fraction of ``Q`` (modified Lentz). Both are evaluated on
whole arrays with a fixed iteration budget. Differentiable with respect to ``x``
(``dP/dx = x^(a-1) e^-x / Gamma(a)``); torch has no derivative with respect to ``a`` either.
"""

import numpy as np

from vfw.core.ops.special_math import _lgamma
from vfw.frontends.torch import _dispatch, _dtype
from vfw.frontends.torch._comparison import where
from vfw.frontends.torch._pointwise import tensor_arg
from vfw.frontends.torch.autograd.function import Function

__all__ = ["igamma", "igammac"]
SPECIAL = ["gammainc", "gammaincc"]

_ITERATIONS = 500
_TINY = 1e-300


def _lower_series(a, x):
    term = 1.0 / a
    total = term
    for n in range(1, _ITERATIONS):
        term = term * x / (a + n)
        total = total + term
    return total * np.exp(a * np.log(x) - x - _lgamma(a))


def _upper_fraction(a, x):
    b = x + 1 - a
    c = np.full_like(x, 1 / _TINY)
    d = 1 / np.where(b == 0, _TINY, b)
    h = d
    for i in range(1, _ITERATIONS):
        an = -i * (i - a)
        b = b + 2
        d = an * d + b
        d = 1 / np.where(np.abs(d) < _TINY, _TINY, d)
        c = b + an / c
        c = np.where(np.abs(c) < _TINY, _TINY, c)
        h = h * d * c
    return np.exp(a * np.log(x) - x - _lgamma(a)) * h


def regularized_lower(a, x):
    """``P(a, x)`` of float64 arrays (broadcast), with torch's values at the edges."""
    a, x = np.broadcast_arrays(a, x)
    out = np.full(a.shape, np.nan)
    valid = (a >= 0) & (x >= 0) & ~np.isnan(a) & ~np.isnan(x)
    out[valid & (a == 0) & (x > 0)] = 1.0
    out[valid & (x == 0) & (a > 0)] = 0.0
    out[valid & np.isinf(x) & (a > 0)] = 1.0
    general = valid & (a > 0) & (x > 0) & np.isfinite(x)
    series = general & (x < a + 1)
    fraction = general & ~series
    with np.errstate(all="ignore"):
        out[series] = _lower_series(a[series], x[series])
        out[fraction] = 1 - _upper_fraction(a[fraction], x[fraction])
    return out


def regularized_upper(a, x):
    """``Q(a, x)``, from the continued fraction where ``P`` is close to 1 (no cancellation)."""
    a, x = np.broadcast_arrays(a, x)
    out = np.asarray(1 - regularized_lower(a, x))
    fraction = (a > 0) & np.isfinite(x) & (x >= a + 1)
    with np.errstate(all="ignore"):
        out[fraction] = _upper_fraction(a[fraction], x[fraction])
    return out


def _density(a, x):
    """``x^(a-1) e^-x / Gamma(a)``: the derivative of ``P`` in ``x``."""
    return (x.log() * (a - 1) - x - a.lgamma()).exp()


class _Incomplete(Function):
    @staticmethod
    def forward(ctx, a, x, upper, np_dtype):
        ctx.save_for_backward(a, x)
        ctx.upper = upper
        kernel = regularized_upper if upper else regularized_lower
        return _dispatch.wrap(kernel(a.array.astype(np.float64), x.array.astype(np.float64)).astype(np_dtype))

    @staticmethod
    def backward(ctx, grad):
        a, x = ctx.saved_tensors
        if ctx.needs_input_grad[0]:
            raise NotImplementedError(f"the derivative for '{'igammac' if ctx.upper else 'igamma'}: input' is not "
                                      "implemented.")
        density = where(x > 0, _density(a.to(grad.dtype), x.to(grad.dtype)), grad.new_zeros(()))
        return None, grad * (-density if ctx.upper else density), None, None


def _incomplete(name, input, other, upper):
    tensor_arg(input, name)
    tensor_arg(other, name, "other", 2)
    np_dtype = _dtype.promote_types(input.array.dtype, other.array.dtype)
    torch_dtype = _dtype.from_numpy_dtype(np_dtype)
    if not torch_dtype.is_floating_point:
        raise NotImplementedError(f"\"{name}_cpu\" not implemented for '{_dispatch.type_name(np_dtype)}'")
    a, x = input.to(torch_dtype), other.to(torch_dtype)
    return _Incomplete.apply(a, x, upper, np_dtype)


def igamma(input, other, *, out=None):
    """Regularized lower incomplete gamma ``P(input, other)`` (``input`` = a > 0, ``other`` = x >= 0; NaN
    elsewhere)."""
    result = _incomplete("igamma", input, other, False)
    return result if out is None else _dispatch.finish(result, out, "igamma")


def igammac(input, other, *, out=None):
    """Regularized upper incomplete gamma ``Q(input, other) = 1 - P``."""
    result = _incomplete("igammac", input, other, True)
    return result if out is None else _dispatch.finish(result, out, "igammac")


gammainc, gammaincc = igamma, igammac


def _igamma_(self, other):
    return _dispatch.assign(self, igamma(self, other), "igamma_")


def _igammac_(self, other):
    return _dispatch.assign(self, igammac(self, other), "igammac_")


TENSOR_METHODS = {"igamma": igamma, "igammac": igammac, "igamma_": _igamma_, "igammac_": _igammac_}
