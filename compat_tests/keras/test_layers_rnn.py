"""Recurrent layers (SimpleRNN, LSTM, GRU, their cells, RNN, StackedRNNCells, Bidirectional, TimeDistributed) against
real Keras 3.15.1: seeded initial weights, outputs, states and gradients (fused engine path and step loop), dropout
masks after set_random_seed, masks, go_backwards, stateful, tf.function, functional models, configs, errors."""

import numpy as np
import pytest

from compat_tests.keras.core_harness import REAL, VFW, data, run, same
from compat_tests.keras.layers_b_harness import call_with_gradients, variable_values

X = data(3, 6, 5)
MASK = np.array([[1, 1, 1, 1, 0, 0], [1, 1, 1, 1, 1, 1], [0, 1, 1, 0, 1, 1]], bool)

LAYERS = {
    "lstm": lambda k: k.layers.LSTM(4),
    "lstm_sequences_states": lambda k: k.layers.LSTM(4, return_sequences=True, return_state=True),
    "lstm_backwards_no_bias": lambda k: k.layers.LSTM(3, go_backwards=True, use_bias=False, unit_forget_bias=False,
                                                      return_sequences=True),
    "lstm_hard_sigmoid": lambda k: k.layers.LSTM(4, recurrent_activation="hard_sigmoid", return_sequences=True),
    "lstm_dropouts": lambda k: k.layers.LSTM(4, dropout=0.3, recurrent_dropout=0.2, return_sequences=True),
    "lstm_implementation_1": lambda k: k.layers.LSTM(4, dropout=0.3, implementation=1, zero_output_for_mask=True,
                                                     use_cudnn=False,  # Keras' cuDNN attempt fails on per-gate masks
                                                     return_sequences=True),
    "gru": lambda k: k.layers.GRU(4, return_sequences=True),
    "gru_reset_before": lambda k: k.layers.GRU(4, reset_after=False, go_backwards=True, return_state=True),
    "gru_dropout": lambda k: k.layers.GRU(4, dropout=0.3, return_sequences=True),
    "gru_recurrent_dropout": lambda k: k.layers.GRU(4, recurrent_dropout=0.3, dropout=0.2, reset_after=False),
    "simple_rnn": lambda k: k.layers.SimpleRNN(4, return_state=True),
    "simple_rnn_relu": lambda k: k.layers.SimpleRNN(4, activation="relu", use_bias=False, return_sequences=True),
    "simple_rnn_dropouts": lambda k: k.layers.SimpleRNN(4, dropout=0.3, recurrent_dropout=0.3),
    "stacked_cells": lambda k: k.layers.RNN([k.layers.LSTMCell(3, dropout=0.5),
                                             k.layers.GRUCell(2, recurrent_dropout=0.4), k.layers.SimpleRNNCell(2)],
                                            return_sequences=True, return_state=True),
}


@pytest.mark.parametrize("case", sorted(LAYERS))
def test_seeded_layer_outputs_gradients_and_dropout_streams(case):
    """Two calls of each kind (training or not, masked or not) from Keras' seeded initial weights: outputs,
    gradients, then every variable (seed generator states included: the dropout masks are drawn alike)."""
    def fn(lib):
        lib.keras.utils.set_random_seed(3)
        layer = LAYERS[case](lib.keras)
        results = []
        for training in (False, True):
            for mask in (None, MASK):
                results.append(call_with_gradients(lib, layer, [X], training=training, mask=mask))
        return results + [variable_values(layer)]
    same(fn, rtol=2e-5, atol=2e-5)


def test_copied_weights_and_initial_state():
    weights = [data(5, 12, seed=1), data(3, 12, seed=2), data(12, seed=3)]
    h0, c0 = data(3, 3, seed=4), data(3, 3, seed=5)

    def fn(lib):
        layer = lib.keras.layers.LSTM(3, return_state=True)
        layer.build(X.shape)
        layer.set_weights(weights)
        tf = lib.tf
        with tf.GradientTape() as tape:
            h, c = tf.constant(h0), tf.constant(c0)
            tape.watch([h, c])
            outputs = layer(X, initial_state=[h, c])
            loss = tf.reduce_sum(outputs[0] * 2.0) + tf.reduce_sum(outputs[2])
        return [outputs, tape.gradient(loss, [h, c] + layer.trainable_weights)]
    same(fn)


def test_custom_cell_and_cell_weights():
    def fn(lib):
        keras = lib.keras

        class MinimalCell(keras.layers.Layer):
            def __init__(self, units, **kwargs):
                super().__init__(**kwargs)
                self.units = units
                self.state_size = units

            def build(self, input_shape):
                self.kernel = self.add_weight(shape=(input_shape[-1], self.units), initializer="ones", name="kernel")

            def call(self, inputs, states):
                output = lib.tf.matmul(inputs, self.kernel) * 0.1 + states[0] * 0.5
                return output, [output]

        keras.utils.set_random_seed(0)
        layer = keras.layers.RNN(MinimalCell(2), return_sequences=True, go_backwards=True)
        cell = keras.layers.GRUCell(3)
        cell_out = cell(X[:, 0], [np.zeros((3, 3), "float32")])
        return [call_with_gradients(lib, layer, [X], mask=MASK), [w.path for w in layer.weights], cell_out,
                [w.path for w in cell.weights]]
    same(fn)


