"""Keras image augmentation layers placed inside a model, as in the TF data-augmentation tutorial: RandomRotation,
RandomZoom, RandomCrop, RandomBrightness and Rescaling with seed=, their output in inference mode (identity, the
crop a center crop) and their seeded draws in training mode, fill modes (reflect / constant with fill_value), the
layers' configs, and a tiny CNN with the augmentation in front, predicted and evaluated."""

import numpy as np
from tensorflow import keras


def main():
    keras.utils.set_random_seed(4)
    rng = np.random.default_rng(4)
    images = rng.uniform(0, 255, size=(4, 10, 10, 3)).astype("float32")
    values = []
    rot = keras.layers.RandomRotation(0.2, fill_mode="constant", fill_value=0.5, seed=8)
    zoom = keras.layers.RandomZoom((-0.2, 0.1), fill_mode="reflect", seed=9)
    crop = keras.layers.RandomCrop(6, 6, seed=10)
    bright = keras.layers.RandomBrightness(0.2, value_range=(0, 255), seed=11)
    for layer in (rot, zoom, crop, bright):
        out = np.asarray(layer(images, training=False))
        values += [str(out.shape), float(out.sum())]
        cfg = layer.get_config()
        values.append(" ".join(f"{k}={cfg[k]}" for k in sorted(cfg) if k not in ("dtype", "name")))
    for layer in (rot, zoom, crop, bright):
        values += np.asarray(layer(images[:2], training=True)).ravel()[:6].tolist()
    rescale = keras.layers.Rescaling(1.0 / 127.5, offset=-1)
    values += np.asarray(rescale(images[:1])).ravel()[:5].tolist()

    model = keras.Sequential([
        keras.Input((10, 10, 3)),
        keras.layers.Rescaling(1.0 / 255),
        keras.layers.RandomFlip("horizontal_and_vertical", seed=1),
        keras.layers.RandomRotation(0.1, seed=2),
        keras.layers.RandomZoom(0.1, seed=3),
        keras.layers.Conv2D(4, 3, activation="relu"),
        keras.layers.GlobalMaxPooling2D(),
        keras.layers.Dense(2, activation="softmax"),
    ])
    labels = np.array([0, 1, 1, 0])
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
    pred = model.predict(images, verbose=0)
    values += pred.ravel().tolist()
    values.append(float(model.evaluate(images, labels, verbose=0)[0]))
    values.append(len(model.non_trainable_weights))
    values.append(str([layer.__class__.__name__ for layer in model.layers]))
    return values
