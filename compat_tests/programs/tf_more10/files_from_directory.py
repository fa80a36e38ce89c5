"""Datasets read from class folders on disk, as the Keras "text classification from scratch" and "image
classification from scratch" examples start (here on a temporary directory of synthetic files): text files written
with tf.io.write_file read by keras.utils.text_dataset_from_directory (validation_split with subset="both" and a
seed, class_names), PNG images made with tf.io.encode_png read by keras.utils.image_dataset_from_directory
(grayscale, resized, categorical labels), keras.utils.split_dataset on an in-memory dataset, file names listed
with tf.io.gfile.glob; a TextVectorization + Embedding model and a small CNN trained with fit on them."""

import os
import tempfile

import keras
import numpy as np
import tensorflow as tf
from keras import layers

WORDS = {"pos": ["sunny", "warm", "bright", "happy", "calm"], "neg": ["rainy", "cold", "dark", "sad", "windy"]}


def write_texts(root, rng):
    for label, words in WORDS.items():
        os.makedirs(os.path.join(root, label))
        for i in range(8):
            text = " ".join(rng.choice(words + ["day", "the"], size=int(rng.integers(3, 7))))
            tf.io.write_file(os.path.join(root, label, f"{i:02d}.txt"), text.capitalize() + ".")


def write_images(root, rng):
    for label in ("circle", "square"):
        os.makedirs(os.path.join(root, label))
        for i in range(6):
            img = np.zeros((12, 12, 1), np.uint8)
            c = rng.integers(3, 9, size=2)
            if label == "square":
                img[c[0] - 2:c[0] + 2, c[1] - 2:c[1] + 2] = 255
            else:
                yy, xx = np.mgrid[:12, :12]
                img[((yy - c[0]) ** 2 + (xx - c[1]) ** 2) <= 5] = 200
            tf.io.write_file(os.path.join(root, label, f"img_{i}.png"), tf.io.encode_png(img))


def main():
    keras.utils.set_random_seed(9)
    rng = np.random.default_rng(9)
    values = []
    with tempfile.TemporaryDirectory() as tmp:
        text_root, image_root = os.path.join(tmp, "texts"), os.path.join(tmp, "images")
        write_texts(text_root, rng)
        write_images(image_root, rng)
        values.append(len(tf.io.gfile.glob(os.path.join(text_root, "*", "*.txt"))))

        train, valid = keras.utils.text_dataset_from_directory(text_root, batch_size=4, validation_split=0.25,
                                                               subset="both", seed=1337)
        values += [str(train.class_names), str(train.element_spec)]
        first_texts, first_labels = next(iter(valid))
        values += [t.decode() for t in first_texts.numpy().tolist()] + first_labels.numpy().tolist()

        vectorize = layers.TextVectorization(max_tokens=20, output_sequence_length=6)
        vectorize.adapt(train.map(lambda text, label: text))
        values.append(str(vectorize.get_vocabulary()))
        text_model = keras.Sequential([keras.Input((6,), dtype="int64"), layers.Embedding(20, 4),
                                       layers.GlobalAveragePooling1D(), layers.Dense(1, activation="sigmoid")])
        text_model.compile(optimizer=keras.optimizers.Adam(0.05), loss="binary_crossentropy", metrics=["accuracy"])
        history = text_model.fit(train.map(lambda text, label: (vectorize(text), label)), epochs=2, verbose=0)
        values += history.history["loss"] + history.history["accuracy"]
        values += text_model(vectorize(first_texts)).numpy().ravel().tolist()

        images = keras.utils.image_dataset_from_directory(image_root, color_mode="grayscale", image_size=(8, 8),
                                                         label_mode="categorical", batch_size=4, seed=3)
        values += [str(images.class_names), str(images.element_spec)]
        batch_images, batch_labels = next(iter(images))
        values += [float(tf.reduce_sum(batch_images))] + batch_labels.numpy().ravel().tolist()
        cnn = keras.Sequential([keras.Input((8, 8, 1)), layers.Rescaling(1.0 / 255), layers.Conv2D(4, 3),
                                layers.GlobalMaxPooling2D(), layers.Dense(2, activation="softmax")])
        cnn.compile(optimizer=keras.optimizers.SGD(0.1), loss="categorical_crossentropy")
        values += cnn.fit(images, epochs=2, verbose=0).history["loss"]

    left, right = keras.utils.split_dataset(tf.data.Dataset.range(10), left_size=0.7, shuffle=True, seed=4)
    values += [int(v) for v in left] + [int(v) for v in right]
    return values
