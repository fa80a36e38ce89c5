"""The Keras "image segmentation with a U-Net-like architecture" example, shrunk: an Xception-style downsampling
path (SeparableConv2D, BatchNormalization, Activation, MaxPooling2D, residual 1x1 strided projections) and an
upsampling path (Conv2DTranspose, UpSampling2D, Concatenate skips), per-pixel softmax trained with
sparse_categorical_crossentropy, MeanIoU, and predictions turned into masks with argmax."""

import numpy as np
from tensorflow import keras
from tensorflow.keras import layers


def get_model(img_size, num_classes):
    inputs = keras.Input(shape=img_size + (3,))
    x = layers.Conv2D(8, 3, strides=2, padding="same")(inputs)
    x = layers.BatchNormalization()(x)
    x = layers.Activation("relu")(x)
    previous_block_activation = x
    skips = []
    for filters in [8, 16]:
        skips.append(x)
        x = layers.Activation("relu")(x)
        x = layers.SeparableConv2D(filters, 3, padding="same")(x)
        x = layers.BatchNormalization()(x)
        x = layers.Activation("relu")(x)
        x = layers.SeparableConv2D(filters, 3, padding="same")(x)
        x = layers.BatchNormalization()(x)
        x = layers.MaxPooling2D(3, strides=2, padding="same")(x)
        residual = layers.Conv2D(filters, 1, strides=2, padding="same")(previous_block_activation)
        x = layers.add([x, residual])
        previous_block_activation = x
    for filters in [16, 8]:
        x = layers.Activation("relu")(x)
        x = layers.Conv2DTranspose(filters, 3, padding="same")(x)
        x = layers.BatchNormalization()(x)
        x = layers.UpSampling2D(2)(x)
        residual = layers.UpSampling2D(2)(previous_block_activation)
        residual = layers.Conv2D(filters, 1, padding="same")(residual)
        x = layers.add([x, residual])
        x = layers.Concatenate()([x, skips.pop()])
        previous_block_activation = layers.Conv2D(filters, 1, padding="same")(x)
        x = previous_block_activation
    x = layers.Conv2DTranspose(8, 3, strides=2, padding="same", activation="relu")(x)
    outputs = layers.Conv2D(num_classes, 3, activation="softmax", padding="same")(x)
    return keras.Model(inputs, outputs)


def main():
    keras.utils.set_random_seed(12)
    rng = np.random.default_rng(12)
    n, size = 40, 16
    images = rng.normal(0, 0.3, (n, size, size, 3)).astype(np.float32)
    masks = np.zeros((n, size, size), np.int64)
    for i in range(n):  # a bright square (class 1) and a dark bar (class 2) at random places
        r, c = rng.integers(0, size - 6, 2)
        images[i, r:r + 6, c:c + 6] += 1.0
        masks[i, r:r + 6, c:c + 6] = 1
        row = rng.integers(0, size - 2)
        images[i, row:row + 2, :, 2] -= 1.0
        masks[i, row:row + 2, :] = 2
    model = get_model((size, size), 3)
    model.compile(optimizer=keras.optimizers.Adam(3e-3), loss="sparse_categorical_crossentropy",
                  metrics=[keras.metrics.MeanIoU(num_classes=3, sparse_y_pred=False)])
    history = model.fit(images[:32], masks[:32, :, :, None], batch_size=8, epochs=3,
                        validation_data=(images[32:], masks[32:]), verbose=0)
    # (not val_mean_io_u: after one epoch a validation pixel has two classes within 3e-7 of each other, so its argmax
    # depends on float32 rounding order)
    values = [v for key in ("loss", "mean_io_u", "val_loss") for v in history.history[key]]
    values += model.evaluate(images[32:], masks[32:], verbose=0)
    predicted = np.argmax(model.predict(images[32:], verbose=0), axis=-1)
    values += [float(np.bincount(predicted.ravel(), minlength=3)[k]) for k in range(3)]
    values += [float(len(model.layers)), float(model.count_params()), str(model.output_shape)]
    return values


if __name__ == "__main__":
    print(main())
