"""tf.nn convolutions: conv1d, conv2d, conv3d, convolution, depthwise_conv2d, separable_conv2d, atrous_conv2d.

Filters are TF's ``[*kernel, in_channels / groups, out_channels]``; every function runs the engine's
ChannelsLastConv (TF's NHWC layout, filters as stored), transposing channels-first inputs around it.
Grouped convolutions (input depth a multiple of the filter's) follow Conv2D; depthwise filters
``[h, w, in, multiplier]`` are a grouped convolution with one group per input channel.  The
transposed convolutions are in ``_nn_conv_transpose``, pooling and LRN in ``_nn_pool``.
"""

import numpy as np

from vfw.frontends.tensorflow import _nn_spatial as sp
from vfw.frontends.tensorflow._dispatch import call, convert_to_tensor, op, op_error
from vfw.frontends.tensorflow._op_support import OpTypes, cast, reshape, same_dtype


def check_window_args(strides, dilations, first, tf_op):
    """Conv2D/Conv3D kernel checks of full ``strides`` / ``dilations`` lists (TF's messages and types)."""
    if any(v != 1 for v in sp.outer(strides, first)):
        raise sp.unimplemented("Current implementation does not yet support strides in the batch and depth "
                               "dimensions.", tf_op)
    for s in sp.spatial(strides, first):
        if s < 1:
            raise op_error(f"Stride must be > 0, but got {s}", tf_op)
    if any(v != 1 for v in sp.outer(dilations, first)):
        raise op_error("Current implementation does not yet support dilations in the batch and depth dimensions.",
                       tf_op)
    if any(d < 1 for d in sp.spatial(dilations, first)):
        raise op_error("Dilated rates should be larger than 0.", tf_op)


def geometry(xshape, w, nd, strides, dilations, padding, pairs, first, tf_op, grouped=True):
    """TF's kernel checks of a convolution of an input of ``xshape`` by the filter tensor ``w``, and the engine
    attributes: ``(strides, dilations, pads, groups)`` (spatial entries).

    ``strides`` and ``dilations`` are full per-axis lists (``nd + 2`` entries, in the input's layout);
    ``padding`` is ``"SAME"``, ``"VALID"`` or ``"EXPLICIT"`` (then ``pairs`` holds ``nd + 2`` (begin, end)
    pairs); ``grouped`` says whether the op accepts an input depth that is a multiple of the filter's
    (Conv2D does, Conv3D not).
    """
    if w.array.ndim != nd + 2:
        raise op_error(f"filter must be {nd + 2}-dimensional: {list(w.array.shape)}", tf_op)
    if len(xshape) != nd + 2:
        raise op_error(f"input must be {nd + 2}-dimensional{list(xshape)}", tf_op)
    if len(strides) != nd + 2 or len(dilations) != nd + 2:
        raise op_error(f"Sliding window strides field must specify {nd + 2} dimensions", tf_op)
    check_window_args(strides, dilations, first, tf_op)
    channels = xshape[1] if first else xshape[-1]
    kernel, (depth, out_depth) = w.array.shape[:nd], w.array.shape[nd:]
    if not grouped and channels != depth:
        raise op_error(f"input and filter must have the same depth: {channels} vs {depth}", tf_op)
    if depth == 0 or channels % depth:
        raise op_error(f"input depth must be evenly divisible by filter depth: {channels} vs {depth}", tf_op)
    groups = channels // depth
    if out_depth % groups:
        raise op_error(f"output depth must be evenly divisible by number of groups: {out_depth} vs {groups}", tf_op)
    st, dil = sp.spatial(strides, first), sp.spatial(dilations, first)
    pads = sp.pads_for(padding, pairs, sp.spatial(list(xshape), first), kernel, st, dil, first, tf_op)
    return st, dil, pads, groups


