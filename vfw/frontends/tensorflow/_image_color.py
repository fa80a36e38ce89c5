"""tf.image color ops: HSV / YIQ / YUV / grayscale conversions, adjust_hue / adjust_saturation and the random and
stateless-random hue, saturation, brightness and contrast draws.

Everything is composed of tf ops so tapes and tf.function see it.  The arithmetic mirrors TF's CPU kernels
operation by operation (the same float roundings): ``RGBToHSV``/``HSVToRGB`` are whole-tensor expressions in the
image's dtype; ``AdjustHue`` rotates the hue on the hexagon of (max, mid, min) channels in float32 and
``AdjustSaturation`` goes through its own float32 HSV round trip (whose hue offsets are added in double, as there).
Gradients: ``rgb_to_hsv`` is differentiable (TF's analytic gradient, which equals the derivative of this
composition away from channel ties), ``hsv_to_rgb`` gives None gradients, ``adjust_hue``/``adjust_saturation``
raise TF's LookupError when differentiated.  Integer images are converted to float32 in [0, 1] and back.
"""

import numpy as np

import vfw.frontends.tensorflow as tf
from vfw.frontends.tensorflow import _image_ops, _random_ops, _random_stateless, errors
from vfw.frontends.tensorflow._dispatch import convert_to_tensor, mismatch, op_error
from vfw.frontends.tensorflow._math_binary import _no_gradient
from vfw.frontends.tensorflow._op_support import with_gradient

_HSV_DTYPES = ("float16", "bfloat16", "float32", "float64")
# The standard NTSC YIQ and BT.601 YUV matrices, as TF's ``rgb_to_*`` (rows: input channels).
_RGB_TO_YIQ = [[0.299, 0.59590059, 0.2115], [0.587, -0.27455667, -0.52273617], [0.114, -0.32134392, 0.31119955]]
_YIQ_TO_RGB = [[1, 1, 1], [0.95598634, -0.27201283, -1.10674021], [0.6208248, -0.64720424, 1.70423049]]
_RGB_TO_YUV = [[0.299, -0.14714119, 0.61497538], [0.587, -0.28886916, -0.51496512], [0.114, 0.43601035, -0.10001026]]
_YUV_TO_RGB = [[1, 1, 1], [0, -0.394642334, 2.03206185], [1.13988303, -0.58062185, 0]]
_GRAY_WEIGHTS = [0.2989, 0.5870, 0.1140]


def _channels(images, tf_op, minimum_rank, rank_message, channels_message, channels_error):
    """``(red, green, blue)`` of ``images`` after the kernel's rank and 3-channel checks (TF's messages and error
    classes differ between the HSV and the adjust kernels)."""
    if images.shape.rank < minimum_rank:
        shape = ",".join(str(size) for size in images.shape.as_list())
        raise op_error(rank_message.format(shape=f"[{shape}]"), tf_op)
    channels = images.shape[-1]
    if channels != 3:
        raise op_error(f"input must have 3 channels but {channels_message} {channels} channels.", tf_op,
                       channels_error)
    return tf.unstack(images, axis=-1)


def _hsv_images(images, tf_op):
    """``images`` as a float tensor (TF's RGBToHSV/HSVToRGB accept half, bfloat16, float and double) split in 3."""
    images = convert_to_tensor(images, dtype_hint=tf.float32, name="images")
    if images.dtype.name not in _HSV_DTYPES:
        raise op_error(f"Value for attr 'T' of {images.dtype.name} is not in the list of allowed values: half, "
                       f"bfloat16, float, double", tf_op)
    return _channels(images, tf_op, 1, "input must be at least 1D{shape}", "input only has",
                     errors.FailedPreconditionError)


def _constant(value, like):
    return tf.constant(value, dtype=like.dtype)


def _picked(conditions, values):
    """``values[i]`` where ``conditions[i]`` is the first true condition; the last value elsewhere."""
    result = values[-1]
    for condition, value in zip(conditions[::-1], values[-2::-1]):
        result = tf.where(condition, value, result)
    return result


