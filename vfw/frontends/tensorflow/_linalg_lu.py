"""tf.linalg LU and tridiagonal/banded solvers: ``lu``, ``lu_reconstruct``, ``lu_solve``, ``lu_matrix_inverse``,
``tridiagonal_matmul``, ``tridiagonal_solve``, ``banded_triangular_solve``.

``lu`` factors in numpy with partial pivoting (the largest magnitude in each column, first on ties, as
TF's kernel); TF defines no gradient for it.  The others are composed of differentiable tf ops (triangular
solves, gathers, matmuls), so their gradients are TF's up to rounding.
"""

import numpy as np

import vfw.frontends.tensorflow as tf
from vfw.frontends.tensorflow import _dtypes
from vfw.frontends.tensorflow._dispatch import convert_to_tensor, host
from vfw.frontends.tensorflow._op_support import OpTypes, detached

_LU_TYPES = OpTypes("Lu", "float16 float32 float64 complex64 complex128", "float32 float64")


def _lu_factors(matrices, index_dtype):
    """``(packed L\\U, row permutation)`` of a ``[..., n, n]`` array by Gaussian elimination with partial
    pivoting, vectorised over the batch (one step per column)."""
    lu = matrices.astype(matrices.dtype, copy=True)
    n = lu.shape[-1]
    batch = lu.reshape(-1, n, n)
    perm = np.tile(np.arange(n), (batch.shape[0], 1))
    rows = np.arange(batch.shape[0])
    for k in range(n):
        pivot = k + np.argmax(np.abs(batch[:, k:, k]), axis=1)
        batch[rows, k], batch[rows, pivot] = batch[rows, pivot].copy(), batch[rows, k].copy()
        perm[rows, k], perm[rows, pivot] = perm[rows, pivot], perm[rows, k]
        with np.errstate(divide="ignore", invalid="ignore"):
            batch[:, k + 1:, k] /= batch[:, k:k + 1, k]
        batch[:, k + 1:, k + 1:] -= batch[:, k + 1:, k:k + 1] * batch[:, k:k + 1, k + 1:]
    return batch.reshape(lu.shape), perm.reshape(lu.shape[:-1]).astype(index_dtype)


def lu(input, output_idx_type=_dtypes.int32, name=None):
    """LU factorisation with partial pivoting of square matrices ``[..., n, n]``.

    Returns
    -------
    (lu, p)
        ``lu`` packs the unit lower triangle L (below the diagonal) and U; ``p`` ([..., n], int32/int64)
        is the row permutation: ``A[..., p, :] = L @ U``.
    """
    x = convert_to_tensor(input)
    _LU_TYPES.check(x.array.dtype)
    if x.shape.rank < 2 or x.shape[-1] != x.shape[-2]:
        raise tf.errors.InvalidArgumentError(None, None, f"Input tensor 0 must be square matrices, got shape "
                                                         f"{list(x.shape)} [Op:Lu]")
    index_dtype = _dtypes.as_dtype(output_idx_type).np
    return host(lambda a: _lu_factors(a, index_dtype), detached(x))


def _triangles(lower_upper):
    """``(unit lower triangle L, upper triangle U)`` of a packed LU."""
    lower = tf.linalg.band_part(lower_upper, -1, 0)
    ones = tf.ones_like(tf.linalg.diag_part(lower_upper))
    return tf.linalg.set_diag(lower, ones), tf.linalg.band_part(lower_upper, 0, -1)


def _batch_dims(t):
    return t.shape.rank - 1


def lu_reconstruct(lower_upper, perm, validate_args=False, name=None):
    """The matrices ``A`` whose ``lu`` is ``(lower_upper, perm)``: ``L @ U`` with the rows put back."""
    lower_upper, perm = convert_to_tensor(lower_upper), convert_to_tensor(perm)
    lower, upper = _triangles(lower_upper)
    return tf.gather(tf.matmul(lower, upper), tf.argsort(perm, axis=-1), axis=-2, batch_dims=_batch_dims(perm))


def lu_solve(lower_upper, perm, rhs, validate_args=False, name=None):
    """Solutions ``X`` of ``A X = rhs`` for ``A`` given by its ``lu`` (batch shapes must match)."""
    lower_upper, perm = convert_to_tensor(lower_upper), convert_to_tensor(perm)
    rhs = convert_to_tensor(rhs, dtype_hint=lower_upper.dtype)
    lower, upper = _triangles(lower_upper)
    permuted = tf.gather(rhs, perm, axis=-2, batch_dims=_batch_dims(perm))
    return tf.linalg.triangular_solve(upper, tf.linalg.triangular_solve(lower, permuted, lower=True), lower=False)


