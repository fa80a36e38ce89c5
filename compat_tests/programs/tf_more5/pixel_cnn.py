"""The Keras "PixelCNN" example, shrunk: a PixelConvLayer that builds its inner Conv2D in build() and masks its
kernel (mask type A / B, numpy mask from ops.shape of the kernel) by assigning kernel * mask in every call,
residual blocks of 1x1 convolutions around a masked 3x3 one (keras.layers.add), binary crossentropy on binarized
synthetic images, then autoregressive sampling pixel by pixel with predict and keras.random.uniform."""

import keras
import numpy as np
from keras import layers, ops


class PixelConvLayer(layers.Layer):
    def __init__(self, mask_type, **kwargs):
        super().__init__()
        self.mask_type = mask_type
        self.conv = layers.Conv2D(**kwargs)

    def build(self, input_shape):
        self.conv.build(input_shape)
        kernel_shape = ops.shape(self.conv.kernel)
        self.mask = np.zeros(shape=kernel_shape)
        self.mask[: kernel_shape[0] // 2, ...] = 1.0
        self.mask[kernel_shape[0] // 2, : kernel_shape[1] // 2, ...] = 1.0
        if self.mask_type == "B":
            self.mask[kernel_shape[0] // 2, kernel_shape[1] // 2, ...] = 1.0

    def call(self, inputs):
        self.conv.kernel.assign(self.conv.kernel * self.mask)
        return self.conv(inputs)


class ResidualBlock(keras.layers.Layer):
    def __init__(self, filters, **kwargs):
        super().__init__(**kwargs)
        self.conv1 = keras.layers.Conv2D(filters=filters, kernel_size=1, activation="relu")
        self.pixel_conv = PixelConvLayer(mask_type="B", filters=filters // 2, kernel_size=3, activation="relu",
                                         padding="same")
        self.conv2 = keras.layers.Conv2D(filters=filters, kernel_size=1, activation="relu")

    def call(self, inputs):
        x = self.conv1(inputs)
        x = self.pixel_conv(x)
        x = self.conv2(x)
        return keras.layers.add([inputs, x])


def main():
    keras.utils.set_random_seed(66)
    rng = np.random.default_rng(66)
    rows = np.cumsum(rng.uniform(size=(48, 8, 8, 1)), axis=2)
    data = np.where(rows / rows[:, :, -1:, :] < 0.5, 1.0, 0.0).astype(np.float32)

    n_residual_blocks, filters = 1, 8
    inputs = keras.Input(shape=(8, 8, 1))
    x = PixelConvLayer(mask_type="A", filters=filters, kernel_size=5, padding="same", activation="relu")(inputs)
    for _ in range(n_residual_blocks):
        x = ResidualBlock(filters=filters)(x)
    for _ in range(2):
        x = PixelConvLayer(mask_type="B", filters=filters, kernel_size=1, strides=1, activation="relu",
                           padding="valid")(x)
    out = keras.layers.Conv2D(filters=1, kernel_size=1, strides=1, activation="sigmoid", padding="valid")(x)
    pixel_cnn = keras.Model(inputs, out)
    pixel_cnn.compile(optimizer=keras.optimizers.Adam(0.005), loss="binary_crossentropy")
    history = pixel_cnn.fit(x=data, y=data, batch_size=16, epochs=2, validation_split=0.25, verbose=0)
    values = history.history["loss"] + history.history["val_loss"]
    first_mask = pixel_cnn.layers[1].mask
    values += [float(first_mask.sum()), float(ops.sum(ops.abs(pixel_cnn.layers[1].conv.kernel * (1 - first_mask))))]

    batch = 2
    pixels = np.zeros(shape=(batch,) + pixel_cnn.input_shape[1:])
    _, rows_n, cols_n, channels = pixels.shape
    for row in range(rows_n // 4):
        for col in range(cols_n // 4):
            for channel in range(channels):
                probs = pixel_cnn.predict(pixels, verbose=0)[:, row, col, channel]
                pixels[:, row, col, channel] = ops.ceil(probs - keras.random.uniform(probs.shape))
                values += [float(v) for v in probs]
    values += [float(pixels.sum())]
    return values


if __name__ == "__main__":
    print(main())
