"""tf.image basics: resize, flips, rot90, central_crop, adjust_brightness/contrast, convert_image_dtype, and the
projective transform behind Keras' affine augmentation layers.

Images are ``[height, width, channels]`` or batched ``[batch, height, width, channels]``.  Everything is
composed of tf ops (gathers, arithmetic, and the per-axis weight matrices of ``_image_scale`` for "area", the
kernel methods and antialiasing), so tapes and tf.function see it and gradients flow to the
images.  Resizing computes TF's sample positions in float32 as TF's kernels do (half-pixel centers):
every method gathers the source pixels itself (bicubic: Keys' cubic with ``a = -0.5`` at distances
quantised to 1/1024 as TF's weight table does, taps outside the image dropped and the rest renormalised).
"""

import numpy as np

import vfw.frontends.tensorflow as tf
from vfw.core.graph.trace import current_trace
from vfw.frontends.tensorflow import _dtypes, _image_scale
from vfw.frontends.tensorflow._dispatch import convert_to_tensor, op_error

_RESIZE_METHODS = ("bilinear", "nearest", "bicubic", "area", "lanczos3", "lanczos5", "gaussian", "mitchellcubic")
# methods that TF runs as ScaleAndTranslate: kernel names, with antialias and without
_SCALED_KERNELS = {"lanczos3": "lanczos3", "lanczos5": "lanczos5", "gaussian": "gaussian",
                   "mitchellcubic": "mitchellcubic"}
_ANTIALIASED_KERNELS = {"bilinear": "triangle", "bicubic": "keyscubic"}
FILL_MODES = ("reflect", "wrap", "constant", "nearest")


def _image_rank(image, fn, ranks=(3, 4)):
    """``image`` as a tensor, checked to be of one of ``ranks`` (ValueError as TF's shape checks)."""
    image = convert_to_tensor(image, name="image")
    if image.shape.rank not in ranks:
        raise ValueError(f"{fn}: 'image' (shape {image.shape}) must have either 3 or 4 dimensions.")
    return image


def _batched(image):
    """``(images as a 4-D batch, whether a batch axis was added)``."""
    if image.shape.rank == 3:
        return tf.expand_dims(image, 0), True
    return image, False


def _unbatched(images, added):
    return tf.squeeze(images, 0) if added else images


# ---------------------------------------------------------------------------------------------------- resize


def _source_positions(n_in, n_out):
    """float32 half-pixel source coordinate of every output row/column: ``(o + 0.5) * n_in / n_out - 0.5``."""
    scale = np.float32(n_in) / np.float32(n_out)
    return (np.arange(n_out, dtype=np.float32) + np.float32(0.5)) * scale


def _positions(images, axis, n_out):
    """``(float32 half-pixel source coordinates, input size)`` along ``axis``: as :func:`_source_positions` computes
    them, by tf ops from ``tf.shape(images)`` while a graph is traced (an ONNX export with dynamic image sizes then
    computes them for the size it runs at, rather than holding the traced size's), else in numpy (faster eagerly;
    the same float32 arithmetic)."""
    if current_trace() is None:
        n_in = images.shape[axis]
        return _source_positions(n_in, n_out), n_in
    n_in = tf.shape(images)[axis]
    scale = tf.cast(n_in, tf.float32) / np.float32(n_out)
    return tf.constant(np.arange(n_out, dtype=np.float32) + np.float32(0.5)) * scale, n_in


def _nearest_indices(images, axis, n_out):
    """TF's half-pixel nearest neighbour along ``axis``: ``floor((o + 0.5) * scale)``, at most ``n_in - 1``."""
    position, n_in = _positions(images, axis, n_out)
    if isinstance(position, np.ndarray):
        return np.minimum(np.floor(position), n_in - 1).astype(np.int32)
    return tf.minimum(tf.cast(tf.floor(position), tf.int32), n_in - 1)


def _linear_taps(images, axis, n_out):
    """``(lower index, upper index, float32 weight of the upper)`` of TF's half-pixel bilinear resize along
    ``axis``."""
    position, n_in = _positions(images, axis, n_out)
    position = position - np.float32(0.5)
    if isinstance(position, np.ndarray):
        floor = np.floor(position)
        upper = np.minimum(np.ceil(position), n_in - 1).astype(np.int32)
        return np.maximum(floor, 0).astype(np.int32), upper, (position - floor).astype(np.float32)
    floor = tf.floor(position)
    lower = tf.maximum(tf.cast(floor, tf.int32), 0)
    upper = tf.minimum(tf.cast(tf.math.ceil(position), tf.int32), n_in - 1)
    return lower, upper, position - floor


