"""Beam-search-like and dynamic-length loops in tf.function: hypotheses growing along a loop variable declared
with shape_invariants, tf.cond inside the loop, `break` on a tensor condition, a `while` over a tensor with a
Python-int counter."""

import numpy as np
import tensorflow as tf

BEAM, VOCAB = 3, 5


def make_scorer():
    transition = tf.constant(np.random.default_rng(4).standard_normal((VOCAB, VOCAB)).astype(np.float32))
    return lambda last: tf.nn.log_softmax(tf.gather(transition, last), axis=-1)


SCORE = make_scorer()


@tf.function
def beam_search(start, steps):
    sequences = tf.fill([BEAM, 1], start)
    scores = tf.constant([0.0] + [-1e9] * (BEAM - 1))
    for _ in tf.range(steps):
        tf.autograph.experimental.set_loop_options(shape_invariants=[(sequences, tf.TensorShape([BEAM, None]))])
        candidates = scores[:, None] + SCORE(sequences[:, -1])
        top_scores, flat = tf.math.top_k(tf.reshape(candidates, [-1]), k=BEAM)
        parents, tokens = flat // VOCAB, flat % VOCAB
        sequences = tf.concat([tf.gather(sequences, parents), tokens[:, None]], axis=1)
        scores = top_scores
    return sequences, scores


@tf.function
def collatz_lengths(values, limit):
    lengths = tf.TensorArray(tf.int32, size=tf.size(values))
    for i in tf.range(tf.size(values)):
        x = values[i]
        count = tf.constant(0)
        while x != 1:
            x = tf.cond(x % 2 == 0, lambda x=x: x // 2, lambda x=x: 3 * x + 1)
            count += 1
            if count >= limit:
                break
        lengths = lengths.write(i, count)
    return lengths.stack()


@tf.function
def python_counter_while(x):
    n = 0
    while n < 4:  # a Python int: unrolled while tracing
        x = x * 1.5 - 0.25
        n += 1
    i = 0
    while tf.reduce_sum(x) < 50.0:  # a tensor: a graph loop (i becomes a tensor)
        x = x * 1.5
        i += 1
    return x, i


def main():
    values = []
    for start, steps in ((0, 4), (2, 6), (4, 1)):
        sequences, scores = beam_search(tf.constant(start), tf.constant(steps))
        values += sequences.numpy().astype(float).ravel().tolist() + scores.numpy().tolist()
        values += sequences.shape.as_list()
    values.append(float(beam_search.experimental_get_tracing_count()))
    values += collatz_lengths(tf.constant([1, 6, 7, 27, 9]), tf.constant(200)).numpy().astype(float).tolist()
    values += collatz_lengths(tf.constant([27, 97, 3]), tf.constant(20)).numpy().astype(float).tolist()
    x, i = python_counter_while(tf.constant([1.0, 2.0]))
    values += x.numpy().tolist() + [float(i)]
    x, i = python_counter_while(tf.constant([0.5, 0.5, 0.5]))
    values += x.numpy().tolist() + [float(i), float(python_counter_while.experimental_get_tracing_count())]
    return values


if __name__ == "__main__":
    print(main())
