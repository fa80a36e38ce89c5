"""Fixes found running round 7 of the TF/Keras programs (compat_tests/programs/tf_more6) under vfw, against real
Keras 3.15.1: ``keras.models.model_from_json`` inside a ``custom_object_scope`` finds the scope's classes."""

import numpy as np

from compat_tests.keras.core_harness import REAL, VFW, data


def _rebuilt_in_scope(lib):
    keras = lib.keras

    class Doubling(keras.layers.Layer):
        def __init__(self, factor=2.0, **kwargs):
            super().__init__(**kwargs)
            self.factor = factor

        def call(self, inputs):
            return inputs * self.factor

        def get_config(self):
            return {**super().get_config(), "factor": self.factor}

    keras.utils.set_random_seed(3)
    model = keras.Sequential([keras.Input((3,)), Doubling(3.0, name="doubling"), keras.layers.Dense(2)])
    with keras.saving.custom_object_scope({"Doubling": Doubling}):
        rebuilt = keras.models.model_from_json(model.to_json())
    rebuilt.set_weights(model.get_weights())
    return [type(rebuilt.get_layer("doubling")).__name__, rebuilt.get_layer("doubling").factor,
            rebuilt(data(2, 3, seed=1)).numpy()]


def test_model_from_json_in_a_custom_object_scope():
    got, want = _rebuilt_in_scope(VFW), _rebuilt_in_scope(REAL)
    assert got[:2] == want[:2]
    np.testing.assert_allclose(got[2], want[2], rtol=1e-6, atol=1e-7)
