"""tf.linalg.LinearOperator against real TF 2.21: the structured operators TF returns (inverse, adjoint,
cholesky, products of operators), hint rules and the errors for incompatible shapes, dtypes and hints."""

import numpy as np
import pytest

from compat_tests.tensorflow.harness import check

D = np.array([1.5, 2.0, 3.0], np.float32)
M = (np.eye(3) * 4 + np.arange(9).reshape(3, 3) / 10).astype(np.float32)
PD = (M @ M.T).astype(np.float32)


def _described(op):
    """What must match for an operator result: its class, shape, dtype, hints and dense value."""
    return [type(op).__name__, op.shape, op.dtype, op.is_non_singular, op.is_self_adjoint, op.is_positive_definite,
            op.to_dense()]


STRUCTURED = {
    "diag_inverse": lambda tf: tf.linalg.LinearOperatorDiag(D).inverse(),
    "diag_adjoint": lambda tf: tf.linalg.LinearOperatorDiag(D).adjoint(),
    "diag_H": lambda tf: tf.linalg.LinearOperatorDiag(D).H,
    "diag_cholesky": lambda tf: tf.linalg.LinearOperatorDiag(D, is_positive_definite=True).cholesky(),
    "diag_inverse_inverse": lambda tf: tf.linalg.LinearOperatorDiag(D).inverse().inverse(),
    "full_inverse": lambda tf: tf.linalg.LinearOperatorFullMatrix(M).inverse(),
    "full_inverse_inverse": lambda tf: tf.linalg.LinearOperatorFullMatrix(M).inverse().inverse(),
    "full_adjoint": lambda tf: tf.linalg.LinearOperatorFullMatrix(M).adjoint(),
    "full_adjoint_adjoint": lambda tf: tf.linalg.LinearOperatorFullMatrix(M).adjoint().adjoint(),
    "full_cholesky": lambda tf: tf.linalg.LinearOperatorFullMatrix(
        PD, is_self_adjoint=True, is_positive_definite=True).cholesky(),
    "identity_inverse": lambda tf: tf.linalg.LinearOperatorIdentity(3).inverse(),
    "scaled_inverse": lambda tf: tf.linalg.LinearOperatorScaledIdentity(3, 2.0).inverse(),
    "scaled_cholesky": lambda tf: tf.linalg.LinearOperatorScaledIdentity(3, 4.0, is_positive_definite=True).cholesky(),
    "diag_diag": lambda tf: tf.linalg.LinearOperatorDiag(D) @ tf.linalg.LinearOperatorDiag(D[::-1].copy()),
    "diag_full": lambda tf: tf.linalg.LinearOperatorDiag(D).matmul(tf.linalg.LinearOperatorFullMatrix(M)),
    "identity_full": lambda tf: tf.linalg.LinearOperatorIdentity(3).matmul(tf.linalg.LinearOperatorFullMatrix(M)),
    "full_identity": lambda tf: tf.linalg.LinearOperatorFullMatrix(M).matmul(tf.linalg.LinearOperatorIdentity(3)),
    "scaled_scaled": lambda tf: tf.linalg.LinearOperatorScaledIdentity(3, 2.0).matmul(
        tf.linalg.LinearOperatorScaledIdentity(3, -3.0)),
    "diag_scaled": lambda tf: tf.linalg.LinearOperatorDiag(D) @ tf.linalg.LinearOperatorScaledIdentity(3, 2.0),
    "scaled_diag": lambda tf: tf.linalg.LinearOperatorScaledIdentity(3, 2.0) @ tf.linalg.LinearOperatorDiag(D),
    "diag_lower": lambda tf: tf.linalg.LinearOperatorDiag(D) @ tf.linalg.LinearOperatorLowerTriangular(M),
    "lower_diag": lambda tf: tf.linalg.LinearOperatorLowerTriangular(M) @ tf.linalg.LinearOperatorDiag(D),
    "zeros_full": lambda tf: tf.linalg.LinearOperatorZeros(3) @ tf.linalg.LinearOperatorFullMatrix(M),
    "full_zeros": lambda tf: tf.linalg.LinearOperatorFullMatrix(M) @ tf.linalg.LinearOperatorZeros(3),
    "circulant_circulant": lambda tf: tf.linalg.LinearOperatorCirculant(
        np.array([3.0, 1.0 + 1j, 2.0], np.complex64)) @ tf.linalg.LinearOperatorCirculant(
        np.array([1.0, 2.0, 1.0 - 1j], np.complex64)),
    "circulant_inverse": lambda tf: tf.linalg.LinearOperatorCirculant(np.array([3.0, 1.0 + 1j, 2.0],
                                                                               np.complex64)).inverse(),
    "block_diag_inverse": lambda tf: tf.linalg.LinearOperatorBlockDiag(
        [tf.linalg.LinearOperatorDiag(D), tf.linalg.LinearOperatorFullMatrix(M)]).inverse(),
    "kronecker_inverse": lambda tf: tf.linalg.LinearOperatorKronecker(
        [tf.linalg.LinearOperatorDiag(D), tf.linalg.LinearOperatorFullMatrix(M)]).inverse(),
    "householder_inverse": lambda tf: tf.linalg.LinearOperatorHouseholder(D).inverse(),
    "full_solve_operator": lambda tf: tf.linalg.LinearOperatorFullMatrix(M).solve(tf.linalg.LinearOperatorDiag(D)),
    "adjoint_inverse": lambda tf: tf.linalg.LinearOperatorAdjoint(tf.linalg.LinearOperatorFullMatrix(M)).inverse(),
}


