"""Normalization layers (BatchNormalization, LayerNormalization, GroupNormalization, RMSNormalization,
UnitNormalization) against real Keras 3.15.1: outputs and gradients, moving statistics after training calls (eager
and tf.function), masks, weights, configs and errors."""

import numpy as np
import pytest

from compat_tests.keras.core_harness import REAL, VFW, data, run, same
from compat_tests.keras.layers_b_harness import call_with_gradients, variable_values

X = data(4, 3, 6) * 2.0 + 1.0
MASK = np.array([[1, 1, 0], [1, 0, 0], [1, 1, 1], [0, 1, 1]], bool)

BATCH_NORMS = {
    "default": lambda k: k.layers.BatchNormalization(),
    "axis_1_momentum": lambda k: k.layers.BatchNormalization(axis=1, momentum=0.5, epsilon=0.01),
    "no_center_no_scale": lambda k: k.layers.BatchNormalization(center=False, scale=False),
    "synchronized": lambda k: k.layers.BatchNormalization(synchronized=True, gamma_initializer="random_normal"),
    "renorm": lambda k: k.layers.BatchNormalization(renorm=True, renorm_momentum=0.8, momentum=0.7,
                                                    renorm_clipping={"rmax": 1.2, "rmin": 0.9, "dmax": 0.1}),
    "frozen": lambda k: k.layers.BatchNormalization(trainable=False, moving_variance_initializer="random_uniform"),
}


@pytest.mark.parametrize("case", sorted(BATCH_NORMS))
def test_batch_normalization_training_and_moving_statistics(case):
    def fn(lib):
        lib.keras.utils.set_random_seed(0)
        layer = BATCH_NORMS[case](lib.keras)
        results = [call_with_gradients(lib, layer, [X], training=True),
                   call_with_gradients(lib, layer, [X * 0.5], training=True),
                   call_with_gradients(lib, layer, [X], training=True, mask=MASK),
                   call_with_gradients(lib, layer, [X])]
        return results + [variable_values(layer), [w.trainable for w in layer.weights]]
    same(fn, rtol=2e-5, atol=2e-5)


def test_batch_normalization_under_tf_function_and_in_models():
    x = data(8, 5)

    def fn(lib):
        keras, tf = lib.keras, lib.tf
        keras.utils.set_random_seed(1)
        model = keras.Sequential([keras.Input((5,)), keras.layers.Dense(4), keras.layers.BatchNormalization(),
                                  keras.layers.Dense(1)])

        @tf.function
        def train_step(t):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(model(t, training=True) ** 2)
            return loss, tape.gradient(loss, model.trainable_weights)

        first, second = train_step(tf.constant(x)), train_step(tf.constant(x * 2.0))
        symbolic = keras.layers.BatchNormalization()(keras.Input((3, 5)))
        return [first, second, variable_values(model), model(x), symbolic.shape]
    same(fn, rtol=2e-5, atol=2e-5)


def test_half_precision():
    x = (data(6, 4) * 3.0).astype("float16")

    def fn(lib):
        layers = lib.keras.layers
        batch_norm = layers.BatchNormalization(dtype="mixed_float16")
        others = [layers.LayerNormalization(dtype="mixed_float16"), layers.GroupNormalization(2, dtype="mixed_float16"),
                  layers.RMSNormalization(dtype="mixed_float16"), layers.UnitNormalization(dtype="float16")]
        return [batch_norm(x, training=True), batch_norm(x), variable_values(batch_norm),
                [layer(x) for layer in others], [[w.dtype for w in layer.weights] for layer in others]]
    same(fn, rtol=2e-3, atol=2e-3)


