"""Sparse COO tensors: ``torch.sparse_coo_tensor``, ``Tensor.to_sparse`` and the tensor object itself.

A :class:`SparseCooTensor` holds an int64 ``indices`` tensor ``(sparse_dim, nnz)`` and a ``values``
tensor ``(nnz, *dense_sizes)``; its elements are the sums of the values sharing an index (an
*uncoalesced* tensor may list an index more than once, as torch's may). The values are an ordinary
tensor, so autograd runs through them: operations on sparse tensors are compositions of dense
functions on the values (``index_select``, ``index_add``...), and a sparse tensor built with
``requires_grad=True`` owns a values leaf whose gradient is its own ``.grad`` (a sparse tensor with
the same indices).

The dense engine never sees a sparse tensor: its ``array`` raises torch's NotImplementedError
("Could not run ... with arguments from the 'SparseCPU' backend"), so a dense function given one
fails clearly instead of computing on garbage.
"""

import numpy as np

from vfw.core import autograd
from vfw.frontends.torch import _config, _device, _dispatch, _dtype
from vfw.frontends.torch._tensor import Tensor
from vfw.frontends.torch._tensor_str import _implied_dtypes, _with_suffixes, tensor_repr

__all__ = ["sparse_coo_tensor"]

_I64 = np.dtype(np.int64)
_PREFIX = "tensor("


def _backend_error(*_):
    raise NotImplementedError(
        "Could not run this operation with arguments from the 'SparseCPU' backend: vfw.torch computes on sparse "
        "COO tensors only with their own methods, torch.sparse and mm/matmul/addmm (call .to_dense() first)")


