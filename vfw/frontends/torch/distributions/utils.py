"""``torch.distributions.utils``: the helpers distributions share (``broadcast_all``, probability / logit
conversions, ``lazy_property``) and the packing of a matrix's lower triangle into a vector and back."""

import vfw.frontends.torch as torch
from vfw.frontends.torch.distributions.distribution import (
    broadcast_all,
    clamp_probs,
    lazy_property,
    logits_to_probs,
    probs_to_logits,
)

__all__ = [
    "broadcast_all", "clamp_probs", "lazy_property", "logits_to_probs", "probs_to_logits", "tril_matrix_to_vec",
    "vec_to_tril_matrix",
]

euler_constant = 0.57721566490153286060  # the Euler-Mascheroni constant


def _tril_mask(n, diag):
    """``(n, n)`` bool mask of the entries on or below diagonal ``diag`` (column ``j <= row i + diag``)."""
    rows = torch.arange(n).unsqueeze(-1)
    return torch.arange(n) <= rows + diag


def tril_matrix_to_vec(mat, diag=0):
    """The entries of ``mat`` on or below diagonal ``diag``, row by row.

    Parameters
    ----------
    mat : Tensor
        ``(..., n, n)`` matrices.
    diag : int
        Diagonal offset in ``[-n, n - 1]``: 0 keeps the main diagonal, -1 only the strict lower triangle.

    Returns
    -------
    Tensor
        ``(..., m)``, ``m`` the number of kept entries per matrix.
    """
    n = mat.shape[-1]
    if diag < -n or diag >= n:
        raise ValueError(f"diag ({diag}) provided is outside [{-n}, {n - 1}].")
    return mat[..., _tril_mask(n, diag)]


def vec_to_tril_matrix(vec, diag=0):
    """Inverse of :func:`tril_matrix_to_vec`: square matrices, zero above diagonal ``diag``, whose lower part
    holds ``vec`` row by row.

    Parameters
    ----------
    vec : Tensor
        ``(..., m)`` packed entries.
    diag : int
        Diagonal offset of the packed part.

    Returns
    -------
    Tensor
        ``(..., n, n)`` with ``n`` the matrix size whose part on or below ``diag`` has ``m`` entries.
    """
    m = vec.shape[-1]
    # n solves n^2 + (1 + 2 diag) n - (2 m + |diag| (diag + 1)) = 0 (the kept entries count m, any diag sign).
    linear = 1 + 2 * diag
    n = (-linear + (linear * linear + 8 * m + 4 * abs(diag) * (diag + 1)) ** 0.5) / 2
    if round(n) - n > torch.finfo(vec.dtype).eps:
        raise ValueError(f"The size of last dimension is {m} which cannot be expressed as the lower triangular "
                         f"part of a square D x D matrix.")
    n = round(n)
    mat = vec.new_zeros(tuple(vec.shape[:-1]) + (n, n))
    mat[..., _tril_mask(n, diag)] = vec
    return mat
