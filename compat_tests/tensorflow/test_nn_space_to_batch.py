"""tf.nn.with_space_to_batch against real TF 2.21: dilated convolutions and pooling, gradients, errors."""

import numpy as np
import pytest

from compat_tests.tensorflow.harness import check, check_grad

RNG = np.random.default_rng(0)
X = RNG.standard_normal((2, 9, 8, 2)).astype(np.float32)
W = RNG.standard_normal((3, 2, 2, 4)).astype(np.float32)


@pytest.mark.parametrize("padding", ["SAME", "VALID"])
@pytest.mark.parametrize("rate", [[1, 1], [2, 2], [3, 2], [1, 4]])
def test_dilated_convolution_and_gradients(padding, rate):
    def case(tf, x, w):
        return tf.nn.with_space_to_batch(x, rate, padding, lambda i, n, p: tf.nn.conv2d(i, w, 1, p),
                                         filter_shape=[3, 2])
    check_grad(case, X, W)


def test_pooling_and_other_spatial_dims():
    check(lambda tf, x: tf.nn.with_space_to_batch(x, [2, 3], "SAME", lambda i, n, p: tf.nn.max_pool2d(i, 2, 1, p),
                                                  filter_shape=[2, 2]), X)
    check(lambda tf, x: tf.nn.with_space_to_batch(x, [2], "VALID", lambda i, n, p: i * 2.0, spatial_dims=[3]),
          RNG.standard_normal((1, 5, 2, 7)).astype(np.float32))
    check(lambda tf, x: tf.nn.with_space_to_batch(x, [2, 2], "VALID", lambda i, n, p: i + 1.0, spatial_dims=[1, 3]),
          RNG.standard_normal((1, 5, 2, 7, 3)).astype(np.float32))


@pytest.mark.parametrize("args", [([2, 2], "SAME", None, None), ([2, 2], "FOO", [3, 3], None),
                                  ([0, 2], "VALID", None, None), (2, "VALID", None, None),
                                  ([2, 2], "VALID", None, [2, 1])])
def test_errors(args):
    rate, padding, filter_shape, spatial_dims = args
    check(lambda tf, x: tf.nn.with_space_to_batch(x, rate, padding, lambda i, n, p: i, filter_shape=filter_shape,
                                                  spatial_dims=spatial_dims), X)
