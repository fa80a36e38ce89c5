"""Inverses, determinants, solvers, decompositions and norms: the work behind ``torch.linalg``.

The decompositions run the engine's Inverse, Det, SLogDet, Solve, TriangularSolve,
Cholesky, QR, SVD and Eigh ops (``vfw.core.ops.linalg_decomp``); pinv, lstsq, the
matrix norms and matrix_exp are compositions of them, so gradients come from the
engine. A matrix the factorization cannot handle raises :class:`LinAlgError` (a
RuntimeError, as torch's). The legacy torch-level names (``torch.det``,
``torch.inverse``, ``torch.svd``...) live here too, with their Tensor methods.
"""

import math

import numpy as np

from vfw.core.ops.linalg_decomp import LinAlgError as _EngineLinAlgError
from vfw.core.tensor import Tensor as CoreTensor
from vfw.frontends._warnings import warn_once
from vfw.frontends.torch import return_types
from vfw.frontends.torch._dispatch import call, cast, finish, op, type_name, wrap
from vfw.frontends.torch._linalg import _FLOATS, _product, not_implemented, run, tensor_arg

__all__ = ["det", "logdet", "slogdet", "inverse", "pinverse", "matrix_power", "matrix_exp", "cholesky",
           "cholesky_solve", "cholesky_inverse", "svd", "qr", "triangular_solve"]

_LAPACK = frozenset({np.dtype(np.float32), np.dtype(np.float64)})
_COMPLEX = frozenset({np.dtype(np.complex64), np.dtype(np.complex128)})
_HALF = _FLOATS - _LAPACK
_INT64 = np.dtype(np.int64)


class LinAlgError(RuntimeError):
    """A matrix a linear algebra function cannot handle: singular, not positive-definite, non-finite."""


def _axes(*dims):
    return np.asarray(dims, np.int64)


def _lapack(bound, message, *inputs):
    """Run a decomposition op; its engine LinAlgError becomes torch's LinAlgError with ``message``."""
    try:
        return run(bound, *inputs)
    except RuntimeError as e:
        # ``translate`` raises the RuntimeError inside the handler of the engine error: that is its context.
        if isinstance(e.__context__, _EngineLinAlgError):
            raise LinAlgError(message() if callable(message) else message) from None
        raise


def _failure(name, info, text):
    """torch's LinAlgError text from LAPACK's ``info`` per matrix (0: fine): the first failing matrix's, with its
    (flat) batch position for batches; ``text`` formats its ``info``."""
    first = int(np.flatnonzero(info)[0]) if np.any(info) else 0
    batch = f"(Batch element {first}): " if np.ndim(info) else ""
    return f"{name}: {batch}{text.format(int(np.ravel(info)[first]))}"


def matrices(A, name, half=None, square=True, arg="A", complex=False):
    """Check ``A`` as torch's linalg functions do: a float (or, with ``complex``, complex) tensor of (square)
    matrices.

    ``half`` is the kernel name torch reports as not implemented for half floats; without one,
    half floats get torch's "Low precision dtypes not supported". Functions whose engine ops do not
    take complex yet refuse complex inputs with a message that says so.
    """
    tensor_arg(A, name, arg)
    a = A.array
    if a.dtype in _COMPLEX and not complex:
        raise RuntimeError(f"{name}: complex inputs ({type_name(a.dtype)}) are not supported by vfw yet")
    if a.dtype not in _FLOATS and a.dtype not in _COMPLEX:
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. Got {type_name(a.dtype)}")
    if a.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor {arg} must have at least 2 dimensions.")
    if square and a.shape[-1] != a.shape[-2]:
        raise RuntimeError(f"{name}: {arg} must be batches of square matrices, but they are {a.shape[-2]} by "
                           f"{a.shape[-1]} matrices")
    if a.dtype in _HALF:
        if half is not None:
            raise not_implemented(half, a.dtype)
        raise RuntimeError(f"{name}: Low precision dtypes not supported. Got {type_name(a.dtype)}")
    return A


def _mT(x):
    perm = list(range(x.array.ndim))
    perm[-2:] = perm[-1], perm[-2]
    return run(op("Transpose", perm=perm), x)


def _mH(x):
    """The conjugate transpose of the last two dims (the transpose for real ``x``)."""
    xt = _mT(x)
    return run(op("Conj"), xt) if xt.array.dtype in _COMPLEX else xt


