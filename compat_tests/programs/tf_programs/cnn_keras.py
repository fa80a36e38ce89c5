"""A Keras CNN: Conv2D/BatchNormalization/MaxPooling2D/GlobalAveragePooling2D, SGD with Nesterov momentum,
fit with a validation split."""

import numpy as np
from tensorflow import keras


def main():
    keras.utils.set_random_seed(1)
    rng = np.random.default_rng(1)
    images = rng.standard_normal((64, 10, 10, 1)).astype(np.float32)
    labels = np.arange(64) % 2
    images[labels == 1, 2:8, 4:6] += 2.0  # class 1 has a vertical bar
    model = keras.Sequential([
        keras.Input((10, 10, 1)),
        keras.layers.Conv2D(8, 3, padding="same", use_bias=False),
        keras.layers.BatchNormalization(),
        keras.layers.ReLU(),
        keras.layers.MaxPooling2D(2),
        keras.layers.Conv2D(16, 3, activation="relu"),
        keras.layers.GlobalAveragePooling2D(),
        keras.layers.Dense(2),
    ])
    model.compile(optimizer=keras.optimizers.SGD(0.05, momentum=0.9, nesterov=True),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    history = model.fit(images, labels, batch_size=16, epochs=3, validation_split=0.25, shuffle=False, verbose=0)
    moving_variance = model.layers[1].moving_variance.numpy().sum()
    return history.history["loss"] + history.history["val_loss"] + [moving_variance]


if __name__ == "__main__":
    print(main())
