"""Channels-last convolutions and layers that keep a channels-last input's layout, as torch 2.13 does on the CPU.

torch runs a 2-d (3-d) convolution in ``channels_last`` (``channels_last_3d``) when its input or its weight is laid
out so (``suggest_memory_format``), and returns a result in that layout.  vfw then runs the engine's
ChannelsLastConv on the input's memory as it is (an NHWC view: no copy) with the filter viewed as HWIO, and returns
the NHWC result viewed as NCHW: the result is channels-last without copies, and this layout is also the faster one
for numpy's GEMMs (see ``vfw/onnx_io/_import_layout.py``).  Pooling, batch norm and interpolation of a
channels-last input return channels-last results in torch too: :func:`keep_layout` lays their results out so.
"""

import numpy as np

from vfw.core.dtypes import FLOATS
from vfw.frontends.torch import _config, _memory_layout, _shape
from vfw.frontends.torch._dispatch import call, op
from vfw.frontends.torch._grad_fn_names import names_grad_fn

_FORMATS = {2: "channels_last", 3: "channels_last_3d"}  # by spatial rank
_RANKS = {name: nd + 2 for nd, name in _FORMATS.items()}


def channels_last_format(nd, *tensors):
    """The channels-last format name for ``nd`` spatial dims when one of the (batched) ``tensors`` suggests it
    (torch's CPU convolutions follow the input's or the weight's layout), else None."""
    name = _FORMATS.get(nd)
    if name is None:
        return None
    return name if any(_memory_layout.suggested_format(t.array) == name for t in tensors) else None


def conv_format(nd, x, weight):
    """The channels-last format name in which torch 2.13's CPU ``conv{nd}d`` (or its transpose) of the batched ``x``
    by ``weight`` runs and returns its result, or None: for float inputs when either operand suggests it; in 3-d only
    for the dtypes its oneDNN path takes (float64 3-d convolutions run in, and return, C order)."""
    dtype = x.array.dtype
    if dtype not in FLOATS or nd == 3 and dtype == np.float64:
        return None
    return channels_last_format(nd, x, weight)


def _to_channels_last(nd):
    return (0,) + tuple(range(2, nd + 2)) + (1,)


def _to_channels_first(nd):
    return (0, nd + 1) + tuple(range(1, nd + 1))


def _filter_hwio(nd, weight):
    """A weight ``(O, I, *K)`` viewed as ``(*K, I, O)``."""
    return _shape.permuted(weight, tuple(range(2, nd + 2)) + (1, 0))


def _nchw_result(nd, y):
    """The engine's ``(N, *D, C)`` result as an ``(N, C, *D)`` tensor over the same memory (a new tensor, not a
    view: torch's convolution results own their memory)."""
    return call(op("Transpose", perm=_to_channels_first(nd)), y)


def conv_op(stride, pads, dilation, groups):
    """A bound ChannelsLastConv with ONNX window attributes (``pads``: all begins, then all ends)."""
    return op("ChannelsLastConv", strides=stride, pads=pads, dilations=dilation, group=groups)


def transposed_op(stride, padding, dilation, groups):
    """A bound ChannelsLastConvTranspose for torch's ``conv_transpose`` geometry (symmetric ``padding``)."""
    return op("ChannelsLastConvTranspose", strides=stride, pads=tuple(padding) * 2, dilations=dilation,
              group=groups)


@names_grad_fn("ConvolutionBackward0")
def conv_channels_last(bound, nd, x, weight, bias):
    """``conv{nd}d`` of the batched float ``x`` by ``weight`` (torch's layouts) through the bound ChannelsLastConv:
    a channels-last ``(N, C_out, *O)`` tensor."""
    operands = [_shape.permuted(x, _to_channels_last(nd)), _filter_hwio(nd, weight)]
    if bias is not None:
        operands.append(bias)
    return _nchw_result(nd, call(bound, *operands))


@names_grad_fn("ConvolutionBackward0")
def conv_transpose_channels_last(bound, nd, out_sizes, channels, x, weight, bias):
    """``conv_transpose{nd}d`` of the batched float ``x`` by ``weight`` ``(C_in, C_out / groups, *K)`` through the
    bound ChannelsLastConvTranspose (the input gradient of the convolution from ``C_out`` to ``C_in`` channels whose
    HWIO filter is ``weight`` viewed as ``(*K, C_out / groups, C_in)``): a channels-last ``(N, channels,
    *out_sizes)`` tensor."""
    shape = np.array((x.array.shape[0],) + out_sizes + (channels,), np.int64)
    y = call(bound, _shape.permuted(x, _to_channels_last(nd)), _filter_hwio(nd, weight), shape)
    if bias is not None:
        y = call(op("Add"), y, bias)  # the channels are the last dim: the bias broadcasts over them
    return _nchw_result(nd, y)


def keep_layout(input, result):
    """``result`` (a tensor or a tuple of them, e.g. values and indices) laid out channels-last when the 4-d (5-d)
    ``input`` is, as torch's pooling, normalization and interpolation keep a channels-last input's layout."""
    nd = input.array.ndim - 2
    name = channels_last_format(nd, input)
    if name is None:
        return result
    if isinstance(result, tuple):
        return tuple(laid_out(r, name) for r in result)
    return laid_out(result, name)


def laid_out(result, name):
    """``result`` laid out in the channels-last format ``name`` when it has that format's rank."""
    if result.array.ndim != _RANKS[name] or _memory_layout.is_laid_out_as(result.array, name):
        return result
    return result.contiguous(memory_format=getattr(_config, name))
