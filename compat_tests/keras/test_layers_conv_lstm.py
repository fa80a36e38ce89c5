"""ConvLSTM1D/2D/3D against real Keras 3.15.1: seeded initial weights, outputs, states and gradients (training or
not, masked or not: the dropout masks drawn alike), paddings, strides, dilations, channels_first, go_backwards,
stateful, configs, output shapes, a short fit, errors."""

import inspect

import numpy as np
import pytest

from compat_tests.keras.core_harness import REAL, VFW, data, same
from compat_tests.keras.layers_b_harness import call_with_gradients, variable_values

X2 = data(2, 3, 5, 4, 2)


def step_mask(x):
    """A ``[2, time]`` mask hiding the last step of the first sequence and the second step of the other."""
    steps = np.arange(x.shape[1])
    return np.stack([steps != x.shape[1] - 1, steps != 1])


LAYERS = {
    "2d_same_sequences": (lambda k: k.layers.ConvLSTM2D(3, 3, padding="same", return_sequences=True), X2),
    "2d_valid_states": (lambda k: k.layers.ConvLSTM2D(2, (3, 2), return_state=True), X2),
    "2d_strides_backwards": (lambda k: k.layers.ConvLSTM2D(2, 2, strides=(2, 1), go_backwards=True,
                                                           return_sequences=True, return_state=True), X2),
    "2d_dilation_no_bias": (lambda k: k.layers.ConvLSTM2D(2, 2, dilation_rate=2, padding="same", use_bias=False,
                                                          unit_forget_bias=False, activation="relu",
                                                          recurrent_activation="hard_sigmoid"), X2),
    "2d_dropouts": (lambda k: k.layers.ConvLSTM2D(2, 3, padding="same", dropout=0.3, recurrent_dropout=0.4,
                                                  return_sequences=True), X2),
    "2d_channels_first": (lambda k: k.layers.ConvLSTM2D(2, 2, data_format="channels_first", return_state=True),
                          data(2, 3, 2, 5, 4, seed=1)),
    "1d": (lambda k: k.layers.ConvLSTM1D(3, 3, padding="same", dropout=0.5, return_sequences=True),
           data(2, 4, 6, 2, seed=2)),
    "1d_strides": (lambda k: k.layers.ConvLSTM1D(2, 2, strides=2, return_state=True), data(2, 4, 7, 2, seed=3)),
    "3d": (lambda k: k.layers.ConvLSTM3D(2, 2, padding="same", return_sequences=True, recurrent_dropout=0.3),
           data(2, 3, 3, 4, 2, 2, seed=4)),
}


@pytest.mark.parametrize("case", sorted(LAYERS))
def test_seeded_layer_outputs_gradients_and_dropout_streams(case):
    make_layer, x = LAYERS[case]

    def fn(lib):
        lib.keras.utils.set_random_seed(5)
        layer = make_layer(lib.keras)
        results = []
        for training in (False, True):
            for mask in (None, step_mask(x)):
                results.append(call_with_gradients(lib, layer, [x], training=training, mask=mask))
        return results + [variable_values(layer), layer.compute_output_shape(x.shape)]
    same(fn, rtol=2e-5, atol=2e-5)


def test_copied_weights_initial_state_and_tf_function():
    weights = [data(3, 3, 2, 8, seed=1), data(3, 3, 2, 8, seed=2), data(8, seed=3)]
    h0, c0 = data(2, 5, 4, 2, seed=4), data(2, 5, 4, 2, seed=5)

    def fn(lib):
        tf = lib.tf
        layer = lib.keras.layers.ConvLSTM2D(2, 3, padding="same", return_sequences=True, return_state=True)
        layer.build(X2.shape)
        layer.set_weights(weights)
        with tf.GradientTape() as tape:
            h, c = tf.constant(h0), tf.constant(c0)
            tape.watch([h, c])
            outputs = layer(X2, initial_state=[h, c])
            loss = tf.reduce_sum(outputs[0] * 2.0) + tf.reduce_sum(outputs[2] ** 2)
        compiled = tf.function(lambda x: layer(x, initial_state=[h0, c0]))
        return [outputs, tape.gradient(loss, [h, c] + layer.trainable_weights), compiled(X2)]
    # gradients of O(1) size summed over 3 steps of 3x3 convolutions: float32 summation order differs from oneDNN's
    same(fn, rtol=2e-5, atol=2e-5)


