"""Matrix inverses, determinants, solvers, pseudo-inverses and decompositions over stacks of matrices.

Inverse, Det (ONNX's), SLogDet, Solve, TriangularSolve, Cholesky and QR work on the last
two dims and broadcast over the leading (batch) dims (SVD, Eigh and PInv are in
``linalg_spectral``); the kernels are numpy.linalg's (LAPACK). Only Det accepts half floats
(computed in float32, as ONNX allows them); the others take float32 and float64, like LAPACK,
and complex64/complex128 too (not ONNX). Their complex gradients are torch's conjugate-Wirtinger
ones: the real formulas with conjugate transposes (``conj`` is the identity on real tensors, so
real gradients are unchanged).

A matrix a factorization cannot handle (singular for Inverse/Solve, not positive-
definite for Cholesky, non-finite values for SVD/Eigh/PInv) raises :class:`LinAlgError`.
Gradients follow the standard matrix-calculus results (PInv's holds where the rank is
locally constant); for Cholesky and Eigh, which read one triangle, they are the
symmetric gradients PyTorch gives (the derivative along symmetric perturbations).
"""

import numpy as np

from vfw.core import dtypes as dt
from vfw.core.autograd import NoGradientError, register_gradient
from vfw.core.errors import OpInputError, ShapeError
from vfw.core.ops._common import array_of, broadcast_shapes, conj, execute, int64s, scalar, unbroadcast
from vfw.core.ops.complex_parts import real_of
from vfw.core.registry import Attr, TensorInfo, defop, describe

_LAPACK = frozenset({dt.float32, dt.float64})
_HALF = frozenset({dt.float16, dt.bfloat16})
_LAPACK_COMPLEX = _LAPACK | dt.COMPLEX


class LinAlgError(OpInputError):
    """A matrix the factorization cannot handle: singular, not positive-definite, non-finite."""


# -- checks and shape inference ----------------------------------------------------------
def _square(op_type, x, name="A"):
    if x.ndim < 2 or x.shape[-1] != x.shape[-2]:
        raise ShapeError(f"{op_type}: input {name} must be a square matrix or a stack of them, got {describe(x)}")


def _square_info(op_type, shape):
    if shape is not None and (len(shape) < 2 or None not in shape[-2:] and shape[-1] != shape[-2]):
        raise ShapeError(f"{op_type}: input A must be a square matrix or a stack of them, got shape {shape}")


def _same_infer(op_type):
    def infer(attrs, infos):
        _square_info(op_type, infos[0].shape)
        return [TensorInfo(infos[0].shape, infos[0].dtype)]

    return infer


def _batch_infer(op_type, count):
    def infer(attrs, infos):
        shape = infos[0].shape
        _square_info(op_type, shape)
        return [TensorInfo(None if shape is None else shape[:-2], infos[0].dtype)] * count

    return infer


def _solve_shape(op_type, a, b, da, db):
    """Output shape of A X = B: broadcast batch dims, then B's matrix dims."""
    if len(a) < 2 or len(b) < 2 or (None not in (a[-2], a[-1], b[-2]) and not a[-1] == a[-2] == b[-2]):
        raise ShapeError(f"{op_type}: A must be square matrices and B matrices with as many rows, got A {da} "
                         f"and B {db}")
    try:
        batch = broadcast_shapes(a[:-2], b[:-2])
    except ShapeError:
        raise ShapeError(f"{op_type}: batch dims of A {da} and B {db} cannot be broadcast together") from None
    return batch + tuple(b[-2:])


def _solve_infer(op_type):
    def infer(attrs, infos):
        a, b = infos
        if a.shape is None or b.shape is None:
            return [TensorInfo(None, a.dtype)]
        return [TensorInfo(_solve_shape(op_type, a.shape, b.shape, a.shape, b.shape), a.dtype)]

    return infer


def _failed(op_type, what, bad):
    """A LinAlgError naming the first batch element for which ``bad`` (a bool array over the batch) holds."""
    where = np.argwhere(bad)
    at = f" (batch element {tuple(int(i) for i in where[0])})" if where.size and bad.ndim else ""
    return LinAlgError(f"{op_type}: {what}{at}")