def rgb_to_hsv(images, name=None):
    """RGB images (last axis of 3, values in [0, 1]) to HSV: hue in [0, 1), saturation, value.

    Parameters
    ----------
    images : float16, bfloat16, float32 or float64 tensor ``[..., 3]``

    Returns
    -------
    Tensor
        ``[..., 3]`` (hue, saturation, value), the images' dtype.
    """
    red, green, blue = _hsv_images(images, "RGBToHSV")
    # max and min picked with the tie order of TF's gradient (red, then green, then blue is the max; the min the other
    # way round), so gradients reach the channel TF credits
    red_max, green_max = (red >= blue) & (red >= green), (green > red) & (green >= blue)
    red_min, green_min = (red < blue) & (red < green), (green <= red) & (green < blue)
    value = _picked([red_max, green_max], [red, green, blue])
    spread = value - _picked([red_min, green_min], [red, green, blue])
    zero, one = _constant(0, red), _constant(1, red)
    # the masked-out quotients divide by 1 instead of 0 so that no inf/nan reaches a gradient
    saturation = tf.where(value > zero, spread / tf.where(value > zero, value, one), zero)
    norm = (one / tf.where(spread > zero, spread, one)) * _constant(1 / 6, red)
    hue = _picked([tf.equal(red, value), tf.equal(green, value)],
                  [norm * (green - blue), norm * (blue - red) + _constant(2 / 6, red),
                   norm * (red - green) + _constant(4 / 6, red)])
    hue = tf.where(spread > zero, hue, zero)
    hue = tf.where(hue < zero, hue + one, hue)
    return tf.stack([hue, saturation, value], axis=-1)


def hsv_to_rgb(images, name=None):
    """HSV images (last axis of 3: hue in [0, 1], saturation, value) to RGB.  TF defines no gradient (None).

    Parameters
    ----------
    images : float16, bfloat16, float32 or float64 tensor ``[..., 3]``

    Returns
    -------
    Tensor
        ``[..., 3]`` RGB, the images' dtype.
    """
    hue, saturation, value = _hsv_images(tf.stop_gradient(convert_to_tensor(images, dtype_hint=tf.float32)),
                                         "HSVToRGB")
    zero, one = _constant(0, hue), _constant(1, hue)
    sixths = hue * _constant(6, hue)

    def ramp(center, sign):
        # Eigen's clamped ramps: |6h - 3| - 1 for red, 2 - |6h - c| for green and blue
        offset = tf.abs(sixths - _constant(center, hue))
        ramp_value = offset - one if sign > 0 else _constant(2, hue) - offset
        return tf.minimum(tf.maximum(ramp_value, zero), one)

    unsaturated = one - saturation
    return tf.stack([(unsaturated + saturation * ramp(center, sign)) * value
                     for center, sign in ((3, 1), (2, -1), (4, -1))], axis=-1)


def _linear_colors(images, matrix):
    """``images`` (last axis of 3) times the 3x3 ``matrix`` in the images' dtype, as TF's tensordot."""
    images = convert_to_tensor(images, name="images")
    kernel = convert_to_tensor(matrix, dtype=images.dtype, name="kernel")
    return tf.tensordot(images, kernel, axes=[[images.shape.rank - 1], [0]])


def rgb_to_yiq(images):
    """RGB to YIQ (``[..., 3]`` float images; Y in [0, 1], I in [-0.5957, 0.5957], Q in [-0.5226, 0.5226])."""
    return _linear_colors(images, _RGB_TO_YIQ)


def yiq_to_rgb(images):
    """YIQ to RGB (``[..., 3]`` float images)."""
    return _linear_colors(images, _YIQ_TO_RGB)


def rgb_to_yuv(images):
    """RGB to YUV (``[..., 3]`` float images; Y in [0, 1], U in [-0.5, 0.5], V in [-0.5, 0.5])."""
    return _linear_colors(images, _RGB_TO_YUV)


def yuv_to_rgb(images):
    """YUV to RGB (``[..., 3]`` float images)."""
    return _linear_colors(images, _YUV_TO_RGB)


