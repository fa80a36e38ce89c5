"""Learning to rank, as in the TF-Ranking-free Kaggle notebooks and Stack Overflow answers: queries with lists of
candidate documents, a Keras scoring model applied per document (TimeDistributed-free: the list axis folded into the
batch with tf.reshape), a ListNet loss (softmax cross-entropy against softmax'd relevance) and a ListMLE loss (the
true order from tf.argsort with stable=True, scores gathered with batch_dims=1, reversed tf.math.cumsum of exp
for the Plackett-Luce denominators, exclusive cumsum positions), NDCG@3 from tf.math.top_k and log2 discounts,
mean reciprocal rank with tf.searchsorted, relevance label statistics with tf.unique_with_counts and
tf.math.bincount; trained with an eager GradientTape loop and Nadam."""

import keras
import numpy as np
import tensorflow as tf
from keras import layers

LIST_SIZE, FEATURES = 6, 4


def make_queries(rng, count):
    x = rng.normal(size=(count, LIST_SIZE, FEATURES)).astype(np.float32)
    signal = x[..., 0] * 1.5 - x[..., 1] + 0.3 * rng.normal(size=(count, LIST_SIZE))
    relevance = np.digitize(signal, [-1.0, 0.0, 1.0]).astype(np.float32)  # graded labels 0..3
    return x, relevance


def listnet_loss(relevance, scores):
    return tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(tf.nn.softmax(relevance), scores))


def listmle_loss(relevance, scores):
    order = tf.argsort(relevance, axis=1, direction="DESCENDING", stable=True)
    ordered = tf.gather(scores, order, batch_dims=1)
    ordered -= tf.reduce_max(ordered, axis=1, keepdims=True)
    tails = tf.math.cumsum(tf.exp(ordered), axis=1, reverse=True)
    return tf.reduce_mean(tf.reduce_sum(tf.math.log(tails) - ordered, axis=1))


def ndcg_at(relevance, scores, k):
    _, top = tf.math.top_k(scores, k=k)
    gains = tf.pow(2.0, tf.gather(relevance, top, batch_dims=1)) - 1.0
    positions = tf.math.cumsum(tf.ones_like(gains), axis=1, exclusive=True)
    discounts = 1.0 / (tf.math.log(positions + 2.0) / tf.math.log(2.0))
    ideal = tf.pow(2.0, tf.sort(relevance, axis=1, direction="DESCENDING")[:, :k]) - 1.0
    dcg, ideal_dcg = tf.reduce_sum(gains * discounts, 1), tf.reduce_sum(ideal * discounts, 1)
    return tf.reduce_mean(tf.math.divide_no_nan(dcg, ideal_dcg))


def mean_reciprocal_rank(relevance, scores):
    ranks = tf.argsort(tf.argsort(scores, axis=1, direction="DESCENDING"), axis=1)
    best = tf.cast(tf.argmax(relevance, axis=1), tf.int32)
    best_rank = tf.gather(ranks, best[:, None], batch_dims=1)[:, 0]
    bins = tf.searchsorted(tf.constant([0, 1, 3]), best_rank, side="right")
    return tf.reduce_mean(1.0 / tf.cast(best_rank + 1, tf.float32)), bins


def main():
    keras.utils.set_random_seed(8)
    rng = np.random.default_rng(8)
    x, relevance = make_queries(rng, 16)
    scorer = keras.Sequential([keras.Input((FEATURES,)), layers.Dense(8, activation="gelu"),
                               layers.Dense(1, use_bias=False)])
    optimizer = keras.optimizers.Nadam(learning_rate=0.03)

    def scores_of(batch):
        flat = tf.reshape(batch, [-1, FEATURES])
        return tf.reshape(scorer(flat, training=True), [-1, LIST_SIZE])

    values = []
    labels, _, counts = tf.unique_with_counts(tf.reshape(tf.cast(relevance, tf.int32), [-1]))
    values += labels.numpy().tolist() + counts.numpy().tolist()
    values += tf.math.bincount(tf.cast(relevance, tf.int32), axis=-1, minlength=4).numpy().ravel().tolist()[:12]
    for _ in range(3):
        for start in range(0, 16, 8):
            xb, rb = tf.constant(x[start:start + 8]), tf.constant(relevance[start:start + 8])
            with tf.GradientTape() as tape:
                scores = scores_of(xb)
                loss = listnet_loss(rb, scores) + 0.5 * listmle_loss(rb, scores)
            grads = tape.gradient(loss, scorer.trainable_variables)
            optimizer.apply_gradients(zip(grads, scorer.trainable_variables))
            values.append(float(loss))
        all_scores = scores_of(tf.constant(x))
        mrr, bins = mean_reciprocal_rank(tf.constant(relevance), all_scores)
        values += [float(ndcg_at(tf.constant(relevance), all_scores, 3)), float(mrr)]
    values += bins.numpy().tolist()
    values += tf.math.top_k(all_scores[0], k=3).indices.numpy().tolist()
    values.append(float(tf.reduce_logsumexp(all_scores)))
    return values