class SparseCooTensor(Tensor):
    """A tensor in torch's ``sparse_coo`` layout (see the module docstring); make it with
    :func:`sparse_coo_tensor` or ``Tensor.to_sparse()``."""

    __slots__ = ("_idx", "_vals", "_size", "_coalesced", "_owns_values")

    array = property(_backend_error, doc="Refused: a sparse tensor has no dense memory (NotImplementedError).")
    is_sparse = True
    layout = _config.sparse_coo

    @staticmethod
    def sum_gradients(prev, g):
        """``prev + g`` where autograd adds two gradients of one input (an embedding looked up twice): sparse
        plus sparse stays sparse, its entries in torch's order (torch's input buffer adds an earlier sparse
        gradient to the new one, ``g + prev``, unless it builds a graph)."""
        if prev.is_sparse and not autograd.is_grad_enabled():
            return _ops().accumulated(g, prev)
        return _ops().accumulated(prev, g)

    # -- what it is --------------------------------------------------------------------
    @property
    def shape(self):
        return _size_type()(self._size)

    def size(self, dim=None):
        if dim is None:
            return self.shape
        return self._size[_dim(dim, len(self._size))]

    @property
    def dtype(self):
        return self._vals.dtype

    @property
    def ndim(self):
        return len(self._size)

    def dim(self):
        return len(self._size)

    ndimension = dim

    def numel(self):
        return int(np.prod(self._size, dtype=np.int64))

    nelement = numel

    def __len__(self):
        if not self._size:
            raise TypeError("len() of a 0-d tensor")
        return self._size[0]

    def element_size(self):
        return self._vals.element_size()

    def is_floating_point(self):
        return self._vals.is_floating_point()

    def is_complex(self):
        return self._vals.is_complex()

    def sparse_dim(self):
        """int: the number of sparse (indexed) dims."""
        return self._idx.array.shape[0]

    def dense_dim(self):
        """int: the number of dense dims (those of each value)."""
        return len(self._size) - self.sparse_dim()

    def _nnz(self):
        """int: the number of stored values (indices may repeat when uncoalesced)."""
        return self._idx.array.shape[1]

    def is_coalesced(self):
        """bool: whether the indices are sorted and unique."""
        return self._coalesced

    def stride(self, dim=None):
        strides = (0,) * len(self._size)  # torch reports zero strides for sparse tensors
        return strides if dim is None else strides[_dim(dim, len(self._size))]

    def is_contiguous(self, memory_format=None):
        return False

    def type(self, dtype=None, non_blocking=False):
        if dtype is None:
            return Tensor.type(self._vals).replace("torch.", "torch.sparse.")
        return self.to(dtype)

    def __bool__(self):
        if self.numel() != 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return bool(self.to_dense())

    def __reduce_ex__(self, protocol):
        return (_rebuild_sparse, (self._idx.array, self._vals.detach().array, self._size, self._coalesced,
                                  self.requires_grad))

    def __deepcopy__(self, memo):
        return _rebuild_sparse(self._idx.array.copy(), self._vals.detach().array.copy(), self._size,
                               self._coalesced, self.requires_grad)

    # -- refused as torch refuses --------------------------------------------------------
    def numpy(self, *, force=False):
        raise TypeError("can't convert Sparse layout tensor to numpy. Use Tensor.to_dense() first.")

    __array__ = numpy

    def data_ptr(self):
        raise RuntimeError("Cannot access data pointer of Tensor that doesn't have storage")

    tolist = data_ptr

    def untyped_storage(self):
        raise NotImplementedError("Cannot access storage of SparseTensorImpl")

    def reshape(self, *shape):
        raise RuntimeError("reshape is not implemented for sparse tensors")

    def item(self):
        if self.numel() != 1:
            raise RuntimeError(f"a Tensor with {self.numel()} elements cannot be converted to Scalar")
        return self.to_dense().item()

    # -- autograd: through the values --------------------------------------------------
    @property
    def requires_grad(self):
        return self._vals.requires_grad

    @requires_grad.setter
    def requires_grad(self, flag):
        self.requires_grad_(flag)

    @property
    def grad_node(self):
        return self._vals.grad_node

    @property
    def grad_slot(self):
        return self._vals.grad_slot

    def requires_grad_(self, requires_grad=True):
        """Make this (leaf) sparse tensor require grad: its values become a leaf it owns."""
        if self._vals.grad_node is not None:
            if not requires_grad:
                self._vals.requires_grad_(False)  # torch's error for non-leaves
            return self
        if requires_grad and not self._owns_values:
            self._vals = _dispatch.wrap(self._vals.array)
            self._owns_values = True
        self._vals.requires_grad_(requires_grad)
        return self

    @property
    def grad(self):
        """The gradient of a leaf sparse tensor: sparse, at its (coalesced) indices, as torch.sparse's functions
        make it (each index's entry the gradient of the dense element there)."""
        own = getattr(self, "_grad", None)
        if own is not None or not self._owns_values:
            return own
        g = self._vals.grad
        if g is None or self._coalesced:
            return None if g is None else _make(self._idx, g, self._size, True)
        # Entries sharing an index all get that element's gradient: one entry per index.
        _, first = np.unique(self._linear_index(), return_index=True)
        return _make(_dispatch.wrap(self._idx.array[:, first]), _dispatch.wrap(g.array[first]), self._size, True)

    @grad.setter
    def grad(self, value):
        if self._owns_values:
            self._vals.grad = None
        self._grad = value

    def detach(self):
        return _make(self._idx, self._vals.detach(), self._size, self._coalesced)

    def clone(self, *, memory_format=None):
        return _make(_dispatch.wrap(self._idx.array.copy()), self._vals.clone(), self._size, self._coalesced)

    # -- parts -------------------------------------------------------------------------
    def _indices(self):
        """The indices as stored, ``(sparse_dim, nnz)`` int64 (also when uncoalesced)."""
        return self._idx

    def _values(self):
        """The values as stored, ``(nnz, *dense_sizes)`` (also when uncoalesced)."""
        return self._vals

    def indices(self):
        """The indices of a coalesced tensor (RuntimeError on an uncoalesced one, as torch)."""
        if not self._coalesced:
            raise RuntimeError("Cannot get indices on an uncoalesced tensor, please call .coalesce() first")
        return self._idx

    def values(self):
        """The values of a coalesced tensor (RuntimeError on an uncoalesced one, as torch)."""
        if not self._coalesced:
            raise RuntimeError("Cannot get values on an uncoalesced tensor, please call .coalesce() first")
        return self._vals

    def _linear_index(self):
        """int64 ``(nnz,)``: each entry's position among the sparse dims in row-major order."""
        sizes = self._size[:self.sparse_dim()]
        if not sizes:
            return np.zeros(self._nnz(), _I64)
        return np.ravel_multi_index(tuple(self._idx.array), sizes) if self._nnz() else np.zeros(0, _I64)

    def coalesce(self):
        """This tensor with sorted, unique indices (values sharing an index summed; differentiable)."""
        if self._coalesced:
            return self
        keys, inverse = np.unique(self._linear_index(), return_inverse=True)
        sizes = self._size[:self.sparse_dim()]
        indices = np.stack(np.unravel_index(keys, sizes)).astype(_I64) if sizes else np.zeros((0, keys.size), _I64)
        values = _summed_rows(self._vals, inverse, keys.size)
        return _make(_dispatch.wrap(indices.reshape(len(sizes), keys.size)), values, self._size, True)

    def to_dense(self, dtype=None, *, masked_grad=None):
        """The dense tensor (entries sharing an index summed; differentiable with respect to the values)."""
        sparse_sizes = self._size[:self.sparse_dim()]
        rows = _summed_rows(self._vals, self._linear_index(), int(np.prod(sparse_sizes, dtype=np.int64)))
        dense = rows.reshape(self._size)
        return dense if dtype is None else dense.to(dtype)

    def to_sparse(self, *args, **kwargs):
        """This tensor (already sparse COO), or its CSR form with ``layout=torch.sparse_csr``."""
        layout = kwargs.get("layout", args[0] if args and isinstance(args[0], _config.layout) else None)
        if layout is not None and layout is not _config.sparse_coo:
            return self.to_sparse_csr()
        return self

    to_sparse_coo = to_sparse

    def to_sparse_csr(self, dense_dim=None):
        from vfw.frontends.torch import _sparse_csr
        return _sparse_csr.from_coo(self)

    # -- conversions -------------------------------------------------------------------
    def to(self, *args, **kwargs):
        dtype = kwargs.get("dtype")
        _device.check(kwargs.get("device"))
        for a in args:
            if isinstance(a, _dtype.dtype):
                dtype = a
            elif isinstance(a, (str, _device.device)):
                _device.check(a)
        if dtype is None or dtype is self.dtype:
            return self
        return _make(self._idx, self._vals.to(dtype), self._size, self._coalesced)

    def float(self):
        return self.to(_dtype.float32)

    def double(self):
        return self.to(_dtype.float64)

    def half(self):
        return self.to(_dtype.float16)

    def long(self):
        return self.to(_dtype.int64)

    def int(self):
        return self.to(_dtype.int32)

    def bool(self):
        return self.to(_dtype.bool)

    # -- arithmetic (values-wise; see _sparse_ops for products) -------------------------
    def __mul__(self, other):
        return _ops().mul(self, other)

    __rmul__ = mul = __mul__

    def __truediv__(self, other):
        return _ops().div(self, other)

    div = __truediv__

    def __neg__(self):
        return _make(self._idx, -self._vals, self._size, self._coalesced)

    neg = __neg__

    def __add__(self, other):
        return _ops().add(self, other)

    __radd__ = __add__

    def add(self, other, *, alpha=1):
        """``self + alpha * other`` for a sparse ``other`` (see ``_sparse_ops.add``)."""
        return _ops().add(self, other, alpha=alpha)

    def __sub__(self, other):
        return _ops().add(self, other, alpha=-1)

    sub = __sub__

    def mul_(self, other):
        """Scale the values in place by a number or a 0-d tensor."""
        self._vals.mul_(other)
        return self

    def div_(self, other):
        self._vals.div_(other)
        return self

    def zero_(self):
        """Drop every entry (nnz becomes 0), as torch's ``zero_`` on a sparse tensor."""
        self._idx = _dispatch.wrap(np.zeros((self.sparse_dim(), 0), _I64))
        self._vals = _dispatch.wrap(np.zeros((0, *self._vals.array.shape[1:]), self._vals.array.dtype))
        self._coalesced = True
        return self

    def t(self):
        """The transpose of a 2-D sparse tensor (indices swapped; nothing is re-sorted)."""
        if len(self._size) != 2 or self.sparse_dim() != 2:
            raise RuntimeError(f"t() expects a tensor with <= 2 sparse and 0 dense dimensions, but self is "
                               f"{self.sparse_dim()} sparse and {self.dense_dim()} dense")
        idx = _dispatch.wrap(np.ascontiguousarray(self._idx.array[::-1]))
        return _make(idx, self._vals, self._size[::-1], False)

    def sum(self, dim=None, keepdim=False, dtype=None):
        return _ops().sparse_sum(self, dim, dtype)

    def mm(self, mat2):
        return _ops().mm(self, mat2)

    def matmul(self, other):
        return _ops().matmul(self, other)

    __matmul__ = matmul

    def __repr__(self, *, tensor_contents=None):
        indent = len(_PREFIX)
        shift = "\n" + " " * indent

        def part(name, t):
            return f"{name}={tensor_repr(t, part_column=indent + len(name) + 1)}"

        text = _PREFIX + part("indices", self._idx) + "," + shift + part("values", self._vals) + "," + shift
        suffixes = [f"nnz={self._nnz()}"]
        if self.dtype not in _implied_dtypes():
            suffixes.append(f"dtype={self.dtype!r}")
        suffixes.append("layout=torch.sparse_coo")
        grad_fn = self.grad_fn
        if grad_fn is not None:
            suffixes.append(f"grad_fn=<{grad_fn.name()}>")
        elif self.requires_grad:
            suffixes.append("requires_grad=True")
        from vfw.frontends.torch._tensor_str import PRINT_OPTS
        return _with_suffixes(text + f"size={self._size}", suffixes, indent, PRINT_OPTS.linewidth,
                              column=indent + len(f"size={self._size}")) + ")"

    __str__ = __repr__


