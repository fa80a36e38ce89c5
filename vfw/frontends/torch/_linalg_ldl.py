"""``torch.linalg.ldl_factor(_ex)`` and ``ldl_solve``: LDL^T (LDL^H with ``hermitian``) with Bunch-Kaufman pivoting.

The factorization is LAPACK's ``sytf2`` / ``hetf2`` on the lower triangle (what torch's CPU kernel runs for the
matrix sizes where ``sytrf`` does not block): at step ``k`` a 1x1 pivot (the diagonal, or the diagonal entry of the
column with the largest off-diagonal magnitude, swapped in) or a 2x2 pivot block, chosen with the ratio
``(1 + sqrt(17)) / 8``; rows and columns are swapped in the trailing block only. ``LD`` holds ``L`` below the
diagonal (unit diagonal implied) and ``D``'s blocks on and just below it; ``pivots`` are LAPACK's 1-based
interchanges (negative, twice, for a 2x2 block). The steps run on the whole batch at once, each matrix at its own
column. Neither function is differentiable (as in torch).
"""

import numpy as np

from vfw.frontends.torch import _dispatch, return_types
from vfw.frontends.torch._linalg_decomp import _same_dtype, matrices
from vfw.frontends.torch._linalg_qr_lu import not_differentiable
from vfw.frontends.torch._pointwise import tensor_arg

LINALG = ["ldl_factor", "ldl_factor_ex", "ldl_solve"]  # torch.linalg.*

_ALPHA = (1 + np.sqrt(17.0)) / 8  # Bunch-Kaufman's pivot ratio


def _size(x):
    """LAPACK's magnitude for pivoting: ``|Re| + |Im|`` (``|x|`` for real entries)."""
    return np.abs(x.real) + np.abs(x.imag) if x.dtype.kind == "c" else np.abs(x)


def _adjoint(x, hermitian):
    t = np.swapaxes(x, -1, -2)
    return np.conj(t) if hermitian else t


def _full(lower, hermitian):
    """The symmetric (Hermitian) matrices whose lower triangles ``lower`` holds."""
    return np.tril(lower) + _adjoint(np.tril(lower, -1), hermitian)


def _choose_pivots(a, k, n, hermitian, live):
    """Per matrix: ``(kp, kstep, zero)``, the row swapped into place, the block size and whether column k is
    zero (LAPACK's pivot search)."""
    rows = np.arange(n)
    batch = np.arange(len(a))
    kc = np.minimum(k, n - 1)
    diagonal = a[batch, kc, kc]
    absakk = np.abs(diagonal.real) if hermitian else _size(diagonal)
    below = np.where(rows[None, :] > kc[:, None], _size(a[batch, :, kc]), -1.0)
    imax = np.argmax(below, axis=-1)
    colmax = np.maximum(below[batch, imax], 0.0)
    zero = live & ((np.maximum(absakk, colmax) == 0) | np.isnan(absakk))
    # the largest off-diagonal magnitude in row/column imax of the trailing block
    in_row = np.where((rows[None, :] >= kc[:, None]) & (rows[None, :] < imax[:, None]), _size(a[batch, imax, :]), 0)
    in_col = np.where(rows[None, :] > imax[:, None], _size(a[batch, :, imax]), 0)
    rowmax = np.maximum(in_row.max(axis=-1), in_col.max(axis=-1))
    imax_diagonal = a[batch, imax, imax]
    absimax = np.abs(imax_diagonal.real) if hermitian else _size(imax_diagonal)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        keep = (absakk >= _ALPHA * colmax) | (absakk >= _ALPHA * colmax * (colmax / rowmax))
    two = ~keep & ~(absimax >= _ALPHA * rowmax)
    kp = np.where(keep | zero, kc, imax)
    kstep = np.where(two & ~zero, 2, 1)
    return kp, kstep, zero


def _swap_trailing(a, k, kk, kp, hermitian):
    """Swap rows and columns kk and kp of each matrix's trailing block ``[k:, k:]`` (its lower triangle)."""
    n = a.shape[-1]
    batch = np.arange(len(a))
    perm = np.broadcast_to(np.arange(n), a.shape[:-1]).copy()
    perm[batch, kk], perm[batch, kp] = kp, kk
    full = _full(a, hermitian)
    swapped = full[batch[:, None, None], perm[:, :, None], perm[:, None, :]]
    rows = np.arange(n)
    trailing = (rows[None, :, None] >= k[:, None, None]) & (rows[None, None, :] >= k[:, None, None]) & \
        (rows[:, None] >= rows[None, :])[None]
    return np.where(trailing, swapped, a)


