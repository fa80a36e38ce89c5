"""SpectralNormalization and ReversibleEmbedding against real Keras 3.15.1: seeded weights (vector_u drawn alike),
training calls' power iterations and kernel assignments, inference calls, gradients, tied and untied reverse
projections, reverse_dtype, logit_soft_cap, masks, symbolic shapes, configs, errors, a short fit."""

import numpy as np
import pytest

from compat_tests.keras.core_harness import data, same
from compat_tests.keras.layers_b_harness import call_with_gradients, variable_values

IDS = np.array([[1, 4, 0, 2], [3, 3, 5, 0]], "int32")

SPECTRAL = {
    "dense": (lambda k: k.layers.SpectralNormalization(k.layers.Dense(4)), data(3, 5)),
    "dense_3_iterations": (lambda k: k.layers.SpectralNormalization(k.layers.Dense(3, use_bias=False),
                                                                    power_iterations=3), data(2, 4, 5, seed=1)),
    "conv2d": (lambda k: k.layers.SpectralNormalization(k.layers.Conv2D(3, 2)), data(2, 4, 4, 2, seed=2)),
    "zero_kernel": (lambda k: k.layers.SpectralNormalization(k.layers.Dense(2, kernel_initializer="zeros")),
                    data(2, 3, seed=3)),
}


@pytest.mark.parametrize("case", sorted(SPECTRAL))
def test_spectral_normalization(case):
    make_layer, x = SPECTRAL[case]

    def fn(lib):
        lib.keras.utils.set_random_seed(7)
        layer = make_layer(lib.keras)
        results = [call_with_gradients(lib, layer, [x], training=training) for training in (False, True, True)]
        return results + [variable_values(layer), [w.path for w in layer.trainable_weights]]
    same(fn, rtol=2e-5, atol=2e-5)


def test_spectral_normalization_embedding_fit_config_and_errors():
    x, y = data(8, 5, seed=4), data(8, 2, seed=5)

    def fn(lib):
        keras = lib.keras
        keras.utils.set_random_seed(1)
        wrapped = keras.layers.SpectralNormalization(keras.layers.Embedding(6, 3), power_iterations=2)
        embedded = [wrapped(IDS, training=True), variable_values(wrapped)]
        model = keras.Sequential([keras.Input((5,)), keras.layers.SpectralNormalization(keras.layers.Dense(2))])
        model.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse")
        history = model.fit(x, y, batch_size=4, epochs=2, shuffle=False, verbose=0)
        config = model.layers[0].get_config()
        out = [embedded, np.array(history.history["loss"]), model.get_weights(), config,
               keras.layers.SpectralNormalization.from_config(dict(config)).get_config() == config]
        for make in (lambda: keras.layers.SpectralNormalization(keras.layers.Dense(2), power_iterations=0),
                     lambda: keras.layers.SpectralNormalization(keras.layers.ReLU())(x),
                     lambda: keras.layers.SpectralNormalization("dense")):
            try:
                make()
            except ValueError as e:
                out.append(str(e))
        return out
    same(fn, rtol=1e-5, atol=1e-6)


REVERSIBLE = {
    "tied": {},
    "untied_mask_zero": {"tie_weights": False, "mask_zero": True},
    "soft_cap": {"logit_soft_cap": 0.5, "embeddings_initializer": "glorot_uniform"},
    "reverse_float16": {"reverse_dtype": "float16", "tie_weights": False},
}


@pytest.mark.parametrize("case", sorted(REVERSIBLE))
def test_reversible_embedding(case):
    def fn(lib):
        lib.keras.utils.set_random_seed(2)
        layer = lib.keras.layers.ReversibleEmbedding(6, 3, **REVERSIBLE[case])
        embedded = layer(IDS)
        hidden = data(2, 4, 3, seed=6)
        reverse = call_with_gradients(lib, layer, [hidden], reverse=True)
        inputs = lib.keras.Input((4,), dtype="int32")
        symbolic = layer(inputs)
        symbolic_reverse = layer(symbolic, reverse=True)
        return [embedded, getattr(embedded, "_keras_mask", None), reverse, variable_values(layer),
                tuple(symbolic.shape), tuple(symbolic_reverse.shape), symbolic_reverse.dtype,
                layer.compute_output_shape((2, 4, 3), reverse=True), layer.get_config()]
    same(fn, rtol=2e-5, atol=2e-5)


def test_reversible_embedding_in_a_model():
    def fn(lib):
        keras = lib.keras
        keras.utils.set_random_seed(3)
        embedding = keras.layers.ReversibleEmbedding(7, 4, tie_weights=False)
        inputs = keras.Input((4,), dtype="int32")
        logits = embedding(keras.layers.Dense(4)(embedding(inputs)), reverse=True)
        model = keras.Model(inputs, logits)
        model.compile(optimizer=keras.optimizers.Adam(0.01),
                      loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
        history = model.fit(IDS, IDS, epochs=3, verbose=0)
        clone = keras.layers.ReversibleEmbedding.from_config(embedding.get_config())
        return [np.array(history.history["loss"]), model.get_weights(), clone.get_config() == embedding.get_config()]
    same(fn, rtol=1e-5, atol=1e-6)
