"""tf.linalg inverses, determinants, solvers and decompositions against real TF.

Factorizations are unique only up to signs (SVD, QR, eigenvectors): as TF's own tests do, those
cases compare the unique parts (singular values, eigenvalues, |R|'s diagonal, reconstructions,
projections) and gradients of sign-invariant functions of the factors.
"""

import numpy as np
import pytest

from compat_tests.tensorflow.harness import arrays, check, check_grad

DTYPES = ["float32", "float64", "float16", "bfloat16", "int32"]


def check_values_and_grads(fn, *args, **kwargs):
    """``check`` (errors included), then ``check_grad`` when real TF computed a result."""
    if check(fn, *args, **kwargs) is not None:
        check_grad(fn, *args, **kwargs)


def spd(n, batch=(), seed=0, dtype="float64"):
    """Well-conditioned symmetric positive-definite matrices."""
    a = arrays(batch + (n, n), seed=seed, dtype=dtype)
    return (a @ np.swapaxes(a, -1, -2) + n * np.eye(n)).astype(dtype)


SQUARE = np.array([[4.0, 1, 0], [1, 3, 1], [0, 1, 2]])
SINGULAR = np.array([[1.0, 2], [2, 4]])


def _ops(tf):
    return {
        "inv": tf.linalg.inv, "det": tf.linalg.det, "slogdet": tf.linalg.slogdet, "logdet": tf.linalg.logdet,
        "cholesky": tf.linalg.cholesky, "eigvalsh": tf.linalg.eigvalsh, "pinv": tf.linalg.pinv,
        "svd_values": lambda x: tf.linalg.svd(x, compute_uv=False), "qr_r_diag": lambda x: tf.abs(
            tf.linalg.diag_part(tf.linalg.qr(x).r)) if hasattr(tf, "abs") else tf.linalg.qr(x).r,
        "solve": lambda x: tf.linalg.solve(x, x), "triangular_solve": lambda x: tf.linalg.triangular_solve(x, x),
        "cholesky_solve": lambda x: tf.linalg.cholesky_solve(x, x), "lstsq": lambda x: tf.linalg.lstsq(x, x),
        "matrix_rank": tf.linalg.matrix_rank,
    }


OPS = ["inv", "det", "slogdet", "logdet", "cholesky", "eigvalsh", "pinv", "svd_values", "solve", "triangular_solve",
       "cholesky_solve", "lstsq", "matrix_rank"]