def _ops():
    from vfw.frontends.torch import _sparse_ops  # imports this module
    return _sparse_ops


def _size_type():
    from vfw.frontends.torch._size import Size
    return Size


def _dim(dim, ndim):
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    return dim % n


def _summed_rows(values, rows, count):
    """``(count, *dense)``: ``values`` rows added at positions ``rows`` (int64 ndarray) into zeros
    (differentiable with respect to ``values``)."""
    zeros = _dispatch.wrap(np.zeros((count, *values.array.shape[1:]), values.array.dtype))
    return zeros.index_add(0, _dispatch.wrap(np.asarray(rows, _I64)), values)


def _make(indices, values, size, coalesced, owns_values=False):
    """A sparse tensor over ``indices`` / ``values`` (torch tensors, already checked)."""
    t = object.__new__(SparseCooTensor)
    t._idx = indices
    t._vals = values
    t._size = tuple(int(s) for s in size)
    t._coalesced = bool(coalesced)
    t._owns_values = owns_values
    return t


def _rebuild_sparse(indices, values, size, coalesced, requires_grad):
    t = _make(_dispatch.wrap(indices), _dispatch.wrap(values), size, coalesced)
    return t.requires_grad_(True) if requires_grad else t


def is_sparse(t):
    """bool: whether ``t`` is a sparse COO tensor."""
    return type(t) is SparseCooTensor


