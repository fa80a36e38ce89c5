"""tf.sparse.bincount against real TF 2.21: dense, sparse and ragged values, axis 0/-1, weights and their dtypes,
minlength/maxlength, binary_output, empty inputs and errors."""

import numpy as np
import pytest

from compat_tests.tensorflow.harness import check

V = np.array([[1, 3, 3, 0], [5, 5, 2, 0]], np.int32)
W = np.array([[1.0, 2, 3, 4], [5, 6, 7, 8]], np.float32)
SPARSE = ([[0, 1], [1, 0], [1, 3]], [2, 4, 4], [3, 5])


def parts(st):
    return st.indices, st.values, st.dense_shape


@pytest.mark.parametrize("kwargs", [{}, {"axis": -1}, {"axis": -1, "binary_output": True}, {"minlength": 8},
                                    {"maxlength": 3}, {"maxlength": 10, "minlength": 5}, {"maxlength": 0},
                                    {"maxlength": 3, "axis": -1}, {"minlength": 0}])
def test_dense(kwargs):
    check(lambda tf, v: parts(tf.sparse.bincount(v, **kwargs)), V)
    check(lambda tf, v: parts(tf.sparse.bincount(v, **kwargs)), V.astype(np.int64))


@pytest.mark.parametrize("dtype", ["int32", "int64", "float32", "float64", "float16"])
def test_weights(dtype):
    check(lambda tf, v: parts(tf.sparse.bincount(v, weights=tf.constant(W, dtype), axis=-1)), V)
    check(lambda tf, v: parts(tf.sparse.bincount(v, weights=tf.constant(W, dtype))), V)


def test_sparse_ragged_and_edge_inputs():
    def sparse(tf, values):
        return tf.sparse.SparseTensor(SPARSE[0], values, SPARSE[2])

    check(lambda tf: parts(tf.sparse.bincount(sparse(tf, [2, 4, 4]), axis=-1)))
    check(lambda tf: parts(tf.sparse.bincount(sparse(tf, [2, 4, 4]))))
    check(lambda tf: parts(tf.sparse.bincount(sparse(tf, [2, 4, 4]), axis=-1, weights=sparse(tf, [0.5, 1.0, 2.0]))))
    ragged = [[1, 2, 2], [], [7]]
    check(lambda tf: parts(tf.sparse.bincount(tf.ragged.constant(ragged), axis=-1)))
    check(lambda tf: parts(tf.sparse.bincount(tf.ragged.constant(ragged), binary_output=True)))
    check(lambda tf: parts(tf.sparse.bincount(tf.ragged.constant(ragged), axis=-1,
                                              weights=tf.ragged.constant([[1.0, 2.0, 3.0], [], [4.0]]))))
    check(lambda tf: parts(tf.sparse.bincount([1, 2, 2], weights=[1.0, 2.0, 3.0])))
    check(lambda tf: parts(tf.sparse.bincount(tf.constant(3))))
    check(lambda tf: parts(tf.sparse.bincount(tf.constant(np.zeros([0], np.int32)))))
    check(lambda tf: parts(tf.sparse.bincount(tf.constant(np.zeros([2, 0], np.int32)), axis=-1)))
    check(lambda tf: parts(tf.sparse.bincount(tf.constant([[[1, 2]], [[2, 2]]]))))  # rank 3 flattened for axis 0


def test_errors():
    check(lambda tf: tf.sparse.bincount(tf.constant([1.0, 2.0])))
    check(lambda tf: tf.sparse.bincount(tf.constant([1, 2], tf.int16)))
    check(lambda tf: tf.sparse.bincount(tf.constant([-1, 2])))
    check(lambda tf, v: tf.sparse.bincount(v, axis=1), V)
    check(lambda tf: tf.sparse.bincount(tf.constant([[[1]]]), axis=-1))
    check(lambda tf, v: tf.sparse.bincount(v, weights=tf.constant([1.0, 2.0])), V)
    check(lambda tf, v: tf.sparse.bincount(v, binary_output=True, weights=tf.ones([2, 4])), V)
