"""tf.keras.backend's legacy Keras 2 functions, part 3: control flow (switch, foldl/foldr, map_fn,
gradients, rnn).

``rnn`` runs its time loop in Python (eager or traced: vfw traces unrolled), with the masking rules
of Keras' while-loop and unrolled versions, which agree: a masked step keeps the previous states and
outputs the previous output (zeros with ``zero_output_for_mask``).
"""

import vfw.frontends.tensorflow as tf
from vfw.frontends.tensorflow.keras.src.legacy.backend_math import ndim

API = {"backend": ["switch", "foldl", "foldr", "map_fn", "gradients", "rnn"]}

foldl = tf.foldl
foldr = tf.foldr
gradients = tf.gradients


def map_fn(fn, elems, name=None, dtype=None):
    """``fn`` applied to each slice of ``elems`` along axis 0, stacked."""
    return tf.map_fn(fn, elems, name=name, dtype=dtype)


def _value(expression):
    return expression() if callable(expression) else expression


def switch(condition, then_expression, else_expression):
    """``then_expression`` where ``condition`` holds, else ``else_expression`` (either may be a callable).

    A scalar condition picks one whole expression (``tf.cond``); otherwise elementwise, the condition's
    shape padded with trailing size-1 axes and broadcast over the expressions' shape.
    """
    if condition.dtype != tf.bool:
        condition = tf.cast(condition, "bool")
    cond_ndim = ndim(condition)
    if not cond_ndim:
        return tf.cond(condition, lambda: _value(then_expression), lambda: _value(else_expression))
    then_expression, else_expression = _value(then_expression), _value(else_expression)
    expr_ndim = ndim(then_expression)
    if cond_ndim > expr_ndim:
        raise ValueError(f"Rank of `condition` should be less than or equal to rank of `then_expression` and "
                         f"`else_expression`. ndim(condition)={cond_ndim}, ndim(then_expression)={expr_ndim}")
    if cond_ndim > 1:
        cond_shape = tf.concat([tf.shape(condition), [1] * (expr_ndim - cond_ndim)], axis=0)
        condition = tf.reshape(condition, cond_shape)
        expr_shape = tf.shape(then_expression)
        condition = tf.tile(condition, tf.where(expr_shape - cond_shape > 0, expr_shape, tf.ones_like(expr_shape)))
    return tf.where(condition, then_expression, else_expression)


def _swap_batch_time(x):
    return tf.transpose(x, [1, 0] + list(range(2, len(x.shape))))


def _masked(keep, new, old):
    """``new`` where ``keep`` (batch-leading, fewer axes: padded with trailing size-1 axes), else ``old``."""
    keep = tf.reshape(keep, tf.concat([tf.shape(keep), [1] * (len(new.shape) - len(keep.shape))], axis=0))
    return tf.where(keep, new, old)


def _step_masks(mask, input_length, time_steps, go_backwards, unroll, time_major):
    """One bool mask per step (batch first), or None: from ``mask`` (batch, time[, 1]) or, looped, from
    ``input_length`` (steps counted from the end when going backwards, as Keras)."""
    if mask is not None:
        mask = tf.cast(mask, tf.bool) if mask.dtype != tf.bool else mask
        if len(mask.shape) == 2:
            mask = tf.expand_dims(mask, -1)
        steps = tf.unstack(mask if time_major else _swap_batch_time(mask))
        return steps[::-1] if go_backwards else steps
    if unroll or not isinstance(input_length, tf.Tensor):
        return None
    if go_backwards:
        reversed_length = tf.reduce_max(input_length, axis=0) - 1 - input_length
        return [tf.less(reversed_length, t) for t in range(time_steps)]
    return [tf.greater(input_length, t) for t in range(time_steps)]


def rnn(step_function, inputs, initial_states, go_backwards=False, mask=None, constants=None, unroll=False,
        input_length=None, time_major=False, zero_output_for_mask=False, return_all_outputs=True):
    """Run ``step_function(input_t, states + constants) -> (output_t, new_states)`` over the time axis.

    Parameters
    ----------
    inputs : tensor or nest of tensors
        (batch, time, ...) (or (time, batch, ...) with ``time_major``), rank >= 3.
    initial_states : list of tensors
    mask : tensor, optional
        bool (batch, time) or (batch, time, 1): masked steps keep the states and repeat the last output
        (or output zeros with ``zero_output_for_mask``).
    input_length : tensor, optional
        int (batch,): without a mask and not unrolled, steps past each length are masked, and the loop
        stops after ``max(input_length)`` steps (later outputs stay zero), as Keras' while loop.

    Returns
    -------
    (last_output, outputs, new_states)
        ``outputs`` (batch, time, ...) (time 1 unless ``return_all_outputs``).
    """
    if not time_major:
        inputs = tf.nest.map_structure(_swap_batch_time, inputs)
    flat_inputs = tf.nest.flatten(inputs)
    for value in flat_inputs:
        if len(value.shape) < 3:
            raise ValueError(f"Shape {value.shape} must have rank at least 3")
    time_steps = flat_inputs[0].shape[0]
    if unroll and not time_steps:
        raise ValueError("Unrolling requires a fixed number of timesteps.")
    constants = tuple(constants or ())
    step_masks = _step_masks(mask, input_length, time_steps, go_backwards, unroll, time_major)
    sequences = [tf.unstack(value) for value in flat_inputs]
    if go_backwards:
        sequences = [steps[::-1] for steps in sequences]
    iterations = time_steps
    if input_length is not None and not unroll:
        iterations = min(time_steps, int(tf.reduce_max(input_length)))
    states = tuple(initial_states)
    outputs, previous = [], None
    for t in range(iterations):
        output, new_states = step_function(tf.nest.pack_sequence_as(inputs, [steps[t] for steps in sequences]),
                                           tuple(states) + constants)
        if step_masks is not None:
            fallback = tf.nest.map_structure(tf.zeros_like, output) if zero_output_for_mask or previous is None \
                else previous
            output = tf.nest.map_structure(lambda new, old, keep=step_masks[t]: _masked(keep, new, old),
                                           output, fallback)
            flat_states = [_masked(step_masks[t], new, old)
                           for new, old in zip(tf.nest.flatten(new_states), tf.nest.flatten(states))]
            new_states = tf.nest.pack_sequence_as(states, flat_states)
        states, previous = new_states, output
        outputs = outputs + [output] if return_all_outputs else [output]
    if return_all_outputs and iterations < time_steps:  # Keras' unwritten TensorArray steps read as zeros
        outputs += [tf.nest.map_structure(tf.zeros_like, previous)] * (time_steps - iterations)
    stacked = tf.nest.map_structure(lambda *steps: tf.stack(steps), *outputs)
    last_output = tf.nest.map_structure(lambda steps: steps[-1], stacked)
    if not time_major:
        stacked = tf.nest.map_structure(_swap_batch_time, stacked)
    if step_masks is not None or not unroll:
        states = tuple(states)
    return last_output, stacked, states
