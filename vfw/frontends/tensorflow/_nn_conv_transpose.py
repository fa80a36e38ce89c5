"""tf.nn transposed convolutions and convolution backprops: conv1d/2d/3d_transpose, conv_transpose,
atrous_conv2d_transpose, depthwise_conv2d_backprop_input/filter.

A transposed convolution is the input gradient of the forward convolution whose input has
``output_shape`` (TF's ``Conv2DBackpropInput``): the engine's ChannelsLastConvTranspose with the
forward convolution's pads, strides and dilations.  Filters are ``[*kernel, out_channels, in_channels]``
(the forward filter).
"""

from vfw.core.ops._channels_last import window_count
from vfw.frontends.tensorflow import _nn_spatial as sp
from vfw.frontends.tensorflow._dispatch import call, convert_to_tensor, mismatch, op, op_error
from vfw.frontends.tensorflow._nn_conv import check_window_args, depthwise_filter, geometry
from vfw.frontends.tensorflow._op_support import OpTypes, cast, int64s, reshape


def _check_sizes(sizes, got, kernel, strides, dilations, pads, tf_op):
    """TF's error when ``out_backprop``'s spatial sizes are not the forward convolution's output sizes."""
    nd = len(sizes)
    for i, (n, g, k, s, d) in enumerate(zip(sizes, got, kernel, strides, dilations)):
        computed = window_count(n, k, s, d, pads[i], pads[nd + i])
        if computed != g:
            raise op_error(f"{tf_op}: Size of out_backprop doesn't match computed: actual = {g}, computed = "
                           f"{computed} spatial_dim: {i + 1} input: {n} filter: {k} output: {g} stride: {s} "
                           f"dilation: {d}", tf_op)


def transpose_convolve(x, w, output_shape, nd, strides, dilations, padding, pairs, first, tf_op,
                       types=sp.CONV_TYPES, grouped=True):
    """TF's ``nd``-D convolution input gradient (Conv2DBackpropInput...) of ``x`` (out_backprop) by ``w``.

    ``output_shape`` is the forward input's shape (``nd + 2`` ints in ``x``'s layout); the other
    arguments are ``_nn_conv.convolve``'s, for the forward convolution.
    """
    if x.array.dtype != w.array.dtype:  # out_backprop is the op's input #2
        raise mismatch(tf_op, w.array.dtype, x.array.dtype, 2)
    OpTypes(tf_op, types).check(x.array.dtype)
    if len(output_shape) != nd + 2:
        raise op_error(f"input_sizes must be {nd + 2}-dimensional, got: {len(output_shape)}", tf_op)
    if x.array.ndim != nd + 2:
        raise op_error(f"out_backprop must be {nd + 2}-dimensional: {list(x.array.shape)}", tf_op)
    st, dil, pads, groups = geometry(output_shape, w, nd, strides, dilations, padding, pairs, first, tf_op, grouped)
    got, out_depth = (x.array.shape[1] if first else x.array.shape[-1]), w.array.shape[-1]
    if got != out_depth:
        raise op_error(f"filter and out_backprop must have the same out_depth: {out_depth} vs {got}", tf_op)
    if output_shape[0] != x.array.shape[0]:
        raise op_error(f"input and out_backprop must have the same batch size. Input batch: {output_shape[0]}, "
                       f"outbackprop batch: {x.array.shape[0]}", tf_op)
    sizes = sp.spatial(list(output_shape), first)
    _check_sizes(sizes, sp.spatial(list(x.array.shape), first), w.array.shape[:nd], st, dil, pads, tf_op)
    bound = op("ChannelsLastConvTranspose", strides=st, dilations=dil, pads=pads, group=groups)
    shape = int64s([output_shape[0]] + list(sizes) + [output_shape[1] if first else output_shape[-1]])
    y = call(bound, sp.to_channels_last(sp.in_compute_dtype(x), first), sp.in_compute_dtype(w), shape, tf_op=tf_op)
    return cast(sp.from_channels_last(y, first), x.array.dtype)


def conv2d_transpose(input, filters, output_shape, strides, padding="SAME", data_format="NHWC", dilations=None,
                     name=None):
    """The transpose (input gradient) of ``conv2d``: ``[batch, h, w, in]`` to ``output_shape``.

    Parameters
    ----------
    input : Tensor
        ``[batch, h, w, in_channels]`` (``NCHW``: channels second).
    filters : Tensor
        ``[kh, kw, out_channels, in_channels]``.
    output_shape : list, tuple or 1-D Tensor
        The 4 dims of the result; ``conv2d`` of it (same strides, padding, dilations) has input's shape.
    strides, dilations : int or list
        One value, 2, or 4 (batch and channel entries 1).
    padding : str or list
        ``"SAME"``, ``"VALID"`` or 4 explicit pairs.
    """
    data_format = data_format or "NHWC"
    first = sp.channels_first(data_format)
    strides = sp.sequence(strides, 2, first, "strides")
    dilations = sp.sequence(dilations, 2, first, "dilations")
    padding, pairs = sp.padding_arg(padding, 4)
    tf_op = "Conv2DBackpropInput"
    sp.check_format(data_format, ("NHWC", "NCHW"), tf_op)
    sp.check_padding(padding, tf_op)
    shape = sp.shape_list(output_shape, "input_sizes", tf_op)
    x, w = convert_to_tensor(input), convert_to_tensor(filters)
    return transpose_convolve(x, w, shape, 2, strides, dilations, padding,
                              pairs, first, tf_op)


