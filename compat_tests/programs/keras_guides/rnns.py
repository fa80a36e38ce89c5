"""The keras.io guide "Working with RNNs": Embedding + LSTM, GRU with return_sequences into SimpleRNN, outputs
and states (return_state) fed as initial_state of a decoder, RNN layers vs cells (keras.layers.RNN(LSTMCell)),
stateful LSTM over a sequence split into chunks with reset_states, Bidirectional LSTMs (summary, merge modes,
backward_layer), and a custom cell with nested input/state structures (NestedCell) trained with fit."""

import numpy as np
import tensorflow as tf
from tensorflow import keras
from tensorflow.keras import layers


def _summary(model):
    lines = []
    model.summary(print_fn=lambda line, *args, **kwargs: lines.append(line))
    return "\n".join(lines)


class NestedCell(keras.layers.Layer):
    def __init__(self, unit_1, unit_2, unit_3, input_dims, **kwargs):
        self.input_dims = input_dims
        self.unit_1 = unit_1
        self.unit_2 = unit_2
        self.unit_3 = unit_3
        self.state_size = [tf.TensorShape([unit_1]), tf.TensorShape([unit_2, unit_3])]
        self.output_size = [tf.TensorShape([unit_1]), tf.TensorShape([unit_2, unit_3])]
        super().__init__(**kwargs)

    def build(self, input_shapes):
        # Keras 3's RNN.build hands the cell a flattened step shape for nested inputs (the guide's indexing of
        # input_shapes[1] fails in Keras itself), so the input sizes come from the constructor.
        i1, i2, i3 = self.input_dims
        self.kernel_1 = self.add_weight(shape=(i1, self.unit_1), initializer="uniform", name="kernel_1")
        self.kernel_2_3 = self.add_weight(shape=(i2, i3, self.unit_2, self.unit_3), initializer="uniform",
                                          name="kernel_2_3")

    def call(self, inputs, states):
        input_1, input_2 = tf.nest.flatten(inputs)
        s1, s2 = states
        output_1 = tf.matmul(input_1, self.kernel_1)
        output_2_3 = tf.einsum("bij,ijkl->bkl", input_2, self.kernel_2_3)
        state_1 = s1 + output_1
        state_2_3 = s2 + output_2_3
        output = (output_1, output_2_3)
        new_states = (state_1, state_2_3)
        return output, new_states

    def get_config(self):
        return {"unit_1": self.unit_1, "unit_2": self.unit_2, "unit_3": self.unit_3, "input_dims": self.input_dims}


