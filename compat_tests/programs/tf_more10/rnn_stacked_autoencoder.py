"""An LSTM sequence autoencoder as in Stack Overflow answers and the "LSTM autoencoder" blog posts: an encoder LSTM
summarising a sequence into a vector, RepeatVector back to the sequence length, a keras.layers.RNN over a list of
cells (GRUCell + SimpleRNNCell, stacked by Keras), TimeDistributed(Dense) reconstructing each step, both unrolled
(unroll=True, short sequences); then a classifier reading the sequence backwards (go_backwards=True) with an RNN
whose stacked cells also return their final states (return_state=True); the autoencoder trained with fit under
compile(run_eagerly=True), the classifier by a GradientTape loop, and the encoder called on a few sequences."""

import keras
import numpy as np
import tensorflow as tf
from keras import layers


def make_sequences(rng, count, steps, features):
    t = np.linspace(0.0, 1.0, steps, dtype=np.float32)
    phase = rng.uniform(0.0, np.pi, size=(count, 1, 1)).astype(np.float32)
    freq = rng.uniform(1.0, 3.0, size=(count, 1, features)).astype(np.float32)
    return np.sin(2.0 * np.pi * freq * t[None, :, None] + phase).astype(np.float32)


def build_autoencoder(steps, features):
    inputs = keras.Input((steps, features))
    code = layers.LSTM(6, unroll=True, name="encoder")(inputs)
    repeated = layers.RepeatVector(steps)(code)
    decoder = layers.RNN([layers.GRUCell(6), layers.SimpleRNNCell(5)], return_sequences=True, unroll=True)
    decoded = decoder(repeated)
    outputs = layers.TimeDistributed(layers.Dense(features))(decoded)
    return keras.Model(inputs, outputs), keras.Model(inputs, code)


def build_classifier(steps, features):
    inputs = keras.Input((steps, features))
    rnn = layers.RNN([layers.LSTMCell(5), layers.GRUCell(4)], go_backwards=True, return_state=True)
    outputs, lstm_states, gru_state = rnn(inputs)
    merged = layers.Concatenate()([outputs, lstm_states[0], gru_state])
    return keras.Model(inputs, layers.Dense(2, activation="softmax")(merged))


def main():
    keras.utils.set_random_seed(11)
    rng = np.random.default_rng(11)
    steps, features = 5, 2
    x = make_sequences(rng, 24, steps, features)
    labels = (x[:, 0, 0] > x[:, -1, 0]).astype(np.int64)

    values = []
    autoencoder, encoder = build_autoencoder(steps, features)
    # run_eagerly, as when debugging a model: fit steps without a tf.function (and no slow RNN trace)
    autoencoder.compile(optimizer=keras.optimizers.Adam(0.01), loss="mse", run_eagerly=True)
    history = autoencoder.fit(x, x, batch_size=12, epochs=2, shuffle=False, verbose=0)
    values += history.history["loss"]
    values += keras.ops.convert_to_numpy(encoder(x[:3])).ravel().tolist()
    values += [str([w.shape for w in autoencoder.layers[3].weights])]
    values.append(str(autoencoder.layers[3].cell.state_size))
    values.append(autoencoder.count_params())

    # the classifier trained by an eager GradientTape loop (a fit would trace the backwards RNN's loop)
    classifier = build_classifier(steps, features)
    optimizer = keras.optimizers.RMSprop(0.01)
    loss_fn = keras.losses.SparseCategoricalCrossentropy()
    for start in range(0, 24, 12):
        with tf.GradientTape() as tape:
            loss = loss_fn(labels[start:start + 12], classifier(x[start:start + 12], training=True))
        grads = tape.gradient(loss, classifier.trainable_variables)
        optimizer.apply_gradients(zip(grads, classifier.trainable_variables))
        values.append(float(loss))
    values += keras.ops.convert_to_numpy(classifier(x[:2])).ravel().tolist()
    return values
