"""LU factorization with partial pivoting: ``torch.linalg.lu_factor(_ex)``, ``linalg.lu``,
``linalg.lu_solve``, ``torch.lu_unpack`` and the deprecated ``torch.lu`` / ``torch.lu_solve``.

``A = P L U`` with ``L`` unit lower triangular and ``U`` upper triangular; ``pivots`` are
LAPACK's 1-based row interchanges (int32). The factorization runs column by column on the
whole batch at once (pivot: the first largest magnitude, as LAPACK). Its gradient (square
matrices) is ``P L^-H (tril(L^H dL, -1) + triu(dU U^H)) U^-H``; ``lu_solve`` is built from
triangular solves, so it is differentiable with respect to ``LU`` and ``B``. float32, float64,
complex64 and complex128 matrices are accepted.
"""

import numpy as np

from vfw.frontends._warnings import warn_once
from vfw.frontends.torch import _creation, _dispatch, _linalg, _linalg_decomp, return_types
from vfw.frontends.torch._linalg_decomp import pivot_size
from vfw.frontends.torch._pointwise import tensor_arg
from vfw.frontends.torch.autograd.function import Function

__all__ = ["lu", "lu_solve", "lu_unpack"]  # torch.* (lu and lu_solve: deprecated spellings)
LINALG = ["lu", "lu_factor", "lu_factor_ex", "lu_solve"]  # torch.linalg.*


def _factor(a):
    """``(LU, pivots, info)`` of a float array ``(..., m, n)`` (numpy, batched)."""
    lu = np.array(a, copy=True)
    m, n = lu.shape[-2:]
    k = min(m, n)
    batch = lu.shape[:-2]
    pivots = np.zeros(batch + (k,), np.int32)
    info = np.zeros(batch, np.int32)
    index = np.indices(batch) if batch else ()
    for j in range(k):
        p = j + np.argmax(pivot_size(lu[..., j:, j]), axis=-1)
        pivots[..., j] = p + 1
        rows_j, rows_p = lu[..., j, :].copy(), lu[(*index, p)].copy()
        lu[..., j, :] = rows_p
        lu[(*index, p)] = rows_j
        diagonal = lu[..., j, j]
        zero = diagonal == 0
        info = np.where(zero & (info == 0), j + 1, info)
        safe = np.where(zero, 1, diagonal)
        lu[..., j + 1:, j] = np.where(zero[..., None], lu[..., j + 1:, j], lu[..., j + 1:, j] / safe[..., None])
        lu[..., j + 1:, j + 1:] -= lu[..., j + 1:, j, None] * lu[..., j, None, j + 1:]
    return lu, pivots, info


def _permutation(pivots, m, np_dtype):
    """``P`` ``(..., m, m)`` with ``A = P L U`` from LAPACK's row interchanges."""
    batch = pivots.shape[:-1]
    order = np.broadcast_to(np.arange(m), batch + (m,)).copy()
    index = np.indices(batch) if batch else ()
    for j in range(pivots.shape[-1]):
        p = pivots[..., j].astype(np.int64) - 1
        at_j, at_p = order[..., j].copy(), order[(*index, p)].copy()
        order[..., j] = at_p
        order[(*index, p)] = at_j
    perm = np.zeros(batch + (m, m), np_dtype)
    np.put_along_axis(perm, order[..., :, None], 1, axis=-1)  # row i of P^T has its 1 at order[i]
    return np.swapaxes(perm, -1, -2)


def _unpack(LU, P):
    m, n = LU.shape[-2:]
    k = min(m, n)
    lower = LU[..., :, :k].tril(-1) + _creation.eye(m, k, dtype=LU.dtype)
    upper = LU[..., :k, :].triu()
    return P, lower, upper


class _LUGradient(Function):
    """Passes the packed factors through; backward maps their gradient to ``A``'s (square matrices)."""

    @staticmethod
    def forward(ctx, A, packed, P):
        ctx.save_for_backward(packed, P)
        return packed.clone()

    @staticmethod
    def backward(ctx, grad):
        packed, P = ctx.saved_tensors
        if packed.shape[-1] != packed.shape[-2]:
            raise NotImplementedError("vfw.torch: the gradient of an LU factorization of non-square matrices is not "
                                      "implemented")
        _, lower, upper = _unpack(packed, P)
        inner = _linalg.matmul(lower.mH, grad.tril(-1)).tril(-1) + _linalg.matmul(grad.triu(), upper.mH).triu()
        left = _linalg_decomp.solve_triangular(lower.mH, inner, upper=True, unitriangular=True)
        right = _linalg_decomp.solve_triangular(upper.mH, left, upper=False, left=False)
        return _linalg.matmul(P, right), None, None


def _check_matrices(A, name):
    tensor_arg(A, name, "A")
    if A.dim() < 2:
        raise RuntimeError(f"{name}: The input tensor A must have at least 2 dimensions.")
    if A.array.dtype not in (np.float32, np.float64, np.complex64, np.complex128):
        raise NotImplementedError(f"\"lu_cpu\" not implemented for '{_dispatch.type_name(A.array.dtype)}'")