def convolve(x, w, nd, strides, dilations, padding, pairs, first, tf_op, types=sp.CONV_TYPES, grouped=True):
    """TF's ``nd``-D convolution kernel (Conv2D, Conv3D...) of ``x`` (``(N, *spatial, C)``, or channels second
    when ``first``) by ``w`` (``(*kernel, C / groups, M)``); the other arguments are ``geometry``'s."""
    same_dtype(tf_op, x, w)
    OpTypes(tf_op, types).check(x.array.dtype)
    st, dil, pads, groups = geometry(x.array.shape, w, nd, strides, dilations, padding, pairs, first, tf_op, grouped)
    bound = op("ChannelsLastConv", strides=st, dilations=dil, pads=pads, group=groups)
    y = call(bound, sp.to_channels_last(sp.in_compute_dtype(x), first), sp.in_compute_dtype(w), tf_op=tf_op)
    return cast(sp.from_channels_last(y, first), x.array.dtype)


def _conv2d_op(x, w, strides, dilations, padding, pairs, data_format):
    """The raw Conv2D op: attribute checks, then extra leading batch dims folded around the kernel."""
    sp.check_format(data_format, ("NHWC", "NCHW"), "Conv2D")
    sp.check_padding(padding, "Conv2D")
    x, lead = sp.fold_batch(x, 3)
    y = convolve(x, w, 2, strides, dilations, padding, pairs, sp.channels_first(data_format), "Conv2D")
    return sp.unfold_batch(y, lead)


def _conv3d_op(x, w, strides, dilations, padding, data_format):
    sp.check_format(data_format, ("NDHWC", "NCDHW"), "Conv3D")
    sp.check_padding(padding, "Conv3D", explicit=False)
    x, lead = sp.fold_batch(x, 4)
    y = convolve(x, w, 3, strides, dilations, padding, None, sp.channels_first(data_format), "Conv3D",
                 types=sp.FLOAT_TYPES, grouped=False)
    return sp.unfold_batch(y, lead)


def conv2d(input, filters, strides, padding, data_format="NHWC", dilations=None, name=None):
    """2-D convolution of ``input [batch..., h, w, in]`` by ``filters [kh, kw, in / groups, out]``.

    Parameters
    ----------
    input : Tensor
        Rank >= 4 (leading dims beyond one are batch dims); ``NCHW`` puts channels second.
    filters : Tensor
        HWIO filters of input's dtype (half, bfloat16, float, double, int32).
    strides, dilations : int or list
        One value, one per spatial axis, or 4 (batch and channel entries must be 1).
    padding : str or list
        ``"SAME"`` (output ``ceil(n / stride)``, the odd pad at the end), ``"VALID"``, or 4 explicit
        ``[begin, end]`` pairs.
    data_format : str
        ``"NHWC"`` or ``"NCHW"``.

    Returns
    -------
    Tensor
        ``[batch..., out_h, out_w, out]`` of input's dtype.
    """
    data_format = data_format or "NHWC"
    first = sp.channels_first(data_format)
    padding, pairs = sp.padding_arg(padding, 4)
    strides = sp.sequence(strides, 2, first, "strides")
    dilations = sp.sequence(dilations, 2, first, "dilations")
    x, w = convert_to_tensor(input), convert_to_tensor(filters)
    return _conv2d_op(x, w, strides, dilations, padding, pairs, data_format)


def conv1d(input, filters, stride, padding, data_format="NWC", dilations=None, name=None):
    """1-D convolution of ``input [batch..., w, in]`` by ``filters [kw, in / groups, out]`` (a Conv2D of height 1).

    ``stride``/``dilations``: one value or 3 (``NWC``/``NCW`` order); ``padding``: ``"SAME"`` or ``"VALID"``.
    """
    if data_format in (None, "NWC", "NHWC"):
        first, start = False, -3
    elif data_format in ("NCW", "NCHW"):
        first, start = True, -2
    else:
        raise ValueError(f"`data_format` must be 'NWC' or 'NCW'. Received: data_format={data_format}")
    strides = [1] + sp.sequence(stride, 1, first, "stride")
    dilations = [1] + sp.sequence(dilations, 1, first, "dilations")
    padding, _ = sp.padding_arg(padding, 4, explicit_ok=False)
    x, w = convert_to_tensor(input), convert_to_tensor(filters)
    y = _conv2d_op(sp.expand(x, start), sp.expand(w, 0), strides, dilations, padding, None,
                   "NCHW" if first else "NHWC")
    return sp.squeeze(y, start)


