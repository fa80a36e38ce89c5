"""tf.extract_volume_patches against real TF 2.21: window sizes, strides, SAME/VALID padding, dtypes, gradients and
errors."""

import numpy as np
import pytest

from compat_tests.tensorflow.harness import check, check_grad

X = np.arange(2 * 3 * 4 * 5 * 2, dtype=np.float32).reshape(2, 3, 4, 5, 2)


@pytest.mark.parametrize("ksizes, strides", [([1, 2, 2, 3, 1], [1, 1, 2, 2, 1]), ([1, 1, 1, 1, 1], [1, 1, 1, 1, 1]),
                                             ([1, 3, 4, 5, 1], [1, 1, 1, 1, 1]), ([1, 2, 3, 2, 1], [1, 2, 3, 4, 1]),
                                             ([1, 4, 2, 3, 1], [1, 1, 1, 1, 1]), ([1, 1, 5, 1, 1], [1, 3, 1, 2, 1]),
                                             # strides past the window: TF's SAME skips leading positions
                                             ([1, 1, 1, 1, 1], [1, 2, 3, 4, 1]), ([1, 2, 1, 2, 1], [1, 3, 3, 4, 1])])
@pytest.mark.parametrize("padding", ["SAME", "VALID"])
def test_values(ksizes, strides, padding):
    check(lambda tf, x: tf.extract_volume_patches(x, ksizes, strides, padding), X)


@pytest.mark.parametrize("dtype", ["float64", "float16", "bfloat16", "int32", "uint8", "int64", "uint32", "bool",
                                   "complex64"])
def test_dtypes(dtype):
    x = (np.arange(24) % 5).reshape(1, 2, 3, 2, 2)
    check(lambda tf: tf.extract_volume_patches(tf.constant(x, dtype), [1, 2, 2, 1, 1], [1, 1, 1, 1, 1], "SAME"))


def test_gradient():
    x = np.random.default_rng(0).standard_normal((1, 3, 3, 3, 2))
    check_grad(lambda tf, x: tf.extract_volume_patches(x, [1, 2, 2, 2, 1], [1, 1, 1, 1, 1], "SAME") ** 2, x)


def test_errors():
    check(lambda tf, x: tf.extract_volume_patches(x, [1, 2, 2, 3], [1, 1, 1, 1, 1], "VALID"), X)
    check(lambda tf, x: tf.extract_volume_patches(x, [1, 2, 2, 3, 1], [1, 1, 1, 1, 1], "FOO"), X)
    check(lambda tf, x: tf.extract_volume_patches(x, [2, 2, 2, 3, 1], [1, 1, 1, 1, 1], "VALID"), X)
    check(lambda tf, x: tf.extract_volume_patches(x, [1, 2, 2, 3, 1], [1, 1, 1, 1, 2], "VALID"), X)
    check(lambda tf: tf.extract_volume_patches(tf.ones([2, 3, 4, 5]), [1, 2, 2, 3, 1], [1, 1, 1, 1, 1], "VALID"))
    check(lambda tf, x: tf.extract_volume_patches(x, [1, 6, 2, 3, 1], [1, 1, 1, 1, 1], "VALID"), X)
