"""tf.nn.dilation2d / erosion2d against real TF 2.21: values, dtypes, errors and GradientTape gradients."""

import numpy as np
import pytest

from compat_tests.tensorflow.harness import check, check_grad

RNG = np.random.default_rng(0)
X = RNG.standard_normal((2, 7, 6, 3)).astype(np.float32)
F = RNG.standard_normal((3, 2, 3)).astype(np.float32)
GEOMETRIES = [([1, 1, 1, 1], [1, 1, 1, 1]), ([1, 2, 1, 1], [1, 1, 1, 1]), ([1, 1, 1, 1], [1, 2, 3, 1]),
              ([1, 2, 3, 1], [1, 2, 1, 1]), ([1, 3, 2, 1], [1, 1, 2, 1])]


@pytest.mark.parametrize("op", ["dilation2d", "erosion2d"])
@pytest.mark.parametrize("padding", ["SAME", "VALID"])
@pytest.mark.parametrize("strides,dilations", GEOMETRIES)
def test_values_and_gradients(op, padding, strides, dilations):
    check_grad(lambda tf, x, f: getattr(tf.nn, op)(x, f, strides, padding, "NHWC", dilations), X, F)


@pytest.mark.parametrize("dtype", ["float64", "int32", "float16"])
def test_dtypes(dtype):
    x, f = (np.round(a * 4).astype(dtype) for a in (X, F))
    check(lambda tf, x, f: [tf.nn.dilation2d(x, f, [1, 1, 1, 1], "SAME", "NHWC", [1, 1, 1, 1]),
                            tf.nn.erosion2d(x, f, [1, 2, 1, 1], "VALID", "NHWC", [1, 1, 1, 1])], x, f)


def test_filter_larger_than_input():
    check(lambda tf, x, f: tf.nn.dilation2d(x, f, [1, 1, 1, 1], "VALID", "NHWC", [1, 1, 1, 1]), X,
          np.ones((8, 1, 3), np.float32))


@pytest.mark.parametrize("args", [
    dict(strides=[1, 1, 1, 1], padding="SAME", data_format="NCHW", dilations=[1, 1, 1, 1]),
    dict(strides=[2, 1, 1, 1], padding="VALID", data_format="NHWC", dilations=[1, 1, 1, 1]),
    dict(strides=[1, 1, 1, 1], padding="VALID", data_format="NHWC", dilations=[1, 1, 1, 2]),
    dict(strides=[1, 1], padding="VALID", data_format="NHWC", dilations=[1, 1, 1, 1]),
    dict(strides=[1, 1, 1, 1], padding="FOO", data_format="NHWC", dilations=[1, 1, 1, 1]),
])
@pytest.mark.parametrize("op", ["dilation2d", "erosion2d"])
def test_errors(op, args):
    check(lambda tf, x, f: getattr(tf.nn, op)(x, f, **args), X, F)


@pytest.mark.parametrize("x,f", [(X, F[:, :, :1]), (X[0], F), (X, F.astype(np.float64)),
                                 (X.astype(np.int32), F.astype(np.int32)[0])])
def test_shape_and_dtype_errors(x, f):
    check(lambda tf, x, f: tf.nn.dilation2d(x, f, [1, 1, 1, 1], "VALID", "NHWC", [1, 1, 1, 1]), x, f)
