"""tf.math.igamma, igammac and betainc against TF 2.21: values over the regimes of both algorithms, edge
values, dtypes, errors and gradients."""

import numpy as np
import pytest

from compat_tests.tensorflow.harness import check, check_grad

A = np.array([0.5, 2.0, 0.0, -1.0, 3.0, 1.0, 100.0, 0.1, 7.5, 30.0, 1e-3, 5.0], "float32")
X = np.array([1.0, 0.0, 1.0, 1.0, np.inf, -1.0, 120.0, 0.05, 2.0, 29.0, 0.5, 30.0], "float32")
GRAD_A = np.array([0.5, 2.0, 3.0, 1.0, 100.0, 0.7, 7.5, 30.0, 5.0, 12.0], "float64")
GRAD_X = np.array([1.0, 3.5, 0.2, 2.0, 95.0, 0.1, 2.0, 29.0, 9.0, 12.5], "float64")


@pytest.mark.parametrize("name", ["igamma", "igammac"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_incomplete_gamma_values(name, dtype):
    check(lambda tf, a, x: getattr(tf.math, name)(a, x), A.astype(dtype), X.astype(dtype), rtol=2e-5, atol=1e-6)


@pytest.mark.parametrize("name", ["igamma", "igammac"])
def test_incomplete_gamma_broadcast_and_gradients(name):
    check(lambda tf, a, x: getattr(tf.math, name)(a, x), A[:3, None], X[None, :6], rtol=2e-5, atol=1e-6)
    check_grad(lambda tf, a, x: getattr(tf.math, name)(a, x), GRAD_A, GRAD_X, rtol=1e-6, atol=1e-8)
    check_grad(lambda tf, a, x: getattr(tf.math, name)(a, x), GRAD_A.astype("float32"), GRAD_X.astype("float32"),
               rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("name", ["igamma", "igammac"])
def test_incomplete_gamma_errors(name):
    check(lambda tf, a, x: getattr(tf.math, name)(a, x), A.astype("float16"), X.astype("float16"))
    check(lambda tf, a, x: getattr(tf.math, name)(a, x), A, X.astype("float64"))
    check(lambda tf, a, x: getattr(tf.math, name)(a, x), np.arange(3), np.arange(3))
    check(lambda tf, a, x: getattr(tf.math, name)(a, x), A[:3], X[:4])
    check(lambda tf: getattr(tf.math, name)(2.0, 3.0))


BA = np.array([0.5, 2.0, 1.0, 0.0, 2.0, 30.0, 0.2, 5.0, 1.5, 80.0], "float32")
BB = np.array([2.0, 3.0, 1.0, 1.0, -1.0, 2.5, 0.3, 5.0, 40.0, 90.0], "float32")
BX = np.array([0.3, 0.9, 0.5, 0.5, 0.5, 0.95, 0.999, 0.5, 0.02, 0.47], "float32")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_betainc_values(dtype):
    check(lambda tf, a, b, x: tf.math.betainc(a, b, x), BA.astype(dtype), BB.astype(dtype), BX.astype(dtype),
          rtol=2e-5, atol=1e-6)
    check(lambda tf, x: tf.math.betainc(2.0, 3.0, x), np.array([0.0, 1.0, -0.1, 1.1, 0.25], dtype))


def test_betainc_gradients_and_errors():
    check_grad(lambda tf, a, b, x: tf.math.betainc(a, b, x), BA[[0, 1, 2, 5, 7, 8]].astype("float64"),
               BB[[0, 1, 2, 5, 7, 8]].astype("float64"), BX[[0, 1, 2, 5, 7, 8]].astype("float64"))
    check(lambda tf, a, x: tf.math.betainc(a, 1.0, x), BA[:2], BX[:2, None])
    check(lambda tf, a, b, x: tf.math.betainc(a, b, x), BA.astype("float16"), BB.astype("float16"),
          BX.astype("float16"))
    check(lambda tf, a, b, x: tf.math.betainc(a, b, x), BA, BB.astype("float64"), BX)


def test_namespaces():
    import tensorflow
    import vfw.tensorflow as tf

    for name in ("igamma", "igammac", "betainc"):
        assert hasattr(tf.math, name) and hasattr(tf, name) == hasattr(tensorflow, name)
