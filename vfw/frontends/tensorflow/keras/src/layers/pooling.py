"""Pooling layers: MaxPooling1D/2D/3D, AveragePooling1D/2D/3D, GlobalAveragePooling1D/2D/3D,
GlobalMaxPooling1D/2D/3D (and Keras' aliases MaxPool2D, AvgPool2D, GlobalAvgPool2D...) and
AdaptiveAveragePooling1D/2D/3D, AdaptiveMaxPooling1D/2D/3D.

Windowed pooling runs through keras.ops (vfw's tf.nn max/avg pool: channels-last engine ops; average
pooling with "same" padding leaves the padding out of the averages, as TF does).  Global pooling
reduces the spatial axes; GlobalAveragePooling1D averages only the unmasked steps when its input
carries a mask.
"""

import math

import numpy as np

import vfw.frontends.tensorflow as tf
from vfw.frontends.tensorflow.keras.src import ops
from vfw.frontends.tensorflow.keras.src.backend.config import image_data_format, standardize_data_format
from vfw.frontends.tensorflow.keras.src.engine.input_spec import InputSpec
from vfw.frontends.tensorflow.keras.src.engine.layer import Layer
from vfw.frontends.tensorflow.keras.src.layers import layer_utils


class BasePooling(Layer):
    """Max or average pooling over ``pool_dimensions`` spatial dims.

    Parameters
    ----------
    pool_size : int or tuple of ints
        The window.
    strides : int or tuple of ints, optional
        Default: ``pool_size``.
    pool_dimensions : int
        1, 2 or 3.
    pool_mode : {"max", "average"}
    padding : {"valid", "same"}
    data_format : {"channels_last", "channels_first"}, optional
    """

    def __init__(self, pool_size, strides, pool_dimensions, pool_mode="max", padding="valid", data_format=None,
                 name=None, **kwargs):
        super().__init__(name=name, **kwargs)
        self.pool_size = layer_utils.standardize_tuple(pool_size, pool_dimensions, "pool_size")
        self.strides = layer_utils.standardize_tuple(pool_size if strides is None else strides, pool_dimensions,
                                                     "strides", allow_zero=True)
        self.pool_mode = pool_mode
        self.padding = padding
        self.data_format = standardize_data_format(data_format)
        self.input_spec = InputSpec(ndim=pool_dimensions + 2)
        self._build_at_init()

    def call(self, inputs):
        if self.pool_mode == "max":
            pool = ops.max_pool
        elif self.pool_mode == "average":
            pool = ops.average_pool
        else:
            raise ValueError(f"`pool_mode` must be either 'max' or 'average'. Received: {self.pool_mode}.")
        return pool(inputs, pool_size=self.pool_size, strides=self.strides, padding=self.padding,
                    data_format=self.data_format)

    def compute_output_shape(self, input_shape):
        return layer_utils.pooling_output_shape(input_shape, self.pool_size, self.strides, self.padding,
                                                self.data_format)

    def get_config(self):
        config = {"pool_size": self.pool_size, "padding": self.padding, "strides": self.strides,
                  "data_format": self.data_format}
        return {**super().get_config(), **config}


class MaxPooling1D(BasePooling):
    """Max pooling over steps: ``(batch, steps, channels)`` inputs (channels_last)."""

    def __init__(self, pool_size=2, strides=None, padding="valid", data_format=None, name=None, **kwargs):
        super().__init__(pool_size, strides, pool_dimensions=1, pool_mode="max", padding=padding,
                         data_format=data_format, name=name, **kwargs)


class MaxPooling2D(BasePooling):
    """Max pooling over rows and columns: ``(batch, rows, cols, channels)`` inputs (channels_last)."""

    def __init__(self, pool_size=(2, 2), strides=None, padding="valid", data_format=None, name=None, **kwargs):
        super().__init__(pool_size, strides, pool_dimensions=2, pool_mode="max", padding=padding,
                         data_format=data_format, name=name, **kwargs)


