"""Convolution layers (Conv1D/2D/3D, their transposes, DepthwiseConv1D/2D, SeparableConv1D/2D) against real
Keras 3.15.1: outputs and gradients with copied weights, seeded initial weights, symbolic shapes, configs, errors."""

import numpy as np
import pytest

from compat_tests.keras.core_harness import REAL, VFW, data, same
from compat_tests.keras.layers_harness import (
    config_round_trip,
    error_text,
    outputs_and_gradients,
    random_weights,
    seeded_initial_weights,
    symbolic,
)

CASES = {
    "conv1d": ("Conv1D", dict(filters=4, kernel_size=3), (2, 9, 3)),
    "conv1d_causal_dilated": ("Conv1D", dict(filters=2, kernel_size=3, padding="causal", dilation_rate=2), (2, 9, 3)),
    "conv1d_causal_first": ("Conv1D", dict(filters=2, kernel_size=2, padding="causal", data_format="channels_first"),
                            (2, 3, 6)),
    "conv1d_strided_same": ("Conv1D", dict(filters=3, kernel_size=4, strides=3, padding="same"), (2, 10, 2)),
    "conv2d_same_relu": ("Conv2D", dict(filters=4, kernel_size=3, padding="same", activation="relu"), (2, 6, 6, 3)),
    "conv2d_first_strided": ("Conv2D", dict(filters=4, kernel_size=(2, 3), strides=2, data_format="channels_first"),
                             (2, 3, 7, 6)),
    "conv2d_groups_dilated": ("Conv2D", dict(filters=6, kernel_size=3, groups=3, dilation_rate=2, use_bias=False),
                              (2, 9, 9, 6)),
    "conv3d": ("Conv3D", dict(filters=2, kernel_size=2, padding="same"), (1, 3, 4, 4, 2)),
    "conv3d_first": ("Conv3D", dict(filters=2, kernel_size=(1, 2, 2), data_format="channels_first"), (1, 2, 3, 4, 4)),
    "conv1d_transpose": ("Conv1DTranspose", dict(filters=3, kernel_size=3, strides=2, output_padding=1), (2, 4, 2)),
    "conv2d_transpose_same": ("Conv2DTranspose", dict(filters=3, kernel_size=3, strides=2, padding="same"),
                              (2, 4, 4, 2)),
    "conv2d_transpose_first": ("Conv2DTranspose", dict(filters=2, kernel_size=(2, 3), strides=(1, 2),
                                                       data_format="channels_first", activation="sigmoid"),
                               (2, 3, 4, 4)),
    "conv2d_transpose_dilated": ("Conv2DTranspose", dict(filters=2, kernel_size=2, dilation_rate=2), (1, 3, 3, 2)),
    "conv3d_transpose": ("Conv3DTranspose", dict(filters=2, kernel_size=2, strides=2), (1, 2, 2, 2, 2)),
    "depthwise1d_first": ("DepthwiseConv1D", dict(kernel_size=3, depth_multiplier=2, data_format="channels_first"),
                          (2, 3, 7)),
    "depthwise2d": ("DepthwiseConv2D", dict(kernel_size=3, depth_multiplier=2, padding="same"), (2, 5, 5, 3)),
    "depthwise2d_strided": ("DepthwiseConv2D", dict(kernel_size=2, strides=2, use_bias=False), (2, 6, 6, 2)),
    "separable1d": ("SeparableConv1D", dict(filters=4, kernel_size=3, depth_multiplier=2), (2, 7, 3)),
    "separable2d_same": ("SeparableConv2D", dict(filters=4, kernel_size=3, padding="same", activation="tanh"),
                         (2, 5, 5, 3)),
    "separable2d_first_dilated": ("SeparableConv2D", dict(filters=2, kernel_size=2, dilation_rate=2,
                                                          data_format="channels_first"), (1, 3, 6, 6)),
}


def _maker(name, kwargs):
    return lambda lib: getattr(lib.keras.layers, name)(**kwargs)


@pytest.mark.parametrize("case", sorted(CASES))
def test_outputs_and_gradients(case):
    name, kwargs, shape = CASES[case]
    make = _maker(name, kwargs)
    x = data(*shape)
    weights = random_weights(make, VFW, shape)
    same(lambda lib: outputs_and_gradients(lib, make, x, weights), rtol=2e-5, atol=2e-5)


@pytest.mark.parametrize("case", ["conv1d", "conv2d_groups_dilated", "conv3d", "conv2d_transpose_first",
                                  "depthwise2d", "separable2d_same"])