def _real_dtype(np_dtype):
    """float32 for complex64, float64 for complex128, else ``np_dtype``."""
    return np.finfo(np_dtype).dtype


def _unsqueeze(x, axis):
    return run(op("Unsqueeze"), x, _axes(axis))


def _squeeze(x, axis):
    return run(op("Squeeze"), x, _axes(axis))


def _zero_gradient(reference, value):
    """``value``, connected to ``reference``'s graph with a zero gradient (torch keeps results in the graph)."""
    if reference.requires_grad:
        return call(op("Where"), np.zeros((), bool), reference, value)
    return value


# -- inverse, determinants -------------------------------------------------------------------
def inv(A, *, out=None):
    """Inverse of each square matrix (LinAlgError for singular ones)."""
    matrices(A, "linalg.inv", complex=True)
    result = _lapack(op("Inverse"), lambda: _failure("linalg.inv", _zero_pivots(A.array), _SINGULAR), A)
    return finish(result, out, "linalg.inv")


_SINGULAR = ("The diagonal element {} is zero, the inversion could not be completed because the input matrix is "
             "singular.")


def pivot_size(column):
    """LAPACK's pivot size: ``|x|`` for real, ``|Re x| + |Im x|`` for complex entries (i?amax)."""
    return np.abs(column.real) + np.abs(column.imag) if column.dtype.kind == "c" else np.abs(column)


def _zero_pivots(a):
    """LAPACK's ``info`` for LU with partial pivoting: the 1-based index of the first zero pivot, else 0."""
    n = a.shape[-1]
    lu = a.reshape((-1, n, n)).copy()
    info = np.zeros(len(lu), np.int32)
    rows = np.arange(len(lu))
    for k in range(n):  # only on the error path
        p = k + np.argmax(pivot_size(lu[:, k:, k]), axis=1)
        lu[rows, k], lu[rows, p] = lu[rows, p].copy(), lu[rows, k].copy()
        pivot = lu[:, k, k]
        info[(info == 0) & (pivot == 0)] = k + 1
        factors = lu[:, k + 1:, k] / np.where(pivot == 0, 1, pivot)[:, None]
        lu[:, k + 1:, k:] -= factors[:, :, None] * lu[:, k, None, k:]
    return info.reshape(a.shape[:-2])


def _excluding(info, A, compute):
    """``compute(A)`` with the matrices whose ``info`` is non-zero replaced by the identity, and their
    results by NaN (engine ops: the other matrices keep their gradients)."""
    dtype = A.array.dtype
    failed = info > 0
    safe = run(op("Where"), failed[..., None, None], np.eye(A.array.shape[-1], dtype=dtype), A)
    result = compute(safe)
    mask = failed.reshape(failed.shape + (1,) * (result.array.ndim - failed.ndim))
    return run(op("Where"), mask, np.asarray(np.nan, dtype), result)


def inv_ex(A, *, check_errors=False, out=None):
    """``(inverse, info)``: ``info`` is 0 where A is invertible, else the first zero pivot of its LU (1-based).

    The inverses of singular matrices are NaN.
    """
    matrices(A, "linalg.inv_ex", complex=True)
    try:
        inverse = inv(A)
        info = np.zeros(A.array.shape[:-2], np.int32)
    except LinAlgError:
        info = _zero_pivots(A.array)
        if check_errors:
            raise LinAlgError(_failure("linalg.inv_ex", info, _SINGULAR)) from None
        inverse = _excluding(info, A, inv)
    return finish(return_types.linalg_inv_ex((inverse, wrap(info))), out, "linalg.inv_ex")


def det(A, *, out=None):
    """Determinant of each square matrix."""
    matrices(A, "linalg.det", half="lu_cpu", complex=True)
    return finish(run(op("Det"), A), out, "linalg.det")


def linalg_slogdet(A, *, out=None):
    """``(sign, logabsdet)`` of the determinant (sign 0 and -inf for singular matrices)."""
    matrices(A, "linalg.slogdet", half="lu_cpu", complex=True)
    return finish(return_types.linalg_slogdet(run(op("SLogDet"), A)), out, "linalg.slogdet")


