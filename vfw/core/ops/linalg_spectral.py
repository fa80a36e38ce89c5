"""SVD, Eigh and PInv: singular values, Hermitian eigendecompositions and pseudo-inverses (not ONNX).

All three take float32/float64 and complex64/complex128 stacks of matrices (the last two dims; the
leading ones are batch dims). Singular values and Hermitian eigenvalues are real (float32 for
complex64, float64 for complex128); singular vectors and eigenvectors have the input's dtype. The
kernels are numpy.linalg's (LAPACK); non-finite input raises :class:`LinAlgError`.

Gradients are torch's conjugate-Wirtinger ones (the real formulas with conjugate transposes, which
are the transposes for real tensors). Complex singular vectors and eigenvectors are defined only up
to a phase ``e^{i phi}`` per vector: a loss that depends on it is refused with torch's RuntimeError,
and for an invariant loss SVD's phase term ``i (Im diag(U^H gU) - Im diag(V^H gV)) / (2 S)`` enters the
diagonal of the bracket.
"""

import numpy as np

from vfw.core import dtypes as dt
from vfw.core.autograd import register_gradient
from vfw.core.errors import ShapeError
from vfw.core.ops._common import array_of, execute, int64s, scalar
from vfw.core.ops.complex_parts import real_of
from vfw.core.ops.linalg_decomp import _cols, _eye, _failed, _mH, _mm, _off_diagonal, _square, _square_info
from vfw.core.registry import Attr, TensorInfo, defop, describe

_REAL = frozenset({dt.float32, dt.float64})
_ALL = _REAL | dt.COMPLEX


def _real_dtype(dtype):
    return real_of(dtype) if dtype in dt.COMPLEX else dtype


def _like(x, dtype):
    """``x`` cast to ``dtype`` (real values into a complex formula; engine ops never promote)."""
    return x if array_of(x).dtype == dtype else execute("Cast", x, to=dt.onnx_code(dtype))


def _swap_h(x):
    """The conjugate transpose of the last two dims of an array."""
    return np.conj(np.swapaxes(x, -1, -2))


def _matrix_or_stack(op_type, a):
    if a.ndim < 2:
        raise ShapeError(f"{op_type}: input A must be a matrix or a stack of them, got {describe(a)}")


# -- PInv ------------------------------------------------------------------------------------
def _pinv_infer(attrs, infos):
    x = infos[0]
    if x.shape is None:
        return [TensorInfo(None, x.dtype)]
    if len(x.shape) < 2:
        raise ShapeError(f"PInv: input A must be a matrix or a stack of them, got shape {x.shape}")
    if attrs["hermitian"]:
        _square_info("PInv", x.shape)
    return [TensorInfo(tuple(x.shape[:-2]) + (x.shape[-1], x.shape[-2]), x.dtype)]


@defop("PInv", inputs="A:T atol:T2 rtol:T2", outputs="Y:T", types={"T": _ALL, "T2": _REAL},
       attrs={"hermitian": Attr("int", 0, choices=(0, 1))}, infer=_pinv_infer)
def pinv(hermitian):
    """Moore-Penrose pseudo-inverse: singular values at most ``max(atol, rtol * largest)`` count as zero.

    With ``hermitian`` A is taken as the Hermitian matrix in its lower triangle and its eigenvalues'
    magnitudes play the singular values' part. ``atol`` and ``rtol`` (real, of A's precision) broadcast
    against the batch dims.
    """

    def kernel(a, atol, rtol, out=None):
        _matrix_or_stack("PInv", a)
        try:
            if hermitian:
                _square("PInv", a)
                values, left = np.linalg.eigh(a)
                right = _swap_h(left)
            else:
                left, values, right = np.linalg.svd(a, full_matrices=False)
                left, right = _swap_h(right), _swap_h(left)
        except np.linalg.LinAlgError:
            raise _failed("PInv", "the algorithm did not converge (non-finite values?)",
                          ~np.isfinite(a).all(axis=(-1, -2))) from None
        size = np.abs(values)
        cutoff = np.maximum(atol, rtol * size.max(axis=-1, initial=0))[..., None]
        keep = size > cutoff
        inverted = np.where(keep, 1 / np.where(keep, values, 1), 0).astype(a.dtype)
        return np.matmul(left * inverted[..., None, :], right)

    return kernel


