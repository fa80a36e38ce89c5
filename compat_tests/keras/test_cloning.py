"""``keras.models.clone_model`` against real Keras 3.15.1: the same clones (configs, weights' shapes, new
variables, compiled state) and errors for Sequential, Functional and subclassed models."""

import json

import numpy as np
import pytest

from compat_tests.keras.saving_harness import (
    INPUTS,
    VFW,
    functional,
    outputs,
    reset,
    same_outcome,
    sequential,
    subclassed,
    without_shared_ids,
)


def compiled_sequential(lib):
    model = sequential(lib)
    model.compile(optimizer=lib.keras.optimizers.Adam(0.01), loss="mse", metrics=["mae"])
    return model


def _clone_summary(original, clone):
    """What a clone is: its config, its weights' shapes, whether it shares variables with the original."""
    own = {id(v) for v in original.weights}
    return (without_shared_ids(json.loads(clone.to_json())), [tuple(w.shape) for w in clone.weights],
            any(id(v) in own for v in clone.weights), clone.compiled)


def _relu_dense(lib):
    def clone_function(layer):
        config = layer.get_config()
        if "activation" in config:
            config["activation"] = "relu"
        return layer.__class__.from_config(config)

    return clone_function


def _dropout_after_dense(lib):
    def call_function(layer, *args, **kwargs):
        outputs = layer(*args, **kwargs)
        if isinstance(layer, lib.keras.layers.Dense):
            outputs = lib.keras.layers.Dropout(0.5)(outputs)
        return outputs

    return call_function


@pytest.mark.parametrize("case", [
    lambda lib: (sequential(lib), {}),
    lambda lib: (sequential(lib), {"clone_function": _relu_dense(lib)}),
    lambda lib: (sequential(lib), {"input_tensors": lib.keras.Input((3,), name="new_input")}),
    lambda lib: (sequential(lib), {"input_tensors": [lib.keras.Input((3,)), lib.keras.Input((3,))]}),
    lambda lib: (sequential(lib), {"call_function": _dropout_after_dense(lib)}),
    lambda lib: (functional(lib), {}),
    lambda lib: (functional(lib), {"recursive": True, "clone_function": _relu_dense(lib)}),
    lambda lib: (functional(lib), {"clone_function": lambda layer: layer}),
    lambda lib: (functional(lib), {"clone_function": lambda layer: layer, "call_function": _dropout_after_dense(lib)}),
    lambda lib: (functional(lib), {"input_tensors": {"a": lib.keras.Input((3,), name="a2"),
                                                     "b": lib.keras.Input((2,), name="b2")}}),
    lambda lib: (functional(lib), {"input_tensors": [lib.keras.Input((3,))]}),
    lambda lib: (subclassed(lib), {}),
    lambda lib: (subclassed(lib), {"clone_function": _relu_dense(lib)}),
    lambda lib: (compiled_sequential(lib), {}),
    lambda lib: (sequential(lib), {"cache_size": 1}),
], ids=lambda f: "")
def test_clone_model(case):
    def fn(lib):
        model, kwargs = case(lib)
        return _clone_summary(model, lib.keras.models.clone_model(model, **kwargs))

    same_outcome(fn)


def test_clone_has_the_architecture_not_the_weights():
    reset(VFW)
    model = functional(VFW)
    clone = VFW.keras.models.clone_model(model)
    clone.set_weights(model.get_weights())
    for a, b in zip(outputs(model, INPUTS[functional]), outputs(clone, INPUTS[functional])):
        np.testing.assert_array_equal(b, a)
