"""Gather/scatter, boolean_mask and where of vfw.tensorflow against real TF 2.21 (values, errors, gradients).

TF returns ``tf.IndexedSlices`` for gather gradients; ``check_grad`` compares them densely (TF's
GradientTape gives the dense sum when the gradient is added to another, as here).
"""

import numpy as np
import pytest

from compat_tests.tensorflow.harness import arrays, check, check_grad, real, vtf

M34 = np.arange(12, dtype=np.int32).reshape(3, 4)
T234 = np.arange(24, dtype=np.int32).reshape(2, 3, 4)


@pytest.mark.parametrize("case", [
    lambda tf, m, t: tf.gather(tf.range(5), [0, 4, -1]), lambda tf, m, t: tf.gather(tf.range(5), [0, 5]),
    lambda tf, m, t: tf.gather(tf.range(5), [0.5]), lambda tf, m, t: tf.gather(m, [[0, 2]], axis=1),
    lambda tf, m, t: tf.gather(m, [[0, 2], [1, 0], [3, 3]], axis=1, batch_dims=1),
    lambda tf, m, t: tf.gather(m, [0, 2], axis=2), lambda tf, m, t: tf.gather(m, [0, 2], axis=-1),
    lambda tf, m, t: tf.gather(m, tf.constant([0, 2], tf.int64), axis=tf.constant(1)),
    lambda tf, m, t: tf.gather(m, [[0, 2]], batch_dims=2), lambda tf, m, t: tf.gather(m, [0, 2], batch_dims=-1),
    lambda tf, m, t: tf.gather(m, [[0], [2], [1]], batch_dims=-1),
    lambda tf, m, t: tf.gather(m, [1, 2], validate_indices=True), lambda tf, m, t: tf.gather(tf.range(5), 2),
    lambda tf, m, t: tf.gather(tf.range(5), tf.constant([0, 1], tf.uint8)), lambda tf, m, t: tf.gather(3, [0]),
    lambda tf, m, t: tf.gather(tf.range(5), tf.constant([0, 1], tf.int16)), lambda tf, m, t: tf.gather(m, [[]]),
    lambda tf, m, t: tf.gather(t, [[2, 0, 1], [1, 1, 0]], axis=2, batch_dims=1),
    lambda tf, m, t: tf.gather(t, [[[1, 0], [2, 2], [0, 3]], [[3, 3], [0, 1], [1, 2]]], axis=2, batch_dims=2),
    lambda tf, m, t: tf.gather(t, [[0, 1], [1, 1]], axis=1, batch_dims=1),
    lambda tf, m, t: tf.gather(t, [1, 0], axis=1, batch_dims=1),
    lambda tf, m, t: tf.gather(tf.constant(["a", "b"]), [1]),
    lambda tf, m, t: tf.gather_nd(m, [[0, 1], [2, 3]]), lambda tf, m, t: tf.gather_nd(m, [[0], [2]]),
    lambda tf, m, t: tf.gather_nd(m, [[0, 5]]), lambda tf, m, t: tf.gather_nd(m, [[-1, 1]]),
    lambda tf, m, t: tf.gather_nd(m, [[0, 1, 2]]), lambda tf, m, t: tf.gather_nd(t, [[1], [0]], batch_dims=1),
    lambda tf, m, t: tf.gather_nd(t, [[[1, 2]], [[0, 0]]], batch_dims=1), lambda tf, m, t: tf.gather_nd(m, []),
    lambda tf, m, t: tf.gather_nd(m, 1), lambda tf, m, t: tf.gather_nd(t, [[[0, 1], [1, 2]]]),
    lambda tf, m, t: tf.gather_nd(m, tf.constant([[2, 1]], tf.int64)), lambda tf, m, t: tf.gather_nd(m, [[1]] * 0),
])
def test_gather(case):
    check(case, M34, T234)


