"""Regularized incomplete gamma functions ``P(a, x)`` (``torch.special.gammainc``, ``torch.igamma``) and
``Q(a, x) = 1 - P(a, x)`` (``gammaincc``, ``igammac``).

Thin adapters of the engine ops ``Igamma``/``Igammac`` (``vfw/core/ops/special_gamma.py``), with torch's
dtype rules; differentiable with respect to ``x`` only: torch has no derivative with respect to ``a``,
so backward through ``a`` raises NotImplementedError as torch's does (:func:`no_derivative`).
"""

from vfw.frontends.torch import _dispatch, _dtype
from vfw.frontends.torch._linalg import run
from vfw.frontends.torch._pointwise import _op, tensor_arg
from vfw.frontends.torch.autograd.function import Function

__all__ = ["igamma", "igammac"]
SPECIAL = ["gammainc", "gammaincc"]


class _NoDerivative(Function):
    """The identity, whose backward raises torch's error for a derivative torch does not implement."""

    @staticmethod
    def forward(ctx, x, what):
        ctx.what = what
        return x.clone()

    @staticmethod
    def backward(ctx, grad):
        raise NotImplementedError(f"the derivative for '{ctx.what}' is not implemented.")


def no_derivative(x, what):
    """``x``, through an identity whose backward raises ``the derivative for '<what>' is not implemented.``
    (applied to the result of an op when an input torch cannot differentiate requires grad)."""
    return _NoDerivative.apply(x, what)


def _incomplete(name, input, other, op_type):
    tensor_arg(input, name)
    tensor_arg(other, name, "other", 2)
    np_dtype = _dtype.promote_types(input.array.dtype, other.array.dtype)
    if not _dtype.from_numpy_dtype(np_dtype).is_floating_point:
        raise NotImplementedError(f"\"{name}_cpu\" not implemented for '{_dispatch.type_name(np_dtype)}'")
    a, x = _dispatch.cast(input, np_dtype), _dispatch.cast(other, np_dtype)
    result = run(_op(op_type), a, x)
    return no_derivative(result, f"{name}: input") if a.requires_grad else result


def igamma(input, other, *, out=None):
    """Regularized lower incomplete gamma ``P(input, other)`` (``input`` = a > 0, ``other`` = x >= 0; NaN
    elsewhere)."""
    result = _incomplete("igamma", input, other, "Igamma")
    return result if out is None else _dispatch.finish(result, out, "igamma")


def igammac(input, other, *, out=None):
    """Regularized upper incomplete gamma ``Q(input, other) = 1 - P``."""
    result = _incomplete("igammac", input, other, "Igammac")
    return result if out is None else _dispatch.finish(result, out, "igammac")


gammainc, gammaincc = igamma, igammac


def _igamma_(self, other):
    return _dispatch.assign(self, igamma(self, other), "igamma_")


def _igammac_(self, other):
    return _dispatch.assign(self, igammac(self, other), "igammac_")


TENSOR_METHODS = {"igamma": igamma, "igammac": igammac, "igamma_": _igamma_, "igammac_": _igammac_}
