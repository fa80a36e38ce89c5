"""Low-rank and nuclear-norm functions: ``torch.svd_lowrank``, ``torch.pca_lowrank`` (randomized range finder of
Halko, Martinsson and Tropp with subspace iterations) and the deprecated ``torch.nuclear_norm``.

All compose differentiable vfw.torch functions (matmul, ``linalg.qr``, ``linalg.svd``); the random test matrix is
drawn with ``torch.randn`` from the default generator.
"""

import vfw.frontends.torch as torch
from vfw.frontends._warnings import warn_once
from vfw.frontends.torch._pointwise import tensor_arg

__all__ = ["svd_lowrank", "pca_lowrank", "nuclear_norm"]


def _adjoint(t):
    return t.transpose(-2, -1).conj() if t.is_complex() else t.transpose(-2, -1)


def _range_basis(A, q, niter, M):
    """An orthonormal basis (``(..., m, <=q)``) approximating the range of ``A - M``."""
    def times(X):
        return A @ X if M is None else A @ X - M @ X

    def adjoint_times(X):
        return _adjoint(A) @ X if M is None else _adjoint(A) @ X - _adjoint(M) @ X

    sketch = torch.randn(A.shape[-1], q, dtype=A.dtype)
    basis = torch.linalg.qr(times(sketch)).Q
    for _ in range(niter):  # subspace iterations sharpen the basis when the spectrum decays slowly
        basis = torch.linalg.qr(adjoint_times(basis)).Q
        basis = torch.linalg.qr(times(basis)).Q
    return basis


def svd_lowrank(A, q=6, niter=2, M=None):
    """Approximate the ``q`` largest singular triplets of ``A - M`` by a randomized SVD.

    Parameters
    ----------
    A : Tensor
        ``(..., m, n)`` floating input.
    q : int
        How many singular values to approximate (at most ``min(m, n)`` are returned).
    niter : int
        Subspace iterations.
    M : Tensor, optional
        Subtracted from ``A`` (broadcast), e.g. the column means.

    Returns
    -------
    (Tensor, Tensor, Tensor)
        ``U`` ``(..., m, k)``, ``S`` ``(..., k)``, ``V`` ``(..., n, k)`` with ``A - M ~ U diag(S) V^H``.
    """
    tensor_arg(A, "svd_lowrank", "A")
    q = 6 if q is None else q
    niter = 2 if niter is None else niter
    if not (A.dtype.is_floating_point or A.is_complex()):
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {str(A.dtype).split('.')[-1][:-2]} "
                           f"!= float")
    if M is not None:
        M = M.broadcast_to(A.shape)
    m, n = A.shape[-2], A.shape[-1]
    if m < n:  # work on the tall orientation and swap the factors back
        V, S, U = svd_lowrank(_adjoint(A), q, niter, None if M is None else _adjoint(M))
        return U, S, V
    basis = _range_basis(A, q, niter, M)
    projected = _adjoint(basis) @ (A if M is None else A - M)
    U, S, Vh = torch.linalg.svd(projected, full_matrices=False)
    return basis @ U, S, _adjoint(Vh)


def pca_lowrank(A, q=None, center=True, niter=2):
    """Principal components of the rows of ``A``: a randomized SVD of ``A`` less its column means.

    Parameters
    ----------
    A : Tensor
        ``(..., m, n)``: ``m`` samples of ``n`` features.
    q : int, optional
        How many components (default ``min(6, m, n)``; at most ``min(m, n)``).
    center : bool
        Subtract the column means first.
    niter : int
        Subspace iterations.

    Returns
    -------
    (Tensor, Tensor, Tensor)
        ``U``, ``S``, ``V`` as ``svd_lowrank``; the columns of ``V`` are the principal directions.
    """
    tensor_arg(A, "pca_lowrank", "A")
    m, n = A.shape[-2], A.shape[-1]
    q = min(6, m, n) if q is None else q
    if isinstance(q, bool) or not isinstance(q, int) or not 0 <= q <= min(m, n):
        raise ValueError(f"q(={q}) must be non-negative integer and not greater than min(m, n)={min(m, n)}")
    if not (isinstance(niter, int) and niter >= 0):
        raise ValueError(f"niter(={niter}) must be non-negative integer")
    if not center:
        return svd_lowrank(A, q, niter)
    return svd_lowrank(A, q, niter, M=A.mean(dim=-2, keepdim=True))


def nuclear_norm(input, dim=None, keepdim=False, *, out=None):
    """Deprecated ``torch.nuclear_norm``: the sum of singular values over ``dim`` (default the last two dims);
    ``torch.linalg.matrix_norm(input, 'nuc', dim, keepdim)``."""
    warn_once("at::nuclear_norm is deprecated and it is just left for JIT compatibility. It will be removed in a "
                  "future PyTorch release. Please use `linalg.matrix_norm(A, 'nuc', dim, keepdim)` instead",
                  UserWarning)
    if isinstance(dim, bool):
        dim, keepdim = None, dim  # torch's nuclear_norm(input, keepdim) overload
    dim = (-2, -1) if dim is None else tuple(dim)
    return torch.linalg.matrix_norm(input, "nuc", dim, keepdim, out=out)
