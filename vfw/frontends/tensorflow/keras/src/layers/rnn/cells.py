"""Recurrent cells: SimpleRNNCell, LSTMCell, GRUCell (one time step each; Keras 3's weights and math).

Weights: ``kernel`` ``[input_dim, gates * units]`` (glorot_uniform), ``recurrent_kernel``
``[units, gates * units]`` (orthogonal), ``bias`` (zeros; LSTM's forget-gate quarter ones with
``unit_forget_bias``; GRU with ``reset_after`` keeps input and recurrent biases as ``[2, 3 * units]``).
Gate order in the kernels: LSTM ``i, f, c, o``, GRU ``z, r, h``.  ``implementation=1`` (forced
by a recurrent dropout) computes gate by gate with one dropout mask per gate.
"""

import vfw.frontends.tensorflow as tf
from vfw.frontends.tensorflow import nest
from vfw.frontends.tensorflow.keras.src import activations, constraints, initializers, random, regularizers
from vfw.frontends.tensorflow.keras.src.engine.layer import Layer
from vfw.frontends.tensorflow.keras.src.layers.rnn.base import DropoutRNNCell, zero_states

_WEIGHT_ARGUMENTS = ("kernel_initializer", "recurrent_initializer", "bias_initializer", "kernel_regularizer",
                     "recurrent_regularizer", "bias_regularizer", "kernel_constraint", "recurrent_constraint",
                     "bias_constraint")


def _check_units(units):
    if units <= 0:
        raise ValueError(f"Received an invalid value for argument `units`, expected a positive integer, got {units}.")


def _weight_arguments(constructor_locals):
    """The initializer/regularizer/constraint arguments among a cell constructor's ``locals()``."""
    return {name: constructor_locals[name] for name in _WEIGHT_ARGUMENTS}


def _fraction(value):
    return min(1.0, max(0.0, value))


class _Cell(DropoutRNNCell, Layer):
    """What the three cells share: units, activations, weight arguments, dropout rates and their config."""

    _direct_call = True  # the RNN layer runs ``call`` directly at each step
    _gates = 1

    def _init_cell(self, units, activation, use_bias, dropout, recurrent_dropout, seed, **weight_arguments):
        self.units = units
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        for name in _WEIGHT_ARGUMENTS:
            module = {"initializer": initializers, "regularizer": regularizers,
                      "constraint": constraints}[name.rpartition("_")[2]]
            setattr(self, name, module.get(weight_arguments[name]))
        self.dropout = _fraction(dropout)
        self.recurrent_dropout = _fraction(recurrent_dropout)
        self.seed = seed

    def _build_kernels(self, input_dim):
        self.kernel = self.add_weight(shape=(input_dim, self.units * self._gates), name="kernel",
                                      initializer=self.kernel_initializer, regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint)
        self.recurrent_kernel = self.add_weight(shape=(self.units, self.units * self._gates), name="recurrent_kernel",
                                                initializer=self.recurrent_initializer,
                                                regularizer=self.recurrent_regularizer,
                                                constraint=self.recurrent_constraint)

    def _add_bias(self, shape, initializer):
        return self.add_weight(shape=shape, name="bias", initializer=initializer, regularizer=self.bias_regularizer,
                               constraint=self.bias_constraint)

    def get_initial_state(self, batch_size=None):
        """Zero states ``[batch_size, units]``."""
        return zero_states(self.state_size, batch_size, self.compute_dtype)

    def _cell_config(self, extra_after_use_bias=(), extra_after_dropout=()):
        config = {"units": self.units, "activation": activations.serialize(self.activation)}
        if hasattr(self, "recurrent_activation"):
            config["recurrent_activation"] = activations.serialize(self.recurrent_activation)
        config["use_bias"] = self.use_bias
        config.update(extra_after_use_bias)
        for name in _WEIGHT_ARGUMENTS:
            module = {"initializer": initializers, "regularizer": regularizers,
                      "constraint": constraints}[name.rpartition("_")[2]]
            config[name] = module.serialize(getattr(self, name))
        config.update(dropout=self.dropout, recurrent_dropout=self.recurrent_dropout)
        config.update(extra_after_dropout)
        config["seed"] = self.seed
        return {**super().get_config(), **config}