def test_seeded_initial_weights(case):
    name, kwargs, shape = CASES[case]
    same(lambda lib: seeded_initial_weights(lib, _maker(name, kwargs), shape))


@pytest.mark.parametrize("case", sorted(CASES))
def test_symbolic_shapes_with_unknown_dims(case):
    name, kwargs, shape = CASES[case]
    first = kwargs.get("data_format") == "channels_first"
    unknown = (shape[1],) + (None,) * (len(shape) - 2) if first else (None,) * (len(shape) - 2) + (shape[-1],)
    same(lambda lib: [symbolic(lib, _maker(name, kwargs), shape[1:]), symbolic(lib, _maker(name, kwargs), unknown)])


@pytest.mark.parametrize("case", sorted(CASES))
def test_config_round_trip(case):
    name, kwargs, _ = CASES[case]
    same(lambda lib: config_round_trip(lib, _maker(name, kwargs)))


def test_configs_with_regularizers_and_constraints():
    def fn(lib):
        keras = lib.keras
        conv = keras.layers.Conv2D(3, 2, kernel_regularizer="l2", bias_regularizer=keras.regularizers.L1(0.1),
                                   activity_regularizer="l1", kernel_constraint="non_neg", name="c")
        separable = keras.layers.SeparableConv1D(2, 3, depthwise_regularizer="l2", pointwise_constraint="unit_norm",
                                                 activity_regularizer="l2")
        depthwise = keras.layers.DepthwiseConv2D(2, depthwise_initializer="he_normal", activity_regularizer="l1")
        transpose = keras.layers.Conv3DTranspose(2, 2, output_padding=(0, 1, 0), strides=2, bias_constraint="non_neg")
        return [layer.get_config() for layer in (conv, separable, depthwise, transpose)]
    same(fn)


def test_regularization_losses():
    x = data(2, 5, 5, 3)

    def fn(lib):
        layer = lib.keras.layers.Conv2D(2, 3, kernel_regularizer=lib.keras.regularizers.L2(0.1),
                                        activity_regularizer=lib.keras.regularizers.L1(0.01))
        layer(x)
        layer.set_weights([data(3, 3, 3, 2, seed=1), data(2, seed=2)])
        layer(x)
        return [lib.tf.add_n(layer.losses)]
    same(fn)


def test_lora():
    x = data(2, 5, 3)

    def fn(lib):
        layer = lib.keras.layers.Conv1D(4, 3, lora_rank=2, lora_alpha=3)
        layer.build((None, 5, 3))
        layer.set_weights([data(3, 3, 4, seed=1), data(4, seed=2), data(3, 3, 2, seed=3), data(2, 4, seed=4)])
        return [[(w.path, w.trainable) for w in layer.weights], layer(x), layer.kernel, layer.get_config()["lora_rank"]]
    same(fn)


def test_functional_model_and_aliases():
    x = data(2, 8, 8, 3)

    def fn(lib):
        keras = lib.keras
        inputs = keras.Input((8, 8, 3))
        h = keras.layers.Convolution2D(4, 3, padding="same", activation="relu")(inputs)
        h = keras.layers.SeparableConvolution2D(4, 3)(h)
        h = keras.layers.Convolution2DTranspose(2, 3, strides=2)(h)
        model = keras.Model(inputs, h)
        weights = [data(*w.shape, seed=i) for i, w in enumerate(model.weights)]
        model.set_weights(weights)
        return [tuple(h.shape), model(x), [w.path for w in model.weights]]
    same(fn, rtol=2e-5, atol=2e-5)


def test_mixed_precision():
    x = data(2, 6, 6, 2)

    def fn(lib):
        layer = lib.keras.layers.Conv2D(3, 3, dtype="mixed_float16")
        layer.build((None, 6, 6, 2))
        layer.set_weights([data(3, 3, 2, 3, seed=1), data(3, seed=2)])
        y = layer(x)
        return [y, layer.kernel.dtype]
    same(fn, rtol=2e-3, atol=2e-3)