def conv3d(input, filters, strides, padding, data_format="NDHWC", dilations=None, name=None):
    """3-D convolution of ``input [batch..., d, h, w, in]`` by ``filters [kd, kh, kw, in, out]``.

    ``strides`` and ``dilations`` are lists of 5 (batch and channel entries 1); ``padding`` is
    ``"SAME"`` or ``"VALID"``; ``data_format`` ``"NDHWC"`` or ``"NCDHW"``.
    """
    strides = sp.attr_list(strides, "strides", "conv3d", 5)
    dilations = sp.attr_list([1] * 5 if dilations is None else dilations, "dilations", "conv3d", 5)
    padding, _ = sp.padding_arg(padding, 5, explicit_ok=False)
    x, w = convert_to_tensor(input), convert_to_tensor(filters)
    return _conv3d_op(x, w, strides, dilations, padding, data_format or "NDHWC")


def _space_to_batch_checks(nd, strides, dilations, padding):
    """What TF's dilated (space-to-batch) path checks of spatial ``strides``, ``dilations`` and ``padding``."""
    sp.check_strides_dilations(nd, strides, dilations)
    if padding not in ("SAME", "VALID"):
        raise ValueError(f"padding must be either VALID or SAME. Received: padding={padding}")


def convolution(input, filters, strides=None, padding="VALID", data_format=None, dilations=None, name=None):
    """N-D convolution (N = 1, 2, 3 from the filter's rank) with optional dilations.

    Parameters
    ----------
    input : Tensor
        ``[batch..., *spatial, in]`` (or channels first for ``NC...`` formats).
    filters : Tensor
        ``[*kernel, in / groups, out]``.
    strides, dilations : int or list, optional
        One value, one per spatial axis, or N + 2; strides and dilations above 1 do not combine.
    padding : str
        ``"VALID"`` (default) or ``"SAME"``.
    """
    x, w = convert_to_tensor(input), convert_to_tensor(filters)
    nd = w.array.ndim - 2
    if nd not in (1, 2, 3):
        raise ValueError(f"`num_spatial_dims` must be 1, 2, or 3. Received: num_spatial_dims={nd}.")
    first = sp.channels_first(data_format)
    full_dilations = sp.sequence(dilations, nd, first, "dilations")
    full_strides = sp.sequence(strides, nd, first, "strides")
    if any(d != 1 for d in full_dilations):  # TF's space-to-batch path: same result, its own checks
        _space_to_batch_checks(nd, sp.spatial(full_strides, first), sp.spatial(full_dilations, first), padding)
    if nd == 1:
        return conv1d(x, w, full_strides, padding, data_format, full_dilations)
    padding, _ = sp.padding_arg(padding, nd + 2, explicit_ok=False)
    if nd == 2:
        return _conv2d_op(x, w, full_strides, full_dilations, padding, None, data_format or "NHWC")
    return _conv3d_op(x, w, full_strides, full_dilations, padding, data_format or "NDHWC")


def atrous_conv2d(value, filters, rate, padding, name=None):
    """2-D convolution with holes: ``convolution`` with ``dilations=rate`` on both spatial axes (NHWC)."""
    rates = [int(r) for r in np.broadcast_to(np.asarray(rate), (2,))]
    return convolution(value, filters, padding=padding, dilations=rates)


def depthwise_filter(w):
    """Depthwise filters ``[h, w, in, multiplier]`` as grouped-convolution filters ``[h, w, 1, in * multiplier]``
    (output channel ``c * multiplier + m`` reads input channel ``c``)."""
    shape = w.array.shape
    return reshape(w, shape[:2] + (1, shape[2] * shape[3]))


def _depthwise_rate(dilations):
    rate = [1, 1] if dilations is None else list(dilations)
    if len(rate) != 2:
        raise ValueError(f"`len(dilation_rate)` should be 2. Received: dilation_rate={rate} of length {len(rate)}")
    if any(r < 1 for r in rate):
        raise ValueError(f"all values of `dilation_rate` must be positive. Received: dilation_rate={np.array(rate)}")
    return [int(r) for r in rate]


