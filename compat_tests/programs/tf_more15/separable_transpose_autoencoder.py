"""A small convolutional denoising autoencoder in the keras.io style: an encoder of SeparableConv2D (depth
multiplier), DepthwiseConv2D and strided Conv2D, a decoder of Conv2DTranspose (strides 2, output_padding) and
UpSampling2D (nearest and bilinear) with Cropping2D / ZeroPadding2D, a Conv1D branch over image rows, augmentation
layers (RandomTranslation / RandomContrast / RandomFlip with seed=) applied only in training, and a short fit."""

import numpy as np
from tensorflow import keras


def build():
    inp = keras.Input((8, 8, 1))
    aug = keras.Sequential([keras.layers.RandomFlip("horizontal", seed=1),
                            keras.layers.RandomTranslation(0.1, 0.1, seed=2),
                            keras.layers.RandomContrast(0.2, seed=3)], name="augment")
    x = aug(inp)
    x = keras.layers.SeparableConv2D(4, 3, padding="same", depth_multiplier=2, activation="relu")(x)
    x = keras.layers.DepthwiseConv2D(3, padding="same", depth_multiplier=1)(x)
    x = keras.layers.Conv2D(6, 3, strides=2, padding="same", activation="relu")(x)
    rows = keras.layers.Reshape((4, 24))(x)
    rows = keras.layers.Conv1D(24, 2, padding="causal")(rows)
    x = keras.layers.Reshape((4, 4, 6))(rows)
    x = keras.layers.Conv2DTranspose(4, 3, strides=2, padding="same", output_padding=1)(x)
    x = keras.layers.UpSampling2D(2, interpolation="bilinear")(x)
    x = keras.layers.Cropping2D(((4, 4), (5, 3)))(x)
    x = keras.layers.ZeroPadding2D(((0, 0), (0, 0)))(x)
    x = keras.layers.AveragePooling2D(2)(x)
    x = keras.layers.UpSampling2D(2)(x)
    out = keras.layers.Conv2D(1, 1, activation="sigmoid")(x)
    return keras.Model(inp, out)


def main():
    keras.utils.set_random_seed(13)
    rng = np.random.default_rng(13)
    clean = (rng.uniform(size=(16, 8, 8, 1)) > 0.6).astype("float32")
    noisy = np.clip(clean + 0.3 * rng.normal(size=clean.shape), 0, 1).astype("float32")
    model = build()
    values = [str(tuple(layer.output.shape)) for layer in model.layers[2:]]
    values.append(model.count_params())
    model.compile(optimizer=keras.optimizers.RMSprop(0.005), loss="binary_crossentropy")
    hist = model.fit(noisy, clean, batch_size=8, epochs=3, verbose=0, shuffle=False)
    values += hist.history["loss"]
    values += model.predict(noisy[:2], verbose=0).ravel()[:16].tolist()
    aug = model.get_layer("augment")
    values += np.asarray(aug(noisy[:1], training=False)).ravel()[:8].tolist()
    values.append(float(model.evaluate(noisy, clean, verbose=0)))
    return values
