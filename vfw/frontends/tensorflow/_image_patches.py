"""tf.image.extract_patches (TF's ExtractImagePatches): every ``sizes`` window of an NHWC batch, flattened into the
depth of one output pixel.

The windows are one gather: numpy computes, once per call, the flat spatial index of every (output row, output
column, window row, window column) in the (zero-padded) image, and ``tf.gather`` reads them all, so tapes and traces
see ordinary differentiable tf ops (the gradient scatters back, summing where windows overlap).
"""

import numpy as np

import vfw.frontends.tensorflow as tf
from vfw.frontends.tensorflow._dispatch import convert_to_tensor, op_error
from vfw.frontends.tensorflow._op_support import OpTypes

_TYPES = OpTypes("ExtractImagePatches", "F bfloat16 I U complex64 complex128 bool", "F bfloat16 I U complex64 "
                 "complex128")
_OP = "ExtractImagePatches"


def kernel_prefix(op):
    """The prefix of the messages of ``op``'s kernel errors."""
    return f"{{{{function_node __wrapped__{op}_device_/job:localhost/replica:0/task:0/device:CPU:0}}}} "


def checked_arguments(op, types, rank, input, padding, **attrs):  # noqa: A002  (TF's argument name)
    """The window attributes ``attrs`` (``ksizes``, ``strides``...: ``[1, ..., 1]`` of length ``rank``) as lists of
    ints, checked with ``op``'s errors in TF's order: the attributes' lengths, ``padding``, ``input``'s dtype
    (``types``), windows only across space, then ``input``'s rank."""
    values = []
    for name, value in attrs.items():
        value = [int(v) for v in value]
        if len(value) < rank:
            raise op_error(f"Length for attr '{name}' of {len(value)} must be at least minimum {rank}\n\t; NodeDef: "
                           f"{{{{node {op}}}}}", op)
        values.append(value)
    if padding not in ("SAME", "VALID"):
        raise op_error(f"Value for attr 'padding' of \"{padding}\" is not in the list of allowed values: \"SAME\", "
                       f"\"VALID\"\n\t; NodeDef: {{{{node {op}}}}}", op)
    types.check(input.array.dtype)
    for value, name in zip(values, attrs):
        if len(value) != rank or value[0] != 1 or value[-1] != 1:
            raise op_error(f"{kernel_prefix(op)}Only support {name} across space.", op, tf.errors.UnimplementedError)
    if input.shape.rank != rank:
        dims = ",".join(str(d) for d in input.shape)
        raise op_error(f"{kernel_prefix(op)}input must be {rank}-dimensional[{dims}]", op)
    return values


def valid_count(size, extent, stride, op):
    """The number of VALID windows of ``extent`` along a dim of ``size`` (``op``'s error when negative)."""
    count = (size - extent + stride) // stride
    if count < 0:
        raise op_error(f"{kernel_prefix(op)}Computed output size would be negative: {count} [input_size: {size}, "
                       f"effective_filter_size: {extent}, stride: {stride}]", op)
    return count


def gather_windows(input, taps, pads):  # noqa: A002  (TF's argument name)
    """The windows of ``input`` ``[batch, *spatial, depth]`` as ``[batch, *counts, taps * depth]``.

    ``taps[i]`` (``[count_i, taps_i]``) holds the position of every tap of every window along spatial dim ``i`` of
    ``input`` padded with ``pads[i] = (before, after)`` zeros; a window's taps come dim by dim (the last fastest),
    a tap's channels together.  One gather of the flat tap indices into the padded input.
    """
    spatial, depth = input.shape.as_list()[1:-1], input.shape[-1]
    padded_sizes = [size + before + after for size, (before, after) in zip(spatial, pads)]
    padded = tf.pad(input, [[0, 0], *[list(p) for p in pads], [0, 0]]) if any(sum(p) for p in pads) else input
    # flat index into the padded spatial dims of [*counts, *taps]
    dims = len(taps)
    flat = np.zeros([1] * 2 * dims, np.int64)
    for axis, positions in enumerate(taps):
        shape = [1] * 2 * dims
        shape[axis], shape[dims + axis] = positions.shape
        flat = flat * padded_sizes[axis] + positions.reshape(shape)
    batch = tf.shape(input)[:1]
    cells = tf.reshape(padded, tf.concat([batch, [int(np.prod(padded_sizes)), depth]], axis=0))
    gathered = tf.gather(cells, flat.reshape(-1).astype(np.int32), axis=1)
    out_shape = list(flat.shape[:dims]) + [int(np.prod(flat.shape[dims:])) * depth]
    return tf.reshape(gathered, tf.concat([batch, out_shape], axis=0))


def _window_starts(size, extent, stride, padding):
    """(number of output positions, padding before) along one spatial dim, as TF's ``GetWindowedOutputSize``."""
    if padding == "VALID":
        return valid_count(size, extent, stride, _OP), 0
    count = -(-size // stride)
    return count, max((count - 1) * stride + extent - size, 0) // 2


def extract_patches(images, sizes, strides, rates, padding, name=None):
    """Extract ``sizes`` patches from ``images`` and put them in the depth dimension.

    Parameters
    ----------
    images : Tensor
        ``[batch, rows, cols, depth]``.
    sizes, strides, rates : sequence of 4 ints
        ``[1, size_rows, size_cols, 1]``, ``[1, stride_rows, stride_cols, 1]``, ``[1, rate_rows, rate_cols, 1]``
        (the rates dilate the window: its taps are ``rate`` pixels apart).
    padding : {"VALID", "SAME"}
        "SAME" pads with zeros so that there are ``ceil(rows / stride_rows)`` output rows (and columns).
    name : str, optional
        Ignored (eager).

    Returns
    -------
    Tensor
        ``[batch, out_rows, out_cols, size_rows * size_cols * depth]`` of ``images``' dtype, each output pixel holding
        its window row by row, a pixel's channels together.
    """
    images = convert_to_tensor(images)
    sizes, strides, rates = checked_arguments(_OP, _TYPES, 4, images, padding, ksizes=sizes, strides=strides,
                                              rates=rates)
    taps, pads = [], []
    for size, extent_taps, stride, rate in zip(images.shape[1:3], sizes[1:3], strides[1:3], rates[1:3]):
        extent = (extent_taps - 1) * rate + 1
        count, before = _window_starts(size, extent, stride, padding)
        # position of each tap of each window in the padded dimension: [count, taps]
        taps.append(np.arange(count)[:, None] * stride + np.arange(extent_taps)[None, :] * rate)
        pads.append((before, max((count - 1) * stride + extent - size - before, 0)))
    return gather_windows(images, taps, pads)


NAMESPACES = {"image": ["extract_patches"]}
TENSOR_METHODS = {}
