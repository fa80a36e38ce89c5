"""SimpleRNN, LSTM and GRU: the RNN layer over their cell, run by the engine's fused recurrent ops where Keras'
math allows.

The engine's ONNX ``RNN`` / ``LSTM`` / ``GRU`` ops compute the same recurrences as the cells in one
kernel (with a fused backward); they are used when the activations are ones the ops have (tanh,
sigmoid, relu) and no per-gate or recurrent dropout is active in this call.  Input dropout (one mask
for every step) multiplies the whole sequence first.  Otherwise the cell runs step by step
(``base.run_loop``).  A Keras mask (any pattern, not only padding at the end) becomes the ops'
``sequence_lens`` over the unmasked steps moved to the front (``_masked_order``): one graph for every
sequence length, which ONNX export takes.  Kernels map onto the ops' layout: transposed, LSTM gates
reordered from Keras' ``i, f, c, o`` to ONNX's ``i, o, f, c``, recurrent biases zero except GRU's
``reset_after`` ones (ONNX's ``linear_before_reset``).
"""

import vfw.frontends.tensorflow as tf
from vfw.frontends.tensorflow import _dispatch
from vfw.frontends.tensorflow.keras.src import activations, constraints, initializers, regularizers
from vfw.frontends.tensorflow.keras.src.engine.input_spec import InputSpec
from vfw.frontends.tensorflow.keras.src.layers.rnn.base import RNN
from vfw.frontends.tensorflow.keras.src.layers.rnn.cells import GRUCell, LSTMCell, SimpleRNNCell

_ENGINE_ACTIVATIONS = {"tanh": "Tanh", "sigmoid": "Sigmoid", "relu": "Relu"}
_CELL_ARGUMENTS = ("kernel_initializer", "recurrent_initializer", "bias_initializer", "kernel_regularizer",
                   "recurrent_regularizer", "bias_regularizer", "kernel_constraint", "recurrent_constraint",
                   "bias_constraint", "dropout", "recurrent_dropout")


def _engine_activation(function):
    """The engine op's name for a Keras activation function (None when the ops have no such activation)."""
    for name, engine_name in _ENGINE_ACTIVATIONS.items():
        if function is activations.get(name):
            return engine_name
    return None


def _transposed(kernel, gate_order=None, gates=1):
    """``kernel`` ``[in, gates * units]`` as the ops' ``[1, gates * units, in]`` (gates reordered when asked)."""
    if gate_order is not None:
        parts = tf.split(kernel, gates, axis=1)
        kernel = tf.concat([parts[g] for g in gate_order], axis=1)
    return tf.expand_dims(tf.transpose(kernel), 0)


def _engine_kernels(cell, gate_order=None, gates=1):
    """The cell's ``kernel`` and ``recurrent_kernel`` in the ops' layout (``_transposed``)."""
    return [_transposed(tf.convert_to_tensor(kernel), gate_order, gates)
            for kernel in (cell.kernel, cell.recurrent_kernel)]


def _engine_bias(input_bias, recurrent_bias=None):
    """The ops' ``[1, 2 * gates * units]`` bias: input then recurrent biases (zeros when None)."""
    if recurrent_bias is None:
        recurrent_bias = tf.zeros_like(input_bias)
    return tf.expand_dims(tf.concat([input_bias, recurrent_bias], axis=0), 0)


def _masked_order(mask):
    """How a masked sequence runs as one call of the fused op.

    At a masked step Keras keeps the states and repeats the previous output, so the states after the
    sequence are those after its unmasked steps alone: the op runs over them, moved to the front in
    their order (``order``, positions along time), for ``counts`` steps.  The output a step shows is
    the op's output at ``shown`` (the unmasked steps up to it, minus one; -1 before the first one).
    """
    time = tf.shape(mask)[1]
    steps = tf.range(time)[None, :]
    order = tf.argsort(tf.where(mask, steps, steps + time), axis=1)  # (distinct keys: ties cannot reorder)
    so_far = tf.cumsum(tf.cast(mask, "int32"), axis=1)
    return order, so_far[:, -1], so_far - 1


