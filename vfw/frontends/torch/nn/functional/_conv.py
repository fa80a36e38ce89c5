"""Convolutions: conv1d/2d/3d, conv_transpose1d/2d/3d and conv_tbc over the engine's Conv / ConvTranspose."""

import functools

import numpy as np

from vfw.core.dtypes import FLOATS
from vfw.frontends.torch import _shape
from vfw.frontends.torch._dispatch import call, cast, op, type_name
from vfw.frontends.torch._pointwise import tensor_arg
from vfw.frontends.torch.nn.functional import _conv_layout
from vfw.frontends.torch.nn.functional._spatial import CallCache, batched, ints, operand_key, size_text, unbatched

__all__ = ["conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "conv_tbc"]

_PADDING_STRINGS = ("same", "valid")
_CALLS = CallCache()


def _dims_message(name, value, nd):
    return (f"expected {name} to be a single integer value or a list of {nd} values to match the convolution "
            f"dimensions, but got {name}={list(value) if isinstance(value, (tuple, list)) else value}")


def _geometry_args(nd, fn, **values):
    """Each of ``values`` (stride, padding...) as ``nd`` ints, with torch's errors."""
    return [ints(v, nd, fn, k, _dims_message(k, v, nd)) for k, v in values.items()]


def _operands(fn, nd, input, weight, bias, transposed):
    """Type, rank and dtype checks shared by both directions; returns ``(input, added_batch_dim)``."""
    tensor_arg(input, fn)
    tensor_arg(weight, fn, "weight", 2)
    if bias is not None:
        tensor_arg(bias, fn, "bias", 3)
    x, w = input.array, weight.array
    if w.ndim != nd + 2:
        raise RuntimeError(f"{fn}: weight should have {nd + 2} dimensions, but got weight of size {list(w.shape)}")
    if x.dtype != w.dtype:
        raise RuntimeError(f"expected scalar type {type_name(x.dtype)} but found {type_name(w.dtype)}")
    if bias is not None and bias.array.dtype != x.dtype:
        raise RuntimeError(f"Input type ({type_name(x.dtype).lower()}) and bias type "
                           f"({type_name(bias.array.dtype).lower()}) should be the same")
    if x.dtype not in FLOATS and x.dtype.kind not in "iu":
        raise NotImplementedError(f"\"{fn}\" not implemented for '{type_name(x.dtype)}'")
    what = None
    if transposed:
        what = (f"Expected {nd + 1}D (unbatched) or {nd + 2}D (batched) input to {fn}, but got input of size: "
                f"{list(x.shape)}")
    return batched(input, nd, fn, what)


def _check_positive(stride, dilation, groups):
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(d <= 0 for d in dilation):
        raise RuntimeError(f"dilation should be greater than zero, but got {list(dilation)}")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")


def _check_bias(w, bias, channels):
    if bias is not None and bias.array.shape != (channels,):
        raise RuntimeError(f"Given weight of size {list(w.shape)}, expected bias to be 1-dimensional with {channels} "
                           f"elements, but got bias of size {list(bias.array.shape)} instead")


def _run(bound, x, weight, bias):
    """The engine op on ``x``/``weight``/``bias``; integer tensors compute in float64 (exact below 2**53)."""
    dtype = x.array.dtype
    if dtype in FLOATS:
        return call(bound, x, weight) if bias is None else call(bound, x, weight, bias)
    args = [cast(t, np.float64) for t in (x, weight, bias) if t is not None]
    return cast(call(bound, *args), dtype)


def _groups_arg(groups, fn):
    if isinstance(groups, (bool, np.bool_)) or not isinstance(groups, (int, np.integer)):
        raise TypeError(f"{fn}(): argument 'groups' must be int, not {type(groups).__name__}")
    return int(groups)


def _cached(plan, fn, nd, input, weight, bias, *args):
    """Run ``plan``'s bound op on the operands; ``plan(...) -> (bound op, batch dim added, channels-last runner)``
    runs (and checks the arguments) once per combination of arguments and operand shapes.

    A float convolution whose input or weight is channels-last runs in that layout (the runner, see
    ``_conv_layout``), or, where no runner fits, has its result laid out so, as torch's.
    """
    operands = operand_key(input, weight, bias)
    key = None if operands is None else (fn, operands) + args
    hit = _CALLS.get(key)
    if hit is None:
        hit = _CALLS.put(key, plan(fn, nd, input, weight, bias, *args))
    bound, added, channels_last = hit
    x = _shape.reshape_to(input, (1,) + input.array.shape) if added else input
    layout = _conv_layout.conv_format(nd, x, weight)
    if layout is not None:
        if channels_last is not None:
            return unbatched(channels_last(x, weight, bias), added)
        return unbatched(_conv_layout.laid_out(_run(bound, x, weight, bias), layout), added)
    return unbatched(_run(bound, x, weight, bias), added)


def _convolution(fn, nd, input, weight, bias, stride, padding, dilation, groups):
    """``(bound Conv, batch dim added)`` after torch's checks of a forward convolution's arguments."""
    groups = _groups_arg(groups, fn)
    input, added = _operands(fn, nd, input, weight, bias, False)
    x, w = input.array, weight.array
    stride, dilation = _geometry_args(nd, fn, stride=stride, dilation=dilation)
    _check_positive(stride, dilation, groups)
    if isinstance(padding, str):
        if padding not in _PADDING_STRINGS:
            raise RuntimeError(f"Invalid padding string: '{padding}'")
        if padding == "same" and any(s != 1 for s in stride):
            raise RuntimeError("padding='same' is not supported for strided convolutions")
        total = [0 if padding == "valid" else d * (k - 1) for d, k in zip(dilation, w.shape[2:])]
        begins = [t // 2 for t in total]
        ends = [t - b for t, b in zip(total, begins)]
    else:
        (begins,) = _geometry_args(nd, fn, padding=padding)
        if any(p < 0 for p in begins):
            raise RuntimeError("negative padding is not supported")
        ends = begins
    if w.shape[0] % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, but "
                           f"got weight of size [{list(w.shape)}] instead")
    if x.shape[1] != w.shape[1] * groups:
        raise RuntimeError(f"Given groups={groups}, weight of size {list(w.shape)}, expected input{list(x.shape)} to "
                           f"have {w.shape[1] * groups} channels, but got {x.shape[1]} channels instead")
    _check_bias(w, bias, w.shape[0])
    padded = [n + b + e for n, b, e in zip(x.shape[2:], begins, ends)]
    extent = [d * (k - 1) + 1 for d, k in zip(dilation, w.shape[2:])]
    if any(p < k for p, k in zip(padded, extent)):
        raise RuntimeError(f"Calculated padded input size per channel: {size_text(padded, ' x ')}. Kernel size: "
                           f"{size_text(extent, ' x ')}. Kernel size can't be greater than actual input size")
    pads = tuple(begins) + tuple(ends)
    channels_last = functools.partial(_conv_layout.conv_channels_last,
                                      _conv_layout.conv_op(stride, pads, dilation, groups), nd)
    return op("Conv", strides=stride, pads=pads, dilations=dilation, group=groups), added, channels_last


def _transposed(fn, nd, input, weight, bias, stride, padding, output_padding, groups, dilation):
    """``(bound ConvTranspose, batch dim added)`` after torch's checks of a transposed convolution's arguments."""
    groups = _groups_arg(groups, fn)
    input, added = _operands(fn, nd, input, weight, bias, True)
    x, w = input.array, weight.array
    stride, padding, output_padding, dilation = _geometry_args(
        nd, fn, stride=stride, padding=padding, output_padding=output_padding, dilation=dilation)
    _check_positive(stride, dilation, groups)
    if any(p < 0 for p in padding):
        raise RuntimeError("negative padding is not supported")
    if any(p < 0 for p in output_padding):
        raise RuntimeError("negative output_padding is not supported")
    if any(a >= s and a >= d for a, s, d in zip(output_padding, stride, dilation)):
        raise RuntimeError(f"output padding must be smaller than either stride or dilation, but got "
                           f"output_padding={list(output_padding)} stride={list(stride)} dilation={list(dilation)}")
    if w.shape[0] != x.shape[1]:
        raise RuntimeError(f"Given transposed=1, weight of size {list(w.shape)}, expected input{list(x.shape)} to "
                           f"have {w.shape[0]} channels, but got {x.shape[1]} channels instead")
    if w.shape[0] % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, but "
                           f"got weight of size [{list(w.shape)}] instead")
    _check_bias(w, bias, w.shape[1] * groups)
    out = [(n - 1) * s - 2 * p + d * (k - 1) + a + 1
           for n, s, p, d, k, a in zip(x.shape[2:], stride, padding, dilation, w.shape[2:], output_padding)]
    if any(o <= 0 for o in out):
        raise RuntimeError(f"Given input size per channel: {size_text(x.shape[2:], ' x ')}. Calculated output size "
                           f"per channel: {size_text(out, ' x ')}. Output size is too small")
    channels_last = None
    if all(a < s for a, s in zip(output_padding, stride)):  # else no convolution maps the result back to x's sizes
        channels_last = functools.partial(_conv_layout.conv_transpose_channels_last,
                                          _conv_layout.transposed_op(stride, padding, dilation, groups), nd,
                                          tuple(out), w.shape[1] * groups)
    return op("ConvTranspose", strides=stride, pads=padding * 2, dilations=dilation, group=groups,
              output_padding=output_padding), added, channels_last


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """1-D cross-correlation.

    Parameters
    ----------
    input : Tensor
        ``(N, C_in, L)`` or unbatched ``(C_in, L)``.
    weight : Tensor
        ``(C_out, C_in / groups, kL)``.
    bias : Tensor, optional
        ``(C_out,)``.
    stride, dilation : int or tuple
    padding : int, tuple, 'valid' or 'same'
        Zeros added to both sides ('same' keeps the length; stride must be 1).
    groups : int
        Input channels are split in ``groups`` blocks, each convolved with its own filters.

    Returns
    -------
    Tensor
        ``(N, C_out, L_out)`` (``(C_out, L_out)`` for unbatched input).
    """
    return _cached(_convolution, "conv1d", 1, input, weight, bias, stride, padding, dilation, groups)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """2-D cross-correlation: ``input`` ``(N, C_in, H, W)`` or ``(C_in, H, W)``, ``weight``
    ``(C_out, C_in / groups, kH, kW)``; see :func:`conv1d` for the arguments."""
    return _cached(_convolution, "conv2d", 2, input, weight, bias, stride, padding, dilation, groups)


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """3-D cross-correlation: ``input`` ``(N, C_in, D, H, W)`` or ``(C_in, D, H, W)``, ``weight``
    ``(C_out, C_in / groups, kD, kH, kW)``; see :func:`conv1d` for the arguments."""
    return _cached(_convolution, "conv3d", 3, input, weight, bias, stride, padding, dilation, groups)


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """1-D transposed convolution (the gradient of conv1d with respect to its input).

    Parameters
    ----------
    input : Tensor
        ``(N, C_in, L)`` or unbatched ``(C_in, L)``.
    weight : Tensor
        ``(C_in, C_out / groups, kL)``.
    bias : Tensor, optional
        ``(C_out,)``.
    stride, padding, dilation : int or tuple
        ``padding`` removes ``dilation * (k - 1) - padding`` zeros from both ends of the result.
    output_padding : int or tuple
        Extra length added to one side (smaller than the stride or the dilation).
    groups : int

    Returns
    -------
    Tensor
        ``(N, C_out, (L - 1) * stride - 2 * padding + dilation * (kL - 1) + output_padding + 1)``.
    """
    return _cached(_transposed, "conv_transpose1d", 1, input, weight, bias, stride, padding, output_padding,
                   groups, dilation)


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """2-D transposed convolution; see :func:`conv_transpose1d` (``weight`` ``(C_in, C_out / groups, kH, kW)``)."""
    return _cached(_transposed, "conv_transpose2d", 2, input, weight, bias, stride, padding, output_padding,
                   groups, dilation)


