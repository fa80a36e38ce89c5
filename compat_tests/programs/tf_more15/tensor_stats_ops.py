"""Counting and ranking utilities as used in data-analysis notebooks: tf.math.bincount (weights, minlength,
maxlength, axis=-1, binary_output), tf.histogram_fixed_width and histogram_fixed_width_bins, tf.unique and
tf.unique_with_counts, tf.math.top_k (sorted, ties), tf.sort / tf.argsort with stable=True and DESCENDING,
tf.math.unsorted_segment_* reductions over unique ids, tf.math.cumsum exclusive/reverse and tf.searchsorted."""

import numpy as np
import tensorflow as tf


def main():
    rng = np.random.default_rng(11)
    ids = tf.constant(rng.integers(0, 6, size=20), tf.int32)
    w = tf.constant(rng.uniform(size=20), tf.float32)
    values = []
    values += tf.math.bincount(ids).numpy().tolist()
    values += tf.math.bincount(ids, weights=w).numpy().tolist()
    values += tf.math.bincount(ids, minlength=9).numpy().tolist()
    values += tf.math.bincount(ids, maxlength=3).numpy().tolist()
    values.append(str(tf.math.bincount(ids).dtype.name))
    two = tf.reshape(ids, [4, 5])
    values += tf.math.bincount(two, axis=-1).numpy().ravel().tolist()
    values += tf.math.bincount(two, axis=-1, binary_output=True).numpy().ravel().tolist()

    data = tf.constant(rng.normal(size=50), tf.float32)
    hist = tf.histogram_fixed_width(data, [-2.0, 2.0], nbins=8)
    values += hist.numpy().tolist() + [hist.dtype.name]
    values += tf.histogram_fixed_width_bins(data[:10], [-2.0, 2.0], nbins=5).numpy().tolist()

    y, idx = tf.unique(ids)
    values += y.numpy().tolist() + idx.numpy().tolist()
    y2, idx2, counts = tf.unique_with_counts(tf.constant(["b", "a", "b", "c", "a", "b"]))
    values += [s.decode() for s in y2.numpy()] + idx2.numpy().tolist() + counts.numpy().tolist()
    sums = tf.math.unsorted_segment_sum(w, idx, tf.size(y))
    means = tf.math.unsorted_segment_mean(w, idx, tf.size(y))
    maxes = tf.math.unsorted_segment_max(w, idx, tf.size(y))
    values += sums.numpy().tolist() + means.numpy().tolist() + maxes.numpy().tolist()

    scores = tf.constant([[0.3, 0.9, 0.3, 0.1, 0.9], [1.0, -1.0, 2.0, 2.0, 0.0]])
    top = tf.math.top_k(scores, k=3)
    values += top.values.numpy().ravel().tolist() + top.indices.numpy().ravel().tolist()
    values.append(repr(type(top).__name__))
    values += tf.sort(scores, direction="DESCENDING").numpy().ravel().tolist()
    values += tf.argsort(scores, stable=True).numpy().ravel().tolist()
    values += tf.argsort(scores, direction="DESCENDING", stable=True).numpy().ravel().tolist()
    values += tf.argsort(scores, axis=0, stable=True).numpy().ravel().tolist()
    values += tf.math.cumsum(scores, axis=1, exclusive=True).numpy().ravel().tolist()
    values += tf.math.cumsum(scores, axis=1, reverse=True).numpy().ravel().tolist()
    values += tf.math.cumprod(scores, axis=1, exclusive=True, reverse=True).numpy().ravel().tolist()
    edges = tf.constant([[0.0, 1.0, 2.0], [0.5, 1.5, 2.5]])
    q = tf.constant([[1.0, 2.5], [0.5, 3.0]])
    values += tf.searchsorted(edges, q).numpy().ravel().tolist()
    values += tf.searchsorted(edges, q, side="right").numpy().ravel().tolist()
    values += tf.math.in_top_k(tf.constant([1, 2]), scores, k=2).numpy().tolist()
    values += tf.math.reduce_std(scores, axis=1).numpy().tolist()
    values += tf.math.reduce_variance(scores, axis=0, keepdims=True).numpy().ravel().tolist()
    return values