# -- Inverse -----------------------------------------------------------------------------
@defop("Inverse", inputs="X:T", outputs="Y:T", types={"T": _LAPACK_COMPLEX}, infer=_same_infer("Inverse"))
def inverse():
    """Inverse of each square matrix in the last two dims."""

    def kernel(x, out=None):
        _square("Inverse", x, "X")
        try:
            return np.linalg.inv(x)
        except np.linalg.LinAlgError:
            raise _failed("Inverse", "the matrix is singular", np.linalg.det(x) == 0) from None

    return kernel


def _mT(x):
    """``x`` with its last two dims swapped."""
    perm = list(range(array_of(x).ndim))
    perm[-2:] = perm[-1], perm[-2]
    return execute("Transpose", x, perm=perm)


def _mH(x):
    """The conjugate transpose of the last two dims (the transpose for real ``x``)."""
    return conj(_mT(x))


def _mm(a, b):
    return execute("MatMul", a, b)


@register_gradient("Inverse")
def _inverse_grad(node, g):
    # d(A^-1) = -A^-1 dA A^-1, so gA = -Y^H g Y^H.
    yh = _mH(node.output(0))
    return (execute("Neg", _mm(_mm(yh, g), yh)),)


# -- Det, SLogDet ------------------------------------------------------------------------
def _nan_where_nan(x, result):
    """``result`` (one value per matrix of ``x``) with NaN for the matrices holding a NaN.

    LAPACK's LU may pivot a NaN away and report a finite determinant (0 for [[nan, 1], [1, 1]]).
    """
    bad = np.isnan(x).any(axis=(-1, -2))
    return np.where(bad, np.nan, result).astype(result.dtype) if bad.any() else result


@defop("Det", inputs="X:T", outputs="Y:T", types={"T": dt.FLOATS | dt.COMPLEX}, infer=_batch_infer("Det", 1))
def det():
    """Determinant of each square matrix in the last two dims (half floats computed in float32; complex too)."""

    def kernel(x, out=None):
        _square("Det", x, "X")
        with np.errstate(invalid="ignore"):  # NaN in, NaN out (numpy's linalg warns from its own module)
            if x.dtype in _HALF:
                return np.asarray(_nan_where_nan(x, np.linalg.det(x.astype(np.float32))), x.dtype)
            return np.asarray(_nan_where_nan(x, np.linalg.det(x)))

    return kernel


def _slogdet_infer(attrs, infos):
    shape, dtype = infos[0].shape, infos[0].dtype
    _square_info("SLogDet", shape)
    batch = None if shape is None else shape[:-2]
    return [TensorInfo(batch, dtype), TensorInfo(batch, real_of(dtype) if dtype in dt.COMPLEX else dtype)]


@defop("SLogDet", inputs="X:T", outputs="sign:T logabsdet:T2", types={"T": _LAPACK_COMPLEX, "T2": _LAPACK},
       infer=_slogdet_infer)
def slogdet():
    """Sign and log of the absolute value of the determinant (sign 0 and -inf for singular matrices).

    For complex X the sign is ``det / |det|`` (complex, of modulus 1) and logabsdet is real.
    """

    def kernel(x, out=None):
        _square("SLogDet", x, "X")
        with np.errstate(invalid="ignore"):
            sign, logabs = np.linalg.slogdet(x)
        return np.asarray(sign), np.asarray(_nan_where_nan(x, logabs))

    return kernel


def _unsqueeze2(x):
    return execute("Unsqueeze", x, int64s((-1, -2)))


def _eye(n, dtype):
    return np.eye(n, dtype=dtype)


def _off_diagonal(n, dtype):
    return 1 - np.eye(n, dtype=dtype)


def _cofactors(a):
    """adj(A)^T as the signed determinants of the (n-1) x (n-1) minors (exact for singular A; O(n^5), used
    for the singular complex matrices the real SVD route below cannot take)."""
    n = array_of(a).shape[-1]
    others = int64s([[j for j in range(n) if j != i] for i in range(n)])  # row i: the indices except i
    rows = execute("Gather", a, others, axis=-2)  # (..., n, n-1, n): the rows of minor i
    minors = execute("Gather", rows, others, axis=-1)  # (..., i, n-1, j, n-1)
    rank = minors.array.ndim
    perm = list(range(rank - 4)) + [rank - 4, rank - 2, rank - 3, rank - 1]
    dets = execute("Det", execute("Transpose", minors, perm=perm))
    signs = (-1.0) ** np.add.outer(np.arange(n), np.arange(n))
    return execute("Mul", dets, signs.astype(array_of(a).dtype))


