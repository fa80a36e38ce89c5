"""Separable-kernel resizes: TF's ``ScaleAndTranslate`` (antialiased resizes, lanczos3/5, gaussian, mitchellcubic)
and ``ResizeArea``.

Both are linear maps applied per axis: the weights of every output row (column) over the input rows (columns) are
computed once in numpy as a dense ``[out, in]`` matrix, in float32 with TF's sample positions, and the images are
multiplied by the two matrices with tf ops, so tapes see a linear map whose gradient is the transposed matrices.
"""

import numpy as np

import vfw.frontends.tensorflow as tf
from vfw.frontends.tensorflow._dispatch import convert_to_tensor, op_error
from vfw.frontends.tensorflow._math_binary import _no_gradient
from vfw.frontends.tensorflow._op_support import with_gradient

_PI = np.float32(3.14159265359)


def _lanczos(radius):
    def kernel(x):
        # sin(pi x) sin(pi x / r) r / (pi x)^2, 1 at (near) zero, 0 past the radius
        safe = np.where(x <= np.float32(1e-3), np.float32(1), x)
        value = (np.float32(radius) * np.sin(_PI * safe) * np.sin(_PI * safe / np.float32(radius))
                 / (_PI * _PI * safe * safe))
        return np.where(x > radius, np.float32(0), np.where(x <= np.float32(1e-3), np.float32(1), value))
    return kernel, float(radius)


def _gaussian(x):
    sigma = np.float32(0.5)  # radius 1.5 is three standard deviations
    return np.where(x >= np.float32(1.5), np.float32(0), np.exp(-x * x / (np.float32(2) * sigma * sigma)))


def _box(x):
    return np.where(x < np.float32(0.5), np.float32(1), np.where(x == np.float32(0.5), np.float32(0.5), np.float32(0)))


def _triangle(x):
    return np.where(x < np.float32(1), np.float32(1) - x, np.float32(0))


def _cubic(b, c):
    """The Mitchell-Netravali family of cubics: ``(b, c) = (0, 0.5)`` is Keys' cubic, ``(1/3, 1/3)`` Mitchell's."""
    def kernel(x):
        near = ((12 - 9 * b - 6 * c) * x ** 3 + (-18 + 12 * b + 6 * c) * x ** 2 + (6 - 2 * b)) / 6
        far = ((-b - 6 * c) * x ** 3 + (6 * b + 30 * c) * x ** 2 + (-12 * b - 48 * c) * x + (8 * b + 24 * c)) / 6
        return np.where(x >= 2, 0, np.where(x >= 1, far, near)).astype(np.float32)
    return kernel, 2.0


KERNELS = {"lanczos1": _lanczos(1), "lanczos3": _lanczos(3), "lanczos5": _lanczos(5), "gaussian": (_gaussian, 1.5),
           "box": (_box, 1.0), "triangle": (_triangle, 1.0), "keyscubic": _cubic(0.0, 0.5),
           "mitchellcubic": _cubic(1.0 / 3.0, 1.0 / 3.0)}
"""ScaleAndTranslate's ``kernel_type`` names: ``(weight of a float32 distance >= 0, radius)``."""


def scale_translate_weights(n_in, n_out, scale, translation, kernel_type, antialias):
    """ScaleAndTranslate's float32 ``[n_out, n_in]`` weights along one axis.

    Output pixel ``o`` samples the input at ``(o + 0.5 - translation) / scale``; the kernel (widened by
    ``1 / scale`` when ``antialias`` and downsampling) weighs the input pixels whose centers lie within its radius,
    and the weights are normalised to sum to 1.  Samples outside ``[0, n_in]`` give zero rows.
    """
    kernel, radius = KERNELS[kernel_type]
    inv_scale = np.float32(1.0 / np.float64(np.float32(scale)))
    inv_translate = -inv_scale * np.float32(translation)
    kernel_scale = max(inv_scale, np.float32(1)) if antialias else np.float32(1)
    reach = np.float32(radius) * kernel_scale
    span = int(min(2 * int(np.ceil(reach)) + 1, n_in))
    sample = (np.arange(n_out, dtype=np.float32) + np.float32(0.5)) * inv_scale + inv_translate
    start = np.clip(np.ceil(sample - reach - np.float32(0.5)), 0, n_in - 1).astype(np.int64)
    end = np.clip(np.floor(sample + reach - np.float32(0.5)), 0, n_in - 1).astype(np.int64) + 1
    sources = start[:, None] + np.arange(span)
    used = (sources < end[:, None]) & ((sample >= 0) & (sample <= n_in))[:, None]
    distance = np.abs((sources.astype(np.float32) + np.float32(0.5) - sample[:, None]) / kernel_scale)
    weights = np.where(used, kernel(distance.astype(np.float32)), np.float32(0)).astype(np.float32)
    total = weights.sum(axis=1, keepdims=True, dtype=np.float32)
    normalisable = np.abs(total) >= np.float32(1000) * np.finfo(np.float32).tiny
    weights = np.where(normalisable, weights * (np.float32(1) / np.where(normalisable, total, 1)), np.float32(0))
    matrix = np.zeros((n_out, n_in), np.float32)
    np.add.at(matrix, (np.broadcast_to(np.arange(n_out)[:, None], sources.shape), np.minimum(sources, n_in - 1)),
              np.where(used, weights, np.float32(0)))
    return matrix


