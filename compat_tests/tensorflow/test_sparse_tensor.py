"""tf.SparseTensor construction and tf.sparse conversion/structure ops against real TensorFlow."""

import numpy as np
import pytest

from compat_tests.tensorflow.harness import arrays, check, check_grad, real, vtf


def parts(x):
    """A SparseTensor (also inside lists/tuples) as its three tensors, for the harness to compare."""
    if type(x).__name__ == "SparseTensor":
        return ("sparse", x.indices, x.values, x.dense_shape)
    if isinstance(x, (list, tuple)):
        return type(x)(parts(v) for v in x)
    return x


def sparse(tf, indices, values, shape):
    return tf.SparseTensor(indices, values, shape)


IDX = [[0, 1], [1, 0], [1, 3], [2, 2]]
VALS = [1.5, -2.0, 3.0, 4.0]
SHAPE = [3, 4]


@pytest.mark.parametrize("args", [
    (IDX, VALS, SHAPE),
    ([[0.0, 1.0]], [1.0], [2, 2]),                      # float indices: TypeError
    ([0, 1], [1.0], [2, 2]),                            # indices rank 1
    ([[0, 1]], [[1.0]], [2, 2]),                        # values rank 2
    ([[0, 1]], [1.0, 2.0], [2, 2]),                     # nnz mismatch
    ([[0, 1, 1]], [1.0], [2, 2]),                       # rank mismatch
    ([[1, 1]], [1], [3.0, 2.0]),                        # float dense_shape
    (np.zeros((0, 2), np.int64), np.zeros(0, np.float32), [3, 2]),
    ([[0, 1]], [b"a"], [2, 2]),
])
def test_constructor(args):
    check(lambda tf, i, v, s: parts(tf.SparseTensor(i, v, s)), *args)


def test_constructor_int32_tensor_indices():
    check(lambda tf: parts(tf.SparseTensor(tf.constant([[0, 1]]), [1.0], [2, 2])))


def test_properties():
    def fn(tf):
        st = tf.SparseTensor(IDX, VALS, SHAPE)
        return st.dtype, st.shape, st.get_shape(), tf.is_tensor(st), tf.shape(st), tf.shape(st, out_type=tf.int64), \
            tf.size(st), tf.rank(st), parts(st.with_values(st.values * 2.0)), st.indices.dtype, st.dense_shape.dtype
    check(fn)
    st = vtf.SparseTensor(IDX, VALS, SHAPE)
    assert str(st) == str(real.SparseTensor(IDX, VALS, SHAPE))
    assert repr(st) == repr(real.SparseTensor(IDX, VALS, SHAPE))
    assert vtf.sparse.SparseTensor is vtf.SparseTensor
    assert vtf.SparseTensor.from_value(st) is st


def test_unknown_dims_and_set_shape():
    check(lambda tf: tf.SparseTensor([[1, 1]], [1], [-1, 2]).shape)
    check(lambda tf: tf.SparseTensor([[1, 1]], [1], [3, 2]).set_shape([3, None]))
    check(lambda tf: tf.SparseTensor([[1, 1]], [1], [3, 2]).set_shape([3, 3]))


def test_spec():
    def fn(tf):
        spec = tf.SparseTensorSpec([3, None], tf.int32)
        st = tf.SparseTensor([[1, 1]], [1], [3, 2])
        return (spec.shape, spec.dtype, tf.SparseTensorSpec().dtype, tf.SparseTensorSpec().shape,
                spec.is_compatible_with(st), tf.SparseTensorSpec([3, 3], tf.int32).is_compatible_with(st),
                tf.SparseTensorSpec.from_value(st) == tf.SparseTensorSpec([3, 2], tf.int32),
                repr(tf.SparseTensorSpec([3, 2], tf.int32)))
    check(fn)


def test_not_convertible():
    st = lambda tf: tf.SparseTensor([[1, 1]], [1.0], [3, 2])  # noqa: E731
    check(lambda tf: tf.convert_to_tensor(st(tf)))
    check(lambda tf: tf.reduce_sum(st(tf)))
    check(lambda tf: st(tf) + 1.0)
    check(lambda tf: 2.0 * st(tf))
    check(lambda tf: st(tf) - 1.0)
    check(lambda tf: -st(tf))
    check(lambda tf: st(tf) * st(tf))


@pytest.mark.parametrize("default,validate,indices", [
    (None, True, IDX), (7.0, True, IDX), (None, True, [[0, 5]]), (None, True, [[1, 0], [0, 1]]),
    (None, False, [[1, 0], [0, 1]]), (None, True, [[0, 1], [0, 1]]), (None, False, [[0, 1], [0, 1]]),
])
def test_to_dense(default, validate, indices):
    values = VALS[:len(indices)]
    check(lambda tf: tf.sparse.to_dense(tf.SparseTensor(indices, values, SHAPE), default, validate_indices=validate))


