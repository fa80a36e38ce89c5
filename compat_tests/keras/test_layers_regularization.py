"""Regularization layers (Dropout, SpatialDropout1D/2D/3D, GaussianNoise, GaussianDropout, AlphaDropout,
ActivityRegularization) against real Keras 3.15.1: Keras' exact random draws after set_random_seed (and with a
layer seed), inference pass-through, gradients, seed generator variables, masks, configs and errors."""

import numpy as np
import pytest

from compat_tests.keras.core_harness import REAL, VFW, data, run, same
from compat_tests.keras.layers_b_harness import call_with_gradients, variable_values

LAYERS = {
    "dropout": (lambda k: k.layers.Dropout(0.4), (3, 4, 5)),
    "dropout_noise_shape_seed": (lambda k: k.layers.Dropout(0.5, noise_shape=(None, 1, 5), seed=7), (3, 4, 5)),
    "dropout_rate_1": (lambda k: k.layers.Dropout(1.0), (2, 3)),
    "spatial_1d": (lambda k: k.layers.SpatialDropout1D(0.5), (3, 4, 5)),
    "spatial_2d": (lambda k: k.layers.SpatialDropout2D(0.5), (2, 3, 4, 5)),
    "spatial_2d_channels_first": (lambda k: k.layers.SpatialDropout2D(0.5, data_format="channels_first", seed=1),
                                  (2, 3, 4, 5)),
    "spatial_3d": (lambda k: k.layers.SpatialDropout3D(0.3), (2, 3, 2, 2, 4)),
    "gaussian_noise": (lambda k: k.layers.GaussianNoise(0.3), (3, 4)),
    "gaussian_dropout": (lambda k: k.layers.GaussianDropout(0.3, seed=2), (3, 4)),
    "alpha_dropout": (lambda k: k.layers.AlphaDropout(0.3), (3, 4, 5)),
    "alpha_dropout_noise_shape": (lambda k: k.layers.AlphaDropout(0.4, noise_shape=(None, 1, 5)), (3, 4, 5)),
}


@pytest.mark.parametrize("case", sorted(LAYERS))
def test_random_layers_draw_keras_numbers(case):
    make, shape = LAYERS[case]
    x = data(*shape)

    def fn(lib):
        lib.keras.utils.set_random_seed(5)
        layer = make(lib.keras)
        return [call_with_gradients(lib, layer, [x], training=True),
                call_with_gradients(lib, layer, [x], training=True), layer(x), layer(x, training=False),
                variable_values(layer), layer.get_config(), layer.compute_output_shape(shape), layer.built]
    same(fn)


def test_random_layers_under_tf_function_and_in_models():
    x = data(4, 6)

    def fn(lib):
        keras = lib.keras
        keras.utils.set_random_seed(1)
        model = keras.Sequential([keras.Input((6,)), keras.layers.Dense(5), keras.layers.Dropout(0.5),
                                  keras.layers.GaussianNoise(0.2), keras.layers.Dense(1)])
        step = lib.tf.function(lambda t: model(t, training=True))
        return [step(lib.tf.constant(x)), step(lib.tf.constant(x)), model(x), model(x, training=True),
                variable_values(model)]
    same(fn)


def test_masks_pass_through():
    x = data(2, 3, 4)
    x[0, 2] = 0.0

    def fn(lib):
        keras = lib.keras
        masked = keras.layers.Masking()(lib.tf.constant(x))
        return [keras.layers.Dropout(0.5)(masked, training=True)._keras_mask,
                keras.layers.GaussianNoise(0.1)(masked)._keras_mask,
                keras.layers.ActivityRegularization(0.1)(masked)._keras_mask]
    same(fn)


def test_activity_regularization():
    x = data(3, 4)

    def fn(lib):
        keras = lib.keras
        layer = keras.layers.ActivityRegularization(l1=0.1, l2=0.2)
        y = layer(x)
        inputs = keras.Input((4,))
        model = keras.Model(inputs, keras.layers.ActivityRegularization(l2=0.5)(keras.layers.Dense(2)(inputs)))
        model(x)
        return [y, layer.losses, layer.get_config(), len(model.losses)]
    same(fn)


@pytest.mark.parametrize("case", ["rate", "rate_negative", "noise_shape_str", "noise_shape_value", "noise_shape_type",
                                  "stddev", "gaussian_dropout_rate", "alpha_rate", "spatial_rank"])
def test_errors(case):
    def fn(lib):
        layers = lib.keras.layers
        return {"rate": lambda: layers.Dropout(1.5), "rate_negative": lambda: layers.Dropout(-0.1),
                "noise_shape_str": lambda: layers.Dropout(0.5, noise_shape="abc"),
                "noise_shape_value": lambda: layers.Dropout(0.5, noise_shape=(2, 0)),
                "noise_shape_type": lambda: layers.Dropout(0.5, noise_shape=(2, 1.5)),
                "stddev": lambda: layers.GaussianNoise(2.0), "gaussian_dropout_rate": lambda: layers.GaussianDropout(3),
                "alpha_rate": lambda: layers.AlphaDropout(-1),
                "spatial_rank": lambda: layers.SpatialDropout2D(0.5)(np.ones((2, 3), "float32"))}[case]()
    real, ours = run(fn, REAL), run(fn, VFW)
    assert real[0] == "raised" and ours[:2] == real[:2]
    assert ours[2].split("\x1b[1m")[-1].split("\x1b[0m")[0] == real[2].split("\x1b[1m")[-1].split("\x1b[0m")[0]
