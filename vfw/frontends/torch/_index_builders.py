"""Tensors built from index patterns: tril_indices, triu_indices, cartesian_prod, combinations,
block_diag, vander, unravel_index; select/slice/diagonal_scatter and narrow_copy (a copy with
one part replaced or taken); index_reduce (rows reduced into by index); ``Tensor.fill_diagonal_``
writes by one.

Index arithmetic is done with numpy (integer results carry no gradient); values are gathered
and assembled with differentiable vfw.torch functions.
"""

import itertools
import math

import numpy as np

from vfw.core.tensor import Tensor as CoreTensor
from vfw.frontends._warnings import warn_for_user
from vfw.frontends.torch import _dispatch, _dtype
from vfw.frontends.torch._creation import zeros
from vfw.frontends.torch._joining import cat, meshgrid, stack
from vfw.frontends.torch._scatter import scatter_reduce

__all__ = ["tril_indices", "triu_indices", "cartesian_prod", "combinations", "block_diag", "vander",
           "unravel_index", "select_scatter", "slice_scatter", "diagonal_scatter", "narrow_copy", "index_reduce"]


def _triangle(lower, row, col, offset, dtype):
    for value, what in ((row, "row"), (col, "col")):
        if value < 0:
            raise RuntimeError(f"{what} must be non-negative, got{value}")
    rows, cols = (np.tril_indices if lower else np.triu_indices)(row, offset, col)
    d = _dtype.int64.np if dtype is None else _dtype.to_np(dtype)
    return _dispatch.wrap(np.stack([rows, cols]).astype(d).reshape(2, -1))


def tril_indices(row, col, offset=0, *, dtype=None, device=None, layout=None, pin_memory=False):
    """Tensor: the ``(2, N)`` row and column indices of the lower triangle of a ``row x col`` matrix."""
    return _triangle(True, row, col, offset, dtype)


def triu_indices(row, col, offset=0, *, dtype=None, device=None, layout=None, pin_memory=False):
    """Tensor: the ``(2, N)`` row and column indices of the upper triangle of a ``row x col`` matrix."""
    return _triangle(False, row, col, offset, dtype)


def _vectors(tensors, name):
    for t in tensors:
        if not isinstance(t, CoreTensor):
            raise TypeError(f"{name}(): expected Tensor arguments, got {type(t).__name__}")
        if t.array.ndim != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape {list(t.array.shape)}")


def cartesian_prod(*tensors):
    """Tensor: the rows of all combinations of one element from each 1-D tensor (one tensor: itself)."""
    _vectors(tensors, "cartesian_prod")
    if len(tensors) == 1:
        return tensors[0]
    return stack([g.reshape(-1) for g in meshgrid(*tensors, indexing="ij")], 1)


def combinations(input, r=2, with_replacement=False):
    """Tensor: the ``(N, r)`` rows of ``r``-element combinations of the 1-D ``input``, in order."""
    _vectors((input,), "combinations")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return _dispatch.wrap(np.empty(0, input.array.dtype))
    pick = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    index = np.array(list(pick(range(input.array.shape[0]), r)), np.int64).reshape(-1, r)
    return input[_dispatch.wrap(index)]


def block_diag(*tensors):
    """Tensor: the (at most 2-D) tensors placed along the diagonal of a zero matrix."""
    blocks = []
    for t in tensors:
        if not isinstance(t, CoreTensor):
            raise TypeError(f"block_diag(): expected Tensor arguments, got {type(t).__name__}")
        if t.array.ndim > 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer dimensions. Input has "
                               f"{t.array.ndim} dimensions")
        blocks.append(t.reshape(1, -1) if t.array.ndim < 2 else t)
    np_dtype = _dispatch.result_dtype(*blocks) if blocks else _dtype.default_float_np()
    width = sum(b.array.shape[1] for b in blocks)
    if not blocks:
        return _dispatch.wrap(np.empty((1, 0), np_dtype))
    rows, left = [], 0
    for b in blocks:
        r, c = b.array.shape
        pieces = [zeros(r, left, dtype=_dtype._FROM_NP[np_dtype]), _dispatch.cast(b, np_dtype),
                  zeros(r, width - left - c, dtype=_dtype._FROM_NP[np_dtype])]
        rows.append(cat(pieces, 1))
        left += c
    return cat(rows, 0)


def vander(x, N=None, increasing=False):  # noqa: N803  (torch's argument name)
    """Tensor: the Vandermonde matrix of the 1-D ``x``, columns ``x**(N-1) ... x**0`` (reversed if increasing)."""
    _vectors((x,), "vander")
    n = x.array.shape[0] if N is None else N
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    if x.array.dtype == np.bool_:
        x = _dispatch.cast(x, np.dtype(np.int64))
    powers = range(n) if increasing else range(n - 1, -1, -1)
    if n == 0:
        return _dispatch.wrap(np.empty((x.array.shape[0], 0), x.array.dtype))
    return stack([x ** p for p in powers], 1)


