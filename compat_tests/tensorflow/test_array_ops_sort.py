"""sort, argsort, unique and searchsorted of vfw.tensorflow against real TF 2.21.

NaN inputs to sort/argsort are left out: TF sorts with top_k, whose order for NaNs is not defined.
"""

import numpy as np
import pytest

from compat_tests.tensorflow.harness import arrays, check, check_grad

INF = float("inf")


@pytest.mark.parametrize("case", [
    lambda tf: tf.sort([3, 1, 2]), lambda tf: tf.sort([3., 1, 2, -INF, INF, -0.0, 0.0]),
    lambda tf: tf.sort([3., 1, 2, -INF], direction="DESCENDING"), lambda tf: tf.sort([[3, 1, 2], [0, 5, 4]], axis=0),
    lambda tf: tf.sort([[3, 1, 2], [0, 5, 4]], axis=2), lambda tf: tf.sort([3, 1, 2], direction="down"),
    lambda tf: tf.sort(3), lambda tf: tf.sort(tf.constant([3, 1, 2], tf.uint8)),
    lambda tf: tf.sort(tf.constant([-2147483648, 1, 2])),
    lambda tf: tf.sort(tf.constant([-2147483648, 1, 2]), direction="DESCENDING"),
    lambda tf: tf.sort(tf.constant([True, False])), lambda tf: tf.sort(tf.constant(["b", "a"])), lambda tf: tf.sort([]),
    lambda tf: tf.sort(tf.constant([[2.5, -1.0], [0.5, 0.25]], tf.float64), axis=-2),
    lambda tf: tf.sort(tf.constant([3, 1, 2], tf.int64), direction="DESCENDING"),
    lambda tf: tf.argsort([3, 1, 2, 1]), lambda tf: tf.argsort([3, 1, 2, 1], direction="DESCENDING"),
    lambda tf: tf.argsort([3, 1, 2, 1], direction="DESCENDING", stable=True),
    lambda tf: tf.argsort([[3, 1, 2], [0, 5, 4]], axis=0), lambda tf: tf.argsort(tf.constant([3, 1, 2], tf.uint8)),
    lambda tf: tf.argsort(tf.constant([-2147483648, 1, 2])), lambda tf: tf.argsort(3),
    lambda tf: tf.argsort(tf.zeros([2, 0])), lambda tf: tf.argsort([5, 5, 5, 1, 5], direction="DESCENDING"),
])
def test_sort_argsort(case):
    check(case)


@pytest.mark.parametrize("case", [
    lambda tf: tf.unique([1, 1, 2, 4, 4, 4, 7, 8, 8]), lambda tf: tf.unique([3., 1, 3]),
    lambda tf: tf.unique([3., 1, 3], out_idx=tf.int64), lambda tf: tf.unique([[1, 2]]),
    lambda tf: tf.unique(tf.constant(["b", "a", "b"])), lambda tf: tf.unique_with_counts([1, 1, 2, 4, 4, 4, 7, 8, 8]),
    lambda tf: tf.unique_with_counts([1, 1, 2], out_idx=tf.int64), lambda tf: tf.unique([1, 2], out_idx=tf.float32),
    lambda tf: tf.unique([float("nan"), float("nan"), 0., -0.]), lambda tf: tf.unique([]),
    lambda tf: tf.unique([5, -1, 5, 3, -1]).y, lambda tf: tf.unique_with_counts(tf.constant([True, False, True])),
    lambda tf: tf.unique_with_counts([2.5, float("nan"), 2.5]),
])
def test_unique(case):
    check(case)


@pytest.mark.parametrize("case", [
    lambda tf: tf.searchsorted([1, 3, 5], [0, 3, 6]), lambda tf: tf.searchsorted([1, 3, 5], [0, 3, 6], side="right"),
    lambda tf: tf.searchsorted([[1, 3, 5], [2, 4, 6]], [[3], [3]]), lambda tf: tf.searchsorted([1, 3, 5], [[3]]),
    lambda tf: tf.searchsorted([1, 3, 5], 3), lambda tf: tf.searchsorted([1, 3, 5], [3], side="middle"),
    lambda tf: tf.searchsorted([1, 3, 5], [3], out_type=tf.int64),
    lambda tf: tf.searchsorted([1, 3, 5], [3], out_type=tf.float32), lambda tf: tf.searchsorted([1, 3, 5], [3.0]),
    lambda tf: tf.searchsorted([1., 3, 5], [3.0, float("nan")]),
    lambda tf: tf.searchsorted([1., 3, 5], [3.0, float("nan")], side="right"),
    lambda tf: tf.searchsorted([[1, 3, 5]], [[3], [4]]), lambda tf: tf.searchsorted([1., 3, 5], []),
    lambda tf: tf.searchsorted([], [1]), lambda tf: tf.searchsorted(tf.zeros([2, 0]), tf.zeros([2, 3])),
    lambda tf: tf.searchsorted([[1., 1, 2, 9], [-5, 0, 0, 0], [7, 8, 9, 10]],
                               [[1., 2, 0, 10], [0, -6, 1, -5], [9, 9.5, 6, 11]], side="right"),
    lambda tf: tf.searchsorted([[1., 1, 2, 9], [-5, 0, 0, 0], [7, 8, 9, 10]],
                               [[1., 2, 0, 10], [0, -6, 1, -5], [9, 9.5, 6, 11]]),
    lambda tf: tf.searchsorted(tf.reshape(tf.range(12), [2, 2, 3]), tf.reshape(tf.range(-2, 14, 2), [2, 2, 2])),
])
def test_searchsorted(case):
    check(case)


@pytest.mark.parametrize("fn", [
    lambda tf, x: tf.sort(x), lambda tf, x: tf.sort(x, axis=0, direction="DESCENDING"), lambda tf, x: tf.sort(x, 1),
])
def test_sort_gradient(fn):
    check_grad(fn, arrays((3, 4, 5)))


def test_sort_gradient_with_ties():
    x = np.array([[1.0, 3.0, 1.0, 2.0, 3.0]], np.float32)
    check_grad(lambda tf, x: tf.sort(x, direction="DESCENDING"), x)
    check_grad(lambda tf, x: tf.sort(x), x)


def test_unique_counts_follow_each_call_in_a_traced_function():
    # how many distinct values there are follows each call's values, not the traced call's
    from compat_tests.tensorflow.harness import real, vtf

    for lib in (real, vtf):
        counted = lib.function(lambda x, lib=lib: (lib.shape(lib.unique(x)[0]),
                                                   lib.unique_with_counts(x)[2]))
        first = [a.numpy().tolist() for a in counted(lib.constant([1, 1, 1]))]
        second = [a.numpy().tolist() for a in counted(lib.constant([1, 2, 3]))]
        assert (first, second) == ([[1], [3]], [[3], [1, 1, 1]]), lib
