"""tf.linalg inverses, determinants, solvers and decompositions over the engine's LAPACK ops.

TF's CPU kernels differ from LAPACK's error reporting in two ways reproduced here: a matrix
Cholesky or SVD cannot factor gives NaN in that batch element's output (not an error), and
Inverse/Solve refuse NaN input as "not invertible". Half-precision inputs run in float32 where
TF has a half kernel (inv, qr). ``eigh`` differentiates through the symmetric matrix read from
the lower triangle, so its gradient is lower-triangular as TF's.
"""

import collections

import numpy as np

from vfw.core import autograd
from vfw.frontends.tensorflow import _dtypes, errors
from vfw.frontends.tensorflow._dispatch import call, convert_to_tensor, op_error, recording, wrap
from vfw.frontends.tensorflow._linalg_ops import matmul
from vfw.frontends.tensorflow._op_support import (
    BF16,
    F16,
    F32,
    F64,
    LAPACK,
    OpTypes,
    cast,
    dtypes_of,
    reduce,
    reshape,
    same_dtype,
    scalar_like,
    transpose_last,
    with_gradient,
)

LogMatrixDeterminant = collections.namedtuple("LogMatrixDeterminant", ["sign", "log_abs_determinant"])
Qr = collections.namedtuple("Qr", ["q", "r"])

_HALF_TOO = LAPACK | {F16}
_COMPLEX = dtypes_of("C")
_TRIANGULAR_SOLVE_TYPES = OpTypes("MatrixTriangularSolve", LAPACK | {F16, BF16}, LAPACK)
_MATRIX_INVERSE_TYPES = OpTypes("MatrixInverse", _HALF_TOO | _COMPLEX)
_MATRIX_DETERMINANT_TYPES = OpTypes("MatrixDeterminant", _HALF_TOO | _COMPLEX, LAPACK | _COMPLEX)
_LOG_MATRIX_DETERMINANT_TYPES = OpTypes("LogMatrixDeterminant", _HALF_TOO | _COMPLEX, LAPACK | _COMPLEX)
_MATRIX_SOLVE_TYPES = OpTypes("MatrixSolve", LAPACK | {F16}, LAPACK)
_MATRIX_SOLVE_LS_TYPES = OpTypes("MatrixSolveLs", LAPACK | {F16}, LAPACK)
_CHOLESKY_TYPES = OpTypes("Cholesky", LAPACK | {F16}, LAPACK)
_QR_TYPES = OpTypes("Qr", _HALF_TOO)
_SVD_TYPES = OpTypes("Svd", LAPACK | {F16}, LAPACK)
_SELF_ADJOINT_EIG_V2_TYPES = OpTypes("SelfAdjointEigV2", LAPACK | {F16}, LAPACK)


def _matrices(x, tf_op, square=True, what="Input matrix must be square."):
    """Check ``x`` is a (batch of) matrix (square when ``square``) with TF's messages."""
    if x.array.ndim < 2:
        raise op_error(f"Input tensor 0 must have rank >= 2, got {x.array.ndim}", tf_op)
    if square and x.array.shape[-1] != x.array.shape[-2]:
        raise op_error(what, tf_op)


def _in_float32(fn, x):
    """``fn`` on float16 ``x`` computed in float32, results rounded back (TF's half kernels)."""
    if x.array.dtype != F16:
        return fn(x)
    out = fn(cast(x, F32))
    return tuple(cast(o, F16) for o in out) if isinstance(out, tuple) else cast(out, F16)


def _refuse_nan(x, tf_op, message):
    # TF's LU-based kernels see a NaN pivot as singular; numpy's return NaN silently.
    if np.isnan(x.array).any():
        raise op_error(message, tf_op)


