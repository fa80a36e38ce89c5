"""Upsampling layers: UpSampling1D/2D/3D (repeats), UpSampling2D also by interpolation.

UpSampling2D's ``interpolation`` other than "nearest" resizes as Keras' ``ops.image.resize`` on
TensorFlow does (``tf.image.resize`` without antialiasing, half-pixel centres): the images are
computed in float32 and cast back to their dtype (integers rounded and saturated).  Each spatial axis
is resized by a product with a constant interpolation matrix whose rows are the kernel's weights at
the input pixel centres, renormalized to sum to 1 where the kernel reaches past the border (TF's
rule for bicubic and Lanczos; for bilinear it gives the same values as clamping the coordinates);
"area" rows weight each input pixel by its overlap with the output pixel.  Unlike TF, where
"area" resizing has no gradient (LookupError), these resizes are all differentiable.
"""

import functools

import numpy as np

import vfw.frontends.tensorflow as tf
from vfw.frontends.tensorflow.keras.src.backend.config import standardize_data_format
from vfw.frontends.tensorflow.keras.src.engine.input_spec import InputSpec
from vfw.frontends.tensorflow.keras.src.engine.layer import Layer
from vfw.frontends.tensorflow.keras.src.layers import layer_utils

RESIZE_INTERPOLATIONS = ("bilinear", "nearest", "lanczos3", "lanczos5", "bicubic", "area")


def _keys_cubic(x):
    """Keys' cubic convolution kernel with a = -0.5 (TF's bicubic)."""
    x = np.abs(x)
    near = (1.5 * x - 2.5) * x * x + 1
    far = ((-0.5 * x + 2.5) * x - 4) * x + 2
    return np.where(x <= 1, near, np.where(x < 2, far, 0.0))


def _lanczos(radius):
    def kernel(x):
        x = np.abs(x)
        safe = np.where(x <= 1e-3, 1.0, x)
        value = radius * np.sin(np.pi * safe) * np.sin(np.pi * safe / radius) / (np.pi * np.pi * safe * safe)
        return np.where(x > radius, 0.0, np.where(x <= 1e-3, 1.0, value))
    return kernel


_KERNELS = {
    "bilinear": lambda x: np.maximum(0.0, 1.0 - np.abs(x)),
    "bicubic": _keys_cubic,
    "lanczos3": _lanczos(3),
    "lanczos5": _lanczos(5),
}


@functools.lru_cache(maxsize=64)
def interpolation_matrix(size, new_size, interpolation):
    """The ``(new_size, size)`` float32 matrix resizing one axis from ``size`` to ``new_size`` samples."""
    if interpolation == "area":  # each output pixel averages the input it covers, weighted by the overlap
        scale = size / new_size
        starts, ends = np.arange(new_size)[:, None] * scale, (np.arange(new_size)[:, None] + 1) * scale
        pixels = np.arange(size)[None, :]
        overlap = np.clip(np.minimum(ends, pixels + 1) - np.maximum(starts, pixels), 0, None)
        return (overlap / scale).astype(np.float32)
    # output pixel centres in input pixel units, in float32 as TF computes them
    centres = ((np.arange(new_size, dtype=np.float32) + np.float32(0.5)) * np.float32(size / new_size)).astype(float)
    if interpolation == "bicubic":  # TF's bicubic reads its weights from a table: offsets in steps of 1/1024
        position = centres - 0.5
        base = np.floor(position)
        centres = base + np.rint((position - base) * 1024) / 1024 + 0.5
    weights = _KERNELS[interpolation](np.arange(size)[None, :] + 0.5 - centres[:, None])
    totals = weights.sum(axis=1, keepdims=True)
    weights = np.where(np.abs(totals) > 1000 * np.finfo(np.float32).tiny, weights / totals, weights)
    return weights.astype(np.float32)


def resize_images(images, new_size, interpolation):
    """``(batch, rows, cols, channels)`` images resized to ``new_size`` (rows, cols) by ``interpolation``.

    Raises
    ------
    ValueError
        For an interpolation Keras does not know.
    """
    if interpolation not in RESIZE_INTERPOLATIONS:
        raise ValueError(f"Invalid value for argument `interpolation`. Expected of one {RESIZE_INTERPOLATIONS}. "
                         f"Received: interpolation={interpolation}")
    rows, cols = images.shape[1], images.shape[2]
    if interpolation == "nearest":  # a gather: the dtype stays
        images = tf.gather(images, _nearest_indices(rows, new_size[0]), axis=1)
        return tf.gather(images, _nearest_indices(cols, new_size[1]), axis=2)
    dtype = images.dtype
    x = images if dtype == tf.float32 else tf.cast(images, tf.float32)
    x = _resize_axis(x, interpolation_matrix(rows, new_size[0], interpolation), 1)
    x = _resize_axis(x, interpolation_matrix(cols, new_size[1], interpolation), 2)
    if dtype == tf.float32:
        return x
    if dtype.is_integer:
        x = tf.clip_by_value(tf.round(x), float(dtype.min), float(dtype.max))
    return tf.cast(x, dtype)