def depthwise_conv2d(input, filter, strides, padding, data_format=None, dilations=None, name=None):
    """Depthwise 2-D convolution: each input channel convolved with its own ``multiplier`` filters.

    Parameters
    ----------
    input : Tensor
        ``[batch, h, w, in]`` (``NCHW``: ``[batch, in, h, w]``).
    filter : Tensor
        ``[kh, kw, in, multiplier]``.
    strides : list of 4
        Batch and channel entries 1.
    padding : str or list
        ``"SAME"``, ``"VALID"`` or 4 explicit pairs.
    dilations : list of 2, optional
        Atrous rates (with strides of 1).

    Returns
    -------
    Tensor
        ``[batch, out_h, out_w, in * multiplier]``.
    """
    tf_op = "DepthwiseConv2dNative"
    x, w = convert_to_tensor(input), convert_to_tensor(filter)
    rate = _depthwise_rate(dilations)
    if not isinstance(strides, (list, tuple)):
        raise TypeError(f"Expected list for 'strides' argument to 'depthwise_conv2d_native' Op, not {strides!r}.")
    strides = [sp.as_int(v, "strides") for v in strides]
    data_format = data_format or "NHWC"
    first = sp.channels_first(data_format)
    if any(r > 1 for r in rate) and any(s != 1 for s in strides):
        # TF warns that this combination is unsupported and returns its space-to-batch emulation's output
        raise sp.unimplemented("depthwise_conv2d with dilations > 1 and strides > 1 (TensorFlow's space-to-batch "
                               "result) is not supported", tf_op)
    padding, pairs = sp.padding_arg(padding, 4)
    sp.check_format(data_format, ("NHWC", "NCHW"), tf_op)
    sp.check_padding(padding, tf_op)
    OpTypes(tf_op, sp.FLOAT_TYPES).check(x.array.dtype)
    same_dtype(tf_op, x, w)
    if x.array.ndim != 4:
        raise op_error(f"input must be 4-dimensional{list(x.array.shape)}", tf_op)
    if w.array.ndim != 4:
        raise op_error(f"filter must be 4-dimensional: {list(w.array.shape)}", tf_op)
    if len(strides) != 4:
        raise op_error("Sliding window strides field must specify 4 dimensions", tf_op)
    channels = x.array.shape[1] if first else x.array.shape[3]
    if channels != w.array.shape[2]:
        raise op_error(f"input and filter must have the same depth: {channels} vs {w.array.shape[2]}", tf_op)
    full_rate = [1, 1] + rate if first else [1] + rate + [1]
    return convolve(x, depthwise_filter(w), 2, strides, full_rate, padding, pairs, first, tf_op,
                    types=sp.FLOAT_TYPES)


def separable_conv2d(input, depthwise_filter, pointwise_filter, strides, padding, data_format=None, dilations=None,
                     name=None):
    """Depthwise convolution followed by a 1x1 convolution mixing the channels.

    ``depthwise_filter`` is ``[kh, kw, in, multiplier]``, ``pointwise_filter`` ``[1, 1, in * multiplier, out]``;
    ``strides``, ``padding`` and ``dilations`` apply to the depthwise step.
    """
    pointwise = convert_to_tensor(pointwise_filter)
    shape = pointwise.array.shape
    if len(shape) != 4:
        raise ValueError(f"Shape {tuple(shape)} must have rank 4")
    for d in shape[:2]:
        if d != 1:
            raise ValueError(f"Dimensions {d} and 1 are not compatible")
    depthwise = depthwise_conv2d(input, depthwise_filter, strides, padding, data_format, dilations)
    return conv2d(depthwise, pointwise, [1, 1, 1, 1], "VALID", data_format=data_format or "NHWC")


NAMESPACES = {"nn": ["conv1d", "conv2d", "conv3d", "convolution", "atrous_conv2d", "depthwise_conv2d",
                     "separable_conv2d"]}
TENSOR_METHODS = {}
