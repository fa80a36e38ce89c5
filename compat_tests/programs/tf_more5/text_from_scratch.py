"""The Keras "Text classification from scratch" example, shrunk: a TextVectorization layer with a custom
standardization (lowercase, strip an HTML break, strip punctuation with tf.strings.regex_replace), adapted on a
text-only dataset, applied in a tf.data map (cache/prefetch), an Embedding + Dropout + two strided Conv1D +
GlobalMaxPooling1D model on the integer sequences, binary crossentropy fit, then the end-to-end model
(string input -> vectorize -> model) evaluated on raw strings."""

import re
import string

import numpy as np
import tensorflow as tf
from tensorflow import keras
from tensorflow.keras import layers

WORDS = ["good", "great", "fine", "bad", "awful", "poor", "movie", "plot", "actor", "the", "a", "was", "really"]


def custom_standardization(input_data):
    lowercase = tf.strings.lower(input_data)
    stripped_html = tf.strings.regex_replace(lowercase, "<br />", " ")
    return tf.strings.regex_replace(stripped_html, f"[{re.escape(string.punctuation)}]", "")


def make_reviews(rng, n):
    texts, labels = [], []
    for _ in range(n):
        words = list(rng.choice(WORDS, rng.integers(4, 12)))
        score = sum(w in ("good", "great", "fine") for w in words) - sum(w in ("bad", "awful", "poor") for w in words)
        texts.append(" ".join(w.capitalize() if rng.random() < 0.3 else w for w in words)
                     + ("<br />!" if rng.random() < 0.5 else "."))
        labels.append(1 if score > 0 else 0)
    return np.array(texts), np.array(labels, dtype=np.int64)


def main():
    keras.utils.set_random_seed(44)
    rng = np.random.default_rng(44)
    texts, labels = make_reviews(rng, 96)
    raw_train_ds = tf.data.Dataset.from_tensor_slices((texts[:64], labels[:64])).batch(16)
    raw_val_ds = tf.data.Dataset.from_tensor_slices((texts[64:], labels[64:])).batch(16)

    max_features, embedding_dim, sequence_length = 40, 8, 16
    vectorize_layer = layers.TextVectorization(standardize=custom_standardization, max_tokens=max_features,
                                               output_mode="int", output_sequence_length=sequence_length)
    text_ds = raw_train_ds.map(lambda x, y: x)
    vectorize_layer.adapt(text_ds)
    values = [str(vectorize_layer.get_vocabulary()[:8])]

    def vectorize_text(text, label):
        text = tf.expand_dims(text, -1)
        return vectorize_layer(text), label

    train_ds = raw_train_ds.map(vectorize_text).cache().prefetch(buffer_size=10)
    val_ds = raw_val_ds.map(vectorize_text).cache().prefetch(buffer_size=10)
    first, _ = next(iter(train_ds))
    values += [str(first.shape), str(first.dtype), float(tf.reduce_sum(first))]

    inputs = keras.Input(shape=(None,), dtype="int64")
    x = layers.Embedding(max_features, embedding_dim)(inputs)
    x = layers.Dropout(0.5)(x)
    x = layers.Conv1D(16, 3, padding="valid", activation="relu", strides=2)(x)
    x = layers.Conv1D(16, 3, padding="valid", activation="relu", strides=2)(x)
    x = layers.GlobalMaxPooling1D()(x)
    x = layers.Dense(16, activation="relu")(x)
    x = layers.Dropout(0.5)(x)
    predictions = layers.Dense(1, activation="sigmoid", name="predictions")(x)
    model = keras.Model(inputs, predictions)
    model.compile(loss="binary_crossentropy", optimizer="adam", metrics=["accuracy"])
    history = model.fit(train_ds, validation_data=val_ds, epochs=2, verbose=0)
    values += history.history["loss"] + history.history["val_loss"] + history.history["accuracy"]

    inputs = keras.Input(shape=(1,), dtype="string")
    indices = vectorize_layer(inputs)
    outputs = model(indices)
    end_to_end_model = keras.Model(inputs, outputs)
    end_to_end_model.compile(loss="binary_crossentropy", optimizer="adam", metrics=["accuracy"])
    values += end_to_end_model.evaluate(raw_val_ds, verbose=0)
    values += [float(v) for v in end_to_end_model.predict(tf.constant([["Great movie!"], ["awful plot"]]),
                                                          verbose=0).ravel()]
    return values


if __name__ == "__main__":
    print(main())
