"""RaggedTensor.to_sparse and RaggedTensor.from_sparse against real TF: indices in row-major order (nested ragged
dims and dense inner dims), bounding dense shapes, empty rows and tensors, strings, right-raggedness and rank
errors, and gradients flowing through the values both ways."""

import numpy as np
import pytest

from compat_tests.tensorflow.harness import check, check_grad


def _parts(st):
    return st.indices, st.values, st.dense_shape


@pytest.mark.parametrize("rows", [[[1, 2], [], [3, 4, 5]], [[[1, 2], [3]], [], [[4]]], [[]], [[b"a"], [b"b", b"c"]]])
def test_to_sparse_of_constant(rows):
    check(lambda tf: _parts(tf.ragged.constant(rows).to_sparse()))


def test_to_sparse_with_dense_inner_dims():
    check(lambda tf, v: _parts(tf.RaggedTensor.from_row_splits(v, [0, 1, 1, 3]).to_sparse()),
          np.arange(12, dtype=np.float32).reshape(3, 2, 2))


def test_to_sparse_of_nested_row_lengths():
    check(lambda tf, v: _parts(tf.RaggedTensor.from_nested_row_lengths(v, [[2, 0, 1], [1, 3, 2]]).to_sparse()),
          np.arange(6, dtype=np.int64))


@pytest.mark.parametrize("indices, shape", [
    ([[0, 0], [0, 1], [2, 0]], [4, 3]),
    ([[2, 0], [0, 0], [0, 1]], [3, 2]),  # unsorted rows: only right-raggedness is checked
    ([[0, 0], [0, 1], [2, 1]], [3, 2]),  # not right-ragged
    ([[0, 1]], [1, 2]),
    ([[0, 0, 0]], [1, 1, 1]),  # rank 3
])
def test_from_sparse(indices, shape):
    check(lambda tf: (lambda r: (r.values, r.row_splits))(
        tf.RaggedTensor.from_sparse(tf.SparseTensor(indices, list(range(10, 10 + len(indices))), shape))))


def test_from_sparse_of_empty():
    check(lambda tf: tf.RaggedTensor.from_sparse(tf.SparseTensor(tf.zeros([0, 2], tf.int64), tf.zeros([0]),
                                                                 [2, 3])).row_splits)


def test_round_trip_gradients():
    def fn(tf, v):
        sparse = tf.RaggedTensor.from_row_splits(v * 2.0, [0, 2, 2, 5]).to_sparse()
        back = tf.RaggedTensor.from_sparse(sparse)
        return tf.sparse.to_dense(sparse), back.values * tf.range(1.0, 6.0)
    check_grad(fn, np.linspace(-1.0, 1.0, 5).astype(np.float32))