def _block_columns(a, k, k1, two, hermitian):
    """The columns ``W = A[:, k:k+2] D^-1`` below each 2x2 pivot block (rows and columns ``k``, ``k1``), as
    LAPACK's ``sytf2``/``hetf2`` compute them (meaningful where ``two``; the rows below the block are kept by the
    caller)."""
    batch = np.arange(len(a))
    c0, c1 = a[batch, :, k], a[batch, :, k1]
    d21 = np.where(two, a[batch, k1, k], 1)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):  # matrices that take no 2x2 step here
        if hermitian:
            size = np.abs(d21)
            d11, d22 = a[batch, k1, k1].real / size, a[batch, k, k].real / size
            unit = d21 / size
            scale = 1 / (d11 * d22 - 1) / size
            return (scale[:, None] * (d11[:, None] * c0 - unit[:, None] * c1),
                    scale[:, None] * (d22[:, None] * c1 - np.conj(unit)[:, None] * c0))
        d11, d22 = a[batch, k1, k1] / d21, a[batch, k, k] / d21
        scale = 1 / (d11 * d22 - 1) / d21
        return scale[:, None] * (d11[:, None] * c0 - c1), scale[:, None] * (d22[:, None] * c1 - c0)


def _factor(a, hermitian):
    """``(LD, pivots, info)`` of ``a`` ``(B, n, n)`` (numpy, LAPACK's lower Bunch-Kaufman)."""
    a = np.tril(a).copy()
    count, n = a.shape[0], a.shape[-1]
    if hermitian and a.dtype.kind == "c":
        a[:, range(n), range(n)] = a[:, range(n), range(n)].real
    batch = np.arange(count)
    rows = np.arange(n)
    pivots = np.zeros((count, n), np.int32)
    info = np.zeros(count, np.int32)
    k = np.zeros(count, np.int64)
    while (k < n).any():
        live = k < n
        kc = np.minimum(k, n - 1)  # finished matrices repeat their last column, masked out below
        kp, kstep, zero = _choose_pivots(a, k, n, hermitian, live)
        info = np.where(zero & (info == 0), kc + 1, info)
        kk = np.minimum(k + kstep - 1, n - 1)
        a = np.where((live & (kp != kk))[:, None, None], _swap_trailing(a, kc, kk, kp, hermitian), a)
        one = live & ~zero & (kstep == 1)
        two = live & (kstep == 2)
        col = a[batch, :, kc]
        # 1x1 pivot: A[k+1:, k+1:] -= x x^T / d, then x /= d, with x the column below the pivot
        d = a[batch, kc, kc]
        d = np.where(one, d.real if hermitian else d, 1)
        x = np.where(rows[None, :] > kc[:, None], col, 0) * one[:, None]
        lower_trailing = (rows[:, None] >= rows[None, :])[None]
        a = a - np.where(lower_trailing, x[:, :, None] * (_adjoint(x[:, :, None], hermitian) / d[:, None, None]), 0)
        a[batch, :, kc] = np.where(one[:, None] & (rows[None, :] > kc[:, None]), x / d[:, None], a[batch, :, kc])
        # 2x2 pivot block (rows k, k+1): the columns below it become W = A[:, k:k+2] D^-1
        k1 = np.minimum(kc + 1, n - 1)
        c0, c1 = a[batch, :, kc], a[batch, :, k1]
        wk, wkp1 = _block_columns(a, kc, k1, two, hermitian)
        below = two[:, None] & (rows[None, :] > k1[:, None])
        wk, wkp1 = np.where(below, wk, 0), np.where(below, wkp1, 0)
        c0b, c1b = np.where(below, c0, 0), np.where(below, c1, 0)
        conj = np.conj if hermitian else (lambda v: v)
        update = c0b[:, :, None] * conj(wk)[:, None, :] + c1b[:, :, None] * conj(wkp1)[:, None, :]
        a = a - np.where(lower_trailing, update, 0)
        a[batch, :, kc] = np.where(below, wk, a[batch, :, kc])
        a[batch, :, k1] = np.where(below, wkp1, a[batch, :, k1])
        if hermitian and a.dtype.kind == "c":
            a[:, range(n), range(n)] = a[:, range(n), range(n)].real
        at = batch[live]
        pivots[at, kc[live]] = np.where(kstep[live] == 2, -(kp[live] + 1), kp[live] + 1)
        pivots[two, k1[two]] = -(kp[two] + 1)
        k = np.where(live, k + kstep, k)
    return a, pivots, info.astype(np.int32)