def test_stateful_and_reset():
    def fn(lib):
        lib.keras.utils.set_random_seed(2)
        layer = lib.keras.layers.ConvLSTM1D(2, 2, padding="same", stateful=True)
        x = data(2, 3, 4, 1, seed=6)
        first, second = layer(x), layer(x)
        layer.reset_states()
        return [first, second, layer(x), [v.path for v in layer.variables]]
    same(fn)


def test_config_round_trip_and_signature():
    def fn(lib):
        layer = lib.keras.layers.ConvLSTM2D(4, (2, 3), strides=2, padding="valid", data_format="channels_first",
                                            activation="relu", kernel_regularizer="l2", dropout=0.2, seed=7,
                                            return_state=True, name="c")
        config = layer.get_config()
        clone = lib.keras.layers.ConvLSTM2D.from_config(config)
        serialized = lib.keras.layers.serialize(layer)
        return [config, clone.get_config() == config, serialized["class_name"],
                lib.keras.layers.deserialize(serialized).get_config() == config]
    same(fn)
    for name in ("ConvLSTM1D", "ConvLSTM2D", "ConvLSTM3D"):
        assert inspect.signature(getattr(VFW.keras.layers, name).__init__) == \
            inspect.signature(getattr(REAL.keras.layers, name).__init__)


def test_symbolic_shapes_and_masks():
    def fn(lib):
        keras = lib.keras
        inputs = keras.Input((None, 6, 5, 2))
        sequences, h, c = keras.layers.ConvLSTM2D(3, 3, strides=2, padding="same", return_sequences=True,
                                                  return_state=True)(inputs)
        last = keras.layers.ConvLSTM2D(2, 2)(sequences)
        return [tuple(sequences.shape), tuple(h.shape), tuple(c.shape), tuple(last.shape)]
    same(fn)


def test_short_fit_history():
    x, y = data(8, 3, 4, 4, 1, seed=8), data(8, 4, 4, 2, seed=9)

    def fn(lib):
        keras = lib.keras
        keras.utils.set_random_seed(4)
        model = keras.Sequential([keras.Input((3, 4, 4, 1)),
                                  keras.layers.ConvLSTM2D(2, 3, padding="same", dropout=0.2, recurrent_dropout=0.1)])
        model.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse")
        history = model.fit(x, y, batch_size=4, epochs=3, shuffle=False, verbose=0)
        return [np.array(history.history["loss"]), model.get_weights()]
    same(fn, rtol=1e-4, atol=1e-5)


ERRORS = {
    "rank_4": lambda k: k.layers.ConvLSTM2D(2, 2).cell.__class__(4, 2, 2),
    "strides_and_dilation": lambda k: k.layers.ConvLSTM2D(2, 2, strides=2, dilation_rate=2),
    "bad_padding": lambda k: k.layers.ConvLSTM1D(2, 2, padding="full"),
    "bad_kernel_size": lambda k: k.layers.ConvLSTM2D(2, (2, 2, 2)),
    "wrong_rank_input": lambda k: k.layers.ConvLSTM2D(2, 2)(np.zeros((2, 3, 4, 1), "float32")),
    "dynamic_spatial": lambda k: k.layers.ConvLSTM1D(2, 2)(k.Input((3, None, 2))),
    "too_small_for_valid": lambda k: k.layers.ConvLSTM1D(2, 4)(np.zeros((1, 2, 3, 1), "float32")),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors(case):
    same(lambda lib: ERRORS[case](lib.keras))