@pytest.mark.parametrize("case", [
    lambda tf: tf.scatter_nd([[1], [3]], [5, 6], [5]), lambda tf: tf.scatter_nd([[1], [1]], [5, 6], [5]),
    lambda tf: tf.scatter_nd([[1], [7]], [5, 6], [5]), lambda tf: tf.scatter_nd([[1], [-1]], [5, 6], [5]),
    lambda tf: tf.scatter_nd([[1]], [[5, 6]], [3, 2]), lambda tf: tf.scatter_nd([[1]], [[5, 6, 7]], [3, 2]),
    lambda tf: tf.scatter_nd([[1]], [True], [3]), lambda tf: tf.scatter_nd([[1]], [1.5], tf.constant([3], tf.int64)),
    lambda tf: tf.scatter_nd(tf.constant([[1]], tf.int64), [1.5], [3]),
    lambda tf: tf.scatter_nd([[0, 1], [1, 0]], [1.5, 2.5], [2, 2]),
    lambda tf: tf.tensor_scatter_nd_update(tf.zeros([4]), [[1], [3]], [5., 6.]),
    lambda tf: tf.tensor_scatter_nd_update(tf.zeros([4]), [[1], [1]], [5., 6.]),
    lambda tf: tf.tensor_scatter_nd_add(tf.ones([4]), [[1], [1]], [5., 6.]),
    lambda tf: tf.tensor_scatter_nd_sub(tf.ones([4]), [[1], [1]], [5., 6.]),
    lambda tf: tf.tensor_scatter_nd_min(tf.ones([4]), [[1], [1]], [5., -6.]),
    lambda tf: tf.tensor_scatter_nd_max(tf.ones([4]), [[1], [1]], [5., -6.]),
    lambda tf: tf.tensor_scatter_nd_update(tf.zeros([4]), [[1], [5]], [5., 6.]),
    lambda tf: tf.tensor_scatter_nd_update(tf.zeros([4]), [[1], [2]], [5, 6]),
    lambda tf: tf.tensor_scatter_nd_update(tf.zeros([4], tf.int32), [[1], [2]], [5., 6.]),
    lambda tf: tf.tensor_scatter_nd_update(tf.zeros([4, 2]), [[1], [2]], [[5., 6.], [1., 2.]]),
    lambda tf: tf.tensor_scatter_nd_update(tf.zeros([4, 2]), [[1], [2]], [[5., 6.]]),
    lambda tf: tf.tensor_scatter_nd_add(tf.constant([True]), [[0]], [True]),
    lambda tf: tf.tensor_scatter_nd_update(tf.constant(["a", "b"]), [[0]], ["z"]),
    lambda tf: tf.tensor_scatter_nd_add(tf.zeros([2, 2], tf.int32), [[0, 1], [0, 1]], [3, 4]),
    lambda tf: tf.tensor_scatter_nd_update(tf.zeros([2]), [[0]], tf.constant([1.0], tf.float64)),
    lambda tf: tf.tensor_scatter_nd_max(tf.zeros([2, 3]), [[1]], [[1., -1., 2.]]),
])
def test_scatter(case):
    check(case)


@pytest.mark.parametrize("case", [
    lambda tf, m: tf.boolean_mask(tf.range(4), [True, False, True, True]),
    lambda tf, m: tf.boolean_mask(m, [True, False, True]), lambda tf, m: tf.boolean_mask(m, [[True, False] * 2] * 3),
    lambda tf, m: tf.boolean_mask(m, [True, False, True, False], axis=1),
    lambda tf, m: tf.boolean_mask(m, [True, False]), lambda tf, m: tf.boolean_mask(m, True),
    lambda tf, m: tf.boolean_mask(m, [1, 0, 1]), lambda tf, m: tf.boolean_mask(m, [True, False, True], axis=2),
    lambda tf, m: tf.boolean_mask(m, [[True, False, True]]), lambda tf, m: tf.boolean_mask(m, m > 4),
    lambda tf, m: tf.boolean_mask(m, [False] * 4, axis=-1),
    lambda tf, m: tf.boolean_mask(m, [True, False, True], axis=-2),
    lambda tf, m: tf.where([True, False, True]), lambda tf, m: tf.where([[True, False], [False, True]]),
    lambda tf, m: tf.where([1, 0, 3]), lambda tf, m: tf.where([1.5, 0, 3]), lambda tf, m: tf.where(True),
    lambda tf, m: tf.where([True, False], [1, 2], [3, 4]), lambda tf, m: tf.where([True, False], [1, 2], [3., 4]),
    lambda tf, m: tf.where([[True], [False]], [1, 2], 7), lambda tf, m: tf.where([True, False], 1.5, 7.),
    lambda tf, m: tf.where([True, False, True], [1, 2], [3, 4]), lambda tf, m: tf.where([1, 0], [1, 2], [3, 4]),
    lambda tf, m: tf.where([True, False], [1, 2]), lambda tf, m: tf.where([True, False], None, [1, 2]),
    lambda tf, m: tf.where(tf.zeros([0, 2]) > 0), lambda tf, m: tf.where(m > 5, m, -m),
    lambda tf, m: tf.where(m > 5, tf.constant(1.0), tf.constant(2)), lambda tf, m: tf.where(m > 5, m, 0),
    lambda tf, m: tf.where(tf.constant([1.0, 0.0]), [1.0, 2.0], [3.0, 4.0]),
    lambda tf, m: tf.where([True, False], tf.constant(["a", "b"]), "c"),
])
def test_masks_and_where(case):
    check(case, M34)


def test_gather_out_of_range_is_invalid_argument():
    with pytest.raises(vtf.errors.InvalidArgumentError, match=r"indices\[1\] = 5 is not in \[0, 5\) \[Op:GatherV2\]"):
        vtf.gather(vtf.range(5), [0, 5])