def _nan_where_failed(fn, x, fill=lambda shape, dtype: np.full(shape, np.nan, dtype)):
    """``fn(x)`` (a tensor or tuple), except that batch elements ``fn`` cannot factor give ``fill`` outputs
    (NaN by default).

    TF's Cholesky and SVD kernels fill the outputs of a failed matrix with NaN and go on; the
    engine raises for the whole batch, so on failure the matrices are factored one at a time
    (only then: the batch call is the normal path).
    """
    try:
        return fn(x)
    except errors.InvalidArgumentError:
        pass
    *batch, rows, cols = x.array.shape
    stand_in = fn(wrap(np.eye(rows, cols, dtype=x.array.dtype)))
    single = not isinstance(stand_in, tuple)
    stand_in = (stand_in,) if single else stand_in
    flat = reshape(x, (-1, rows, cols))
    parts = []
    for i in range(flat.array.shape[0]):
        matrix = call("Gather", flat, np.asarray(i), axis=0, tf_op="GatherV2")
        try:
            out = fn(matrix)
            parts.append((out,) if single else out)
        except errors.InvalidArgumentError:
            parts.append(tuple(wrap(fill(s.array.shape, s.array.dtype)) for s in stand_in))
    results = []
    for k, s in enumerate(stand_in):
        stacked = call("Concat", *[reshape(p[k], (1,) + s.array.shape) for p in parts], axis=0, tf_op="Pack")
        results.append(reshape(stacked, tuple(batch) + s.array.shape))
    return results[0] if single else tuple(results)


# -- inverses, determinants -------------------------------------------------------------------------
def _adjoint(x):
    """The conjugate transpose of the last two dims (the transpose of a real ``x``)."""
    t = transpose_last(x)
    return call("Conj", t) if t.array.dtype.kind == "c" else t


def _per_matrix(values):
    """Values ``(...)``, one per matrix, as ``(..., 1, 1)`` to scale the matrices ``(..., n, n)``."""
    return call("Unsqueeze", values, np.asarray([-1, -2], np.int64))


def _times_inverse_adjoint(scale, x):
    """``scale * A^-H`` (a value per matrix): TF's gradients of the determinants."""
    return call("Mul", _per_matrix(scale), call("Inverse", _adjoint(x)))


def inv(input, adjoint=False, name=None):  # noqa: A002  (TF's name)
    """Inverse of each square matrix in the last two dims (InvalidArgumentError when one is singular); of its
    conjugate transpose when ``adjoint``."""
    x = convert_to_tensor(input)
    _MATRIX_INVERSE_TYPES.check(x.array.dtype)
    _matrices(x, "MatrixInverse")
    _refuse_nan(x, "MatrixInverse", "Input is not invertible.")
    if adjoint:
        x = _adjoint(x)
    return _in_float32(lambda m: call("Inverse", m, tf_op="MatrixInverse"), x)


def _determinant(x):
    return call("Det", x, tf_op="MatrixDeterminant")


def _complex_det_backward(g, x):
    # TF's gradient g det(A) A^-H: det(A) not conjugated (the conjugate derivative would have conj(det(A)))
    return (_times_inverse_adjoint(call("Mul", g, _determinant(x)), x),)


def det(input, name=None):  # noqa: A002  (TF's name)
    """Determinant of each square matrix in the last two dims."""
    x = convert_to_tensor(input)
    _MATRIX_DETERMINANT_TYPES.check(x.array.dtype)
    _matrices(x, "MatrixDeterminant")
    if x.array.dtype.kind == "c":
        return with_gradient(_determinant, _complex_det_backward, x)
    return _determinant(x)


def _slogdet_parts(x):
    """``(sign, log|det|)``, log|det| in x's dtype (complex for complex x, as TF's)."""
    sign, log_abs = call("SLogDet", x, tf_op="LogMatrixDeterminant")
    if np.isnan(log_abs.array).any():  # TF's sign is NaN there too
        sign = call("Where", np.asarray(np.isnan(log_abs.array)), scalar_like(np.nan, sign), sign, tf_op="Select")
    return sign, cast(log_abs, x.array.dtype)


@autograd.custom_gradient
def _complex_slogdet(x):
    # TF's gradient: the sign counts as constant, and the (complex) gradient of log|det| scales A^-H.
    return _slogdet_parts(x), lambda g_sign, g_log_abs: (_times_inverse_adjoint(g_log_abs, x),)


def slogdet(input, name=None):  # noqa: A002  (TF's name)
    """``(sign, log|det|)`` of each square matrix (sign 0 and -inf for singular matrices); for complex matrices
    the sign is ``det / |det|`` and log|det| is complex (real-valued), as TF's."""
    x = convert_to_tensor(input)
    _LOG_MATRIX_DETERMINANT_TYPES.check(x.array.dtype)
    _matrices(x, "LogMatrixDeterminant")
    parts = _complex_slogdet(x) if x.array.dtype.kind == "c" and recording(x) else _slogdet_parts(x)
    return LogMatrixDeterminant(*parts)