@pytest.mark.parametrize("name", sorted(STRUCTURED))
def test_structured_results(name):
    check(lambda tf: _described(STRUCTURED[name](tf)), rtol=1e-5, atol=1e-5)


def test_cached_operator_identity():
    """Results that TF returns as the very same operator object."""
    def fn(tf):
        full = tf.linalg.LinearOperatorFullMatrix(M)
        identity = tf.linalg.LinearOperatorIdentity(3)
        return [full.inverse().inverse() is full, full.adjoint().adjoint() is full, identity.matmul(full) is full,
                identity.inverse() is identity]
    check(fn)


def test_eigvals_and_add_to_tensor():
    check(lambda tf, x: [tf.linalg.LinearOperatorDiag(D).eigvals(), tf.linalg.LinearOperatorDiag(D).add_to_tensor(x),
                         tf.linalg.LinearOperatorFullMatrix(PD, is_self_adjoint=True).eigvals(),
                         tf.linalg.LinearOperatorIdentity(3).add_to_tensor(x),
                         tf.linalg.LinearOperatorScaledIdentity(3, 2.0).add_to_tensor(x),
                         tf.linalg.LinearOperatorFullMatrix(M).add_to_tensor(x)], M, rtol=1e-5, atol=1e-5)


ERRORS = {
    "cholesky_without_hints": lambda tf: tf.linalg.LinearOperatorFullMatrix(M).cholesky(),
    "pd_singular": lambda tf: tf.linalg.LinearOperatorDiag(D, is_non_singular=False, is_positive_definite=True),
    "diag_not_square": lambda tf: tf.linalg.LinearOperatorDiag(D, is_square=False),
    "matmul_shape": lambda tf: tf.linalg.LinearOperatorFullMatrix(M).matmul(tf.ones((2, 2))),
    "matvec_shape": lambda tf: tf.linalg.LinearOperatorDiag(D).matvec(tf.ones(2)),
    "matmul_dtype": lambda tf: tf.linalg.LinearOperatorDiag(D).matmul(tf.ones((3, 2), tf.float64)),
    "inverse_non_square": lambda tf: tf.linalg.LinearOperatorFullMatrix(np.ones((2, 3), np.float32)).inverse(),
    "det_non_square": lambda tf: tf.linalg.LinearOperatorFullMatrix(np.ones((2, 3), np.float32)).determinant(),
    "lad_non_square": lambda tf: tf.linalg.LinearOperatorFullMatrix(
        np.ones((2, 3), np.float32)).log_abs_determinant(),
    "solve_non_square": lambda tf: tf.linalg.LinearOperatorFullMatrix(np.ones((2, 3), np.float32)).solve(
        tf.ones((2, 2))),
    "operators_incompatible": lambda tf: tf.linalg.LinearOperatorDiag(D).matmul(tf.linalg.LinearOperatorDiag(D[:2])),
    "int_matrix": lambda tf: tf.linalg.LinearOperatorFullMatrix(np.ones((3, 3), np.int32)),
    "inverse_singular": lambda tf: tf.linalg.LinearOperatorFullMatrix(M, is_non_singular=False).inverse(),
    "identity_hint": lambda tf: tf.linalg.LinearOperatorIdentity(3, is_non_singular=False),
    "empty_composition": lambda tf: tf.linalg.LinearOperatorComposition([]),
    "inversion_non_square": lambda tf: tf.linalg.LinearOperatorInversion(
        tf.linalg.LinearOperatorFullMatrix(np.ones((2, 3), np.float32))),
    "inversion_singular": lambda tf: tf.linalg.LinearOperatorInversion(
        tf.linalg.LinearOperatorFullMatrix(M, is_non_singular=False)),
    "zeros_solve": lambda tf: tf.linalg.LinearOperatorZeros(3).solve(tf.ones((3, 1))),
    "zeros_inverse": lambda tf: tf.linalg.LinearOperatorZeros(3).inverse(),
    "eigvals_not_self_adjoint": lambda tf: tf.linalg.LinearOperatorFullMatrix(M).eigvals(),
    "operator_sum": lambda tf: tf.linalg.LinearOperatorDiag(D) + tf.linalg.LinearOperatorDiag(D),
    "composition_dtypes": lambda tf: tf.linalg.LinearOperatorComposition(
        [tf.linalg.LinearOperatorDiag(D), tf.linalg.LinearOperatorDiag(D.astype(np.float64))]),
    "self_adjoint_not_square": lambda tf: tf.linalg.LinearOperatorFullMatrix(
        np.ones((2, 3), np.float32), is_self_adjoint=True),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors(name):
    def fn(tf):
        result = ERRORS[name](tf)
        return result.shape if hasattr(result, "shape") else result
    check(fn)


def test_gradients_through_variables():
    """Operators over variables: the tape sees the parameters read at use."""
    def fn(tf):
        diag = tf.Variable(D)
        full = tf.Variable(M)
        with tf.GradientTape() as tape:
            op = tf.linalg.LinearOperatorComposition([tf.linalg.LinearOperatorDiag(diag),
                                                      tf.linalg.LinearOperatorFullMatrix(full)])
            loss = tf.reduce_sum(op.solvevec(tf.ones(3))) + op.log_abs_determinant() + op.trace()
        return tape.gradient(loss, [diag, full])
    check(fn, rtol=1e-4, atol=1e-5)