def _gate_inputs(x, masks, count):
    """``x`` once per gate, each times its dropout mask (the same ``x`` when ``masks`` is None)."""
    return [x * masks[i] for i in range(count)] if masks is not None else [x] * count


class SimpleRNNCell(_Cell):
    """``output = activation(inputs @ kernel + bias + state @ recurrent_kernel)``; the state is the output.

    Parameters
    ----------
    units : int
    activation : default ``"tanh"``
    use_bias : bool
    kernel_initializer, recurrent_initializer, bias_initializer : defaults glorot_uniform, orthogonal, zeros
    kernel_regularizer, recurrent_regularizer, bias_regularizer, kernel_constraint, recurrent_constraint,
    bias_constraint : optional
    dropout, recurrent_dropout : float
        Fractions of the inputs / states dropped in training (clipped to [0, 1]).
    seed : int, optional
    """

    def __init__(self, units, activation="tanh", use_bias=True, kernel_initializer="glorot_uniform",
                 recurrent_initializer="orthogonal", bias_initializer="zeros", kernel_regularizer=None,
                 recurrent_regularizer=None, bias_regularizer=None, kernel_constraint=None, recurrent_constraint=None,
                 bias_constraint=None, dropout=0.0, recurrent_dropout=0.0, seed=None, **kwargs):
        _check_units(units)
        super().__init__(**kwargs)
        self.seed_generator = random.SeedGenerator(seed)
        self._init_cell(units, activation, use_bias, dropout, recurrent_dropout, seed,
                        **_weight_arguments(locals()))
        self.state_size = self.units
        self.output_size = self.units

    def build(self, input_shape):
        self._build_kernels(input_shape[-1])
        self.bias = self._add_bias((self.units,), self.bias_initializer) if self.use_bias else None

    def call(self, sequence, states, training=False):
        previous = states[0] if isinstance(states, (list, tuple)) else states
        input_mask = self.get_dropout_mask(sequence)
        recurrent_mask = self.get_recurrent_dropout_mask(previous)
        if training and input_mask is not None:
            sequence = sequence * input_mask
        h = tf.matmul(sequence, tf.convert_to_tensor(self.kernel))
        if self.bias is not None:
            h = h + tf.convert_to_tensor(self.bias)
        if training and recurrent_mask is not None:
            previous = previous * recurrent_mask
        output = h + tf.matmul(previous, tf.convert_to_tensor(self.recurrent_kernel))
        if self.activation is not None:
            output = self.activation(output)
        return output, ([output] if isinstance(states, (list, tuple)) else output)

    def get_config(self):
        return self._cell_config()


