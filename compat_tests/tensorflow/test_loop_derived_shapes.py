"""Shapes read inside graph loop bodies from values COMPUTED from a value whose shape varies by iteration (a loop
variable under relaxed shape invariants, a dataset element whose batch dim is unknown), against TF 2.21.

Each loop body is a subgraph optimized on its own: ``tf.shape(x * 2)`` there must follow each iteration, not fold
to the shape of the tracing run (the dataset loop's tracing run sees batches of one: a silently wrong count)."""

import numpy as np

from compat_tests.tensorflow.harness import check


def test_while_loop_shape_of_a_value_computed_from_a_growing_variable():
    def case(tf, n):
        def body(i, x, total):
            return i + 1, tf.concat([x, x[:1]], 0), total + tf.shape(x + 1.0)[0] + tf.size(tf.nn.relu(x))
        loop = tf.function(lambda n: tf.while_loop(
            lambda i, x, total: i < n, body, (0, tf.zeros([1]), 0),
            shape_invariants=(tf.TensorShape([]), tf.TensorShape([None]), tf.TensorShape([]))))
        return loop(n), loop(n + 2)
    check(case, np.array(4, np.int32))


def test_autograph_loop_shape_of_a_value_computed_from_a_relaxed_variable():
    def case(tf, n):
        @tf.function
        def grow(n):
            x = tf.zeros([1])
            total = tf.constant(0)
            for _ in tf.range(n):
                tf.autograph.experimental.set_loop_options(shape_invariants=[(x, tf.TensorShape([None]))])
                total += tf.shape(tf.cast(x * 2.0, tf.int32))[0]
                x = tf.concat([x, [1.0]], 0)
            return total, x
        return grow(n)
    check(case, np.array(5, np.int32))


def test_dataset_loop_batch_size_of_values_computed_from_the_batch():
    def case(tf, x, y):
        ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(4)

        @tf.function
        def count(ds):
            rows = tf.constant(0)
            sizes = tf.constant(0)
            total = tf.constant(0.0)
            for a, b in ds:
                logits = tf.matmul(a, tf.ones([3, 2]))
                rows += tf.shape(tf.cast(b, tf.float32))[0]
                sizes += tf.size(logits)
                total += tf.cast(tf.shape(tf.argmax(logits, axis=1))[0], tf.float32) * tf.reduce_sum(a)
            return rows, sizes, total
        return count(ds)
    rng = np.random.default_rng(0)
    check(case, rng.standard_normal((10, 3)).astype(np.float32), np.arange(10, dtype=np.int32))


def test_dataset_loop_keras_metrics_count_every_sample():
    def case(tf, x, y):
        ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(5)
        accuracy = tf.keras.metrics.SparseCategoricalAccuracy()
        mean = tf.keras.metrics.Mean()

        @tf.function
        def evaluate(ds):
            for a, b in ds:
                logits = tf.matmul(a, tf.constant([[1.0, -1.0, 0.5], [0.5, 1.0, -1.0]]))
                accuracy.update_state(b, logits)
                mean.update_state(tf.reduce_max(logits, axis=1))
            return accuracy.result(), mean.result()
        return evaluate(ds), [v.numpy() for v in accuracy.variables + mean.variables]
    rng = np.random.default_rng(1)
    check(case, rng.standard_normal((12, 2)).astype(np.float32), rng.integers(0, 3, 12).astype(np.int32))
