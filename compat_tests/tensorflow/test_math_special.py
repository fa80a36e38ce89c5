"""tf.math.bessel_i0/i0e/i1/i1e, zeta, polygamma and nextafter against real TF 2.21 (values, dtypes, errors,
gradients)."""

import numpy as np
import pytest

from compat_tests.tensorflow.harness import check, check_grad

X = np.array([0.0, 1e-3, -0.5, 1.0, -2.5, 7.0, 15.0, -29.9, 30.0, 31.5, 60.0, -80.0, 700.0, 720.0])
BESSEL = ["bessel_i0", "bessel_i0e", "bessel_i1", "bessel_i1e"]


@pytest.mark.parametrize("fn", BESSEL)
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "int32", "bfloat16"])
def test_bessel_values(fn, dtype):
    values = X[np.abs(X) < 10] if dtype == "float16" else X
    rtol = 1e-3 if dtype == "float16" else (2e-6 if dtype == "float32" else 1e-12)
    check(lambda tf: getattr(tf.math, fn)(tf.constant(values.astype(dtype) if dtype != "bfloat16" else values,
                                                      dtype=dtype)), rtol=rtol, atol=0)


@pytest.mark.parametrize("fn", BESSEL)
def test_bessel_gradients(fn):
    check_grad(lambda tf, x: getattr(tf.math, fn)(x), np.array([0.0, 0.7, -1.3, 4.0, -45.0]), rtol=1e-10)
    check_grad(lambda tf, x: getattr(tf.math, fn)(x), np.array([0.5, -3.0], np.float32), rtol=1e-5)


ZETA_X = np.array([1.0, 1.5, 2.0, 3.0, 4.5, 10.0, 30.0, 0.5, 2.0, 3.0, 2.5, 2.0])
ZETA_Q = np.array([1.0, 1.0, 1.0, 2.5, 0.1, 3.0, 1.5, 2.0, -2.0, -1.5, -1.5, 100.0])


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_zeta(dtype):
    rtol = 2e-6 if dtype == "float32" else 1e-12
    check(lambda tf: tf.math.zeta(ZETA_X.astype(dtype), ZETA_Q.astype(dtype)), rtol=rtol, atol=0)
    check(lambda tf: tf.math.zeta(np.array([[2.0], [3.0]], dtype), ZETA_Q[:3].astype(dtype)), rtol=rtol, atol=0)


def test_zeta_gradient():
    check_grad(lambda tf, x, q: tf.math.zeta(x, q), np.array([2.0, 3.5]), np.array([1.5, 0.7]), rtol=1e-9)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32"])
def test_polygamma(dtype):
    n = np.array([0.0, 1.0, 2.0, 3.0, 1.5, -1.0, 4.0, 1.0]).astype(dtype)
    x = np.array([0.3, 2.0, 5.5, 0.1, 1.0, 1.0, -1.5, 30.0]).astype(dtype)
    check(lambda tf: tf.math.polygamma(n, x), rtol=1e-5 if dtype == "float32" else 1e-11, atol=0)


def test_polygamma_gradient():
    check_grad(lambda tf, n, x: tf.math.polygamma(n, x), np.array([1.0, 2.0]), np.array([0.8, 3.0]), rtol=1e-9)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_nextafter(dtype):
    a = np.array([0.0, 1.0, 1.0, -2.0, np.inf, 0.0], dtype)
    b = np.array([1.0, 0.0, 1.0, 5.0, 0.0, -1.0], dtype)
    check(lambda tf: tf.math.nextafter(a, b), rtol=0, atol=0)  # numpy arguments take the float32 hint
    check(lambda tf: tf.math.nextafter(tf.constant(a), tf.constant(b)), rtol=0, atol=0)
    check(lambda tf: tf.math.nextafter(tf.constant(a), tf.constant(b, dtype=tf.float32)))