def logdet(input):
    """Log of the determinant: NaN for a negative determinant, -inf for a singular matrix.

    Complex matrices: the complex log ``log|det| + i arg(det)`` (``-inf+nanj`` when singular, as torch).
    """
    matrices(input, "logdet", half="lu_cpu", complex=True)
    sign, logabs = run(op("SLogDet"), input)
    dtype = input.array.dtype
    if dtype in _COMPLEX:
        log = run(op("Add"), cast(logabs, dtype), run(op("Log"), sign))
        singular = run(op("Equal"), sign, np.zeros((), dtype))
        return run(op("Where"), singular, np.asarray(complex(-np.inf, np.nan), dtype), log)
    negative = run(op("Less"), sign, np.zeros((), dtype))
    return run(op("Where"), negative, np.asarray(np.nan, dtype), logabs)


# -- solvers ---------------------------------------------------------------------------------
def _same_dtype(name, A, B):
    if A.array.dtype != B.array.dtype:
        raise RuntimeError(f"{name}: Expected A and B to have the same dtype, but found A of type "
                           f"{type_name(A.array.dtype)} and B of type {type_name(B.array.dtype)} instead")


def _solve(A, B, left, name):
    matrices(A, name, complex=True)
    tensor_arg(B, name, "B", 2)
    _same_dtype(name, A, B)
    a, b = A.array, B.array
    vector = b.ndim == 1 or (b.ndim == a.ndim - 1 and b.shape == a.shape[:-1])
    if vector:  # a (batch of) column vector(s)
        B = _unsqueeze(B, -1)
        b = B.array
    if b.ndim < 2 or b.shape[-2 if left else -1] != a.shape[-1]:
        raise RuntimeError(f"{name}: Incompatible shapes of A and B for the equation {'AX' if left else 'XA'} = B "
                           f"({'x'.join(map(str, a.shape[-2:]))} and {'x'.join(map(str, b.shape[-2:]))})")
    if not left:  # X A = B is A^T X^T = B^T
        A, B = _mT(A), _mT(B)
    x = _lapack(op("Solve"), "torch.linalg.solve: The solver failed because the input matrix is singular.", A, B)
    if not left:
        x = _mT(x)
    return _squeeze(x, -1) if vector else x


def solve(A, B, *, left=True, out=None):
    """X with ``A X = B`` (``X A = B`` when ``left=False``); B may be a (batch of) vector(s)."""
    return finish(_solve(A, B, left, "linalg.solve"), out, "linalg.solve")


def solve_ex(A, B, *, left=True, check_errors=False, out=None):
    """``(result, info)`` of ``solve``; ``info`` is the first zero pivot of A's LU (0 when A is invertible).

    The results for singular matrices are NaN.
    """
    try:
        result = _solve(A, B, left, "linalg.solve_ex")
        info = np.zeros(A.array.shape[:-2], np.int32)
    except LinAlgError:
        if check_errors:
            raise
        info = _zero_pivots(A.array)
        result = _excluding(info, A, lambda safe: _solve(safe, B, left, "linalg.solve_ex"))
    return finish(return_types.linalg_solve_ex((result, wrap(info))), out, "linalg.solve_ex")


def solve_triangular(A, B, *, upper, left=True, unitriangular=False, out=None):
    """X with ``T X = B`` (``X T = B`` when ``left=False``), T the upper or lower triangle of A."""
    name = "linalg.solve_triangular"
    matrices(A, name, complex=True)
    tensor_arg(B, name, "B", 2)
    _same_dtype(name, A, B)
    if B.array.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor B must have at least 2 dimensions.")
    if B.array.shape[-2 if left else -1] != A.array.shape[-1]:
        raise RuntimeError(f"{name}: Incompatible shapes of A and B for the equation {'AX' if left else 'XA'} = B "
                           f"({'x'.join(map(str, A.array.shape[-2:]))} and {'x'.join(map(str, B.array.shape[-2:]))})")
    if left:
        x = run(op("TriangularSolve", upper=int(bool(upper)), unitriangular=int(bool(unitriangular))), A, B)
    else:
        x = _mT(run(op("TriangularSolve", upper=int(not upper), unitriangular=int(bool(unitriangular))),
                    _mT(A), _mT(B)))
    return finish(x, out, name)