def _masked_results(outputs, states, initial_states, mask, counts, shown, return_sequences, zero_output_for_mask):
    """``(last_output, outputs, states)`` of a masked sequence from the op's run over its unmasked steps
    (``_masked_order``): outputs zero before the first unmasked step (at every masked step with
    ``zero_output_for_mask``), the initial states where no step is unmasked."""
    if not return_sequences:
        mask, shown = mask[:, -1:], shown[:, -1:]
    seen = tf.gather(outputs, tf.maximum(shown, 0), axis=1, batch_dims=1)
    visible = mask if zero_output_for_mask else shown >= 0
    seen = tf.where(visible[:, :, None], seen, tf.zeros_like(seen))
    ran = (counts > 0)[:, None]
    states = [tf.where(ran, s, tf.cast(i, s.dtype)) for s, i in zip(states, initial_states)]
    return seen[:, -1], (seen if return_sequences else None), states


class _FusedRecurrent(RNN):
    """An RNN layer whose cell the engine's ``_op_type`` op can run (subclasses give the weights)."""

    _op_type = None
    _cell_class = None
    _activation_slots = ()  # the cell activations the op's ``activations`` attribute lists, in order

    def _set_use_cudnn(self, use_cudnn):
        if use_cudnn not in ("auto", True, False):
            raise ValueError("Invalid valid received for argument `use_cudnn`. Expected one of {'auto', True, "
                             f"False}}. Received: use_cudnn={use_cudnn}")
        self.use_cudnn = use_cudnn

    def _engine_activations(self):
        """The engine activation names of the op's slots, or None when one has none."""
        names = [_engine_activation(getattr(self.cell, slot)) for slot in self._activation_slots]
        return None if None in names else names

    def _fusable(self, mask, training):
        cell = self.cell
        if type(cell) is not self._cell_class or not cell.built or mask is not None and len(mask.shape) != 2:
            return False
        if training and 0.0 < cell.recurrent_dropout < 1.0:
            return False
        if training and 0.0 < cell.dropout < 1.0 and getattr(cell, "implementation", 2) == 1:
            return False  # one input mask per gate
        return self._engine_activations() is not None

    def inner_loop(self, sequences, initial_state, mask, training=False):
        if isinstance(mask, (list, tuple)):
            mask = mask[0]
        if not self._fusable(mask, training):
            return super().inner_loop(sequences, initial_state, mask=mask, training=training)
        cell = self.cell
        if training and 0.0 < cell.dropout < 1.0:
            sequences = sequences * tf.expand_dims(cell.get_dropout_mask(sequences[:, 0, :]), 1)
        if self.go_backwards:  # (Keras reverses the mask with the steps)
            sequences = tf.reverse(sequences, [1])
            mask = None if mask is None else tf.reverse(mask, [1])
        lengths = None
        if mask is not None:
            mask = tf.cast(mask, "bool")
            order, counts, shown = _masked_order(mask)
            sequences = tf.gather(sequences, order, axis=1, batch_dims=1)
            lengths = tf.maximum(counts, 1)  # (onnxruntime refuses 0 steps: those rows are set back below)
        weights, attrs = self._engine_weights()
        states = [tf.expand_dims(s, 1) for s in initial_state]  # [batch, directions, units]
        results = _dispatch.call(self._op_type, sequences, *weights, lengths, *states, layout=1,
                                 hidden_size=cell.units, activations=self._engine_activations(),
                                 tf_op=self._op_type, **attrs)
        outputs, final_states = results[0][:, :, 0], [s[:, 0] for s in results[1:]]
        if mask is not None:
            return _masked_results(outputs, final_states, initial_state, mask, counts, shown, self.return_sequences,
                                   self.zero_output_for_mask)
        return final_states[0], (outputs if self.return_sequences else None), final_states

    def _engine_weights(self):
        """``([W, R, B], attrs)`` of the engine op."""
        raise NotImplementedError

    def _layer_config(self, after_bias_initializer=(), after_recurrent_dropout=()):
        cell = self.cell
        config = super().get_config()
        del config["cell"]
        config.update(units=self.units, activation=activations.serialize(self.activation))
        if hasattr(cell, "recurrent_activation"):
            config["recurrent_activation"] = activations.serialize(self.recurrent_activation)
        config["use_bias"] = self.use_bias
        for name in ("kernel_initializer", "recurrent_initializer", "bias_initializer"):
            config[name] = initializers.serialize(getattr(cell, name))
        config.update(after_bias_initializer)
        for name in ("kernel_regularizer", "recurrent_regularizer", "bias_regularizer", "activity_regularizer"):
            config[name] = regularizers.serialize(getattr(self if name == "activity_regularizer" else cell, name))
        for name in ("kernel_constraint", "recurrent_constraint", "bias_constraint"):
            config[name] = constraints.serialize(getattr(cell, name))
        config.update(dropout=self.dropout, recurrent_dropout=self.recurrent_dropout)
        config.update(after_recurrent_dropout)
        return config

    @classmethod
    def from_config(cls, config):
        return cls(**config)