class LSTMCell(_Cell):
    """Long short-term memory cell: states ``[h, c]``, output ``h``.

    ``i, f, o = recurrent_activation(...)``, ``c = f * c + i * activation(...)``,
    ``h = o * activation(c)``.

    Parameters
    ----------
    units : int
    activation, recurrent_activation : defaults ``"tanh"``, ``"sigmoid"``
    use_bias : bool
    unit_forget_bias : bool
        Initialize the forget gate's bias to ones.
    kernel_initializer, recurrent_initializer, bias_initializer, kernel_regularizer,
    recurrent_regularizer, bias_regularizer, kernel_constraint, recurrent_constraint, bias_constraint
    dropout, recurrent_dropout : float
    seed : int, optional
    """

    _gates = 4

    def __init__(self, units, activation="tanh", recurrent_activation="sigmoid", use_bias=True,
                 kernel_initializer="glorot_uniform", recurrent_initializer="orthogonal", bias_initializer="zeros",
                 unit_forget_bias=True, kernel_regularizer=None, recurrent_regularizer=None, bias_regularizer=None,
                 kernel_constraint=None, recurrent_constraint=None, bias_constraint=None, dropout=0.0,
                 recurrent_dropout=0.0, seed=None, **kwargs):
        _check_units(units)
        implementation = kwargs.pop("implementation", 2)
        super().__init__(**kwargs)
        self.implementation = implementation
        self._init_cell(units, activation, use_bias, dropout, recurrent_dropout, seed,
                        **_weight_arguments(locals()))
        self.recurrent_activation = activations.get(recurrent_activation)
        if self.recurrent_dropout != 0.0:
            self.implementation = 1
        if self.implementation == 1:
            self.dropout_mask_count = 4
        self.seed_generator = random.SeedGenerator(seed=seed)
        self.unit_forget_bias = unit_forget_bias
        self.state_size = [self.units, self.units]
        self.output_size = self.units

    def build(self, input_shape):
        self._build_kernels(input_shape[-1])
        if not self.use_bias:
            self.bias = None
            return
        initializer = self.bias_initializer
        if self.unit_forget_bias:
            units, base = self.units, self.bias_initializer

            def initializer(_, *args, **kwargs):
                ones = initializers.get("ones")
                return tf.concat([base((units,), *args, **kwargs), ones((units,), *args, **kwargs),
                                  base((units * 2,), *args, **kwargs)], axis=0)
        self.bias = self._add_bias((self.units * 4,), initializer)

    def call(self, inputs, states, training=False):
        h_previous, c_previous = states[0], states[1]
        kernel = tf.convert_to_tensor(self.kernel)
        recurrent_kernel = tf.convert_to_tensor(self.recurrent_kernel)
        input_dropout = training and 0.0 < self.dropout < 1.0
        if self.implementation == 1:
            x = [tf.matmul(xi, ki) for xi, ki in zip(
                _gate_inputs(inputs, self.get_dropout_mask(inputs) if input_dropout else None, 4),
                tf.split(kernel, 4, axis=1))]
            if self.use_bias:
                x = [xi + bi for xi, bi in zip(x, tf.split(tf.convert_to_tensor(self.bias), 4, axis=0))]
            recurrent_masks = (self.get_recurrent_dropout_mask(h_previous)
                               if training and 0.0 < self.recurrent_dropout < 1.0 else None)
            h = _gate_inputs(h_previous, recurrent_masks, 4)
            u = self.units
            pre = [x[g] + tf.matmul(h[g], recurrent_kernel[:, g * u:(g + 1) * u]) for g in range(4)]
        else:
            if input_dropout:
                inputs = inputs * self.get_dropout_mask(inputs)
            z = tf.matmul(inputs, kernel) + tf.matmul(h_previous, recurrent_kernel)
            if self.use_bias:
                z = z + tf.convert_to_tensor(self.bias)
            pre = tf.split(z, 4, axis=1)
        i = self.recurrent_activation(pre[0])
        f = self.recurrent_activation(pre[1])
        c = f * c_previous + i * self.activation(pre[2])
        o = self.recurrent_activation(pre[3])
        h = o * self.activation(c)
        return h, [h, c]

    def get_config(self):
        return self._cell_config(extra_after_use_bias={"unit_forget_bias": self.unit_forget_bias})