def triangular_solve(b, A, upper=True, transpose=False, unitriangular=False, *, out=None):
    """Legacy ``(solution, cloned_coefficient)`` of ``op(T) X = b`` (``op`` transposes when ``transpose``)."""
    matrices(A, "triangular_solve", complex=True)
    if transpose:  # op(T) = T^T: the other triangle of A^T
        A, upper = _mT(A), not upper
    x = solve_triangular(A, b, upper=upper, unitriangular=unitriangular)
    batch = x.array.shape[:-2] + A.array.shape[-2:]
    coefficient = _mT(A) if transpose else A
    if coefficient.array.shape != batch:
        coefficient = run(op("Expand"), coefficient, np.asarray(batch, np.int64))
    return finish(return_types.triangular_solve((x, coefficient.clone())), out, "triangular_solve")


# -- Cholesky ----------------------------------------------------------------------------------
def _cholesky(A, upper, name):
    matrices(A, name, complex=True)
    return _lapack(op("Cholesky", upper=int(bool(upper))), lambda: _failure(
        name, _not_pd_order(np.conj(np.swapaxes(A.array, -1, -2)) if upper else A.array), "The factorization could "
        "not be completed because the input is not positive-definite (the leading minor of order {} is not "
        "positive-definite)."), A)


def linalg_cholesky(A, *, upper=False, out=None):
    """Cholesky factor: lower L with ``A = L L^H`` (or upper ``U = L^H``) of Hermitian positive-definite
    matrices."""
    return finish(_cholesky(A, upper, "linalg.cholesky"), out, "linalg.cholesky")


def _not_pd_order(a):
    """LAPACK's ``info`` for Cholesky: the order of the first leading minor that is not positive-definite."""
    n = a.shape[-1]
    flat = np.tril(a.reshape((-1, n, n)))
    low = np.zeros_like(flat)
    info = np.zeros(len(flat), np.int32)
    for k in range(n):  # only on the error path
        d = flat[:, k, k].real - np.sum(np.abs(low[:, k, :k]) ** 2, axis=-1)
        info[(info == 0) & ~(d > 0)] = k + 1
        low[:, k, k] = np.sqrt(np.where(d > 0, d, 1))
        dots = (low[:, k + 1:, :k] @ np.conj(low[:, k, :k, None]))[..., 0]
        low[:, k + 1:, k] = (flat[:, k + 1:, k] - dots) / low[:, k, k, None]
    return info.reshape(a.shape[:-2])


def cholesky_ex(A, *, upper=False, check_errors=False, out=None):
    """``(L, info)``: ``info`` is 0 for positive-definite matrices, else the order of the failing leading minor.

    The factors of failing matrices are NaN.
    """
    try:
        factor = _cholesky(A, upper, "linalg.cholesky_ex")
        info = np.zeros(A.array.shape[:-2], np.int32)
    except LinAlgError:
        if check_errors:
            raise
        info = _not_pd_order(np.conj(np.swapaxes(A.array, -1, -2)) if upper else A.array)
        factor = _excluding(info, A, lambda safe: _cholesky(safe, upper, "linalg.cholesky_ex"))
    return finish(return_types.linalg_cholesky_ex((factor, wrap(info))), out, "linalg.cholesky_ex")


def cholesky(input, upper=False, *, out=None):
    """Deprecated ``torch.cholesky`` (use ``torch.linalg.cholesky``)."""
    warn_once("torch.cholesky is deprecated in favor of torch.linalg.cholesky and will be removed in a future "
                  "PyTorch release.\nL = torch.cholesky(A)\nshould be replaced with\nL = torch.linalg.cholesky(A)\nand"
                  "\nU = torch.cholesky(A, upper=True)\nshould be replaced with\nU = torch.linalg.cholesky(A).mH\n"
                  "This transform will produce equivalent results for all valid (symmetric positive definite) inputs.",
                  UserWarning)
    return finish(_cholesky(input, upper, "cholesky"), out, "cholesky")


def _cholesky_lower(L, upper, name):
    matrices(L, name, complex=True)
    return _mH(L) if upper else L


def cholesky_solve(B, L, upper=False, *, out=None):
    """X with ``A X = B`` given A's Cholesky factor ``L`` (lower, or upper when ``upper``)."""
    lower = _cholesky_lower(L, upper, "cholesky_solve")
    y = solve_triangular(lower, B, upper=False)
    return finish(solve_triangular(_mH(lower), y, upper=True), out, "cholesky_solve")


