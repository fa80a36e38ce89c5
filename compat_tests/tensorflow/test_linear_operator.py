"""tf.linalg.LinearOperator family against real TF 2.21: shapes, hints, dense values, products, solves,
scalars (trace, determinant, log |det|), for every operator class, with batches and adjoint flags."""

import numpy as np
import pytest

from compat_tests.tensorflow.harness import arrays, check, check_grad

RNG = np.random.default_rng(7)


def _well_conditioned(*shape, dtype="float32"):
    """Random matrices with a dominant diagonal (far from singular)."""
    n = shape[-1]
    matrix = RNG.uniform(-1, 1, shape) + 3 * n * np.eye(n)
    return matrix.astype(dtype)


def _positive_definite(*shape, dtype="float32"):
    m = RNG.uniform(-1, 1, shape)
    return (m @ np.swapaxes(m, -1, -2) + shape[-1] * np.eye(shape[-1])).astype(dtype)


def _complex(*shape):
    return (RNG.uniform(-1, 1, shape) + 1j * RNG.uniform(-1, 1, shape) + 3 * shape[-1] * np.eye(shape[-1])
            ).astype(np.complex64)


# name -> (builder(tf, *params) -> operator, params); every operator here is square and non-singular
OPERATORS = {
    "full": (lambda tf, m: tf.linalg.LinearOperatorFullMatrix(m), [_well_conditioned(3, 3)]),
    "full_batch": (lambda tf, m: tf.linalg.LinearOperatorFullMatrix(m), [_well_conditioned(2, 3, 3)]),
    "full_pd": (lambda tf, m: tf.linalg.LinearOperatorFullMatrix(m, is_self_adjoint=True, is_positive_definite=True),
                [_positive_definite(2, 3, 3)]),
    "full_f64": (lambda tf, m: tf.linalg.LinearOperatorFullMatrix(m), [_well_conditioned(3, 3, dtype="float64")]),
    "full_complex": (lambda tf, m: tf.linalg.LinearOperatorFullMatrix(m), [_complex(3, 3)]),
    "diag": (lambda tf, d: tf.linalg.LinearOperatorDiag(d), [np.array([1.5, -2.0, 3.0], np.float32)]),
    "diag_batch": (lambda tf, d: tf.linalg.LinearOperatorDiag(d), [arrays((2, 4), low=0.5, high=2.0)]),
    "lower": (lambda tf, m: tf.linalg.LinearOperatorLowerTriangular(m), [_well_conditioned(2, 3, 3)]),
    "identity": (lambda tf: tf.linalg.LinearOperatorIdentity(3), []),
    "identity_batch": (lambda tf: tf.linalg.LinearOperatorIdentity(3, batch_shape=[2], dtype=tf.float64), []),
    "scaled": (lambda tf, s: tf.linalg.LinearOperatorScaledIdentity(3, s), [np.array([2.0, -0.5], np.float32)]),
    "composition": (lambda tf, a, b: tf.linalg.LinearOperatorComposition(
        [tf.linalg.LinearOperatorFullMatrix(a), tf.linalg.LinearOperatorDiag(b)]),
        [_well_conditioned(3, 3), np.array([1.0, 2.0, -3.0], np.float32)]),
    "block_diag": (lambda tf, a, b: tf.linalg.LinearOperatorBlockDiag(
        [tf.linalg.LinearOperatorFullMatrix(a), tf.linalg.LinearOperatorDiag(b)]),
        [_well_conditioned(2, 2), np.array([1.0, 2.0, -3.0], np.float32)]),
    "block_lower": (lambda tf, a, b, c: tf.linalg.LinearOperatorBlockLowerTriangular(
        [[tf.linalg.LinearOperatorFullMatrix(a)],
         [tf.linalg.LinearOperatorFullMatrix(b), tf.linalg.LinearOperatorFullMatrix(c)]]),
        [_well_conditioned(2, 2), RNG.uniform(-1, 1, (3, 2)).astype(np.float32), _well_conditioned(3, 3)]),
    "kronecker": (lambda tf, a, b: tf.linalg.LinearOperatorKronecker(
        [tf.linalg.LinearOperatorFullMatrix(a), tf.linalg.LinearOperatorFullMatrix(b)]),
        [_well_conditioned(2, 2), _well_conditioned(3, 3)]),
    "low_rank": (lambda tf, d, u, s: tf.linalg.LinearOperatorLowRankUpdate(tf.linalg.LinearOperatorDiag(d), u, s),
                 [np.array([3.0, 4.0, 5.0, 6.0], np.float32), RNG.uniform(-1, 1, (4, 2)).astype(np.float32),
                  np.array([0.5, 1.5], np.float32)]),
    "low_rank_uv": (lambda tf, m, u, v: tf.linalg.LinearOperatorLowRankUpdate(
        tf.linalg.LinearOperatorFullMatrix(m), u, v=v),
        [_well_conditioned(4, 4), RNG.uniform(-1, 1, (4, 1)).astype(np.float32),
         RNG.uniform(-1, 1, (4, 1)).astype(np.float32)]),
    "toeplitz": (lambda tf, c, r: tf.linalg.LinearOperatorToeplitz(c, r),
                 [np.array([9.0, 2.0, -1.0, 0.5], np.float32), np.array([9.0, 1.0, 3.0, -2.0], np.float32)]),
    "circulant": (lambda tf, s: tf.linalg.LinearOperatorCirculant(s),
                  [np.array([4.0 + 1j, 2.0 - 1j, 3.0, 1.0 + 2j], np.complex64)]),
    "circulant_real": (lambda tf, s: tf.linalg.LinearOperatorCirculant(s, input_output_dtype=tf.float32),
                       [np.array([4.0, 2.0, 3.0, 2.0], np.float32)]),
    "circulant2d": (lambda tf, s: tf.linalg.LinearOperatorCirculant2D(s),
                    [(RNG.uniform(1, 2, (2, 2, 3)) + 1j * RNG.uniform(-1, 1, (2, 2, 3))).astype(np.complex64)]),
    "circulant3d": (lambda tf, s: tf.linalg.LinearOperatorCirculant3D(s),
                    [(RNG.uniform(1, 2, (2, 2, 2)) + 0j).astype(np.complex64)]),
    "tridiag": (lambda tf, d: tf.linalg.LinearOperatorTridiag(d),
                [np.array([[1.0, 2.0, 0.5, 9.0], [6.0, 7.0, 8.0, 9.0], [9.0, -1.0, 1.0, 2.0]], np.float32)]),
    "tridiag_sequence": (lambda tf, a, b, c: tf.linalg.LinearOperatorTridiag([a, b, c], diagonals_format="sequence"),
                         [np.array([1.0, 2.0, 0.0], np.float32), np.array([6.0, 7.0, 8.0], np.float32),
                          np.array([0.0, -1.0, 1.0], np.float32)]),
    "tridiag_matrix": (lambda tf, m: tf.linalg.LinearOperatorTridiag(m, diagonals_format="matrix"),
                       [_well_conditioned(3, 3)]),
    "householder": (lambda tf, v: tf.linalg.LinearOperatorHouseholder(v), [np.array([1.0, -2.0, 0.5], np.float32)]),
    "permutation": (lambda tf, p: tf.linalg.LinearOperatorPermutation(p), [np.array([1, 2, 0], np.int32)]),
    "adjoint": (lambda tf, m: tf.linalg.LinearOperatorAdjoint(tf.linalg.LinearOperatorFullMatrix(m)),
                [_well_conditioned(3, 3)]),
    "inversion": (lambda tf, m: tf.linalg.LinearOperatorInversion(tf.linalg.LinearOperatorFullMatrix(m)),
                  [_well_conditioned(2, 3, 3)]),
}