OTHER_NORMS = {
    "layer_norm": lambda k: k.layers.LayerNormalization(beta_initializer="random_normal"),
    "layer_norm_axes": lambda k: k.layers.LayerNormalization(axis=[1, 2], scale=False, epsilon=0.1),
    "layer_norm_axis_1": lambda k: k.layers.LayerNormalization(axis=1, gamma_initializer="random_uniform"),
    "layer_norm_rms_scaling": lambda k: k.layers.LayerNormalization(rms_scaling=True),
    "group_norm": lambda k: k.layers.GroupNormalization(groups=3, gamma_initializer="random_normal"),
    "group_norm_channels_first": lambda k: k.layers.GroupNormalization(groups=3, axis=1, center=False),
    "instance_norm": lambda k: k.layers.GroupNormalization(groups=-1, epsilon=0.5),
    "rms_norm": lambda k: k.layers.RMSNormalization(),
    "rms_norm_axes": lambda k: k.layers.RMSNormalization(axis=[-2, -1], epsilon=0.01),
    "unit_norm": lambda k: k.layers.UnitNormalization(),
    "unit_norm_axes": lambda k: k.layers.UnitNormalization(axis=(1, 2)),
}


@pytest.mark.filterwarnings("ignore:You passed `rms_scaling=True`")
@pytest.mark.parametrize("case", sorted(OTHER_NORMS))
def test_other_normalizations(case):
    def fn(lib):
        lib.keras.utils.set_random_seed(2)
        layer = OTHER_NORMS[case](lib.keras)
        before = layer.get_config()
        result = call_with_gradients(lib, layer, [X])
        symbolic = OTHER_NORMS[case](lib.keras)(lib.keras.Input((3, 6)))
        return [result, variable_values(layer), before, layer.get_config(), symbolic.shape,
                type(layer).from_config(layer.get_config()).get_config()["axis"]]
    same(fn, rtol=2e-5, atol=2e-5)


def test_configs_round_trip_and_masks():
    def fn(lib):
        keras = lib.keras
        layers = [keras.layers.BatchNormalization(axis=1, beta_regularizer="l2", gamma_constraint="non_neg"),
                  keras.layers.LayerNormalization(epsilon=0.1, center=False),
                  keras.layers.GroupNormalization(groups=2), keras.layers.RMSNormalization(epsilon=0.5),
                  keras.layers.UnitNormalization(axis=[1])]
        masked = keras.layers.Masking()(lib.tf.constant(X))
        return [[layer.get_config() for layer in layers],
                [type(layer).from_config(layer.get_config()).get_config() for layer in layers],
                keras.layers.BatchNormalization()(masked)._keras_mask,
                keras.layers.LayerNormalization()(masked)._keras_mask]
    same(fn)


@pytest.mark.parametrize("case", ["groups_value", "groups_divisor", "groups_too_many", "layer_norm_axis",
                                  "unit_norm_axis", "output_shape_axis", "unit_output_shape_axis", "renorm_keys",
                                  "bn_mask_rank", "bn_input_rank"])
def test_errors(case):
    def fn(lib):
        layers = lib.keras.layers
        x = np.ones((2, 3, 4), "float32")
        return {"groups_value": lambda: layers.GroupNormalization(groups=0),
                "groups_divisor": lambda: layers.GroupNormalization(groups=3)(x),
                "groups_too_many": lambda: layers.GroupNormalization(groups=8)(x),
                "layer_norm_axis": lambda: layers.LayerNormalization(axis="last"),
                "unit_norm_axis": lambda: layers.UnitNormalization(axis=1.5),
                "output_shape_axis": lambda: layers.LayerNormalization(axis=5).compute_output_shape((2, 3)),
                "unit_output_shape_axis": lambda: layers.UnitNormalization(axis=[3]).compute_output_shape((2, 3)),
                "renorm_keys": lambda: layers.BatchNormalization(renorm=True, renorm_clipping={"max": 2}),
                "bn_mask_rank": lambda: layers.BatchNormalization()(x, mask=np.ones((2, 3, 4), bool), training=True),
                "bn_input_rank": lambda: _built_then_called(layers.BatchNormalization(), x),
                }[case]()
    real, ours = run(fn, REAL), run(fn, VFW)
    assert real[0] == "raised" and ours[:2] == real[:2]
    assert ours[2].split("\x1b[1m")[-1].split("\x1b[0m")[0] == real[2].split("\x1b[1m")[-1].split("\x1b[0m")[0]


def _built_then_called(layer, x):
    layer(x)
    return layer(np.ones((2, 4), "float32"))