def logdet(matrix, name=None):
    """log det of Hermitian positive-definite matrices, ``2 * sum(log(diag(cholesky(matrix))))``
    (NaN where the Cholesky factorization fails)."""
    factor = cholesky(matrix)
    size = factor.array.shape[-1]
    flat = reshape(factor, factor.array.shape[:-2] + (-1,))
    diagonal = call("Gather", flat, np.arange(size, dtype=np.int64) * (size + 1), axis=-1, tf_op="MatrixDiagPartV3")
    total = reduce("ReduceSum", call("Log", diagonal, tf_op="Log"), [-1], False, "Sum")
    return call("Mul", total, scalar_like(2.0, total), tf_op="Mul")


# -- solvers -----------------------------------------------------------------------------------------
def solve(matrix, rhs, adjoint=False, name=None):
    """X with ``matrix @ X = rhs`` (``adjoint``: ``matrix^T @ X = rhs``); batch dims must be equal."""
    a = convert_to_tensor(matrix)
    b = convert_to_tensor(rhs, dtype_hint=a.array.dtype)
    same_dtype("MatrixSolve", a, b)
    _MATRIX_SOLVE_TYPES.check(a.array.dtype)
    _matrices(a, "MatrixSolve", what="First input (lhs) must be a square matrix.")
    if a.array.ndim != b.array.ndim:
        raise op_error("All input tensors must have the same rank.", "MatrixSolve")
    if a.array.shape[:-2] != b.array.shape[:-2]:
        raise op_error("All input tensors must have the same outer dimensions.", "MatrixSolve")
    if a.array.shape[-1] != b.array.shape[-2]:
        raise op_error("Input matrix and rhs are incompatible.", "MatrixSolve")
    _refuse_nan(a, "MatrixSolve", "Input matrix is not invertible.")
    if adjoint:
        a = transpose_last(a)
    return call("Solve", a, b, tf_op="MatrixSolve")


def triangular_solve(matrix, rhs, lower=True, adjoint=False, name=None):
    """X with ``T @ X = rhs`` (``adjoint``: ``T^T @ X = rhs``), T the lower (or upper) triangle of ``matrix``.

    Batch dims broadcast. A zero on T's diagonal gives inf/NaN, as TF's kernel.
    """
    tf_op = "MatrixTriangularSolve"
    a = convert_to_tensor(matrix)
    b = convert_to_tensor(rhs, dtype_hint=a.array.dtype)
    same_dtype(tf_op, a, b)
    _TRIANGULAR_SOLVE_TYPES.check(a.array.dtype)
    for i, x in enumerate((a, b)):
        if x.array.ndim < 2:
            raise op_error(f"In[{i}] ndims must be >= 2: {x.array.ndim}", tf_op)
    if a.array.shape[-1] != a.array.shape[-2]:
        raise op_error(f"In[0] matrices in the last dimensions must be square: {list(a.array.shape)}", tf_op)
    if a.array.shape[-1] != b.array.shape[-2]:
        raise op_error(f"In[0] mismatch In[1] shape: {a.array.shape[-1]} vs. {b.array.shape[-2]}: "
                       f"{list(a.array.shape)} {list(b.array.shape)}", tf_op)
    upper = not lower
    if adjoint:  # the transpose of a lower triangle is an upper one
        a, upper = transpose_last(a), lower
    return call("TriangularSolve", a, b, upper=int(upper), tf_op=tf_op)


def cholesky_solve(chol, rhs, name=None):
    """X with ``(chol @ chol^T) @ X = rhs`` for lower-triangular Cholesky factors ``chol``."""
    half = triangular_solve(chol, rhs, lower=True)
    return triangular_solve(chol, half, lower=True, adjoint=True)


def _regularized_gramian(a, l2_regularizer, transpose_first):
    """``a^T a + l2 I`` (or ``a a^T + l2 I``)."""
    gram = matmul(a, a, adjoint_a=transpose_first, adjoint_b=not transpose_first)
    l2 = convert_to_tensor(l2_regularizer, dtype=_dtypes.of_array(a.array))
    size = gram.array.shape[-1]
    return call("Add", gram, call("Mul", np.eye(size, dtype=a.array.dtype), l2, tf_op="Mul"), tf_op="AddV2")