def _resize_bilinear(images, height, width):
    images = tf.cast(images, tf.float32)
    top, bottom, y_weight = _linear_taps(images, 1, height)
    left, right, x_weight = _linear_taps(images, 2, width)
    y_weight = tf.reshape(tf.convert_to_tensor(y_weight), (1, -1, 1, 1))
    x_weight = tf.reshape(tf.convert_to_tensor(x_weight), (1, 1, -1, 1))
    rows_top = tf.gather(images, top, axis=1)
    rows_bottom = tf.gather(images, bottom, axis=1)

    def across(rows):
        row_left = tf.gather(rows, left, axis=2)
        return row_left + (tf.gather(rows, right, axis=2) - row_left) * x_weight

    upper = across(rows_top)
    return upper + (across(rows_bottom) - upper) * y_weight


def _resize_nearest(images, height, width):
    rows = tf.gather(images, _nearest_indices(images, 1, height), axis=1)
    return tf.gather(rows, _nearest_indices(images, 2, width), axis=2)


_CUBIC_TABLE_SIZE = 1024  # TF's bicubic kernel looks its weights up at distances quantised to 1/1024
_KEYS_A = -0.5


def _keys_cubic(distance):
    """Keys' cubic convolution weight (``a = -0.5``) at ``distance`` in [0, 2]."""
    a = _KEYS_A
    near = ((a + 2) * distance - (a + 3)) * distance * distance + 1
    far = ((a * distance - 5 * a) * distance + 8 * a) * distance - 4 * a
    return np.where(distance <= 1, near, far)


def _cubic_taps(n_in, n_out):
    """``(indices [n_out, 4], float32 weights [n_out, 4])`` of TF's half-pixel bicubic resize: the four pixels
    around each position, weights at the quantised distance, those of pixels outside the image dropped and the
    rest renormalised."""
    position = _source_positions(n_in, n_out) - np.float32(0.5)
    start = np.floor(position)
    step = np.rint((position - start) * np.float32(_CUBIC_TABLE_SIZE)) / _CUBIC_TABLE_SIZE
    offsets = np.arange(-1, 3)
    indices = start.astype(np.int64)[:, None] + offsets
    weights = _keys_cubic(np.abs(offsets - step[:, None])).astype(np.float32)
    inside = (indices >= 0) & (indices < n_in)
    weights = np.where(inside, weights, np.float32(0))
    weights = weights / weights.sum(axis=1, keepdims=True)
    return np.clip(indices, 0, n_in - 1).astype(np.int32), weights.astype(np.float32)


def _resize_bicubic(images, height, width):
    images = tf.cast(images, tf.float32)
    for axis, size in ((1, height), (2, width)):
        indices, weights = _cubic_taps(images.shape[axis], size)
        shape = [1, 1, 1, 1]
        shape[axis] = size
        images = tf.add_n([tf.gather(images, indices[:, k], axis=axis) * tf.constant(weights[:, k].reshape(shape))
                           for k in range(4)])
    return images


_RESIZERS = {"bilinear": _resize_bilinear, "nearest": _resize_nearest, "bicubic": _resize_bicubic,
             "area": _image_scale.resize_area}
_RESIZE_OPS = {"bilinear": "ResizeBilinear", "nearest": "ResizeNearestNeighbor", "bicubic": "ResizeBicubic",
               "area": "ResizeArea"}


def _positive_size(height, width, method):
    """``(height, width)``, checked as TF's resize kernels check an output size."""
    if height <= 0 or width <= 0:
        raise op_error("output dimensions must be positive", _RESIZE_OPS[method])
    return height, width


