"""tf.linalg.eig / eigvals (and tf.eig) against real TensorFlow 2.21: values, dtypes, gradients and errors."""

import pytest

from compat_tests.tensorflow.harness import arrays, check, check_grad


def _canonical(tf, x):
    """Eigen pairs made comparable between solvers, which order them (and phase the vectors) differently: the
    eigenvalues sorted, the moduli of the eigenvectors in that order, and whether ``A v = l v`` holds."""
    values, vectors = tf.linalg.eig(x)
    order = tf.argsort(tf.math.real(values) + 1e-3 * tf.math.imag(values), axis=-1)
    residual = tf.matmul(x, vectors) - vectors * values[..., None, :]
    return [tf.gather(values, order, batch_dims=order.shape.rank - 1),
            tf.gather(tf.abs(vectors), order, axis=-1, batch_dims=order.shape.rank - 1),
            tf.reduce_max(tf.abs(residual)) < 1e-4, values.dtype, vectors.shape]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_eig_of_real_matrices(dtype):
    a = arrays((2, 4, 4), seed=3, dtype=dtype)
    check(_canonical, a, rtol=1e-4, atol=1e-5)
    check(lambda tf, x: _canonical(tf, x[0]), a, rtol=1e-4, atol=1e-5)
    check(lambda tf, x: [tf.eig(x)[0].dtype, tf.eigvals(x).shape, tf.linalg.eigvals(x).dtype], a)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_eig_of_complex_matrices(dtype):
    re, im = arrays((3, 3), (3, 3), seed=5)
    check(_canonical, (re + 1j * im).astype(dtype), rtol=1e-4, atol=1e-5)


def test_eig_gradients():
    a = arrays((3, 3), seed=7)

    def fn(tf, x):
        values, vectors = tf.linalg.eig(x)
        # Losses that do not depend on the eigenvectors' phases (TF's value depends on them otherwise).
        return [tf.math.real(values), tf.math.imag(values) ** 2, tf.abs(vectors)]

    check_grad(fn, a, rtol=1e-4, atol=1e-4)
    check_grad(lambda tf, x: tf.math.real(tf.linalg.eigvals(x)), a.astype("float64"))


def test_eig_errors():
    check(lambda tf, x: tf.linalg.eig(x), arrays((2, 3)))
    check(lambda tf, x: tf.linalg.eig(x), arrays((3,)))
    check(lambda tf, x: tf.linalg.eigvals(x), arrays((4, 2, 3)))