def rgb_to_grayscale(images, name=None):
    """The luma ``0.2989 R + 0.5870 G + 0.1140 B`` of ``[..., 3]`` images as ``[..., 1]`` (computed in float32 in
    TF's [0, 1] scale, converted back to the images' dtype)."""
    images = convert_to_tensor(images, name="images")
    dtype = images.dtype
    gray = tf.tensordot(_image_ops.convert_image_dtype(images, tf.float32), tf.constant(_GRAY_WEIGHTS), [-1, -1])
    return _image_ops.convert_image_dtype(tf.expand_dims(gray, -1), dtype)


def grayscale_to_rgb(images, name=None):
    """``[..., 1]`` grayscale images repeated to ``[..., 3]``."""
    images = convert_to_tensor(images, name="images")
    if images.shape.rank < 2:
        raise ValueError(f"A grayscale image (shape {images.shape}) must be at least two-dimensional.")
    if images.shape[-1] != 1:
        raise ValueError("Last dimension of a grayscale image should be size 1.")
    return tf.tile(images, [1] * (images.shape.rank - 1) + [3])


# ---------------------------------------------------------------------------------------------------- adjust


def _adjusted_in_float32(image, factor, kernel, tf_op):
    """``kernel(image as float32, factor)`` as TF runs its float32-only kernel ``tf_op``: float16 has no CPU kernel,
    other dtypes go through ``convert_image_dtype`` and back; no gradient (LookupError when asked for)."""
    image = convert_to_tensor(image, name="image")
    dtype = image.dtype
    if dtype == tf.float16:
        raise op_error(f"Could not find device for node: {{{{node {tf_op}}}}} = {tf_op}[T=DT_HALF]", None,
                       errors.NotFoundError)
    floats = image if dtype == tf.float32 else _image_ops.convert_image_dtype(image, tf.float32)
    factor = convert_to_tensor(factor, dtype_hint=tf.float32)
    if factor.dtype != tf.float32:
        raise mismatch(tf_op, np.float32, factor.array.dtype)
    if factor.shape.rank != 0:
        argument = "delta" if tf_op == "AdjustHue" else "scale"
        raise op_error(f"{argument} must be scalar: {factor.shape.as_list()}".replace(" ", ""), tf_op)
    red, green, blue = _channels(floats, tf_op, 3, "input must be at least 3-D, got shape{shape}", "instead has",
                                 errors.InvalidArgumentError)
    adjusted = with_gradient(lambda *rgb: tf.stack(kernel(*rgb, factor), axis=-1), _no_gradient(tf_op),
                             red, green, blue)
    return _image_ops.convert_image_dtype(adjusted, dtype)


def _hue_rotated(red, green, blue, delta):
    """AdjustHue's pixel arithmetic: the hue as a position in [0, 6) on the (max, mid, min) hexagon, shifted by
    ``6 delta`` and wrapped once each way, the middle channel recomputed from it."""
    # category: the sixth of the hexagon; max / mid / min channels by it (ties may fall on either side)
    categories = [tf.fill(tf.shape(red), k) for k in range(6)]
    category = tf.where(red < green,
                        _picked([blue < red, blue > green], [categories[1], categories[3], categories[2]]),
                        _picked([blue < green, blue > red], [categories[0], categories[4], categories[5]]))
    by_category = _category_channels(category)
    high, middle, low = (by_category(order, red, green, blue) for order in _HEXAGON_ORDER)
    span = high - low
    ratio = (middle - low) / tf.where(span == 0.0, tf.ones_like(span), span)
    rising = tf.equal(category % 2, 0)
    hue = tf.cast(category, tf.float32) + tf.where(rising, ratio, 1.0 - ratio)
    hue = tf.where(tf.equal(high, low), tf.zeros_like(hue), hue)
    hue = hue + delta * 6.0
    hue = tf.where(hue < 0.0, hue + 6.0, hue)
    hue = tf.where(hue >= 6.0, hue - 6.0, hue)
    category = tf.cast(hue, tf.int32)
    ratio = hue - tf.cast(category, tf.float32)
    ratio = tf.where(tf.equal(category % 2, 0), ratio, 1.0 - ratio)
    middle = low + ratio * (high - low)
    by_category = _category_channels(category)
    # channel c of category k is the high, middle or low value: the inverse of the pick above
    return [by_category(_CHANNEL_ROLES[c], high, middle, low) for c in range(3)]