def unravel_index(indices, shape):
    """tuple[Tensor, ...]: the coordinates in ``shape`` of flat ``indices`` (taken modulo the size)."""
    if not isinstance(indices, CoreTensor):
        raise TypeError(f"expected 'indices' to be a tensor, but got {type(indices).__name__}")
    d = indices.array.dtype
    if d.kind not in "iu" or d == np.bool_:
        raise TypeError(f"expected 'indices' to be integer dtype, but got {_dtype._FROM_NP[d]}")
    shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(int(s) for s in shape)
    if any(s < 0 for s in shape):
        raise ValueError("'shape' cannot have negative values, but got " + str(shape))
    size = math.prod(shape)
    if size == 0 and indices.array.size:
        raise IndexError("index is out of bounds for a tensor with no elements")
    flat = indices.array.astype(np.int64) % max(size, 1)
    return tuple(_dispatch.wrap(c.astype(np.int64)) for c in np.unravel_index(flat, shape))


def _fill_diagonal_(self, fill_value, wrap=False):
    """Write ``fill_value`` on the main diagonal (all indices equal) in place; ``wrap`` restarts it below
    the square part of a tall matrix, leaving one row out."""
    shape = self.array.shape
    if len(shape) < 2:
        raise RuntimeError("dimensions must larger than 1")
    if len(shape) > 2 and len(set(shape)) != 1:
        raise RuntimeError("all dimensions of input must be of equal length")
    mask = np.zeros(shape, np.bool_)
    np.fill_diagonal(mask, True, wrap=wrap)
    self[_dispatch.wrap(mask)] = fill_value
    return self


def _scatter_into_copy(input, src, part, name):
    """A copy of ``input`` with the part ``part(copy)`` (a view) replaced by ``src``; differentiable in both."""
    out = input.clone()
    view = part(out)
    if tuple(src.array.shape) != tuple(view.array.shape):
        raise RuntimeError(f"{name}: expected src to have a size equal to the slice of self. src size = "
                           f"{list(src.array.shape)}, slice size = {list(view.array.shape)}")
    view.copy_(src)
    return out


def select_scatter(input, src, dim, index):
    """Tensor: ``input`` with ``input.select(dim, index)`` replaced by ``src``."""
    return _scatter_into_copy(input, src, lambda t: t.select(dim, index), "select_scatter")


def slice_scatter(input, src, dim=0, start=None, end=None, step=1):
    """Tensor: ``input`` with the slice ``start:end:step`` along ``dim`` replaced by ``src``."""
    d = dim + input.array.ndim if dim < 0 else dim
    key = (slice(None),) * d + (slice(start, end, step),)
    return _scatter_into_copy(input, src, lambda t: t[key], "slice_scatter")


def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):
    """Tensor: ``input`` with the diagonal ``input.diagonal(offset, dim1, dim2)`` replaced by ``src``."""
    return _scatter_into_copy(input, src, lambda t: t.diagonal(offset, dim1, dim2), "diagonal_scatter")


def narrow_copy(input, dim, start, length):
    """Tensor: ``input.narrow(dim, start, length)`` in memory of its own."""
    return input.narrow(dim, start, length).clone()


_warned = []


def index_reduce(input, dim, index, source, reduce, *, include_self=True, out=None):
    """Tensor: ``input`` with each slice ``source.select(dim, i)`` reduced ('prod', 'mean', 'amax', 'amin')
    into the slice ``index[i]`` along ``dim``."""
    if reduce not in ("prod", "mean", "amax", "amin"):
        raise RuntimeError(f"index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got {reduce}.")
    if not _warned:
        _warned.append(True)
        warn_for_user("index_reduce() is in beta and the API may change at any time.", UserWarning)
    ndim = source.array.ndim
    d = dim + ndim if dim < 0 else dim
    idx = index.array
    if idx.dtype.kind not in "iu" or idx.ndim > 1:
        raise RuntimeError("index_reduce_(): Index should have dimension 1 or 0 and be of integer dtype "
                           f"(got {idx.ndim}-d {idx.dtype})")
    if ndim and idx.size != source.array.shape[d]:
        raise RuntimeError(f"index_reduce_(): Number of indices ({idx.size}) should be equal to source.size(dim) "
                           f"({source.array.shape[d]})")
    along = [1] * ndim
    if ndim:
        along[d] = -1
    full = np.broadcast_to(idx.astype(np.int64).reshape(along), source.array.shape).copy()
    return scatter_reduce(input, d, _dispatch.wrap(full), source, reduce, include_self=include_self, out=out)


def _index_reduce_(self, dim, index, source, reduce, *, include_self=True):
    return _dispatch.inplace(index_reduce, self, dim, index, source, reduce, include_self=include_self,
                             name="index_reduce_")


TENSOR_METHODS = {"fill_diagonal_": _fill_diagonal_, "index_reduce": index_reduce, "index_reduce_": _index_reduce_,
                  "select_scatter": select_scatter, "slice_scatter": slice_scatter,
                  "diagonal_scatter": diagonal_scatter, "narrow_copy": narrow_copy}