def cholesky_inverse(L, upper=False, *, out=None):
    """Inverse of ``A = L L^T`` given its Cholesky factor ``L`` (lower, or upper when ``upper``)."""
    lower = _cholesky_lower(L, upper, "cholesky_inverse")
    n = L.array.shape[-1]
    eye = wrap(np.broadcast_to(np.eye(n, dtype=L.array.dtype), L.array.shape))
    return finish(cholesky_solve(eye, lower), out, "cholesky_inverse")


# -- QR, SVD, eigh -------------------------------------------------------------------------------
def linalg_qr(A, mode="reduced", *, out=None):
    """``(Q, R)`` with ``A = Q R``; ``mode`` 'reduced', 'complete' or 'r' (R only: Q is empty)."""
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), 'r', "
                           "or 'complete'")
    matrices(A, "linalg.qr", half="linalg_qr_cpu", square=False, complex=True)
    q, r = run(op("QR", mode=mode), A)
    if q is None:
        q = wrap(np.zeros(0, A.array.dtype))
    return finish(return_types.linalg_qr((q, r)), out, "linalg.qr")


def qr(input, some=True, *, out=None):
    """Legacy ``torch.qr``: reduced (``some=True``) or complete QR."""
    q, r = linalg_qr(input, "reduced" if some else "complete")
    return finish(return_types.qr((q, r)), out, "qr")


def _svd_message(name):
    return f"{name}: The algorithm failed to converge because the input matrix contained non-finite values."


def linalg_svd(A, full_matrices=True, *, driver=None, out=None):
    """``(U, S, Vh)`` with ``A = U diag(S) Vh``, singular values descending."""
    matrices(A, "linalg.svd", half="linalg_svd_cpu", square=False, complex=True)
    result = _lapack(op("SVD", full_matrices=int(bool(full_matrices))), _svd_message("linalg.svd"), A)
    return finish(return_types.linalg_svd(result), out, "linalg.svd")


def svdvals(A, *, driver=None, out=None):
    """Singular values, descending."""
    matrices(A, "linalg.svdvals", half="linalg_svd_cpu", square=False, complex=True)
    return finish(_lapack(op("SVD", full_matrices=0), _svd_message("linalg.svd"), A)[1], out, "linalg.svdvals")


def svd(input, some=True, compute_uv=True, *, out=None):
    """Legacy ``torch.svd``: ``(U, S, V)`` (V, not Vh); zero-filled U and V when ``compute_uv`` is False."""
    matrices(input, "svd", half="linalg_svd_cpu", square=False, complex=True)
    u, s, vh = _lapack(op("SVD", full_matrices=int(not some or not compute_uv)), _svd_message("linalg.svd"), input)
    if not compute_uv:  # zeros shaped as the full factors, as torch's
        u, vh = wrap(np.zeros_like(u.array)), wrap(np.zeros_like(vh.array))
    return finish(return_types.svd((u, s, _mH(vh))), out, "svd")


