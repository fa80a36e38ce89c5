"""Activation functions: rectifiers, exponential units, smooth gates, shrinkage and the softmax family.

Each function runs engine ops (``Elu``, ``LeakyRelu``, ``Gelu``, ``Softplus``, ``Where``...),
so autograd and graph tracing follow; where torch's definition differs from an ONNX op at
NaN or at a kink (``hardtanh``, ``threshold``, ``hardshrink``), the function is written
with comparisons and ``Where`` in torch's own form, so values and gradients agree there too.
``inplace=True`` and the ``*_`` variants write the result into the input like torch's
in-place ops (same autograd and version-counter rules).
"""

import ml_dtypes
import numpy as np

from vfw.core import dtypes as dt
from vfw.core.graph.trace import _active as _tracing
from vfw.core.tensor import Tensor as CoreTensor
from vfw.frontends.torch import _pointwise
from vfw.frontends.torch._dispatch import inplace, scalar_array, type_name
from vfw.frontends.torch._grad_fn_names import names_grad_fn
from vfw.frontends.torch._pointwise import _op, _run, not_implemented, tensor_arg
from vfw.frontends.torch._random_draws import F64, rng_of, unit
from vfw.frontends.torch._traced import replayed
from vfw.frontends.torch.nn.functional import _activation_softmax
from vfw.frontends.torch.nn.functional._activation_softmax import (  # noqa: F401  (public here)
    glu,
    gumbel_softmax,
    log_softmax,
    softmax,
    softmin,
)

__all__ = ["threshold", "threshold_", "relu", "relu_", "relu6", "hardtanh", "hardtanh_", "elu", "elu_", "selu",
           "selu_", "celu", "celu_", "leaky_relu", "leaky_relu_", "prelu", "rrelu", "rrelu_", "gelu", "silu", "mish",
           "hardswish", "hardsigmoid", "logsigmoid", "hardshrink", "softshrink", "tanhshrink", "softsign", "softplus",
           "sigmoid", "tanh", *_activation_softmax.__all__]

_FLOATS = dt.FLOATS
_BOOL = np.dtype(np.bool_)
# torch's SELU constants (the ONNX op's defaults are their float32 roundings).
SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946
_NUMBERS = (bool, int, float, np.bool_, np.integer, np.floating)

# Already torch functions: the functional names are the same objects.
relu_ = _pointwise.relu_
sigmoid = _pointwise.sigmoid
tanh = _pointwise.tanh


# -- arguments -----------------------------------------------------------------------------------
def number(value, name, fn, pos):
    """A torch ``Number`` argument as a Python number (one-element tensors too); TypeError otherwise."""
    if isinstance(value, _NUMBERS):
        return value.item() if isinstance(value, np.generic) else value
    if isinstance(value, CoreTensor) and value.array.size == 1:
        return value.array.reshape(()).item()
    raise TypeError(f"{fn}(): argument '{name}' (position {pos}) must be Number, not {type(value).__name__}")


def float_tensor(input, fn, kernel):
    """``input``, a floating tensor; other dtypes raise torch's NotImplementedError naming ``kernel``."""
    x = tensor_arg(input, fn)
    if x.array.dtype not in _FLOATS:
        raise not_implemented(kernel, x.array.dtype)
    return x


def _apply(compute, input, in_place, name, *args):
    """``compute(input, *args)``, written into ``input`` (torch's ``name_``) when ``in_place``."""
    if in_place:
        return inplace(compute, tensor_arg(input, name + "_"), *args, name=name + "_")
    return compute(input, *args)


def _k(value, x):
    """A Python number as a 0-d array of ``x``'s dtype (integers truncate like torch's scalar casts)."""
    return scalar_array(value, x.array.dtype)


# -- rectifiers ----------------------------------------------------------------------------------
def _threshold(input, threshold, value):
    x = tensor_arg(input, "threshold")
    if x.array.dtype == _BOOL:
        raise not_implemented("threshold_cpu", _BOOL)
    # torch's rule ``x <= threshold ? value : x``: NaN stays NaN and keeps its gradient.
    return _run(_op("Where"), _run(_op("LessOrEqual"), x, _k(threshold, x)), _k(value, x), x)


