"""Convolution layers: Conv1D/2D/3D and Conv1DTranspose/2DTranspose/3DTranspose (depthwise and separable
convolutions are in ``convolutional_depthwise``).

Weights are Keras 3's: ``kernel`` of shape ``(*kernel_size, in_channels // groups, filters)``
(transposed: ``(*kernel_size, filters, in_channels)``), glorot_uniform, and ``bias`` of shape
``(filters,)``, zeros.  The convolutions run through keras.ops (vfw's tf.nn: channels-last engine
ops), so errors, shapes and gradients are Keras'.  ``padding="causal"`` (Conv1D) left-pads the steps
by ``dilation_rate * (kernel_size - 1)`` and convolves "valid".
"""

import vfw.frontends.tensorflow as tf
from vfw.frontends.tensorflow.keras.src import activations, constraints, initializers, ops, regularizers
from vfw.frontends.tensorflow.keras.src.backend.config import standardize_data_format
from vfw.frontends.tensorflow.keras.src.engine.input_spec import InputSpec
from vfw.frontends.tensorflow.keras.src.engine.layer import Layer
from vfw.frontends.tensorflow.keras.src.layers import layer_utils
from vfw.frontends.tensorflow.keras.src.layers.core import _LoraKernel


def constructor_arguments(local_values):
    """A subclass ``__init__``'s arguments (its ``locals()``) as keywords for the base ``__init__``."""
    arguments = {k: v for k, v in local_values.items() if k not in ("self", "__class__", "kwargs")}
    arguments.update(local_values.get("kwargs", {}))
    return arguments


def channel_axis(data_format):
    """The channels axis of a batched input (-1 for channels_last, 1 for channels_first)."""
    return -1 if data_format == "channels_last" else 1