@pytest.mark.parametrize("name", OPS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_dtypes(name, dtype):
    check(lambda tf, x: _ops(tf)[name](tf.cast(x, dtype)), SQUARE, rtol=1e-4)


@pytest.mark.parametrize("name", OPS)
@pytest.mark.parametrize("value", [SINGULAR, np.ones((2, 3)), np.ones(3), np.array([[np.nan, 1.0], [1, 1]])],
                         ids=["singular", "nonsquare", "vector", "nan"])
def test_bad_matrices(name, value):
    if name in ("cholesky", "lstsq", "cholesky_solve") and value is SINGULAR:
        pytest.skip("TF leaves a failed Cholesky factor's upper triangle uninitialized (see the band_part test)")
    check(lambda tf, x: _ops(tf)[name](x), value)


@pytest.mark.parametrize("name", ["inv", "det", "slogdet", "logdet", "cholesky", "eigvalsh", "svd_values", "solve",
                                  "triangular_solve", "cholesky_solve", "lstsq", "pinv"])
@pytest.mark.parametrize("batch", [(), (2,), (2, 1)])
def test_values_and_gradients(name, batch):
    check_values_and_grads(lambda tf, x: _ops(tf)[name](x), spd(3, batch), rtol=1e-4)


def test_cholesky_failure_is_nan_per_matrix():
    # TF leaves the strict upper triangle of a failed matrix uninitialized: compare the lower one.
    check(lambda tf, x: tf.linalg.band_part(tf.linalg.cholesky(x), -1, 0), np.stack([SINGULAR, np.eye(2)]))
    check(lambda tf, x: tf.linalg.logdet(x), np.stack([SINGULAR, 2 * np.eye(2)]))


def test_inverse_and_solve_options():
    a, b = spd(3, seed=1), arrays((3, 2), dtype="float64")
    check_grad(lambda tf, a: tf.linalg.inv(a, adjoint=True), a + np.triu(np.ones((3, 3)), 1))
    check_grad(lambda tf, a, b: tf.linalg.solve(a, b, adjoint=True), a + np.triu(np.ones((3, 3)), 1), b)
    check(lambda tf: tf.linalg.solve([[2.0, 0], [0, 1]], [[1.0], [1]], adjoint=True))
    check(lambda tf: tf.linalg.inv([[2, 0], [0, 1]]))


@pytest.mark.parametrize("shapes", [((2, 3, 3), (3, 2)), ((2, 3, 3), (1, 3, 2)), ((3, 3), (3,)), ((3, 3), (2, 1)),
                                    ((3, 3), (2, 3, 1))])
def test_solve_shapes(shapes):
    a, b = spd(3, shapes[0][:-2]), arrays(shapes[1], dtype="float64")
    check_values_and_grads(lambda tf, a, b: tf.linalg.solve(a, b), a, b)


@pytest.mark.parametrize("lower", [True, False])
@pytest.mark.parametrize("adjoint", [False, True])
@pytest.mark.parametrize("shapes", [((3, 3), (3, 2)), ((2, 3, 3), (1, 3, 2)), ((2, 3, 3), (3, 2)),
                                    ((1, 3, 3), (2, 3, 1))])
def test_triangular_solve(lower, adjoint, shapes):
    a = arrays(shapes[0], dtype="float64") + 3 * np.eye(3)
    b = arrays(shapes[1], seed=1, dtype="float64")
    check_grad(lambda tf, a, b: tf.linalg.triangular_solve(a, b, lower=lower, adjoint=adjoint), a, b)


def test_triangular_solve_errors_and_zero_diagonal():
    check(lambda tf: tf.linalg.triangular_solve(tf.eye(3), tf.ones([3])))
    check(lambda tf: tf.linalg.triangular_solve(tf.eye(3), tf.ones([2, 1])))
    check(lambda tf: tf.linalg.triangular_solve(tf.eye(3), tf.ones([3, 1], tf.float64)))
    check(lambda tf: tf.linalg.triangular_solve(tf.constant([[0.0, 0], [1, 1]]), tf.ones([2, 1])))


def test_cholesky_solve():
    chol = np.linalg.cholesky(spd(3, (2,)))
    check_grad(lambda tf, c, b: tf.linalg.cholesky_solve(c, b), chol, arrays((2, 3, 2), dtype="float64"))
    check(lambda tf: tf.linalg.cholesky_solve(tf.eye(3), tf.ones([2, 3, 1])))


def test_cholesky_gradient_reads_lower_triangle():
    a = spd(3) + np.triu(np.full((3, 3), 0.5), 1)  # not symmetric: TF reads the lower triangle
    check_grad(lambda tf, a: tf.linalg.cholesky(a), a)
    check_grad(lambda tf, a: tf.linalg.logdet(a), a)


@pytest.mark.parametrize("shape", [(3, 2), (2, 3), (2, 4, 3)])
@pytest.mark.parametrize("l2", [0.0, 1.0])
def test_lstsq(shape, l2):
    a = arrays(shape, dtype="float64")
    b = arrays(shape[:-1] + (2,), seed=1, dtype="float64")
    check_grad(lambda tf, a, b: tf.linalg.lstsq(a, b, l2_regularizer=l2), a, b)
    check(lambda tf, a, b: tf.linalg.lstsq(a, b, l2_regularizer=l2, fast=False), a, b)


def test_lstsq_rank_deficient_and_errors():
    # (fast=True on a rank-deficient matrix is a Cholesky of a numerically singular Gramian: not comparable.)
    a = np.array([[1.0, 2], [2, 4], [3, 6]], np.float32)
    b = np.array([[1.0], [2], [4]], np.float32)
    check(lambda tf, a, b: tf.linalg.lstsq(a, b, fast=False), a, b)
    check(lambda tf: tf.linalg.lstsq(tf.ones([3, 2]), tf.ones([2, 1])))
    check(lambda tf: tf.linalg.lstsq(tf.ones([3, 2]), tf.ones([3, 1], tf.float64)))
    check(lambda tf: tf.linalg.lstsq(tf.ones([3, 2]), tf.ones([3, 1]), l2_regularizer=tf.constant(1.0)))


# -- factorizations compared through their unique parts --------------------------------------------------
@pytest.mark.parametrize("shape", [(3, 3), (4, 2), (2, 4), (2, 3, 2), (0, 3)])
@pytest.mark.parametrize("full_matrices", [False, True])
def test_svd(shape, full_matrices):
    def parts(tf, x):
        s, u, v = tf.linalg.svd(x, full_matrices=full_matrices)
        k = min(shape[-2:])
        uk = tf.linalg.matmul(u, tf.eye(u.shape[-1], k, dtype=x.dtype))  # the first k columns
        vk = tf.linalg.matmul(v, tf.eye(v.shape[-1], k, dtype=x.dtype))
        recon = tf.linalg.matmul(uk * tf.expand_dims(s, -2), vk, transpose_b=True)
        # Sign-invariant: s, the reconstruction, the projections onto the singular subspaces, the shapes.
        return s, recon, tf.linalg.matmul(uk, uk, transpose_b=True), tf.linalg.matmul(vk, vk, transpose_b=True), \
            u.shape, v.shape
    from compat_tests.tensorflow.harness import vtf
    if not all(hasattr(vtf, n) for n in ("eye", "expand_dims")):
        pytest.skip("needs tf.eye and tf.expand_dims (array helper)")
    if full_matrices and abs(shape[-1] - shape[-2]) > 1:
        check(parts, arrays(shape, dtype="float64"))  # TF defines no gradient there
    else:
        check_grad(parts, arrays(shape, dtype="float64"))


@pytest.mark.parametrize("shape", [(3, 3), (2, 3, 3)])
def test_svd_values_only(shape):
    check_grad(lambda tf, x: tf.linalg.svd(x, compute_uv=False), arrays(shape, dtype="float64"))
    check(lambda tf, x: tf.linalg.svd(x, compute_uv=False), np.array([[np.nan, 1.0], [1, 1]]))


@pytest.mark.parametrize("shape", [(3, 3), (4, 2), (2, 4), (2, 3, 2)])
@pytest.mark.parametrize("full_matrices", [False, True])
def test_qr(shape, full_matrices):
    def parts(tf, x):
        q, r = tf.linalg.qr(x, full_matrices=full_matrices)
        # Columns of Q and rows of R may flip signs together: q*q, r*r and q @ r are invariant.
        return q * q, r * r, tf.linalg.matmul(q, r), q.shape, r.shape
    a = arrays(shape, dtype="float64")
    if full_matrices and shape[-2] > shape[-1]:
        check(parts, a)  # TF defines no gradient there
    else:
        check_grad(parts, a)


def test_qr_half_and_namedtuple():
    # TF's half QR works in half precision (2-ulp differences from vfw's float32 computation rounded once).
    check(lambda tf, x: tf.abs(tf.cast(tf.linalg.qr(tf.cast(x, tf.float16)).r, tf.float32)), SQUARE, rtol=4e-3)
    check(lambda tf, x: type(tf.linalg.qr(x)).__name__, SQUARE)
    check(lambda tf, x: type(tf.linalg.slogdet(x)).__name__, SQUARE)
    check(lambda tf, x: tf.linalg.slogdet(x).log_abs_determinant, np.array([[[-2.0, 0], [0, 1]]]))


@pytest.mark.parametrize("matrix", [spd(3), spd(3) + np.triu(np.ones((3, 3)), 1), spd(3, (2,))],
                         ids=["symmetric", "upper_ignored", "batch"])
def test_eigh(matrix):
    def parts(tf, x):
        e, v = tf.linalg.eigh(x)
        return e, v * v, tf.linalg.matmul(v * tf.expand_dims(e, -2), v, transpose_b=True)
    from compat_tests.tensorflow.harness import vtf
    if not hasattr(vtf, "expand_dims"):
        pytest.skip("needs tf.expand_dims (array helper)")
    check_grad(parts, matrix)
    check_grad(lambda tf, x: tf.linalg.eigvalsh(x), matrix)


@pytest.mark.parametrize("case", [dict(), dict(rcond=0.5), dict(rcond=0.1)])
def test_pinv(case):
    a = np.array([[2.0, 3], [1, 4], [1, 1]])
    check_grad(lambda tf, a: tf.linalg.pinv(a, **case), a)
    check(lambda tf, a: tf.linalg.pinv(a, **case), np.array([[1.0, 2], [2, 4]]))


def test_matrix_rank():
    for a in (np.array([[1.0, 2], [2, 4]]), np.eye(3), np.ones((2, 3)), np.stack([np.eye(2), np.zeros((2, 2))])):
        check(lambda tf, a: tf.linalg.matrix_rank(a), a)
        check(lambda tf, a: tf.linalg.matrix_rank(a, tol=0.5), a)
    check(lambda tf: tf.linalg.matrix_rank(tf.constant([[1, 2], [3, 4]])))


def test_det_of_empty_and_batches():
    check(lambda tf: tf.linalg.det(tf.ones([2, 0, 0])))
    check_grad(lambda tf, x: tf.linalg.det(x), arrays((2, 3, 3), dtype="float64"))
    check_grad(lambda tf, x: tf.linalg.slogdet(x), arrays((2, 3, 3), dtype="float64"))


@pytest.mark.parametrize("scale", [0.001, 0.1, 1.0, 3.0, 10.0])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_expm(scale, dtype):
    # Each scale selects another Pade degree (and, past the last, squarings); the batch mixes two norms.
    a = arrays((2, 3, 3), dtype=dtype) * np.array([scale, scale / 7], dtype)[:, None, None]
    check_grad(lambda tf, a: tf.linalg.expm(a), a, rtol=1e-4 if dtype == "float32" else 1e-9)


@pytest.mark.parametrize("value", [np.ones((2, 3)), np.ones(3), np.zeros((0, 0)), np.array([[np.nan, 1.0], [1, 1]])],
                         ids=["nonsquare", "vector", "empty", "nan"])
def test_expm_edge_cases(value):
    check(lambda tf, x: tf.linalg.expm(x), value)


@pytest.mark.parametrize("dtype", DTYPES)
def test_expm_dtypes(dtype):
    check(lambda tf, x: tf.linalg.expm(tf.cast(x, dtype)), SQUARE / 4, rtol=1e-4)