def lstsq(matrix, rhs, l2_regularizer=0.0, fast=True, name=None):
    """Least-squares solutions X of ``matrix @ X ~ rhs`` (minimum norm when underdetermined).

    ``fast`` solves the (``l2_regularizer``-regularized) normal equations by Cholesky, giving
    NaN for rank-deficient matrices as TF; ``fast=False`` uses the pseudo-inverse (and, as TF's
    kernel, ignores ``l2_regularizer``).
    """
    a = convert_to_tensor(matrix)
    b = convert_to_tensor(rhs, dtype_hint=a.array.dtype)
    rows, cols = a.array.shape[-2], a.array.shape[-1]
    if not fast:
        _MATRIX_SOLVE_LS_TYPES.check(a.array.dtype)
        return matmul(pinv(a), b)
    _CHOLESKY_TYPES.check(a.array.dtype)
    if rows >= cols:
        factor = cholesky(_regularized_gramian(a, l2_regularizer, True))
        return cholesky_solve(factor, matmul(a, b, adjoint_a=True))
    factor = cholesky(_regularized_gramian(a, l2_regularizer, False))
    return matmul(a, cholesky_solve(factor, b), adjoint_a=True)


# -- decompositions ----------------------------------------------------------------------------------
def cholesky(input, name=None):  # noqa: A002  (TF's name)
    """Lower Cholesky factor of each symmetric positive-definite matrix (reads the lower triangle).

    A matrix that is not positive-definite gives NaN in its batch element, as TF's CPU kernel.
    """
    x = convert_to_tensor(input)
    _CHOLESKY_TYPES.check(x.array.dtype)
    _matrices(x, "Cholesky")
    return _nan_where_failed(lambda m: call("Cholesky", m, upper=0, tf_op="Cholesky"), x,
                             lambda shape, dtype: np.tril(np.full(shape, np.nan, dtype)))


def qr(input, full_matrices=False, name=None):  # noqa: A002  (TF's name)
    """``Qr(q, r)``: Q with orthonormal columns and upper-triangular R, ``input = q @ r``.

    ``full_matrices``: Q square (M, M) and R (M, N); else Q (M, K), R (K, N), K = min(M, N).
    """
    x = convert_to_tensor(input)
    _QR_TYPES.check(x.array.dtype)
    _matrices(x, "Qr", square=False)
    mode = "complete" if full_matrices else "reduced"
    return Qr(*_in_float32(lambda m: call("QR", m, mode=mode, tf_op="Qr"), x))


def _svd(x, full_matrices):
    _SVD_TYPES.check(x.array.dtype)
    _matrices(x, "Svd", square=False)
    return _nan_where_failed(lambda m: call("SVD", m, full_matrices=int(full_matrices), tf_op="Svd"), x)


def svd(tensor, full_matrices=False, compute_uv=True, name=None):  # noqa: F811  (TF's argument name)
    """Singular values (descending) and, with ``compute_uv``, vectors: ``tensor = u @ diag(s) @ v^T``.

    Returns
    -------
    Tensor or tuple
        ``s`` alone, or ``(s, u, v)`` in TF's order (``v`` not transposed).
    """
    x = convert_to_tensor(tensor)
    u, s, vh = _svd(x, full_matrices)
    if not compute_uv:
        return s
    return s, u, transpose_last(vh)


def singular_values(x):
    """The singular values of the matrices in tensor ``x``'s last two dims (descending)."""
    return _svd(x, False)[1]


def _lower_symmetric(x):
    """The symmetric matrices held in ``x``'s lower triangles (what TF's eigensolver reads)."""
    lower = call("Trilu", x, upper=0, tf_op="MatrixBandPart")
    strict = call("Trilu", x, np.asarray(-1, np.int64), upper=0, tf_op="MatrixBandPart")
    return call("Add", lower, transpose_last(strict), tf_op="AddV2")


def eigh(tensor, name=None):  # noqa: F811  (TF's argument name)
    """Eigenvalues (ascending) and eigenvectors (columns) of the self-adjoint matrices in ``tensor``'s
    lower triangles.

    Returns
    -------
    tuple
        ``(e, v)``: shapes ``batch + (N,)`` and ``batch + (N, N)``.
    """
    x = convert_to_tensor(tensor)
    _SELF_ADJOINT_EIG_V2_TYPES.check(x.array.dtype)
    _matrices(x, "SelfAdjointEigV2")
    _refuse_nan(x, "SelfAdjointEigV2", "Self-adjoint eigen decomposition was not successful. The input might not be "
                "valid.")
    return call("Eigh", _lower_symmetric(x), UPLO="L", tf_op="SelfAdjointEigV2")


