"""An Embedding trained with RMSprop and Adam: the Embedding's gradient is a tf.IndexedSlices (one row per looked-up
id, repeated ids not summed) and Keras' optimizers update their slots from it row-wise (RMSprop only touches the
rows the batch looked up; Adam's second moment adds the squares of repeated ids' rows)."""

import numpy as np
from tensorflow import keras


def main():
    rng = np.random.default_rng(2)
    tokens = rng.integers(1, 12, (48, 7))
    labels = (tokens == 3).any(axis=1).astype(np.float32)[:, None]
    losses = []
    for optimizer in ["rmsprop", "adam"]:
        keras.utils.set_random_seed(2)
        model = keras.Sequential([keras.Input((7,), dtype="int64"), keras.layers.Embedding(12, 8),
                                  keras.layers.Flatten(), keras.layers.Dense(1, activation="sigmoid")])
        model.compile(optimizer=optimizer, loss="binary_crossentropy")
        losses += model.fit(tokens, labels, batch_size=16, epochs=2, shuffle=False, verbose=0).history["loss"]
    return losses


if __name__ == "__main__":
    print(main())