def test_to_dense_grad():
    values, default = arrays((4,), ())
    check_grad(lambda tf, v, d: tf.sparse.to_dense(tf.SparseTensor(IDX, v, SHAPE), d), values, default)


def test_from_dense():
    x = arrays((3, 4), seed=1) * (arrays((3, 4), seed=2) > 0)
    check_grad(lambda tf, x: parts(tf.sparse.from_dense(x)), x)
    check(lambda tf: parts(tf.sparse.from_dense(tf.constant([[0, 3], [2, 0]]))))
    check(lambda tf: parts(tf.sparse.from_dense(tf.constant([b"", b"x"]))))


def test_to_indicator():
    st = lambda tf, ids: tf.SparseTensor([[0, 0], [0, 1], [2, 0]], ids, [3, 2])  # noqa: E731
    check(lambda tf: tf.sparse.to_indicator(st(tf, tf.constant([1, 4, 2], tf.int64)), 5))
    check(lambda tf: tf.sparse.to_indicator(st(tf, tf.constant([1, 7, 2], tf.int64)), 5))


UNSORTED = [[2, 1], [0, 3], [1, 0], [0, 1]]


def test_reorder_grad():
    check_grad(lambda tf, v: parts(tf.sparse.reorder(tf.SparseTensor(UNSORTED, v, SHAPE))), arrays((4,)))


@pytest.mark.parametrize("shape", [[4, 3], [-1, 2], [2, 2, 3], [12]])
def test_reshape(shape):
    check_grad(lambda tf, v: parts(tf.sparse.reshape(tf.SparseTensor(IDX, v, SHAPE), shape)), arrays((4,)))


@pytest.mark.parametrize("shape", [[5, -1], [-1, -1], [5, 2]])
def test_reshape_errors(shape):
    check(lambda tf: parts(tf.sparse.reshape(tf.SparseTensor(IDX, VALS, SHAPE), shape)))


@pytest.mark.parametrize("start,size", [([0, 1], [2, 3]), ([1, 0], [5, 5]), ([3, 0], [1, 1]), ([0, 0], [3, 4])])
def test_slice(start, size):
    check_grad(lambda tf, v: parts(tf.sparse.slice(tf.SparseTensor(IDX, v, SHAPE), start, size)), arrays((4,)))


@pytest.mark.parametrize("num,axis", [(2, 1), (3, 0), (3, 1), (2, -1)])
def test_split(num, axis):
    check(lambda tf, v: parts(tf.sparse.split(tf.SparseTensor(IDX, v, SHAPE), num, axis)), arrays((4,)))


def dense_gradients(fn, *args):
    """Each library's gradients of ``sum(fn(tf, *args) * weights)`` for every arg: (class name, dense value)."""
    results = []
    for lib in (real, vtf):
        inputs = [lib.constant(a) for a in args]
        with lib.GradientTape() as tape:
            tape.watch(inputs)
            out = fn(lib, *inputs)
            w = np.random.default_rng(0).standard_normal(out.shape.as_list()).astype(np.float32)
            total = lib.reduce_sum(out * w)
        grads = tape.gradient(total, inputs)
        results.append([(type(g).__name__, None if g is None else lib.convert_to_tensor(g).numpy()) for g in grads])
    for (want_type, want), (got_type, got) in zip(*results):
        assert got_type == want_type
        if want is not None:
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_retain_and_reset_shape():
    check(lambda tf, v: parts(tf.sparse.retain(tf.SparseTensor(IDX, v, SHAPE), [True, False, True, False])),
          arrays((4,)))
    dense_gradients(lambda tf, v: tf.sparse.retain(tf.SparseTensor(IDX, v, SHAPE), [True, False, True, True]).values,
                    arrays((4,)))
    check(lambda tf: parts(tf.sparse.reset_shape(tf.SparseTensor(IDX, VALS, SHAPE))))
    check(lambda tf: parts(tf.sparse.reset_shape(tf.SparseTensor(IDX, VALS, SHAPE), [5, 6])))


def test_fill_empty_rows():
    idx = [[1, 0], [1, 2], [3, 1]]
    check_grad(lambda tf, v, d: parts(tf.sparse.fill_empty_rows(tf.SparseTensor(idx, v, [5, 3]), d)),
               arrays((3,)), arrays(()))
    check(lambda tf: parts(tf.sparse.fill_empty_rows(tf.SparseTensor(idx, [1, 2, 3], [5, 3]), -1)))


