"""tf.math.special Bessel j/y/k functions, dawsn, expint, fresnel_cos/sin and spence against real TF 2.21 (values
over each function's regimes and special points, dtypes and their errors, gradients)."""

import numpy as np
import pytest

from compat_tests.tensorflow.harness import check, check_grad

FUNCTIONS = ["bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "bessel_k0", "bessel_k0e", "bessel_k1", "bessel_k1e",
             "dawsn", "expint", "fresnel_cos", "fresnel_sin", "spence"]
HALF_PRECISION = FUNCTIONS[:8]  # the Bessel kernels also take float16
SPECIAL_POINTS = [0.0, -0.0, np.inf, -np.inf, np.nan, -1.0, -37.5, 1e-9, 1.0, 1e300]
# every regime of every function: small/large arguments, near Ei's root, Spence's pieces, Fresnel's quadrature/tail
GRID = np.concatenate([np.linspace(-30.0, 30.0, 241), np.geomspace(1e-6, 700.0, 60), [0.3725074107813666, 0.5, 1.5,
                                                                                      2.0, 6.5, 7.5, 40.5, 709.9]])


@pytest.mark.parametrize("fn", FUNCTIONS)
def test_values_float64(fn):
    values = np.concatenate([GRID, SPECIAL_POINTS, [36973.0, 36975.0, 1e5]])
    check(lambda tf: getattr(tf.math.special, fn)(tf.constant(values, tf.float64)), rtol=1e-10, atol=1e-13)


@pytest.mark.parametrize("fn", FUNCTIONS)
def test_values_float32(fn):
    values = np.concatenate([GRID[np.abs(GRID) < 100], SPECIAL_POINTS[:-1], [88.0, 88.8, 95.0]]).astype(np.float32)
    check(lambda tf: getattr(tf.math.special, fn)(values), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("fn", FUNCTIONS)
@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "int32"])
def test_dtypes(fn, dtype):
    values = np.array([0.25, 1.0, 3.5, -2.0])
    check(lambda tf: getattr(tf.math.special, fn)(tf.constant(values, dtype=dtype)))
    check(lambda tf: getattr(tf.math.special, fn)([1, 2]))  # Python ints: int32, refused


@pytest.mark.parametrize("fn", HALF_PRECISION)
def test_float16_values(fn):
    values = np.array([0.0, 0.1, 0.7, 2.0, 5.5, 12.0, -3.0], np.float16)
    check(lambda tf: getattr(tf.math.special, fn)(values), rtol=1e-3, atol=1e-3)


def test_python_floats_and_shapes():
    check(lambda tf: tf.math.special.dawsn(1.5))
    check(lambda tf: tf.math.special.bessel_j0([[0.5, 2.0], [3.0, 4.0]]))
    check(lambda tf: tf.math.special.spence(tf.zeros([0, 3])))


GRAD_POINTS = np.array([0.0, 0.3, 1.0, 2.5, 7.5, 30.0, -1.0, -4.0, np.inf, -np.inf, np.nan])


@pytest.mark.parametrize("fn", FUNCTIONS)
def test_gradients(fn):
    check_grad(lambda tf, x: getattr(tf.math.special, fn)(x), GRAD_POINTS, rtol=1e-9, atol=1e-12)
    check_grad(lambda tf, x: getattr(tf.math.special, fn)(x) * 3.0, GRAD_POINTS[:6].astype(np.float32))


@pytest.mark.parametrize("fn", ["bessel_j1", "bessel_k0", "dawsn", "fresnel_sin", "spence"])
def test_second_order_gradients(fn):
    def second(tf, x):
        with tf.GradientTape() as outer:
            outer.watch(x)
            with tf.GradientTape() as inner:
                inner.watch(x)
                y = getattr(tf.math.special, fn)(x)
            dy = inner.gradient(y, x)
        return dy, outer.gradient(dy, x)

    check(second, np.array([0.4, 1.7, 3.0]), rtol=1e-9, atol=1e-12)
