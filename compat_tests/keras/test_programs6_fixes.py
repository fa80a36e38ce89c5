"""Fixes found running round 6 of the keras.io example programs (compat_tests/programs/tf_more5) under vfw, against
real Keras 3.15.1: Dropout with a ``noise_shape`` holding None inside a traced step (``fit``, ``tf.function``),
where the None dims become symbolic ``tf.shape`` entries."""

import numpy as np

from compat_tests.keras.core_harness import REAL, VFW, data


def _dropout_traced(lib):
    keras, tf = lib.keras, lib.tf
    keras.utils.set_random_seed(5)
    layer = keras.layers.Dropout(0.5, noise_shape=(None, 1, 1, 3), seed=11)

    @tf.function
    def drop(x):
        return layer(x, training=True)

    x = tf.constant(data(4, 2, 2, 3, seed=1))
    return [drop(x).numpy(), drop(x).numpy()]


def test_dropout_noise_shape_with_none_in_tf_function():
    for got, want in zip(_dropout_traced(VFW), _dropout_traced(REAL)):
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)


def _fit_with_noise_shape(lib):
    keras = lib.keras
    keras.utils.set_random_seed(9)
    model = keras.Sequential([keras.Input((3, 3, 2)), keras.layers.Conv2D(2, 1),
                              keras.layers.Dropout(0.5, noise_shape=(None, 1, 1, 1)), keras.layers.Flatten(),
                              keras.layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
    x, y = data(16, 3, 3, 2, seed=2), data(16, 1, seed=3)
    return model.fit(x, y, batch_size=4, epochs=2, verbose=0, shuffle=False).history["loss"]


def test_fit_with_dropout_noise_shape_with_none():
    np.testing.assert_allclose(_fit_with_noise_shape(VFW), _fit_with_noise_shape(REAL), rtol=1e-5, atol=1e-6)