class MaxPooling3D(BasePooling):
    """Max pooling over three spatial dims: ``(batch, d1, d2, d3, channels)`` inputs (channels_last)."""

    def __init__(self, pool_size=(2, 2, 2), strides=None, padding="valid", data_format=None, name=None, **kwargs):
        super().__init__(pool_size, strides, pool_dimensions=3, pool_mode="max", padding=padding,
                         data_format=data_format, name=name, **kwargs)


class AveragePooling1D(BasePooling):
    """Average pooling over steps (``pool_size`` is required, as in Keras)."""

    def __init__(self, pool_size, strides=None, padding="valid", data_format=None, name=None, **kwargs):
        super().__init__(pool_size, strides, pool_dimensions=1, pool_mode="average", padding=padding,
                         data_format=data_format, name=name, **kwargs)


class AveragePooling2D(BasePooling):
    """Average pooling over rows and columns (``pool_size`` is required)."""

    def __init__(self, pool_size, strides=None, padding="valid", data_format=None, name=None, **kwargs):
        super().__init__(pool_size, strides, pool_dimensions=2, pool_mode="average", padding=padding,
                         data_format=data_format, name=name, **kwargs)


class AveragePooling3D(BasePooling):
    """Average pooling over three spatial dims (``pool_size`` is required)."""

    def __init__(self, pool_size, strides=None, padding="valid", data_format=None, name=None, **kwargs):
        super().__init__(pool_size, strides, pool_dimensions=3, pool_mode="average", padding=padding,
                         data_format=data_format, name=name, **kwargs)


class BaseGlobalPooling(Layer):
    """Pooling over all spatial dims of ``(batch, *spatial, channels)`` (or channels-first) inputs.

    Parameters
    ----------
    pool_dimensions : int
    data_format : {"channels_last", "channels_first"}, optional
    keepdims : bool
        Keep the spatial dims (size 1).
    """

    def __init__(self, pool_dimensions, data_format=None, keepdims=False, **kwargs):
        super().__init__(**kwargs)
        self.data_format = standardize_data_format(data_format)
        self.keepdims = keepdims
        self.input_spec = InputSpec(ndim=pool_dimensions + 2)
        self._build_at_init()

    def _spatial_axes(self, inputs):
        rank = len(inputs.shape)
        return list(range(1, rank - 1)) if self.data_format == "channels_last" else list(range(2, rank))

    def call(self, inputs):
        raise NotImplementedError

    def compute_output_shape(self, input_shape):
        spatial = len(input_shape) - 2
        channels = input_shape[-1] if self.data_format == "channels_last" else input_shape[1]
        if not self.keepdims:
            return (input_shape[0], channels)
        return layer_utils.with_spatial(input_shape, (1,) * spatial, channels, self.data_format)

    def get_config(self):
        return {**super().get_config(), "data_format": self.data_format, "keepdims": self.keepdims}


class _GlobalAverage(BaseGlobalPooling):
    def call(self, inputs):
        return ops.mean(inputs, axis=self._spatial_axes(inputs), keepdims=self.keepdims)


class _GlobalMax(BaseGlobalPooling):
    def call(self, inputs):
        return ops.max(inputs, axis=self._spatial_axes(inputs), keepdims=self.keepdims)


class GlobalAveragePooling1D(_GlobalAverage):
    """The mean over steps; with a mask, the mean over the unmasked steps (the output has no mask)."""

    def __init__(self, data_format=None, keepdims=False, **kwargs):
        super().__init__(pool_dimensions=1, data_format=data_format, keepdims=keepdims, **kwargs)
        self.supports_masking = True

    def call(self, inputs, mask=None):
        if mask is None:
            return super().call(inputs)
        steps_axis = 1 if self.data_format == "channels_last" else 2
        keep = tf.cast(ops.expand_dims(mask, 2 if self.data_format == "channels_last" else 1), "bool")
        total = ops.sum(ops.where(keep, inputs, 0), axis=steps_axis, keepdims=self.keepdims)
        count = ops.sum(tf.cast(keep, inputs.dtype), axis=steps_axis, keepdims=self.keepdims)
        return total / count

    def compute_mask(self, inputs, mask=None):
        return None