def threshold(input, threshold, value, inplace=False):
    """``value`` where ``input <= threshold``, else ``input`` (integer dtypes too).

    Parameters
    ----------
    input : Tensor
    threshold, value : float
    inplace : bool
        Write the result into ``input``.
    """
    threshold = number(threshold, "threshold", "threshold", 2)
    value = number(value, "value", "threshold", 3)
    return _apply(_threshold, input, inplace, "threshold", threshold, value)


def threshold_(input, threshold, value):
    """In-place :func:`threshold`."""
    return globals()["threshold"](input, threshold, value, inplace=True)


def relu(input, inplace=False):
    """``max(input, 0)`` (integer dtypes kept); ``inplace`` writes into ``input``."""
    return relu_(input) if inplace else _pointwise.relu(input)


def _hardtanh(input, min_val, max_val):
    x = tensor_arg(input, "hardtanh")
    if x.array.dtype == _BOOL:
        raise RuntimeError("Bool inputs not supported for hardtanh")
    lo, hi = _k(min_val, x), _k(max_val, x)
    if not (x.requires_grad or _tracing):  # nothing records: Clip gives the same values in one pass
        return _run(_op("Clip"), x, lo, hi)
    # Two selections rather than Clip: the gradient is 0 at both edges and NaN passes with its gradient, as torch.
    upper = _run(_op("Where"), _run(_op("GreaterOrEqual"), x, hi), hi, x)
    return _run(_op("Where"), _run(_op("LessOrEqual"), x, lo), lo, upper)


@names_grad_fn("HardtanhBackward0")
def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    """``input`` clamped to ``[min_val, max_val]`` (gradient 0 outside the open interval).

    Parameters
    ----------
    input : Tensor
    min_val, max_val : float
        ``min_val`` may not exceed ``max_val`` (ValueError).
    inplace : bool
    """
    min_val = number(min_val, "min_val", "hardtanh", 2)
    max_val = number(max_val, "max_val", "hardtanh", 3)
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    return _apply(_hardtanh, input, inplace, "hardtanh", min_val, max_val)


def hardtanh_(input, min_val=-1.0, max_val=1.0):
    """In-place :func:`hardtanh`."""
    return hardtanh(input, min_val, max_val, inplace=True)


@names_grad_fn("HardtanhBackward0")
def relu6(input, inplace=False):
    """``min(max(input, 0), 6)``: :func:`hardtanh` on ``[0, 6]``."""
    return hardtanh(input, 0.0, 6.0, inplace)


def _leaky_relu(input, negative_slope):
    x = float_tensor(input, "leaky_relu", "leaky_relu_cpu")
    return _run(_op("LeakyRelu", alpha=float(negative_slope)), x)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    """``input`` where positive, else ``negative_slope * input``."""
    negative_slope = number(negative_slope, "negative_slope", "leaky_relu", 2)
    return _apply(_leaky_relu, input, inplace, "leaky_relu", negative_slope)


def leaky_relu_(input, negative_slope=0.01):
    """In-place :func:`leaky_relu`."""
    return leaky_relu(input, negative_slope, inplace=True)


