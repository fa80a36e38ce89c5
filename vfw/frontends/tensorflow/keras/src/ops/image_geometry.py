"""keras.ops.image geometry: affine/perspective transforms, map_coordinates, elastic_transform, Keras' own
scale_and_translate, crop_images and pad_images, as Keras 3 computes them on its TensorFlow backend.

The transforms adapt vfw's ``ImageProjectiveTransformV3`` (``_image_ops.projective_transform``, which Keras'
augmentation layers use too) and the functions RandomElasticTransform / RandomPerspective already share
(``map_coordinates``, ``elastic_warp``, ``homography``); channels_first images are moved to channels_last around
them and single images are batches of one.
"""

import numpy as np

import vfw.frontends.tensorflow as tf
from vfw.frontends.tensorflow import _image_ops
from vfw.frontends.tensorflow.keras.src.backend.config import standardize_data_format
from vfw.frontends.tensorflow.keras.src.backend.dtypes import result_type
from vfw.frontends.tensorflow.keras.src.layers.preprocessing_image import _channels_moved
from vfw.frontends.tensorflow.keras.src.layers.preprocessing_image_geometry import homography
from vfw.frontends.tensorflow.keras.src.layers.preprocessing_image_local import elastic_warp
from vfw.frontends.tensorflow.keras.src.layers.preprocessing_image_local import map_coordinates as _map_coordinates
from vfw.frontends.tensorflow.keras.src.ops._common import convert_to_tensor, keras_op

API = {"ops.image": ["affine_transform", "perspective_transform", "map_coordinates", "elastic_transform",
                     "scale_and_translate", "crop_images", "pad_images"]}

_INTERPOLATIONS = ("nearest", "bilinear")
_FILL_MODES = ("constant", "nearest", "wrap", "reflect")
_MAP_FILL_MODES = {"constant", "nearest", "wrap", "mirror", "reflect"}
_SCALE_METHODS = {"linear": "linear", "bilinear": "linear", "trilinear": "linear", "cubic": "cubic",
                  "bicubic": "cubic", "tricubic": "cubic", "lanczos3": "lanczos3", "lanczos5": "lanczos5"}


def _check_rank(images, name="images", received="Received input with shape: "):
    """Keras' ValueError unless ``images`` has rank 3 or 4 (its shape given after ``received``)."""
    if images.shape.rank not in (3, 4):
        raise ValueError(f"Invalid {name} rank: expected rank 3 (single image) or rank 4 (batch of images). "
                         f"{received}{name}.shape={tuple(images.shape)}")


def checked_images(images, received="Received input with shape: "):
    """``images`` as a tensor of rank 3 or 4 (``_check_rank``)."""
    images = convert_to_tensor(images)
    _check_rank(images, received=received)
    return images


def _check_warp_arguments(images, interpolation, fill_mode="constant"):
    if interpolation not in _INTERPOLATIONS:
        raise ValueError(f"Invalid value for argument `interpolation`. Expected of one {_INTERPOLATIONS}. "
                         f"Received: interpolation={interpolation}")
    if fill_mode not in _FILL_MODES:
        raise ValueError(f"Invalid value for argument `fill_mode`. Expected of one {_FILL_MODES}. "
                         f"Received: fill_mode={fill_mode}")
    _check_rank(images)


def _on_batch(images, data_format, function):
    """``function`` of the channels-last batch of ``images`` (rank 3 or 4), its result in ``images``' layout."""
    single = images.shape.rank == 3
    batch = tf.expand_dims(images, 0) if single else images
    channels_first = standardize_data_format(data_format) == "channels_first"
    result = function(_channels_moved(batch, last=True) if channels_first else batch)
    if channels_first:
        result = _channels_moved(result, last=False)
    return tf.squeeze(result, 0) if single else result


