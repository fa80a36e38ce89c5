"""tf.image: quality metrics (psnr, ssim, ssim_multiscale), per_image_standardization, adjust_gamma, transpose,
image_gradients, sobel_edges, crop_and_resize, extract_glimpse and the stateful random flips and crop.

Everything is composed of tf ops, so tapes, ``tf.function`` and ``Dataset.map`` see it.  The metrics follow
TF's computation order (Gaussian window built with a softmax, depthwise VALID convolutions, float32 throughout)
so their values match TF's to float32 rounding.  The stateful random ops draw TF's own numbers from the global
and op seeds (see ``_random_ops``).
"""

import numpy as np

import vfw.frontends.tensorflow as tf
from vfw.frontends.tensorflow import _dtypes, _image_geometry, _random_ops, errors
from vfw.frontends.tensorflow._dispatch import convert_to_tensor, is_tensor_like, op_error

_MSSSIM_WEIGHTS = (0.0448, 0.2856, 0.3001, 0.2363, 0.1333)
_CROP_IMAGE_DTYPES = (_dtypes.uint8, _dtypes.uint16, _dtypes.int8, _dtypes.int16, _dtypes.int32, _dtypes.int64,
                      _dtypes.float16, _dtypes.bfloat16, _dtypes.float32, _dtypes.float64)
_GLIMPSE_NOISES = ("uniform", "gaussian", "zero")


def _at_least_3d(image, fn):
    image = convert_to_tensor(image, name="image")
    if image.shape.rank is not None and image.shape.rank < 3:
        raise ValueError(f"{fn}: 'image' (shape {image.shape}) must be at least three-dimensional.")
    return image


# ---------------------------------------------------------------------------------------------------- simple ops


def adjust_gamma(image, gamma=1, gain=1):
    """``gain * image ** gamma`` on the image's [0, 1] float range, returned in the image's dtype (saturated).

    float16/float32 images are used as they are, others converted to float32 first (``convert_image_dtype``).
    A negative Python ``gamma`` raises ValueError, a negative tensor ``gamma`` InvalidArgumentError.
    """
    image = convert_to_tensor(image, name="image")
    original = image.dtype
    floats = image if original in (_dtypes.float16, _dtypes.float32) else tf.image.convert_image_dtype(
        image, _dtypes.float32)
    message = "Gamma should be a non-negative real number."
    if is_tensor_like(gamma):
        tf.debugging.Assert(tf.reduce_all(gamma >= 0), [message])
    elif gamma < 0:
        raise ValueError(message)
    adjusted = gain * floats ** gamma
    return tf.image.convert_image_dtype(adjusted, original, saturate=True)


def transpose(image, name=None):
    """``image`` with its height and width axes swapped (3-D ``[h, w, c]`` or 4-D ``[batch, h, w, c]``)."""
    image = _at_least_3d(image, "transpose")
    if image.shape.rank == 3:
        return tf.transpose(image, [1, 0, 2])
    if image.shape.rank == 4:
        return tf.transpose(image, [0, 2, 1, 3])
    raise ValueError(f"'image' (shape {image.shape}) must have either 3 or 4 dimensions.")


def per_image_standardization(image):
    """Each image (the last three axes) as float32 with mean 0 and variance 1: ``(x - mean) / max(stddev,
    1 / sqrt(pixels))``, the floor keeping uniform images finite."""
    image = tf.cast(_at_least_3d(image, "per_image_standardization"), _dtypes.float32)
    pixels = tf.reduce_prod(tf.shape(image)[-3:])
    mean = tf.reduce_mean(image, axis=[-1, -2, -3], keepdims=True)
    stddev = tf.math.reduce_std(image, axis=[-1, -2, -3], keepdims=True)
    floor = tf.math.rsqrt(tf.cast(pixels, _dtypes.float32))
    return (image - mean) / tf.maximum(stddev, floor)


def image_gradients(image):
    """``(dy, dx)``: forward differences down and across a 4-D ``[batch, h, w, d]`` image, each of the image's
    shape (the last row of ``dy`` and last column of ``dx`` are 0)."""
    image = convert_to_tensor(image, name="image")
    if image.shape.rank != 4:
        raise ValueError(f"image_gradients expects a 4D tensor [batch_size, h, w, d], not {image.shape}.")
    down = image[:, 1:, :, :] - image[:, :-1, :, :]
    across = image[:, :, 1:, :] - image[:, :, :-1, :]
    down = tf.pad(down, [[0, 0], [0, 1], [0, 0], [0, 0]])
    across = tf.pad(across, [[0, 0], [0, 0], [0, 1], [0, 0]])
    return down, across