@register_gradient("PInv")
def _pinv_grad(node, g):
    # For P = pinv(A) of locally constant rank (Golub & Pereyra):
    # gA = -P^H g P^H + (I - A P) g^H P P^H + P^H P g^H (I - P A).
    a, p = node.inputs[0], node.output(0)
    ph, gh = _mH(p), _mH(g)
    first = execute("Neg", _mm(_mm(ph, g), ph))
    gpp = _mm(_mm(gh, p), ph)
    second = execute("Sub", gpp, _mm(a, _mm(p, gpp)))
    ppg = _mm(_mm(ph, p), gh)
    third = execute("Sub", ppg, _mm(_mm(ppg, p), a))
    return execute("Add", execute("Add", first, second), third), None, None


# -- SVD -------------------------------------------------------------------------------------
def _svd_infer(attrs, infos):
    x = infos[0]
    real = _real_dtype(x.dtype)
    if x.shape is None or None in x.shape[-2:]:
        return [TensorInfo(None, x.dtype), TensorInfo(None, real), TensorInfo(None, x.dtype)]
    if len(x.shape) < 2:
        raise ShapeError(f"SVD: input A must be a matrix or a stack of them, got shape {x.shape}")
    *batch, m, n = x.shape
    k = min(m, n)
    batch = tuple(batch)
    full = attrs["full_matrices"]
    return [TensorInfo(batch + (m, m if full else k), x.dtype), TensorInfo(batch + (k,), real),
            TensorInfo(batch + (n if full else k, n), x.dtype)]


@defop("SVD", inputs="A:T", outputs="U:T S:T2 Vh:T", types={"T": _ALL, "T2": _REAL},
       attrs={"full_matrices": Attr("int", 1, choices=(0, 1))}, infer=_svd_infer)
def svd(full_matrices):
    """A = U diag(S) Vh, singular values S (real) descending; U and Vh square when ``full_matrices``."""

    def kernel(a, out=None):
        _matrix_or_stack("SVD", a)
        try:
            u, s, vh = np.linalg.svd(a, full_matrices=bool(full_matrices))
        except np.linalg.LinAlgError:
            raise _failed("SVD", "the algorithm did not converge (non-finite values?)",
                          ~np.isfinite(a).all(axis=(-1, -2))) from None
        return u, s, vh

    return kernel


def _is_zero(g):
    """Whether an output gradient is zero (an unused output): its terms drop out of the formulas.

    Skipping them matters where they would be 0 * inf (repeated singular values or eigenvalues).
    """
    return not g.array.any()


def _gap_inverse(v, dtype):
    """F (of ``dtype``) with F_ij = 1 / (v_j - v_i) off the diagonal, 0 on it, for real ``v``."""
    n = v.array.shape[-1]
    real = v.array.dtype
    gaps = execute("Sub", execute("Unsqueeze", v, int64s((-2,))), execute("Unsqueeze", v, int64s((-1,))))
    safe = execute("Add", gaps, _eye(n, real))  # no division by zero on the diagonal
    return _like(execute("Mul", execute("Reciprocal", safe), _off_diagonal(n, real)), dtype)


def _diag_embed(v, dtype):
    n = v.array.shape[-1]
    v = _like(v, dtype)
    return execute("Mul", execute("Unsqueeze", v, int64s((-1,))), _eye(n, dtype))


def _rows(x, start, end):
    return execute("Slice", x, int64s((start,)), int64s((end,)), int64s((-2,)))


def _imag_diagonal(x):
    """Im of the diagonal of each matrix of complex ``x``, ``(..., n)``, as a real tensor."""
    n = x.array.shape[-1]
    return execute("ReduceSum", execute("Imag", execute("Mul", x, _eye(n, x.array.dtype))), int64s((-1,)),
                   keepdims=0)


def _refuse_phase_dependence(value, what):
    """torch's refusal of losses that depend on the vectors' phases (``value`` not ~0)."""
    if not np.allclose(array_of(value), 0.0, rtol=1e-2, atol=1e-2):
        raise RuntimeError(f"{what}_backward: The {'singular vectors' if what == 'svd' else 'eigenvectors'} in the "
                           "complex case are specified up to multiplication by e^{i phi}. The specified loss function "
                           + ("depends on this phase term, making it ill-defined." if what == "svd" else
                              "depends on this quantity, so it is ill-defined."))


