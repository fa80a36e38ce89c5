"""keras.ops.image filters: extract_patches(_3d), gaussian_blur, sobel_edges and ssim, as Keras 3 computes them on
its TensorFlow backend, adapted onto vfw's ``tf.image.extract_patches`` / ``sobel_edges`` / ``ssim``, 3-D
convolutions and RandomGaussianBlur's blur."""

import vfw.frontends.tensorflow as tf
from vfw.frontends.tensorflow import _image_basic_ops, _image_patches
from vfw.frontends.tensorflow.keras.src.backend.config import standardize_data_format
from vfw.frontends.tensorflow.keras.src.backend.dtypes import result_type
from vfw.frontends.tensorflow.keras.src.layers.preprocessing_image import _channels_moved
from vfw.frontends.tensorflow.keras.src.layers.preprocessing_image_blur import gaussian_blur as _blur
from vfw.frontends.tensorflow.keras.src.ops._common import convert_to_tensor, keras_op
from vfw.frontends.tensorflow.keras.src.ops.image_geometry import _check_rank, _on_batch

API = {"ops.image": ["extract_patches", "extract_patches_3d", "gaussian_blur", "sobel_edges", "ssim"]}


def _tuple(value, n):
    return (value,) * n if isinstance(value, int) else tuple(value)


def _patches_2d(images, size, strides, dilation_rate, padding, data_format):
    """Keras' 2-D patches: every ``size`` window's pixels, flattened (rows, columns, channels) into the channels."""
    sizes = _tuple(size, 2)
    strides = _tuple(strides or size, 2)
    rates = _tuple(dilation_rate, 2)
    return _on_batch(images, data_format, lambda batch: _image_patches.extract_patches(
        batch, [1, *sizes, 1], [1, *strides, 1], [1, *rates, 1], padding.upper()))


def _patches_3d(volumes, size, strides, dilation_rate, padding, data_format):
    """Keras' 3-D patches: a 3-D convolution with the identity kernel of every window position and channel."""
    sizes = _tuple(size, 3)
    strides = _tuple(size if strides is None else strides, 3)
    if len(strides) != 3:
        raise ValueError(f"Invalid `strides` argument. Got: {strides}")
    channels_last = standardize_data_format(data_format) == "channels_last"
    single = volumes.shape.rank == 4
    batch = tf.expand_dims(volumes, 0) if single else volumes
    if not channels_last:
        batch = tf.transpose(batch, (0, 2, 3, 4, 1))
    depth = sizes[0] * sizes[1] * sizes[2] * batch.shape[-1]
    kernel = tf.reshape(tf.eye(depth, dtype=batch.dtype), (*sizes, batch.shape[-1], depth))
    patches = tf.nn.convolution(batch, kernel, strides=strides, padding=padding.upper(),
                                dilations=_tuple(dilation_rate, 3))
    if not channels_last:
        patches = tf.transpose(patches, (0, 4, 1, 2, 3))
    return tf.squeeze(patches, 0) if single else patches


@keras_op
def extract_patches(images, size, strides=None, dilation_rate=1, padding="valid", data_format=None):
    """The ``size`` (int, pair, or triple for volumes) patches of ``images`` every ``strides`` (``size`` by
    default), each flattened into the channel axis: ``(..., out_h, out_w, size_h * size_w * channels)``."""
    if not isinstance(size, int):
        if not isinstance(size, (tuple, list)):
            raise TypeError(f"Invalid `size` argument. Expected an int or a tuple. Received: size={size} of type "
                            f"{type(size).__name__}")
        if len(size) not in (2, 3):
            raise ValueError(f"Invalid `size` argument. Expected a tuple of length 2 or 3. Received: size={size} "
                             f"with length {len(size)}")
    images = convert_to_tensor(images)
    if not isinstance(size, int) and len(size) == 3:
        return _patches_3d(images, size, strides, dilation_rate, padding, data_format)
    return _patches_2d(images, size, strides, dilation_rate, padding, data_format)


@keras_op
def extract_patches_3d(volumes, size, strides=None, dilation_rate=1, padding="valid", data_format=None):
    """The ``size`` (int or triple) patches of ``volumes`` (rank 4 or 5) every ``strides``, each flattened into
    the channel axis."""
    return _patches_3d(convert_to_tensor(volumes), size, strides, dilation_rate, padding, data_format)


@keras_op
def gaussian_blur(images, kernel_size=(3, 3), sigma=(1.0, 1.0), data_format=None):
    """``images`` (float, rank 3 or 4) convolved ("SAME", per channel) with the outer product of Gaussians of
    ``kernel_size`` taps and widths ``sigma``."""
    images = convert_to_tensor(images)
    _check_rank(images)
    dtype = images.dtype.name
    sigma = convert_to_tensor(sigma, dtype)
    single = images.shape.rank == 3
    batch = tf.expand_dims(images, 0) if single else images
    blurred = _blur(batch, tuple(kernel_size), (sigma[0], sigma[1]), standardize_data_format(data_format))
    return tf.squeeze(blurred, 0) if single else blurred


@keras_op
def sobel_edges(images, data_format=None):
    """The Sobel gradients of a batch ``images``: ``(..., 2)`` (vertical, horizontal) per channel."""
    images = convert_to_tensor(images)
    if standardize_data_format(data_format) == "channels_last":
        return _image_basic_ops.sobel_edges(images)
    edges = _image_basic_ops.sobel_edges(_channels_moved(images, last=True))
    return tf.transpose(edges, (0, 3, 1, 2, 4))


@keras_op
def ssim(image1, image2, max_val=1.0, filter_size=11, filter_sigma=1.5, k1=0.01, k2=0.03, data_format=None):
    """The structural similarity of ``image1`` and ``image2`` (rank 3 or 4), computed in their float promotion
    (``tf.image.ssim`` over "VALID" Gaussian windows, averaged over pixels and channels) and returned in
    ``image1``'s dtype: a scalar or one value per image."""
    image1, image2 = convert_to_tensor(image1), convert_to_tensor(image2)
    dtype = image1.dtype
    compute_dtype = result_type(dtype.name, float)
    image1, image2 = tf.cast(image1, compute_dtype), tf.cast(image2, compute_dtype)
    _check_rank(image1, "image1")
    _check_rank(image2, "image2")
    if standardize_data_format(data_format) == "channels_first":
        image1, image2 = _channels_moved(image1, last=True), _channels_moved(image2, last=True)
    value = _image_basic_ops.ssim(image1, image2, max_val, filter_size=filter_size, filter_sigma=filter_sigma,
                                  k1=k1, k2=k2)
    return tf.cast(value, dtype)
