"""torch.linalg.eig and torch.linalg.eigvals over the engine's Eig op (``vfw/core/ops/linalg_eig.py``).

Results are complex (complex64 for float32 or complex64 input, complex128 for float64 or complex128), with
torch's gradients; ``eigvals`` runs the same op (its gradient needs the eigenvectors).
"""

import numpy as np

from vfw.frontends.torch import return_types
from vfw.frontends.torch._dispatch import finish, op, type_name
from vfw.frontends.torch._linalg_decomp import _lapack, matrices
from vfw.frontends.torch._pointwise import not_implemented

__all__ = ["eig", "eigvals"]

_EIG = op("Eig")
_ACCEPTED = frozenset(np.dtype(d) for d in (np.float32, np.float64, np.complex64, np.complex128))
_NON_FINITE = "torch.linalg.eig: input tensor should not contain infs or NaNs."


def _eig(A, name):
    a = A.array
    if a.dtype.kind == "c" and a.dtype in _ACCEPTED:
        matrices_shape_only(A, name)
    elif a.dtype.kind in "biu":  # torch looks for a complex counterpart first
        raise RuntimeError(f"Unknown Complex ScalarType for {type_name(a.dtype)}")
    elif a.dtype.kind == "f" and a.dtype not in _ACCEPTED:
        matrices_shape_only(A, name)
        raise not_implemented("linalg_eig_out_cpu", a.dtype)
    else:
        matrices(A, name)
    if not np.isfinite(a).all():
        raise RuntimeError(_NON_FINITE)
    return _lapack(_EIG, "linalg.eig: The QR algorithm did not converge.", A)


def matrices_shape_only(A, name):
    """torch's shape checks of square matrices (any dtype)."""
    a = A.array
    if a.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor A must have at least 2 dimensions.")
    if a.shape[-1] != a.shape[-2]:
        raise RuntimeError(f"{name}: A must be batches of square matrices, but they are {a.shape[-2]} by "
                           f"{a.shape[-1]} matrices")


def eig(A, *, out=None):  # noqa: N803  (torch's argument name)
    """Eigenvalues and eigenvectors of general square matrices.

    Parameters
    ----------
    A : Tensor
        ``(..., n, n)``, float32/float64/complex64/complex128.
    out : tuple of Tensor, optional

    Returns
    -------
    torch.return_types.linalg_eig
        ``eigenvalues`` ``(..., n)`` and ``eigenvectors`` ``(..., n, n)`` (unit-norm columns), complex64 for
        float32/complex64 input and complex128 otherwise, with ``A V = V diag(eigenvalues)``.
    """
    return finish(return_types.linalg_eig(_eig(A, "linalg.eig")), out, "linalg.eig")


def eigvals(A, *, out=None):  # noqa: N803
    """The eigenvalues ``(..., n)`` of general square matrices ``A`` ``(..., n, n)`` (complex, as ``eig``'s)."""
    return finish(_eig(A, "linalg.eigvals")[0], out, "linalg.eigvals")
