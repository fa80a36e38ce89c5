"""Sparse features and TensorArray bookkeeping, as Stack Overflow answers combine them: TextVectorization with
a custom split callable, ngrams=2 and output_mode="tf_idf" (and "count" with pad_to_max_tokens) feeding a Dense
model trained with fit, its output turned into a tf.SparseTensor (tf.sparse.from_dense) multiplied by the
trained kernel with sparse_dense_matmul; a tf.function using TensorArray.unstack / scatter / gather / concat / split /
stack with element_shape and dynamic_size, and tf.sparse ops (sparse.add, sparse.maximum, sparse.slice,
sparse.retain, sparse.fill_empty_rows) on the fitted model's inputs."""

import keras
import numpy as np
import tensorflow as tf
from keras import layers

WORDS = ["red", "green", "blue", "fast", "slow", "car", "bike", "boat"]


def comma_split(text):
    return tf.strings.split(text, sep=",")


@tf.function
def array_bookkeeping(rows):
    unstacked = tf.TensorArray(tf.float32, size=0, dynamic_size=True, element_shape=[3]).unstack(rows)
    scattered = tf.TensorArray(tf.float32, size=4).scatter([3, 0, 2, 1], rows[:4] * 2.0)
    gathered = scattered.gather([1, 3])
    pieces = tf.TensorArray(tf.float32, size=3, infer_shape=False).split(tf.reshape(rows, [-1]), [4, 6, 8])
    doubled = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
    for i in tf.range(unstacked.size()):
        doubled = doubled.write(i, tf.reduce_sum(unstacked.read(i)))
    return gathered, pieces.concat(), pieces.read(1), doubled.stack(), scattered.stack()


def main():
    keras.utils.set_random_seed(33)
    rng = np.random.default_rng(33)
    texts = [",".join(rng.choice(WORDS, size=int(rng.integers(2, 5)))) for _ in range(24)]
    labels = np.array([float("red" in t or "boat" in t) for t in texts], np.float32)
    values = []

    tfidf = layers.TextVectorization(max_tokens=16, split=comma_split, ngrams=2, output_mode="tf_idf")
    tfidf.adapt(texts)
    values.append(str(tfidf.get_vocabulary()))
    counts = layers.TextVectorization(max_tokens=12, split=comma_split, output_mode="count", pad_to_max_tokens=True)
    counts.adapt(texts)
    values += counts(texts[:2]).numpy().ravel().tolist()

    features = tfidf(tf.constant(texts))
    sparse = tf.sparse.from_dense(features)
    values += [int(sparse.indices.shape[0]), float(tf.sparse.reduce_sum(sparse))]

    inputs = keras.Input((16,))
    hidden = layers.Dense(6, activation="relu")(inputs)
    model = keras.Model(inputs, layers.Dense(1, activation="sigmoid")(hidden))
    model.compile(optimizer=keras.optimizers.Adam(0.05), loss="binary_crossentropy")
    ds = tf.data.Dataset.from_tensor_slices((features, labels)).batch(8)
    values += model.fit(ds, epochs=2, verbose=0).history["loss"]
    # the first layer applied to the sparse features by hand, as a sparse input layer computes it
    kernel, bias = model.layers[1].kernel, model.layers[1].bias
    by_sparse = tf.nn.relu(tf.sparse.sparse_dense_matmul(sparse, kernel) + bias)
    values += by_sparse[:2].numpy().ravel().tolist()
    values.append(float(tf.reduce_max(tf.abs(by_sparse - model.layers[1](features)))) < 1e-5)

    gathered, joined, middle, sums, stacked = array_bookkeeping(tf.constant(rng.normal(size=(6, 3)), tf.float32))
    for t in (gathered, joined, middle, sums, stacked):
        values += tf.reshape(t, [-1]).numpy().tolist()

    first, second = tf.sparse.slice(sparse, [0, 0], [2, 16]), tf.sparse.slice(sparse, [2, 0], [2, 16])
    total = tf.sparse.add(first, second)
    values += tf.sparse.to_dense(total).numpy().ravel().tolist()
    values += tf.sparse.to_dense(tf.sparse.maximum(first, second)).numpy().ravel().tolist()
    kept = tf.sparse.retain(first, first.values > 1.0)
    values += [int(kept.indices.shape[0])]
    filled, empty = tf.sparse.fill_empty_rows(tf.sparse.slice(sparse, [0, 12], [4, 4]), -1.0)
    values += filled.values.numpy().tolist() + empty.numpy().tolist()
    return values