# For each hexagon category 0..5: which channel (0 r, 1 g, 2 b) holds the max, the mid and the min.
_ROLES_BY_CATEGORY = [(0, 1, 2), (1, 0, 2), (1, 2, 0), (2, 1, 0), (2, 0, 1), (0, 2, 1)]
_HEXAGON_ORDER = [[roles[k] for roles in _ROLES_BY_CATEGORY] for k in range(3)]  # per role: the channel per category
# per category: the role (0 high, 1 middle, 2 low) of each channel
_CHANNEL_ROLES = [[roles.index(c) for roles in _ROLES_BY_CATEGORY] for c in range(3)]


def _category_channels(category):
    """``pick(choices, *values)``: per pixel, ``values[choices[category]]``."""
    def pick(choices, *values):
        return _picked([tf.equal(category, k) for k in range(5)], [values[choice] for choice in choices])
    return pick


def _saturation_scaled(red, green, blue, scale):
    """AdjustSaturation's pixel arithmetic: its float32 RGB -> HSV, saturation scaled and clipped to [0, 1], back."""
    value = tf.maximum(red, tf.maximum(green, blue))
    spread = value - tf.minimum(red, tf.minimum(green, blue))
    zero, one = tf.zeros_like(value), tf.ones_like(value)
    saturation = tf.where(value > 0.0, spread / tf.where(value > 0.0, value, one), zero)
    norm = 1.0 / (6.0 * tf.where(spread > 0.0, spread, one))  # 1 instead of 0 where the hue is masked to 0

    def offset(x, sixths):  # the kernel adds the double 2/6 or 4/6 to a float and rounds once
        return tf.cast(tf.cast(x, tf.float64) + sixths / 6.0, tf.float32)

    hue = _picked([tf.equal(red, value), tf.equal(green, value)],
                  [norm * (green - blue), offset(norm * (blue - red), 2), offset(norm * (red - green), 4)])
    hue = tf.where(spread <= 0.0, zero, hue)
    hue = tf.where(hue < 0.0, hue + 1.0, hue)
    saturation = tf.minimum(1.0, tf.maximum(0.0, saturation * scale))
    chroma = saturation * value
    base = value - chroma
    sixths = hue * 6.0
    category = tf.cast(sixths, tf.int32)
    slope = chroma * (1.0 - tf.abs(sixths - 2.0 * tf.floor(sixths / 2.0) - 1.0))
    parts = {0: (chroma, slope, zero), 1: (slope, chroma, zero), 2: (zero, chroma, slope),
             3: (zero, slope, chroma), 4: (slope, zero, chroma), 5: (chroma, zero, slope), 6: (zero, zero, zero)}
    return [_picked([tf.equal(category, k) for k in range(6)], [parts[k][c] for k in range(7)]) + base
            for c in range(3)]


def adjust_hue(image, delta, name=None):
    """``image`` with its hue rotated by ``delta`` (in [-1, 1], a fraction of the color wheel).

    Parameters
    ----------
    image : tensor ``[..., height, width, 3]``
        Integer images are converted to float32 in [0, 1] and back; float16 has no kernel (NotFoundError).
    delta : float or float32 scalar tensor

    Returns
    -------
    Tensor
        The image's shape and dtype.
    """
    # TF checks the range only when executing eagerly: a traced delta (a random draw) is not a Python bool
    if tf.executing_eagerly() and (delta < -1 or delta > 1):
        raise ValueError("delta must be in the interval [-1, 1]")
    return _adjusted_in_float32(image, delta, _hue_rotated, "AdjustHue")