def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """3-D transposed convolution; see :func:`conv_transpose1d` (``weight`` ``(C_in, C_out / groups, kD, kH,
    kW)``)."""
    return _cached(_transposed, "conv_transpose3d", 3, input, weight, bias, stride, padding, output_padding,
                   groups, dilation)


def conv_tbc(input, weight, bias, pad=0):
    """1-D convolution of a time-batch-channel sequence.

    Parameters
    ----------
    input : Tensor
        ``(T, N, C_in)``.
    weight : Tensor
        ``(kT, C_in, C_out)``.
    bias : Tensor
        ``(C_out,)``.
    pad : int
        Zeros added at both ends of the time axis.

    Returns
    -------
    Tensor
        ``(T + 2 * pad - kT + 1, N, C_out)``.
    """
    for t, arg, pos in ((input, "self", 1), (weight, "weight", 2), (bias, "bias", 3)):
        tensor_arg(t, "conv_tbc", arg, pos)
    if input.array.ndim != 3:
        raise RuntimeError(f"conv_tbc: input must have 3 dims (time, batch, channel), got {input.array.ndim}")
    if weight.array.ndim != 3:
        raise RuntimeError(f"conv_tbc: weight must have 3 dims (kernel, in_channels, out_channels), got "
                           f"{weight.array.ndim}")
    if bias.array.ndim != 1:
        raise RuntimeError(f"conv_tbc: bias must have 1 dim, got {bias.array.ndim}")
    if input.array.shape[2] != weight.array.shape[1]:
        raise RuntimeError(f"conv_tbc: input channels {input.array.shape[2]} do not match weight's "
                           f"{weight.array.shape[1]} (weight of size {list(weight.array.shape)})")
    if bias.array.shape[0] != weight.array.shape[2]:
        raise RuntimeError(f"conv_tbc: bias of size {list(bias.array.shape)} does not match the {weight.array.shape[2]}"
                           f" output channels")
    x = _shape.permuted(input, (1, 2, 0))
    w = _shape.permuted(weight, (2, 1, 0))
    y = conv1d(x, w, bias, padding=pad)
    return _shape.permuted(y, (2, 0, 1))
