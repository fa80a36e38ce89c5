"""Convolutional LSTM: ``ConvLSTMCell`` (one step) and the ``ConvLSTM1D/2D/3D`` layers (the RNN loop over it).

An LSTM whose input and recurrent transformations are convolutions: for each gate ``g`` of
``i, f, c, o``, ``x_g = conv(inputs, kernel_g, strides, padding, dilation_rate) + bias_g`` and
``h_g = conv(h_previous, recurrent_kernel_g, strides 1, "same")``; then ``i, f, o =
recurrent_activation(x + h)``, ``c = f * c_previous + i * activation(x_c + h_c)``,
``h = o * activation(c)``.  The states ``h, c`` have the input conv's output shape.

Weights (Keras' names and shapes): ``kernel`` ``kernel_size + (input_channels, 4 * filters)``,
``recurrent_kernel`` ``kernel_size + (filters, 4 * filters)``, ``bias`` ``(4 * filters,)`` (forget
quarter ones with ``unit_forget_bias``).  Dropout draws four input masks and four recurrent masks per
layer call (one per gate), applied in training only.
"""

import inspect

import vfw.frontends.tensorflow as tf
from vfw.frontends.tensorflow import nest
from vfw.frontends.tensorflow.keras.src import activations, constraints, initializers, ops, random, regularizers
from vfw.frontends.tensorflow.keras.src.backend.config import standardize_data_format
from vfw.frontends.tensorflow.keras.src.engine.input_spec import InputSpec
from vfw.frontends.tensorflow.keras.src.engine.layer import Layer
from vfw.frontends.tensorflow.keras.src.layers import layer_utils
from vfw.frontends.tensorflow.keras.src.layers.rnn.base import RNN, DropoutRNNCell
from vfw.frontends.tensorflow.keras.src.layers.rnn.cells import _WEIGHT_ARGUMENTS, _fraction, _weight_arguments
from vfw.frontends.tensorflow.keras.src.layers.rnn.recurrent import _forward_to_cell

_MODULES = {"initializer": initializers, "regularizer": regularizers, "constraint": constraints}


def _weight_module(argument_name):
    """The module (initializers, regularizers or constraints) that resolves ``argument_name``."""
    return _MODULES[argument_name.rpartition("_")[2]]