def test_functional_model_with_embedding_masks():
    ids = np.array([[3, 4, 1, 2, 0, 0], [1, 2, 3, 4, 5, 6], [0, 1, 2, 0, 4, 5]], "int32")

    def fn(lib):
        keras = lib.keras
        keras.utils.set_random_seed(1)
        inputs = keras.Input((None,), dtype="int32")
        embedded = keras.layers.Embedding(10, 5, mask_zero=True)(inputs)
        hidden = keras.layers.Bidirectional(keras.layers.LSTM(4, return_sequences=True))(embedded)
        last = keras.layers.GRU(3)(hidden)
        model = keras.Model(inputs, keras.layers.Dense(2)(last))
        with lib.tf.GradientTape() as tape:
            loss = lib.tf.reduce_sum(model(ids) ** 2)
        gradients = [lib.tf.convert_to_tensor(g) for g in tape.gradient(loss, model.trainable_weights)]
        return [model(ids), gradients, [w.path for w in model.weights],
                hidden.shape, last.shape, hidden._keras_mask.shape]
    same(fn)


BIDIRECTIONAL = {
    "concat_sequences": lambda k: k.layers.Bidirectional(k.layers.LSTM(3, return_sequences=True)),
    "none_states": lambda k: k.layers.Bidirectional(k.layers.GRU(3, return_sequences=True, return_state=True),
                                                    merge_mode=None),
    "sum_states": lambda k: k.layers.Bidirectional(k.layers.SimpleRNN(3, return_state=True), merge_mode="sum"),
    "ave_backward_layer": lambda k: k.layers.Bidirectional(k.layers.LSTM(2), merge_mode="ave",
                                                           backward_layer=k.layers.GRU(2, go_backwards=True)),
    "mul_dropout": lambda k: k.layers.Bidirectional(k.layers.GRU(2, dropout=0.4), merge_mode="mul"),
}


@pytest.mark.parametrize("case", sorted(BIDIRECTIONAL))
def test_bidirectional(case):
    def fn(lib):
        lib.keras.utils.set_random_seed(2)
        layer = BIDIRECTIONAL[case](lib.keras)
        return [call_with_gradients(lib, layer, [X], training=True, mask=MASK), call_with_gradients(lib, layer, [X]),
                variable_values(layer), layer.compute_output_shape((None, 6, 5)), layer.get_config()]
    same(fn, rtol=2e-5, atol=2e-5)


def test_time_distributed():
    def fn(lib):
        keras = lib.keras
        keras.utils.set_random_seed(4)
        layer = keras.layers.TimeDistributed(keras.layers.Dense(2, activation="tanh"))
        model = keras.Sequential([keras.Input((6, 5)), keras.layers.LSTM(3, return_sequences=True),
                                  keras.layers.TimeDistributed(keras.layers.Dense(1))])
        return [call_with_gradients(lib, layer, [X]), [w.path for w in layer.weights], layer.get_config(),
                layer.compute_output_shape((None, 6, 5)), model(X), model.output_shape]
    same(fn)


def test_tf_function_matches_eager():
    def fn(lib):
        keras, tf = lib.keras, lib.tf
        keras.utils.set_random_seed(5)
        layers = [keras.layers.LSTM(3, return_sequences=True), keras.layers.GRU(2, dropout=0.5)]

        @tf.function
        def step(x, mask):
            with tf.GradientTape() as tape:
                y = layers[1](layers[0](x, mask=mask), training=True)
                loss = tf.reduce_sum(y * y)
            return y, tape.gradient(loss, layers[0].trainable_weights + layers[1].trainable_weights)

        return [step(tf.constant(X), tf.constant(MASK)), step(tf.constant(X), tf.constant(MASK)),
                variable_values(layers[1])]
    same(fn, rtol=2e-5, atol=2e-5)


def test_stateful():
    def fn(lib):
        keras = lib.keras
        keras.utils.set_random_seed(6)
        layer = keras.layers.LSTM(2, stateful=True, return_state=True)
        first, second = layer(X), layer(X)
        layer.reset_state()
        third = layer(X)
        return [first, second, third, [v.path for v in layer.variables], [s.path for s in layer.states],
                layer(X[:3])]
    same(fn)