def sobel_edges(image):
    """The Sobel responses ``[batch, h, w, d, 2]`` of a 4-D float image (vertical then horizontal kernel),
    computed on the image reflect-padded by one pixel."""
    image = convert_to_tensor(image, name="image")
    vertical = np.array([[-1, -2, -1], [0, 0, 0], [1, 2, 1]])
    kernels = np.stack([vertical, vertical.T], axis=-1)[:, :, None, :]  # [3, 3, 1, 2]
    filters = tf.tile(tf.constant(kernels, dtype=image.dtype), [1, 1, tf.shape(image)[-1], 1])
    padded = tf.pad(image, [[0, 0], [1, 1], [1, 1], [0, 0]], mode="REFLECT")
    responses = tf.nn.depthwise_conv2d(padded, filters, [1, 1, 1, 1], "VALID")
    return tf.reshape(responses, tf.concat([tf.shape(image), [2]], 0))


# ---------------------------------------------------------------------------------------------------- random ops


def random_flip_left_right(image, seed=None):
    """``image`` (3-D, or each image of a 4-D batch) mirrored along its width with probability 1/2 (TF's draws
    for the global and op ``seed``)."""
    return _image_geometry.random_flip(image, lambda shape: _random_ops.uniform(shape, 0, 1.0, seed=seed), 2,
                                       "random_flip_left_right")


def random_flip_up_down(image, seed=None):
    """``image`` (3-D, or each image of a 4-D batch) mirrored along its height with probability 1/2 (TF's draws
    for the global and op ``seed``)."""
    return _image_geometry.random_flip(image, lambda shape: _random_ops.uniform(shape, 0, 1.0, seed=seed), 3,
                                       "random_flip_up_down")


def random_crop(value, size, seed=None, name=None):
    """A ``size``-shaped slice of ``value`` at a random offset (TF's draws for the global and op ``seed``);
    InvalidArgumentError when ``size`` exceeds ``value``'s shape."""
    return _image_geometry.random_crop_from(value, size, lambda shape: _random_ops.uniform(
        shape, maxval=2 ** 31 - 1, dtype=_dtypes.int32, seed=seed))


# ---------------------------------------------------------------------------------------------------- metrics


def _check_comparable(img1, img2):
    """TF's static checks of two image batches: rank >= 3, equal ``[h, w, c]``, broadcastable batch axes."""
    shape1, shape2 = img1.shape, img2.shape
    for shape in (shape1, shape2):
        if shape.rank is not None and shape.rank < 3:
            raise ValueError(f"Shape {shape} must have rank at least 3")
    if shape1.rank is None or shape2.rank is None:
        return
    if not shape1[-3:].is_compatible_with(shape2[-3:]):
        raise ValueError(f"Shapes {shape1[-3:]} and {shape2[-3:]} are incompatible")
    for dim1, dim2 in zip(reversed(shape1.as_list()[:-3]), reversed(shape2.as_list()[:-3])):
        if not (dim1 == 1 or dim2 == 1 or dim1 is None or dim2 is None or dim1 == dim2):
            raise ValueError(f"Two images are not compatible: {shape1} and {shape2}")


def _float_images(img1, img2, max_val):
    """The two images and ``max_val`` on TF's float32 [0, 1]-scaled range (``max_val`` read in img1's dtype)."""
    max_val = tf.image.convert_image_dtype(tf.cast(max_val, img1.dtype), _dtypes.float32)
    return (tf.image.convert_image_dtype(img1, _dtypes.float32), tf.image.convert_image_dtype(img2, _dtypes.float32),
            max_val)


def psnr(a, b, max_val, name=None):
    """Peak signal-to-noise ratio in dB of each image pair (the last three axes): ``20 log10(max_val) -
    10 log10(mse)``, float32.

    Parameters
    ----------
    a, b : Tensor
        Images ``[..., h, w, c]`` of one dtype (batch axes broadcast).
    max_val : scalar
        The dynamic range (255 for uint8 images, 1.0 for float images in [0, 1]).
    """
    a, b = convert_to_tensor(a, name="a"), convert_to_tensor(b, name="b")
    a, b, max_val = _float_images(a, b, max_val)
    mse = tf.reduce_mean(tf.math.squared_difference(a, b), [-3, -2, -1])
    _check_comparable(a, b)
    return 20 * tf.math.log(max_val) / tf.math.log(10.0) - np.float32(10 / np.log(10)) * tf.math.log(mse)


