"""Everyday TF2 indexing inside tf.function, as Stack Overflow answers write it: a function with an input_signature
of unknown batch size and one with reduce_retracing=True (tracing counts printed), a tf.Variable updated in graphs by
assign_add, scatter_nd_update and read_value, tf.gather with batch_dims, tf.gather_nd of (row, column) pairs,
tf.tensor_scatter_nd_add building a histogram, tf.where broadcasting a column against a row, tf.einsum with an
ellipsis, tf.math.unsorted_segment_mean pooling, then a tiny GradientTape regression through those ops."""

import numpy as np
import tensorflow as tf


@tf.function(input_signature=[tf.TensorSpec([None, 4], tf.float32), tf.TensorSpec([None], tf.int32)])
def pick_columns(table, columns):
    picked = tf.gather(table, columns[:, None], batch_dims=1)
    pairs = tf.stack([tf.range(tf.shape(table)[0]), columns], axis=1)
    return tf.squeeze(picked, 1), tf.gather_nd(table, pairs)


@tf.function(reduce_retracing=True)
def scaled_sum(x, scale):
    return tf.reduce_sum(x * scale, axis=-1)


counter = tf.Variable(0, dtype=tf.int64)
table = tf.Variable(tf.zeros([5, 3]))


@tf.function
def update_table(rows, updates):
    counter.assign_add(tf.cast(tf.shape(rows)[0], tf.int64))
    table.scatter_nd_update(rows[:, None], updates)
    before = table.read_value()
    table.assign_add(tf.ones_like(before) * 0.5)
    return before, table.read_value(), counter.read_value()


def main():
    rng = np.random.default_rng(12)
    tf.random.set_seed(12)
    values = []
    data = rng.normal(size=(6, 4)).astype(np.float32)
    cols = np.array([0, 3, 1, 2, 2, 0], np.int32)
    picked, nd = pick_columns(tf.constant(data), tf.constant(cols))
    values += picked.numpy().tolist() + nd.numpy().tolist()
    picked, _ = pick_columns(tf.constant(data[:3]), tf.constant(cols[:3]))
    values += picked.numpy().tolist()
    values.append(int(pick_columns.experimental_get_tracing_count()))
    values.append(str(pick_columns.get_concrete_function().structured_outputs[0].shape))

    for n in (3, 5, 7):
        values.append(float(tf.reduce_sum(scaled_sum(tf.ones([2, n]), tf.constant(2.0)))))
    values.append(int(scaled_sum.experimental_get_tracing_count()))

    before, after, count = update_table(tf.constant([1, 3], tf.int32), tf.constant([[1., 2., 3.], [4., 5., 6.]]))
    values += before.numpy().ravel().tolist() + after.numpy().ravel().tolist() + [int(count)]
    _, after, count = update_table(tf.constant([0], tf.int32), tf.constant([[-1., -1., -1.]]))
    values += after.numpy().ravel().tolist() + [int(count), str(count.dtype)]

    bins = tf.constant([[0], [2], [2], [4], [0], [2]])
    histogram = tf.tensor_scatter_nd_add(tf.zeros([5], tf.int32), bins, tf.ones([6], tf.int32))
    values += histogram.numpy().tolist()
    grid = tf.tensor_scatter_nd_add(tf.zeros([3, 3]), tf.constant([[0, 1], [2, 2], [0, 1]]),
                                    tf.constant([1.5, 2.0, 0.25]))
    values += grid.numpy().ravel().tolist()

    column = tf.constant([[True], [False], [True]])
    chosen = tf.where(column, tf.constant([[1.0, 2.0, 3.0, 4.0]]), tf.constant(-1.0))
    values += chosen.numpy().ravel().tolist() + [str(chosen.shape)]

    a = tf.constant(rng.normal(size=(2, 3, 4, 5)).astype(np.float32))
    b = tf.constant(rng.normal(size=(5, 6)).astype(np.float32))
    contracted = tf.einsum("...ij,jk->...ik", a, b)
    traced = tf.einsum("...ii->...i", tf.constant(rng.normal(size=(2, 3, 3)).astype(np.float32)))
    values += [str(contracted.shape), float(tf.reduce_sum(contracted)), str(traced.shape)]
    values += traced.numpy().ravel().tolist()

    segments = tf.constant([0, 2, 0, 1, 2, 2])
    pooled = tf.math.unsorted_segment_mean(tf.constant(data), segments, num_segments=4)
    values += pooled.numpy().ravel().tolist()

    w = tf.Variable(tf.random.normal([4, 2], seed=3))
    opt = tf.optimizers.SGD(0.1)
    targets = tf.constant(rng.normal(size=(4, 2)).astype(np.float32))
    for _ in range(4):
        with tf.GradientTape() as tape:
            feats = tf.einsum("...i,ij->...j", tf.constant(data), w)
            seg = tf.math.unsorted_segment_mean(feats, segments, num_segments=4)
            rows = tf.gather(seg, tf.constant([[0, 1], [2, 3]]), batch_dims=0)
            masked = tf.where(tf.constant([[True], [False]])[:, :, None], rows, 0.5 * rows)
            loss = tf.reduce_mean((tf.reshape(masked, [4, 2]) - targets) ** 2)
        grad = tape.gradient(loss, w)
        opt.apply_gradients([(grad, w)])
        values += [float(loss), float(tf.norm(grad))]
    return values