def _resizer(method, antialias):
    """The function ``(images, height, width)`` TF runs for ``method``: ScaleAndTranslate with the method's kernel
    for lanczos/gaussian/mitchellcubic and antialiased bilinear/bicubic; "nearest" and "area" ignore ``antialias``."""
    kernel = _SCALED_KERNELS.get(method) or (_ANTIALIASED_KERNELS.get(method) if antialias else None)
    if kernel is None:
        return lambda images, height, width: _RESIZERS[method](images, *_positive_size(height, width, method))
    return lambda images, height, width: _image_scale.resize_scaled(images, height, width, kernel, antialias)


def _aspect_preserving_size(height, width, target_height, target_width):
    scale = min(target_height / height, target_width / width)
    return int(round(height * scale)), int(round(width * scale))


def resize(images, size, method="bilinear", preserve_aspect_ratio=False, antialias=False, name=None):
    """``images`` resized to ``size`` (TF2's half-pixel sampling).

    Parameters
    ----------
    images : tensor ``[h, w, c]`` or ``[batch, h, w, c]``
    size : (new_height, new_width)
    method : {"bilinear", "nearest", "bicubic", "area", "lanczos3", "lanczos5", "gaussian", "mitchellcubic"}
        ``tf.image.ResizeMethod`` values.
    preserve_aspect_ratio : bool
        Scale both sides by the same factor so that the result fits in ``size``.
    antialias : bool
        Widen the filter when downsampling (bilinear, bicubic and the ScaleAndTranslate kernels; "nearest" and
        "area" ignore it).

    Returns
    -------
    Tensor
        float32, except that "nearest" keeps the images' dtype.
    """
    images = _image_rank(images, "resize")
    method = getattr(method, "value", method)
    if method not in _RESIZE_METHODS:
        raise ValueError(f"Resize method is not implemented: [{method}]")
    size = [int(s) for s in np.asarray(size.numpy() if hasattr(size, "numpy") else size).reshape(-1)]
    if len(size) != 2:
        raise ValueError(f"'size' must be a 1-D Tensor of 2 elements: new_height, new_width (got {size})")
    batch, added = _batched(images)
    height, width = size
    if preserve_aspect_ratio:
        height, width = _aspect_preserving_size(batch.shape[1], batch.shape[2], height, width)
    return _unbatched(_resizer(method, antialias)(batch, height, width), added)


class ResizeMethod:
    """The ``method`` names of ``tf.image.resize``."""

    BILINEAR = "bilinear"
    NEAREST_NEIGHBOR = "nearest"
    BICUBIC = "bicubic"
    AREA = "area"
    LANCZOS3 = "lanczos3"
    LANCZOS5 = "lanczos5"
    GAUSSIAN = "gaussian"
    MITCHELLCUBIC = "mitchellcubic"


# ---------------------------------------------------------------------------------------------------- geometry


def flip_left_right(image):
    """``image`` mirrored along its width axis (3-D or 4-D)."""
    image = _image_rank(image, "flip_left_right")
    return tf.reverse(image, [image.shape.rank - 2])


def flip_up_down(image):
    """``image`` mirrored along its height axis (3-D or 4-D)."""
    image = _image_rank(image, "flip_up_down")
    return tf.reverse(image, [image.shape.rank - 3])


def rot90(image, k=1, name=None):
    """``image`` rotated counter-clockwise by ``k`` quarter turns (3-D or 4-D)."""
    image = _image_rank(image, "rot90")
    turns = int(k) % 4
    rows, cols = image.shape.rank - 3, image.shape.rank - 2
    perm = list(range(image.shape.rank))
    perm[rows], perm[cols] = cols, rows
    if turns == 1:
        return tf.reverse(tf.transpose(image, perm), [rows])
    if turns == 2:
        return tf.reverse(image, [rows, cols])
    if turns == 3:
        return tf.transpose(tf.reverse(image, [rows]), perm)
    return image


def central_crop(image, central_fraction):
    """The central ``central_fraction`` (in (0, 1]) of ``image``'s height and width."""
    image = _image_rank(image, "central_crop")
    if central_fraction <= 0.0 or central_fraction > 1.0:
        raise ValueError("central_fraction must be within (0, 1]")
    if central_fraction == 1.0:
        return image
    rows = image.shape.rank - 3
    height, width = image.shape[rows], image.shape[rows + 1]
    # TF: start = int((size - size * fraction) / 2) in floating point, the crop is size - 2 * start
    top = int((height - height * central_fraction) / 2)
    left = int((width - width * central_fraction) / 2)
    index = [slice(None)] * image.shape.rank
    index[rows] = slice(top, height - top)
    index[rows + 1] = slice(left, width - left)
    return image[tuple(index)]


