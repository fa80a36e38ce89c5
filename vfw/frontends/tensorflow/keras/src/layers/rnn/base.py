"""The recurrent machinery: the ``RNN`` layer over a cell, ``StackedRNNCells``, cell dropout masks, the time loop.

The loop (``run_loop``) is a Python loop over the time steps (unrolled by shape, also under
tf.function), with Keras' masking semantics: at a masked step the states keep their previous
values and the output repeats the previous output (zeros with ``zero_output_for_mask``; zeros
before the first step).  ``go_backwards`` runs over the reversed sequence and returns outputs in
that reversed order, as Keras does.  LSTM, GRU and SimpleRNN replace the loop by the engine's
fused recurrent ops where Keras' math allows (``recurrent.py``).

Dropout masks of cells (``DropoutRNNCell``) are drawn once per ``RNN`` call, before the loop,
whether training or not (as in Keras, so seed generators advance identically), and reused at
every step.
"""

import vfw.frontends.tensorflow as tf
from vfw.frontends.tensorflow import nest
from vfw.frontends.tensorflow.keras.src import random
from vfw.frontends.tensorflow.keras.src.engine import naming
from vfw.frontends.tensorflow.keras.src.engine.layer import Layer
from vfw.frontends.tensorflow.keras.src.engine.variables import Variable
from vfw.frontends.tensorflow.keras.src.utils import serialization


def call_cell(cell, inputs, states, **kwargs):
    """One step of ``cell``: ``(output, new_states)``.

    The built-in cells (``_direct_call``) run their ``call`` directly, skipping ``Layer.__call__``
    (the RNN layer already resolved dtypes, scopes and ``training``); other cells are called as Keras does.
    """
    if getattr(cell, "_direct_call", False):
        return cell.call(inputs, states, **kwargs)
    return cell(inputs, states, **kwargs) if callable(cell) else cell.call(inputs, states, **kwargs)


def _where_steps(keep, new, old):
    """``new`` where the step is kept (``keep``: bool ``[batch]``), else ``old``."""
    keep = tf.reshape(keep, [-1] + [1] * (len(new.shape) - 1))
    return tf.where(keep, new, old)


def run_loop(step, sequences, initial_states, go_backwards=False, mask=None, zero_output_for_mask=False,
             return_all_outputs=True):
    """Run ``step(inputs_t, states) -> (output, new_states)`` over axis 1 of ``sequences``.

    Returns
    -------
    tuple
        ``(last_output, outputs, states)``: ``outputs`` ``[batch, time, ...]`` (None unless
        ``return_all_outputs``), ``states`` a tuple shaped like ``initial_states``.
    """
    inputs = tf.unstack(sequences, axis=1)
    masks = None if mask is None else tf.unstack(tf.cast(mask, "bool"), axis=1)
    if go_backwards:
        inputs.reverse()
        if masks is not None:
            masks.reverse()
    states = tuple(initial_states)
    outputs = []
    for t, step_input in enumerate(inputs):
        output, new_states = step(step_input, states)
        if masks is None:
            states = tuple(nest.pack_sequence_as(list(initial_states), nest.flatten(new_states)))
        else:
            fallback = tf.zeros_like(output) if zero_output_for_mask or not outputs else outputs[-1]
            output = _where_steps(masks[t], output, fallback)
            kept = [_where_steps(masks[t], new, old) for new, old in zip(nest.flatten(new_states),
                                                                          nest.flatten(states))]
            states = tuple(nest.pack_sequence_as(new_states, kept))
        if return_all_outputs or not outputs:
            outputs.append(output)
        else:
            outputs[0] = output
    return outputs[-1], (tf.stack(outputs, axis=1) if return_all_outputs else None), states