@pytest.mark.parametrize("name", sorted(OPERATORS))
def test_properties(name):
    build, params = OPERATORS[name]

    def fn(tf, *p):
        op = build(tf, *p)
        return [op.shape, op.batch_shape, int(op.domain_dimension), int(op.range_dimension), op.tensor_rank, op.dtype,
                op.shape_tensor(), op.batch_shape_tensor(), op.domain_dimension_tensor(),
                op.range_dimension_tensor(), op.tensor_rank_tensor(), op.is_square, op.is_non_singular,
                op.is_self_adjoint, op.is_positive_definite, op.name]

    check(fn, *params)


@pytest.mark.parametrize("name", sorted(OPERATORS))
def test_dense_and_scalars(name):
    build, params = OPERATORS[name]
    check(lambda tf, *p: [build(tf, *p).to_dense(), build(tf, *p).diag_part(), build(tf, *p).trace(),
                          build(tf, *p).determinant(), build(tf, *p).log_abs_determinant()],
          *params, rtol=2e-5, atol=2e-5)


def _argument(tf_op_shape, dtype, cols, seed):
    rng = np.random.default_rng(seed)
    shape = tuple(tf_op_shape) + (cols,)
    values = rng.uniform(-1, 1, shape)
    if np.dtype(dtype).kind == "c":
        values = values + 1j * rng.uniform(-1, 1, shape)
    return values.astype(dtype)


