"""A convolutional denoising autoencoder: Conv2D/SeparableConv2D/Conv2DTranspose/UpSampling2D, GaussianNoise, a
keras.utils.PyDataset feeding fit, LearningRateScheduler and CSVLogger callbacks (the log read back), clone_model
and a Functional model rebuilt from its get_config."""

import csv
import os
import tempfile

import numpy as np
import tensorflow as tf
from tensorflow import keras


class NoisyImages(keras.utils.PyDataset):
    def __init__(self, images, batch_size, **kwargs):
        super().__init__(**kwargs)
        self.images, self.batch_size = images, batch_size

    def __len__(self):
        return int(np.ceil(len(self.images) / self.batch_size))

    def __getitem__(self, index):
        batch = self.images[index * self.batch_size:(index + 1) * self.batch_size]
        return batch, batch


def main():
    keras.utils.set_random_seed(27)
    rng = np.random.default_rng(27)
    grid = np.linspace(-1, 1, 12, dtype=np.float32)
    centres = rng.uniform(-0.5, 0.5, (40, 2, 1, 1)).astype(np.float32)
    images = np.exp(-((grid[None, :, None] - centres[:, 0]) ** 2 + (grid[None, None, :] - centres[:, 1]) ** 2)
                    * 5)[..., None].astype(np.float32)
    inputs = keras.Input((12, 12, 1))
    x = keras.layers.GaussianNoise(0.1)(inputs)
    x = keras.layers.Conv2D(8, 3, strides=2, padding="same", activation="relu")(x)
    x = keras.layers.SeparableConv2D(8, 3, padding="same", activation="relu")(x)
    x = keras.layers.Conv2DTranspose(8, 3, strides=2, padding="same", activation="relu")(x)
    x = keras.layers.AveragePooling2D(2)(x)
    x = keras.layers.UpSampling2D(interpolation="bilinear")(x)
    outputs = keras.layers.Conv2D(1, 3, padding="same", activation="sigmoid")(x)
    model = keras.Model(inputs, outputs)
    model.compile(optimizer=keras.optimizers.Adam(1e-2), loss="binary_crossentropy")
    log = os.path.join(tempfile.mkdtemp(), "log.csv")
    callbacks = [keras.callbacks.LearningRateScheduler(lambda epoch, lr: lr * 0.5 if epoch > 0 else lr),
                 keras.callbacks.CSVLogger(log)]
    history = model.fit(NoisyImages(images, 16), epochs=3, callbacks=callbacks, verbose=0)
    with open(log) as handle:
        rows = list(csv.DictReader(handle))
    values = history.history["loss"] + [float(row["loss"]) for row in rows]
    values += [float(row["learning_rate"]) for row in rows] + [float(len(rows[0]))]
    clone = keras.models.clone_model(model)
    clone.set_weights(model.get_weights())
    rebuilt = keras.Model.from_config(model.get_config())
    rebuilt.set_weights(model.get_weights())
    prediction = model.predict(images[:4], verbose=0)
    values += [float(prediction.sum()), float(np.abs(clone.predict(images[:4], verbose=0) - prediction).max()),
               float(np.abs(rebuilt(images[:4]) - prediction).max()), float(len(rebuilt.layers)),
               float(tf.reduce_sum(model.layers[3].depthwise_kernel))]
    return values


if __name__ == "__main__":
    print(main())
