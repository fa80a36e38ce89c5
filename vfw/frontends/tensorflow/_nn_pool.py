"""tf.nn pooling and local response normalization: max_pool, avg_pool (1-D/2-D/3-D and rank-generic), pool,
max_pool_with_argmax, local_response_normalization / lrn.

Pooling runs the engine's ChannelsLastMaxPool / ChannelsLastAveragePool (TF's NHWC layout; channels-first
inputs are transposed around them).  Padding never wins a max and is not counted in an average; the
max gradient goes to a window's first maximum (MaxPool) or to all its tied maxima (MaxPool3D), as in
TF.  TF's SAME padding puts the odd pad at the end.
"""

import numpy as np

from vfw.frontends.tensorflow import _dtypes
from vfw.frontends.tensorflow import _nn_spatial as sp
from vfw.frontends.tensorflow._dispatch import call, convert_to_tensor, op, op_error
from vfw.frontends.tensorflow._op_support import BF16, F16, F32, F64, I64, OpTypes, attr_error, cast, reshape

_INTS = frozenset(np.dtype(t) for t in (np.int8, np.int16, np.int32, np.uint8, np.uint16))
MAX_POOL_TYPES = sp.FLOAT_TYPES | _INTS | {I64}
MAX_POOL3D_TYPES = frozenset({BF16, F32})  # TF lists half too, with no CPU kernel
_AVG3D_TYPES = frozenset({BF16, F32})
ARGMAX_TYPES = MAX_POOL_TYPES | {np.dtype(np.uint32), np.dtype(np.uint64)}
_LRN_TYPES = OpTypes("LRN", "float16 float32 bfloat16", "float16 float32")
_PAD_NAMES = {1: (("Top", "Bottom"),), 2: (("Top", "Bottom"), ("Left", "Right"))}


def _window_checks(ksize, strides, nd, first, tf_op):
    if len(ksize) != nd + 2:
        raise op_error(f"Sliding window ksize field must specify {nd + 2} dimensions", tf_op)
    if len(strides) != nd + 2:
        raise op_error(f"Sliding window stride field must specify {nd + 2} dimensions", tf_op)
    if sp.outer(ksize, first)[0] != 1 or sp.outer(strides, first)[0] != 1:
        raise sp.unimplemented("Pooling is not yet supported on the batch dimension.", tf_op)
    if any(k < 1 for k in sp.spatial(ksize, first)):
        raise op_error("Sliding window ksize must be positive. The specified or inferred ksize is: "
                       + ",".join(map(str, ksize)), tf_op)
    for s in sp.spatial(strides, first):
        if s < 1:
            raise op_error(f"Stride must be > 0, but got {s}", tf_op)


def _pool_pads(padding, pairs, sizes, kernel, strides, dilations, first, tf_op):
    pads = sp.pads_for(padding, pairs, sizes, kernel, strides, dilations, first, tf_op)
    if padding == "EXPLICIT":
        nd = len(sizes)
        for i, k in enumerate(kernel):
            names = _PAD_NAMES.get(nd, ((f"Begin (axis {i})", f"End (axis {i})"),) * nd)[i]
            for name, p in zip(names, (pads[i], pads[nd + i])):
                if p >= k:
                    raise op_error(f"{name} padding {p} needs to be smaller than the window size {k}", tf_op)
    return pads