def adjust_saturation(image, saturation_factor, name=None):
    """``image`` with its HSV saturation multiplied by ``saturation_factor`` (clipped to [0, 1]).

    Parameters
    ----------
    image : tensor ``[..., height, width, 3]``
        Integer images are converted to float32 in [0, 1] and back; float16 has no kernel (NotFoundError).
    saturation_factor : float or float32 scalar tensor

    Returns
    -------
    Tensor
        The image's shape and dtype.
    """
    return _adjusted_in_float32(image, saturation_factor, _saturation_scaled, "AdjustSaturation")


# ---------------------------------------------------------------------------------------------------- random


def _check_max_delta(max_delta, limit=None):
    if limit is not None and max_delta > limit:
        raise ValueError(f"max_delta must be <= {limit}.")
    if max_delta < 0:
        raise ValueError("max_delta must be non-negative.")


def _check_bounds(lower, upper):
    if upper <= lower:
        raise ValueError("upper must be > lower.")
    if lower < 0:
        raise ValueError("lower must be non-negative.")


def random_hue(image, max_delta, seed=None):
    """``adjust_hue`` by a delta drawn uniformly in ``[-max_delta, max_delta)`` (``max_delta`` in [0, 0.5])."""
    _check_max_delta(max_delta, 0.5)
    return adjust_hue(image, _random_ops.uniform([], -max_delta, max_delta, seed=seed))


def stateless_random_hue(image, max_delta, seed):
    """``random_hue`` drawn from the stateless ``seed`` (shape [2])."""
    _check_max_delta(max_delta, 0.5)
    return adjust_hue(image, _random_stateless.stateless_uniform([], seed, -max_delta, max_delta))


def random_saturation(image, lower, upper, seed=None):
    """``adjust_saturation`` by a factor drawn uniformly in ``[lower, upper)`` (``0 <= lower < upper``)."""
    _check_bounds(lower, upper)
    return adjust_saturation(image, _random_ops.uniform([], lower, upper, seed=seed))


def stateless_random_saturation(image, lower, upper, seed=None):
    """``random_saturation`` drawn from the stateless ``seed`` (shape [2])."""
    _check_bounds(lower, upper)
    return adjust_saturation(image, _random_stateless.stateless_uniform([], seed, lower, upper))


def random_brightness(image, max_delta, seed=None):
    """``adjust_brightness`` by a delta drawn uniformly in ``[-max_delta, max_delta)``."""
    _check_max_delta(max_delta)
    return _image_ops.adjust_brightness(image, _random_ops.uniform([], -max_delta, max_delta, seed=seed))


def stateless_random_brightness(image, max_delta, seed):
    """``random_brightness`` drawn from the stateless ``seed`` (shape [2])."""
    _check_max_delta(max_delta)
    return _image_ops.adjust_brightness(image, _random_stateless.stateless_uniform([], seed, -max_delta, max_delta))


def random_contrast(image, lower, upper, seed=None):
    """``adjust_contrast`` by a factor drawn uniformly in ``[lower, upper)`` (``0 <= lower < upper``)."""
    _check_bounds(lower, upper)
    return _image_ops.adjust_contrast(image, _random_ops.uniform([], lower, upper, seed=seed))


def stateless_random_contrast(image, lower, upper, seed):
    """``random_contrast`` drawn from the stateless ``seed`` (shape [2])."""
    _check_bounds(lower, upper)
    return _image_ops.adjust_contrast(image, _random_stateless.stateless_uniform([], seed, lower, upper))


NAMESPACES = {"image": ["rgb_to_hsv", "hsv_to_rgb", "rgb_to_yiq", "yiq_to_rgb", "rgb_to_yuv", "yuv_to_rgb",
                        "rgb_to_grayscale", "grayscale_to_rgb", "adjust_hue", "adjust_saturation", "random_hue",
                        "stateless_random_hue", "random_saturation", "stateless_random_saturation",
                        "random_brightness", "stateless_random_brightness", "random_contrast",
                        "stateless_random_contrast"]}