ERRORS = {
    "filters": lambda lib: lib.keras.layers.Conv2D(0, 3),
    "groups": lambda lib: lib.keras.layers.Conv2D(4, 3, groups=0),
    "filters_groups": lambda lib: lib.keras.layers.Conv2D(4, 3, groups=3),
    "kernel_zero": lambda lib: lib.keras.layers.Conv2D(4, (0, 3)),
    "kernel_length": lambda lib: lib.keras.layers.Conv2D(4, (1, 2, 3)),
    "kernel_type": lambda lib: lib.keras.layers.Conv1D(4, "a"),
    "strides_zero": lambda lib: lib.keras.layers.Conv2D(4, 3, strides=(1, 0)),
    "strides_with_dilation": lambda lib: lib.keras.layers.Conv2D(4, 3, strides=2, dilation_rate=2),
    "padding": lambda lib: lib.keras.layers.Conv2D(4, 3, padding="full"),
    "causal_2d": lambda lib: lib.keras.layers.Conv2D(4, 3, padding="causal"),
    "data_format": lambda lib: lib.keras.layers.Conv2D(4, 3, data_format="nhwc"),
    "kernel_checked_before_data_format": lambda lib: lib.keras.layers.SeparableConv2D(4, (1, 2, 3), data_format="x"),
    "padding_checked_before_data_format": lambda lib: lib.keras.layers.Conv2DTranspose(4, 3, padding="x",
                                                                                        data_format="x"),
    "output_padding": lambda lib: lib.keras.layers.Conv2DTranspose(4, 3, strides=2, output_padding=2),
    "depth_multiplier": lambda lib: lib.keras.layers.DepthwiseConv2D(3, depth_multiplier=0),
    "separable_strides": lambda lib: lib.keras.layers.SeparableConv2D(2, 3, strides=0),
    "input_channels_groups": lambda lib: lib.keras.layers.Conv2D(4, 3, groups=2)(np.zeros((1, 5, 5, 3), "float32")),
    "input_too_small": lambda lib: lib.keras.layers.Conv2D(4, 5)(np.zeros((1, 3, 3, 2), "float32")),
    "input_rank": lambda lib: lib.keras.layers.Conv2D(4, 3)(np.zeros((3, 3, 2), "float32")),
    "input_channels_changed": lambda lib: _call_twice(lib.keras.layers.Conv1D(2, 2), (1, 4, 3), (1, 4, 2)),
    "symbolic_too_small": lambda lib: lib.keras.layers.Conv1D(2, 4)(lib.keras.Input((3, 2))),
}


def _call_twice(layer, shape1, shape2):
    layer(np.zeros(shape1, "float32"))
    return layer(np.zeros(shape2, "float32"))


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors(case):
    real, ours = error_text(REAL, ERRORS[case]), error_text(VFW, ERRORS[case])
    assert real is not None and ours == real


def test_training_steps_in_tf_function():
    """A small CNN trained by hand-written SGD steps inside tf.function: the same losses and final weights."""
    x, y = data(4, 8, 8, 2), data(4, 3, seed=9)

    def fn(lib):
        keras, tf = lib.keras, lib.tf
        model = keras.Sequential([keras.Input((8, 8, 2)), keras.layers.Conv2D(4, 3, padding="same", activation="relu"),
                                  keras.layers.DepthwiseConv2D(3, depth_multiplier=2, data_format="channels_last"),
                                  keras.layers.MaxPooling2D(), keras.layers.Conv2DTranspose(2, 2, strides=2),
                                  keras.layers.GlobalAveragePooling2D(), keras.layers.Dense(3)])
        model.set_weights([data(*w.shape, seed=i) * 0.3 for i, w in enumerate(model.weights)])

        @tf.function
        def step(inputs, targets):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(model(inputs) - targets))
            for weight, gradient in zip(model.trainable_weights, tape.gradient(loss, model.trainable_weights)):
                weight.assign_sub(0.1 * gradient)
            return loss

        losses = [step(x, y) for _ in range(3)]
        return [losses, model.get_weights()]
    same(fn, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name, kwargs, shape, tolerance", [
    ("Conv2D", dict(filters=2, kernel_size=2, dtype="float64"), (1, 4, 4, 2), 1e-6),
    ("SeparableConv1D", dict(filters=2, kernel_size=2, dtype="float64"), (1, 5, 2), 1e-6),
    ("Conv1DTranspose", dict(filters=2, kernel_size=2, dtype="float16"), (1, 5, 2), 1e-2),
    ("DepthwiseConv2D", dict(kernel_size=2, dtype="mixed_bfloat16"), (1, 4, 4, 2), 2e-2),
])
def test_other_dtypes(name, kwargs, shape, tolerance):
    make = _maker(name, kwargs)
    x = data(*shape)
    weights = random_weights(make, VFW, shape)
    same(lambda lib: outputs_and_gradients(lib, make, x, weights), rtol=tolerance, atol=tolerance)