def _depth_max_pool(x, k, stride, first, tf_op):
    """Max over windows of ``k`` channels (TF's depthwise max pooling: window = stride, dividing the depth)."""
    channels = x.array.shape[1] if first else x.array.shape[-1]
    if k != stride:
        raise sp.unimplemented("Depthwise max pooling requires the depth window to equal the depth stride", tf_op)
    if channels % k:
        raise sp.unimplemented("Depthwise max pooling requires the depth window to evenly divide the input depth",
                               tf_op)
    x = sp.to_channels_last(x, first)
    shape = x.array.shape
    # the channels as the one spatial axis of a channels-last pool with a single channel
    rows = reshape(x, (-1, channels, 1))
    y = call("ChannelsLastMaxPool", rows, kernel_shape=[k], strides=[k], pads=[0, 0], tf_op=tf_op)
    return sp.from_channels_last(reshape(y, shape[:-1] + (channels // k,)), first)


def pool_nd(kind, x, ksize, strides, padding, pairs, first, nd, tf_op, types, missing=frozenset(), dilations=None):
    """TF's MaxPool / AvgPool kernels (``kind`` "MAX" / "AVG") on tensor ``x``.

    ``ksize`` and ``strides`` are full per-axis lists; ``dilations`` spatial (``pool``'s atrous windows).
    """
    OpTypes(tf_op, types | missing, types).check(x.array.dtype)
    if x.array.ndim != nd + 2:
        raise op_error(f"input must be {nd + 2}-dimensional: {list(x.array.shape)}", tf_op)
    _window_checks(ksize, strides, nd, first, tf_op)
    depth_k, depth_s = sp.outer(ksize, first)[1], sp.outer(strides, first)[1]
    kernel, st = sp.spatial(ksize, first), sp.spatial(strides, first)
    if depth_k != 1 or depth_s != 1:
        if kind != "MAX" or nd != 2:
            raise sp.unimplemented("Pooling is not yet supported on the depth dimension.", tf_op)
        if any(k != 1 for k in kernel) or any(s != 1 for s in st):
            raise sp.unimplemented("MaxPooling supports exactly one of pooling across depth or pooling across "
                                   "width/height.", tf_op)
        return _depth_max_pool(x, depth_k, depth_s, first, tf_op)
    dil = [1] * nd if dilations is None else list(dilations)
    sizes = sp.spatial(list(x.array.shape), first)
    pads = _pool_pads(padding, pairs, sizes, kernel, st, dil, first, tf_op)
    if kind == "MAX":
        # TF's MaxPool3D gradient goes to every tied maximum of a window, MaxPool's to the first
        bound = op("ChannelsLastMaxPool", kernel_shape=kernel, strides=st, dilations=dil, pads=pads,
                               ties="all" if nd == 3 else "first")
    else:
        bound = op("ChannelsLastAveragePool", kernel_shape=kernel, strides=st, dilations=dil, pads=pads)
    return sp.from_channels_last(call(bound, sp.to_channels_last(x, first), tf_op=tf_op), first)


# ------------------------------------------------------------------------------------ max pooling


def _max_pool2d_op(x, ksize, strides, padding, pairs, data_format):
    tf_op = "MaxPool"
    if data_format not in ("NHWC", "NCHW", "NCHW_VECT_C"):
        raise op_error(f"Value for attr 'data_format' of \"{data_format}\" is not in the list of allowed values: "
                       "\"NHWC\", \"NCHW\", \"NCHW_VECT_C\"", tf_op)
    sp.check_padding(padding, tf_op)
    return pool_nd("MAX", x, ksize, strides, padding, pairs, sp.channels_first(data_format), 2, tf_op,
                   MAX_POOL_TYPES)


def max_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None):
    """Max pooling over ``[batch, h, w, channels]`` (``NCHW``: channels second).

    Parameters
    ----------
    ksize, strides : int or list
        One value, 2, or 4 (batch entry 1; a depth window instead of spatial ones pools across channels).
    padding : str or list
        ``"SAME"``, ``"VALID"`` or 4 explicit pairs (each smaller than the window).
    """
    data_format = data_format or "NHWC"
    first = sp.channels_first(data_format)
    ksize = sp.sequence(ksize, 2, first, "ksize")
    strides = sp.sequence(strides, 2, first, "strides")
    padding, pairs = sp.padding_arg(padding, 4)
    return _max_pool2d_op(convert_to_tensor(input), ksize, strides, padding, pairs, data_format)


def _pool1d_layout(data_format):
    """max/avg_pool1d: whether channels come first, the axis made the height, and the 2-D format used."""
    data_format = data_format or "NWC"
    return sp.channels_first(data_format), (1 if data_format == "NWC" else 2), \
        ("NHWC" if data_format == "NWC" else "NCHW")


def max_pool1d(input, ksize, strides, padding, data_format="NWC", name=None):
    """Max pooling over ``[batch, w, channels]`` (``NCW``: channels second): a MaxPool of height 1.

    ``padding`` may be 3 explicit pairs.
    """
    first, axis, layout = _pool1d_layout(data_format)
    ksize = [1] + sp.sequence(ksize, 1, first, "ksize")
    strides = [1] + sp.sequence(strides, 1, first, "strides")
    padding, pairs = sp.padding_arg(padding, 3)
    if pairs is not None:
        pairs = [(0, 0)] + pairs
    y = _max_pool2d_op(sp.expand(convert_to_tensor(input), axis), ksize, strides, padding, pairs, layout)
    return sp.squeeze(y, axis)


def max_pool3d(input, ksize, strides, padding, data_format="NDHWC", name=None):
    """Max pooling over ``[batch, d, h, w, channels]`` (half, bfloat16, float); ``padding`` "SAME" / "VALID"."""
    data_format = data_format or "NDHWC"
    first = sp.channels_first(data_format)
    ksize = sp.sequence(ksize, 3, first, "ksize")
    strides = sp.sequence(strides, 3, first, "strides")
    padding, _ = sp.padding_arg(padding, 5, explicit_ok=False)
    tf_op = "MaxPool3D"
    sp.check_format(data_format, ("NDHWC", "NCDHW"), tf_op)
    sp.check_padding(padding, tf_op, explicit=False)
    return pool_nd("MAX", convert_to_tensor(input), ksize, strides, padding, None, first, 3, tf_op, MAX_POOL3D_TYPES,
                   frozenset({F16}))


def _pool_rank(x, data_format, explicit_padding):
    nd = x.array.ndim - 2
    if not 1 <= nd <= 3:
        raise ValueError(f"`input.shape.rank` must be 3, 4 or 5. Received: input.shape={tuple(x.array.shape)} of "
                         f"rank {nd + 2}.")
    if explicit_padding and nd == 3:
        raise ValueError("Explicit padding is not supported with an input tensor of rank 5. Received: padding=...")
    return nd, sp.channels_first(data_format)


def max_pool(input, ksize, strides, padding, data_format=None, name=None):
    """Max pooling over the spatial axes of a rank 3, 4 or 5 ``input`` (1-D, 2-D or 3-D)."""
    x = convert_to_tensor(input)
    nd, first = _pool_rank(x, data_format, isinstance(padding, (list, tuple)))
    ksize = sp.sequence(ksize, nd, first, "ksize")
    strides = sp.sequence(strides, nd, first, "strides")
    fn = (max_pool1d, max_pool2d, max_pool3d)[nd - 1]
    return fn(x, ksize, strides, padding, data_format=data_format)


# -------------------------------------------------------------------------------- average pooling


def _avg_pool_op(x, ksize, strides, padding, data_format, nd):
    tf_op = "AvgPool" if nd == 2 else "AvgPool3D"
    sp.check_format(data_format, ("NHWC", "NCHW") if nd == 2 else ("NDHWC", "NCDHW"), tf_op)
    padding, _ = sp.padding_arg(padding, nd + 2, explicit_ok=False)
    sp.check_padding(padding, tf_op, explicit=False)
    types, missing = (sp.FLOAT_TYPES, frozenset()) if nd == 2 else (_AVG3D_TYPES, frozenset({F16, F64}))
    return pool_nd("AVG", x, ksize, strides, padding, None, sp.channels_first(data_format), nd, tf_op, types,
                   missing)


def avg_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None):
    """Average pooling over ``[batch, h, w, channels]``; padding is left out of each window's count."""
    data_format = data_format or "NHWC"
    first = sp.channels_first(data_format)
    ksize = sp.sequence(ksize, 2, first, "ksize")
    strides = sp.sequence(strides, 2, first, "strides")
    return _avg_pool_op(convert_to_tensor(input), ksize, strides, padding, data_format, 2)


def avg_pool1d(input, ksize, strides, padding, data_format="NWC", name=None):
    """Average pooling over ``[batch, w, channels]`` (an AvgPool of height 1)."""
    first, axis, layout = _pool1d_layout(data_format)
    ksize = [1] + sp.sequence(ksize, 1, first, "ksize")
    strides = [1] + sp.sequence(strides, 1, first, "strides")
    y = _avg_pool_op(sp.expand(convert_to_tensor(input), axis), ksize, strides, padding, layout, 2)
    return sp.squeeze(y, axis)


def avg_pool3d(input, ksize, strides, padding, data_format="NDHWC", name=None):
    """Average pooling over ``[batch, d, h, w, channels]`` (float and bfloat16 on the CPU, as TF)."""
    data_format = data_format or "NDHWC"
    first = sp.channels_first(data_format)
    ksize = sp.sequence(ksize, 3, first, "ksize")
    strides = sp.sequence(strides, 3, first, "strides")
    return _avg_pool_op(convert_to_tensor(input), ksize, strides, padding, data_format, 3)


def avg_pool(input, ksize, strides, padding, data_format=None, name=None):
    """Average pooling over the spatial axes of a rank 3, 4 or 5 ``input``."""
    x = convert_to_tensor(input)
    nd, first = _pool_rank(x, data_format, False)
    ksize = sp.sequence(ksize, nd, first, "ksize")
    strides = sp.sequence(strides, nd, first, "strides")
    fn = (avg_pool1d, avg_pool2d, avg_pool3d)[nd - 1]
    return fn(x, ksize, strides, padding, data_format=data_format)


# --------------------------------------------------------------------------------------- pool()


def _pool_strides_dilations(nd, strides, dilations):
    """``pool``'s checks of its spatial ``strides`` and ``dilations`` (defaults ones)."""
    dilations = [1] * nd if dilations is None else [sp.as_int(d, "dilations") for d in dilations]
    strides = [1] * nd if strides is None else [sp.as_int(s, "strides") for s in strides]
    sp.check_strides_dilations(nd, strides, dilations)
    return strides, dilations


def pool(input, window_shape, pooling_type, strides=None, padding="VALID", data_format=None, dilations=None,
         name=None):
    """N-D max or average pooling (``pooling_type`` "MAX" / "AVG") with optional atrous ``dilations``.

    Parameters
    ----------
    window_shape : sequence of N ints
        N = 1, 2 or 3; ``input`` has rank N + 2.
    strides, dilations : sequence of N ints, optional
        Not both above 1; strides no larger than the window; dilations only with "VALID" padding.
    """
    x = convert_to_tensor(input)
    nd = len(window_shape)
    window_shape = [sp.as_int(k, "window_shape") for k in window_shape]
    if not 1 <= nd <= 3:
        raise ValueError(f"`len(window_shape)` must be 1, 2, or 3. Received: window_shape={window_shape} of length "
                         f"{nd}")
    if x.array.ndim != nd + 2:
        raise ValueError(f"Shape {tuple(x.array.shape)} must have rank {nd + 2}")
    strides, dilations = _pool_strides_dilations(nd, strides, dilations)
    if padding == "SAME" and any(d > 1 for d in dilations):
        raise ValueError(f"pooling with 'SAME' padding is not implemented for `dilation_rate` > 1. Received: "
                         f"padding={padding} and dilation_rate={np.array(dilations)}")
    if any(s > k for s, k in zip(strides, window_shape)):
        raise ValueError(f"`strides` > `window_shape` not supported due to inconsistency between CPU and GPU "
                         f"implementations. Received: strides={np.array(strides)} and window_shape={window_shape}")
    if pooling_type not in ("MAX", "AVG"):
        raise ValueError(f"{nd}-D {pooling_type} pooling is not supported.")
    if nd == 1 and data_format not in (None, "NWC", "NCW"):
        raise ValueError(f"data_format must be either 'NWC' or 'NCW'. Received: data_format={data_format}")
    first = sp.channels_first(data_format)
    if all(d == 1 for d in dilations):
        fns = {"MAX": (max_pool1d, max_pool2d, max_pool3d), "AVG": (avg_pool1d, avg_pool2d, avg_pool3d)}
        return fns[pooling_type][nd - 1](x, window_shape, strides, padding, data_format=data_format)
    # atrous windows (TF computes them by space-to-batch; the dilated window gives the same result)
    full_k = [1, 1] + window_shape if first else [1] + window_shape + [1]
    padding, _ = sp.padding_arg(padding, nd + 2, explicit_ok=False)
    if pooling_type == "MAX":
        tf_op, types = ("MaxPool3D", MAX_POOL3D_TYPES) if nd == 3 else ("MaxPool", MAX_POOL_TYPES)
        missing = frozenset({F16}) if nd == 3 else frozenset()
    else:
        tf_op, types = ("AvgPool3D", _AVG3D_TYPES) if nd == 3 else ("AvgPool", sp.FLOAT_TYPES)
        missing = frozenset({F16, F64}) if nd == 3 else frozenset()
    sp.check_padding(padding, tf_op, explicit=False)
    return pool_nd(pooling_type, x, full_k, [1] * (nd + 2), padding, None, first, nd, tf_op, types, missing,
                   dilations=dilations)


# -------------------------------------------------------------------------------- max_pool_with_argmax


def max_pool_with_argmax(input, ksize, strides, padding, data_format="NHWC", output_dtype=_dtypes.int64,
                         include_batch_in_index=False, name=None):
    """Max pooling (NHWC) and the flat position of each window's maximum.

    The position is ``(y * width + x) * channels + c`` within the batch item, or
    ``((b * height + y) * width + x) * channels + c`` with ``include_batch_in_index``; ties go to the
    first maximum in the window.

    Returns
    -------
    (Tensor, Tensor)
        The pooled values and the positions (``output_dtype``: int64 or int32).
    """
    tf_op = "MaxPoolWithArgmax"
    if data_format != "NHWC":
        raise ValueError(f"`data_format` values other  than 'NHWC' are not supported. Received: "
                         f"data_format={data_format}")
    ksize = sp.sequence(ksize, 2, False, "ksize")
    strides = sp.sequence(strides, 2, False, "strides")
    padding, _ = sp.padding_arg(padding, 4, explicit_ok=False)
    sp.check_padding(padding, tf_op, explicit=False)
    index_dtype = _dtypes.as_dtype(output_dtype)
    if index_dtype not in (_dtypes.int32, _dtypes.int64):
        raise attr_error(tf_op, "Targmax", index_dtype.name, "int32, int64")
    x = convert_to_tensor(input)
    OpTypes(tf_op, ARGMAX_TYPES).check(x.array.dtype)
    if x.array.ndim != 4:
        raise op_error(f"tensor_in must be 4-dimensional ({x.array.ndim})", tf_op)
    _window_checks(ksize, strides, 2, False, tf_op)
    if ksize[3] != 1 or strides[3] != 1:
        raise sp.unimplemented("Pooling is not yet supported on the depth dimension.", tf_op)
    kernel, st = ksize[1:3], strides[1:3]
    pads = _pool_pads(padding, None, list(x.array.shape[1:3]), kernel, st, [1, 1], False, tf_op)
    attrs = dict(kernel_shape=kernel, strides=st, pads=pads)
    y = call("ChannelsLastMaxPool", x, **attrs, tf_op=tf_op)
    index = call("ChannelsLastMaxPoolArgmax", x, y, **attrs, tf_op=tf_op)
    if not include_batch_in_index:
        per_item = np.asarray(max(int(np.prod(x.array.shape[1:])), 1), I64)
        index = call("Mod", index, per_item, tf_op=tf_op)
    return y, cast(index, index_dtype.np)


# ------------------------------------------------------------------------------------------- LRN


def _float_attr(value, name):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"Expected float for argument '{name}' not {value!r}.")
    return float(value)


