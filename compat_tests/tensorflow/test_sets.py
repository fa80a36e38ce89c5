"""tf.sets.intersection/union/difference/size against real TF 2.21: dense and sparse operands, ranks, dtypes
(strings included), sorted SparseTensor results, index validation and errors."""

import numpy as np
import pytest

from compat_tests.tensorflow.harness import check

A = np.array([[1, 2, 2, 5], [3, 4, 5, 6]], np.int32)
B = np.array([[2, 5, 7, 0], [9, 3, 3, 3]], np.int32)
SPARSE = ([[0, 0], [0, 2], [1, 1], [1, 3]], [5, 1, 4, 4], [2, 4])
UNSORTED = ([[0, 2], [0, 0]], [5, 1], [2, 4])


def parts(st):
    return st.indices, st.values, st.dense_shape


def sparse(tf, spec, dtype="int32"):
    indices, values, shape = spec
    return tf.sparse.SparseTensor(indices, tf.constant(values, dtype), shape)


@pytest.mark.parametrize("op", ["intersection", "union", "difference"])
@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "int64", "uint8", "uint16"])
def test_dense_dense(op, dtype):
    check(lambda tf, a, b: parts(getattr(tf.sets, op)(a, b)), A.astype(dtype), B.astype(dtype))


@pytest.mark.parametrize("op", ["intersection", "union", "difference"])
def test_sparse_operands_and_rank3(op):
    check(lambda tf, a: parts(getattr(tf.sets, op)(a, sparse(tf, SPARSE))), A)  # Dense,Sparse
    check(lambda tf, a: parts(getattr(tf.sets, op)(sparse(tf, SPARSE), a)), A)  # swapped (aminusb flips)
    check(lambda tf: parts(getattr(tf.sets, op)(sparse(tf, SPARSE), sparse(tf, SPARSE))))
    a3 = np.array([[[1, 2], [3, 3]], [[1, 1], [4, 0]]], np.int32)
    b3 = np.array([[[1], [7]], [[2], [4]]], np.int32)
    check(lambda tf, a, b: parts(getattr(tf.sets, op)(a, b)), a3, b3)


def test_difference_directions():
    check(lambda tf, a, b: parts(tf.sets.difference(a, b, aminusb=False)), A, B)
    check(lambda tf, a: parts(tf.sets.difference(sparse(tf, SPARSE), a, aminusb=False)), A)


def test_strings_empty_and_python_values():
    check(lambda tf: parts(tf.sets.intersection(tf.constant([["a", "b", "c"]]), tf.constant([["c", "b", "z"]]))))
    check(lambda tf: parts(tf.sets.union(tf.constant([["b", "a"]]), tf.constant([["c", "a"]]))))
    check(lambda tf, a, b: parts(tf.sets.intersection(a, b)), np.zeros([2, 0], np.int32), np.zeros([2, 0], np.int32))
    check(lambda tf: parts(tf.sets.intersection([[1, 2], [3, 3]], [[2, 4], [3, 1]])))
    check(lambda tf, a: parts(tf.sets.union(a, [[2], [9]])), A)


def test_size():
    check(lambda tf: tf.sets.size(sparse(tf, SPARSE)))
    check(lambda tf: tf.sets.size(tf.sparse.from_dense(tf.constant([[[1, 2], [3, 3]], [[1, 1], [4, 0]]]))))
    check(lambda tf: tf.sets.size(sparse(tf, ([[0, 0], [0, 1]], [5, 5], [2, 4]))))
    check(lambda tf: tf.sets.size(sparse(tf, UNSORTED), validate_indices=False))
    check(lambda tf: tf.sets.size(sparse(tf, ([[0, 0], [1, 1]], ["x", "x"], [3, 2]), "string")))


def test_validation():
    check(lambda tf: tf.sets.size(sparse(tf, UNSORTED)))
    check(lambda tf: tf.sets.size(sparse(tf, ([[0, 0], [0, 0]], [1, 2], [2, 4]))))
    check(lambda tf: tf.sets.size(sparse(tf, ([[0, 5]], [1], [2, 4]))))
    check(lambda tf, a: parts(tf.sets.union(a, sparse(tf, UNSORTED))), A)
    check(lambda tf, a: parts(tf.sets.union(a, sparse(tf, UNSORTED), validate_indices=False)), A)


def test_errors():
    check(lambda tf: tf.sets.intersection(tf.constant([[1.0, 2.0]]), tf.constant([[1.0]])))  # TypeError
    check(lambda tf: tf.sets.intersection(tf.constant([[1, 2]]), tf.constant([[1, 2]], tf.int64)))
    check(lambda tf: tf.sets.union(tf.constant([[1, 2]]), tf.constant([[1, 2, 3], [1, 2, 3]])))  # leading shapes
    check(lambda tf: tf.sets.union(tf.constant([1, 2]), tf.constant([1, 3])))  # rank 1
    check(lambda tf: tf.sets.union(tf.constant(1), tf.constant(1)))
    check(lambda tf, a: tf.sets.size(a), A)  # dense: TypeError
    check(lambda tf: tf.sets.size(tf.sparse.SparseTensor([[0, 0]], [1.0], [2, 2])))