@keras_op
def affine_transform(images, transform, interpolation="bilinear", fill_mode="constant", fill_value=0,
                     data_format=None):
    """``images`` (rank 3 or 4) warped by the projective ``transform`` ``[8]`` or ``[batch, 8]``
    (``[a0, a1, a2, b0, b1, b2, c0, c1]`` maps output ``(x, y)`` to the input position read), TF's
    ImageProjectiveTransformV3 with ``interpolation`` ("nearest", "bilinear") and ``fill_mode`` ("constant",
    "nearest", "wrap", "reflect")."""
    images, transform = convert_to_tensor(images), convert_to_tensor(transform)
    _check_warp_arguments(images, interpolation, fill_mode)
    if transform.shape.rank not in (1, 2):
        raise ValueError(f"Invalid transform rank: expected rank 1 (single transform) or rank 2 (batch of "
                         f"transforms). Received input with shape: transform.shape={tuple(transform.shape)}")
    transforms = tf.reshape(transform, (-1, 8))
    return _on_batch(images, data_format, lambda batch: _image_ops.projective_transform(
        batch, transforms, interpolation, fill_mode, fill_value))


def _checked_points(points, name):
    points = convert_to_tensor(points, "float32")
    if points.shape.rank not in (2, 3) or tuple(points.shape[-2:]) != (4, 2):
        raise ValueError(f"Invalid {name} shape: expected (4,2) for a single image or (N,4,2) for a batch. "
                         f"Received shape: {points.shape}")
    return points


@keras_op
def perspective_transform(images, start_points, end_points, interpolation="bilinear", fill_value=0,
                          data_format=None):
    """``images`` warped by the perspective moving the four ``start_points`` ``(4, 2)`` / ``(N, 4, 2)`` (x, y)
    onto ``end_points``; pixels from outside read ``fill_value``."""
    images = convert_to_tensor(images)
    start_points, end_points = _checked_points(start_points, "start_points"), _checked_points(end_points, "end_points")
    _check_warp_arguments(images, interpolation)
    if start_points.shape != end_points.shape:
        raise ValueError(f"start_points and end_points must have the same shape. Received start_points.shape="
                         f"{start_points.shape}, end_points.shape={end_points.shape}")
    transforms = homography(tf.reshape(start_points, (-1, 4, 2)), tf.reshape(end_points, (-1, 4, 2)))
    return _on_batch(images, data_format, lambda batch: _image_ops.projective_transform(
        batch, transforms, interpolation, "constant", fill_value))


@keras_op
def map_coordinates(inputs, coordinates, order, fill_mode="constant", fill_value=0):
    """``inputs`` read at ``coordinates`` (``[inputs.ndim, ...]``) with spline ``order`` 0 or 1 and ``fill_mode``
    ("constant", "nearest", "wrap", "mirror", "reflect") for coordinates outside: the shape of
    ``coordinates[0]``, ``inputs``' dtype."""
    inputs, coordinates = convert_to_tensor(inputs), convert_to_tensor(coordinates)
    if coordinates.shape[0] != inputs.shape.rank:
        raise ValueError(f"First dim of `coordinates` must be the same as the rank of `inputs`. Received inputs "
                         f"with shape: {inputs.shape} and coordinate leading dim of {coordinates.shape[0]}")
    if coordinates.shape.rank < 2:
        raise ValueError(f"Invalid coordinates rank: expected at least rank 2. Received input with shape: "
                         f"{coordinates.shape}")
    if fill_mode not in _MAP_FILL_MODES:
        # Keras 3.15's message formatting fails (``set.keys()``): an AttributeError is what its callers see
        raise AttributeError(f"Invalid value for argument `fill_mode`. Expected one of {_MAP_FILL_MODES}. "
                         f"Received: fill_mode={fill_mode}")
    if order not in (0, 1):
        raise NotImplementedError("map_coordinates currently requires order<=1")
    return _map_coordinates(inputs, tf.unstack(coordinates, axis=0), order, fill_mode, fill_value)