def eigvalsh(tensor, name=None):  # noqa: F811  (TF's argument name)
    """Eigenvalues (ascending) of the self-adjoint matrices in ``tensor``'s lower triangles."""
    return eigh(tensor)[0]


def _float_matrices(x):
    """TF's Python-level checks of pinv and matrix_rank."""
    if not x.dtype.is_floating:
        raise TypeError(f"Input `a` must have `float`-like `dtype` (saw {x.dtype.name}).")
    if x.array.ndim < 2:
        raise ValueError(f"Input `a` must have at least 2 dimensions (saw: {x.array.ndim}).")


def _eps(x):
    if x.array.dtype == BF16:  # TF asks numpy's finfo, which does not know bfloat16
        raise ValueError("data type <class 'ml_dtypes.bfloat16'> not inexact")
    return float(np.finfo(x.array.dtype).eps)


def pinv(a, rcond=None, validate_args=False, name=None):
    """Moore-Penrose pseudo-inverse from the SVD: singular values at most ``rcond`` times the largest count as zero.

    ``rcond`` defaults to ``10 * max(M, N) * eps``. Differentiable through the SVD (as TF), so
    the gradient is that of the truncated reconstruction when values are cut.
    """
    x = convert_to_tensor(a)
    _float_matrices(x)
    rows, cols = x.array.shape[-2:]
    relative = convert_to_tensor(10.0 * max(rows, cols) * _eps(x) if rcond is None else rcond, dtype=x.dtype)
    u, s, vh = _svd(x, False)
    cutoff = call("Mul", reduce("ReduceMax", s, [-1], True, "Max"), relative, tf_op="Mul")
    kept = call("Where", call("Greater", s, cutoff, tf_op="Greater"), s, scalar_like(np.inf, s), tf_op="SelectV2")
    inverted = call("Reciprocal", kept, tf_op="RealDiv")
    scaled = call("Mul", transpose_last(vh), call("Unsqueeze", inverted, np.asarray([-2], np.int64),
                                                   tf_op="ExpandDims"), tf_op="RealDiv")
    return matmul(scaled, u, adjoint_b=True)


def matrix_rank(a, tol=None, validate_args=False, name=None):
    """Number of singular values above ``tol`` (default ``eps * max(M, N) * largest``), as int32."""
    x = convert_to_tensor(a)
    _float_matrices(x)
    values = singular_values(x)
    if tol is None:
        rows, cols = x.array.shape[-2:]
        largest = reduce("ReduceMax", values, [-1], True, "Max")
        tol = call("Mul", largest, scalar_like(_eps(x) * max(rows, cols), largest), tf_op="Mul")
    else:
        tol = convert_to_tensor(tol, dtype=x.dtype)
    above = cast(call("Greater", values, tol, tf_op="Greater"), np.dtype(np.int32))
    return reduce("ReduceSum", above, [-1], False, "Sum")


# -- matrix exponential ------------------------------------------------------------------------------
# Scaling and squaring with Pade approximants (Higham, "The scaling and squaring method for the
# matrix exponential revisited", 2005): the degree is chosen per matrix from its 1-norm, matrices
# past the largest degree's bound are scaled by 2**-s and the result squared s times.
_PADE = {
    3: (120.0, 60.0, 12.0, 1.0),
    5: (30240.0, 15120.0, 3360.0, 420.0, 30.0, 1.0),
    7: (17297280.0, 8648640.0, 1995840.0, 277200.0, 25200.0, 1512.0, 56.0, 1.0),
    9: (17643225600.0, 8821612800.0, 2075673600.0, 302702400.0, 30270240.0, 2162160.0, 110880.0, 3960.0, 90.0, 1.0),
    13: (64764752532480000.0, 32382376266240000.0, 7771770303897600.0, 1187353796428800.0, 129060195264000.0,
         10559470521600.0, 670442572800.0, 33522128640.0, 1323241920.0, 40840800.0, 960960.0, 16380.0, 182.0, 1.0),
}
# (degree, largest 1-norm it serves) per precision; the last degree also takes scaled matrices.
_PADE_BOUNDS = {F32: ((3, 4.258730016922831e-1), (5, 1.880152677804762), (7, 3.925724783138660)),
                F64: ((3, 1.495585217958292e-2), (5, 2.539398330063230e-1), (7, 9.504178996162932e-1),
                      (9, 2.097847961257068), (13, 5.371920351148152))}