class DropoutRNNCell:
    """Mixin of cells with ``dropout`` / ``recurrent_dropout`` and a ``seed_generator``: the per-call masks.

    With ``dropout_mask_count`` set (LSTM/GRU implementation 1), each mask is a list of that many
    independent masks (one per gate).
    """

    def _create_dropout_mask(self, step_input, rate):
        ones = tf.ones_like(step_input)
        count = getattr(self, "dropout_mask_count", None)
        if count is None:
            return random.dropout(ones, rate=rate, seed=self.seed_generator)
        return [random.dropout(ones, rate=rate, seed=self.seed_generator) for _ in range(count)]

    def get_dropout_mask(self, step_input):
        """The input dropout mask of this call (drawn on first use; None when ``dropout`` is 0)."""
        if getattr(self, "_dropout_mask", None) is None and self.dropout > 0:
            object.__setattr__(self, "_dropout_mask", self._create_dropout_mask(step_input, self.dropout))
        return getattr(self, "_dropout_mask", None)

    def get_recurrent_dropout_mask(self, step_input):
        """The recurrent dropout mask of this call (drawn on first use; None when ``recurrent_dropout`` is 0)."""
        if getattr(self, "_recurrent_dropout_mask", None) is None and self.recurrent_dropout > 0:
            object.__setattr__(self, "_recurrent_dropout_mask",
                               self._create_dropout_mask(step_input, self.recurrent_dropout))
        return getattr(self, "_recurrent_dropout_mask", None)

    def reset_dropout_mask(self):
        """Forget the input mask (the next call draws a new one)."""
        object.__setattr__(self, "_dropout_mask", None)

    def reset_recurrent_dropout_mask(self):
        """Forget the recurrent mask (the next call draws a new one)."""
        object.__setattr__(self, "_recurrent_dropout_mask", None)


def _output_size(cell):
    size = getattr(cell, "output_size", None)
    if size is not None:
        return size
    return cell.state_size[0] if isinstance(cell.state_size, (list, tuple)) else cell.state_size


def _check_cell(cell, messages):
    """ValueError (``messages``: the prefixes for a missing ``call`` / ``state_size``) unless ``cell`` is a cell."""
    if "call" not in dir(cell):
        raise ValueError(messages[0] + f"{cell}")
    if "state_size" not in dir(cell):
        raise ValueError(messages[1] + f"{cell}")


def zero_states(state_size, batch_size, dtype):
    """Zero states ``[batch_size, size]`` for each size in ``state_size`` (an int or a list)."""
    sizes = [state_size] if isinstance(state_size, int) else state_size
    return [tf.zeros(tf.stack([batch_size, d]), dtype=dtype) for d in sizes]


class StackedRNNCells(Layer):
    """Cells run one after the other at each step (each one's output is the next one's input).

    Parameters
    ----------
    cells : list
        RNN cells (objects with ``call`` and ``state_size``).
    """

    def __init__(self, cells, **kwargs):
        super().__init__(**kwargs)
        for cell in cells:
            _check_cell(cell, ("All cells must have a `call` method. Received cell without a `call` method: ",
                               "All cells must have a `state_size` attribute. Received cell without a "
                               "`state_size`: "))
        self.cells = cells

    @property
    def state_size(self):
        """list: each cell's ``state_size``."""
        return [cell.state_size for cell in self.cells]

    @property
    def output_size(self):
        """int: the last cell's output size."""
        return _output_size(self.cells[-1])

    def get_initial_state(self, batch_size=None):
        """Each cell's initial states (its ``get_initial_state``, else zeros)."""
        states = []
        for cell in self.cells:
            if getattr(cell, "get_initial_state", None):
                states.append(cell.get_initial_state(batch_size=batch_size))
            elif isinstance(cell.state_size, int):
                states.append(zero_states(cell.state_size, batch_size, self.compute_dtype)[0])
            else:
                states.append(zero_states(cell.state_size, batch_size, self.compute_dtype))
        return states

    def call(self, inputs, states, training=False, **kwargs):
        new_states = []
        for cell, cell_states in zip(self.cells, states):
            was_nested = nest.is_nested(cell_states)
            cell_states = list(cell_states) if was_nested else [cell_states]
            if isinstance(cell, Layer) and cell._call_has_training_arg:
                kwargs["training"] = training
            else:
                kwargs.pop("training", None)
            inputs, cell_states = call_cell(cell, inputs, cell_states, **kwargs)
            if len(cell_states) == 1 and not was_nested:
                cell_states = cell_states[0]
            new_states.append(cell_states)
        if len(new_states) == 1:
            new_states = new_states[0]
        return inputs, new_states

    def build(self, input_shape):
        for cell in self.cells:
            if isinstance(cell, Layer) and not cell.built:
                cell.build(input_shape)
                cell.built = True
            input_shape = (nest.flatten(input_shape)[0], _output_size(cell))

    def get_config(self):
        return {**super().get_config(), "cells": [serialization.serialize_keras_object(c) for c in self.cells]}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        cells = [serialization.deserialize_keras_object(c, custom_objects=custom_objects) for c in config.pop("cells")]
        return cls(cells, **config)


