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
_KERNEL = "{{function_node __wrapped__ExtractImagePatches_device_/job:localhost/replica:0/task:0/device:CPU:0}} "


def _attr(values, name):
    values = [int(v) for v in values]
    if len(values) < 4:
        raise op_error(f"Length for attr '{name}' of {len(values)} must be at least minimum 4\n\t; NodeDef: "
                       f"{{{{node {_OP}}}}}", _OP)
    return values


def _window_starts(size, extent, stride, padding):
    """(number of output positions, padding before) along one spatial dim, as TF's ``GetWindowedOutputSize``."""
    if padding == "VALID":
        count = (size - extent + stride) // stride
        if count < 0:
            raise op_error(f"{_KERNEL}Computed output size would be negative: {count} [input_size: {size}, "
                           f"effective_filter_size: {extent}, stride: {stride}]", _OP)
        return count, 0
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
    sizes, strides, rates = _attr(sizes, "ksizes"), _attr(strides, "strides"), _attr(rates, "rates")
    if padding not in ("SAME", "VALID"):
        raise op_error(f"Value for attr 'padding' of \"{padding}\" is not in the list of allowed values: \"SAME\", "
                       f"\"VALID\"\n\t; NodeDef: {{{{node {_OP}}}}}", _OP)
    _TYPES.check(images.array.dtype)
    for values, what in ((sizes, "ksizes"), (strides, "strides"), (rates, "rates")):
        if len(values) != 4 or values[0] != 1 or values[3] != 1:
            raise op_error(f"{_KERNEL}Only support {what} across space.", _OP, tf.errors.UnimplementedError)
    if images.shape.rank != 4:
        dims = ",".join(str(d) for d in images.shape)
        raise op_error(f"{_KERNEL}input must be 4-dimensional[{dims}]", _OP)
    batch = tf.shape(images)[:1]
    rows, cols, depth = images.shape[1], images.shape[2], images.shape[3]
    windows = []
    pads = []
    for size, extent_taps, stride, rate in ((rows, sizes[1], strides[1], rates[1]),
                                            (cols, sizes[2], strides[2], rates[2])):
        extent = (extent_taps - 1) * rate + 1
        count, before = _window_starts(size, extent, stride, padding)
        after = max((count - 1) * stride + extent - size - before, 0)
        # Position of each tap of each window in the padded dimension: [count, taps].
        windows.append(np.arange(count)[:, None] * stride + np.arange(extent_taps)[None, :] * rate)
        pads.append((before, after, size + before + after))
    (row_taps, col_taps), ((top, bottom, padded_rows), (left, right, padded_cols)) = windows, pads
    padded = tf.pad(images, [[0, 0], [top, bottom], [left, right], [0, 0]]) if top + bottom + left + right else images
    # Flat index into padded_rows * padded_cols for [out_rows, out_cols, taps_rows, taps_cols].
    flat = row_taps[:, None, :, None] * padded_cols + col_taps[None, :, None, :]
    out_rows, out_cols = flat.shape[0], flat.shape[1]
    pixels = tf.reshape(padded, tf.concat([batch, [padded_rows * padded_cols, depth]], axis=0))
    gathered = tf.gather(pixels, flat.reshape(-1).astype(np.int32), axis=1)
    return tf.reshape(gathered, tf.concat([batch, [out_rows, out_cols, sizes[1] * sizes[2] * depth]],
                                          axis=0))


NAMESPACES = {"image": ["extract_patches"]}
TENSOR_METHODS = {}
