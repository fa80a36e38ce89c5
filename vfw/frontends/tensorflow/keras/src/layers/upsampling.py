"""Upsampling layers: UpSampling1D/2D/3D (repeats), UpSampling2D also by interpolation.

UpSampling2D's ``interpolation`` other than "nearest" resizes as Keras' ``ops.image.resize`` on
TensorFlow does: ``tf.image.resize`` without antialiasing, the result cast back to the images' dtype
(integers rounded and saturated).  Unlike TF, where "area" resizing has no gradient (LookupError), the
"area" resize here is differentiable: it is applied as the linear map ``tf.image.resize`` computes it with.
"""

import vfw.frontends.tensorflow as tf
from vfw.frontends.tensorflow import _image_scale
from vfw.frontends.tensorflow.keras.src.backend.config import standardize_data_format
from vfw.frontends.tensorflow.keras.src.engine.input_spec import InputSpec
from vfw.frontends.tensorflow.keras.src.engine.layer import Layer
from vfw.frontends.tensorflow.keras.src.layers import layer_utils
from vfw.frontends.tensorflow.keras.src.layers.preprocessing_image import cast_resized, check_resize_interpolation


def resize_images(images, new_size, interpolation):
    """``(batch, rows, cols, channels)`` images resized to ``new_size`` (rows, cols) by ``interpolation``.

    Raises
    ------
    ValueError
        For an interpolation Keras does not know.
    """
    check_resize_interpolation(interpolation)
    if interpolation == "area":  # tf.image.resize's area map, without its refusal to differentiate
        rows, cols = (_image_scale.area_weights(images.shape[axis], new_size[axis - 1]) for axis in (1, 2))
        resized = _image_scale.apply_separable(tf.cast(images, tf.float32), rows, cols)
    else:
        resized = tf.image.resize(images, new_size, method=interpolation)
    return cast_resized(resized, images.dtype)


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