def _uplo(UPLO):  # noqa: N803  (torch's name)
    if UPLO not in ("L", "U"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    return UPLO


def eigh(A, UPLO="L", *, out=None):  # noqa: N803
    """``(eigenvalues, eigenvectors)`` of symmetric matrices (ascending; A's ``UPLO`` triangle is read)."""
    matrices(A, "linalg.eigh", half="linalg_eigh_cpu", complex=True)
    result = _lapack(op("Eigh", UPLO=_uplo(UPLO)), _svd_message("linalg.eigh"), A)
    return finish(return_types.linalg_eigh(result), out, "linalg.eigh")


def eigvalsh(A, UPLO="L", *, out=None):  # noqa: N803
    """Eigenvalues of symmetric matrices, ascending."""
    matrices(A, "linalg.eigvalsh", half="linalg_eigh_cpu", complex=True)
    result = _lapack(op("Eigh", UPLO=_uplo(UPLO)), _svd_message("linalg.eigvalsh"), A)
    return finish(result[0], out, "linalg.eigvalsh")


# -- pinv, rank, lstsq -----------------------------------------------------------------------------
def _tolerances(atol, rtol, dtype, size):
    """``(atol, rtol)`` as arrays of ``dtype`` with torch's defaults: ``rtol`` is ``eps * size`` unless a
    non-zero ``atol`` is given (then 0)."""
    if rtol is None:
        rtol = 0.0 if atol is not None and np.any(atol.array if isinstance(atol, CoreTensor) else atol) else \
            np.finfo(dtype).eps * size
    atol = 0.0 if atol is None else atol
    return tuple(np.asarray(t.array if isinstance(t, CoreTensor) else t, dtype) for t in (atol, rtol))


def _cutoff(values, atol, rtol):
    """Per matrix (kept as a trailing dim): ``max(atol, rtol * largest value)``."""
    return np.maximum(atol, rtol * values.max(axis=-1, initial=0))[..., None]


def pinv(A, *, atol=None, rtol=None, hermitian=False, out=None):
    """Moore-Penrose pseudo-inverse, from the SVD (or eigh when ``hermitian``): values at most
    ``max(atol, rtol * largest)`` count as zero."""
    if hermitian:
        matrices(A, "linalg.eigh", half="linalg_eigh_cpu", complex=True)
    else:
        matrices(A, "linalg.pinv", half="linalg_svd_cpu", square=False, complex=True)
    tolerances = _tolerances(atol, rtol, _real_dtype(A.array.dtype), max(A.array.shape[-2:]))
    result = _lapack(op("PInv", hermitian=int(bool(hermitian))), _svd_message("linalg.pinv"), A, *tolerances)
    return finish(result, out, "linalg.pinv")


def pinverse(input, rcond=1e-15):
    """Legacy pseudo-inverse: singular values below ``rcond`` times the largest count as zero."""
    return pinv(input, rtol=rcond)


def matrix_rank(A, tol=None, *, atol=None, rtol=None, hermitian=False, out=None):
    """Number of singular values (|eigenvalues| when ``hermitian``) above the tolerance, int64."""
    tensor_arg(A, "linalg.matrix_rank", "A")
    if A.array.dtype not in _LAPACK | _COMPLEX:
        raise RuntimeError("This function doesn't handle types other than float and double")
    if tol is not None:
        atol, rtol = tol, 0.0
    matrices(A, "linalg.matrix_rank", square=hermitian, complex=True)
    if hermitian:
        values = np.abs(run(op("Eigh", UPLO="L"), wrap(A.array))[0].array)
    else:
        values = run(op("SVD", full_matrices=0), wrap(A.array))[1].array
    cutoff = _cutoff(values, *_tolerances(atol, rtol, values.dtype, max(A.array.shape[-2:])))
    return finish(wrap(np.asarray(np.count_nonzero(values > cutoff, axis=-1), _INT64)), out, "linalg.matrix_rank")


_DRIVERS = ("gels", "gelsy", "gelsd", "gelss")


def lstsq(A, B, rcond=None, *, driver=None):
    """Least-squares solution of ``A X = B``: ``(solution, residuals, rank, singular_values)``.

    The solution is the minimum-norm one (``pinv(A) @ B``); as torch on the CPU, ``rank`` is given
    except for 'gels', ``singular_values`` for 'gelsd'/'gelss', and ``residuals`` (squared norms
    of the columns of ``A X - B``) when A is tall, of full rank, and the driver is not 'gelsy'.
    """
    name = "torch.linalg.lstsq"
    if driver is None:
        driver = "gelsy"
    if driver not in _DRIVERS:
        raise RuntimeError(f"{name}: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)")
    matrices(A, name, half="linalg_lstsq_cpu", square=False, complex=True)
    tensor_arg(B, name, "B", 2)
    _same_dtype(name, A, B)
    a, b = A.array, B.array
    vector = b.ndim == a.ndim - 1
    if not (vector or b.ndim == a.ndim) or b.shape[-1 if vector else -2] != a.shape[-2]:
        raise RuntimeError(f"{name}: input.size(-2) should match other.size(-2) (shapes {list(a.shape)} and "
                           f"{list(b.shape)})")
    dtype = a.dtype
    m, n = a.shape[-2:]
    rtol = rcond if rcond is not None and rcond > 0 else None
    solution = _product(pinv(A, rtol=rtol), _unsqueeze(B, -1) if vector else B, None, name)
    real = _real_dtype(dtype)
    empty = wrap(np.zeros(0, real))
    values = run(op("SVD", full_matrices=0), wrap(a))[1].array
    cutoff = _cutoff(values, *_tolerances(None, rtol, real, max(m, n)))
    ranks = np.asarray(np.count_nonzero(values > cutoff, axis=-1), _INT64)
    residuals = empty
    if driver != "gelsy" and m > n and np.all(ranks == n):
        diff = run(op("Sub"), _product(A, solution, None, name), _unsqueeze(B, -1) if vector else B)
        size = run(op("ComplexAbs"), diff) if dtype in _COMPLEX else diff
        residuals = run(op("ReduceSum", keepdims=0), run(op("Mul"), size, size), _axes(-2))
    if vector:
        solution = _squeeze(solution, -1)
    rank = wrap(np.zeros(0, _INT64)) if driver == "gels" else wrap(ranks)
    singular_values = wrap(values) if driver in ("gelsd", "gelss") else empty
    return return_types.linalg_lstsq((solution, residuals, rank, singular_values))


# -- matrix functions -------------------------------------------------------------------------------
def _identity_like(A):
    n = A.array.shape[-1]
    return wrap(np.broadcast_to(np.eye(n, dtype=A.array.dtype), A.array.shape).copy())


def matrix_power(A, n, *, out=None):
    """``A`` to the integer power ``n`` (by repeated squaring; the inverse's for negative ``n``)."""
    name = "linalg.matrix_power"
    tensor_arg(A, name, "A")
    a = A.array
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise RuntimeError(f"{name}: A must be batches of square matrices, but they are "
                           f"{a.shape[-2] if a.ndim > 1 else a.shape} by {a.shape[-1] if a.ndim else ()} matrices")
    if not isinstance(n, (int, np.integer)) or isinstance(n, bool):
        raise TypeError(f"matrix_power(): argument 'n' (position 2) must be int, not {type(n).__name__}")
    if a.dtype == np.bool_:
        raise not_implemented("addmm_impl_cpu_", a.dtype)
    if n == 0:
        return finish(_zero_gradient(A, _identity_like(A)), out, name)
    base = inv(A) if n < 0 else A
    n = abs(n)
    result = None
    while n:
        if n & 1:
            result = base if result is None else _product(result, base, None, name)
        n >>= 1
        if n:
            base = _product(base, base, None, name)
    return finish(A.clone() if result is A else result, out, name)  # A ** 1 is a copy, as torch's


def matrix_exp(A):
    """Matrix exponential, by scaling and squaring a Taylor series (half floats computed in float32)."""
    name = "linalg.matrix_exp"
    tensor_arg(A, name, "A")
    a = A.array
    if a.dtype not in _FLOATS and a.dtype not in _COMPLEX:
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. Got {type_name(a.dtype)}")
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise RuntimeError(f"{name}: A must be batches of square matrices, but they are {a.shape[-2:]} matrices")
    dtype = a.dtype
    work = cast(A, np.dtype(np.float32)) if dtype in _HALF else A
    # Scale so that the 1-norm is at most 1/2: the Taylor remainder after q terms is then below
    # 0.5**(q+1) / (q+1)!, under the dtype's precision for q = 9 (float32) and 14 (float64).
    norm = float(np.abs(work.array).sum(axis=-2).max(initial=0)) if a.size else 0.0
    squarings = max(0, math.ceil(math.log2(norm / 0.5))) if norm > 0 and math.isfinite(norm) else 0
    wdtype = work.array.dtype
    x = run(op("Mul"), work, np.asarray(2.0 ** -squarings, wdtype)) if squarings else work
    eye = np.eye(a.shape[-1], dtype=wdtype)
    result = None
    for k in range(14 if _real_dtype(wdtype) == np.float64 else 9, 0, -1):  # Horner: I + x/1 (I + x/2 (I + ... x/q))
        term = x if result is None else _product(x, result, None, name)
        term = run(op("Mul"), term, np.asarray(1.0 / k, wdtype))
        result = run(op("Add"), term, eye)
    for _ in range(squarings):
        result = _product(result, result, None, name)
    return cast(result, dtype)


def inverse(input, *, out=None):
    """Inverse of each square matrix (``torch.linalg.inv``)."""
    return inv(input, out=out)


def slogdet(input):
    """``torch.slogdet``: ``(sign, logabsdet)`` of the determinant."""
    return return_types.slogdet(linalg_slogdet(input))


TENSOR_METHODS = {
    "det": det, "logdet": logdet, "slogdet": slogdet, "inverse": inverse, "pinverse": pinverse,
    "matrix_power": matrix_power, "matrix_exp": matrix_exp, "cholesky": cholesky, "cholesky_solve": cholesky_solve,
    "cholesky_inverse": cholesky_inverse, "svd": svd, "qr": qr, "triangular_solve": triangular_solve,
}
