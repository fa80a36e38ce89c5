"""tf.gather with ragged params (rows at 1-D, N-D and scalar indices, nested ragged ranks, out-of-range errors,
gradients) or ragged indices into a dense tensor, and RaggedTensor.row_starts / row_limits / nested_value_rowids,
against real TF."""

import numpy as np
import pytest

from compat_tests.tensorflow.harness import check, check_grad


def _parts(r):
    """A ragged result as its flat values and row partitions (a dense one unchanged)."""
    return (r.flat_values, r.nested_row_splits) if hasattr(r, "flat_values") else r


ROWS = [[1.0, 2.0], [], [3.0, 4.0, 5.0]]


@pytest.mark.parametrize("indices", [[2, 0, 2], [], [[2, 0], [1, 1]], 2, [-1], [3], np.array([1, 0], np.int64)])
def test_gather_rows(indices):
    check(lambda tf: _parts(tf.gather(tf.ragged.constant(ROWS), indices)))


def test_gather_rows_of_nested_ragged():
    check(lambda tf: _parts(tf.gather(tf.ragged.constant([[[1], [2, 3]], [[4]], []]), [1, 0, 2])))


def test_gather_at_ragged_indices():
    check(lambda tf, table: _parts(tf.gather(table, tf.ragged.constant([[0, 1], [], [1]]))),
          np.array([[1.0, 2.0], [3.0, 4.0]], np.float32))


def test_gather_gradients():
    def fn(tf, v):
        rows = tf.RaggedTensor.from_row_splits(v * 2.0, [0, 2, 2, 3])
        picked = tf.gather(rows, [2, 0, 2]).flat_values
        looked_up = tf.gather(v, tf.ragged.constant([[0, 2], [2]])).flat_values
        return picked * tf.range(1.0, 5.0), looked_up
    check_grad(fn, np.array([1.0, -2.0, 3.0], np.float32))


@pytest.mark.parametrize("method", ["row_starts", "row_limits", "nested_value_rowids"])
@pytest.mark.parametrize("rows", [[[1], [2, 3], []], [[[1], [2, 3]], [[4]]]])
def test_partitions(method, rows):
    check(lambda tf: getattr(tf.ragged.constant(rows), method)())


def test_indexed_slices_str():
    def fn(tf, v):
        with tf.GradientTape() as tape:
            y = tf.reduce_sum(tf.gather(v, [0, 2]))
        return str(tape.gradient(y, v))
    check(fn, np.array([1.0, 2.0, 3.0], np.float32))