class GlobalAveragePooling2D(_GlobalAverage):
    """The mean over rows and columns."""

    def __init__(self, data_format=None, keepdims=False, **kwargs):
        super().__init__(pool_dimensions=2, data_format=data_format, keepdims=keepdims, **kwargs)


class GlobalAveragePooling3D(_GlobalAverage):
    """The mean over the three spatial dims."""

    def __init__(self, data_format=None, keepdims=False, **kwargs):
        super().__init__(pool_dimensions=3, data_format=data_format, keepdims=keepdims, **kwargs)


class GlobalMaxPooling1D(_GlobalMax):
    """The maximum over steps."""

    def __init__(self, data_format=None, keepdims=False, **kwargs):
        super().__init__(pool_dimensions=1, data_format=data_format, keepdims=keepdims, **kwargs)


class GlobalMaxPooling2D(_GlobalMax):
    """The maximum over rows and columns."""

    def __init__(self, data_format=None, keepdims=False, **kwargs):
        super().__init__(pool_dimensions=2, data_format=data_format, keepdims=keepdims, **kwargs)


class GlobalMaxPooling3D(_GlobalMax):
    """The maximum over the three spatial dims."""

    def __init__(self, data_format=None, keepdims=False, **kwargs):
        super().__init__(pool_dimensions=3, data_format=data_format, keepdims=keepdims, **kwargs)


def _adaptive_pool_axis(x, axis, output_size, pooling_type):
    """Adaptive pooling of channels-last ``x`` along spatial ``axis`` to ``output_size`` (Keras' TF method).

    Output ``i`` pools the window starting at ``floor(i * n / output_size)``, of the "big" size
    ``ceil(n / output_size) + 1`` when its bin ``[floor(i n / out), ceil((i + 1) n / out))`` has that
    size, else of the "small" size ``ceil(n / output_size)``: both sizes are pooled at every start
    (stride 1, "VALID") and the outputs gathered.
    """
    size = x.shape[axis]
    small = math.ceil(size / output_size)
    starts = np.minimum(np.floor(np.arange(output_size, dtype=np.float32) * np.float32(size)
                                 / np.float32(output_size)).astype(np.int64), size - 1)
    ends = np.minimum(np.ceil(np.arange(1, output_size + 1, dtype=np.float32) * np.float32(size)
                              / np.float32(output_size)).astype(np.int64), size)
    big_offset = max(1, size - small + 1)  # where the big windows' results start in the concatenation
    indices = np.where(ends - starts == small + 1, starts + big_offset, starts).astype(np.int32)
    rank = len(x.shape)
    pooled = []
    for window in (small, small + 1):
        shape = [window if a == axis else 1 for a in range(1, rank - 1)]
        pooled.append(tf.nn.pool(x, shape, pooling_type, strides=[1] * (rank - 2), padding="VALID"))
    return tf.gather(tf.concat(pooled, axis=axis), indices, axis=axis)