def lu_matrix_inverse(lower_upper, perm, validate_args=False, name=None):
    """The inverses of the matrices given by their ``lu``."""
    lower_upper = convert_to_tensor(lower_upper)
    n = lower_upper.shape[-1]
    eye = tf.eye(n, batch_shape=lower_upper.shape[:-2], dtype=lower_upper.dtype)
    return lu_solve(lower_upper, perm, eye)


def _three_diagonals(diagonals, diagonals_format, fn):
    """``(superdiagonal, diagonal, subdiagonal)`` ``[..., m]`` of TF's "compact" ``[..., 3, m]`` or "sequence"
    formats (the superdiagonal's last and the subdiagonal's first entries are ignored)."""
    if diagonals_format == "compact":
        diagonals = convert_to_tensor(diagonals)
        if fn == "tridiagonal_solve" and diagonals.shape[-2] != 3:  # tridiagonal_matmul fails slicing instead
            raise ValueError(f"Expected 3 diagonals got {diagonals.shape[-2]}")
        return diagonals[..., 0, :], diagonals[..., 1, :], diagonals[..., 2, :]
    if diagonals_format == "sequence":
        if len(diagonals) != 3:
            raise ValueError(f"Expected diagonals to be a sequence of length 3, got {len(diagonals)}")
        return tuple(convert_to_tensor(d) for d in diagonals)
    raise ValueError(f"Unrecognized diagonals_format: {diagonals_format}")


def _shifted(x, up):
    """``x`` ``[..., m, n]`` moved one row up (the last row zero) or down (the first row zero)."""
    zeros = tf.zeros_like(x[..., :1, :])
    return tf.concat([x[..., 1:, :], zeros], axis=-2) if up else tf.concat([zeros, x[..., :-1, :]], axis=-2)


def tridiagonal_matmul(diagonals, rhs, diagonals_format="compact", name=None):
    """``T @ rhs`` for tridiagonal ``T`` given by its diagonals ("compact", "sequence" or a full "matrix")."""
    if diagonals_format == "matrix":
        return tf.matmul(diagonals, rhs)
    superdiag, maindiag, subdiag = _three_diagonals(diagonals, diagonals_format, "tridiagonal_matmul")
    rhs = convert_to_tensor(rhs, dtype_hint=maindiag.dtype)
    return (maindiag[..., None] * rhs + superdiag[..., None] * _shifted(rhs, up=True)
            + subdiag[..., None] * _shifted(rhs, up=False))


def _tridiagonal_matrix(superdiag, maindiag, subdiag):
    return (tf.linalg.diag(maindiag) + tf.linalg.diag(superdiag[..., :-1], k=1)
            + tf.linalg.diag(subdiag[..., 1:], k=-1))


def tridiagonal_solve(diagonals, rhs, diagonals_format="compact", transpose_rhs=False, conjugate_rhs=False,
                      name=None, partial_pivoting=True, perturb_singular=False):
    """Solutions ``X`` of ``T X = rhs`` for tridiagonal ``T`` (solved as the dense system with partial pivoting;
    ``rhs`` ``[..., m, k]``, or ``[..., k, m]`` with ``transpose_rhs``)."""
    if diagonals_format == "matrix":
        matrix = convert_to_tensor(diagonals)
    else:
        matrix = _tridiagonal_matrix(*_three_diagonals(diagonals, diagonals_format, "tridiagonal_solve"))
    rhs = convert_to_tensor(rhs, dtype_hint=matrix.dtype)
    if transpose_rhs:
        rhs = tf.linalg.matrix_transpose(rhs)
    return tf.linalg.solve(matrix, rhs)


def banded_triangular_solve(bands, rhs, lower=True, adjoint=False, name=None):
    """Solutions ``X`` of ``A X = rhs`` for triangular ``A`` ``[..., m, m]`` given by its ``K`` bands
    ``[..., K, m]``: lower, band ``i`` is the ``i``-th subdiagonal (entry ``j`` in row ``j``, the first ``i``
    unused); upper, band ``i`` is the ``(K - 1 - i)``-th superdiagonal (entry ``j`` in row ``j``, the last
    ones unused), the main diagonal last."""
    bands = convert_to_tensor(bands)
    count, m = bands.shape[-2], bands.shape[-1]
    matrix = None
    for i in range(count):
        offset = -i if lower else count - 1 - i
        width = m - abs(offset)
        band = bands[..., i, m - width:] if lower else bands[..., i, :width]
        term = tf.linalg.diag(band, k=offset, num_rows=m, num_cols=m)
        matrix = term if matrix is None else matrix + term
    return tf.linalg.triangular_solve(matrix, convert_to_tensor(rhs, dtype_hint=bands.dtype), lower=lower,
                                      adjoint=adjoint)


NAMESPACES = {"linalg": ["lu", "lu_reconstruct", "lu_solve", "lu_matrix_inverse", "tridiagonal_matmul",
                         "tridiagonal_solve", "banded_triangular_solve"]}
