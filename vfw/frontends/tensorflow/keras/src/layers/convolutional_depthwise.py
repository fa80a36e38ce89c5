"""Depthwise and separable convolution layers: DepthwiseConv1D/2D, SeparableConv1D/2D.

Weights are Keras 3's: DepthwiseConv ``kernel`` of shape ``(*kernel_size, in_channels,
depth_multiplier)`` and ``bias`` of ``in_channels * depth_multiplier``; SeparableConv
``depthwise_kernel`` (the same shape), ``pointwise_kernel`` ``(*ones, in_channels * depth_multiplier,
filters)`` and ``bias`` ``(filters,)``.  Kernels are glorot_uniform, biases zeros.
"""

from vfw.frontends.tensorflow.keras.src import constraints, initializers, ops, regularizers
from vfw.frontends.tensorflow.keras.src.layers import layer_utils
from vfw.frontends.tensorflow.keras.src.layers.convolutional import (
    ConvOutputs,
    channel_axis,
    check_positive,
    check_window_arguments,
    constructor_arguments,
)


class _DepthwiseWindow(ConvOutputs):
    """What depthwise and separable convolutions share: the depthwise window arguments and checks."""

    def _init_depthwise(self, rank, depth_multiplier, kernel_size, strides, padding, data_format, dilation_rate,
                        activation, use_bias, depthwise_initializer, bias_initializer, depthwise_regularizer,
                        bias_regularizer, depthwise_constraint, bias_constraint):
        self.depth_multiplier = depth_multiplier
        check_window_arguments(self, rank, kernel_size, strides, dilation_rate)
        self.padding = layer_utils.standardize_padding(padding)
        self._init_output(data_format, activation, use_bias, bias_initializer, bias_regularizer, bias_constraint)
        self.depthwise_initializer = initializers.get(depthwise_initializer)
        self.depthwise_regularizer = regularizers.get(depthwise_regularizer)
        self.depthwise_constraint = constraints.get(depthwise_constraint)
        check_positive("depth_multiplier", depth_multiplier)

    def _add_depthwise_weight(self, name, channels):
        return self.add_weight(name=name, shape=self.kernel_size + (channels, self.depth_multiplier),
                               initializer=self.depthwise_initializer, regularizer=self.depthwise_regularizer,
                               constraint=self.depthwise_constraint, trainable=True, dtype=self.dtype)

    def _output_channels(self, input_shape):
        raise NotImplementedError

    def compute_output_shape(self, input_shape):
        return layer_utils.conv_output_shape(input_shape, self._output_channels(input_shape), self.kernel_size,
                                             self.strides, self.padding, self.data_format, self.dilation_rate)

    def _window_config(self):
        return {"kernel_size": self.kernel_size, "strides": self.strides, "padding": self.padding,
                "data_format": self.data_format, "dilation_rate": self.dilation_rate, **self._output_config(),
                "depthwise_initializer": initializers.serialize(self.depthwise_initializer)}