def local_response_normalization(input, depth_radius=5, bias=1, alpha=1, beta=0.5, name=None):
    """Local response normalization over the last axis of a 4-D ``input``.

    ``output[..., d] = input[..., d] / (bias + alpha * sum(input[..., d - r : d + r + 1] ** 2)) ** beta``
    with ``r = depth_radius`` (the window clipped at the edges); float and half.
    """
    tf_op = "LRN"
    if hasattr(depth_radius, "array"):
        depth_radius = depth_radius.array
    if isinstance(depth_radius, (str, bytes, bool, np.bool_)) or np.ndim(depth_radius):
        raise TypeError(f"Expected int for argument 'depth_radius' not {depth_radius!r}.")
    radius = int(depth_radius)
    bias, alpha, beta = _float_attr(bias, "bias"), _float_attr(alpha, "alpha"), _float_attr(beta, "beta")
    x = convert_to_tensor(input)
    _LRN_TYPES.check(x.array.dtype)
    if x.array.ndim != 4:
        raise op_error("in must be 4-dimensional", tf_op)
    if radius < 0:
        raise op_error(f"depth_radius = {radius} larger than int max", tf_op)
    channels = x.array.shape[3]
    # a radius past the depth sums every channel, as the largest that reaches the far edge does
    radius = min(radius, max(channels - 1, 0))
    size = 2 * radius + 1
    # the engine's LRN scales its channel sum by alpha / size and normalizes axis 1: rows of channels
    bound = op("LRN", size=size, alpha=alpha * size, beta=beta, bias=bias)
    y = call(bound, reshape(x, (-1, channels)), tf_op=tf_op)
    return reshape(y, x.array.shape)


lrn = local_response_normalization

NAMESPACES = {"nn": ["max_pool", "max_pool1d", "max_pool2d", "max_pool3d", "avg_pool", "avg_pool1d", "avg_pool2d",
                     "avg_pool3d", "pool", "max_pool_with_argmax", "local_response_normalization", "lrn"]}
TENSOR_METHODS = {}
