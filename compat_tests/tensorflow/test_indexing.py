"""Tensor.__getitem__, tf.slice and tf.strided_slice of vfw.tensorflow against real TF 2.21."""

import numpy as np
import pytest

from compat_tests.tensorflow.harness import arrays, check, check_grad, real, vtf

KEYS_1D = [
    1, -1, -12, 20, -13, slice(5, 100, 3), slice(None, None, -2), slice(None, None, 0), slice(None), slice(-3, None),
    slice(100, -100, -1), slice(2, 2), slice(7, 2), slice(None, None, 5), [1, 2], True, 1.5, "a", np.int64(3),
    np.array(3), np.array([1, 2]), (None, 3), (3, None), (Ellipsis, 2), (Ellipsis, Ellipsis), (slice(1, 3), None),
    slice(np.int32(2), None), slice(1, 2.5), {1: 2}, (), np.array([True] * 12),
]


@pytest.mark.parametrize("key", KEYS_1D, ids=repr)
def test_getitem_1d(key):
    check(lambda tf: tf.range(12)[key])


KEYS_3D = [
    (1, 2), (1, 2, 3), (1, 2, 3, 0), (Ellipsis, 1), (1, Ellipsis, None), (None, Ellipsis, None, 1), (slice(None), 1),
    (None, None, 1, Ellipsis, None), (slice(None, None, -1), slice(5, -10, -2)), (-1, slice(None, None, -1), 0),
    (slice(1, None), Ellipsis, slice(None, 2)), (0, None, slice(None), None, -1), (slice(None), [1, 2]),
    (slice(None), slice(None), slice(None), slice(None)), (1, True), (True, 1), (True, False), (0, 0, slice(4, 0, -3)),
    (Ellipsis, None), (None,), (Ellipsis,), (slice(None, None, -1), Ellipsis, slice(None, None, -1)),
]


@pytest.mark.parametrize("key", KEYS_3D, ids=repr)
def test_getitem_3d(key):
    check(lambda tf: tf.reshape(tf.range(24), [2, 3, 4])[key])
    check(lambda tf: tf.reshape(tf.range(24), [2, 3, 4])[list(key)] if not any(k is Ellipsis for k in key)
          else tf.reshape(tf.range(24), [2, 3, 4])[key])


@pytest.mark.parametrize("case", [
    lambda tf, x: x[tf.constant(1)], lambda tf, x: x[tf.constant(1, tf.int64)], lambda tf, x: x[tf.constant(1.0)],
    lambda tf, x: x[tf.constant(-4)], lambda tf, x: x[tf.constant(1, tf.int16)],
    lambda tf, x: x[tf.constant(1, tf.uint8)], lambda tf, x: x[tf.constant(2):tf.constant(5)],
    lambda tf, x: x[1:tf.constant([3])], lambda tf, x: x[tf.constant([1, 2])],
    lambda tf, x: x[tf.constant([True, False, True])], lambda tf, x: x[:, tf.constant([True, False, True, True])],
    lambda tf, x: x[np.array([True, False, True])], lambda tf, x: x[[True, False, True]],
    lambda tf, x: x[1:2:tf.constant(1)], lambda tf, x: x[np.int64(-1), ::np.int32(-1)],
    lambda tf, x: tf.constant(3)[None], lambda tf, x: tf.constant(3)[...], lambda tf, x: tf.constant(3)[0],
    lambda tf, x: tf.constant("abc")[...], lambda tf, x: tf.constant(["abc", "d"])[1], lambda tf, x: x[True],
    lambda tf, x: tf.constant([[1.5, 2.5]])[0, 1], lambda tf, x: x[tf.constant([[True] * 4] * 3)],
])
def test_getitem_tensors_and_masks(case):
    check(case, np.arange(12, dtype=np.int32).reshape(3, 4))


def test_no_item_assignment():
    for lib in (real, vtf):
        x = lib.constant([1.0, 2.0])
        with pytest.raises(TypeError, match="does not support item assignment"):
            x[0] = 3.0