class BaseDepthwiseConv(_DepthwiseWindow):
    """An N-D depthwise convolution layer: each input channel convolved with ``depth_multiplier`` filters.

    Parameters
    ----------
    rank : int
    depth_multiplier : int
        Output channels per input channel.
    kernel_size, strides, dilation_rate : int or tuple of ``rank`` ints
    padding : {"valid", "same"}
    data_format, activation, use_bias : optional
    depthwise_initializer, bias_initializer, depthwise_regularizer, bias_regularizer,
    activity_regularizer, depthwise_constraint, bias_constraint : optional
    """

    def __init__(self, rank, depth_multiplier, kernel_size, strides=1, padding="valid", data_format=None,
                 dilation_rate=1, activation=None, use_bias=True, depthwise_initializer="glorot_uniform",
                 bias_initializer="zeros", depthwise_regularizer=None, bias_regularizer=None,
                 activity_regularizer=None, depthwise_constraint=None, bias_constraint=None, trainable=True, name=None,
                 **kwargs):
        super().__init__(trainable=trainable, name=name, activity_regularizer=regularizers.get(activity_regularizer),
                         **kwargs)
        self._init_depthwise(rank, depth_multiplier, kernel_size, strides, padding, data_format, dilation_rate,
                             activation, use_bias, depthwise_initializer, bias_initializer, depthwise_regularizer,
                             bias_regularizer, depthwise_constraint, bias_constraint)
        if not all(self.kernel_size):
            raise ValueError(f"The argument `kernel_size` cannot contain 0. Received kernel_size={self.kernel_size}.")
        if not all(self.strides):
            raise ValueError(f"The argument `strides` cannot contains 0. Received strides={self.strides}")

    def build(self, input_shape):
        channels = self._input_channels(input_shape)
        self.compute_output_shape(input_shape)
        self.kernel = self._add_depthwise_weight("kernel", channels)
        self._add_bias_weight(self.depth_multiplier * channels)

    def _output_channels(self, input_shape):
        return self.depth_multiplier * input_shape[channel_axis(self.data_format)]

    def call(self, inputs):
        outputs = ops.depthwise_conv(inputs, self.kernel, strides=self.strides, padding=self.padding,
                                     dilation_rate=self.dilation_rate, data_format=self.data_format)
        return self._finish(outputs)

    def get_config(self):
        config = {
            "depth_multiplier": self.depth_multiplier, **self._window_config(),
            "bias_initializer": initializers.serialize(self.bias_initializer),
            "depthwise_regularizer": regularizers.serialize(self.depthwise_regularizer), **self._regularizer_config(),
            "depthwise_constraint": constraints.serialize(self.depthwise_constraint),
            "bias_constraint": constraints.serialize(self.bias_constraint),
        }
        return {**super().get_config(), **config}


class DepthwiseConv1D(BaseDepthwiseConv):
    """1-D depthwise convolution. Parameters are BaseDepthwiseConv's."""

    def __init__(self, kernel_size, strides=1, padding="valid", depth_multiplier=1, data_format=None, dilation_rate=1,
                 activation=None, use_bias=True, depthwise_initializer="glorot_uniform", bias_initializer="zeros",
                 depthwise_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 depthwise_constraint=None, bias_constraint=None, **kwargs):
        super().__init__(rank=1, **constructor_arguments(locals()))


class DepthwiseConv2D(BaseDepthwiseConv):
    """2-D depthwise convolution. Parameters are BaseDepthwiseConv's."""

    def __init__(self, kernel_size, strides=(1, 1), padding="valid", depth_multiplier=1, data_format=None,
                 dilation_rate=(1, 1), activation=None, use_bias=True, depthwise_initializer="glorot_uniform",
                 bias_initializer="zeros", depthwise_regularizer=None, bias_regularizer=None,
                 activity_regularizer=None, depthwise_constraint=None, bias_constraint=None, **kwargs):
        super().__init__(rank=2, **constructor_arguments(locals()))


