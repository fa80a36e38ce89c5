"""tf.linalg lu / lu_reconstruct / lu_solve / lu_matrix_inverse / tridiagonal_matmul / tridiagonal_solve /
banded_triangular_solve against real TF 2.21 (values, dtypes, gradients)."""

import numpy as np
import pytest

from compat_tests.tensorflow.harness import check, check_grad

RNG = np.random.default_rng(0)
A = RNG.normal(size=(2, 4, 4))
B = RNG.normal(size=(2, 4, 3))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("index", ["int32", "int64"])
def test_lu(dtype, index):
    check(lambda tf: tf.linalg.lu(A.astype(dtype), output_idx_type=getattr(tf, index)), rtol=1e-5, atol=1e-5)
    check(lambda tf: tf.linalg.lu(np.array([[1.0, 2, 3], [4, 5, 6], [7, 8, 10]], dtype)), rtol=1e-5, atol=1e-6)


def test_lu_errors():
    check(lambda tf: tf.linalg.lu(np.ones((2, 3))))
    check(lambda tf: tf.linalg.lu(np.ones((2, 2), np.int32)))


def _factors(dtype="float64"):
    real_tf = pytest.importorskip("tensorflow")
    lower_upper, perm = real_tf.linalg.lu(A.astype(dtype))
    return lower_upper.numpy(), perm.numpy()


def test_lu_reconstruct_solve_inverse():
    # TF's lu has no gradient (a tape through it raises LookupError): differentiate from its outputs
    lower_upper, perm = _factors()
    check_grad(lambda tf, f: tf.linalg.lu_reconstruct(f, perm), lower_upper, rtol=1e-9)
    check_grad(lambda tf, f, b: tf.linalg.lu_solve(f, perm, b), lower_upper, B, rtol=1e-8)
    check_grad(lambda tf, f: tf.linalg.lu_matrix_inverse(f, perm), lower_upper, rtol=1e-8)
    check(lambda tf: tf.linalg.lu_reconstruct(*tf.linalg.lu(A)), rtol=1e-9)
    check(lambda tf: tf.linalg.lu_solve(*tf.linalg.lu(A[0].astype(np.float32)), B[0].astype(np.float32)),
          rtol=1e-4, atol=1e-5)


DIAGS = RNG.normal(size=(2, 3, 5)) + np.array([0, 4, 0])[:, None]
RHS = RNG.normal(size=(2, 5, 2))


def test_tridiagonal_matmul():
    check_grad(lambda tf, d, r: tf.linalg.tridiagonal_matmul(d, r), DIAGS, RHS, rtol=1e-10)
    check_grad(lambda tf, s, m, b, r: tf.linalg.tridiagonal_matmul((s, m, b), r, diagonals_format="sequence"),
               DIAGS[:, 0], DIAGS[:, 1], DIAGS[:, 2], RHS, rtol=1e-10)


def test_tridiagonal_solve():
    check_grad(lambda tf, d, r: tf.linalg.tridiagonal_solve(d, r), DIAGS, RHS, rtol=1e-8)
    check_grad(lambda tf, d, r: tf.linalg.tridiagonal_solve(d, r, transpose_rhs=True), DIAGS,
               np.swapaxes(RHS, -1, -2), rtol=1e-8)
    check(lambda tf: tf.linalg.tridiagonal_solve([tf.constant(d) for d in DIAGS[0]], tf.constant(RHS[0]),
                                                 diagonals_format="sequence"), rtol=1e-9)
    for fn in ("tridiagonal_matmul", "tridiagonal_solve"):
        check(lambda tf, fn=fn: getattr(tf.linalg, fn)(tf.constant(DIAGS[:, :2]), tf.constant(RHS)))


@pytest.mark.parametrize("lower", [True, False])
@pytest.mark.parametrize("adjoint", [False, True])
@pytest.mark.parametrize("count", [1, 2, 3])
def test_banded_triangular_solve(lower, adjoint, count):
    bands = RNG.normal(size=(2, count, 5))
    bands[:, 0 if lower else count - 1] += 5.0  # a well-conditioned diagonal
    solve = lambda tf, b, r: tf.linalg.banded_triangular_solve(b, r, lower=lower, adjoint=adjoint)  # noqa: E731
    check(solve, bands, RHS, rtol=1e-9)
    if count > 1:  # TF's gradient for a single band comes back without the band axis
        check_grad(solve, bands, RHS, rtol=1e-8)