class TwoStateCell(keras.layers.Layer):
    def __init__(self, units, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.state_size = [units, units]
        self.output_size = units

    def build(self, input_shape):
        self.kernel = self.add_weight(shape=(input_shape[-1], self.units), initializer="uniform", name="kernel")
        self.recurrent_kernel = self.add_weight(shape=(self.units, self.units), initializer="uniform",
                                                name="recurrent_kernel")

    def call(self, inputs, states):
        previous_a, previous_b = states
        h = tf.matmul(inputs, self.kernel) + tf.matmul(previous_a, self.recurrent_kernel)
        output = tf.tanh(h + 0.5 * previous_b)
        return output, [output, previous_b + h]

    def get_config(self):
        return {**super().get_config(), "units": self.units}


def main():
    keras.utils.set_random_seed(31)
    rng = np.random.default_rng(31)
    values = []
    tokens = rng.integers(0, 100, size=(16, 7))

    model = keras.Sequential([keras.Input(shape=(None,)), layers.Embedding(input_dim=100, output_dim=8),
                              layers.LSTM(16), layers.Dense(4)])
    values += [_summary(model), float(np.sum(model.predict(tokens, verbose=0)))]

    model = keras.Sequential([keras.Input(shape=(None,)), layers.Embedding(input_dim=100, output_dim=8),
                              layers.GRU(16, return_sequences=True), layers.SimpleRNN(8), layers.Dense(4)])
    values += [_summary(model), float(np.sum(model.predict(tokens, verbose=0)))]

    encoder_vocab, decoder_vocab = 50, 40
    encoder_input = layers.Input(shape=(None,))
    encoder_embedded = layers.Embedding(input_dim=encoder_vocab, output_dim=8)(encoder_input)
    output, state_h, state_c = layers.LSTM(16, return_state=True, name="encoder")(encoder_embedded)
    encoder_state = [state_h, state_c]
    decoder_input = layers.Input(shape=(None,))
    decoder_embedded = layers.Embedding(input_dim=decoder_vocab, output_dim=8)(decoder_input)
    decoder_output = layers.LSTM(16, name="decoder")(decoder_embedded, initial_state=encoder_state)
    output = layers.Dense(10)(decoder_output)
    model = keras.Model([encoder_input, decoder_input], output)
    values += [_summary(model)]
    model.compile(optimizer="adam", loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    enc = rng.integers(0, encoder_vocab, size=(24, 6))
    dec = rng.integers(0, decoder_vocab, size=(24, 5))
    labels = rng.integers(0, 10, size=(24,))
    values += model.fit([enc, dec], labels, batch_size=8, epochs=2, verbose=0).history["loss"]

    paragraph = rng.random((4, 9, 5)).astype("float32")
    whole = layers.RNN(layers.LSTMCell(6))
    cell_output = whole(paragraph)
    fused = layers.LSTM(6)
    fused.build(paragraph.shape)
    fused.set_weights(whole.get_weights())
    values += [float(np.max(np.abs(cell_output - fused(paragraph))))]

    lstm_layer = layers.LSTM(6, stateful=True)
    output = lstm_layer(paragraph[:, :3])
    output = lstm_layer(paragraph[:, 3:6])
    output = lstm_layer(paragraph[:, 6:])
    values += [float(np.sum(output))]
    lstm_layer.reset_states()
    values += [float(np.sum(lstm_layer.states[0])), float(np.max(np.abs(lstm_layer(paragraph[:, :3]) - 0)))]
    existing_state = lstm_layer.states
    new_lstm_layer = layers.LSTM(6)
    new_output = new_lstm_layer(paragraph, initial_state=existing_state)
    values += [float(np.sum(new_output))]

    model = keras.Sequential([keras.Input(shape=(5, 10)), layers.Bidirectional(layers.LSTM(8, return_sequences=True)),
                              layers.Bidirectional(layers.LSTM(4)), layers.Dense(3)])
    values += [_summary(model)]
    sequences = rng.random((6, 5, 10)).astype("float32")
    values += [float(np.sum(model(sequences)))]
    forward_layer = layers.LSTM(4, return_sequences=True)
    backward_layer = layers.LSTM(4, activation="relu", return_sequences=True, go_backwards=True)
    bidirectional = layers.Bidirectional(forward_layer, backward_layer=backward_layer, merge_mode="sum")
    values += [str(tuple(bidirectional(sequences).shape)), str(bidirectional.get_config()["merge_mode"])]
    concat_states = layers.Bidirectional(layers.GRU(3, return_state=True))(sequences)
    values += [str([tuple(t.shape) for t in concat_states])]

    unit_1, unit_2, unit_3 = 4, 3, 2
    i1, i2, i3 = 5, 4, 3
    batch_size, num_batches, timestep = 8, 2, 6
    cell = NestedCell(unit_1, unit_2, unit_3, (i1, i2, i3))
    rnn = layers.RNN(cell)
    input_1 = keras.Input((None, i1))
    input_2 = keras.Input((None, i2, i3))
    try:  # Keras 3 refuses the guide's nested output_size
        rnn((input_1, input_2))
        values += ["built"]
    except ValueError as error:
        values += ["ValueError", str(error).splitlines()[2]]

    cell = TwoStateCell(6)
    rnn = layers.RNN(cell, return_sequences=True, return_state=True)
    sequence_input = keras.Input((None, i1))
    sequence, state_a, state_b = rnn(sequence_input)
    outputs = layers.Dense(1)(layers.concatenate([sequence[:, -1], state_a, state_b]))
    model = keras.Model(sequence_input, outputs)
    model.compile(optimizer="adam", loss="mse")
    input_1_data = rng.random((batch_size * num_batches, timestep, i1)).astype("float32")
    targets = input_1_data.sum(axis=(1, 2))[:, None] / 10
    history = model.fit(input_1_data, targets, batch_size=batch_size, epochs=2, verbose=0)
    values += history.history["loss"] + [str(cell.state_size), str(cell.get_config())]
    return values


if __name__ == "__main__":
    print(main())
