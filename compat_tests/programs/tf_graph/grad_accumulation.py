"""Gradient accumulation over micro-batches inside a converted loop: nested tf.functions calling each other, a
GradientTape inside a `for i in tf.range(n)` loop, accumulators kept in variables and in loop-carried tensors,
`enumerate` over a dataset inside tf.function, and a clipped update applied once per accumulated batch."""

import numpy as np
import tensorflow as tf


class MLP(tf.Module):
    def __init__(self):
        super().__init__()
        init = tf.keras.initializers.GlorotUniform(seed=8)
        self.w1 = tf.Variable(init([5, 16]), name="w1")
        self.b1 = tf.Variable(tf.zeros([16]), name="b1")
        self.w2 = tf.Variable(init([16, 1]), name="w2")
        self.b2 = tf.Variable(tf.zeros([1]), name="b2")

    @tf.function
    def __call__(self, x):
        return tf.nn.gelu(x @ self.w1 + self.b1) @ self.w2 + self.b2


model = MLP()
accumulators = [tf.Variable(tf.zeros_like(v), trainable=False) for v in model.trainable_variables]


@tf.function
def loss_fn(x, y):
    return tf.reduce_mean(tf.square(model(x) - y))


@tf.function
def micro_step(x, y):
    with tf.GradientTape() as tape:
        loss = loss_fn(x, y)
    return loss, tape.gradient(loss, model.trainable_variables)


@tf.function
def accumulate_in_loop(x, y, micro):
    # The loop carries the gradient sums as tensors; each micro-batch is sliced with tensor bounds.
    n = tf.shape(x)[0] // micro
    sums = [tf.zeros_like(v) for v in model.trainable_variables]
    total = 0.0
    for i in tf.range(n):
        loss, grads = micro_step(x[i * micro:(i + 1) * micro], y[i * micro:(i + 1) * micro])
        sums = [s + g for s, g in zip(sums, grads)]
        total += loss
    grads = [s / tf.cast(n, tf.float32) for s in sums]
    clipped, norm = tf.clip_by_global_norm(grads, 1.0)
    for v, g in zip(model.trainable_variables, clipped):
        v.assign_sub(0.1 * g)
    return total / tf.cast(n, tf.float32), norm


@tf.function
def accumulate_dataset(dataset):
    # Variables as accumulators, updated inside a dataset loop; enumerate gives the micro-batch index.
    for acc in accumulators:
        acc.assign(tf.zeros_like(acc))
    count = tf.constant(0, tf.int64)
    weighted = tf.constant(0.0)
    for i, (x, y) in enumerate(dataset):
        loss, grads = micro_step(x, y)
        for acc, g in zip(accumulators, grads):
            acc.assign_add(g)
        weighted += tf.cast(i + 1, tf.float32) * loss
        count = i + 1
    for v, acc in zip(model.trainable_variables, accumulators):
        v.assign_sub(0.05 * acc / tf.cast(count, tf.float32))
    return weighted, count


def main():
    rng = np.random.default_rng(8)
    x = rng.standard_normal((48, 5)).astype(np.float32)
    y = (np.sin(x[:, :1]) + 0.5 * x[:, 1:2] * x[:, 2:3]).astype(np.float32)
    values = []
    for micro in (8, 12, 8, 16):
        loss, norm = accumulate_in_loop(x, y, tf.constant(micro))
        values += [float(loss), float(norm)]
    dataset = tf.data.Dataset.from_tensor_slices((x, y)).shuffle(48, seed=6).batch(10)
    for _ in range(3):
        weighted, count = accumulate_dataset(dataset)
        values += [float(weighted), float(count)]
    values += [float(tf.reduce_sum(acc)) for acc in accumulators]
    values += [float(loss_fn(x, y)), float(accumulate_in_loop.experimental_get_tracing_count()),
               float(accumulate_dataset.experimental_get_tracing_count())]
    return values


if __name__ == "__main__":
    print(main())