def _gaussian_window(size, sigma):
    """The normalised 2-D Gaussian ``[size, size, 1, 1]``: a softmax of ``-(dy^2 + dx^2) / (2 sigma^2)``."""
    coords = tf.cast(tf.range(size), _dtypes.float32) - tf.cast(size - 1, _dtypes.float32) / 2.0
    exponents = tf.square(coords) * (-0.5 / tf.square(sigma))
    grid = tf.reshape(exponents, [1, -1]) + tf.reshape(exponents, [-1, 1])
    return tf.reshape(tf.nn.softmax(tf.reshape(grid, [1, -1])), [size, size, 1, 1])


def _ssim_per_channel(img1, img2, max_val, filter_size, filter_sigma, k1, k2, index_map=False):
    """``(ssim, contrast-structure)`` per channel of float32 images: means over the VALID Gaussian-window map
    (the maps themselves when ``index_map``)."""
    size = tf.constant(filter_size, dtype=_dtypes.int32)
    sigma = tf.constant(filter_sigma, dtype=img1.dtype)
    for image in (img1, img2):
        tf.debugging.assert_greater_equal(tf.shape(image)[-3:-1], size, message="image too small for the filter")
    window = tf.tile(_gaussian_window(size, sigma), [1, 1, tf.shape(img1)[-1], 1])

    def blur(x):
        shape = tf.shape(x)
        flat = tf.reshape(x, tf.concat([[-1], shape[-3:]], 0))
        blurred = tf.nn.depthwise_conv2d(flat, window, [1, 1, 1, 1], "VALID")
        return tf.reshape(blurred, tf.concat([shape[:-3], tf.shape(blurred)[1:]], 0))

    c1, c2 = (k1 * max_val) ** 2, (k2 * max_val) ** 2
    mean1, mean2 = blur(img1), blur(img2)
    cross_means = mean1 * mean2 * 2.0
    luminance = (cross_means + c1) / (tf.square(mean1) + tf.square(mean2) + c1)
    cross = blur(img1 * img2) * 2.0
    squares = blur(tf.square(img1) + tf.square(img2))
    contrast_structure = (cross - cross_means + c2) / (squares - (tf.square(mean1) + tf.square(mean2)) + c2)
    axes = [-3, -2]
    ssim_map = luminance * contrast_structure
    return (ssim_map if index_map else tf.reduce_mean(ssim_map, axes)), tf.reduce_mean(contrast_structure, axes)


def _metric_inputs(img1, img2, max_val):
    img1, img2 = convert_to_tensor(img1, name="img1"), convert_to_tensor(img2, name="img2")
    _check_comparable(img1, img2)
    return _float_images(img1, img2, max_val)


def ssim(img1, img2, max_val, filter_size=11, filter_sigma=1.5, k1=0.01, k2=0.03, return_index_map=False):
    """Structural similarity of each image pair, averaged over channels (float32).

    Parameters
    ----------
    img1, img2 : Tensor
        Images ``[..., h, w, c]`` of one dtype, ``h`` and ``w`` at least ``filter_size``.
    max_val : scalar
        The dynamic range of the images.
    filter_size, filter_sigma : int, float
        The Gaussian window.
    k1, k2 : float
        SSIM's stabilising constants.
    return_index_map : bool
        Return the per-position map ``[..., h - filter_size + 1, w - filter_size + 1]`` instead of its mean.
    """
    img1, img2, max_val = _metric_inputs(img1, img2, max_val)
    per_channel, _ = _ssim_per_channel(img1, img2, max_val, filter_size, filter_sigma, k1, k2, return_index_map)
    return tf.reduce_mean(per_channel, [-1])