def prelu(input, weight):
    """``input`` where positive, else ``weight * input``, one learned slope per channel (dim 1).

    Parameters
    ----------
    input : Tensor
        ``(N, C, *)``, ``(C,)`` or a scalar (one slope only).
    weight : Tensor
        One element, or ``C`` (0-d or 1-D).
    """
    x = tensor_arg(input, "prelu")
    w = tensor_arg(weight, "prelu", "weight", 2)
    xa, wa = x.array, w.array
    if wa.ndim > 1:
        raise RuntimeError(f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = {wa.ndim}")
    if wa.size != 1:
        if xa.ndim == 0:
            raise RuntimeError("Not allow zero-dim input tensor.")
        channels = xa.shape[1] if xa.ndim >= 2 else 1
        if channels != wa.size:
            raise RuntimeError(f"Mismatch of parameter numbers and input channel size. Found parameter numbers = "
                               f"{wa.size} and channel size = {channels}.")
    if xa.dtype != wa.dtype:
        raise RuntimeError(f"prelu: Type promoting not supported. Got {type_name(xa.dtype)} and {type_name(wa.dtype)}")
    float_tensor(x, "prelu", "prelu_cpu")
    # One slope broadcasts as a scalar; C slopes line up with dim 1.
    shape = () if wa.size == 1 else (wa.size,) + (1,) * (xa.ndim - 2)
    slope = w if wa.shape == shape else _run(_op("Reshape"), w, np.asarray(shape, np.int64))
    return _run(_op("PRelu"), x, slope)


def _rrelu(input, lower, upper, training, generator=None):
    if lower > upper:
        raise RuntimeError("Lower bound should be less than or equal to the upper bound")
    if not training:
        return _leaky_relu(input, (lower + upper) / 2)
    x = float_tensor(input, "rrelu", "rrelu_with_noise_out_cpu")
    gen = rng_of(generator, "rrelu")

    def noise(a):  # replayed: a graph draws the slopes again on every run
        # torch draws one double uniform per element <= 0, in C order, from the generator.
        negative = a <= 0
        factors = np.ones(a.shape, a.dtype)
        factors[negative] = unit(gen, (int(np.count_nonzero(negative)),), F64) * (upper - lower) + lower
        return factors

    return _run(_op("Mul"), x, replayed(noise, x))


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    """Randomized leaky ReLU.

    In training each element ``<= 0`` is scaled by a slope drawn from ``U(lower, upper)`` (with
    the default generator, as torch draws them); otherwise the slope is ``(lower + upper) / 2``.
    """
    lower = number(lower, "lower", "rrelu", 2)
    upper = number(upper, "upper", "rrelu", 3)
    return _apply(_rrelu, input, inplace, "rrelu", lower, upper, training)


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    """In-place :func:`rrelu` (slopes drawn from ``generator`` when given)."""
    lower = number(lower, "lower", "rrelu_", 2)
    upper = number(upper, "upper", "rrelu_", 3)
    return _apply(_rrelu, input, True, "rrelu", lower, upper, training, generator)


# -- exponential units ---------------------------------------------------------------------------
def _elu(input, alpha):
    return _run(_op("Elu", alpha=float(alpha)), float_tensor(input, "elu", "elu_cpu"))


def elu(input, alpha=1.0, inplace=False):
    """``input`` where positive, else ``alpha * (exp(input) - 1)``."""
    return _apply(_elu, input, inplace, "elu", number(alpha, "alpha", "elu", 2))


def elu_(input, alpha=1.0):
    """In-place :func:`elu`."""
    return elu(input, alpha, inplace=True)


def _selu(input):
    return _run(_op("Selu", alpha=SELU_ALPHA, gamma=SELU_SCALE), float_tensor(input, "selu", "elu_cpu"))


def selu(input, inplace=False):
    """``scale * elu(input, alpha)`` with torch's self-normalizing constants."""
    return _apply(_selu, input, inplace, "selu")


def selu_(input):
    """In-place :func:`selu`."""
    return selu(input, inplace=True)


def _celu(input, alpha):
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")
    return _run(_op("Celu", alpha=float(alpha)), float_tensor(input, "celu", "elu_cpu"))


def celu(input, alpha=1.0, inplace=False):
    """``max(0, input) + min(0, alpha * (exp(input / alpha) - 1))`` (``alpha`` non-zero)."""
    return _apply(_celu, input, inplace, "celu", number(alpha, "alpha", "celu", 2))


def celu_(input, alpha=1.0):
    """In-place :func:`celu`."""
    return celu(input, alpha, inplace=True)


# -- smooth gates --------------------------------------------------------------------------------
def gelu(input, *, approximate="none"):
    """``input * Phi(input)`` (Phi the standard normal CDF), or its tanh approximation.

    Parameters
    ----------
    input : Tensor
    approximate : str
        ``'none'`` or ``'tanh'``.
    """
    if not isinstance(approximate, str):
        raise TypeError(f"gelu(): argument 'approximate' must be str, not {type(approximate).__name__}")
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    return _run(_op("Gelu", approximate=approximate), float_tensor(input, "gelu", "GeluKernelImpl"))


def _silu(input):
    x = float_tensor(input, "silu", "silu_cpu")
    return _pointwise.in_opmath(x, lambda w: _run(_op("Mul"), w, _run(_op("Sigmoid"), w)))


@names_grad_fn("SiluBackward0")
def silu(input, inplace=False):
    """``input * sigmoid(input)`` (swish)."""
    return _apply(_silu, input, inplace, "silu")


def _single_op(fn, kernel, op_type, **attrs):
    """The compute step of an activation that is one engine op on float tensors."""

    def compute(input):
        return _run(_op(op_type, **attrs), float_tensor(input, fn, kernel))

    return compute


_mish = _single_op("mish", "mish_cpu", "Mish")
_hardswish = _single_op("hardswish", "hardswish_cpu", "HardSwish")
_hardsigmoid = _single_op("hardsigmoid", "hardsigmoid_cpu", "HardSigmoid", alpha=1.0 / 6, beta=0.5)


def mish(input, inplace=False):
    """``input * tanh(softplus(input))``."""
    return _apply(_mish, input, inplace, "mish")


def hardswish(input, inplace=False):
    """``input * relu6(input + 3) / 6``."""
    return _apply(_hardswish, input, inplace, "hardswish")


def hardsigmoid(input, inplace=False):
    """``relu6(input + 3) / 6`` (gradient ``1/6`` strictly inside ``(-3, 3)``)."""
    return _apply(_hardsigmoid, input, inplace, "hardsigmoid")


@names_grad_fn("SoftplusBackward0")
def softplus(input, beta=1.0, threshold=20.0):
    """``log(1 + exp(beta * input)) / beta``, and ``input`` itself where ``beta * input > threshold``."""
    beta = number(beta, "beta", "softplus", 2)
    threshold = number(threshold, "threshold", "softplus", 3)
    x = float_tensor(input, "softplus", "softplus_cpu")
    scaled = x if beta == 1 else _run(_op("Mul"), x, _k(beta, x))
    smooth = _run(_op("Softplus"), scaled)
    if beta != 1:
        smooth = _run(_op("Div"), smooth, _k(beta, x))
    return _run(_op("Where"), _run(_op("Greater"), scaled, _k(threshold, x)), x, smooth)


def logsigmoid(input):
    """``log(sigmoid(input))``, computed as ``-softplus(-input)`` (stable for large ``|input|``)."""
    x = float_tensor(input, "logsigmoid", "log_sigmoid_cpu")
    return _run(_op("Neg"), _run(_op("Softplus"), _run(_op("Neg"), x)))


def softsign(input):
    """``input / (1 + |input|)`` (integer inputs give the default float dtype)."""
    if tensor_arg(input, "softsign").array.dtype == _BOOL:  # torch's formula starts with abs()
        raise not_implemented("abs_cpu", _BOOL)
    return _run(_op("Softsign"), _pointwise._floating(input, "softsign"))


def tanhshrink(input):
    """``input - tanh(input)`` (integer inputs give the default float dtype)."""
    if tensor_arg(input, "tanhshrink").array.dtype == _BOOL:  # torch's formula subtracts from the input
        raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to "
                           "invert a mask, use the `~` or `logical_not()` operator instead.")
    x = _pointwise._floating(input, "tanhshrink")
    return _run(_op("Sub"), x, _run(_op("Tanh"), x))