def area_weights(n_in, n_out):
    """ResizeArea's float32 ``[n_out, n_in]`` weights: the length of input pixel ``i`` covered by output pixel
    ``o``'s span ``[o, o + 1) * n_in / n_out``, over the span's length (an exact box average)."""
    scale = np.float32(n_in) / np.float32(n_out)
    begin = np.arange(n_out, dtype=np.float32)[:, None] * scale
    end = np.arange(1, n_out + 1, dtype=np.float32)[:, None] * scale
    cells = np.arange(n_in, dtype=np.float32)
    overlap = np.minimum(cells + 1, end) - np.maximum(cells, begin)
    return (np.maximum(overlap, 0) / scale).astype(np.float32)


def apply_separable(images, row_weights, col_weights):
    """``[b, h, w, c]`` images mapped by ``[out_h, h]`` then ``[out_w, w]`` weights: ``[b, out_h, out_w, c]``."""
    batch, height, width, channels = images.shape
    out_height, out_width = row_weights.shape[0], col_weights.shape[0]
    rows = tf.matmul(tf.constant(row_weights), tf.reshape(images, [batch, height, width * channels]))
    cols = tf.matmul(tf.constant(col_weights), tf.reshape(rows, [batch * out_height, width, channels]))
    return tf.reshape(cols, [batch, out_height, out_width, channels])


def resize_area(images, height, width):
    """TF's ResizeArea (half-open spans, no align_corners) of a ``[b, h, w, c]`` batch, float32; like TF it has
    no gradient (LookupError when one is asked for)."""
    images = tf.cast(images, tf.float32)
    rows, cols = area_weights(images.shape[1], height), area_weights(images.shape[2], width)
    return with_gradient(lambda x: apply_separable(x, rows, cols), _no_gradient("ResizeArea"), images)


def _pair(value, dtype, name, message):
    pair = convert_to_tensor(value, dtype_hint=dtype, name=name)
    flat = np.asarray(pair.array).reshape(-1)
    if pair.shape.rank != 1 or flat.size != 2:
        raise op_error(message + str(pair.shape.as_list()).replace(" ", ""), "ScaleAndTranslate")
    return flat


def scale_and_translate(images, size, scale, translation, kernel_type="lanczos3", antialias=True, name=None):
    """TF's ``ScaleAndTranslate`` (``tf.raw_ops``): a ``[b, h, w, c]`` batch resampled to ``size``.

    Parameters
    ----------
    images : tensor ``[batch, height, width, channels]``, integer or float
    size : int32 ``[2]``, the output height and width
    scale, translation : float32 ``[2]``
        Output pixel ``(y, x)`` samples the input at ``((y + 0.5 - ty) / sy, (x + 0.5 - tx) / sx)`` (half-pixel
        coordinates), zero where that lies outside the image.
    kernel_type : str
        One of "lanczos1", "lanczos3", "lanczos5", "gaussian", "box", "triangle", "keyscubic", "mitchellcubic".
    antialias : bool
        Widen the kernel by ``1 / scale`` when downsampling.

    Returns
    -------
    Tensor
        float32 ``[batch, size[0], size[1], channels]``; differentiable with respect to float32 images.
    """
    images = convert_to_tensor(images, name="images")
    if kernel_type not in KERNELS:
        raise op_error(f"Unrecognized kernel type: {kernel_type}", "ScaleAndTranslate")
    if images.shape.rank != 4:
        shape = str(images.shape.as_list()).replace(" ", "")
        raise op_error(f"input must be 4-dimensional{shape}", "ScaleAndTranslate")
    size = _pair(size, tf.int32, "size", "output_shape_t must have two elements")
    scale = _pair(scale, tf.float32, "scale", "scale_t must have two elements")
    translation = _pair(translation, tf.float32, "translation", "translate_t must have two elements")
    if np.any(size <= 0):
        raise op_error("output dimensions must be positive", "ScaleAndTranslate")
    if np.any(scale <= 0):
        raise op_error("Scale must be greater than zero.", "ScaleAndTranslate")
    rows, cols = (scale_translate_weights(images.shape[axis + 1], int(size[axis]), scale[axis], translation[axis],
                                          kernel_type, antialias) for axis in (0, 1))
    return apply_separable(tf.cast(images, tf.float32), rows, cols)


def resize_scaled(images, height, width, kernel_type, antialias):
    """``tf.image.resize`` through ScaleAndTranslate: scale ``new / old`` (float32) and no translation."""
    scale = np.float32([height, width]) / np.float32(images.shape[1:3])
    return scale_and_translate(images, [height, width], scale, [0.0, 0.0], kernel_type, antialias)


NAMESPACES = {}
