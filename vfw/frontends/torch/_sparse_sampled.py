"""``torch.sparse.sampled_addmm`` (a dense product sampled at a CSR matrix's entries) and ``torch.sparse.spdiags``
(a sparse matrix from diagonals)."""

import numpy as np

from vfw.frontends.torch import _dispatch

__all__ = ["sampled_addmm", "spdiags"]


def sampled_addmm(input, mat1, mat2, *, beta=1.0, alpha=1.0, out=None):  # noqa: A002 (torch's names)
    """``alpha * (mat1 @ mat2)`` at the entries of the CSR matrix ``input``, plus ``beta * input``.

    Parameters
    ----------
    input : Tensor
        A sparse CSR matrix of shape ``(m, n)``: where the product is evaluated, and the added term.
    mat1, mat2 : Tensor
        Dense matrices of shapes ``(m, k)`` and ``(k, n)``.
    beta, alpha : float

    Returns
    -------
    Tensor
        A sparse CSR matrix with ``input``'s pattern (differentiable in ``mat1``, ``mat2`` and ``input``'s values).
    """
    from vfw.frontends.torch._sparse_csr import SparseCsrTensor, sparse_csr_tensor

    if not isinstance(input, SparseCsrTensor):
        layout = "SparseCPU" if getattr(input, "is_sparse", False) else "CPU"
        raise NotImplementedError(f"Could not run 'aten::sparse_sampled_addmm' with arguments from the '{layout}' "
                                  "backend: torch.sparse.sampled_addmm expects a sparse CSR input")
    if out is not None:
        raise NotImplementedError("torch.sparse.sampled_addmm: out= is not supported by vfw")
    rows, cols = input.shape
    if mat1.dim() != 2 or mat2.dim() != 2 or mat1.shape[0] != rows or mat2.shape[1] != cols \
            or mat1.shape[1] != mat2.shape[0]:
        raise RuntimeError(f"torch.sparse.sampled_addmm: expected mat1 of shape ({rows}, k) and mat2 of shape "
                           f"(k, {cols}) for input of shape {tuple(input.shape)}, got {tuple(mat1.shape)} and "
                           f"{tuple(mat2.shape)}")
    crow = input.crow_indices()
    col = input.col_indices()
    entry_rows = np.repeat(np.arange(rows), np.diff(crow.numpy()))
    picked_rows = mat1[_dispatch.wrap(entry_rows)]          # (nnz, k)
    picked_cols = mat2.t()[col]                             # (nnz, k)
    values = (picked_rows * picked_cols).sum(-1) * alpha + input.values() * beta
    return sparse_csr_tensor(crow, col, values, (rows, cols))


def spdiags(diagonals, offsets, shape, layout=None):
    """A sparse matrix holding row ``i`` of ``diagonals`` on the diagonal ``offsets[i]`` (as scipy's ``spdiags``:
    the entry in column ``j`` of that diagonal is ``diagonals[i, j]``).

    Parameters
    ----------
    diagonals : Tensor
        ``(d, l)`` (or ``(l,)`` for one diagonal).
    offsets : Tensor
        ``(d,)`` integers, distinct (0: main diagonal, positive: above it).
    shape : tuple of int
        ``(rows, cols)`` of the result.
    layout : torch.layout, optional
        ``torch.sparse_coo`` (default) or ``torch.sparse_csr``.

    Returns
    -------
    Tensor
    """
    from vfw.frontends.torch._sparse import sparse_coo_tensor

    if diagonals.dim() == 1:
        diagonals = diagonals.unsqueeze(0)
    offset_values = offsets.reshape(-1).numpy().astype(np.int64)
    if len(np.unique(offset_values)) != len(offset_values):
        raise RuntimeError("Offset tensor contains duplicate values")
    if diagonals.dim() != 2 or diagonals.shape[0] != len(offset_values):
        raise RuntimeError(f"Number of diagonals ({diagonals.shape[0]}) does not match the number of offsets "
                           f"({len(offset_values)})")
    rows, cols = shape
    length = min(cols, diagonals.shape[1])
    # Diagonal k holds columns j with 0 <= j - offset < rows and j < length.
    columns = [np.arange(max(off, 0), max(min(length, rows + off), max(off, 0))) for off in offset_values]
    which = np.repeat(np.arange(len(columns)), [c.size for c in columns])
    entry_cols = np.concatenate(columns or [np.zeros(0, np.int64)]).astype(np.int64)
    entry_rows = entry_cols - offset_values[which]
    values = diagonals[_dispatch.wrap(which), _dispatch.wrap(entry_cols)]
    indices = _dispatch.wrap(np.stack([entry_rows, entry_cols]))
    result = sparse_coo_tensor(indices, values, (rows, cols))
    if layout is None or str(layout) == "torch.sparse_coo":
        return result
    if str(layout) == "torch.sparse_csr":
        return result.coalesce().to_sparse_csr()
    raise ValueError(f"torch.sparse.spdiags: layout must be torch.sparse_coo or torch.sparse_csr, got {layout}")
