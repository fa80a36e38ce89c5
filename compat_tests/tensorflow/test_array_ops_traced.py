"""Array ops inside tf.function: each call computes from that call's values (value-dependent results
such as one_hot, sequence_mask, unique, where, boolean_mask, range and searchsorted included), as in TF 2.21."""

import numpy as np
import pytest

from compat_tests.tensorflow.harness import check

INPUTS = [(np.arange(12, dtype=np.float32).reshape(3, 4) - 5, np.array([1, 2, 2], np.int32)),
          (np.arange(12, dtype=np.float32).reshape(3, 4)[::-1] - 2, np.array([3, 0, 3], np.int32))]


@pytest.mark.parametrize("body", [
    lambda tf, x, n: tf.reshape(x, [-1])[1:5], lambda tf, x, n: tf.gather(x, n), lambda tf, x, n: tf.one_hot(n, 4),
    lambda tf, x, n: tf.sequence_mask(n, 4), lambda tf, x, n: tf.sequence_mask(n), lambda tf, x, n: tf.unique(n).y,
    lambda tf, x, n: tf.range(tf.reduce_sum(n)), lambda tf, x, n: tf.searchsorted(tf.constant([1, 3, 5]), n),
    lambda tf, x, n: tf.where(x > 0), lambda tf, x, n: tf.boolean_mask(x, x > 0), lambda tf, x, n: tf.repeat(x, n, 0),
    lambda tf, x, n: tf.reverse_sequence(x, n, seq_axis=1), lambda tf, x, n: tf.unravel_index(n, [2, 2]),
    lambda tf, x, n: tf.dynamic_partition(x, n, 4), lambda tf, x, n: tf.sort(x, direction="DESCENDING"),
    lambda tf, x, n: tf.tensor_scatter_nd_update(x, [[0], [2]], x[::2] * 2.0), lambda tf, x, n: x[n[0]],
    lambda tf, x, n: x[n[1] - 1], lambda tf, x, n: x[1:n[1], n[0] - 1], lambda tf, x, n: x[None, n[2] - 2:, ::2],
    lambda tf, x, n: tf.concat([x, tf.where(x > 0, x, -x)], 1), lambda tf, x, n: tf.pad(x, [[1, 0], [0, 2]], "REFLECT"),
])
def test_traced_calls_follow_their_inputs(body):
    def case(tf):
        traced = tf.function(lambda x, n: body(tf, x, n))
        return [traced(tf.constant(x), tf.constant(n)) for x, n in INPUTS]
    check(case)


def test_traced_assertion_checks_every_call():
    def case(tf):
        traced = tf.function(lambda n: (tf.debugging.assert_less(n, 3), n * 2)[1])
        first = traced(tf.constant([1, 2, 2]))
        try:
            traced(tf.constant([1, 2, 7]))
        except tf.errors.InvalidArgumentError:
            return first, "raised"
        return first, "passed"
    check(case)


def test_split_by_sizes_of_a_varying_dim_under_a_relaxed_signature():
    # the sizes are given, the dim is known only per call (a None dim of the signature)
    def case(tf):
        traced = tf.function(lambda x: tf.split(x, [2, -1]), input_signature=[tf.TensorSpec([None], tf.float32)])
        fixed = tf.function(lambda x: tf.split(x, [2, 1, 2]), input_signature=[tf.TensorSpec([None], tf.float32)])
        return traced(tf.range(5.0)), traced(tf.range(3.0)), fixed(tf.range(5.0))
    check(case)