class ConvOutputs(Layer):
    """What every convolution layer shares: the channel layout, the bias add and the activation."""

    def _init_output(self, data_format, activation, use_bias, bias_initializer, bias_regularizer, bias_constraint):
        self.data_format = standardize_data_format(data_format)
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        self.bias_initializer = initializers.get(bias_initializer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.bias_constraint = constraints.get(bias_constraint)
        self.input_spec = InputSpec(min_ndim=self.rank + 2)

    def _input_channels(self, input_shape):
        """The channels of ``input_shape``; the input spec then requires that many."""
        axis = channel_axis(self.data_format)
        channels = input_shape[axis]
        self.input_spec = InputSpec(min_ndim=self.rank + 2, axes={axis: channels})
        return channels

    def _add_bias_weight(self, size):
        if self.use_bias:
            self.bias = self.add_weight(name="bias", shape=(size,), initializer=self.bias_initializer,
                                        regularizer=self.bias_regularizer, constraint=self.bias_constraint,
                                        trainable=True, dtype=self.dtype)
        else:
            self.bias = None

    def _finish(self, outputs):
        """``activation(outputs + bias)``, the bias broadcast along the channels axis."""
        if self.use_bias:
            bias = tf.convert_to_tensor(self.bias)
            if self.data_format == "channels_first":
                bias = tf.reshape(bias, (1, -1) + (1,) * self.rank)
            # ops.add: Keras' promotion, and its bias_add (TF's bfloat16 bias gradient)
            same = outputs.dtype == bias.dtype and outputs.dtype != tf.bfloat16
            outputs = outputs + bias if same else ops.add(outputs, bias)
        if self.activation is not None:
            outputs = self.activation(outputs)
        return outputs

    def _output_config(self):
        return {"activation": activations.serialize(self.activation), "use_bias": self.use_bias}

    def _regularizer_config(self):
        return {
            "bias_regularizer": regularizers.serialize(self.bias_regularizer),
            "activity_regularizer": regularizers.serialize(self.activity_regularizer),
        }


def check_window_arguments(layer, rank, kernel_size, strides, dilation_rate):
    """Set the layer's ``rank`` and ``kernel_size``/``strides``/``dilation_rate`` tuples after Keras' checks."""
    layer.rank = rank
    layer.kernel_size = layer_utils.standardize_tuple(kernel_size, layer.rank, "kernel_size")
    layer.strides = layer_utils.standardize_tuple(strides, layer.rank, "strides")
    layer.dilation_rate = layer_utils.standardize_tuple(dilation_rate, layer.rank, "dilation_rate")


def check_positive(name, value):
    """Keras' error for a non-positive ``filters``/``depth_multiplier`` (None passes)."""
    if value is not None and value <= 0:
        raise ValueError(f"Invalid value for argument `{name}`. Expected a strictly positive value. Received "
                         f"{name}={value}.")


def check_strides_with_dilation(strides, dilation_rate):
    if max(strides) > 1 and max(dilation_rate) > 1:
        raise ValueError(f"`strides > 1` not supported in conjunction with `dilation_rate > 1`. Received: "
                         f"strides={strides} and dilation_rate={dilation_rate}")


class BaseConv(_LoraKernel, ConvOutputs):
    """An N-D convolution layer (the base of Conv1D/2D/3D).

    Parameters
    ----------
    rank : int
        The number of spatial dims.
    filters : int
        Output channels.
    kernel_size, strides, dilation_rate : int or tuple of ``rank`` ints
        ``strides > 1`` and ``dilation_rate > 1`` exclude each other.
    padding : {"valid", "same", "causal"}
        "causal" only for rank 1.
    data_format : {"channels_last", "channels_first"}, optional
        Default ``keras.config.image_data_format()``.
    groups : int
        Input channels and ``filters`` are split in ``groups`` groups convolved separately.
    activation, use_bias, kernel_initializer, bias_initializer, kernel_regularizer, bias_regularizer,
    activity_regularizer, kernel_constraint, bias_constraint : optional
    lora_rank, lora_alpha : int, optional
        Train two low-rank factors added to a frozen kernel (``enable_lora``).
    """

    def __init__(self, rank, filters, kernel_size, strides=1, padding="valid", data_format=None, dilation_rate=1,
                 groups=1, activation=None, use_bias=True, kernel_initializer="glorot_uniform",
                 bias_initializer="zeros", kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, lora_rank=None, lora_alpha=None, **kwargs):
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        self.filters = filters
        self.groups = groups
        check_window_arguments(self, rank, kernel_size, strides, dilation_rate)
        self.padding = layer_utils.standardize_padding(padding, allow_causal=rank == 1)
        self._init_output(data_format, activation, use_bias, bias_initializer, bias_regularizer, bias_constraint)
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self._init_lora(lora_rank, lora_alpha)
        check_positive("filters", filters)
        if groups <= 0:
            raise ValueError(f"The number of groups must be a positive integer. Received: groups={groups}.")
        if filters is not None and filters % groups != 0:
            raise ValueError(f"The number of filters must be evenly divisible by the number of groups. Received: "
                             f"groups={groups}, filters={filters}.")
        if not all(self.kernel_size):
            raise ValueError(f"The argument `kernel_size` cannot contain 0. Received kernel_size={self.kernel_size}.")
        if not all(self.strides):
            raise ValueError(f"The argument `strides` cannot contains 0. Received strides={self.strides}")
        check_strides_with_dilation(self.strides, self.dilation_rate)

    def build(self, input_shape):
        channels = self._input_channels(input_shape)
        if channels % self.groups != 0:
            raise ValueError(f"The number of input channels must be evenly divisible by the number of groups. "
                             f"Received groups={self.groups}, but the input has {channels} channels (full input "
                             f"shape is {input_shape}).")
        self.compute_output_shape(input_shape)  # Keras' errors for inputs too small for the kernel
        self._kernel = self.add_weight(name="kernel", shape=self.kernel_size + (channels // self.groups, self.filters),
                                       initializer=self.kernel_initializer, regularizer=self.kernel_regularizer,
                                       constraint=self.kernel_constraint, trainable=True, dtype=self.dtype)
        self._add_bias_weight(self.filters)
        self.built = True
        if self.lora_rank:
            self.enable_lora(self.lora_rank, lora_alpha=self.lora_alpha)

    def _convolve(self, inputs, kernel, padding):
        return ops.conv(inputs, kernel, strides=list(self.strides), padding=padding,
                        dilation_rate=self.dilation_rate, data_format=self.data_format)

    def convolution_op(self, inputs, kernel):
        """The convolution of ``inputs`` with ``kernel`` (subclasses override it to transform the kernel)."""
        return self._convolve(inputs, kernel, self.padding)

    def call(self, inputs):
        return self._finish(self.convolution_op(inputs, self.kernel))

    def compute_output_shape(self, input_shape):
        return layer_utils.conv_output_shape(input_shape, self.filters, self.kernel_size, self.strides, self.padding,
                                             self.data_format, self.dilation_rate)

    def get_config(self):
        config = {
            "filters": self.filters, "kernel_size": self.kernel_size, "strides": self.strides,
            "padding": self.padding, "data_format": self.data_format, "dilation_rate": self.dilation_rate,
            "groups": self.groups, **self._output_config(),
            "kernel_initializer": initializers.serialize(self.kernel_initializer),
            "bias_initializer": initializers.serialize(self.bias_initializer),
            "kernel_regularizer": regularizers.serialize(self.kernel_regularizer), **self._regularizer_config(),
            "kernel_constraint": constraints.serialize(self.kernel_constraint),
            "bias_constraint": constraints.serialize(self.bias_constraint),
        }
        return {**super().get_config(), **config, **self._lora_config()}


class Conv1D(BaseConv):
    """1-D convolution over ``(batch, steps, channels)`` inputs (``padding="causal"`` allowed).

    Parameters are BaseConv's; ``strides``, ``dilation_rate`` and ``kernel_size`` are ints or 1-tuples.
    """

    def __init__(self, filters, kernel_size, strides=1, padding="valid", data_format=None, dilation_rate=1, groups=1,
                 activation=None, use_bias=True, kernel_initializer="glorot_uniform", bias_initializer="zeros",
                 kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
                 bias_constraint=None, **kwargs):
        super().__init__(rank=1, **constructor_arguments(locals()))

    def call(self, inputs):
        # As Keras' Conv1D: convolves directly (an overridden convolution_op is not used), left-padding the steps
        # by dilation_rate * (kernel_size - 1) for padding="causal"
        padding = self.padding
        if padding == "causal":
            pads = [[0, 0], [0, 0], [0, 0]]
            pads[1 if self.data_format == "channels_last" else 2][0] = self.dilation_rate[0] * (self.kernel_size[0] - 1)
            inputs = ops.pad(inputs, pads)
            padding = "valid"
        return self._finish(self._convolve(inputs, self.kernel, padding))


class Conv2D(BaseConv):
    """2-D convolution over ``(batch, rows, cols, channels)`` inputs (channels_last). Parameters are BaseConv's."""

    def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid", data_format=None, dilation_rate=(1, 1),
                 groups=1, activation=None, use_bias=True, kernel_initializer="glorot_uniform",
                 bias_initializer="zeros", kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, **kwargs):
        super().__init__(rank=2, **constructor_arguments(locals()))


class Conv3D(BaseConv):
    """3-D convolution over ``(batch, d1, d2, d3, channels)`` inputs (channels_last). Parameters are BaseConv's."""

    def __init__(self, filters, kernel_size, strides=(1, 1, 1), padding="valid", data_format=None,
                 dilation_rate=(1, 1, 1), groups=1, activation=None, use_bias=True,
                 kernel_initializer="glorot_uniform", bias_initializer="zeros", kernel_regularizer=None,
                 bias_regularizer=None, activity_regularizer=None, kernel_constraint=None, bias_constraint=None,
                 **kwargs):
        super().__init__(rank=3, **constructor_arguments(locals()))


class BaseConvTranspose(ConvOutputs):
    """An N-D transposed convolution layer (the base of Conv1DTranspose/2DTranspose/3DTranspose).

    Parameters
    ----------
    rank : int
    filters : int
        Output channels.
    kernel_size, strides, dilation_rate : int or tuple of ``rank`` ints
    padding : {"valid", "same"}
    output_padding : int or tuple of ``rank`` ints, optional
        Extra size added to one side of each output dim (each < its stride).
    data_format, activation, use_bias, kernel_initializer, bias_initializer, kernel_regularizer,
    bias_regularizer, activity_regularizer, kernel_constraint, bias_constraint : optional
        As for BaseConv.
    """

    def __init__(self, rank, filters, kernel_size, strides=1, padding="valid", output_padding=None, data_format=None,
                 dilation_rate=1, activation=None, use_bias=True, kernel_initializer="glorot_uniform",
                 bias_initializer="zeros", kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, trainable=True, name=None, **kwargs):
        super().__init__(trainable=trainable, name=name, activity_regularizer=activity_regularizer, **kwargs)
        self.filters = filters
        check_window_arguments(self, rank, kernel_size, strides, dilation_rate)
        self.padding = layer_utils.standardize_padding(padding)
        self.output_padding = None if output_padding is None else layer_utils.standardize_tuple(
            output_padding, rank, "output_padding", allow_zero=True)
        self._init_output(data_format, activation, use_bias, bias_initializer, bias_regularizer, bias_constraint)
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        check_positive("filters", filters)
        if not all(self.kernel_size):
            raise ValueError(f"The argument `kernel_size` cannot contain 0. Received kernel_size={self.kernel_size}.")
        if not all(self.strides):
            raise ValueError(f"The argument `strides` cannot contains 0. Received strides={self.strides}.")
        if self.output_padding is not None:
            for i, (extra, stride) in enumerate(zip(self.output_padding, self.strides)):
                if extra >= stride:
                    raise ValueError(f"`output_padding` must be strictly less than `strides` for all dimensions. At "
                                     f"dimension {i}, `output_padding` is {extra} but `strides` is {stride}. "
                                     f"Received: output_padding={self.output_padding}, strides={self.strides}")
        check_strides_with_dilation(self.strides, self.dilation_rate)

    def build(self, input_shape):
        channels = self._input_channels(input_shape)
        self.kernel = self.add_weight(name="kernel", shape=self.kernel_size + (self.filters, channels),
                                      initializer=self.kernel_initializer, regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint, trainable=True, dtype=self.dtype)
        self._add_bias_weight(self.filters)

    def call(self, inputs):
        outputs = ops.conv_transpose(inputs, self.kernel, strides=list(self.strides), padding=self.padding,
                                     output_padding=self.output_padding, dilation_rate=self.dilation_rate,
                                     data_format=self.data_format)
        return self._finish(outputs)

    def compute_output_shape(self, input_shape):
        return layer_utils.conv_transpose_output_shape(input_shape, self.kernel_size, self.filters, self.strides,
                                                       self.padding, self.output_padding, self.data_format,
                                                       self.dilation_rate)

    def get_config(self):
        config = {
            "filters": self.filters, "kernel_size": self.kernel_size, "strides": self.strides,
            "padding": self.padding, "output_padding": self.output_padding, "data_format": self.data_format,
            "dilation_rate": self.dilation_rate, **self._output_config(),
            "kernel_initializer": initializers.serialize(self.kernel_initializer),
            "bias_initializer": initializers.serialize(self.bias_initializer),
            "kernel_regularizer": regularizers.serialize(self.kernel_regularizer), **self._regularizer_config(),
            "kernel_constraint": constraints.serialize(self.kernel_constraint),
            "bias_constraint": constraints.serialize(self.bias_constraint),
        }
        return {**super().get_config(), **config}


class Conv1DTranspose(BaseConvTranspose):
    """1-D transposed convolution ("deconvolution"). Parameters are BaseConvTranspose's."""

    def __init__(self, filters, kernel_size, strides=1, padding="valid", output_padding=None, data_format=None,
                 dilation_rate=1, activation=None, use_bias=True, kernel_initializer="glorot_uniform",
                 bias_initializer="zeros", kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, **kwargs):
        super().__init__(rank=1, **constructor_arguments(locals()))


class Conv2DTranspose(BaseConvTranspose):
    """2-D transposed convolution. Parameters are BaseConvTranspose's."""

    def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid", output_padding=None, data_format=None,
                 dilation_rate=(1, 1), activation=None, use_bias=True, kernel_initializer="glorot_uniform",
                 bias_initializer="zeros", kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, **kwargs):
        super().__init__(rank=2, **constructor_arguments(locals()))


