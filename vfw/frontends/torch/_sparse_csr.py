"""Sparse CSR matrices: ``torch.sparse_csr_tensor``, ``to_sparse_csr``, their parts, ``to_dense`` and products
with dense matrices (computed through the equivalent COO tensor, so gradients reach the values and the dense
operand)."""

import numpy as np

from vfw.frontends.torch import _config, _device, _dispatch, _dtype
from vfw.frontends.torch._sparse import _backend_error, _make, is_sparse
from vfw.frontends.torch._tensor import Tensor
from vfw.frontends.torch._tensor_str import PRINT_OPTS, _implied_dtypes, _with_suffixes, tensor_repr

__all__ = ["sparse_csr", "sparse_csr_tensor"]

sparse_csr = _config.layout("sparse_csr")
_INDEX_TYPES = (np.dtype(np.int64), np.dtype(np.int32))


class SparseCsrTensor(Tensor):
    """A 2-D tensor in torch's ``sparse_csr`` layout: row pointers ``crow_indices`` ``(rows + 1,)``, column
    indices and values ``(nnz,)``."""

    __slots__ = ("_crow", "_col", "_vals", "_size")

    array = property(_backend_error, doc="Refused: a sparse tensor has no dense memory (NotImplementedError).")
    is_sparse_csr = True
    layout = sparse_csr

    @property
    def shape(self):
        from vfw.frontends.torch._size import Size
        return Size(self._size)

    def size(self, dim=None):
        return self.shape if dim is None else self._size[dim]

    @property
    def dtype(self):
        return self._vals.dtype

    @property
    def ndim(self):
        return 2

    def dim(self):
        return 2

    def numel(self):
        return self._size[0] * self._size[1]

    def _nnz(self):
        return self._col.array.shape[0]

    @property
    def requires_grad(self):
        return self._vals.requires_grad

    @requires_grad.setter
    def requires_grad(self, flag):
        self._vals.requires_grad_(flag)

    @property
    def grad_node(self):
        return self._vals.grad_node

    @property
    def grad_slot(self):
        return self._vals.grad_slot

    def crow_indices(self):
        """The row pointers ``(rows + 1,)``: row ``i``'s entries are ``crow[i]:crow[i + 1]``."""
        return self._crow

    def col_indices(self):
        """The column of each entry ``(nnz,)``."""
        return self._col

    def values(self):
        """The entries ``(nnz,)``."""
        return self._vals

    def numpy(self, *, force=False):
        raise TypeError("can't convert SparseCsr layout tensor to numpy. Use Tensor.to_dense() first.")

    def to_sparse(self, *args, **kwargs):
        """The equivalent (coalesced) sparse COO tensor, sharing the values (and their autograd history)."""
        counts = np.diff(self._crow.array.astype(np.int64))
        rows = np.repeat(np.arange(self._size[0], dtype=np.int64), counts)
        indices = np.stack([rows, self._col.array.astype(np.int64)])
        return _make(_dispatch.wrap(indices), self._vals, self._size, True)

    to_sparse_coo = to_sparse

    def to_sparse_csr(self, dense_dim=None):
        return self

    def to_dense(self, dtype=None, *, masked_grad=None):
        return self.to_sparse().to_dense(dtype)

    def mm(self, mat2):
        return self.to_sparse().mm(mat2)

    def matmul(self, other):
        return self.to_sparse().matmul(other)

    __matmul__ = matmul

    def detach(self):
        return _make_csr(self._crow, self._col, self._vals.detach(), self._size)

    def __reduce_ex__(self, protocol):
        return (_rebuild_csr, (self._crow.array, self._col.array, self._vals.detach().array, self._size))

    def __repr__(self, *, tensor_contents=None):
        indent = 7
        shift = "\n" + " " * indent

        def part(name, t):
            return f"{name}={tensor_repr(t, part_column=indent + len(name) + 1)}"

        text = "tensor(" + shift.join([part("crow_indices", self._crow) + ",", part("col_indices", self._col) + ",",
                                       part("values", self._vals)])
        suffixes = [f"size={self._size}", f"nnz={self._nnz()}"]
        if self.dtype not in _implied_dtypes():
            suffixes.append(f"dtype={self.dtype!r}")
        suffixes.append("layout=torch.sparse_csr")
        if self.grad_fn is not None:
            suffixes.append(f"grad_fn=<{self.grad_fn.name()}>")
        elif self.requires_grad:
            suffixes.append("requires_grad=True")
        return _with_suffixes(text, suffixes, indent, PRINT_OPTS.linewidth) + ")"

    __str__ = __repr__


