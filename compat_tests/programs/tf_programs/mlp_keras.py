"""A Keras Sequential MLP: Dense/Dropout, compile with Adam and a metric, fit with shuffling, evaluate."""

import numpy as np
import tensorflow as tf
from tensorflow import keras


def main():
    keras.utils.set_random_seed(0)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((256, 10)).astype(np.float32)
    y = ((x[:, :3].sum(1) > 0).astype(np.int64) + (x[:, 3] > 0.5)).astype(np.int64)
    model = keras.Sequential([keras.Input((10,)), keras.layers.Dense(32, activation="relu"), keras.layers.Dropout(0.1),
                              keras.layers.Dense(32, activation="tanh"), keras.layers.Dense(3)])
    model.compile(optimizer=keras.optimizers.Adam(1e-2),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"])
    history = model.fit(x, y, batch_size=32, epochs=4, verbose=0)
    loss, accuracy = model.evaluate(x, y, verbose=0)
    return history.history["loss"] + history.history["accuracy"] + [loss, accuracy,
                                                                    float(tf.reduce_sum(model(x[:4])))]


if __name__ == "__main__":
    print(main())