# -- shrinkage -----------------------------------------------------------------------------------
def hardshrink(input, lambd=0.5):
    """``input`` where ``|input| > lambd``, else 0 (NaN passes, as torch)."""
    lambd = number(lambd, "lambd", "hardshrink", 2)
    x = float_tensor(input, "hardshrink", "hardshrink_cpu")
    inside = _run(_op("LessOrEqual"), _run(_op("Abs"), x), _k(lambd, x))
    return _run(_op("Where"), inside, _k(0, x), x)


def softshrink(input, lambd=0.5):
    """``input - lambd`` above ``lambd``, ``input + lambd`` below ``-lambd``, else 0 (``lambd >= 0``)."""
    lambd = number(lambd, "lambd", "softshrink", 2)
    x = float_tensor(input, "softshrink", "softshrink_check")
    d = x.array.dtype
    top = float(ml_dtypes.finfo(d).max)
    if not 0 <= lambd <= top:
        raise RuntimeError(f"lambda must be in range [0, {top:g}] for input dtype {type_name(d)}, but found {lambd:g}")
    # x - clamp(x, -lambd, lambd): exact at both sides, 0 in between, and clamp's inclusive gradient
    # leaves 0 at the edges (torch's rule); NaN stays NaN.
    return _run(_op("Sub"), x, _run(_op("Clip"), x, _k(-lambd, x), _k(lambd, x)))