def ssim_multiscale(img1, img2, max_val, power_factors=_MSSSIM_WEIGHTS, filter_size=11, filter_sigma=1.5, k1=0.01,
                    k2=0.03):
    """Multi-scale SSIM: one scale per power factor, each 2x average-pooled (odd sizes symmetric-padded first);
    the product of the relu'd contrast-structure terms of all scales but the last and the last scale's SSIM,
    each raised to its factor, averaged over channels."""
    img1, img2, max_val = _metric_inputs(img1, img2, max_val)
    images = [img1, img2]
    heads = [tf.shape(x)[:-3] for x in images]
    tails = [tf.shape(x)[-3:] for x in images]
    terms = []
    for scale in range(len(power_factors)):
        if scale > 0:
            flat = [tf.reshape(x, tf.concat([[-1], tail], 0)) for x, tail in zip(images, tails)]
            remainder = tails[0] % tf.constant([2, 2, 1])
            padding = tf.pad(tf.expand_dims(remainder, -1), [[1, 0], [1, 0]])  # pad after h and w when odd
            pooled = [tf.nn.avg_pool(tf.pad(x, padding, mode="SYMMETRIC"), [1, 2, 2, 1], [1, 2, 2, 1], "VALID")
                      for x in flat]
            tails = [tf.shape(x)[1:] for x in pooled]
            images = [tf.reshape(x, tf.concat([head, tail], 0)) for x, head, tail in zip(pooled, heads, tails)]
        similarity, contrast_structure = _ssim_per_channel(*images, max_val, filter_size, filter_sigma, k1, k2)
        terms.append(tf.nn.relu(contrast_structure))
    terms[-1] = tf.nn.relu(similarity)
    stacked = tf.stack(terms, axis=-1)
    return tf.reduce_mean(tf.reduce_prod(tf.pow(stacked, tf.constant(power_factors, dtype=stacked.dtype)), [-1]),
                          [-1])



# ---------------------------------------------------------------------------------------------------- crops


def _static_pair(value, what, tf_op):
    """The two Python ints of a 1-D length-2 int32 tensor (``crop_size``, ``size``)."""
    pair = tf.get_static_value(value)
    if pair is None or np.shape(pair) != (2,):
        raise op_error(f"{what} must be a 1-D tensor of length 2, got shape {value.shape}", tf_op)
    return int(pair[0]), int(pair[1])


def _gather_pixels(flat_images, first_rows, rows, cols, width):
    """``[n, h, w, depth]`` pixels of ``flat_images`` (``[batch * height * width, depth]``): item ``i`` reads
    rows ``rows[i]`` and columns ``cols[i]`` of the image starting at flat row ``first_rows[i]``."""
    index = (tf.reshape(first_rows, [-1, 1, 1]) + tf.expand_dims(rows, 2)) * width + tf.expand_dims(cols, 1)
    return tf.gather(flat_images, index)


def _crop_positions(start, end, in_size, out_size):
    """``[num_boxes, out_size]`` float32 source coordinates of TF's CropAndResize sampling grid, and whether each
    lies inside the image."""
    last = float(in_size - 1)
    if out_size > 1:
        step = (end - start) * last / float(out_size - 1)
        grid = tf.constant(np.arange(out_size, dtype=np.float32))
        positions = tf.expand_dims(start * last, 1) + grid * tf.expand_dims(step, 1)
    else:
        positions = tf.expand_dims(0.5 * (start + end) * last, 1)
    return positions, tf.logical_and(positions >= 0, positions <= last)


def _clipped_index(positions, in_size):
    return tf.cast(tf.clip_by_value(positions, 0.0, float(in_size - 1)), _dtypes.int32)


def _half_up(positions):
    """C's ``roundf`` for non-negative values (halves away from zero, unlike ``tf.round``)."""
    floor = tf.floor(positions)
    return floor + tf.cast(positions - floor >= 0.5, positions.dtype)


def _bilinear_crops(pixels, rows, cols, y_positions, x_positions):
    """Bilinear samples ``[n, h, w, c]`` of ``pixels(row_index, col_index)`` at the float grid, combined in TF's
    order (across the top and bottom rows, then down); floor/ceil carry no gradient, so box gradients are the
    slopes of the interpolation, 0 at integer positions, as TF's CropAndResizeGradBoxes."""
    top, left = tf.floor(y_positions), tf.floor(x_positions)
    y_weight = tf.reshape(y_positions - top, [-1, rows[1], 1, 1])
    x_weight = tf.reshape(x_positions - left, [-1, 1, cols[1], 1])
    top, bottom = _clipped_index(top, rows[0]), _clipped_index(tf.math.ceil(y_positions), rows[0])
    left, right = _clipped_index(left, cols[0]), _clipped_index(tf.math.ceil(x_positions), cols[0])
    top_left, top_right = pixels(top, left), pixels(top, right)
    bottom_left, bottom_right = pixels(bottom, left), pixels(bottom, right)
    upper = top_left + (top_right - top_left) * x_weight
    lower = bottom_left + (bottom_right - bottom_left) * x_weight
    return upper + (lower - upper) * y_weight


