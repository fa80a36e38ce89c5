"""Build a ``keras.applications`` model in real Keras 3.15.1 and in vfw, and compare structure and numerics.

- :func:`structure` is what users see of a built model: its name, parameter counts and per layer the
  class, name, output shape and the layers feeding it.
- :func:`assert_same_model` also copies the real model's (perturbed) weights into vfw's and compares predictions.
"""

import numpy as np

from compat_tests.keras.core_harness import REAL, VFW


def build(lib, function_name, **kwargs):
    """``lib.keras.applications.<function_name>(weights=None, **kwargs)`` after a fresh session."""
    lib.keras.backend.clear_session(free_memory=False)
    return getattr(lib.keras.applications, function_name)(weights=None, **kwargs)


def _parameter_count(weights):
    return int(sum(np.prod(w.shape) for w in weights))


def structure(model):
    """``(name, class, params, trainable params, layer rows)``; a row is ``(class, name, output shape, inputs)``."""
    rows = []
    for layer in model.layers:
        inputs = [t._keras_history[0].name for t in layer._inbound_nodes[0].input_tensors]
        rows.append((type(layer).__name__, layer.name, tuple(layer.output.shape), inputs))
    return (model.name, type(model).__name__, model.count_params(), _parameter_count(model.trainable_weights), rows)


def assert_same_structure(function_name, **kwargs):
    """Both libraries build ``function_name(**kwargs)`` with the same structure (asserted row by row)."""
    ours = structure(build(VFW, function_name, **kwargs))
    _assert_same_structure(ours, structure(build(REAL, function_name, **kwargs)))


def _assert_same_structure(ours, real):
    assert ours[:4] == real[:4]
    assert len(ours[4]) == len(real[4])
    for ours_row, real_row in zip(ours[4], real[4]):
        assert ours_row == real_row


def summary_lines(model):
    """``model.summary()``'s text, line by line."""
    lines = []
    model.summary(print_fn=lambda text, line_break=True: lines.append(text))
    return "\n".join(lines).splitlines()


def perturbed_weights(model, seed=0):
    """The model's weights moved away from their trivial initial values (BN statistics included), so that
    every parameter matters in the output, while staying well-conditioned (kernels keep their fan-in scale,
    so activations neither explode nor vanish through the depth and float32 rounding is not amplified);
    variances stay positive."""
    rng = np.random.default_rng(seed)
    result = []
    for variable, value in zip(model.weights, model.get_weights()):
        path = variable.path
        if path.endswith("variance"):
            new = rng.uniform(0.5, 1.5, value.shape)
        elif path.endswith("count"):
            new = value
        elif path.endswith("kernel"):
            new = value * (1 + 0.2 * rng.normal(size=value.shape))
        else:
            new = value + 0.1 * rng.normal(size=value.shape)
        result.append(np.asarray(new, dtype=value.dtype))
    return result


def assert_same_model(function_name, input_shape, rtol=1e-4, batch=2, **kwargs):
    """Both libraries build ``function_name(input_shape=input_shape, **kwargs)`` with the same structure, and
    with the same (perturbed) weights give the same predictions on random images.

    The comparison is relative to the largest output magnitude (deep random nets vary widely in scale).
    Returns ``(real model, vfw model)`` for further checks.
    """
    real_model = build(REAL, function_name, input_shape=input_shape, **kwargs)
    vfw_model = build(VFW, function_name, input_shape=input_shape, **kwargs)
    _assert_same_structure(structure(vfw_model), structure(real_model))
    weights = perturbed_weights(real_model)
    real_model.set_weights(weights)
    vfw_model.set_weights(weights)
    images = np.random.default_rng(1).uniform(0, 255, size=(batch,) + tuple(input_shape)).astype("float32")
    expected = np.asarray(real_model(images, training=False))
    got = np.asarray(vfw_model(images, training=False))
    assert got.shape == expected.shape
    scale = max(float(np.max(np.abs(expected))), 1e-30)
    np.testing.assert_allclose(got / scale, expected / scale, rtol=0, atol=rtol)
    return real_model, vfw_model
