"""Bag-of-words text classification with raw tf ops, as in the TF "load text" and tf.lookup guides: tf.strings.lower,
regex_replace and split into a RaggedTensor, ngrams, unicode_split, to_hash_bucket_fast, a vocabulary table
(tf.lookup.StaticVocabularyTable over a KeyValueTensorInitializer, with OOV buckets) and a label table
(tf.lookup.StaticHashTable with a default value), ragged row_lengths / to_tensor / tf.ragged.constant and
map_flat_values, and a Keras bag-of-words model fit on multi-hot vectors built with tf.math.bincount inside a tf.data
map."""

import numpy as np
import tensorflow as tf
from tensorflow import keras

POSITIVE = ["good", "great", "fine", "lovely", "superb"]
NEGATIVE = ["bad", "awful", "poor", "dull", "boring"]
FILLER = ["the", "movie", "was", "plot", "acting", "and", "very", "really"]


def make_corpus(rng, n):
    texts, labels = [], []
    for _ in range(n):
        positive = rng.random() < 0.5
        words = list(rng.choice(FILLER, rng.integers(2, 6))) + list(rng.choice(POSITIVE if positive else NEGATIVE, 2))
        rng.shuffle(words)
        texts.append((" ".join(w.upper() if rng.random() < 0.2 else w for w in words) + "!!").encode())
        labels.append("pos" if positive else "neg")
    return np.array(texts, dtype=object), np.array(labels, dtype=object)


def main():
    keras.utils.set_random_seed(61)
    rng = np.random.default_rng(61)
    texts, labels = make_corpus(rng, 96)
    values = []

    cleaned = tf.strings.regex_replace(tf.strings.lower(texts), r"[^a-z ]", "")
    tokens = tf.strings.split(cleaned)
    values += [float(v) for v in tokens.row_lengths()[:6].numpy()] + [str(tokens[0].numpy().tolist())]
    bigrams = tf.strings.ngrams(tokens, 2)
    values += [str(bigrams[1].numpy().tolist()), float(tf.reduce_sum(bigrams.row_lengths()))]
    chars = tf.strings.unicode_split(tf.constant(["héllo", "ok"]), "UTF-8")
    values += [str(chars.to_list())]
    buckets = tf.strings.to_hash_bucket_fast(tokens, 7)
    values += [float(v) for v in buckets.flat_values[:10].numpy()]

    vocab = sorted(set(POSITIVE + NEGATIVE + FILLER[:4]))
    init = tf.lookup.KeyValueTensorInitializer(tf.constant(vocab), tf.range(len(vocab), dtype=tf.int64))
    table = tf.lookup.StaticVocabularyTable(init, num_oov_buckets=3)
    size = int(table.size()) + 3
    ids = tf.ragged.map_flat_values(table.lookup, tokens)
    values += [float(table.size()), str(ids[:3].to_list()),
               float(table.lookup(tf.constant("unseen-word")).numpy())]
    queries = tf.ragged.constant([["good", "zzz"], [], ["the", "awful", "movie"]])
    values += [str(table.lookup(queries).to_list()), str(queries.row_lengths().numpy().tolist())]
    padded = ids.to_tensor(default_value=-1, shape=[None, 8])
    values += [float(v) for v in padded.numpy()[:2].ravel()]

    label_table = tf.lookup.StaticHashTable(
        tf.lookup.KeyValueTensorInitializer(["neg", "pos"], [0.0, 1.0]), default_value=-1.0)
    y = label_table.lookup(tf.constant(labels))
    values += [float(label_table.lookup(tf.constant("meh"))), float(tf.reduce_sum(y)),
               str(label_table.key_dtype), str(label_table.value_dtype)]

    def encode(text, label):
        words = tf.strings.split(tf.strings.regex_replace(tf.strings.lower(text), r"[^a-z ]", ""))
        counts = tf.math.bincount(tf.cast(table.lookup(words), tf.int32), minlength=size, maxlength=size,
                                  dtype=tf.float32)
        return tf.minimum(counts, 1.0), label_table.lookup(label)

    dataset = tf.data.Dataset.from_tensor_slices((texts, labels)).map(encode).batch(16)
    first_x, first_y = next(iter(dataset))
    values += [float(tf.reduce_sum(first_x)), float(tf.reduce_sum(first_y)), str(first_x.shape)]
    model = keras.Sequential([keras.Input((size,)), keras.layers.Dense(8, activation="relu"),
                              keras.layers.Dense(1, activation="sigmoid")])
    model.compile(optimizer=keras.optimizers.Adam(0.02), loss="binary_crossentropy", metrics=["accuracy"])
    history = model.fit(dataset, epochs=3, verbose=0)
    values += history.history["loss"] + history.history["accuracy"]
    return values


if __name__ == "__main__":
    print(main())