def crop_and_resize(image, boxes, box_indices, crop_size, method="bilinear", extrapolation_value=0.0, name=None):
    """Crops of ``image`` at normalised ``boxes``, each resampled to ``crop_size`` (float32 ``[num_boxes,
    crop_height, crop_width, depth]``).

    Parameters
    ----------
    image : Tensor
        ``[batch, height, width, depth]`` of an integer or float dtype.
    boxes : Tensor
        float32 ``[num_boxes, 4]``: ``(y1, x1, y2, x2)`` in [0, 1] image coordinates (flipped or outside boxes
        allowed); samples outside the image get ``extrapolation_value``.
    box_indices : Tensor
        int32 ``[num_boxes]``: the batch image each box crops.
    crop_size : pair of int
        ``(crop_height, crop_width)``, both positive.
    method : {"bilinear", "nearest"}

    Gradients flow to float ``image`` and to ``boxes``; as in TF, the box gradient is the bilinear one for
    both methods.
    """
    tf_op = "CropAndResize"
    image = convert_to_tensor(image, name="image")
    if image.dtype not in _CROP_IMAGE_DTYPES:
        raise op_error(f"Value for attr 'T' of {image.dtype.name} is not in the list of allowed values", tf_op)
    boxes = convert_to_tensor(boxes, dtype=_dtypes.float32, name="boxes")
    box_indices = convert_to_tensor(box_indices, dtype=_dtypes.int32, name="box_indices")
    crop_size = convert_to_tensor(crop_size, dtype=_dtypes.int32, name="crop_size")
    if method not in ("bilinear", "nearest"):
        raise op_error(f"Value for attr 'method' of \"{method}\" is not in the list of allowed values: "
                       "\"bilinear\", \"nearest\"", tf_op)
    if image.shape.rank != 4:
        raise op_error(f"input image must be 4-D{image.shape}", tf_op)
    batch, height, width, depth = image.shape.as_list()
    if height <= 0 or width <= 0:
        raise op_error("image dimensions must be positive", tf_op)
    if boxes.shape.rank != 2 or boxes.shape[1] != 4:
        raise op_error(f"boxes must be 2-D[num_boxes, 4]: {boxes.shape}", tf_op)
    if box_indices.shape.rank != 1 or box_indices.shape[0] != boxes.shape[0]:
        raise op_error(f"box_index has incompatible shape {box_indices.shape}", tf_op)
    crop_height, crop_width = _static_pair(crop_size, "crop_size", tf_op)
    if crop_height <= 0 or crop_width <= 0:
        raise op_error("crop dimensions must be positive", tf_op)
    known_indices = tf.get_static_value(box_indices)  # None under a trace: the gather checks the range there
    if known_indices is not None and np.any((known_indices < 0) | (known_indices >= batch)):
        raise op_error("box_index has values outside [0, batch_size)", tf_op, errors.OutOfRangeError)

    flat = tf.reshape(image, [-1, depth])
    first_rows = box_indices * height

    def pixels(source, row_index, col_index):
        return tf.cast(_gather_pixels(source, first_rows, row_index, col_index, width), _dtypes.float32)

    y1, x1, y2, x2 = tf.unstack(boxes, axis=1)
    y_positions, y_inside = _crop_positions(y1, y2, height, crop_height)
    x_positions, x_inside = _crop_positions(x1, x2, width, crop_width)
    rows, cols = (height, crop_height), (width, crop_width)
    if method == "bilinear":
        crops = _bilinear_crops(lambda r, c: pixels(flat, r, c), rows, cols, y_positions, x_positions)
    else:
        nearest_rows = _clipped_index(_half_up(tf.stop_gradient(y_positions)), height)
        nearest_cols = _clipped_index(_half_up(tf.stop_gradient(x_positions)), width)
        # TF's box gradient for 'nearest' is the bilinear one: add a zero-valued term carrying it
        slopes = _bilinear_crops(lambda r, c: pixels(tf.stop_gradient(flat), r, c), rows, cols, y_positions,
                                 x_positions)
        zero = slopes - tf.stop_gradient(slopes)
        crops = pixels(flat, nearest_rows, nearest_cols) + tf.where(tf.math.is_finite(zero), zero, 0.0)
    inside = tf.logical_and(tf.reshape(y_inside, [-1, crop_height, 1, 1]), tf.reshape(x_inside, [-1, 1, crop_width, 1]))
    return tf.where(inside, crops, tf.cast(extrapolation_value, _dtypes.float32))