def _adjugate_t(a):
    """adj(A)^T = det(U) det(Vh) U diag(prod_{j != i} s_j) Vh from the SVD (defined for singular A too)."""
    u, s, vh = execute("SVD", a, full_matrices=0)
    n = s.array.shape[-1]
    dtype = s.array.dtype
    others = execute("Add", execute("Mul", execute("Unsqueeze", s, int64s((-2,))), _off_diagonal(n, dtype)),
                     _eye(n, dtype))
    prods = execute("ReduceProd", others, int64s((-1,)), keepdims=0)
    sign = execute("Mul", execute("Det", u), execute("Det", vh))
    core = _mm(execute("Mul", u, execute("Unsqueeze", prods, int64s((-2,)))), vh)
    return execute("Mul", core, _unsqueeze2(sign))


@register_gradient("Det")
def _det_grad(node, g):
    # d det(A) / dA = adj(A)^T, which is det(A) A^-T for invertible A; complex: g times its conjugate.
    a, d = node.inputs[0], node.output(0)
    dtype = a.array.dtype
    if dtype in _HALF:
        a, d, g = (execute("Cast", t, to=dt.float32) for t in (a, d, g))
    if np.all(d.array != 0):
        adj_t = execute("Mul", _mT(execute("Inverse", a)), _unsqueeze2(d))
    else:
        adj_t = _cofactors(a) if dtype in dt.COMPLEX else _adjugate_t(a)
    grad = execute("Mul", conj(adj_t), _unsqueeze2(g))
    return (execute("Cast", grad, to=dtype) if dtype in _HALF else grad,)


@register_gradient("SLogDet")
def _slogdet_grad(node, g_sign, g_logabs):
    # log det A = logabsdet + i theta is holomorphic with derivative A^-T, so gA = A^-H g_w where g_w is the
    # gradient w.r.t. log det: g_logabs + i dL/dtheta, and dL/dtheta = Im(g_sign conj(sign)) as sign = e^(i theta).
    # A real sign is piecewise constant: g_w = g_logabs.
    a = node.inputs[0]
    g_w = g_logabs
    if array_of(a).dtype in dt.COMPLEX:
        turn = execute("Imag", execute("Mul", g_sign, execute("Conj", node.output(0))))
        g_w = execute("ComplexMake", g_logabs, turn)
    return (execute("Mul", _mH(execute("Inverse", a)), _unsqueeze2(g_w)),)


# -- Solve, TriangularSolve ---------------------------------------------------------------
def _check_solve(op_type, a, b):
    if a.ndim < 2 or b.ndim < 2 or not a.shape[-1] == a.shape[-2] == b.shape[-2]:
        _solve_shape(op_type, a.shape, b.shape, describe(a), describe(b))


@defop("Solve", inputs="A:T B:T", outputs="X:T", types={"T": _LAPACK_COMPLEX}, infer=_solve_infer("Solve"))
def solve():
    """X with A X = B for square A (..., n, n) and B (..., n, k); batch dims broadcast (complex too, not ONNX)."""

    def kernel(a, b, out=None):
        _check_solve("Solve", a, b)
        batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
        try:
            return np.linalg.solve(a, b)
        except np.linalg.LinAlgError:
            singular = np.broadcast_to(np.linalg.det(a) == 0, batch)
            raise _failed("Solve", "the matrix A is singular", singular) from None

    return kernel


@register_gradient("Solve")
def _solve_grad(node, g):
    # X = A^-1 B: gB = A^-H g and gA = -gB X^H (summed over broadcast batch dims; ^H is ^T for real A).
    a, b = node.inputs
    need_a, need_b = node.needs_input_grad
    gb = execute("Solve", _mH(a), g)
    ga = unbroadcast(execute("Neg", _mm(gb, _mH(node.output(0)))), array_of(a).shape) if need_a else None
    return ga, (unbroadcast(gb, array_of(b).shape) if need_b else None)


