"""A subclassed Keras autoencoder (encoder and decoder models), a custom train_step, MSE, a weights round trip."""

import os
import tempfile

import numpy as np
import tensorflow as tf
from tensorflow import keras


class AutoEncoder(keras.Model):
    def __init__(self):
        super().__init__()
        self.encoder = keras.Sequential([keras.layers.Flatten(), keras.layers.Dense(16, activation="relu"),
                                         keras.layers.Dense(4)])
        self.decoder = keras.Sequential([keras.layers.Dense(16, activation="relu"),
                                         keras.layers.Dense(64, activation="sigmoid"), keras.layers.Reshape((8, 8))])

    def call(self, x):
        return self.decoder(self.encoder(x))

    def train_step(self, data):
        x = data
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(self(x, training=True) - x))
        self.optimizer.apply_gradients(zip(tape.gradient(loss, self.trainable_variables), self.trainable_variables))
        return {"loss": loss}


def main():
    keras.utils.set_random_seed(4)
    rng = np.random.default_rng(4)
    grid = np.linspace(-1, 1, 8, dtype=np.float32)
    centres = rng.uniform(-0.5, 0.5, (32, 2, 1, 1)).astype(np.float32)
    blobs = np.exp(-((grid[None, :, None] - centres[:, 0]) ** 2 + (grid[None, None, :] - centres[:, 1]) ** 2) * 4)
    x = blobs.astype(np.float32)
    model = AutoEncoder()
    model.compile(optimizer=keras.optimizers.Adam(5e-3))
    history = model.fit(x, batch_size=8, epochs=4, shuffle=False, verbose=0)
    path = os.path.join(tempfile.mkdtemp(), "autoencoder.weights.h5")
    model.save_weights(path)
    reloaded = AutoEncoder()
    reloaded(x[:1])
    reloaded.load_weights(path)
    return history.history["loss"] + [float(tf.reduce_mean(tf.square(reloaded(x) - x)))]


if __name__ == "__main__":
    print(main())