class Conv3DTranspose(BaseConvTranspose):
    """3-D transposed convolution. Parameters are BaseConvTranspose's (``data_format`` comes before
    ``output_padding`` here, as in Keras)."""

    def __init__(self, filters, kernel_size, strides=(1, 1, 1), padding="valid", data_format=None,
                 output_padding=None, dilation_rate=(1, 1, 1), activation=None, use_bias=True,
                 kernel_initializer="glorot_uniform", bias_initializer="zeros", kernel_regularizer=None,
                 bias_regularizer=None, activity_regularizer=None, kernel_constraint=None, bias_constraint=None,
                 **kwargs):
        super().__init__(rank=3, **constructor_arguments(locals()))


Convolution1D, Convolution2D, Convolution3D = Conv1D, Conv2D, Conv3D
Convolution1DTranspose, Convolution2DTranspose, Convolution3DTranspose = (Conv1DTranspose, Conv2DTranspose,
                                                                          Conv3DTranspose)

API = {"layers": ["Conv1D", "Conv2D", "Conv3D", "Conv1DTranspose", "Conv2DTranspose", "Conv3DTranspose",
                  "Convolution1D", "Convolution2D", "Convolution3D", "Convolution1DTranspose",
                  "Convolution2DTranspose", "Convolution3DTranspose"]}