def _substitute(t, b, upper):
    """Triangular solve by substitution, row by row: inf/nan for a zero on the diagonal, as BLAS trsm."""
    n = t.shape[-1]
    x = np.zeros(np.broadcast_shapes(t.shape[:-2], b.shape[:-2]) + b.shape[-2:], b.dtype)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):  # (inf/nan are the results, silently)
        for i in range(n - 1, -1, -1) if upper else range(n):
            done = np.matmul(t[..., i:i + 1, :], x)[..., 0, :]  # rows not solved yet are still 0
            x[..., i, :] = (b[..., i, :] - done) / t[..., i, i, None]
    return x


@defop("TriangularSolve", inputs="A:T B:T", outputs="X:T", types={"T": _LAPACK_COMPLEX},
       attrs={"upper": Attr("int", 1, choices=(0, 1)), "unitriangular": Attr("int", 0, choices=(0, 1))},
       infer=_solve_infer("TriangularSolve"))
def triangular_solve(upper, unitriangular):
    """X with T X = B, T the upper (or lower) triangle of A (unit diagonal if ``unitriangular``).

    Entries of A outside the triangle are not read.
    """
    tri = np.triu if upper else np.tril

    def kernel(a, b, out=None):
        _check_solve("TriangularSolve", a, b)
        t = tri(a)
        if unitriangular:
            n = a.shape[-1]
            t[..., range(n), range(n)] = 1
        if not np.isfinite(t).all():  # LU pivoting would move a NaN/inf off the path substitution takes
            return _substitute(t, b, upper)
        try:
            return np.linalg.solve(t, b)
        except np.linalg.LinAlgError:
            return _substitute(t, b, upper)

    return kernel


@register_gradient("TriangularSolve")
def _triangular_solve_grad(node, g):
    # As Solve with T: gB = T^-H g, gA = the triangle of -gB X^H that T reads (strict if unit diagonal).
    a, b = node.inputs
    need_a, need_b = node.needs_input_grad
    upper, unit = node.attrs["upper"], node.attrs["unitriangular"]
    gb = execute("TriangularSolve", _mH(a), g, upper=1 - upper, unitriangular=unit)
    ga = None
    if need_a:
        full = execute("Neg", _mm(gb, _mH(node.output(0))))
        k = np.asarray((1 if upper else -1) if unit else 0, np.int64)
        ga = unbroadcast(execute("Trilu", full, k, upper=upper), array_of(a).shape)
    return ga, (unbroadcast(gb, array_of(b).shape) if need_b else None)


# -- Cholesky ------------------------------------------------------------------------------
def _not_pd(op_type, x):
    # Only on the error path: which batch element failed (its eigenvalues tell).
    try:
        bad = np.linalg.eigvalsh(x).min(axis=-1) <= 0
    except np.linalg.LinAlgError:
        bad = np.zeros(x.shape[:-2], bool)
    return _failed(op_type, "the matrix is not positive-definite", bad)


@defop("Cholesky", inputs="A:T", outputs="L:T", types={"T": _LAPACK_COMPLEX},
       attrs={"upper": Attr("int", 0, choices=(0, 1))}, infer=_same_infer("Cholesky"))
def cholesky(upper):
    """Cholesky factor of Hermitian (symmetric) positive-definite A: lower L with A = L L^H, or upper U = L^H.

    The lower factor reads A's lower triangle, the upper one its upper triangle.
    """

    def kernel(a, out=None):
        _square("Cholesky", a)
        try:
            return np.linalg.cholesky(a, upper=bool(upper))
        except np.linalg.LinAlgError:
            raise _not_pd("Cholesky", np.triu(a) + np.conj(np.swapaxes(np.triu(a, 1), -1, -2)) if upper
                          else np.tril(a) + np.conj(np.swapaxes(np.tril(a, -1), -1, -2))) from None

    return kernel