def sparse_coo_tensor(indices, values, size=None, *, dtype=None, device=None, pin_memory=False, requires_grad=False,
                      check_invariants=None, is_coalesced=None):
    """A sparse COO tensor with ``values`` at ``indices``.

    Parameters
    ----------
    indices : array_like
        ``(sparse_dim, nnz)`` integer indices (converted to int64).
    values : array_like
        ``(nnz, *dense_sizes)``; entries sharing an index add up.
    size : sequence of int, optional
        ``sparse_dim + dense_dim`` sizes; by default one more than the largest index of each sparse dim,
        then the values' dense sizes.
    dtype : torch.dtype, optional
        Of the values (default: inferred from ``values``).
    requires_grad : bool
        Make the result a leaf whose ``.grad`` is sparse.
    is_coalesced : bool, optional
        Declare the indices sorted and unique (not checked, as in torch).

    Indices are always checked against ``size`` (torch checks them only when invariant checks are on):
    a negative or too large index raises RuntimeError instead of making an unusable tensor.
    """
    _device.check(device)
    idx = _dispatch.to_tensor(indices)
    if idx.array.ndim != 2:
        raise RuntimeError(f"indices must be sparse_dim x nnz, but got: {list(idx.array.shape)}")
    if idx.array.dtype != _I64:
        idx = _dispatch.wrap(idx.array.astype(_I64))
    vals = _dispatch.to_tensor(values, None if dtype is None else _dtype.to_np(dtype))
    if vals.array.ndim == 0:
        raise RuntimeError("values must be at least 1-dimensional (nnz x dense sizes)")
    sparse_dim, nnz = idx.array.shape
    if vals.array.shape[0] != nnz:
        raise RuntimeError(f"indices and values must have same nnz, but got nnz from indices: {nnz}, nnz from "
                           f"values: {vals.array.shape[0]}")
    dense_sizes = tuple(vals.array.shape[1:])
    if size is None:
        sparse_sizes = tuple(int(m) + 1 for m in idx.array.max(axis=1)) if nnz else (0,) * sparse_dim
        size = sparse_sizes + dense_sizes
    size = tuple(int(s) for s in size)
    _check_layout(idx.array, size, dense_sizes)
    if vals.requires_grad and autograd.is_grad_enabled():
        vals = vals.clone()  # a node of its own: the sparse tensor is not a leaf, and gradients reach ``values``
    result = _make(idx, vals, size, bool(is_coalesced) or nnz <= 1 and sparse_dim > 0 or nnz == 0)
    if requires_grad:
        result._vals = _dispatch.wrap(vals.array.copy())
        result._owns_values = True
        result._vals.requires_grad_(True)
    return result


