"""tf.sparse arithmetic (add, maximum/minimum, reductions, sparse_dense_matmul, softmax, sparse segment ops) against
real TensorFlow, with gradients."""

import numpy as np
import pytest

from compat_tests.tensorflow.harness import arrays, check, check_grad
from compat_tests.tensorflow.test_sparse_tensor import IDX, SHAPE, VALS, parts

IDX_B = [[0, 0], [1, 0], [2, 2], [2, 3]]


def test_add_sparse_sparse_grad():
    check_grad(lambda tf, a, b: parts(tf.sparse.add(tf.SparseTensor(IDX, a, SHAPE), tf.SparseTensor(IDX_B, b, SHAPE))),
               *arrays((4,), (4,)))


def test_add_threshold_drops_only_sums():
    check(lambda tf: parts(tf.sparse.add(tf.SparseTensor([[0, 0], [1, 1]], [-4.0, 1.0], [3, 2]),
                                         tf.SparseTensor([[0, 0], [2, 0]], [4.05, 0.05], [3, 2]), 0.1)))
    check(lambda tf: parts(tf.sparse.add(tf.SparseTensor([[0, 0], [1, 1]], [-4.0, 1.0], [3, 2]),
                                         tf.SparseTensor([[0, 0], [2, 0]], [4.0, 0.05], [3, 2]))))


@pytest.mark.parametrize("b", [([[0, 0]], [4.0], [3, 3]), ([[0, 0]], [4], [3, 2]), ([[0, 0, 0]], [4.0], [3, 2, 1])])
def test_add_errors(b):
    check(lambda tf: parts(tf.sparse.add(tf.SparseTensor([[1, 1]], [1.0], [3, 2]), tf.SparseTensor(*b))))


def test_add_sparse_dense_grad():
    check_grad(lambda tf, v, d: tf.sparse.add(tf.SparseTensor(IDX, v, SHAPE), d), *arrays((4,), (3, 4)))
    check_grad(lambda tf, v, d: tf.sparse.add(d, tf.SparseTensor(IDX, v, SHAPE)), *arrays((4,), (3, 4)))


@pytest.mark.parametrize("dense", [np.ones((3, 3), np.float32), np.ones((4,), np.float32), np.ones((3, 4), np.int32)])
def test_add_sparse_dense_errors(dense):
    check(lambda tf, d: tf.sparse.add(tf.SparseTensor(IDX, VALS, SHAPE), d), dense)
    check(lambda tf, d: tf.sparse.add(d, d), dense)


@pytest.mark.parametrize("fn", ["maximum", "minimum"])
def test_maximum_minimum(fn):
    check(lambda tf: parts(getattr(tf.sparse, fn)(tf.SparseTensor(IDX, [1.5, -2.0, 3.0, -4.0], SHAPE),
                                                  tf.SparseTensor(IDX_B, [-1.0, 5.0, -3.0, 2.0], SHAPE))))


IDX3 = [[0, 0, 1], [0, 2, 0], [1, 1, 1], [1, 2, 0], [1, 2, 1]]
SHAPE3 = [2, 3, 2]


@pytest.mark.parametrize("axis", [None, 0, 1, -1, [0, 2], [1, 2], [0, 1, 2], 3])
@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("output_is_sparse", [False, True])
def test_reduce_sum(axis, keepdims, output_is_sparse):
    def fn(tf, v):
        return parts(tf.sparse.reduce_sum(tf.SparseTensor(IDX3, v, SHAPE3), axis, keepdims, output_is_sparse))
    if axis == 3 or output_is_sparse:  # TF has no gradient for a sparse output (vfw differentiates it)
        check(fn, arrays((5,)))
    else:
        check_grad(fn, arrays((5,)))