def _forward_to_cell(cls, names):
    """Give ``cls`` read-only properties returning its cell's attributes ``names``."""
    for name in names:
        setattr(cls, name, property(lambda self, name=name: getattr(self.cell, name),
                                    doc=f"The cell's ``{name}``."))


class SimpleRNN(_FusedRecurrent):
    """A fully connected RNN: ``SimpleRNNCell`` run over the sequence (see ``RNN`` for the loop arguments).

    Parameters
    ----------
    units : int
    activation : default ``"tanh"``
    use_bias, kernel_initializer, recurrent_initializer, bias_initializer, kernel_regularizer,
    recurrent_regularizer, bias_regularizer, activity_regularizer, kernel_constraint,
    recurrent_constraint, bias_constraint, dropout, recurrent_dropout, seed
        As ``SimpleRNNCell`` (and ``Layer``).
    return_sequences, return_state, go_backwards, stateful, unroll
        As ``RNN``.
    """

    _op_type = "RNN"
    _cell_class = SimpleRNNCell
    _activation_slots = ("activation",)

    def __init__(self, units, activation="tanh", use_bias=True, kernel_initializer="glorot_uniform",
                 recurrent_initializer="orthogonal", bias_initializer="zeros", kernel_regularizer=None,
                 recurrent_regularizer=None, bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
                 recurrent_constraint=None, bias_constraint=None, dropout=0.0, recurrent_dropout=0.0,
                 return_sequences=False, return_state=False, go_backwards=False, stateful=False, unroll=False,
                 seed=None, **kwargs):
        cell = SimpleRNNCell(units, activation=activation, use_bias=use_bias, seed=seed,
                             dtype=kwargs.get("dtype", None), trainable=kwargs.get("trainable", True),
                             name="simple_rnn_cell", **_cell_arguments(locals()))
        super().__init__(cell, return_sequences=return_sequences, return_state=return_state,
                         go_backwards=go_backwards, stateful=stateful, unroll=unroll,
                         activity_regularizer=activity_regularizer, **kwargs)
        self.input_spec = [InputSpec(ndim=3)]

    def call(self, sequences, initial_state=None, mask=None, training=False):
        return super().call(sequences, mask=mask, training=training, initial_state=initial_state)

    def _engine_weights(self):
        cell = self.cell
        bias = None if cell.bias is None else _engine_bias(tf.convert_to_tensor(cell.bias))
        return [*_engine_kernels(cell), bias], {}

    def get_config(self):
        return self._layer_config()


class LSTM(_FusedRecurrent):
    """Long short-term memory: ``LSTMCell`` run over the sequence (see ``RNN`` for the loop arguments).

    Parameters
    ----------
    units : int
    activation, recurrent_activation, use_bias, kernel_initializer, recurrent_initializer,
    bias_initializer, unit_forget_bias, kernel_regularizer, recurrent_regularizer, bias_regularizer,
    activity_regularizer, kernel_constraint, recurrent_constraint, bias_constraint, dropout,
    recurrent_dropout, seed
        As ``LSTMCell`` (and ``Layer``).
    return_sequences, return_state, go_backwards, stateful, unroll
        As ``RNN``.
    use_cudnn : "auto", True or False
        Accepted (vfw has no cuDNN; the fused engine op serves where it applies).
    """

    _op_type = "LSTM"
    _cell_class = LSTMCell
    _activation_slots = ("recurrent_activation", "activation", "activation")  # gates, cell input, output

    def __init__(self, units, activation="tanh", recurrent_activation="sigmoid", use_bias=True,
                 kernel_initializer="glorot_uniform", recurrent_initializer="orthogonal", bias_initializer="zeros",
                 unit_forget_bias=True, kernel_regularizer=None, recurrent_regularizer=None, bias_regularizer=None,
                 activity_regularizer=None, kernel_constraint=None, recurrent_constraint=None, bias_constraint=None,
                 dropout=0.0, recurrent_dropout=0.0, seed=None, return_sequences=False, return_state=False,
                 go_backwards=False, stateful=False, unroll=False, use_cudnn="auto", **kwargs):
        cell = LSTMCell(units, activation=activation, recurrent_activation=recurrent_activation, use_bias=use_bias,
                        unit_forget_bias=unit_forget_bias, dtype=kwargs.get("dtype", None),
                        trainable=kwargs.get("trainable", True), name="lstm_cell", seed=seed,
                        implementation=kwargs.pop("implementation", 2), **_cell_arguments(locals()))
        super().__init__(cell, return_sequences=return_sequences, return_state=return_state,
                         go_backwards=go_backwards, stateful=stateful, unroll=unroll,
                         activity_regularizer=activity_regularizer, **kwargs)
        self.input_spec = InputSpec(ndim=3)
        self._set_use_cudnn(use_cudnn)

    def call(self, sequences, initial_state=None, mask=None, training=False):
        return super().call(sequences, mask=mask, training=training, initial_state=initial_state)

    def _engine_weights(self):
        cell = self.cell
        order = (0, 3, 1, 2)  # Keras i, f, c, o -> ONNX i, o, f, c
        bias = None
        if cell.bias is not None:
            parts = tf.split(tf.convert_to_tensor(cell.bias), 4, axis=0)
            bias = _engine_bias(tf.concat([parts[g] for g in order], axis=0))
        return [*_engine_kernels(cell, order, 4), bias], {}

    def get_config(self):
        return self._layer_config(after_bias_initializer={"unit_forget_bias": self.unit_forget_bias},
                                  after_recurrent_dropout={"seed": self.cell.seed})