def _check_layout(idx, size, dense_sizes):
    sparse_dim = idx.shape[0]
    if len(size) != sparse_dim + len(dense_sizes):
        raise RuntimeError(f"'len(size) == sparse_dim + dense_dim' is not satisfied: len(size) = {len(size)}, "
                           f"sparse_dim = {sparse_dim}, dense_dim = {len(dense_sizes)}")
    if tuple(size[sparse_dim:]) != dense_sizes:
        raise RuntimeError(f"values has incorrect size, expected {list(size[sparse_dim:])}, got "
                           f"{list(dense_sizes)}")
    if idx.shape[1]:
        low, high = idx.min(axis=1), idx.max(axis=1)
        for d in range(sparse_dim):
            if low[d] < 0:
                raise RuntimeError(f"found negative index {low[d]} for dim {d}")
            if high[d] >= size[d]:
                raise RuntimeError(f"size is inconsistent with indices: for dim {d}, size is {size[d]} but found "
                                   f"index {high[d]}")


def to_sparse(self, *args, layout=None, blocksize=None, dense_dim=None):
    """``Tensor.to_sparse(sparse_dim=None)``: the nonzero entries (rows of the first ``sparse_dim`` dims that hold
    a nonzero) as a coalesced sparse COO tensor; ``layout=torch.sparse_csr`` gives CSR."""
    if args and isinstance(args[0], _config.layout):
        layout, args = args[0], args[1:]
    if layout is not None and layout is not _config.sparse_coo:
        if getattr(layout, "_name", None) == "sparse_csr":
            return to_sparse_csr(self)
        raise RuntimeError(f"to_sparse: conversion to {layout} is not supported by vfw.torch")
    a = self.array
    sparse_dim = args[0] if args else a.ndim
    if not 0 <= sparse_dim <= a.ndim:
        raise RuntimeError(f"sparse_dim must be between 0 and {a.ndim}, got {sparse_dim}")
    lead = a.shape[:sparse_dim]
    rows = a.reshape(int(np.prod(lead, dtype=np.int64)), *a.shape[sparse_dim:])
    nonzero = rows != 0 if rows.ndim == 1 else (rows != 0).reshape(rows.shape[0], -1).any(axis=1)
    keys = np.flatnonzero(nonzero)
    indices = np.stack(np.unravel_index(keys, lead)).astype(_I64) if lead else np.zeros((0, keys.size), _I64)
    flat = self.reshape(-1, *a.shape[sparse_dim:]) if a.ndim else self.reshape(1)
    values = flat.index_select(0, _dispatch.wrap(keys.astype(_I64)))
    return _make(_dispatch.wrap(indices.reshape(sparse_dim, keys.size)), values, a.shape, True)


def to_sparse_csr(self, dense_dim=None):
    from vfw.frontends.torch import _sparse_csr
    return _sparse_csr.from_coo(to_sparse(self))


def sparse_mask(self, mask):
    """The entries of dense ``self`` at the indices of sparse ``mask`` (a sparse tensor with ``mask``'s indices)."""
    if not is_sparse(mask):
        raise RuntimeError("sparse_mask: expected mask to be a sparse COO tensor")
    if tuple(self.array.shape) != mask._size:
        raise RuntimeError(f"sparse_mask(): operands have incompatible sizes; self has size {list(self.shape)} but "
                           f"mask has size {list(mask._size)}")
    sd = mask.sparse_dim()
    flat = self.reshape(-1, *mask._size[sd:])
    values = flat.index_select(0, _dispatch.wrap(mask._linear_index()))
    return _make(mask._idx, values, mask._size, mask._coalesced)


TENSOR_METHODS = {"to_sparse": to_sparse, "to_sparse_coo": to_sparse, "to_sparse_csr": to_sparse_csr,
                  "sparse_mask": sparse_mask}
for _name, _fn in TENSOR_METHODS.items():
    setattr(Tensor, _name, _fn)
Tensor.is_sparse_csr = False