@pytest.mark.parametrize("case", [
    lambda tf, x: tf.slice(x, [1, 1], [2, -1]), lambda tf, x: tf.slice(x, [1], [2]),
    lambda tf, x: tf.slice(x, [1, 1], [3, 1]),
    lambda tf, x: tf.slice(x, [4, 1], [0, 1]), lambda tf, x: tf.slice(x, [-1, 1], [1, 1]),
    lambda tf, x: tf.slice(x, [1, 1], [-2, 1]), lambda tf, x: tf.slice(x, [1.5, 1], [1, 1]),
    lambda tf, x: tf.slice(x, tf.constant([0, 2], tf.int64), tf.constant([3, 2], tf.int64)),
    lambda tf, x: tf.slice(x, [3, 4], [0, 0]),
    lambda tf, x: tf.strided_slice(x, [0, 1], [2, 3], [1, 1], shrink_axis_mask=1),
    lambda tf, x: tf.strided_slice(x, [0, 1, 0], [2, 3, 0], [1, 1, 1], new_axis_mask=4),
    lambda tf, x: tf.strided_slice(x, [0, 1], [2, 3], ellipsis_mask=1),
    lambda tf, x: tf.strided_slice(x, [5, 1], [2, 3], shrink_axis_mask=3),
    lambda tf, x: tf.strided_slice(x, [0, 1], [2, 3], [1, 1], new_axis_mask=1, shrink_axis_mask=1),
    lambda tf, x: tf.strided_slice(x, [0, 1], [2, 3], [1, 1], ellipsis_mask=1, shrink_axis_mask=1),
    lambda tf, x: tf.strided_slice(x, [0, 1], [2, 3], [1, 1], ellipsis_mask=1, new_axis_mask=1),
    lambda tf, x: tf.strided_slice(x, [0, 1], [2, 3, 1]),
    lambda tf, x: tf.strided_slice(x, [2, -1], [0, 3], [-1, -2], end_mask=1),
    lambda tf, x: tf.strided_slice(x, [2, 0], [0, 0], [1, 1], begin_mask=1, end_mask=2),
    lambda tf, x: tf.strided_slice(x, [1], [2], shrink_axis_mask=1, begin_mask=1),
    lambda tf, x: tf.strided_slice(x, [1], [2], [-1], shrink_axis_mask=1),
    lambda tf, x: tf.strided_slice(x, [1], [2], [2], shrink_axis_mask=1),
    lambda tf, x: tf.strided_slice(x, [1], [0], [1], shrink_axis_mask=1),
    lambda tf, x: tf.strided_slice(x, [-1, 3], [-4, 0], [-1, -1]), lambda tf, x: tf.strided_slice(x, [0], [3], [0]),
    lambda tf, x: tf.strided_slice(x, [0, 0], [0, 0], [1, 2], begin_mask=3, end_mask=3),
    lambda tf, x: tf.strided_slice(x, [1, 0, 0], [2, 0, 0], [1, 1, 1], shrink_axis_mask=1, ellipsis_mask=2,
                                   new_axis_mask=4),
])
def test_slice_and_strided_slice(case):
    check(case, np.arange(12, dtype=np.int32).reshape(3, 4))


@pytest.mark.parametrize("fn", [
    lambda tf, x: x[1], lambda tf, x: x[:, ::-2], lambda tf, x: x[None, ..., 1:3, None],
    lambda tf, x: x[-1, 1::2, ::-3], lambda tf, x: x[tf.constant(1), tf.constant(-1)], lambda tf, x: x[...],
    lambda tf, x: x[x > 0.5], lambda tf, x: tf.slice(x, [0, 1, 1], [2, -1, 2]),
    lambda tf, x: tf.strided_slice(x, [1, 0], [0, 3], [-1, 2], end_mask=1, new_axis_mask=0, ellipsis_mask=0),
    lambda tf, x: [x[0, 0, 0], x[1, 2]],
])
def test_slicing_gradients(fn):
    check_grad(fn, arrays((2, 3, 4)))
