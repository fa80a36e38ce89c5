"""Case builders for the layer tests (convolution, pooling, reshaping, merging, activations) against real Keras.

Each builder is a function of ``lib`` (``core_harness.REAL`` or ``VFW``) returning plain results that
``core_harness.same`` compares between the two libraries.
"""

import numpy as np

from compat_tests.keras.core_harness import data


def outputs_and_gradients(lib, make_layer, inputs, weights=None, float_inputs=True):
    """The layer's output on ``inputs`` (an array or a list of arrays), its weight paths and the
    GradientTape gradients of a weighted sum of the output with respect to the weights and the inputs.

    ``weights`` (arrays) replace the layer's initial weights when given (the same values on both sides).
    """
    layer = make_layer(lib)
    listed = isinstance(inputs, list)
    tensors = [lib.tf.constant(x) for x in (inputs if listed else [inputs])]
    layer(tensors if listed else tensors[0])
    if weights is not None:
        layer.set_weights(weights)
    with lib.tf.GradientTape() as tape:
        if float_inputs:
            for x in tensors:
                tape.watch(x)
        y = layer(tensors if listed else tensors[0])
        ramp = lib.tf.reshape(lib.tf.cast(lib.tf.range(1, 1 + lib.tf.size(y)), y.dtype), lib.tf.shape(y))
        loss = lib.tf.reduce_sum(y * ramp / lib.tf.cast(lib.tf.size(y), y.dtype))
    sources = list(layer.trainable_weights) + (tensors if float_inputs else [])
    gradients = [g if g is None else lib.tf.convert_to_tensor(g) for g in tape.gradient(loss, sources)]
    return [y, [w.path for w in layer.weights], [tuple(w.shape) for w in layer.weights]] + gradients


def random_weights(make_layer, lib, input_shape):
    """Standard normal arrays shaped as the weights ``make_layer(lib)`` creates for ``input_shape``."""
    layer = make_layer(lib)
    layer.build(input_shape)
    return [data(*w.shape, seed=i + 1) for i, w in enumerate(layer.weights)]


def seeded_initial_weights(lib, make_layer, input_shape, seed=3):
    """The weights a layer starts with after ``keras.utils.set_random_seed(seed)``."""
    lib.keras.utils.set_random_seed(seed)
    layer = make_layer(lib)
    layer.build(input_shape)
    return [np.asarray(w) for w in layer.get_weights()]


def symbolic(lib, make_layer, *shapes, dtype="float32"):
    """Output shape(s) and dtype(s) of the layer called on ``keras.Input``s of ``shapes`` (batch excluded)."""
    inputs = [lib.keras.Input(shape, dtype=dtype) for shape in shapes]
    y = make_layer(lib)(inputs if len(inputs) > 1 else inputs[0])
    return [(tuple(t.shape), str(t.dtype)) for t in (y if isinstance(y, (list, tuple)) else [y])]


def config_round_trip(lib, make_layer):
    """The layer's config, the config of the layer rebuilt from it, and its ``serialize`` form."""
    layer = make_layer(lib)
    config = layer.get_config()
    clone = type(layer).from_config(config)
    return [config, clone.get_config(), lib.keras.layers.serialize(layer)]


def error_text(lib, fn):
    """``(type name, message)`` of the exception ``fn(lib)`` raises (the bold part when Keras reports a call;
    without the ``{{function_node ...}}`` prefix real TF gives some kernel errors)."""
    try:
        fn(lib)
    except Exception as e:  # compared with the other library's
        message = str(e)
        if "\x1b[1m" in message:
            message = message.split("\x1b[1m")[1].split("\x1b[0m")[0]
        if message.startswith("{{function_node"):
            message = message.split("}} ", 1)[1]
        return type(e).__name__, message
    return None