def ldl_factor_ex(A, *, hermitian=False, check_errors=False, out=None):
    """``(LD, pivots, info)``: the compact LDL^T (LDL^H when ``hermitian``) factors of the symmetric (Hermitian)
    matrices in ``A``'s lower triangles ``(..., n, n)``, LAPACK's 1-based pivots (int32) and, per matrix, 0 or the
    1-based index of an exactly zero pivot block (then ``D`` is singular)."""
    name = "torch.linalg.ldl_factor_ex"
    matrices(A, name, complex=True)
    shape = A.array.shape
    ld, pivots, info = _factor(A.array.reshape((-1,) + shape[-2:]), bool(hermitian))
    info = info.reshape(shape[:-2])
    if check_errors and info.any():
        raise RuntimeError(f"{name}: The factorization could not be completed because the input is singular.")
    result = _dispatch.wrap(ld.reshape(shape))
    if A.requires_grad:
        result = not_differentiable(result, A, "derivative for aten::linalg_ldl_factor_ex is not implemented")
    return return_types.linalg_ldl_factor_ex((result, _dispatch.wrap(pivots.reshape(shape[:-1])),
                                              _dispatch.wrap(info)))


def ldl_factor(A, *, hermitian=False, out=None):
    """``(LD, pivots)`` of :func:`ldl_factor_ex`; a singular ``D`` raises RuntimeError."""
    LD, pivots, info = ldl_factor_ex(A, hermitian=hermitian)
    if info.array.any():
        raise RuntimeError("torch.linalg.ldl_factor: The factorization could not be completed because the input is "
                           "singular.")
    return return_types.linalg_ldl_factor((LD, pivots))


def _reconstruct(ld, pivots, hermitian):
    """The matrices ``L D L^T`` (``L D L^H``) that ``(ld, pivots)`` factor, ``L = P(1) L(1) P(2) L(2) ...`` with
    ``P(k)`` the interchange of pivot block k (numpy, ``(B, n, n)``)."""
    count, n = ld.shape[0], ld.shape[-1]
    batch = np.arange(count)
    rows = np.arange(n)
    eye = np.broadcast_to(np.eye(n, dtype=ld.dtype), ld.shape)
    factor = eye.copy()
    block = np.zeros_like(ld)
    start = np.ones(count, bool)  # whether column j starts a pivot block
    for j in range(n):
        two = start & (pivots[:, j] < 0) & (j + 1 < n)
        j1 = min(j + 1, n - 1)
        perm = np.broadcast_to(rows, (count, n)).copy()
        target, swap_with = np.where(two, j1, j), np.abs(pivots[:, j]) - 1
        perm[batch, target], perm[batch, swap_with] = swap_with, target
        below = rows[None, :] >= np.where(two, j + 2, j + 1)[:, None]
        step = eye.copy()  # L(k): the block's columns below it
        step[:, :, j] = np.where(below, ld[:, :, j], step[:, :, j])
        step[:, :, j1] = np.where(below & two[:, None], ld[:, :, j1], step[:, :, j1])
        moved = np.take_along_axis(factor, perm[:, None, :], axis=-1) @ step
        factor = np.where(start[:, None, None], moved, factor)
        block[:, j, j] = np.where(start, ld[:, j, j], block[:, j, j])
        off = np.where(two, ld[:, j1, j], 0)
        block[:, j1, j] = np.where(two, off, block[:, j1, j])
        block[:, j, j1] = np.where(two, np.conj(off) if hermitian else off, block[:, j, j1])
        block[:, j1, j1] = np.where(two, ld[:, j1, j1], block[:, j1, j1])
        start = ~two
    return factor @ block @ _adjoint(factor, hermitian)


def ldl_solve(LD, pivots, B, *, hermitian=False, out=None):
    """``X`` with ``A X = B`` for the ``A`` that :func:`ldl_factor`'s ``(LD, pivots)`` factor."""
    name = "torch.linalg.ldl_solve"
    matrices(LD, name, complex=True, arg="LD")
    tensor_arg(B, name, "B", 3)
    _same_dtype(name, LD, B)
    shape = LD.array.shape
    a = _reconstruct(LD.array.reshape((-1,) + shape[-2:]), np.asarray(pivots.array).reshape((-1, shape[-1])),
                     bool(hermitian)).reshape(shape)
    result = _dispatch.wrap(np.linalg.solve(a, B.array).astype(B.array.dtype))
    if LD.requires_grad or B.requires_grad:
        result = not_differentiable(result, B, "derivative for aten::linalg_ldl_solve is not implemented")
    return _dispatch.finish(result, out, "linalg.ldl_solve")