class ConvLSTMCell(DropoutRNNCell, Layer):
    """One step of a convolutional LSTM over ``rank``-D inputs (``[batch, *spatial, channels]`` or channels first).

    Parameters
    ----------
    rank : int
        Spatial dimensions (1, 2 or 3).
    filters : int
        Channels of the states and the output.
    kernel_size, strides, dilation_rate : int or tuple of ``rank`` ints
        Of the input convolution (the recurrent one has stride 1 and "same" padding);
        ``strides > 1`` excludes ``dilation_rate > 1``.
    padding : {"valid", "same"}
    data_format : {"channels_last", "channels_first"}, optional
    activation, recurrent_activation : defaults ``"tanh"``, ``"sigmoid"``
    use_bias, unit_forget_bias : bool
    kernel_initializer, recurrent_initializer, bias_initializer, kernel_regularizer, recurrent_regularizer,
    bias_regularizer, kernel_constraint, recurrent_constraint, bias_constraint : optional
    dropout, recurrent_dropout : float
        Fractions of the inputs / states dropped in training (clipped to [0, 1]).
    seed : int, optional
        Seed of the dropout masks.
    """

    _direct_call = True  # the RNN layer runs ``call`` directly at each step

    def __init__(self, rank, filters, kernel_size, strides=1, padding="valid", data_format=None, dilation_rate=1,
                 activation="tanh", recurrent_activation="sigmoid", use_bias=True,
                 kernel_initializer="glorot_uniform", recurrent_initializer="orthogonal", bias_initializer="zeros",
                 unit_forget_bias=True, kernel_regularizer=None, recurrent_regularizer=None, bias_regularizer=None,
                 kernel_constraint=None, recurrent_constraint=None, bias_constraint=None, dropout=0.0,
                 recurrent_dropout=0.0, seed=None, **kwargs):
        super().__init__(**kwargs)
        self.seed = seed
        self.seed_generator = random.SeedGenerator(seed=seed)
        if rank > 3:
            raise ValueError(f"Rank {rank} convolutions are not currently implemented. Received: rank={rank}")
        self.rank = rank
        self.filters = filters
        self.kernel_size = layer_utils.standardize_tuple(kernel_size, rank, "kernel_size")
        self.strides = layer_utils.standardize_tuple(strides, rank, "strides", allow_zero=True)
        self.padding = layer_utils.standardize_padding(padding)
        self.data_format = standardize_data_format(data_format)
        self.dilation_rate = layer_utils.standardize_tuple(dilation_rate, rank, "dilation_rate")
        if max(self.strides) > 1 and max(self.dilation_rate) > 1:
            raise ValueError(f"Specifying `strides > 1` is not compatible with `dilation_rate > 1`. Please provide "
                             f"`strides=1` or `dilation_rate=1`. Received: strides={self.strides} and "
                             f"dilation_rate={self.dilation_rate}")
        self.activation = activations.get(activation)
        self.recurrent_activation = activations.get(recurrent_activation)
        self.use_bias = use_bias
        self.unit_forget_bias = unit_forget_bias
        for name, value in _weight_arguments(locals()).items():
            setattr(self, name, _weight_module(name).get(value))
        self.dropout = _fraction(dropout)
        self.recurrent_dropout = _fraction(recurrent_dropout)
        self.dropout_mask_count = 4
        self.input_spec = InputSpec(ndim=rank + 2)
        self.state_size = -1  # the states' shape depends on the input's (``get_initial_state``)

    def build(self, inputs_shape, states_shape=None):
        channels_last = self.data_format == "channels_last"
        self.spatial_dims = tuple(inputs_shape[1:-1] if channels_last else inputs_shape[2:])
        if None in self.spatial_dims:
            raise ValueError(f"ConvLSTM layers only support static input shapes for the spatial dimension. Received "
                             f"invalid input shape: input_shape={inputs_shape}")
        channels = inputs_shape[-1 if channels_last else 1]
        if channels is None:
            raise ValueError(f"The channel dimension of the inputs (last axis) should be defined. Found None. Full "
                             f"input shape received: input_shape={inputs_shape}")
        self.input_spec = InputSpec(ndim=self.rank + 3, shape=(None,) + tuple(inputs_shape[1:]))
        self.input_dim = channels
        self.kernel = self.add_weight(shape=self.kernel_size + (channels, self.filters * 4), name="kernel",
                                      initializer=self.kernel_initializer, regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint)
        self.recurrent_kernel = self.add_weight(shape=self.kernel_size + (self.filters, self.filters * 4),
                                                name="recurrent_kernel", initializer=self.recurrent_initializer,
                                                regularizer=self.recurrent_regularizer,
                                                constraint=self.recurrent_constraint)
        if not self.use_bias:
            self.bias = None
            return
        initializer = self.bias_initializer
        if self.unit_forget_bias:
            filters, base = self.filters, self.bias_initializer

            def initializer(_, *args, **kwargs):
                ones = initializers.get("ones")
                return tf.concat([base((filters,), *args, **kwargs), ones((filters,), *args, **kwargs),
                                  base((filters * 2,), *args, **kwargs)], axis=0)
        self.bias = self.add_weight(shape=(self.filters * 4,), name="bias", initializer=initializer,
                                    regularizer=self.bias_regularizer, constraint=self.bias_constraint)

    def _gate_parts(self, x, mask):
        """``x`` once per gate, times that gate's dropout mask when ``mask`` (a list of 4) is given."""
        return [x * m for m in mask] if mask is not None else [x] * 4

    def call(self, inputs, states, training=False):
        h_previous, c_previous = states[0], states[1]
        input_mask = (self.get_dropout_mask(inputs) if training and 0.0 < self.dropout < 1.0 else None)
        recurrent_mask = (self.get_recurrent_dropout_mask(h_previous)
                          if training and 0.0 < self.recurrent_dropout < 1.0 else None)
        kernels = tf.split(tf.convert_to_tensor(self.kernel), 4, axis=self.rank + 1)
        recurrent_kernels = tf.split(tf.convert_to_tensor(self.recurrent_kernel), 4, axis=self.rank + 1)
        biases = tf.split(tf.convert_to_tensor(self.bias), 4) if self.use_bias else [None] * 4
        pre = [self.input_conv(x, k, b, padding=self.padding) + self.recurrent_conv(h, r)
               for x, k, b, h, r in zip(self._gate_parts(inputs, input_mask), kernels, biases,
                                        self._gate_parts(h_previous, recurrent_mask), recurrent_kernels)]
        i = self.recurrent_activation(pre[0])
        f = self.recurrent_activation(pre[1])
        c = f * c_previous + i * self.activation(pre[2])
        o = self.recurrent_activation(pre[3])
        h = o * self.activation(c)
        return h, [h, c]

    def input_conv(self, x, kernel, bias=None, padding="valid"):
        """``conv(x, kernel) + bias`` with the cell's strides and dilation."""
        outputs = ops.conv(x, kernel, strides=list(self.strides), padding=padding, data_format=self.data_format,
                           dilation_rate=self.dilation_rate)
        if bias is None:
            return outputs
        shape = (1,) * (self.rank + 1) + (self.filters,) if self.data_format == "channels_last" \
            else (1, self.filters) + (1,) * self.rank
        return outputs + tf.reshape(bias, shape)

    def recurrent_conv(self, x, kernel):
        """``conv(x, kernel)`` with stride 1 and "same" padding (the state keeps its shape)."""
        return ops.conv(x, kernel, strides=[1] * self.rank, padding="same", data_format=self.data_format)

    def compute_output_shape(self, inputs_shape, states_shape=None):
        shape = layer_utils.conv_output_shape(inputs_shape, self.filters, self.kernel_size, self.strides,
                                              self.padding, self.data_format, self.dilation_rate)
        return shape, [shape, shape]

    def get_initial_state(self, batch_size=None):
        """Zero states ``h, c`` shaped like the input conv's output for ``batch_size`` inputs."""
        known_batch = tf.get_static_value(batch_size)  # in shape errors, as Keras' static shapes show it
        known_batch = None if known_batch is None else int(known_batch)
        if self.data_format == "channels_last":
            input_shape = (known_batch,) + self.spatial_dims + (self.input_dim,)
        else:
            input_shape = (known_batch, self.input_dim) + self.spatial_dims
        state_shape = self.compute_output_shape(input_shape)[0][1:]
        full_shape = tf.stack([batch_size, *state_shape])
        return [tf.zeros(full_shape, dtype=self.compute_dtype), tf.zeros(full_shape, dtype=self.compute_dtype)]

    def _conv_config(self):
        """The convolution arguments (and activations, ``use_bias``) of the config, in Keras' order."""
        return {"filters": self.filters, "kernel_size": self.kernel_size, "strides": self.strides,
                "padding": self.padding, "data_format": self.data_format, "dilation_rate": self.dilation_rate,
                "activation": activations.serialize(self.activation),
                "recurrent_activation": activations.serialize(self.recurrent_activation), "use_bias": self.use_bias}

    def get_config(self):
        config = self._conv_config()
        for name in _WEIGHT_ARGUMENTS[:3]:
            config[name] = initializers.serialize(getattr(self, name))
        config["unit_forget_bias"] = self.unit_forget_bias
        for name in _WEIGHT_ARGUMENTS[3:]:
            config[name] = _weight_module(name).serialize(getattr(self, name))
        config.update(dropout=self.dropout, recurrent_dropout=self.recurrent_dropout, seed=self.seed)
        return {**super().get_config(), **config}