def _make_csr(crow, col, values, size):
    t = object.__new__(SparseCsrTensor)
    t._crow, t._col, t._vals, t._size = crow, col, values, tuple(int(s) for s in size)
    return t


def _rebuild_csr(crow, col, values, size):
    return _make_csr(_dispatch.wrap(crow), _dispatch.wrap(col), _dispatch.wrap(values), size)


def _index_tensor(x, name):
    t = _dispatch.to_tensor(x)
    if t.array.dtype not in _INDEX_TYPES:
        raise RuntimeError(f"{name} must be an int32 or int64 tensor, but got {t.dtype}")
    if t.array.ndim != 1:
        raise RuntimeError(f"vfw.torch supports 2-D CSR tensors only: {name} must be 1-D, got shape "
                           f"{list(t.array.shape)}")
    return t


def sparse_csr_tensor(crow_indices, col_indices, values, size=None, *, dtype=None, device=None, pin_memory=False,
                      requires_grad=False, check_invariants=None):
    """A 2-D sparse CSR tensor (indices are always checked, as torch does with ``check_invariants=True``).

    Parameters
    ----------
    crow_indices : array_like
        ``(rows + 1,)`` int: row ``i`` holds entries ``crow[i]:crow[i + 1]``.
    col_indices : array_like
        ``(nnz,)`` int, of crow's dtype.
    values : array_like
        ``(nnz,)``.
    size : (int, int), optional
        Default: ``(len(crow) - 1, max(col) + 1)``.
    dtype : torch.dtype, optional
    requires_grad : bool
    """
    _device.check(device)
    crow, col = _index_tensor(crow_indices, "crow_indices"), _index_tensor(col_indices, "col_indices")
    vals = _dispatch.to_tensor(values, None if dtype is None else _dtype.to_np(dtype))
    c, k = crow.array, col.array
    if size is None:
        size = (c.size - 1, int(k.max()) + 1 if k.size else 0)
    size = tuple(int(s) for s in size)
    if len(size) != 2:
        raise RuntimeError(f"vfw.torch supports 2-D CSR tensors only, got size {list(size)}")
    if c.size != size[0] + 1:
        raise RuntimeError(f"crow_indices.shape[-1] must be equal to the number of rows + 1 (={size[0] + 1}), but "
                           f"got {c.size}")
    if vals.array.shape != k.shape:
        raise RuntimeError(f"col_indices and values must have the same shape, got {list(k.shape)} and "
                           f"{list(vals.array.shape)}")
    if c[0] != 0:
        raise RuntimeError("`crow_indices[..., 0] == 0` is not satisfied.")
    if c[-1] != k.size:
        raise RuntimeError("`crow_indices[..., -1] == nnz` is not satisfied.")
    if (np.diff(c) < 0).any():
        raise RuntimeError("`0 <= crow_indices[..., 1:] - crow_indices[..., :-1] <= ncols` is not satisfied.")
    if k.size and (k.min() < 0 or k.max() >= size[1]):
        raise RuntimeError("`0 <= col_indices < ncols` is not satisfied.")
    if requires_grad:
        vals = _dispatch.wrap(vals.array.copy()).requires_grad_(True)
    return _make_csr(crow, col, vals, size)


def from_coo(sparse):
    """The CSR form of a 2-D sparse COO tensor (coalesced first; values keep their autograd history)."""
    if not is_sparse(sparse) or sparse.sparse_dim() != 2 or sparse.dense_dim() != 0:
        raise RuntimeError("to_sparse_csr: vfw.torch converts 2-D tensors without dense dims only")
    s = sparse.coalesce()
    rows, cols = s._indices().array
    crow = np.zeros(s._size[0] + 1, np.int64)
    np.cumsum(np.bincount(rows, minlength=s._size[0]), out=crow[1:])
    return _make_csr(_dispatch.wrap(crow), _dispatch.wrap(cols.copy()), s._values(), s._size)