def test_configs_round_trip():
    def fn(lib):
        keras = lib.keras
        layers = [keras.layers.LSTM(3, dropout=0.1, activity_regularizer="l2", seed=4, name="l"),
                  keras.layers.GRU(2, reset_after=False, kernel_regularizer=keras.regularizers.L1(0.1)),
                  keras.layers.SimpleRNN(5, activation="relu", return_state=True),
                  keras.layers.RNN([keras.layers.LSTMCell(2), keras.layers.GRUCell(3)], go_backwards=True),
                  keras.layers.LSTMCell(2, recurrent_dropout=0.5), keras.layers.SimpleRNNCell(2, seed=1),
                  keras.layers.Bidirectional(keras.layers.LSTM(2), merge_mode="sum"),
                  keras.layers.TimeDistributed(keras.layers.Dense(3))]
        configs = [layer.get_config() for layer in layers]
        clones = [type(layer).from_config(layer.get_config()).get_config() for layer in layers]
        clones[-2].pop("name")  # the clone of Bidirectional gets a new auto-name
        configs[-2].pop("name")
        return [configs, clones, keras.layers.deserialize(keras.layers.serialize(layers[0])).get_config(),
                [(layer.units, layer.dropout, layer.recurrent_dropout) for layer in layers[:3]]]
    same(fn)


def test_shapes_and_masks():
    def fn(lib):
        keras = lib.keras
        lstm = keras.layers.LSTM(3, return_sequences=True, return_state=True)
        stacked = keras.layers.RNN([keras.layers.LSTMCell(2), keras.layers.GRUCell(3)], return_state=True)
        symbolic = lstm(keras.Input((None, 5)))
        mask = lib.tf.constant(MASK)
        return [lstm.compute_output_shape((None, 7, 5)), stacked.compute_output_shape((4, 7, 5)),
                [t.shape for t in symbolic], lstm.compute_mask(X, mask), stacked.compute_mask(X, mask),
                keras.layers.GRU(2).compute_mask(X, mask)]
    same(fn)


@pytest.mark.parametrize("case", ["units", "use_cudnn", "bidirectional_layer", "merge_mode", "same_direction",
                                  "stateful_batch", "cell_without_state_size",
                                  "time_distributed_rank"])
def test_errors(case):
    def fn(lib):
        keras = lib.keras
        if case == "units":
            return keras.layers.LSTM(0)
        if case == "use_cudnn":
            return keras.layers.GRU(2, use_cudnn="yes")
        if case == "bidirectional_layer":
            return keras.layers.Bidirectional("lstm")
        if case == "merge_mode":
            return keras.layers.Bidirectional(keras.layers.LSTM(2), merge_mode="max")
        if case == "same_direction":
            return keras.layers.Bidirectional(keras.layers.LSTM(2), backward_layer=keras.layers.LSTM(2))
        if case == "stateful_batch":
            return keras.Sequential([keras.Input((None, 3)), keras.layers.SimpleRNN(2, stateful=True)])
        if case == "cell_without_state_size":
            return keras.layers.RNN(keras.layers.Dense(2))
        return keras.layers.TimeDistributed(keras.layers.Dense(2)).build((2, 3))
    real, ours = run(fn, REAL), run(fn, VFW)
    assert real[0] == "raised" and ours[:2] == real[:2]
    assert ours[2].split("\x1b[1m")[-1].split("\x1b[0m")[0] == real[2].split("\x1b[1m")[-1].split("\x1b[0m")[0]


def test_mixed_precision():
    def fn(lib):
        keras = lib.keras
        keras.utils.set_random_seed(7)
        layers = [keras.layers.LSTM(4, dtype="mixed_float16", return_sequences=True),
                  keras.layers.GRU(3, dtype="mixed_float16", dropout=0.2),
                  keras.layers.Bidirectional(keras.layers.SimpleRNN(2), dtype="mixed_float16")]
        return [[layer(X, training=True) for layer in layers], [[w.dtype for w in layer.weights] for layer in layers]]
    same(fn, rtol=2e-3, atol=2e-3)


def test_encoder_decoder_with_symbolic_initial_state():
    encoder_data, decoder_data = data(2, 5, 3, seed=1), data(2, 4, 2, seed=2)

    def fn(lib):
        keras = lib.keras
        keras.utils.set_random_seed(8)
        encoder_inputs, decoder_inputs = keras.Input((5, 3)), keras.Input((4, 2))
        _, h, c = keras.layers.LSTM(6, return_state=True)(encoder_inputs)
        decoded = keras.layers.LSTM(6, return_sequences=True)(decoder_inputs, initial_state=[h, c])
        outputs = keras.layers.TimeDistributed(keras.layers.Dense(2))(decoded)
        model = keras.Model([encoder_inputs, decoder_inputs], outputs)
        states = keras.layers.Bidirectional(keras.layers.GRU(3, return_state=True))(encoder_inputs)
        with lib.tf.GradientTape() as tape:
            loss = lib.tf.reduce_sum(model([encoder_data, decoder_data]) ** 2)
        return [model([encoder_data, decoder_data]), tape.gradient(loss, model.trainable_weights),
                [w.path for w in model.weights], [t.shape for t in states]]
    same(fn)