class GRUCell(_Cell):
    """Gated recurrent unit cell: ``h = z * h_previous + (1 - z) * hh``.

    ``z, r = recurrent_activation(...)``; with ``reset_after`` (default, cuDNN's form) the reset
    gate scales ``h_previous @ recurrent_kernel_h + recurrent_bias_h``, else it scales
    ``h_previous`` before the product.

    Parameters
    ----------
    units : int
    activation, recurrent_activation : defaults ``"tanh"``, ``"sigmoid"``
    use_bias : bool
    kernel_initializer, recurrent_initializer, bias_initializer, kernel_regularizer,
    recurrent_regularizer, bias_regularizer, kernel_constraint, recurrent_constraint, bias_constraint
    dropout, recurrent_dropout : float
    reset_after : bool
    seed : int, optional
    """

    _gates = 3

    def __init__(self, units, activation="tanh", recurrent_activation="sigmoid", use_bias=True,
                 kernel_initializer="glorot_uniform", recurrent_initializer="orthogonal", bias_initializer="zeros",
                 kernel_regularizer=None, recurrent_regularizer=None, bias_regularizer=None, kernel_constraint=None,
                 recurrent_constraint=None, bias_constraint=None, dropout=0.0, recurrent_dropout=0.0,
                 reset_after=True, seed=None, **kwargs):
        _check_units(units)
        implementation = kwargs.pop("implementation", 2)
        super().__init__(**kwargs)
        self.implementation = implementation
        self._init_cell(units, activation, use_bias, dropout, recurrent_dropout, seed,
                        **_weight_arguments(locals()))
        self.recurrent_activation = activations.get(recurrent_activation)
        if self.recurrent_dropout != 0.0:
            self.implementation = 1
        if self.implementation == 1:
            self.dropout_mask_count = 3
        self.seed_generator = random.SeedGenerator(seed=seed)
        self.reset_after = reset_after
        self.state_size = self.units
        self.output_size = self.units

    def build(self, input_shape):
        self._build_kernels(input_shape[-1])
        if self.use_bias:
            shape = (2, 3 * self.units) if self.reset_after else (3 * self.units,)
            self.bias = self._add_bias(shape, self.bias_initializer)
        else:
            self.bias = None

    def call(self, inputs, states, training=False):
        h_previous = states[0] if nest.is_nested(states) else states
        u = self.units
        kernel = tf.convert_to_tensor(self.kernel)
        recurrent_kernel = tf.convert_to_tensor(self.recurrent_kernel)
        input_bias = recurrent_bias = None
        if self.use_bias:
            bias = tf.convert_to_tensor(self.bias)
            input_bias, recurrent_bias = (bias[0], bias[1]) if self.reset_after else (bias, None)
        input_dropout = training and 0.0 < self.dropout < 1.0
        if self.implementation == 1:
            gate_inputs = _gate_inputs(inputs, self.get_dropout_mask(inputs) if input_dropout else None, 3)
            x = [tf.matmul(gate_inputs[g], kernel[:, g * u:(g + 1) * u]) for g in range(3)]
            if self.use_bias:
                x = [x[g] + input_bias[g * u:(g + 1) * u] for g in range(3)]
            recurrent_masks = (self.get_recurrent_dropout_mask(h_previous)
                               if training and 0.0 < self.recurrent_dropout < 1.0 else None)
            h = _gate_inputs(h_previous, recurrent_masks, 3)
            recurrent = [tf.matmul(h[g], recurrent_kernel[:, g * u:(g + 1) * u]) for g in range(2)]
            if self.reset_after and self.use_bias:
                recurrent = [recurrent[g] + recurrent_bias[g * u:(g + 1) * u] for g in range(2)]
            z = self.recurrent_activation(x[0] + recurrent[0])
            r = self.recurrent_activation(x[1] + recurrent[1])
            if self.reset_after:
                recurrent_h = tf.matmul(h[2], recurrent_kernel[:, 2 * u:])
                if self.use_bias:
                    recurrent_h = recurrent_h + recurrent_bias[2 * u:]
                recurrent_h = r * recurrent_h
            else:
                recurrent_h = tf.matmul(r * h[2], recurrent_kernel[:, 2 * u:])
            hh = self.activation(x[2] + recurrent_h)
        else:
            if input_dropout:
                inputs = inputs * self.get_dropout_mask(inputs)
            matrix_x = tf.matmul(inputs, kernel)
            if self.use_bias:
                matrix_x = matrix_x + input_bias
            x_z, x_r, x_h = tf.split(matrix_x, 3, axis=-1)
            if self.reset_after:
                matrix_inner = tf.matmul(h_previous, recurrent_kernel)
                if self.use_bias:
                    matrix_inner = matrix_inner + recurrent_bias
            else:
                matrix_inner = tf.matmul(h_previous, recurrent_kernel[:, :2 * u])
            z = self.recurrent_activation(x_z + matrix_inner[:, :u])
            r = self.recurrent_activation(x_r + matrix_inner[:, u:2 * u])
            if self.reset_after:
                recurrent_h = r * matrix_inner[:, 2 * u:]
            else:
                recurrent_h = tf.matmul(r * h_previous, recurrent_kernel[:, 2 * u:])
            hh = self.activation(x_h + recurrent_h)
        h = z * h_previous + (1 - z) * hh
        return h, ([h] if nest.is_nested(states) else h)

    def get_config(self):
        return self._cell_config(extra_after_dropout={"reset_after": self.reset_after})


API = {"layers": ["SimpleRNNCell", "LSTMCell", "GRUCell"]}
