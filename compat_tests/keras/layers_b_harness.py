"""Shared steps of the layer tests (normalization, regularization, recurrent, attention, preprocessing): one layer
call with GradientTape gradients, written once against ``lib.keras`` / ``lib.tf`` (see ``core_harness``)."""

import numpy as np


def ramp_loss(lib, outputs):
    """A scalar loss that weights every output element differently (so gradients see each one)."""
    tf = lib.tf
    total = 0.0
    for y in outputs:
        ramp = tf.reshape(tf.cast(tf.range(1, 1 + tf.size(y)), y.dtype), tf.shape(y))
        total = total + tf.reduce_sum(y * ramp / tf.cast(tf.size(y), y.dtype))
    return total


def call_with_gradients(lib, layer, inputs, watch=True, **call_kwargs):
    """``[outputs, gradients]`` of ``layer(*inputs, **call_kwargs)``: the outputs (a list) and the gradients of
    ``ramp_loss`` with respect to the layer's trainable weights and (``watch``) its float inputs."""
    tf = lib.tf
    tensors = [tf.constant(x) for x in inputs]
    watched = [t for t in tensors if watch and t.dtype.is_floating]
    with tf.GradientTape() as tape:
        for t in watched:
            tape.watch(t)
        result = layer(*tensors, **call_kwargs)
        outputs = list(result) if isinstance(result, (list, tuple)) else [result]
        loss = ramp_loss(lib, [y for y in outputs if y.dtype.is_floating])
    gradients = tape.gradient(loss, list(layer.trainable_weights) + watched)
    return [outputs, [None if g is None else tf.convert_to_tensor(g) for g in gradients]]


def variable_values(layer):
    """``[(path, value)]`` of every variable of ``layer`` (weights and seed generator states)."""
    return [(v.path, np.asarray(v.numpy())) for v in layer.variables]
