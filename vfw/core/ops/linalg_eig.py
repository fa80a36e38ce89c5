"""Eig: eigenvalues and eigenvectors of general (non-symmetric) square matrices, as complex tensors.

Not ONNX.  The kernel is numpy's ``linalg.eig`` (LAPACK's geev, as torch's CPU kernel): eigenvalues in
LAPACK's order, eigenvectors as columns of unit 2-norm whose largest component is real.  A real input
gives complex results of the same precision (float32 -> complex64, float64 -> complex128), also where
every eigenvalue is real.  Non-finite input raises :class:`LinAlgError`.

The gradient is torch's (``linalg_eig_backward``, arXiv:1701.00392 eq. 4.77), for ``A = V diag(L) V^-1``
with eigenvectors normalized to unit norm:

    gA = V^-H (diag(gL) + (V^H gV - V^H V diag(Re(diag(V^H gV)))) / conj(E)) V^H,  E_ij = L_j - L_i

(the diagonal of the bracket is ``gL``), and its real part for a real ``A``.  Eigenvectors are defined
only up to a phase ``e^{i phi}``: a loss that depends on it (``Im(diag(V^H gV))`` not 0) is refused with
torch's error.  Repeated eigenvalues make the eigenvector term infinite, as in torch.
"""

import numpy as np

from vfw.core import dtypes as dt
from vfw.core.autograd import register_gradient
from vfw.core.ops._common import array_of, execute, int64s
from vfw.core.ops.complex_parts import complex_of
from vfw.core.ops.linalg_decomp import LinAlgError, _failed, _mm, _mT, _square, _square_info
from vfw.core.registry import TensorInfo, defop

_REAL = frozenset({dt.float32, dt.float64})


def _complex_dtype(dtype):
    return dtype if dtype.kind == "c" else complex_of(dtype)


def _eig_infer(attrs, infos):
    x = infos[0]
    _square_info("Eig", x.shape)
    c = _complex_dtype(x.dtype)
    return [TensorInfo(None if x.shape is None else x.shape[:-1], c), TensorInfo(x.shape, c)]


@defop("Eig", inputs="A:T", outputs="eigenvalues:T2 eigenvectors:T2", types={"T": _REAL | dt.COMPLEX,
                                                                             "T2": dt.COMPLEX}, infer=_eig_infer)
def eig():
    """Eigenvalues ``(..., n)`` and unit-norm eigenvectors (columns, ``(..., n, n)``) of each square matrix of A,
    as complex tensors of A's precision."""

    def kernel(a, out=None):
        _square("Eig", a)
        finite = np.isfinite(a).all(axis=(-1, -2))
        if not finite.all():
            raise _failed("Eig", "the input holds infs or NaNs", ~finite)
        c = _complex_dtype(a.dtype)
        try:
            w, v = np.linalg.eig(a)
        except np.linalg.LinAlgError:
            raise LinAlgError("Eig: the QR algorithm did not converge") from None
        return w.astype(c, copy=False), v.astype(c, copy=False)

    return kernel


def _conj_t(x):
    """The conjugate transpose of the last two dims."""
    return execute("Conj", _mT(x))


def _check_phase_invariant(vh_gv):
    """torch's refusal of losses that depend on the eigenvectors' phases (``Im(diag(V^H gV))`` not ~0)."""
    phase = np.diagonal(array_of(vh_gv), axis1=-2, axis2=-1).imag
    if not np.allclose(phase, 0.0, rtol=1e-2, atol=1e-2):
        raise RuntimeError("linalg_eig_backward: The eigenvectors in the complex case are specified up to "
                           "multiplication by e^{i phi}. The specified loss function depends on this quantity, so it "
                           "is ill-defined.")


@register_gradient("Eig")
def _eig_grad(node, gl, gv):
    a = node.inputs[0]
    values, vectors = node.output(0), node.output(1)
    n = values.array.shape[-1]
    c = values.array.dtype
    eye = np.eye(n, dtype=c)
    vh = _conj_t(vectors)
    inner = execute("Mul", execute("Unsqueeze", gl, int64s((-1,))), eye)  # diag(gL)
    if gv.array.any():  # an unused eigenvector output adds nothing (and would be 0 * inf at repeated values)
        vh_gv = _mm(vh, gv)
        _check_phase_invariant(vh_gv)
        re_diag = execute("Cast", execute("Real", execute("Mul", vh_gv, eye)), to=dt.onnx_code(c))
        # V diag(re) scales V's columns by the real diagonal of V^H gV (the unit-norm constraint's term)
        scaled = execute("Mul", vectors, execute("ReduceSum", re_diag, int64s((-2,)), keepdims=1))
        term = execute("Sub", vh_gv, _mm(vh, scaled))
        lc = execute("Conj", values)
        gaps = execute("Sub", execute("Unsqueeze", lc, int64s((-2,))), execute("Unsqueeze", lc, int64s((-1,))))
        off = np.ones((n, n), c) - eye
        safe = execute("Add", gaps, eye)  # 1 on the diagonal: no division by zero there
        inner = execute("Add", inner, execute("Mul", execute("Div", term, safe), off))
    ga = execute("Solve", vh, _mm(inner, vh))
    if array_of(a).dtype.kind != "c":
        ga = execute("Real", ga)
    return (ga,)