class BaseSeparableConv(_DepthwiseWindow):
    """An N-D separable convolution layer: a depthwise convolution, then a 1x1 convolution to ``filters``.

    Parameters
    ----------
    rank : int
    depth_multiplier : int
    filters : int
    kernel_size, strides, dilation_rate, padding, data_format, activation, use_bias : as BaseDepthwiseConv
    depthwise_initializer, pointwise_initializer, bias_initializer : optional
    depthwise_regularizer, pointwise_regularizer, bias_regularizer, activity_regularizer : optional
    depthwise_constraint, pointwise_constraint, bias_constraint : optional
    """

    def __init__(self, rank, depth_multiplier, filters, kernel_size, strides=1, padding="valid", data_format=None,
                 dilation_rate=1, activation=None, use_bias=True, depthwise_initializer="glorot_uniform",
                 pointwise_initializer="glorot_uniform", bias_initializer="zeros", depthwise_regularizer=None,
                 pointwise_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 depthwise_constraint=None, pointwise_constraint=None, bias_constraint=None, trainable=True,
                 name=None, **kwargs):
        super().__init__(trainable=trainable, name=name, activity_regularizer=regularizers.get(activity_regularizer),
                         **kwargs)
        self._init_depthwise(rank, depth_multiplier, kernel_size, strides, padding, data_format, dilation_rate,
                             activation, use_bias, depthwise_initializer, bias_initializer, depthwise_regularizer,
                             bias_regularizer, depthwise_constraint, bias_constraint)
        self.filters = filters
        self.pointwise_initializer = initializers.get(pointwise_initializer)
        self.pointwise_regularizer = regularizers.get(pointwise_regularizer)
        self.pointwise_constraint = constraints.get(pointwise_constraint)
        check_positive("filters", filters)
        if not all(self.kernel_size):
            raise ValueError(f"The argument `kernel_size` cannot contain 0. Received: kernel_size={self.kernel_size}.")
        if not all(self.strides):
            raise ValueError(f"The argument `strides` cannot contains 0(s). Received: strides={self.strides}")

    def build(self, input_shape):
        channels = self._input_channels(input_shape)
        self.compute_output_shape(input_shape)
        self.depthwise_kernel = self._add_depthwise_weight("depthwise_kernel", channels)
        self.pointwise_kernel = self.add_weight(
            name="pointwise_kernel", shape=(1,) * self.rank + (self.depth_multiplier * channels, self.filters),
            initializer=self.pointwise_initializer, regularizer=self.pointwise_regularizer,
            constraint=self.pointwise_constraint, trainable=True, dtype=self.dtype)
        self._add_bias_weight(self.filters)

    def _output_channels(self, input_shape):
        return self.filters

    def call(self, inputs):
        outputs = ops.separable_conv(inputs, self.depthwise_kernel, self.pointwise_kernel, strides=self.strides,
                                     padding=self.padding, dilation_rate=self.dilation_rate,
                                     data_format=self.data_format)
        return self._finish(outputs)

    def get_config(self):
        config = {
            "depth_multiplier": self.depth_multiplier, "filters": self.filters, **self._window_config(),
            "pointwise_initializer": initializers.serialize(self.pointwise_initializer),
            "bias_initializer": initializers.serialize(self.bias_initializer),
            "depthwise_regularizer": regularizers.serialize(self.depthwise_regularizer),
            "pointwise_regularizer": regularizers.serialize(self.pointwise_regularizer),
            **self._regularizer_config(),
            "depthwise_constraint": constraints.serialize(self.depthwise_constraint),
            "pointwise_constraint": constraints.serialize(self.pointwise_constraint),
            "bias_constraint": constraints.serialize(self.bias_constraint),
        }
        return {**super().get_config(), **config}


class SeparableConv1D(BaseSeparableConv):
    """1-D separable convolution. Parameters are BaseSeparableConv's."""

    def __init__(self, filters, kernel_size, strides=1, padding="valid", data_format=None, dilation_rate=1,
                 depth_multiplier=1, activation=None, use_bias=True, depthwise_initializer="glorot_uniform",
                 pointwise_initializer="glorot_uniform", bias_initializer="zeros", depthwise_regularizer=None,
                 pointwise_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 depthwise_constraint=None, pointwise_constraint=None, bias_constraint=None, **kwargs):
        super().__init__(rank=1, **constructor_arguments(locals()))


class SeparableConv2D(BaseSeparableConv):
    """2-D separable convolution. Parameters are BaseSeparableConv's."""

    def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid", data_format=None, dilation_rate=(1, 1),
                 depth_multiplier=1, activation=None, use_bias=True, depthwise_initializer="glorot_uniform",
                 pointwise_initializer="glorot_uniform", bias_initializer="zeros", depthwise_regularizer=None,
                 pointwise_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 depthwise_constraint=None, pointwise_constraint=None, bias_constraint=None, **kwargs):
        super().__init__(rank=2, **constructor_arguments(locals()))


SeparableConvolution1D, SeparableConvolution2D = SeparableConv1D, SeparableConv2D

API = {"layers": ["DepthwiseConv1D", "DepthwiseConv2D", "SeparableConv1D", "SeparableConv2D", "SeparableConvolution1D",
                  "SeparableConvolution2D"]}
