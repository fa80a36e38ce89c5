"""keras.ops.image: Keras 3's image operations as its TensorFlow backend computes them, adapted onto vfw's tf.image
functions (channels_first images are moved to channels_last and back around them)."""

import vfw.frontends.tensorflow as tf
from vfw.frontends.tensorflow import _image_color
from vfw.frontends.tensorflow._dispatch import convert_to_tensor as tf_convert_to_tensor
from vfw.frontends.tensorflow._image_ops import resize as tf_resize
from vfw.frontends.tensorflow.keras.src.backend.config import standardize_data_format
from vfw.frontends.tensorflow.keras.src.layers.preprocessing_image import (
    _aspect_crop,
    _channels_moved,
    aspect_padding,
    cast_resized,
    check_resize_interpolation,
)
from vfw.frontends.tensorflow.keras.src.layers.preprocessing_image_color import rgb_to_grayscale as _grayscale
from vfw.frontends.tensorflow.keras.src.ops._common import keras_op
from vfw.frontends.tensorflow.keras.src.ops.image_geometry import checked_images


def _channels_last_apply(images, data_format, function):
    """``function(images)`` on channels_last images, the result moved back for ``data_format`` channels_first."""
    if standardize_data_format(data_format) == "channels_last":
        return function(images)
    return _channels_moved(function(_channels_moved(images, last=True)), last=False)


def _float_images(images):
    images = checked_images(images)
    if not images.dtype.is_floating:
        raise ValueError(f"Invalid images dtype: expected float dtype. Received: images.dtype={images.dtype.name}")
    return images


@keras_op
def rgb_to_grayscale(images, data_format=None):
    """RGB images ``(..., 3)`` to grayscale ``(..., 1)`` (luma weights 0.2989, 0.5870, 0.1140), dtype kept;
    one-channel images pass through.  ``data_format`` places the channels axis."""
    return _grayscale(checked_images(images), standardize_data_format(data_format))


@keras_op
def rgb_to_hsv(images, data_format=None):
    """Float RGB images in [0, 1] to HSV (``tf.image.rgb_to_hsv``)."""
    return _channels_last_apply(_float_images(images), data_format, _image_color.rgb_to_hsv)


@keras_op
def hsv_to_rgb(images, data_format=None):
    """Float HSV images to RGB (``tf.image.hsv_to_rgb``)."""
    return _channels_last_apply(_float_images(images), data_format, _image_color.hsv_to_rgb)


@keras_op
def resize(images, size, interpolation="bilinear", antialias=False, crop_to_aspect_ratio=False,
           pad_to_aspect_ratio=False, fill_mode="constant", fill_value=0.0, data_format=None):
    """``images`` resized to ``size`` (height, width) by ``tf.image.resize``.

    Parameters
    ----------
    images : tensor ``(h, w, c)`` / ``(batch, h, w, c)`` (channels_last) or ``(c, h, w)`` / ``(batch, c, h, w)``
    size : (height, width)
    interpolation : {"bilinear", "nearest", "lanczos3", "lanczos5", "bicubic", "area"}
    antialias : bool
    crop_to_aspect_ratio, pad_to_aspect_ratio : bool
        First crop the centered window of the target aspect ratio, or pad to it with ``fill_value`` on both sides.
    fill_mode : "constant"
    data_format : str, optional

    Returns
    -------
    Tensor
        In the images' dtype (integers rounded and saturated).
    """
    # Keras' checks in its order: keras.ops.image.resize's own, then its TF backend's
    if len(size) != 2:
        raise ValueError(f"Expected `size` to be a tuple of 2 integers. Received: size={size}")
    if size[0] <= 0 or size[1] <= 0:
        raise ValueError(f"`size` must have positive height and width. Received: size={size}")
    images = checked_images(images)
    if pad_to_aspect_ratio and crop_to_aspect_ratio:
        raise ValueError("Only one of `pad_to_aspect_ratio` & `crop_to_aspect_ratio` can be `True`.")
    check_resize_interpolation(interpolation)
    if fill_mode != "constant":
        raise ValueError(f"Invalid value for argument `fill_mode`. Only `'constant'` is supported. "
                         f"Received: fill_mode={fill_mode}")
    target_height, target_width = (int(s) for s in size)

    def resized(images):
        height, width = images.shape[-3], images.shape[-2]
        if crop_to_aspect_ratio:
            top, left, crop_height, crop_width = _aspect_crop(height, width, target_height, target_width)
            images = images[..., top:top + crop_height, left:left + crop_width, :]
        elif pad_to_aspect_ratio:
            top, left = aspect_padding(height, width, target_height, target_width)
            if top or left:  # Keras builds the fill in the images' dtype, a TypeError for e.g. 3.0 in uint8
                fill = tf_convert_to_tensor(fill_value, dtype=images.dtype)
                paddings = [[0, 0]] * (images.shape.rank - 3) + [[top, top], [left, left], [0, 0]]
                images = tf.pad(images, paddings, constant_values=fill)
        return tf_resize(images, (target_height, target_width), method=interpolation, antialias=antialias)

    return cast_resized(_channels_last_apply(images, data_format, resized), images.dtype)


API = {"ops.image": ["rgb_to_grayscale", "rgb_to_hsv", "hsv_to_rgb", "resize"]}