def _shape_and_dtype(name):
    import vfw.tensorflow as vtf
    build, params = OPERATORS[name]
    op = build(vtf, *[vtf.constant(p) for p in params])
    return op.shape.as_list(), op.dtype.name


@pytest.mark.parametrize("name", sorted(OPERATORS))
@pytest.mark.parametrize("adjoint,adjoint_arg", [(False, False), (True, False), (False, True), (True, True)])
def test_matmul_and_solve(name, adjoint, adjoint_arg):
    build, params = OPERATORS[name]
    shape, dtype = _shape_and_dtype(name)
    x = _argument(shape[:-2] + [shape[-1]], dtype, 2, 3)
    x = np.swapaxes(x, -1, -2).conj() if adjoint_arg else x
    check(lambda tf, x, *p: [build(tf, *p).matmul(x, adjoint=adjoint, adjoint_arg=adjoint_arg),
                             build(tf, *p).solve(x, adjoint=adjoint, adjoint_arg=adjoint_arg)],
          x, *params, rtol=2e-4, atol=2e-5)


@pytest.mark.parametrize("name", sorted(OPERATORS))
@pytest.mark.parametrize("adjoint", [False, True])
def test_matvec_and_solvevec(name, adjoint):
    build, params = OPERATORS[name]
    shape, dtype = _shape_and_dtype(name)
    x = _argument(shape[:-2], dtype, shape[-1], 4)
    check(lambda tf, x, *p: [build(tf, *p).matvec(x, adjoint=adjoint), build(tf, *p).solvevec(x, adjoint=adjoint),
                             build(tf, *p) @ x[..., None]],
          x, *params, rtol=2e-4, atol=2e-5)


@pytest.mark.parametrize("name", ["full", "diag", "lower", "identity", "scaled", "kronecker", "block_diag",
                                  "circulant", "householder", "toeplitz", "full_batch"])
def test_batch_broadcasting(name):
    """Arguments with a larger batch shape than the operator broadcast against it."""
    build, params = OPERATORS[name]
    shape, dtype = _shape_and_dtype(name)
    x = _argument([3] + [1] * len(shape[:-2]) + [shape[-1]], dtype, 2, 5)
    check(lambda tf, x, *p: [build(tf, *p).matmul(x), build(tf, *p).solve(x)], x, *params, rtol=2e-4, atol=2e-5)


@pytest.mark.parametrize("name", ["full", "full_batch", "full_pd", "diag", "lower", "scaled", "composition",
                                  "block_diag", "kronecker", "low_rank", "toeplitz", "tridiag", "householder",
                                  "inversion", "circulant_real"])
def test_gradients(name):
    build, params = OPERATORS[name]
    shape, dtype = _shape_and_dtype(name)
    x = _argument(shape[:-2] + [shape[-1]], dtype, 2, 6)
    check_grad(lambda tf, x, *p: [build(tf, *p).matmul(x), build(tf, *p).solve(x),
                                  build(tf, *p).log_abs_determinant()],
               x, *params, rtol=1e-4, atol=1e-5)
