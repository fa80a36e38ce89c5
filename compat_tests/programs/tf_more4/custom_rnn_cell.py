"""Custom recurrent cells as in the Keras RNN guide: a minimal cell Layer with state_size/output_size (a single state)
and a cell with two states (a nested state_size list) wrapped in keras.layers.RNN with return_sequences/return_state,
masking from Embedding(mask_zero=True) (masked steps carry the state over), go_backwards, a stateful RNN fed batch
after batch then reset_states, get_config of the RNN layer, and a fit of a classifier built on the custom cell."""

import numpy as np
import tensorflow as tf
from tensorflow import keras


class MinimalRNNCell(keras.layers.Layer):
    def __init__(self, units, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.state_size = units
        self.output_size = units

    def build(self, input_shape):
        self.kernel = self.add_weight(shape=(input_shape[-1], self.units), initializer="glorot_uniform",
                                      name="kernel")
        self.recurrent_kernel = self.add_weight(shape=(self.units, self.units), initializer="orthogonal",
                                                name="recurrent_kernel")

    def call(self, inputs, states):
        prev = states[0]
        output = tf.tanh(tf.matmul(inputs, self.kernel) + tf.matmul(prev, self.recurrent_kernel))
        return output, [output]

    def get_config(self):
        return {**super().get_config(), "units": self.units}


class TwoStateCell(keras.layers.Layer):
    """A leaky integrator keeping a fast and a slow state of different sizes."""

    def __init__(self, fast, slow, **kwargs):
        super().__init__(**kwargs)
        self.fast, self.slow = fast, slow
        self.state_size = [fast, slow]
        self.output_size = fast + slow

    def build(self, input_shape):
        self.w_fast = self.add_weight(shape=(input_shape[-1], self.fast), initializer="glorot_uniform", name="w_fast")
        self.w_slow = self.add_weight(shape=(self.fast, self.slow), initializer="glorot_uniform", name="w_slow")
        self.leak = self.add_weight(shape=(), initializer=keras.initializers.Constant(0.7), name="leak")

    def call(self, inputs, states):
        fast_prev, slow_prev = states
        fast = tf.nn.relu(tf.matmul(inputs, self.w_fast) + 0.5 * fast_prev)
        slow = self.leak * slow_prev + (1.0 - self.leak) * tf.tanh(tf.matmul(fast, self.w_slow))
        return tf.concat([fast, slow], axis=-1), [fast, slow]


def main():
    keras.utils.set_random_seed(41)
    rng = np.random.default_rng(41)
    values = []
    tokens = rng.integers(1, 20, (64, 7))
    lengths = rng.integers(2, 8, 64)
    tokens[np.arange(7)[None, :] >= lengths[:, None]] = 0
    labels = (np.where(tokens > 0, tokens, 0).sum(1) % 2).astype(np.float32)

    inputs = keras.Input((None,), dtype="int32")
    embedded = keras.layers.Embedding(20, 6, mask_zero=True)(inputs)
    sequences, state = keras.layers.RNN(MinimalRNNCell(8), return_sequences=True, return_state=True)(embedded)
    outputs, fast, slow = keras.layers.RNN(TwoStateCell(5, 3), return_state=True, go_backwards=True)(sequences)
    merged = keras.layers.Concatenate()([outputs, state, slow])
    model = keras.Model(inputs, keras.layers.Dense(1, activation="sigmoid")(merged))
    model.compile(optimizer=keras.optimizers.RMSprop(0.01), loss="binary_crossentropy", metrics=["accuracy"])
    history = model.fit(tokens, labels, batch_size=16, epochs=3, verbose=0, shuffle=False)
    values += history.history["loss"] + history.history["accuracy"]
    values += [float(v) for v in model.predict(tokens[:4], verbose=0).ravel()]
    rnn_layer = model.layers[2]
    config = rnn_layer.get_config()
    values += [" ".join(sorted(config)), str(config["return_state"]), str(config["cell"]["config"]["units"])]

    probe = keras.Model(inputs, [sequences, state])
    seq_out, last = probe(tokens[:3])
    values += [float(x) for x in seq_out.numpy()[:, :, 0].ravel()] + [float(x) for x in last.numpy()[:, 0]]

    stateful = keras.layers.RNN(MinimalRNNCell(4), stateful=True, return_sequences=False)
    stream = rng.normal(size=(2, 9, 3)).astype(np.float32)
    chunks = [stateful(stream[:, i:i + 3]) for i in range(0, 9, 3)]
    values += [float(c.numpy().sum()) for c in chunks]
    stateful.reset_states()
    values += [float(stateful(stream[:, :3]).numpy().sum())]
    whole = keras.layers.RNN(stateful.cell)(stream)
    values += [float(whole.numpy().sum()), float(np.abs(whole.numpy() - chunks[-1].numpy()).max())]
    return values


if __name__ == "__main__":
    print(main())