class BaseAdaptivePooling(Layer):
    """Pooling to a fixed spatial ``output_size``, the windows spread evenly over each (statically known) dim.

    Parameters
    ----------
    output_size : tuple of int
    data_format : {"channels_last", "channels_first"}, optional
    """

    _pooling_type = None

    def __init__(self, output_size, data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.output_size = output_size
        self.data_format = data_format or image_data_format()
        if self.data_format not in {"channels_first", "channels_last"}:
            raise ValueError(f"Invalid data_format: {self.data_format}. Expected 'channels_first' or "
                             "'channels_last'.")

    def call(self, inputs):
        rank = len(inputs.shape)
        if self.data_format == "channels_first":
            inputs = tf.transpose(inputs, [0, *range(2, rank), 1])
        if any(d is None for d in inputs.shape[1:-1]):
            raise ValueError("Input length must be statically known for adaptive pooling" if rank == 3 else
                             "Input spatial dimensions must be statically known for adaptive pooling")
        for axis, size in enumerate(self.output_size, start=1):
            inputs = _adaptive_pool_axis(inputs, axis, size, self._pooling_type)
        return tf.transpose(inputs, [0, rank - 1, *range(1, rank - 1)]) if self.data_format == "channels_first" \
            else inputs

    def compute_output_shape(self, input_shape):
        channels = input_shape[-1] if self.data_format == "channels_last" else input_shape[1]
        return layer_utils.with_spatial(input_shape, self.output_size, channels, self.data_format)

    def get_config(self):
        return {**super().get_config(), "output_size": self.output_size, "data_format": self.data_format}


def _output_size(output_size, rank):
    """``output_size`` (an int or ``rank`` ints) as a tuple, with Keras' errors."""
    if isinstance(output_size, int):
        return (output_size,) * rank
    if rank == 1 and isinstance(output_size, (tuple, list)):
        if len(output_size) != 1:
            raise ValueError(f"For 1D input, `output_size` tuple must have length 1. Received: {output_size}")
        return tuple(output_size)
    if isinstance(output_size, (tuple, list)) and len(output_size) == rank:
        return tuple(output_size)
    expected = {1: "tuple of 1 integer", 2: "(height, width) tuple", 3: "(depth, height, width) tuple"}[rank]
    raise TypeError(f"`output_size` must be an integer or {expected}. Received: {output_size} of type "
                    f"{type(output_size)}")


class AdaptiveAveragePooling1D(BaseAdaptivePooling):
    """Average pooling of the steps to ``output_size`` steps."""

    _pooling_type = "AVG"

    def __init__(self, output_size, data_format=None, **kwargs):
        super().__init__(_output_size(output_size, 1), data_format, **kwargs)


class AdaptiveAveragePooling2D(BaseAdaptivePooling):
    """Average pooling of rows and columns to ``output_size`` (an int or ``(height, width)``)."""

    _pooling_type = "AVG"

    def __init__(self, output_size, data_format=None, **kwargs):
        super().__init__(_output_size(output_size, 2), data_format, **kwargs)


class AdaptiveAveragePooling3D(BaseAdaptivePooling):
    """Average pooling of three spatial dims to ``output_size`` (an int or ``(depth, height, width)``)."""

    _pooling_type = "AVG"

    def __init__(self, output_size, data_format=None, **kwargs):
        super().__init__(_output_size(output_size, 3), data_format, **kwargs)


class AdaptiveMaxPooling1D(BaseAdaptivePooling):
    """Max pooling of the steps to ``output_size`` steps."""

    _pooling_type = "MAX"

    def __init__(self, output_size, data_format=None, **kwargs):
        super().__init__(_output_size(output_size, 1), data_format, **kwargs)


class AdaptiveMaxPooling2D(BaseAdaptivePooling):
    """Max pooling of rows and columns to ``output_size`` (an int or ``(height, width)``)."""

    _pooling_type = "MAX"

    def __init__(self, output_size, data_format=None, **kwargs):
        super().__init__(_output_size(output_size, 2), data_format, **kwargs)


class AdaptiveMaxPooling3D(BaseAdaptivePooling):
    """Max pooling of three spatial dims to ``output_size`` (an int or ``(depth, height, width)``)."""

    _pooling_type = "MAX"

    def __init__(self, output_size, data_format=None, **kwargs):
        super().__init__(_output_size(output_size, 3), data_format, **kwargs)


MaxPool1D, MaxPool2D, MaxPool3D = MaxPooling1D, MaxPooling2D, MaxPooling3D
AvgPool1D, AvgPool2D, AvgPool3D = AveragePooling1D, AveragePooling2D, AveragePooling3D
GlobalAvgPool1D, GlobalAvgPool2D, GlobalAvgPool3D = (GlobalAveragePooling1D, GlobalAveragePooling2D,
                                                     GlobalAveragePooling3D)
GlobalMaxPool1D, GlobalMaxPool2D, GlobalMaxPool3D = GlobalMaxPooling1D, GlobalMaxPooling2D, GlobalMaxPooling3D

API = {"layers": [f"{kind}{n}D" for kind in ("MaxPooling", "AveragePooling", "GlobalAveragePooling",
                                              "GlobalMaxPooling", "MaxPool", "AvgPool", "GlobalAvgPool",
                                              "GlobalMaxPool", "AdaptiveAveragePooling", "AdaptiveMaxPooling")
                  for n in (1, 2, 3)]}