class ConvLSTM(RNN):
    """A ``rank``-D convolutional LSTM layer over ``[batch, time, *spatial, channels]`` sequences (channels
    first: ``[batch, time, channels, *spatial]``).

    Parameters
    ----------
    rank : int
        1, 2 or 3.
    filters, kernel_size, strides, padding, data_format, dilation_rate, activation, recurrent_activation, use_bias,
    kernel_initializer, recurrent_initializer, bias_initializer, unit_forget_bias, kernel_regularizer,
    recurrent_regularizer, bias_regularizer, kernel_constraint, recurrent_constraint, bias_constraint, dropout,
    recurrent_dropout, seed
        The cell's (``ConvLSTMCell``).
    activity_regularizer : optional
    return_sequences, return_state, go_backwards, stateful
        The RNN loop's (``RNN``).

    Returns
    -------
    Tensor
        ``[batch, time, *out_spatial, filters]`` with ``return_sequences``, else the last step's
        ``[batch, *out_spatial, filters]``; with ``return_state`` also the final ``h`` and ``c``.
    """

    def __init__(self, rank, filters, kernel_size, strides=1, padding="valid", data_format=None, dilation_rate=1,
                 activation="tanh", recurrent_activation="sigmoid", use_bias=True,
                 kernel_initializer="glorot_uniform", recurrent_initializer="orthogonal", bias_initializer="zeros",
                 unit_forget_bias=True, kernel_regularizer=None, recurrent_regularizer=None, bias_regularizer=None,
                 activity_regularizer=None, kernel_constraint=None, recurrent_constraint=None, bias_constraint=None,
                 dropout=0.0, recurrent_dropout=0.0, seed=None, return_sequences=False, return_state=False,
                 go_backwards=False, stateful=False, **kwargs):
        cell = ConvLSTMCell(rank=rank, filters=filters, kernel_size=kernel_size, strides=strides, padding=padding,
                            data_format=data_format, dilation_rate=dilation_rate, activation=activation,
                            recurrent_activation=recurrent_activation, use_bias=use_bias,
                            kernel_initializer=kernel_initializer, recurrent_initializer=recurrent_initializer,
                            bias_initializer=bias_initializer, unit_forget_bias=unit_forget_bias,
                            kernel_regularizer=kernel_regularizer, recurrent_regularizer=recurrent_regularizer,
                            bias_regularizer=bias_regularizer, kernel_constraint=kernel_constraint,
                            recurrent_constraint=recurrent_constraint, bias_constraint=bias_constraint,
                            dropout=dropout, recurrent_dropout=recurrent_dropout, seed=seed, name="conv_lstm_cell",
                            dtype=kwargs.get("dtype"))
        super().__init__(cell, return_sequences=return_sequences, return_state=return_state,
                         go_backwards=go_backwards, stateful=stateful, activity_regularizer=activity_regularizer,
                         **kwargs)
        self.input_spec = InputSpec(ndim=rank + 3)

    def compute_output_shape(self, sequences_shape, initial_state_shape=None):
        batch_size, steps = sequences_shape[0], sequences_shape[1]
        state_shape = tuple(self.cell.compute_output_shape((batch_size,) + tuple(sequences_shape[2:]))[0][1:])
        output_shape = (batch_size, steps) + state_shape if self.return_sequences else (batch_size,) + state_shape
        if self.return_state:
            return output_shape, (batch_size,) + state_shape, (batch_size,) + state_shape
        return output_shape

    def compute_mask(self, _, mask):
        output_mask = nest.flatten(mask)[0] if self.return_sequences else None
        return [output_mask, None, None] if self.return_state else output_mask

    def get_config(self):
        cell = self.cell
        config = cell._conv_config()
        for name in _WEIGHT_ARGUMENTS[:3]:
            config[name] = initializers.serialize(getattr(cell, name))
        config["unit_forget_bias"] = cell.unit_forget_bias
        for name in _WEIGHT_ARGUMENTS[3:6]:
            config[name] = regularizers.serialize(getattr(cell, name))
        config["activity_regularizer"] = regularizers.serialize(self.activity_regularizer)
        for name in _WEIGHT_ARGUMENTS[6:]:
            config[name] = constraints.serialize(getattr(cell, name))
        config.update(dropout=cell.dropout, recurrent_dropout=cell.recurrent_dropout, seed=cell.seed)
        base = super().get_config()
        del base["cell"]
        return {**base, **config}

    @classmethod
    def from_config(cls, config):
        return cls(**config)