def _resize_axis(x, matrix, axis):
    """``x`` (rank 4, static sizes after the batch dim) with axis ``axis`` mapped through ``matrix``: one
    broadcast matmul over ``(lead, size, rest)``."""
    dims = x.shape.as_list()
    rest = int(np.prod(dims[axis + 1:]))
    y = tf.matmul(matrix, tf.reshape(x, [-1, dims[axis], rest]))
    return tf.reshape(y, [-1, *dims[1:axis], matrix.shape[0], *dims[axis + 1:]])


def _nearest_indices(size, new_size):
    """TF's half-pixel nearest neighbours: ``floor((i + 0.5) * size / new_size)``, clipped."""
    return np.minimum(np.floor((np.arange(new_size) + 0.5) * (size / new_size)), size - 1).astype(np.int32)


class UpSampling1D(Layer):
    """Repeats each step ``size`` times: ``(batch, steps, features)`` -> ``(batch, steps * size, features)``."""

    def __init__(self, size=2, **kwargs):
        super().__init__(**kwargs)
        if not isinstance(size, int) or isinstance(size, bool):
            raise TypeError(f"Expected an integer value for `size`, got {type(size)}.")
        if size <= 0:
            raise ValueError(f"Argument `size` should be a positive integer. Received: size={size}")
        self.size = size
        self.input_spec = InputSpec(ndim=3)

    def compute_output_shape(self, input_shape):
        return [input_shape[0], None if input_shape[1] is None else self.size * input_shape[1], input_shape[2]]

    def call(self, inputs):
        return tf.repeat(inputs, self.size, axis=1)

    def get_config(self):
        return {**super().get_config(), "size": self.size}


class _UpSamplingND(Layer):
    """Upsampling of every spatial dim by its factor in ``size``."""

    def _init_size(self, rank, size, data_format):
        self.data_format = standardize_data_format(data_format)
        self.size = layer_utils.standardize_tuple(size, rank, "size")
        self.input_spec = InputSpec(ndim=rank + 2)

    def compute_output_shape(self, input_shape):
        sizes = [None if n is None else n * f for n, f in zip(layer_utils.spatial_dims(input_shape, self.data_format),
                                                               self.size)]
        channels = input_shape[-1] if self.data_format == "channels_last" else input_shape[1]
        return layer_utils.with_spatial(input_shape, sizes, channels, self.data_format)

    def _repeat(self, inputs):
        offset = 1 if self.data_format == "channels_last" else 2
        for axis, factor in enumerate(self.size, start=offset):
            inputs = tf.repeat(inputs, factor, axis=axis)
        return inputs


class UpSampling2D(_UpSamplingND):
    """Upsamples rows and columns by ``size`` (repeats, or ``interpolation`` "bilinear", "bicubic",
    "lanczos3", "lanczos5", "area").

    Parameters
    ----------
    size : int or (int, int)
    data_format : {"channels_last", "channels_first"}, optional
    interpolation : str
        Case-insensitive; checked when the layer is called.
    """

    def __init__(self, size=(2, 2), data_format=None, interpolation="nearest", **kwargs):
        super().__init__(**kwargs)
        self._init_size(2, size, data_format)
        self.interpolation = interpolation.lower()

    def call(self, inputs):
        if self.interpolation == "nearest":
            return self._repeat(inputs)
        if self.data_format == "channels_first":
            inputs = tf.transpose(inputs, [0, 2, 3, 1])
        rows, cols = inputs.shape[1], inputs.shape[2]
        outputs = resize_images(inputs, (rows * self.size[0], cols * self.size[1]), self.interpolation)
        return tf.transpose(outputs, [0, 3, 1, 2]) if self.data_format == "channels_first" else outputs

    def get_config(self):
        return {**super().get_config(), "size": self.size, "data_format": self.data_format,
                "interpolation": self.interpolation}


class UpSampling3D(_UpSamplingND):
    """Repeats each of the three spatial dims by its factor in ``size``."""

    def __init__(self, size=(2, 2, 2), data_format=None, **kwargs):
        super().__init__(**kwargs)
        self._init_size(3, size, data_format)

    def call(self, inputs):
        return self._repeat(inputs)

    def get_config(self):
        return {**super().get_config(), "size": self.size, "data_format": self.data_format}


API = {"layers": ["UpSampling1D", "UpSampling2D", "UpSampling3D"]}