@register_gradient("SVD")
def _svd_grad(node, gu, gs, gvh):
    # gA = U [(F o (U^H gU - gU^H U)) S + diag(gS) + S (F o (V^H gV - gV^H V)) + phase] Vh
    #      + (I - U U^H) gU S^-1 Vh + U S^-1 gVh (I - V Vh), with F_ij = 1 / (s_j^2 - s_i^2).
    m, n = array_of(node.inputs[0]).shape[-2:]
    k = min(m, n)
    u, s, vh = node.output(0), node.output(1), node.output(2)
    dtype = u.array.dtype
    if node.attrs["full_matrices"]:  # columns of U / rows of Vh past k do not depend on A
        if m > k:
            u, gu = _cols(u, 0, k), _cols(gu, 0, k)
        if n > k:
            vh, gvh = _rows(vh, 0, k), _rows(gvh, 0, k)
    use_u, use_v = not _is_zero(gu), not _is_zero(gvh)
    sc = _like(s, dtype)
    s_row = execute("Unsqueeze", sc, int64s((-2,)))
    s_col = execute("Unsqueeze", sc, int64s((-1,)))
    inner = _diag_embed(gs, dtype)
    if use_u or use_v:
        f = _gap_inverse(execute("Mul", s, s), dtype)
    im_u = im_v = np.zeros(s.array.shape, s.array.dtype)  # Im diag(U^H gU), Im diag(V^H gV)
    if use_u:
        j = _mm(_mH(u), gu)
        inner = execute("Add", inner, execute("Mul", execute("Mul", f, execute("Sub", j, _mH(j))), s_row))
        if dtype in dt.COMPLEX:
            im_u = _imag_diagonal(j)
    if use_v:
        kv = _mm(vh, _mH(gvh))
        inner = execute("Add", inner, execute("Mul", s_col, execute("Mul", f, execute("Sub", kv, _mH(kv)))))
        if dtype in dt.COMPLEX:
            im_v = _imag_diagonal(kv)
    if dtype in dt.COMPLEX and (use_u or use_v):
        _refuse_phase_dependence(execute("Add", im_u, im_v), "svd")  # a common phase turn of u_i, v_i
        real = s.array.dtype
        half = execute("Div", execute("Sub", im_u, im_v), execute("Mul", s, scalar(2.0, real)))
        inner = execute("Add", inner, _diag_embed(execute("Mul", _like(half, dtype), scalar(1j, dtype)), dtype))
    ga = _mm(_mm(u, inner), vh)
    if use_u and m > k:
        rest = execute("Sub", gu, _mm(u, _mm(_mH(u), gu)))
        ga = execute("Add", ga, _mm(execute("Div", rest, s_row), vh))
    if use_v and n > k:
        rest = execute("Sub", gvh, _mm(_mm(gvh, _mH(vh)), vh))
        ga = execute("Add", ga, _mm(u, execute("Div", rest, s_col)))
    return (ga,)


# -- Eigh ------------------------------------------------------------------------------------
def _eigh_infer(attrs, infos):
    x = infos[0]
    _square_info("Eigh", x.shape)
    return [TensorInfo(None if x.shape is None else x.shape[:-1], _real_dtype(x.dtype)), TensorInfo(x.shape, x.dtype)]


@defop("Eigh", inputs="A:T", outputs="eigenvalues:T2 eigenvectors:T", types={"T": _ALL, "T2": _REAL},
       attrs={"UPLO": Attr("string", "L", choices=("L", "U"))}, infer=_eigh_infer)
def eigh(UPLO):  # noqa: N803  (the attribute's name)
    """Eigenvalues (real, ascending) and orthonormal eigenvectors (columns) of the Hermitian (symmetric) matrix
    in A's ``UPLO`` triangle."""

    def kernel(a, out=None):
        _square("Eigh", a)
        try:
            w, v = np.linalg.eigh(a, UPLO=UPLO)
        except np.linalg.LinAlgError:
            raise _failed("Eigh", "the algorithm did not converge (non-finite values?)",
                          ~np.isfinite(a).all(axis=(-1, -2))) from None
        return w, v

    return kernel


@register_gradient("Eigh")
def _eigh_grad(node, gw, gv):
    # gA = V (diag(gw) + F o skew(V^H gV)) V^H with F_ij = 1 / (w_j - w_i): Hermitian, as torch's.
    w, v = node.output(0), node.output(1)
    dtype = v.array.dtype
    inner = _diag_embed(gw, dtype)
    if not _is_zero(gv):
        kv = _mm(_mH(v), gv)
        if dtype in dt.COMPLEX:
            _refuse_phase_dependence(_imag_diagonal(kv), "linalg_eigh")
        skew = execute("Mul", execute("Sub", kv, _mH(kv)), scalar(0.5, dtype))
        inner = execute("Add", inner, execute("Mul", skew, _gap_inverse(w, dtype)))
    return (_mm(_mm(v, inner), _mH(v)),)