@pytest.mark.parametrize("axis", [None, 0, 1, -1, [0, 2]])
@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("output_is_sparse", [False, True])
def test_reduce_max(axis, keepdims, output_is_sparse):
    values = np.array([-7.0, 4.0, 3.0, -1.0, -2.0], np.float32)
    check(lambda tf, v: parts(tf.sparse.reduce_max(tf.SparseTensor(IDX3, v, SHAPE3), axis, keepdims,
                                                   output_is_sparse)), values)
    check(lambda tf: parts(tf.sparse.reduce_max(tf.SparseTensor(IDX3, [3, -1, 2, 7, 1], SHAPE3), axis, keepdims,
                                                output_is_sparse)))


def test_reduce_sum_ints():
    check(lambda tf: tf.sparse.reduce_sum(tf.SparseTensor(IDX3, [3, -1, 2, 7, 1], SHAPE3), [0, 1], keepdims=True))


@pytest.mark.parametrize("adjoint_a", [False, True])
@pytest.mark.parametrize("adjoint_b", [False, True])
def test_sparse_dense_matmul_grad(adjoint_a, adjoint_b):
    a_shape = [4, 3] if adjoint_a else [3, 4]
    idx = [[i, j] for i, j in IDX] if not adjoint_a else [[j, i] for i, j in IDX]
    idx.sort()
    b = arrays((5, 4) if adjoint_b else (4, 5), seed=3)
    check_grad(lambda tf, v, b: tf.sparse.sparse_dense_matmul(tf.SparseTensor(idx, v, a_shape), b, adjoint_a,
                                                              adjoint_b), arrays((4,)), b)


@pytest.mark.parametrize("adjoint_a", [False, True])
@pytest.mark.parametrize("adjoint_b", [False, True])
def test_dense_sparse_matmul(adjoint_a, adjoint_b):
    a = arrays((4, 3) if adjoint_a else (3, 4), seed=4)
    b_idx = [[0, 1], [1, 0], [2, 3], [3, 2]]
    check_grad(lambda tf, a, v: tf.sparse.sparse_dense_matmul(a, tf.SparseTensor(b_idx, v, [4, 4]), adjoint_a,
                                                              adjoint_b), a, arrays((4,)))


@pytest.mark.parametrize("b", [np.ones((5, 2), np.float32), np.ones((4, 2), np.float64), np.ones((4,), np.float32)])
def test_sparse_dense_matmul_errors(b):
    check(lambda tf, b: tf.sparse.sparse_dense_matmul(tf.SparseTensor(IDX, VALS, SHAPE), b), b)
    check(lambda tf: tf.sparse.sparse_dense_matmul(tf.SparseTensor([[0, 7]], [1.0], SHAPE), tf.ones([4, 2])))


def test_sparse_dense_matmul_ints():
    check(lambda tf: tf.sparse.sparse_dense_matmul(tf.SparseTensor(IDX, [1, 2, 3, 4], SHAPE),
                                                   tf.reshape(tf.range(8), [4, 2])))


def test_softmax_grad():
    check_grad(lambda tf, v: parts(tf.sparse.softmax(tf.SparseTensor(IDX3, v, SHAPE3))), arrays((5,)))
    check_grad(lambda tf, v: parts(tf.sparse.softmax(tf.SparseTensor(IDX, v, SHAPE))), arrays((4,)))


@pytest.mark.parametrize("fn", ["segment_sum", "segment_mean", "segment_sqrt_n"])
@pytest.mark.parametrize("num_segments", [None, 5])
def test_segment_ops_grad(fn, num_segments):
    data = arrays((4, 3), seed=5)
    check_grad(lambda tf, x: getattr(tf.sparse, fn)(x, tf.constant([0, 2, 1, 2]), tf.constant([0, 0, 1, 3]),
                                                    num_segments), data)


@pytest.mark.parametrize("indices,segments,num", [([0, 4], [0, 1], None), ([0, 1], [1, 0], None),
                                                  ([0, 1], [0, 3], 2), ([0, 1, 2], [0, 1], None)])
def test_segment_errors(indices, segments, num):
    check(lambda tf, x: tf.sparse.segment_sum(x, indices, segments, num), arrays((4, 3)))