@keras_op
def elastic_transform(images, alpha=20.0, sigma=5.0, interpolation="bilinear", fill_mode="reflect", fill_value=0.0,
                      seed=None, data_format=None):
    """``images`` (float, rank 3 or 4) displaced along a random field: normal noise (drawn at ``seed``) times
    ``sigma``, blurred by a Gaussian of width ``sigma`` over ``6 int(sigma) | 1`` pixels, times ``alpha``."""
    images = convert_to_tensor(images)
    _check_warp_arguments(images, interpolation, fill_mode)
    dtype = images.dtype.name
    # Keras sizes the blur from sigma in the images' dtype, truncated to int32
    kernel_size = 6 * int(np.asarray(sigma, dtype=dtype)) | 1 if isinstance(sigma, (int, float)) else (
        6 * int(tf.get_static_value(tf.cast(convert_to_tensor(sigma, dtype), "int32"))) | 1)
    alpha, sigma = convert_to_tensor(alpha, dtype), convert_to_tensor(sigma, dtype)
    return _on_batch(images, data_format, lambda batch: elastic_warp(
        batch, alpha, sigma, kernel_size, interpolation, fill_mode, fill_value, seed))


def _scale_kernel(method, x):
    """Keras' scale_and_translate kernels of distances ``x`` >= 0."""
    if method == "linear":
        return tf.maximum(tf.zeros((), x.dtype), 1 - tf.abs(x))
    if method == "cubic":
        near = ((1.5 * x - 2.5) * x) * x + 1.0
        return tf.where(x >= 2.0, tf.zeros((), x.dtype), tf.where(x >= 1.0, ((-0.5 * x + 2.5) * x - 4.0) * x + 2.0,
                                                                   near))
    radius = 3.0 if method == "lanczos3" else 5.0
    value = radius * tf.sin(np.pi * x) * tf.sin(np.pi * x / radius)
    value = tf.where(x > 1e-3, value / tf.where(x != 0, np.pi ** 2 * x ** 2, tf.ones((), x.dtype)),
                     tf.ones((), x.dtype))
    return tf.where(x > radius, tf.zeros((), x.dtype), value)


def _scale_weights(n_in, n_out, scale, translation, method, antialias):
    """The ``[n_in, n_out]`` weights of Keras' (JAX's) scale_and_translate along one axis: output ``o`` samples
    ``(o + 0.5 - translation) / scale - 0.5``, normalised kernel weights, zero columns for samples outside."""
    dtype = scale.dtype
    inv_scale = 1.0 / scale
    kernel_scale = tf.maximum(inv_scale, 1.0) if antialias else 1.0
    sample = (tf.range(n_out, dtype=dtype) + 0.5) * inv_scale - translation * inv_scale - 0.5
    weights = _scale_kernel(method, tf.abs(sample[None, :] - tf.range(n_in, dtype=dtype)[:, None]) / kernel_scale)
    total = tf.reduce_sum(weights, axis=0, keepdims=True)
    zero = tf.zeros((), dtype)
    weights = tf.where(tf.abs(total) > 1000.0 * float(np.finfo(np.float32).eps),
                       weights / tf.where(total != 0, total, tf.ones((), dtype)), zero)
    return tf.where(((sample >= -0.5) & (sample <= n_in - 0.5))[None, :], weights, zero)


@keras_op
def scale_and_translate(images, output_shape, scale, translation, spatial_dims, method, antialias=True):
    """``images`` resampled to ``output_shape`` (every dim) along ``spatial_dims`` with per-dim ``scale`` and
    ``translation`` by Keras' separable kernels ("linear"/"bilinear"/"trilinear", "cubic"/"bicubic"/"tricubic",
    "lanczos3", "lanczos5"; widened when downsampling with ``antialias``).  Integer images are rounded and
    clipped to their input range."""
    if method not in _SCALE_METHODS:
        raise ValueError(f"Invalid value for argument `method`. Expected of one {set(_SCALE_METHODS)}. "
                         f"Received: method={method}")
    images, scale, translation = convert_to_tensor(images), convert_to_tensor(scale), convert_to_tensor(translation)
    dtype = result_type(scale.dtype.name, translation.dtype.name)
    scale, translation = tf.cast(scale, dtype), tf.cast(translation, dtype)
    if not spatial_dims:
        return images
    rank = images.shape.rank
    output = tf.cast(images, "float32") if images.dtype.is_integer else images
    for i, dim in enumerate(spatial_dims):
        dim = dim % rank
        weights = tf.cast(_scale_weights(images.shape[dim], int(output_shape[dim]), scale[i], translation[i],
                                         _SCALE_METHODS[method], antialias), output.dtype)
        output = tf.tensordot(output, weights, axes=[[dim], [0]])
        output = tf.transpose(output, [*range(dim), rank - 1, *range(dim, rank - 1)])
    if images.dtype.is_integer:
        # Keras clips the float result by the integer images' range: TF refuses the mixed dtypes
        output = tf.cast(tf.clip_by_value(tf.round(output), tf.reduce_min(images), tf.reduce_max(images)),
                         images.dtype)
    return output


