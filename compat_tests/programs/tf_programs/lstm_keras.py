"""A Keras sequence classifier: Masking of padded steps, stacked LSTM and GRU, RMSprop, gradient clipping.

The tokens arrive one-hot encoded: an Embedding layer's gradient is a tf.IndexedSlices, which real Keras' RMSprop
and Adam apply as sparse (row-wise) updates; see embedding_sparse_updates.py.
"""

import numpy as np
from tensorflow import keras


def main():
    keras.utils.set_random_seed(2)
    rng = np.random.default_rng(2)
    tokens = rng.integers(1, 12, (48, 7))
    tokens[::3, 5:] = 0  # padding, masked out
    labels = (tokens == 3).any(axis=1).astype(np.int64)
    one_hot = np.eye(12, dtype=np.float32)[tokens]
    one_hot[tokens == 0] = 0.0
    model = keras.Sequential([
        keras.Input((7, 12)),
        keras.layers.Masking(0.0),
        keras.layers.LSTM(16, return_sequences=True),
        keras.layers.GRU(8),
        keras.layers.Dense(1, activation="sigmoid"),
    ])
    model.compile(optimizer=keras.optimizers.RMSprop(1e-2, clipnorm=1.0), loss="binary_crossentropy")
    history = model.fit(one_hot, labels, batch_size=16, epochs=4, shuffle=False, verbose=0)
    return history.history["loss"] + [float(model.predict(one_hot[:4], verbose=0).sum())]


if __name__ == "__main__":
    print(main())
