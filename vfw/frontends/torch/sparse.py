"""``torch.sparse``: sums, products and softmax of sparse COO tensors (see ``_sparse.py`` / ``_sparse_ops.py``)."""

import contextlib

from vfw.frontends.torch import _sparse_ops
from vfw.frontends.torch._sparse import is_sparse
from vfw.frontends.torch._sparse_sampled import sampled_addmm, spdiags

__all__ = ["addmm", "check_sparse_tensor_invariants", "log_softmax", "mm", "sampled_addmm", "softmax", "spdiags",
           "sum"]


def sum(input, dim=None, dtype=None):  # noqa: A001 (torch's name)
    """The sum of a sparse tensor's entries (0-d dense), or over ``dim`` (sparse while sparse dims remain).

    Parameters
    ----------
    input : Tensor
        Sparse COO.
    dim : int or sequence of int, optional
    dtype : torch.dtype, optional
        Of the values before summing.
    """
    if not is_sparse(input):
        return input.sum() if dim is None else input.sum(dim, dtype=dtype)
    return _sparse_ops.sparse_sum(input, dim, dtype)


def mm(mat1, mat2, reduce="sum"):
    """``mat1 @ mat2`` for a sparse COO (or CSR) ``mat1`` and a dense ``mat2`` (dense ``(n, p)`` result;
    gradients reach ``mat2`` and ``mat1``'s values)."""
    if reduce != "sum":
        raise NotImplementedError(f"torch.sparse.mm: reduce={reduce!r} is not supported by vfw.torch")
    return mat1.mm(mat2)


def addmm(mat, mat1, mat2, *, beta=1.0, alpha=1.0):
    """``beta * mat + alpha * (mat1 @ mat2)`` for a sparse ``mat1``."""
    return _sparse_ops.addmm(mat, mat1, mat2, beta=beta, alpha=alpha)


softmax = _sparse_ops.softmax
log_softmax = _sparse_ops.log_softmax


class check_sparse_tensor_invariants(contextlib.ContextDecorator):  # noqa: N801 (torch's name)
    """Accepted for compatibility: vfw.torch always checks indices against sizes."""

    def __init__(self, enable=True):
        self._enable = enable

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    @staticmethod
    def is_enabled():
        return True

    @staticmethod
    def enable():
        pass

    @staticmethod
    def disable():
        pass