def _glimpse_starts(offsets, in_size, out_size, centered, normalized):
    """First row (or column) of each glimpse, as TF's ExtractGlimpseV2 computes it in float32: normalised offsets
    scale by the image size, centred ones are relative to the image centre (normalised centred ones span
    [-1, 1] and place the glimpse's centre), then truncation toward zero."""
    if normalized:
        offsets = offsets * float(in_size)
    if centered and normalized:
        offsets = offsets / 2.0 + in_size / 2.0 - out_size / 2.0
    elif centered:
        offsets = offsets + in_size / 2.0
    return tf.cast(offsets, _dtypes.int32)


def _glimpse_noise(images, shape, noise):
    """Fill values for glimpse pixels outside the image: zeros, or random draws within each image's value range
    (uniform, or normal with the image's mean and deviation, clipped to the range)."""
    if noise == "zero":
        return tf.zeros(shape)
    low = tf.reshape(tf.reduce_min(images, axis=[1, 2, 3]), [-1, 1, 1, 1])
    high = tf.reshape(tf.reduce_max(images, axis=[1, 2, 3]), [-1, 1, 1, 1])
    if noise == "uniform":
        return low + tf.random.uniform(shape) * (high - low)
    mean = tf.reshape(tf.reduce_mean(images, axis=[1, 2, 3]), [-1, 1, 1, 1])
    deviation = tf.reshape(tf.math.reduce_std(images, axis=[1, 2, 3]), [-1, 1, 1, 1])
    return tf.clip_by_value(mean + tf.random.normal(shape) * deviation, low, high)


def extract_glimpse(input, size, offsets, centered=True, normalized=True, noise="uniform", name=None):  # noqa: A002
    """Windows ``[batch, glimpse_height, glimpse_width, depth]`` of a float32 batch, one per image at ``offsets``.

    Parameters
    ----------
    input : Tensor
        float32 ``[batch, height, width, depth]``.
    size : pair of int
        ``(glimpse_height, glimpse_width)``.
    offsets : Tensor
        float32 ``[batch, 2]``: ``(y, x)`` of each window; see ``centered`` / ``normalized``.
    centered, normalized : bool
        Offsets relative to the image centre / as fractions of the image size (both: in [-1, 1], placing the
        window's centre; otherwise they place its top-left corner).
    noise : {"uniform", "gaussian", "zero"}
        What fills the window outside the image (random fills are not TF's numbers).

    Not differentiable (TF registers no gradient): the result is cut off from tapes.
    """
    tf_op = "ExtractGlimpseV2"
    images = tf.stop_gradient(convert_to_tensor(input, dtype=_dtypes.float32, name="input"))
    offsets = convert_to_tensor(offsets, dtype=_dtypes.float32, name="offsets")
    size = convert_to_tensor(size, dtype=_dtypes.int32, name="size")
    if noise not in _GLIMPSE_NOISES:
        raise op_error(f"The noise could only be uniform, gaussian, or zero, got{noise}", tf_op)
    if images.shape.rank != 4:
        raise op_error(f"input must be 4-dimensional{images.shape}", tf_op)
    batch, height, width, depth = images.shape.as_list()
    if offsets.shape.rank != 2 or offsets.shape[0] != batch or offsets.shape[1] != 2:
        raise op_error(f"offsets must be a matrix of shape [batch, 2], got {offsets.shape}", tf_op)
    glimpse_height, glimpse_width = _static_pair(size, "size", tf_op)
    offsets = tf.stop_gradient(offsets)
    rows = tf.expand_dims(_glimpse_starts(offsets[:, 0], height, glimpse_height, centered, normalized), 1) + tf.range(
        glimpse_height)
    cols = tf.expand_dims(_glimpse_starts(offsets[:, 1], width, glimpse_width, centered, normalized), 1) + tf.range(
        glimpse_width)
    inside = tf.logical_and(tf.reshape((rows >= 0) & (rows < height), [batch, glimpse_height, 1, 1]),
                            tf.reshape((cols >= 0) & (cols < width), [batch, 1, glimpse_width, 1]))
    windows = _gather_pixels(tf.reshape(images, [-1, depth]), tf.range(batch) * height,
                             tf.clip_by_value(rows, 0, height - 1), tf.clip_by_value(cols, 0, width - 1), width)
    shape = [batch, glimpse_height, glimpse_width, depth]
    return tf.where(inside, windows, _glimpse_noise(images, shape, noise))


NAMESPACES = {"image": ["adjust_gamma", "transpose", "per_image_standardization", "image_gradients", "sobel_edges",
                        "random_flip_left_right", "random_flip_up_down", "random_crop", "psnr", "ssim",
                        "ssim_multiscale", "crop_and_resize", "extract_glimpse"]}