# ---------------------------------------------------------------------------------------------------- values


def _max_value(dtype):
    return np.iinfo(dtype.np).max


def convert_image_dtype(image, dtype, saturate=False, name=None):
    """``image`` converted to ``dtype`` with TF's value ranges: floats in [0, 1], integers in [0, MAX].

    Float to float is a cast; integer to float divides by the input's MAX; float to integer multiplies by
    ``MAX + 0.5`` and truncates (clipping first when ``saturate``); integer to integer rescales by the
    power-of-two ratio of the ranges.
    """
    image = convert_to_tensor(image, name="image")
    source = _dtypes.of_array(image.array)
    dtype = _dtypes.as_dtype(dtype)
    if not (dtype.is_floating or dtype.is_integer):
        raise AttributeError("dtype must be either floating point or integer")
    if not (source.is_floating or source.is_integer):
        raise AttributeError("image dtype must be either floating point or integer")
    if source == dtype:
        return tf.identity(image)
    if source.is_integer and dtype.is_integer:
        in_max, out_max = _max_value(source), _max_value(dtype)
        if in_max > out_max:
            factor = (in_max + 1) // (out_max + 1)
            return tf.cast(tf.math.floordiv(image, tf.cast(factor, source)), dtype)
        factor = (out_max + 1) // (in_max + 1)
        return tf.cast(image, dtype) * tf.cast(factor, dtype)
    if source.is_floating and dtype.is_floating:
        return tf.cast(image, dtype)
    if source.is_integer:
        return tf.cast(image, dtype) * tf.constant(1.0 / _max_value(source), dtype=dtype)
    scaled = image * tf.constant(_max_value(dtype) + 0.5, dtype=source)
    if saturate:  # TF's saturate_cast: clipped to the integer type's range (its bounds as the float type holds them)
        limits = np.iinfo(dtype.np)
        low, high = source.np.type(limits.min), source.np.type(limits.max)
        if int(high) > limits.max:
            high = np.nextafter(high, source.np.type(0))
        scaled = tf.clip_by_value(scaled, tf.constant(low, dtype=source), tf.constant(high, dtype=source))
    return tf.cast(scaled, dtype)


def _in_float(image, adjust):
    """``adjust(image)`` in float32 for integer images (converted there and back, saturating), as TF does."""
    image = convert_to_tensor(image, name="image")
    dtype = _dtypes.of_array(image.array)
    if dtype.is_floating:
        return adjust(image)
    return convert_image_dtype(adjust(convert_image_dtype(image, tf.float32)), dtype, saturate=True)


def adjust_brightness(image, delta):
    """``image + delta`` (integer images in their [0, 1] float scale)."""
    return _in_float(image, lambda x: x + tf.cast(delta, x.dtype))


def adjust_contrast(images, contrast_factor):
    """``(x - mean) * contrast_factor + mean``, the mean per image and channel over height and width."""
    def adjust(x):
        rank = x.shape.rank
        mean = tf.reduce_mean(x, axis=[rank - 3, rank - 2], keepdims=True)
        return (x - mean) * tf.cast(contrast_factor, x.dtype) + mean

    return _in_float(images, adjust)


# ---------------------------------------------------------------------------------------------------- projective


def _mapped(coords, size, fill_mode):
    """Source coordinates outside ``[0, size - 1]`` brought back in as ``fill_mode`` extends the image."""
    last = float(size - 1)
    if fill_mode == "constant":
        return coords
    if size <= 1:
        return tf.zeros_like(coords)
    if fill_mode == "reflect":  # ... d c b a | a b c d | d c b a ...
        period = 2.0 * size
        below = coords + period * tf.floor(-coords / period)
        below = tf.where(below < -size, below + period, -below - 1.0)
        above = coords - period * tf.floor(coords / period)
        above = tf.where(above >= size, period - above - 1.0, above)
        coords = tf.where(coords < 0, below, tf.where(coords > last, above, coords))
    elif fill_mode == "wrap":  # ... a b c d | a b c d ..., shifting by whole periods counted as TF's kernel does
        below = coords + size * (tf.floor(-coords / last) + 1.0)
        above = coords - size * tf.floor(coords / last)
        coords = tf.where(coords < 0, below, tf.where(coords > last, above, coords))
    return tf.clip_by_value(coords, 0.0, last)