def _exactly_two(names, values):
    if list(values).count(None) != 1:
        given = ", ".join(f"{name}={value}" for name, value in zip(names, values))
        raise ValueError(f"Must specify exactly two of {', '.join(names)}. Received: {given}")
    for name, value in zip(names, values):
        _non_negative(name, value)


def _non_negative(name, value):
    if value is not None and value < 0:
        raise ValueError(f"{name} must be >= 0. Received: {name}={value}")


def _height_width_axes(images, data_format):
    offset = images.shape.rank - 3
    if standardize_data_format(data_format) == "channels_last":
        return offset, offset + 1
    return offset + 1, offset + 2


@keras_op
def pad_images(images, top_padding=None, left_padding=None, bottom_padding=None, right_padding=None,
               target_height=None, target_width=None, data_format=None):
    """``images`` (rank 3 or 4) padded with zeros: two of (top, bottom, target height) and two of (left, right,
    target width) given."""
    images = checked_images(images, received="Received: ")
    _exactly_two(("top_padding", "bottom_padding", "target_height"), (top_padding, bottom_padding, target_height))
    _exactly_two(("left_padding", "right_padding", "target_width"), (left_padding, right_padding, target_width))
    height_axis, width_axis = _height_width_axes(images, data_format)
    height, width = images.shape[height_axis], images.shape[width_axis]
    if top_padding is None:
        top_padding = target_height - bottom_padding - height
    if bottom_padding is None:
        bottom_padding = target_height - top_padding - height
    if left_padding is None:
        left_padding = target_width - right_padding - width
    if right_padding is None:
        right_padding = target_width - left_padding - width
    for name, value in (("top_padding", top_padding), ("left_padding", left_padding),
                        ("right_padding", right_padding), ("bottom_padding", bottom_padding)):
        _non_negative(name, value)
    paddings = [[0, 0]] * images.shape.rank
    paddings[height_axis], paddings[width_axis] = [top_padding, bottom_padding], [left_padding, right_padding]
    return tf.pad(images, paddings)


@keras_op
def crop_images(images, top_cropping=None, left_cropping=None, bottom_cropping=None, right_cropping=None,
                target_height=None, target_width=None, data_format=None):
    """``images`` (rank 3 or 4) cropped: two of (top, bottom, target height) and two of (left, right, target
    width) given."""
    images = checked_images(images, received="Received: ")
    _exactly_two(("top_cropping", "bottom_cropping", "target_height"),
                 (top_cropping, bottom_cropping, target_height))
    _exactly_two(("left_cropping", "right_cropping", "target_width"), (left_cropping, right_cropping, target_width))
    height_axis, width_axis = _height_width_axes(images, data_format)
    height, width = images.shape[height_axis], images.shape[width_axis]
    if top_cropping is None:
        top_cropping = height - target_height - bottom_cropping
    if target_height is None:
        target_height = height - bottom_cropping - top_cropping
    if left_cropping is None:
        left_cropping = width - target_width - right_cropping
    if target_width is None:
        target_width = width - right_cropping - left_cropping
    for name, value in (("top_cropping", top_cropping), ("target_height", target_height),
                        ("left_cropping", left_cropping), ("target_width", target_width)):
        _non_negative(name, value)
    begin, size = [0] * images.shape.rank, list(images.shape)
    begin[height_axis], begin[width_axis] = top_cropping, left_cropping
    size[height_axis], size[width_axis] = target_height, target_width
    return tf.slice(images, begin, size)