def lu_factor_ex(A, *, pivot=True, check_errors=False, out=None):
    """``(LU, pivots, info)``: the packed factors, LAPACK's 1-based row interchanges (int32) and, per matrix, the
    first zero pivot (1-based; 0 when ``U`` is invertible)."""
    _check_matrices(A, "linalg.lu_factor_ex")
    if not pivot:
        raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the CPU")
    lu_array, pivots, info = _factor(A.array)
    packed = _dispatch.wrap(lu_array)
    P = _dispatch.wrap(_permutation(pivots, A.shape[-2], lu_array.dtype))
    if A.requires_grad:
        packed = _LUGradient.apply(A, packed, P)
    if check_errors and info.any():
        raise _singular_error("linalg.lu_factor_ex", info)
    return return_types.linalg_lu_factor_ex((packed, _dispatch.wrap(pivots), _dispatch.wrap(info)))


def _singular_error(name, info):
    flat = info.reshape(-1)
    k = int(np.flatnonzero(flat)[0])
    where = f"(Batch element {k}): " if info.ndim else ""
    i = int(flat[k])
    return RuntimeError(f"torch.{name}: {where}U[{i},{i}] is zero and using it on lu_solve would result in a division "
                        "by zero. If you still want to perform the factorization, consider calling linalg.lu(A, "
                        "pivot) or linalg.lu_factor_ex(A, pivot)")


def lu_factor(A, *, pivot=True, out=None):
    """``(LU, pivots)`` of ``A = P L U`` (RuntimeError where ``U`` has a zero on its diagonal)."""
    packed, pivots, info = lu_factor_ex(A, pivot=pivot)
    if info.array.any():
        raise _singular_error("linalg.lu_factor", info.array)
    return return_types.linalg_lu_factor((packed, pivots))


def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True, *, out=None):
    """``(P, L, U)`` from ``lu_factor``'s output (empty tensors for the parts not asked for)."""
    tensor_arg(LU_data, "lu_unpack", "LU_data")
    empty = _creation.empty(0, dtype=LU_data.dtype)
    P = _dispatch.wrap(_permutation(np.asarray(LU_pivots.array), LU_data.shape[-2], LU_data.array.dtype)) \
        if unpack_pivots else empty
    _, lower, upper = _unpack(LU_data, P) if unpack_data else (None, empty, empty.clone())
    return return_types.lu_unpack((P, lower, upper))


def linalg_lu(A, *, pivot=True, out=None):
    """``(P, L, U)`` with ``A = P L U``."""
    packed, pivots, _ = lu_factor_ex(A, pivot=pivot)
    P = _dispatch.wrap(_permutation(pivots.array, A.shape[-2], A.array.dtype))
    return return_types.linalg_lu(_unpack(packed, P))


def linalg_lu_solve(LU, pivots, B, *, left=True, adjoint=False, out=None):
    """``X`` with ``A X = B`` (``X A = B`` when not ``left``; ``A^H`` with ``adjoint``) from ``lu_factor``'s
    output."""
    tensor_arg(LU, "linalg.lu_solve", "LU")
    tensor_arg(B, "linalg.lu_solve", "B", 3)
    P, lower, upper = _unpack(LU, _dispatch.wrap(_permutation(np.asarray(pivots.array), LU.shape[-2],
                                                              LU.array.dtype)))
    if not left:  # X A = B  <=>  A^H X^H = B^H
        return linalg_lu_solve(LU, pivots, B.mH, adjoint=not adjoint).mH
    if adjoint:  # A^H X = B: U^H L^H P^T X = B
        y = _linalg_decomp.solve_triangular(upper.mH, B, upper=False)
        z = _linalg_decomp.solve_triangular(lower.mH, y, upper=True, unitriangular=True)
        return _linalg.matmul(P, z)
    y = _linalg_decomp.solve_triangular(lower, _linalg.matmul(P.transpose(-2, -1), B), upper=False,
                                        unitriangular=True)
    return _linalg_decomp.solve_triangular(upper, y, upper=True)


def lu(A, pivot=True, get_infos=False, out=None):
    """Deprecated ``torch.lu``: ``(LU, pivots)`` (and ``info`` with ``get_infos``) as ``linalg.lu_factor(_ex)``."""
    warn_once("torch.lu is deprecated in favor of torch.linalg.lu_factor / torch.linalg.lu_factor_ex and will be "
              "removed in a future PyTorch release.\nLU, pivots = torch.lu(A, compute_pivots)\nshould be replaced "
              "with\nLU, pivots = torch.linalg.lu_factor(A, compute_pivots)\nand\nLU, pivots, info = torch.lu(A, "
              "compute_pivots, get_infos=True)\nshould be replaced with\nLU, pivots, info = "
              "torch.linalg.lu_factor_ex(A, compute_pivots)", UserWarning)
    if get_infos:
        return lu_factor_ex(A, pivot=pivot)
    packed, pivots = lu_factor(A, pivot=pivot)
    return packed, pivots


def lu_solve(b, LU_data, LU_pivots, *, out=None):
    """Deprecated ``torch.lu_solve(b, LU_data, LU_pivots)``: ``linalg.lu_solve(LU_data, LU_pivots, b)``."""
    warn_once("torch.lu_solve is deprecated in favor of torch.linalg.lu_solveand will be removed in a future "
              "PyTorch release.\nNote that torch.linalg.lu_solve has its arguments reversed.\nX = torch.lu_solve(B, "
              "LU, pivots)\nshould be replaced with\nX = torch.linalg.lu_solve(LU, pivots, B)", UserWarning)
    return linalg_lu_solve(LU_data, LU_pivots, b)