def _read(flat, batch_offsets, rows, cols, height, width, fill_value):
    """Pixels at integer-valued float positions ``rows``/``cols`` ``[batch, h, w]``; ``fill_value`` outside."""
    inside = (rows >= 0) & (rows <= height - 1) & (cols >= 0) & (cols <= width - 1)
    index = tf.cast(tf.where(inside, rows * width + cols, tf.zeros_like(rows)), tf.int32) + batch_offsets
    values = tf.gather(flat, index)
    return tf.where(inside[..., None], values, tf.cast(fill_value, flat.dtype))


def projective_transform(images, transforms, interpolation="bilinear", fill_mode="constant", fill_value=0.0):
    """TF's ``ImageProjectiveTransformV3`` on a ``[batch, h, w, c]`` batch, output the input's size and dtype.

    Output pixel ``(x, y)`` (column, row) samples the input at ``((a0 x + a1 y + a2) / k, (b0 x + b1 y + b2) / k)``,
    ``k = c0 x + c1 y + 1``, from each image's float32 transform ``[a0, a1, a2, b0, b1, b2, c0, c1]``
    (``transforms`` ``[batch, 8]`` or ``[1, 8]`` for all).  Positions outside the image are brought in by
    ``fill_mode`` ("reflect", "wrap", "nearest"; "constant" leaves them), then read bilinearly or at the
    nearest pixel (rounded half away from zero), ``fill_value`` standing for pixels still outside.
    """
    batch, height, width = images.shape[0], images.shape[1], images.shape[2]
    # TF's kernel reads pixels as float32 and interpolates in float32 whatever the images' dtype, and casts
    # the result back to it.
    image_dtype = images.dtype
    images = tf.cast(images, tf.float32)
    transforms = tf.cast(transforms, tf.float32)
    if transforms.shape[0] == 1 and batch != 1:
        transforms = tf.tile(transforms, [batch, 1])
    coefficient = [tf.reshape(transforms[:, i], [-1, 1, 1]) for i in range(8)]
    ys, xs = np.meshgrid(np.arange(height, dtype=np.float32), np.arange(width, dtype=np.float32), indexing="ij")
    xs, ys = tf.constant(xs[None]), tf.constant(ys[None])
    projection = coefficient[6] * xs + coefficient[7] * ys + 1.0
    source_x = (coefficient[0] * xs + coefficient[1] * ys + coefficient[2]) / projection
    source_y = (coefficient[3] * xs + coefficient[4] * ys + coefficient[5]) / projection
    source_x = _mapped(source_x, width, fill_mode)
    source_y = _mapped(source_y, height, fill_mode)
    flat = tf.reshape(images, [-1, images.shape[3]])
    offsets = tf.constant((np.arange(batch, dtype=np.int32) * (height * width)).reshape(-1, 1, 1))

    def read(rows, cols):
        return _read(flat, offsets, rows, cols, height, width, fill_value)

    if interpolation == "nearest":
        result = read(tf.sign(source_y) * tf.floor(tf.abs(source_y) + 0.5),
                      tf.sign(source_x) * tf.floor(tf.abs(source_x) + 0.5))
    else:
        top, left = tf.floor(source_y), tf.floor(source_x)
        y_weight, x_weight = (source_y - top)[..., None], (source_x - left)[..., None]
        upper = read(top, left) * (1.0 - x_weight) + read(top, left + 1.0) * x_weight
        lower = read(top + 1.0, left) * (1.0 - x_weight) + read(top + 1.0, left + 1.0) * x_weight
        result = upper * (1.0 - y_weight) + lower * y_weight
    # TF's kernel gives fill_value where the projection is 0
    return tf.cast(tf.where((projection == 0.0)[..., None], tf.cast(fill_value, result.dtype), result), image_dtype)


NAMESPACES = {"image": ["resize", "ResizeMethod", "flip_left_right", "flip_up_down", "rot90", "central_crop",
                        "adjust_brightness", "adjust_contrast", "convert_image_dtype"]}