class GRU(_FusedRecurrent):
    """Gated recurrent unit: ``GRUCell`` run over the sequence (see ``RNN`` for the loop arguments).

    Parameters
    ----------
    units : int
    activation, recurrent_activation, use_bias, kernel_initializer, recurrent_initializer,
    bias_initializer, kernel_regularizer, recurrent_regularizer, bias_regularizer,
    activity_regularizer, kernel_constraint, recurrent_constraint, bias_constraint, dropout,
    recurrent_dropout, reset_after, seed
        As ``GRUCell`` (and ``Layer``).
    return_sequences, return_state, go_backwards, stateful, unroll
        As ``RNN``.
    use_cudnn : "auto", True or False
        Accepted (vfw has no cuDNN; the fused engine op serves where it applies).
    """

    _op_type = "GRU"
    _cell_class = GRUCell
    _activation_slots = ("recurrent_activation", "activation")

    def __init__(self, units, activation="tanh", recurrent_activation="sigmoid", use_bias=True,
                 kernel_initializer="glorot_uniform", recurrent_initializer="orthogonal", bias_initializer="zeros",
                 kernel_regularizer=None, recurrent_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, recurrent_constraint=None, bias_constraint=None, dropout=0.0,
                 recurrent_dropout=0.0, seed=None, return_sequences=False, return_state=False, go_backwards=False,
                 stateful=False, unroll=False, reset_after=True, use_cudnn="auto", **kwargs):
        cell = GRUCell(units, activation=activation, recurrent_activation=recurrent_activation, use_bias=use_bias,
                       reset_after=reset_after, dtype=kwargs.get("dtype", None),
                       trainable=kwargs.get("trainable", True), name="gru_cell", seed=seed,
                       implementation=kwargs.pop("implementation", 2), **_cell_arguments(locals()))
        super().__init__(cell, return_sequences=return_sequences, return_state=return_state,
                         go_backwards=go_backwards, stateful=stateful, unroll=unroll,
                         activity_regularizer=activity_regularizer, **kwargs)
        self.input_spec = InputSpec(ndim=3)
        self._set_use_cudnn(use_cudnn)

    def call(self, sequences, initial_state=None, mask=None, training=False):
        return super().call(sequences, mask=mask, training=training, initial_state=initial_state)

    def _engine_weights(self):
        cell = self.cell
        bias = None
        if cell.bias is not None:
            value = tf.convert_to_tensor(cell.bias)
            bias = tf.reshape(value, [1, -1]) if cell.reset_after else _engine_bias(value)
        return [*_engine_kernels(cell), bias], {"linear_before_reset": int(cell.reset_after)}

    def get_config(self):
        return self._layer_config(after_recurrent_dropout={"reset_after": self.reset_after, "seed": self.cell.seed})


def _cell_arguments(constructor_locals):
    """The weight and dropout arguments among a layer constructor's ``locals()`` (passed on to its cell)."""
    return {name: constructor_locals[name] for name in _CELL_ARGUMENTS}


_COMMON = ("units", "activation", "use_bias", *_CELL_ARGUMENTS)
_forward_to_cell(SimpleRNN, _COMMON)
_forward_to_cell(LSTM, _COMMON + ("recurrent_activation", "unit_forget_bias"))
_forward_to_cell(GRU, _COMMON + ("recurrent_activation", "reset_after"))

API = {"layers": ["SimpleRNN", "LSTM", "GRU"]}
