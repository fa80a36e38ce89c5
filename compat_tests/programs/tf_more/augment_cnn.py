"""A small image classifier with augmentation layers inside the model (RandomFlip, RandomRotation, RandomZoom,
Rescaling), Conv2D/MaxPooling2D/Dropout, SGD with Nesterov momentum; augmentation runs in fit only."""

import numpy as np
import tensorflow as tf
from tensorflow import keras


def main():
    keras.utils.set_random_seed(17)
    rng = np.random.default_rng(17)
    images = rng.uniform(0, 255, (48, 16, 16, 3)).astype(np.float32)
    labels = (images[:, :8, :, 0].mean(axis=(1, 2)) > images[:, 8:, :, 0].mean(axis=(1, 2))).astype(np.int64)
    augmentation = keras.Sequential([keras.layers.RandomFlip("horizontal"), keras.layers.RandomRotation(0.1),
                                     keras.layers.RandomZoom(0.1)], name="augmentation")
    model = keras.Sequential([
        keras.Input((16, 16, 3)),
        augmentation,
        keras.layers.Rescaling(1.0 / 255),
        keras.layers.Conv2D(8, 3, padding="same", activation="relu"),
        keras.layers.MaxPooling2D(),
        keras.layers.Conv2D(16, 3, activation="relu"),
        keras.layers.GlobalAveragePooling2D(),
        keras.layers.Dropout(0.25),
        keras.layers.Dense(2),
    ])
    model.compile(optimizer=keras.optimizers.SGD(0.05, momentum=0.9, nesterov=True),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"])
    history = model.fit(images, labels, batch_size=16, epochs=3, verbose=0)
    augmented = augmentation(images[:4], training=True)
    unchanged = augmentation(images[:4], training=False)
    return (history.history["loss"] + history.history["accuracy"] + model.evaluate(images, labels, verbose=0)
            + [float(tf.reduce_sum(augmented)), float(np.abs(unchanged - images[:4]).max())])


if __name__ == "__main__":
    print(main())
