"""Reproducible randomness as in the TF "random number generation" guide, driving a tf.data augmentation pipeline:
tf.random.Generator.from_seed (philox) with split, normal/uniform (float and int ranges)/truncated_normal/binomial,
reset_from_seed and state snapshots; make_seeds feeding tf.random.stateless_* (uniform, normal, truncated_normal,
categorical, binomial, poisson, gamma, parameterized_truncated_normal), tf.random.experimental.stateless_fold_in and
stateless_shuffle, and the tf.image.stateless_random_* colour ops (hue, saturation, brightness, contrast) in a
Dataset.map keyed by per-element seeds; a small CNN trained on the augmented batches."""

import keras
import numpy as np
import tensorflow as tf


def stats(t):
    t = tf.cast(t, tf.float32)
    return [float(tf.reduce_mean(t)), float(tf.math.reduce_std(t)), float(tf.reduce_min(t)), float(tf.reduce_max(t))]


def main():
    values = []
    g = tf.random.Generator.from_seed(1234)
    values += stats(g.normal([50])) + stats(g.uniform([50], minval=-1, maxval=3))
    values += stats(g.uniform([40], minval=0, maxval=7, dtype=tf.int64))
    values += stats(g.truncated_normal([30], stddev=2.0)) + stats(g.binomial([20], counts=10.0, probs=0.3))
    children = g.split(2)
    values += [float(children[0].normal([])), float(children[1].normal([])), float(g.normal([]))]
    snapshot = g.state.numpy()
    first = g.normal([3])
    g.reset(snapshot)
    values.append(float(tf.reduce_max(tf.abs(g.normal([3]) - first))))
    g.reset_from_seed(99)
    values += [float(v) for v in g.uniform([3]).numpy()]

    seeds = g.make_seeds(4)
    values += [int(v) for v in tf.reshape(seeds, [-1]).numpy()[:4]]
    s = seeds[:, 0]
    values += stats(tf.random.stateless_uniform([60], seed=s, minval=2.0, maxval=5.0))
    values += stats(tf.random.stateless_uniform([60], seed=s, minval=0, maxval=10, dtype=tf.int32))
    values += stats(tf.random.stateless_normal([60], seed=s, mean=1.0, stddev=0.5))
    values += stats(tf.random.stateless_truncated_normal([60], seed=s))
    values += [int(v) for v in tf.random.stateless_categorical(tf.math.log([[0.1, 0.6, 0.3]]), 8, seed=s).numpy()[0]]
    values += stats(tf.random.stateless_binomial([40], seed=s, counts=5.0, probs=0.4))
    values += stats(tf.random.stateless_poisson([40], seed=s, lam=3.0))
    values += stats(tf.random.stateless_gamma([40], seed=s, alpha=2.0))
    values += stats(tf.random.stateless_parameterized_truncated_normal([40], seed=s, means=0.0, stddevs=1.0,
                                                                       minvals=-0.5, maxvals=1.5))
    folded = tf.random.experimental.stateless_fold_in(s, 7)
    values += [int(v) for v in folded.numpy()]
    values += [int(v) for v in tf.random.experimental.stateless_shuffle(tf.range(8), seed=folded).numpy()]

    rng = np.random.default_rng(5)
    images = rng.uniform(0, 1, size=(24, 8, 8, 3)).astype(np.float32)
    labels = (images[:, :4].mean(axis=(1, 2, 3)) > images[:, 4:].mean(axis=(1, 2, 3))).astype(np.int64)
    counter = tf.data.Dataset.from_tensor_slices(tf.random.Generator.from_seed(3).make_seeds(24)[0])

    def augment(pair, seed):
        image, label = pair
        seed = tf.stack([seed, tf.constant(7, tf.int64)])
        image = tf.image.stateless_random_hue(image, 0.1, seed)
        image = tf.image.stateless_random_saturation(image, 0.6, 1.4, seed)
        image = tf.image.stateless_random_brightness(image, 0.2, seed)
        image = tf.image.stateless_random_contrast(image, 0.8, 1.2, seed)
        return tf.clip_by_value(image, 0.0, 1.0), label

    data = tf.data.Dataset.zip((tf.data.Dataset.from_tensor_slices((images, labels)), counter))
    data = data.map(augment).batch(8)
    first_batch = next(iter(data))[0]
    values += stats(first_batch)
    keras.utils.set_random_seed(11)
    model = keras.Sequential([keras.Input((8, 8, 3)), keras.layers.Conv2D(4, 3, activation="relu"),
                              keras.layers.GlobalAveragePooling2D(), keras.layers.Dense(2)])
    model.compile(optimizer=keras.optimizers.Adam(0.05),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    values += model.fit(data, epochs=3, verbose=0).history["loss"]
    return values