@pytest.mark.parametrize("fn", [
    lambda tf, x, u: tf.gather(x, [2, 0, 2], axis=1), lambda tf, x, u: [tf.gather(x, [[1, 1], [0, 1]]), x * 1.0],
    lambda tf, x, u: tf.gather(x, [[0, 3, 3], [1, 1, 0]], axis=2, batch_dims=1),
    lambda tf, x, u: tf.gather_nd(x, [[0, 1], [1, 2], [0, 1]]),
    lambda tf, x, u: tf.gather_nd(x, [[[2, 1]], [[0, 0]]], batch_dims=1),
    lambda tf, x, u: tf.scatter_nd([[1, 2], [0, 0], [1, 2]], u, [2, 3, 4]),
    lambda tf, x, u: tf.tensor_scatter_nd_update(x, [[1, 2], [0, 0]], u[:2]),
    lambda tf, x, u: tf.tensor_scatter_nd_update(x, [[1, 2], [0, 0], [1, 2]], u),
    lambda tf, x, u: tf.tensor_scatter_nd_add(x, [[1, 2], [0, 0], [1, 2]], u),
    lambda tf, x, u: tf.tensor_scatter_nd_sub(x, [[1, 2], [0, 0], [1, 2]], u),
    lambda tf, x, u: tf.tensor_scatter_nd_max(x, [[1, 2], [0, 0], [1, 2]], u),
    lambda tf, x, u: tf.tensor_scatter_nd_min(x, [[1, 2], [0, 0], [1, 2]], u),
    lambda tf, x, u: tf.boolean_mask(x, x[:, :, 0] > 0),
    lambda tf, x, u: tf.boolean_mask(x, [True, False, True], axis=1),
    lambda tf, x, u: tf.where(x > 0, x, x * 2.0), lambda tf, x, u: tf.where(x[0] > 0, x, u[0, 0]),
])
def test_gradients(fn):
    x = arrays((2, 3, 4))
    u = arrays((3, 4), seed=1)
    u[2] = x[1, 2]  # a tie with the tensor's own value: max/min share the gradient
    check_grad(fn, x, u)


def test_gather_gradient_against_indexed_slices():
    x = arrays((4, 3))
    grads = []
    for lib in (real, vtf):
        t = lib.constant(x)
        with lib.GradientTape() as tape:
            tape.watch(t)
            y = lib.reduce_sum(lib.gather(t, [3, 1, 3]) * lib.constant(arrays((3, 3), seed=2)))
        grads.append(lib.convert_to_tensor(tape.gradient(y, t)).numpy())
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-6)


@pytest.mark.parametrize("case", [
    lambda tf: tf.dynamic_partition([10, 20, 30, 40], [0, 1, 0, 2], 3),
    lambda tf: tf.dynamic_partition([[1, 2], [3, 4]], [1, 0], 2), lambda tf: tf.dynamic_partition([10, 20], [0, 3], 3),
    lambda tf: tf.dynamic_partition([10, 20], [0], 3), lambda tf: tf.dynamic_partition([10, 20], [0.5, 1], 3),
    lambda tf: tf.dynamic_partition(tf.reshape(tf.range(12.), [2, 3, 2]), [[0, 1, 1], [1, 0, 2]], 4),
    lambda tf: tf.dynamic_stitch([[0, 2], [1, 3]], [[10, 30], [20, 40]]),
    lambda tf: tf.dynamic_stitch([[0, 2], [1, 2]], [[10, 30], [20, 40]]),
    lambda tf: tf.dynamic_stitch([[0, 4]], [[10, 30]]),
    lambda tf: tf.dynamic_stitch([[0], [1, 2]], [[[1, 1]], [[2, 2], [3, 3]]]),
    lambda tf: tf.dynamic_stitch([[0], [1, 2]], [[10], [20]]), lambda tf: tf.dynamic_stitch([[0], [-1]], [[10], [20]]),
    lambda tf: tf.dynamic_stitch([[0], [1]], [[10], [2.5]]),
    lambda tf: tf.dynamic_stitch([tf.constant([[1, 0]]), tf.constant(2)], [tf.ones([1, 2, 3]), tf.zeros([3])]),
    lambda tf: tf.unravel_index([5, 7], [3, 4]), lambda tf: tf.unravel_index(5, [3, 4]),
    lambda tf: tf.unravel_index([12], [3, 4]), lambda tf: tf.unravel_index([-1], [3, 4]),
    lambda tf: tf.unravel_index(tf.constant([5], tf.int64), [3, 4]),
    lambda tf: tf.unravel_index(tf.constant([5], tf.int64), tf.constant([3, 4])),
    lambda tf: tf.unravel_index([1.0], [3, 4]), lambda tf: tf.unravel_index([[1, 2]], [3, 4]),
    lambda tf: tf.unravel_index([0, 23, 17], [2, 3, 4]),
])
def test_partition_stitch_unravel(case):
    check(case)


@pytest.mark.parametrize("fn", [
    lambda tf, x, u: tf.dynamic_partition(x, [[0, 2, 0], [1, 1, 0]], 3),
    lambda tf, x, u: tf.dynamic_stitch([[2, 0], [0, 1, 3]], [x[0, :2], u]),
])
def test_partition_stitch_gradients(fn):
    check_grad(fn, arrays((2, 3, 4)), arrays((3, 4), seed=1))