class RNN(Layer):
    """A recurrent layer running a cell over the time axis of ``[batch, time, ...]`` sequences.

    Parameters
    ----------
    cell : cell or list of cells
        An object with ``call(inputs, states) -> (output, new_states)`` and ``state_size`` (a list
        becomes ``StackedRNNCells``).
    return_sequences : bool
        Return every step's output (``[batch, time, units]``) rather than the last one.
    return_state : bool
        Also return the final states.
    go_backwards : bool
        Run over the reversed sequence (outputs in that reversed order).
    stateful : bool
        Keep the final states (in non-trainable variables) as the next call's initial states.
    unroll : bool
        Accepted (the loop is always unrolled); needs a known time dimension.
    zero_output_for_mask : bool
        Masked steps output zeros instead of the previous output.

    Notes
    -----
    ``call(sequences, initial_state=None, mask=None, training=False)``.
    """

    def __init__(self, cell, return_sequences=False, return_state=False, go_backwards=False, stateful=False,
                 unroll=False, zero_output_for_mask=False, **kwargs):
        if isinstance(cell, (list, tuple)):
            cell = StackedRNNCells(cell)
        _check_cell(cell, ("Argument `cell` should have a `call` method. Received: cell=",
                           "The RNN cell should have a `state_size` attribute (single integer or list of integers, "
                           "one integer per RNN state). Received: cell="))
        super().__init__(**kwargs)
        self.zero_output_for_mask = zero_output_for_mask
        self.cell = cell
        self.return_sequences = return_sequences
        self.return_state = return_state
        self.go_backwards = go_backwards
        self.stateful = stateful
        self.unroll = unroll
        self.supports_masking = True
        self.input_spec = None
        object.__setattr__(self, "states", None)  # stateful state variables: not tracked as weights (Keras)
        self._expected_batch_size = None
        state_size = getattr(self.cell, "state_size", None)
        if state_size is None:
            raise ValueError("state_size must be specified as property on the RNN cell.")
        if not isinstance(state_size, (list, tuple, int)):
            raise ValueError("state_size must be an integer, or a list/tuple of integers (one for each state tensor).")
        self.single_state = isinstance(state_size, int)
        self.state_size = [state_size] if self.single_state else list(state_size)

    def compute_output_shape(self, sequences_shape, initial_state_shape=None):
        batch_size = sequences_shape[0]
        states_shape = []
        for size in self.state_size:
            if isinstance(size, int):
                states_shape.append((batch_size, size))
            elif isinstance(size, (list, tuple)):
                states_shape.append([(batch_size, s) for s in size])
        output_size = getattr(self.cell, "output_size", None)
        if output_size is None:
            output_size = self.state_size[0]
        if not isinstance(output_size, int):
            raise ValueError("output_size must be an integer.")
        if self.return_sequences:
            output_shape = (batch_size, sequences_shape[1], output_size)
        else:
            output_shape = (batch_size, output_size)
        if self.return_state:
            return output_shape, *states_shape
        return output_shape

    def compute_mask(self, _, mask):
        mask = nest.flatten(mask)[0]
        output_mask = mask if self.return_sequences else None
        if self.return_state:
            return [output_mask] + [None for _ in self.state_size]
        return output_mask

    def build(self, sequences_shape, initial_state_shape=None):
        step_input_shape = (sequences_shape[0],) + tuple(sequences_shape[2:])
        if isinstance(self.cell, Layer) and not self.cell.built:
            self.cell.build(step_input_shape)
            self.cell.built = True
        if self.stateful:
            if self.states is not None:
                self.reset_state()
            else:
                if sequences_shape[0] is None:
                    raise ValueError("When using `stateful=True` in a RNN, the batch size must be static. Found "
                                     f"dynamic batch size: sequence.shape={sequences_shape}")
                self._create_state_variables(sequences_shape[0])
                self._expected_batch_size = sequences_shape[0]

    def _create_state_variables(self, batch_size):
        with naming.name_scope(self.name, caller=self):
            states = nest.map_structure(
                lambda value: Variable(value, trainable=False, dtype=self.variable_dtype, name="rnn_state"),
                self.get_initial_state(batch_size))
        object.__setattr__(self, "states", states)

    def get_initial_state(self, batch_size):
        """The initial states for ``batch_size`` sequences (the cell's ``get_initial_state``, else zeros)."""
        if getattr(self.cell, "get_initial_state", None):
            states = self.cell.get_initial_state(batch_size=batch_size)
            return list(states) if nest.is_nested(states) else [states]
        return zero_states(self.state_size, batch_size, self.cell.compute_dtype)

    def reset_states(self):
        """``reset_state`` (Keras' alias)."""
        self.reset_state()

    def reset_state(self):
        """Zero the stateful states."""
        if self.states is not None:
            for state in self.states:
                state.assign(tf.zeros_like(state))

    def inner_loop(self, sequences, initial_state, mask, training=False):
        """``(last_output, outputs, states)`` of the cell run over ``sequences``."""
        cell_kwargs = {}
        if isinstance(self.cell, Layer) and self.cell._call_has_training_arg:
            cell_kwargs["training"] = training

        def step(inputs, states):
            output, new_states = call_cell(self.cell, inputs, states, **cell_kwargs)
            return output, (new_states if nest.is_nested(new_states) else [new_states])

        return run_loop(step, sequences, initial_state, go_backwards=self.go_backwards, mask=mask,
                        zero_output_for_mask=self.zero_output_for_mask, return_all_outputs=self.return_sequences)

    def call(self, sequences, initial_state=None, mask=None, training=False):
        if self.unroll and sequences.shape[1] is None:
            raise ValueError("Cannot unroll a RNN if the time dimension is undefined. \n- If using a Sequential "
                             "model, specify the time dimension by passing an `Input()` as your first layer.\n- If "
                             "using the functional API, specify the time dimension by passing a `shape` or "
                             "`batch_shape` argument to your `Input()`.")
        if initial_state is None:
            initial_state = self.states if self.stateful else self.get_initial_state(tf.shape(sequences)[0])
        if self.stateful and self._expected_batch_size is not None and sequences.shape[0] is not None \
                and sequences.shape[0] != self._expected_batch_size:
            raise ValueError(f"If an RNN is stateful, the batch size of the input sequences must be the same as the "
                             f"batch size of the initial state. \n- Expected batch size: "
                             f"{self._expected_batch_size}\n- Received batch size: {sequences.shape[0]}")
        initial_state = list(initial_state) if nest.is_nested(initial_state) else [initial_state]
        dtype = self.cell.compute_dtype
        initial_state = nest.map_structure(lambda x: tf.cast(tf.convert_to_tensor(x), dtype), initial_state)
        self._maybe_config_dropout_masks(self.cell, sequences[:, 0, :], initial_state)
        last_output, outputs, states = self.inner_loop(sequences, initial_state, mask=mask, training=training)
        states = nest.map_structure(lambda x: tf.cast(x, self.compute_dtype), states)
        self._maybe_reset_dropout_masks(self.cell)
        if self.stateful:
            for variable, state in zip(nest.flatten(self.states), nest.flatten(states)):
                variable.assign(state)
        output = tf.cast(outputs if self.return_sequences else last_output, self.compute_dtype)
        if self.return_state:
            return output, *states
        return output

    def _maybe_config_dropout_masks(self, cell, step_input, states):
        """Draw the dropout masks of the cell (and of stacked cells, fed the previous cell's step output)."""
        state = states[0] if isinstance(states, (list, tuple)) else states
        if isinstance(cell, DropoutRNNCell):
            cell.get_dropout_mask(step_input)
            cell.get_recurrent_dropout_mask(state)
        if isinstance(cell, StackedRNNCells):
            for inner, inner_states in zip(cell.cells, states):
                self._maybe_config_dropout_masks(inner, step_input, inner_states)
                inner_states = list(inner_states) if nest.is_nested(inner_states) else [inner_states]
                step_input, _ = call_cell(inner, step_input, inner_states)

    def _maybe_reset_dropout_masks(self, cell):
        if isinstance(cell, DropoutRNNCell):
            cell.reset_dropout_mask()
            cell.reset_recurrent_dropout_mask()
        if isinstance(cell, StackedRNNCells):
            for inner in cell.cells:
                self._maybe_reset_dropout_masks(inner)

    def get_config(self):
        config = {"return_sequences": self.return_sequences, "return_state": self.return_state,
                  "go_backwards": self.go_backwards, "stateful": self.stateful, "unroll": self.unroll,
                  "zero_output_for_mask": self.zero_output_for_mask,
                  "cell": serialization.serialize_keras_object(self.cell)}
        return {**super().get_config(), **config}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        cell = serialization.deserialize_keras_object(config.pop("cell"), custom_objects=custom_objects)
        return cls(cell, **config)
