"""Grayscale morphology: tf.nn.dilation2d and tf.nn.erosion2d (NHWC).

``dilation2d`` is TF's Dilation2D: each output is the maximum over the (dilated) filter window of
``input + filter``, positions outside the input skipped.  Its gradient, as TF's, goes whole to the
first maximal position of each window (in row-major filter order), for the input and the filter.
``erosion2d`` is TF's composition ``-dilation2d(-value, reverse(filters, [0, 1]))``.
"""

import numpy as np

from vfw.frontends.tensorflow import errors
from vfw.frontends.tensorflow._array_transform import reverse
from vfw.frontends.tensorflow._dispatch import host, op_error
from vfw.frontends.tensorflow._math_unary import negative
from vfw.frontends.tensorflow._op_support import OpTypes, dtypes_of, matching, with_gradient

_DILATION_TYPES = OpTypes("Dilation2D", dtypes_of("F I U"))


def _four(values, what, tf_op):
    values = [int(v) for v in values]
    if len(values) < 4:
        raise op_error(f"Length for attr '{what}' of {len(values)} must be at least minimum 4", tf_op)
    return values


class _Windows:
    """The windows of a Dilation2D: output size, padding, and the input position of each window tap."""

    def __init__(self, input_shape, filter_shape, strides, rates, padding):
        _, height, width, _ = input_shape
        self.kernel = filter_shape[:2]
        out, before = [], []
        for size, k, stride, rate in zip((height, width), self.kernel, strides[1:3], rates[1:3]):
            span = (k - 1) * rate + 1
            if padding == "VALID":
                n = max(0, (size - span + stride) // stride)
                pad = 0
            else:
                n = -(-size // stride)
                pad = max(0, (n - 1) * stride + span - size) // 2
            out.append(n)
            before.append(pad)
        # input row/column of tap (i, j) of window (y, x): y * stride + i * rate - pad
        self.rows = (np.arange(out[0])[:, None] * strides[1] + np.arange(self.kernel[0])[None, :] * rates[1]
                     - before[0])
        self.cols = (np.arange(out[1])[:, None] * strides[2] + np.arange(self.kernel[1])[None, :] * rates[2]
                     - before[1])
        self.size = (height, width)

    def best(self, x, f):
        """The window maxima of ``x + f`` and the flat filter tap of each (first maximum)."""
        rows = self.rows[:, None, :, None]  # (oh, 1, kh, 1)
        cols = self.cols[None, :, None, :]  # (1, ow, 1, kw)
        inside = (rows >= 0) & (rows < self.size[0]) & (cols >= 0) & (cols < self.size[1])
        taps = x[:, np.clip(rows, 0, self.size[0] - 1), np.clip(cols, 0, self.size[1] - 1), :]  # b oh ow kh kw c
        values = taps + f[None, None, None]
        lowest = -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min
        values = np.where(inside[None, ..., None], values, np.asarray(lowest, x.dtype))
        shape = values.shape
        flat = values.reshape(shape[:3] + (shape[3] * shape[4], shape[5]))
        tap = np.argmax(flat, axis=3)
        return np.take_along_axis(flat, tap[:, :, :, None], axis=3)[:, :, :, 0], tap

    def gradients(self, g, x, f):
        """The input and filter gradients of output gradient ``g`` (each to its window's first maximum)."""
        _, tap = self.best(x, f)
        i, j = np.divmod(tap, self.kernel[1])  # (b, oh, ow, c)
        b, y, xo, c = np.indices(tap.shape)
        rows, cols = self.rows[y, i], self.cols[xo, j]
        grad_x = np.zeros_like(x)
        np.add.at(grad_x, (b, rows, cols, c), g)
        grad_f = np.zeros_like(f)
        np.add.at(grad_f, (i, j, c), g)
        return grad_x, grad_f


def dilation2d(input, filters, strides, padding, data_format, dilations, name=None):  # noqa: A002  (TF's name)
    """Grayscale dilation of NHWC ``input`` by the per-channel structuring function ``filters``.

    Parameters
    ----------
    input : Tensor, shape ``(batch, height, width, depth)``
    filters : Tensor, shape ``(filter_height, filter_width, depth)``
    strides, dilations : sequence of 4 int
        ``[1, stride_h, stride_w, 1]`` and ``[1, rate_h, rate_w, 1]``.
    padding : {"SAME", "VALID"}
    data_format : str
        Must be "NHWC".

    Returns
    -------
    Tensor
        ``out[b, y, x, c] = max_{i, j} input[b, y*sh + i*rh - pad_h, x*sw + j*rw - pad_w, c] + filters[i, j, c]``.
    """
    if data_format != "NHWC":
        raise ValueError("`data_format` values other  than 'NHWC' are not supported. Received: "
                         f"data_format={data_format}")
    tf_op = "Dilation2D"
    x, f = matching(tf_op, input, filters, types=_DILATION_TYPES)
    strides, rates = _four(strides, "strides", tf_op), _four(dilations, "rates", tf_op)
    if padding not in ("SAME", "VALID"):
        raise op_error(f"Value for attr 'padding' of \"{padding}\" is not in the list of allowed values: \"SAME\", "
                       "\"VALID\"", tf_op)
    if x.array.ndim != 4:
        raise op_error(f"input must be 4-dimensional{list(x.array.shape)}", tf_op)
    if f.array.ndim != 3:
        raise op_error(f"filter must be 3-dimensional: {list(f.array.shape)}", tf_op)
    if strides[0] != 1 or strides[3] != 1:
        raise op_error("Stride is only supported across spatial dimensions.", tf_op, errors.UnimplementedError)
    if rates[0] != 1 or rates[3] != 1:
        raise op_error("Rate is only supported across spatial dimensions.", tf_op, errors.UnimplementedError)
    if x.array.shape[3] != f.array.shape[2]:
        raise op_error(f"input and filter must have the same depth: {x.array.shape[3]} vs {f.array.shape[2]}",
                       tf_op)
    windows = _Windows(x.array.shape, f.array.shape, strides, rates, padding)

    def forward(a, b):
        return host(lambda xa, fa: windows.best(xa, fa)[0], a, b)

    def backward(g, a, b):
        if not a.dtype.is_floating:
            return None, None
        return host(windows.gradients, g, a, b)

    return with_gradient(forward, backward, x, f)


def erosion2d(value, filters, strides, padding, data_format, dilations, name=None):
    """Grayscale erosion: ``-dilation2d(-value, filters reversed in height and width)``.

    Parameters and result as ``dilation2d``: ``out[b, y, x, c] = min_{i, j} value[...] - filters[i, j, c]``.
    """
    if data_format != "NHWC":
        raise ValueError("`data_format` values other  than 'NHWC' are not supported. Received: "
                         f"data_format={data_format}")
    return negative(dilation2d(negative(value), reverse(filters, [0, 1]), strides, padding, "NHWC", dilations))


NAMESPACES = {"nn": ["dilation2d", "erosion2d"]}