@pytest.mark.parametrize("axis,expand", [(1, False), (0, False), (-1, False), (0, True)])
def test_concat(axis, expand):
    def fn(tf, v1, v2):
        a = tf.SparseTensor([[0, 2], [1, 0], [1, 1]], v1, [2, 3])
        b = tf.SparseTensor([[0, 1], [0, 2]], v2, [2, 4] if axis else [3, 3])
        return parts(tf.sparse.concat(axis, [a, b], expand_nonconcat_dims=expand))
    check_grad(fn, *arrays((3,), (2,)))


def test_concat_mismatch():
    check(lambda tf: parts(tf.sparse.concat(0, [tf.SparseTensor([[0, 2]], [1.0], [2, 3]),
                                                tf.SparseTensor([[0, 1]], [1.0], [2, 4])])))


@pytest.mark.parametrize("axis", [None, 0, 1, 2, -1, -3, 3])
def test_expand_dims(axis):
    check(lambda tf: parts(tf.sparse.expand_dims(tf.SparseTensor(IDX, VALS, SHAPE), axis)))


@pytest.mark.parametrize("perm", [None, [1, 0], [0, 1]])
def test_transpose(perm):
    check_grad(lambda tf, v: parts(tf.sparse.transpose(tf.SparseTensor(IDX, v, SHAPE), perm)), arrays((4,)))
    idx3 = [[0, 1, 2], [1, 0, 0], [1, 2, 1]]
    check(lambda tf: parts(tf.sparse.transpose(tf.SparseTensor(idx3, [1, 2, 3], [2, 3, 4]), [2, 0, 1])))


def test_eye_and_map_values():
    check(lambda tf: parts(tf.sparse.eye(3)))
    check(lambda tf: parts(tf.sparse.eye(2, 4, dtype=tf.int32)))
    check_grad(lambda tf, v: parts(tf.sparse.map_values(tf.square, tf.SparseTensor(IDX, v, SHAPE))), arrays((4,)))
    check(lambda tf: parts(tf.sparse.map_values(tf.add, tf.SparseTensor(IDX, VALS, SHAPE),
                                                tf.SparseTensor(IDX, VALS, SHAPE))))
    check(lambda tf: parts(tf.sparse.map_values(tf.add, tf.SparseTensor(IDX, VALS, SHAPE), 1.0)))


def test_mask():
    def fn(tf):
        a = tf.IndexedSlices(tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]), tf.constant([4, 1, 7]),
                             tf.constant([10, 2]))
        m = tf.sparse.mask(a, [1, 7])
        return m.values, m.indices, m.dense_shape
    check(fn)


@pytest.mark.parametrize("dense", [np.array([[1.0], [3.0], [2.0]], np.float32), np.float32(2.5),
                                   np.arange(12, dtype=np.float32).reshape(3, 4) - 4, np.ones((2, 3, 4), np.float32),
                                   np.ones((4,), np.float32)])
def test_multiply_dense(dense):
    check(lambda tf, v, d: parts(tf.SparseTensor(IDX, v, SHAPE) * d), arrays((4,)), dense)
    if 0 < dense.ndim < 3:
        check_grad(lambda tf, v, d: parts(tf.SparseTensor(IDX, v, SHAPE) * d), arrays((4,)), dense)
    check(lambda tf, d: parts(tf.SparseTensor(IDX, VALS, SHAPE) / d), dense)


def test_operators_scalars_and_ints():
    check(lambda tf: parts(tf.SparseTensor(IDX, VALS, SHAPE) * 2))
    check(lambda tf: parts(tf.SparseTensor(IDX, [1, 2, 3, 4], SHAPE) / 2))
    check(lambda tf: parts(tf.SparseTensor(IDX, [1, 2, 3, 4], SHAPE) * tf.constant(2.0)))
    check(lambda tf: parts(tf.math.multiply(tf.SparseTensor(IDX, VALS, SHAPE), 2.0)))


def test_captured_sparse_tensor_inside_tf_function():
    def case(tf):
        st = tf.SparseTensor(IDX, VALS, SHAPE)

        @tf.function
        def f(d):
            return tf.sparse.sparse_dense_matmul(st, d), tf.sparse.to_dense(st) * 2.0

        return [f(tf.ones([4, 2])), f(tf.fill([4, 2], 3.0))]

    check(case)


def test_building_sparse_tensors_inside_tf_function_is_refused_not_frozen():
    # vfw computes sparse indices with numpy, which a graph would freeze at the traced values: it refuses
    # (real TF builds them as graph ops)
    @vtf.function
    def f(x):
        return vtf.sparse.reduce_sum(vtf.sparse.from_dense(x))

    with pytest.raises(NotImplementedError, match="inside tf.function"):
        f(vtf.constant([[1.0, 0.0], [0.0, 2.0]]))