def _pade(x, degree):
    """``(U, V)`` of the degree-``degree`` Pade approximant: ``exp(x) ~ (V - U)^-1 (V + U)``."""
    b = _PADE[degree]
    eye = np.eye(x.array.shape[-1], dtype=x.array.dtype)

    def combo(terms):  # sum of coefficient * power
        total = None
        for coefficient, power in terms:
            term = call("Mul", power, scalar_like(coefficient, x), tf_op="Mul") if power is not None else \
                wrap(eye * np.asarray(coefficient, x.array.dtype))
            total = term if total is None else call("Add", total, term, tf_op="AddV2")
        return total

    x2 = matmul(x, x)
    if degree < 13:
        powers = [None, x2]
        while len(powers) <= degree // 2:
            powers.append(matmul(powers[-1], x2))
        odd = combo([(b[2 * k + 1], powers[k]) for k in range(degree // 2 + 1)])
        even = combo([(b[2 * k], powers[k]) for k in range(degree // 2 + 1)])
        return matmul(x, odd), even
    x4 = matmul(x2, x2)
    x6 = matmul(x4, x2)
    high_odd = matmul(x6, combo([(b[13], x6), (b[11], x4), (b[9], x2)]))
    odd = call("Add", high_odd, combo([(b[7], x6), (b[5], x4), (b[3], x2), (b[1], None)]), tf_op="AddV2")
    high_even = matmul(x6, combo([(b[12], x6), (b[10], x4), (b[8], x2)]))
    even = call("Add", high_even, combo([(b[6], x6), (b[4], x4), (b[2], x2), (b[0], None)]), tf_op="AddV2")
    return matmul(x, odd), even


def expm(input, name=None):  # noqa: A002  (TF's name)
    """Matrix exponential of each square matrix in the last two dims (float32 / float64)."""
    x = convert_to_tensor(input)
    if x.array.dtype not in _HALF_TOO:
        raise ValueError(f"tf.linalg.expm does not support matrices of type {x.dtype!r}")
    _MATRIX_SOLVE_TYPES.check(x.array.dtype)
    if x.array.ndim < 2 or x.array.shape[-1] != x.array.shape[-2]:
        return matmul(x, x)  # TF's first product raises its error for these
    column_sums = np.abs(x.array).sum(axis=-2)
    norms = column_sums.max(axis=-1, initial=0)
    bounds = _PADE_BOUNDS[x.array.dtype]
    top_degree, top_bound = bounds[-1]
    with np.errstate(divide="ignore", invalid="ignore"):
        squarings = np.floor(np.log2(norms / top_bound))
    squarings = np.where(squarings > 0, squarings, 0).astype(np.int64)  # NaN norms: no squaring (NaN anyway)
    scale = np.ldexp(np.ones((), x.array.dtype), -squarings)[..., None, None].astype(x.array.dtype)
    # The smallest degree whose bound the norm is under (NaN and larger norms: the last, scaled).
    chosen_degree = np.minimum(np.searchsorted([b for _, b in bounds], norms, side="right"), len(bounds) - 1)
    result = None
    for i, (degree, _) in enumerate(bounds):
        chosen = chosen_degree == i
        if not chosen.any():
            continue
        operand = call("Mul", x, scale, tf_op="Mul") if degree == top_degree else x
        u, v = _pade(operand, degree)
        approx = call("Solve", call("Sub", v, u, tf_op="Sub"), call("Add", v, u, tf_op="AddV2"), tf_op="MatrixSolve")
        result = approx if result is None else call("Where", chosen[..., None, None], approx, result, tf_op="SelectV2")
    for step in range(int(squarings.max(initial=0))):
        result = call("Where", (step < squarings)[..., None, None], matmul(result, result), result, tf_op="SelectV2")
    return result


NAMESPACES = {
    "linalg": ["inv", "det", "slogdet", "logdet", "solve", "triangular_solve", "cholesky_solve", "lstsq", "cholesky",
               "qr", "svd", "eigh", "eigvalsh", "pinv", "matrix_rank", "expm"],
}
TENSOR_METHODS = {}