def conv1d_transpose(input, filters, output_shape, strides, padding="SAME", data_format="NWC", dilations=None,
                     name=None):
    """The transpose of ``conv1d``: ``[batch, w, in]`` to ``output_shape`` (3 dims); filters ``[kw, out, in]``."""
    if data_format in (None, "NWC"):
        first, start = False, 1
    elif data_format == "NCW":
        first, start = True, 2
    else:
        raise ValueError(f"`data_format` must be 'NWC' or 'NCW'. Received: data_format={data_format}")
    strides = [1] + sp.sequence(strides, 1, first, "stride")
    dilations = [1] + sp.sequence(dilations, 1, first, "dilations")
    tf_op = "Conv2DBackpropInput"
    shape = sp.shape_list(output_shape, "input_sizes", tf_op)
    shape = shape[:start] + [1] + shape[start:]
    padding, _ = sp.padding_arg(padding, 4, explicit_ok=False)
    sp.check_padding(padding, tf_op)
    x, w = convert_to_tensor(input), convert_to_tensor(filters)
    y = transpose_convolve(sp.expand(x, start), sp.expand(w, 0), shape, 2, strides, dilations, padding, None, first,
                           tf_op)
    return sp.squeeze(y, start)


def conv3d_transpose(input, filters, output_shape, strides, padding="SAME", data_format="NDHWC", dilations=None,
                     name=None):
    """The transpose of ``conv3d``: ``[batch, d, h, w, in]`` to ``output_shape`` (5 dims); filters
    ``[kd, kh, kw, out, in]``."""
    data_format = data_format or "NDHWC"
    first = sp.channels_first(data_format)
    strides = sp.sequence(strides, 3, first, "strides")
    dilations = sp.sequence(dilations, 3, first, "dilations")
    tf_op = "Conv3DBackpropInputV2"
    padding, _ = sp.padding_arg(padding, 5, explicit_ok=False)
    sp.check_format(data_format, ("NDHWC", "NCDHW"), tf_op)
    sp.check_padding(padding, tf_op, explicit=False)
    shape = sp.shape_list(output_shape, "input_sizes", tf_op)
    x, w = convert_to_tensor(input), convert_to_tensor(filters)
    return transpose_convolve(x, w, shape, 3, strides, dilations, padding,
                              None, first, tf_op, types=sp.FLOAT_TYPES, grouped=False)


def conv_transpose(input, filters, output_shape, strides, padding="SAME", data_format=None, dilations=None,
                   name=None):
    """``conv1d_transpose``, ``conv2d_transpose`` or ``conv3d_transpose`` by the length of ``output_shape``."""
    if hasattr(output_shape, "array"):
        n = len(output_shape.array) - 2
    elif hasattr(output_shape, "__len__"):
        n = len(output_shape) - 2
    else:
        raise ValueError(f"`output_shape` must be a tensor or sized collection. Received: output_shape={output_shape}")
    if not 1 <= n <= 3:
        raise ValueError(f"`output_shape` must be of length 3, 4 or 5. Received: output_shape={output_shape} of "
                         f"length {n + 2}.")
    fn = (conv1d_transpose, conv2d_transpose, conv3d_transpose)[n - 1]
    return fn(input, filters, output_shape, strides, padding=padding, data_format=data_format, dilations=dilations)


def atrous_conv2d_transpose(value, filters, output_shape, rate, padding, name=None):
    """The transpose of ``atrous_conv2d`` (NHWC): ``value [batch, h, w, in]`` to ``output_shape``, filters
    ``[kh, kw, out, in]``, dilation ``rate`` on both spatial axes."""
    x, w = convert_to_tensor(value), convert_to_tensor(filters)
    if x.array.shape[3] != w.array.shape[3]:
        raise ValueError("`value` channel count must be compatible with `filters` input channel count. Received: "
                         f"value.shape={tuple(x.array.shape)} with channel count {x.array.shape[3]} and "
                         f"filters.shape={tuple(w.array.shape)} with input channel count {w.array.shape[3]}.")
    if rate < 1:
        raise ValueError(f"`rate` cannot be less than one. Received: rate={rate}")
    if rate == 1:
        return conv2d_transpose(x, w, output_shape, strides=[1, 1, 1, 1], padding=padding, data_format="NHWC")
    shape = sp.shape_list(output_shape, "output_shape", "Conv2DBackpropInput")
    if len(shape) != 4:
        raise ValueError(f"`output_shape` must have shape (4,). Received: output_shape=({len(shape)},)")
    if shape[3] != w.array.shape[2]:
        raise ValueError("`output_shape` channel count must be compatible with `filters` output channel count. "
                         f"Received: output_shape={shape} with channel count {shape[3]} and filters.shape="
                         f"{tuple(w.array.shape)} with output channel count {w.array.shape[3]}.")
    if padding not in ("SAME", "VALID"):
        raise ValueError(f"`padding` must be either 'VALID' or 'SAME'. Received: padding={padding}")
    dilations = [1, int(rate), int(rate), 1]
    return transpose_convolve(x, w, shape, 2, [1, 1, 1, 1], dilations, padding, None, False, "Conv2DBackpropInput")