_forward_to_cell(ConvLSTM, ("filters", "kernel_size", "strides", "padding", "data_format", "dilation_rate",
                            "activation", "recurrent_activation", "use_bias", "kernel_initializer",
                            "recurrent_initializer", "bias_initializer", "unit_forget_bias", "kernel_regularizer",
                            "recurrent_regularizer", "bias_regularizer", "kernel_constraint", "recurrent_constraint",
                            "bias_constraint", "dropout", "recurrent_dropout"))


def _without_rank(init):
    """Give ``init`` ConvLSTM's full signature less ``rank`` (what ``inspect.signature`` shows, as Keras')."""
    signature = inspect.signature(ConvLSTM.__init__)
    init.__signature__ = signature.replace(parameters=[p for p in signature.parameters.values() if p.name != "rank"])
    return init


class ConvLSTM1D(ConvLSTM):
    """1-D convolutional LSTM over ``[batch, time, steps, channels]`` (``ConvLSTM``'s arguments, less ``rank``)."""

    @_without_rank
    def __init__(self, filters, kernel_size, **kwargs):
        super().__init__(1, filters, kernel_size, **kwargs)


class ConvLSTM2D(ConvLSTM):
    """2-D convolutional LSTM over ``[batch, time, rows, cols, channels]`` (``ConvLSTM``'s arguments, less
    ``rank``)."""

    @_without_rank
    def __init__(self, filters, kernel_size, **kwargs):
        super().__init__(2, filters, kernel_size, **kwargs)


class ConvLSTM3D(ConvLSTM):
    """3-D convolutional LSTM over ``[batch, time, d1, d2, d3, channels]`` (``ConvLSTM``'s arguments, less
    ``rank``)."""

    @_without_rank
    def __init__(self, filters, kernel_size, **kwargs):
        super().__init__(3, filters, kernel_size, **kwargs)


API = {"layers": ["ConvLSTM1D", "ConvLSTM2D", "ConvLSTM3D"]}
