"""keras.utils.get_source_inputs against Keras 3.15.1: the same Input tensors (by name and identity) for the same
functional graphs, and values without Keras history returned as they are."""

import os

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
keras_real = pytest.importorskip("keras")

from vfw.tensorflow import keras as keras_vfw  # noqa: E402


def _graph_outcomes(keras):
    a, b = keras.Input((3,), name="a"), keras.Input((3,), name="b")
    x = keras.layers.Dense(2)(a)
    y = keras.layers.Add()([x, keras.layers.Dense(2)(b)])
    z = keras.layers.Concatenate()([y, a, b])
    model = keras.Model([a, b], z)
    reused = model([keras.Input((3,), name="c"), keras.Input((3,), name="d")])
    get = keras.utils.get_source_inputs
    names = {key: [t.name for t in get(t)] for key, t in
             {"input": a, "dense": x, "add": y, "concat": z, "reused": reused, "model_output": model.outputs[0],
              "head": keras.layers.Dense(1)(reused)}.items()}
    identities = [get(a)[0] is a, get(z)[0] is a, get(z)[1] is b]
    return names, identities


def test_functional_graphs():
    assert _graph_outcomes(keras_vfw) == _graph_outcomes(keras_real)


@pytest.mark.parametrize("make", [lambda keras: np.zeros(3), lambda keras: keras.KerasTensor((2, 3)),
                                  lambda keras: [1, 2]])
def test_values_without_history(make):
    def outcome(keras):
        value = make(keras)
        result = keras.utils.get_source_inputs(value)
        return type(result).__name__, result is value or (isinstance(result, list) and result[0] is value)
    assert outcome(keras_vfw) == outcome(keras_real)
