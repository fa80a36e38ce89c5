"""tf.image.extract_patches (ExtractImagePatches) against real TF: windows, strides, rates, SAME/VALID padding,
dtypes, gradients (overlapping windows sum), errors, and inside a tf.function with an unknown batch size."""

import numpy as np
import pytest

from compat_tests.tensorflow.harness import arrays, check, check_grad

GEOMETRIES = [([1, 2, 2, 1], [1, 2, 2, 1], [1, 1, 1, 1]), ([1, 3, 2, 1], [1, 1, 2, 1], [1, 1, 1, 1]),
              ([1, 2, 3, 1], [1, 2, 2, 1], [1, 2, 1, 1]), ([1, 1, 1, 1], [1, 3, 1, 1], [1, 1, 1, 1]),
              ([1, 3, 3, 1], [1, 2, 3, 1], [1, 1, 2, 1])]


@pytest.mark.parametrize("padding", ["VALID", "SAME"])
@pytest.mark.parametrize("sizes, strides, rates", GEOMETRIES)
def test_extract_patches_values_and_gradients(sizes, strides, rates, padding):
    images = arrays((2, 7, 6, 3), seed=len(sizes) + strides[1])
    check_grad(lambda tf, x: tf.image.extract_patches(x, sizes, strides, rates, padding), images)


@pytest.mark.parametrize("dtype", ["int32", "uint8", "float64", "float16", "int64", "bool", "complex64"])
def test_extract_patches_dtypes(dtype):
    images = arrays((1, 4, 5, 2), dtype=dtype) if dtype != "complex64" else np.ones((1, 4, 5, 2), np.complex64)
    check(lambda tf, x: tf.image.extract_patches(x, [1, 2, 2, 1], [1, 1, 2, 1], [1, 1, 1, 1], "SAME"), images)


@pytest.mark.parametrize("sizes, strides, rates, padding, shape", [
    ([1, 2, 3, 2], [1, 2, 2, 1], [1, 1, 1, 1], "VALID", (2, 5, 6, 2)),
    ([2, 2, 3, 1], [1, 2, 2, 1], [1, 1, 1, 1], "VALID", (2, 5, 6, 2)),
    ([1, 2, 3, 1], [2, 2, 2, 1], [1, 1, 1, 1], "VALID", (2, 5, 6, 2)),
    ([1, 2, 3, 1], [1, 2, 2, 1], [1, 1, 1, 2], "VALID", (2, 5, 6, 2)),
    ([1, 2, 3], [1, 2, 2, 1], [1, 1, 1, 1], "VALID", (2, 5, 6, 2)),
    ([1, 7, 3, 1], [1, 1, 1, 1], [1, 1, 1, 1], "VALID", (2, 5, 6, 2)),
    ([1, 2, 3, 1], [1, 2, 2, 1], [1, 1, 1, 1], "same", (2, 5, 6, 2)),
    ([1, 2, 3, 1], [1, 2, 2, 1], [1, 1, 1, 1], "SAME", (5, 6, 2)),
])
def test_extract_patches_errors(sizes, strides, rates, padding, shape):
    check(lambda tf, x: tf.image.extract_patches(x, sizes, strides, rates, padding), arrays(shape))


def test_extract_patches_in_a_function_with_unknown_batch():
    def run(tf, x):
        patches = tf.function(lambda images: tf.image.extract_patches(images, [1, 2, 2, 1], [1, 2, 2, 1],
                                                                      [1, 1, 1, 1], "VALID"),
                              input_signature=[tf.TensorSpec([None, 4, 6, 1], tf.float32)])
        return patches(x), patches(x[:1])
    check(run, arrays((3, 4, 6, 1)))