def _depthwise_args(strides, padding, data_format, tf_op):
    if not isinstance(strides, (list, tuple)):
        raise TypeError(f"Expected list for 'strides' argument to '{tf_op}' Op, not {strides!r}.")
    padding, pairs = sp.padding_arg(padding, 4)
    sp.check_format(data_format, ("NHWC", "NCHW"), tf_op)
    sp.check_padding(padding, tf_op)
    if len(strides) != 4:
        raise op_error("Sliding window strides field must specify 4 dimensions", tf_op)
    return [sp.as_int(s, "strides") for s in strides], padding, pairs


def depthwise_conv2d_backprop_input(input_sizes, filter, out_backprop, strides, padding, data_format="NHWC",
                                    dilations=(1, 1, 1, 1), name=None):
    """Gradient of ``depthwise_conv2d`` in its input: ``out_backprop`` to the shape ``input_sizes``."""
    tf_op = "DepthwiseConv2dNativeBackpropInput"
    strides, padding, pairs = _depthwise_args(strides, padding, data_format, tf_op)
    first = sp.channels_first(data_format)
    w, dy = convert_to_tensor(filter), convert_to_tensor(out_backprop)
    sizes = sp.shape_list(input_sizes, "input_sizes", tf_op)
    if w.array.ndim != 4:
        raise op_error(f"filter must be 4-dimensional: {list(w.array.shape)}", tf_op)
    channels = sizes[1] if first else sizes[-1]
    if channels != w.array.shape[2]:
        raise op_error(f"input and filter must have the same depth: {channels} vs {w.array.shape[2]}", tf_op)
    return transpose_convolve(dy, depthwise_filter(w), sizes, 2, strides, list(dilations), padding, pairs, first,
                              tf_op, types=sp.FLOAT_TYPES)


def depthwise_conv2d_backprop_filter(input, filter_sizes, out_backprop, strides, padding, data_format="NHWC",
                                     dilations=(1, 1, 1, 1), name=None):
    """Gradient of ``depthwise_conv2d`` in its filter, of shape ``filter_sizes`` ``[kh, kw, in, multiplier]``."""
    tf_op = "DepthwiseConv2dNativeBackpropFilter"
    strides, padding, pairs = _depthwise_args(strides, padding, data_format, tf_op)
    first = sp.channels_first(data_format)
    x, dy = convert_to_tensor(input), convert_to_tensor(out_backprop)
    if dy.array.dtype != x.array.dtype:  # out_backprop is the op's input #2
        raise mismatch(tf_op, x.array.dtype, dy.array.dtype, 2)
    OpTypes(tf_op, sp.FLOAT_TYPES).check(x.array.dtype)
    sizes = sp.shape_list(filter_sizes, "filter_sizes", tf_op)
    if len(sizes) != 4 or x.array.ndim != 4 or dy.array.ndim != 4:
        raise op_error(f"input, filter_sizes and out_backprop must be 4-dimensional: {list(x.array.shape)}, "
                       f"{sizes}, {list(dy.array.shape)}", tf_op)
    dilations = list(dilations)
    check_window_args(strides, dilations, first, tf_op)
    channels = x.array.shape[1] if first else x.array.shape[3]
    if channels != sizes[2]:
        raise op_error(f"input and filter must have the same depth: {channels} vs {sizes[2]}", tf_op)
    st, dil = sp.spatial(strides, first), sp.spatial(dilations, first)
    spatial = sp.spatial(list(x.array.shape), first)
    pads = sp.pads_for(padding, pairs, spatial, sizes[:2], st, dil, first, tf_op)
    _check_sizes(spatial, sp.spatial(list(dy.array.shape), first), sizes[:2], st, dil, pads, tf_op)
    if (dy.array.shape[1] if first else dy.array.shape[3]) != sizes[2] * sizes[3]:
        raise op_error(f"out_backprop depth must be in * multiplier = {sizes[2] * sizes[3]}", tf_op)
    bound = op("ChannelsLastConvGradFilter", strides=st, dilations=dil, pads=pads, group=channels,
                           kernel_shape=sizes[:2])
    dw = call(bound, sp.to_channels_last(x, first), sp.to_channels_last(dy, first), tf_op=tf_op)
    return reshape(dw, sizes)


NAMESPACES = {"nn": ["conv1d_transpose", "conv2d_transpose", "conv3d_transpose", "conv_transpose",
                     "atrous_conv2d_transpose", "depthwise_conv2d_backprop_input",
                     "depthwise_conv2d_backprop_filter"]}
TENSOR_METHODS = {}
