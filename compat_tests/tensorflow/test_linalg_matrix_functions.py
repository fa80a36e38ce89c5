"""tf.linalg.sqrtm, logm and eigh_tridiagonal against real TF 2.21."""

import numpy as np
import pytest

from compat_tests.tensorflow.harness import check

RNG = np.random.default_rng(3)
SPD = (lambda m: (m @ m.T + 3 * np.eye(3)))(RNG.uniform(-1, 1, (3, 3)))


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128"])
def test_sqrtm(dtype):
    batch = np.stack([SPD, SPD * 2 + np.triu(np.ones((3, 3)), 1) * 0.3]).astype(dtype)
    check(lambda tf, x: tf.linalg.sqrtm(x), batch, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_logm(dtype):
    x = (SPD + 0.5j * RNG.uniform(-1, 1, (3, 3))).astype(dtype)
    check(lambda tf, x: tf.linalg.logm(x), x, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("case", ["int_sqrtm", "nonsquare_sqrtm", "real_logm", "vector_sqrtm"])
def test_errors(case):
    inputs = {"int_sqrtm": np.eye(2, dtype=np.int32), "nonsquare_sqrtm": np.ones((2, 3), np.float32),
              "real_logm": np.eye(2, dtype=np.float32), "vector_sqrtm": np.ones(3, np.float32)}
    fn = (lambda tf, x: tf.linalg.logm(x)) if case.endswith("logm") else (lambda tf, x: tf.linalg.sqrtm(x))
    check(fn, inputs[case])


ALPHA = np.array([2.0, -1.0, 3.0, 0.5], np.float64)
BETA = np.array([0.5, 1.5, -0.7], np.float64)


@pytest.mark.parametrize("select,select_range", [("a", None), ("v", [-1.0, 2.5]), ("i", [1, 2])])
def test_eigh_tridiagonal_values(select, select_range):
    check(lambda tf, a, b: tf.linalg.eigh_tridiagonal(a, b, select=select, select_range=select_range), ALPHA, BETA,
          rtol=1e-6, atol=1e-8)


def test_eigh_tridiagonal_vectors():
    """Eigenvectors agree up to sign: compare |V| and V diag(w) V^T."""
    def fn(tf, a, b):
        w, v = tf.linalg.eigh_tridiagonal(a, b, eigvals_only=False)
        return [w, tf.abs(v), tf.matmul(v * w, v, transpose_b=True)]
    check(fn, ALPHA, BETA, rtol=1e-6, atol=1e-8)


def test_eigh_tridiagonal_float32_and_errors():
    check(lambda tf, a, b: tf.linalg.eigh_tridiagonal(a, b), ALPHA.astype(np.float32), BETA.astype(np.float32),
          rtol=1e-5, atol=1e-5)
    check(lambda tf, a, b: tf.linalg.eigh_tridiagonal(a, b), ALPHA.astype(np.float32), BETA)
    check(lambda tf, a, b: tf.linalg.eigh_tridiagonal(a, b), ALPHA, BETA[:2])