@register_gradient("Cholesky")
def _cholesky_grad(node, g):
    # With P = tril(L^H gL) and X = (P + tril(P, -1)^H) / 2: gA = L^-H X L^-1, torch's gradient (symmetric
    # for real A; for complex A it keeps the imaginary part of X's diagonal, as torch's does).
    f = node.output(0)
    lower, gl = (_mH(f), _mH(g)) if node.attrs["upper"] else (f, g)
    n = f.array.shape[-1]
    dtype = f.array.dtype
    lh = _mH(lower)
    p = execute("Mul", _mm(lh, gl), np.tril(np.ones((n, n), dtype)))
    x = execute("Mul", execute("Add", p, _mH(execute("Mul", p, _off_diagonal(n, dtype)))), scalar(0.5, dtype))
    left = execute("TriangularSolve", lh, x, upper=1)
    return (_mH(execute("TriangularSolve", lh, _mH(left), upper=1)),)


# -- QR --------------------------------------------------------------------------------------
def _qr_infer(attrs, infos):
    x = infos[0]
    if x.shape is None:
        return [None if attrs["mode"] == "r" else TensorInfo(None, x.dtype), TensorInfo(None, x.dtype)]
    if len(x.shape) < 2:
        raise ShapeError(f"QR: input A must be a matrix or a stack of them, got shape {x.shape}")
    *batch, m, n = x.shape
    k = m if attrs["mode"] == "complete" or None in (m, n) else min(m, n)
    q = None if attrs["mode"] == "r" else TensorInfo(tuple(batch) + (m, k), x.dtype)
    return [q, TensorInfo(tuple(batch) + (k, n), x.dtype)]


@defop("QR", inputs="A:T", outputs="Q?:T R:T", types={"T": _LAPACK_COMPLEX},
       attrs={"mode": Attr("string", "reduced", choices=("reduced", "complete", "r"))}, infer=_qr_infer)
def qr(mode):
    """A = Q R with orthonormal columns in Q and upper triangular R, real on its diagonal (``mode='r'``: R only,
    Q absent)."""

    def kernel(a, out=None):
        if a.ndim < 2:
            raise ShapeError(f"QR: input A must be a matrix or a stack of them, got {describe(a)}")
        if mode == "r":
            return None, np.linalg.qr(a, mode="r")
        return tuple(np.linalg.qr(a, mode=mode))

    return kernel


def _copy_lower(m):
    """The Hermitian matrix with ``m``'s strict lower triangle and the real part of its diagonal."""
    n = array_of(m).shape[-1]
    dtype = array_of(m).dtype
    half_diagonal = np.tril(np.ones((n, n), dtype)) - np.eye(n, dtype=dtype) / 2
    lower = execute("Mul", m, half_diagonal)
    return execute("Add", lower, _mH(lower))


def _qr_tall_grad(q, r, gq, gr):
    # m >= n: M = R gR^H - gQ^H Q; gA = (gQ + Q copyltu(M)) R^-H.
    m = execute("Sub", _mm(r, _mH(gr)), _mm(_mH(gq), q))
    b = execute("Add", gq, _mm(q, _copy_lower(m)))
    return _mH(execute("TriangularSolve", r, _mH(b), upper=1))


def _cols(x, start, end):
    return execute("Slice", x, int64s((start,)), int64s((end,)), int64s((-1,)))


@register_gradient("QR")
def _qr_grad(node, gq, gr):
    mode = node.attrs["mode"]
    if mode == "r":
        raise NoGradientError("QR: the derivative depends on Q, which is not computed when mode='r'; use "
                              "mode='reduced' to differentiate through QR")
    a = node.inputs[0]
    m, n = array_of(a).shape[-2:]
    if mode == "complete" and m > n:
        raise NoGradientError("QR: the decomposition is not differentiable when mode='complete' and rows > columns")
    q, r = node.output(0), node.output(1)
    if m >= n:
        return (_qr_tall_grad(q, r, gq, gr),)
    # Wide A = [X | Y], R = [U | V]: X = Q U is a square QR and Y = Q V.
    u = _cols(r, 0, m)
    gu, gv = _cols(gr, 0, m), _cols(gr, m, n)
    gx = _qr_tall_grad(q, u, execute("Add", gq, _mm(_cols(a, m, n), _mH(gv))), gu)
    return (execute("Concat", gx, _mm(q, gv), axis=-1),)
