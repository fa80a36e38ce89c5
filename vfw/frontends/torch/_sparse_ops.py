"""Operations on sparse COO tensors: arithmetic, sums, products with dense matrices, softmax, and the sparse
gradients of embedding lookups.

Everything is a composition of dense torch functions on the values (``index_select``, ``index_add``, ``mul``...),
so autograd reaches the values (and through them a sparse leaf's ``.grad`` or the dense tensors a sparse tensor
was made from) without engine ops of its own.
"""

import numpy as np

from vfw.core import autograd
from vfw.core.tensor import Tensor as CoreTensor
from vfw.frontends.torch import _dispatch
from vfw.frontends.torch._sparse import _make, _summed_rows, is_sparse

_I64 = np.dtype(np.int64)
_NUMBERS = (int, float, bool, np.number)


def _index(array):
    return _dispatch.wrap(np.ascontiguousarray(array, _I64))


# -- arithmetic -------------------------------------------------------------------------
def mul(s, other):
    """``s * other``: a number, a 0-d tensor, a dense tensor of ``s``'s shape or a sparse one (sparse result)."""
    if isinstance(other, _NUMBERS) or isinstance(other, CoreTensor) and not is_sparse(other) and \
            other.array.ndim == 0:
        return _make(s._idx, s._vals * other, s._size, s._coalesced)
    if is_sparse(other):
        return _mul_sparse(s, other)
    if isinstance(other, CoreTensor):
        if tuple(other.array.shape) != s._size:
            raise RuntimeError(f"mul(sparse, dense): sizes must match, got {list(s._size)} and "
                               f"{list(other.array.shape)}")
        return _make(s._idx, s._vals * other.sparse_mask(s)._vals, s._size, s._coalesced)
    return NotImplemented


def _mul_sparse(a, b):
    """The elementwise product of two sparse tensors: the entries present in both (coalesced result)."""
    if a._size != b._size:
        raise RuntimeError(f"mul(sparse, sparse): sizes must match, got {list(a._size)} and {list(b._size)}")
    a, b = a.coalesce(), b.coalesce()
    common, in_a, in_b = np.intersect1d(a._linear_index(), b._linear_index(), return_indices=True)
    values = a._vals.index_select(0, _index(in_a)) * b._vals.index_select(0, _index(in_b))
    return _make(_index(a._idx.array[:, in_a]), values, a._size, True)


def div(s, other):
    """``s / other`` for a number or a 0-d tensor."""
    if isinstance(other, _NUMBERS) or isinstance(other, CoreTensor) and not is_sparse(other) and \
            other.array.ndim == 0:
        return _make(s._idx, s._vals / other, s._size, s._coalesced)
    raise RuntimeError("div(sparse, x): vfw.torch divides sparse tensors only by numbers and 0-d tensors")


def add(s, other, alpha=1):
    """``s + alpha * other`` for a sparse ``other`` of the same size, with torch's entries: where both values
    tensors are contiguous, a merge of the two entry lists as they are stored (see :func:`_merge_plan`), else
    the entries of both concatenated; coalesced when both operands are."""
    if not is_sparse(other):
        if isinstance(other, CoreTensor):
            raise RuntimeError("add(sparse, dense) is not supported. Use add(dense, sparse) instead.")
        return NotImplemented
    if s._size != other._size:
        raise RuntimeError(f"add: expected 'self' and 'other' to have same size, but self has size {list(s._size)} "
                           f"while other has size {list(other._size)} (FYI: op2-sparse addition does not currently "
                           f"support broadcasting)")
    if s.sparse_dim() != other.sparse_dim():
        raise RuntimeError("add: expected 'self' and 'other' to have the same number of sparse dims")
    theirs = other._vals if alpha == 1 else other._vals * alpha
    if theirs.dtype is not s._vals.dtype:
        theirs = theirs.to(s._vals.dtype)
    coalesced = s._coalesced and other._coalesced
    if not (s._vals.array.flags.c_contiguous and other._vals.array.flags.c_contiguous):
        indices = _index(np.concatenate([s._idx.array, other._idx.array], axis=1))
        return _make(indices, _cat(s._vals, theirs), s._size, coalesced)
    mine_at, theirs_at = _merge_plan(s._linear_index().tolist(), other._linear_index().tolist())
    indices = np.where(mine_at >= 0, s._idx.array[:, mine_at], other._idx.array[:, theirs_at])
    return _make(_index(indices), _rows_or_zeros(s._vals, mine_at) + _rows_or_zeros(theirs, theirs_at), s._size,
                 coalesced)


def _merge_plan(mine, theirs):
    """torch's CPU merge of two entry lists (their flat indices, in stored order, sorted or not): walk both,
    emit the smaller head, or one entry summing both heads when they are equal.  Returns, per result entry, the
    position in ``mine`` and in ``theirs`` it takes (-1: none)."""
    mine_at, theirs_at = [], []
    i = j = 0
    n, m = len(mine), len(theirs)
    while i < n or j < m:
        take_mine = j >= m or i < n and mine[i] <= theirs[j]
        take_theirs = i >= n or j < m and theirs[j] <= mine[i]
        mine_at.append(i if take_mine else -1)
        theirs_at.append(j if take_theirs else -1)
        i += take_mine
        j += take_theirs
    return np.array(mine_at, _I64), np.array(theirs_at, _I64)


def _rows_or_zeros(values, at):
    """``values`` rows at positions ``at`` (zero rows where ``at`` is -1), differentiable in ``values``."""
    zero_row = _dispatch.wrap(np.zeros((1, *values.array.shape[1:]), values.array.dtype))
    padded = _cat(values, zero_row)
    return padded.index_select(0, _index(np.where(at >= 0, at, len(values.array))))


def _cat(a, b):
    from vfw.frontends.torch import _joining
    return _joining.cat([a, b])


def accumulated(prev, g):
    """``prev + g`` for gradients of which one at least is sparse: torch's ``AccumulateGrad`` (sparse + sparse
    stays sparse and uncoalesced; with a dense one the sum is dense)."""
    if is_sparse(prev) and is_sparse(g):
        return add(prev, g)
    dense, sparse = (prev, g) if is_sparse(g) else (g, prev)
    return dense + sparse.to_dense()


# -- reductions -------------------------------------------------------------------------
def sparse_sum(s, dim=None, dtype=None):
    """``torch.sparse.sum``: the sum of all entries (a 0-d dense tensor), or over ``dim``: a sparse tensor while
    sparse dims remain (coalesced), else dense."""
    values = s._vals if dtype is None else s._vals.to(dtype)
    if dim is None:
        return values.sum()
    dims = sorted({d % max(len(s._size), 1) for d in ((dim,) if isinstance(dim, int) else dim)})
    sd = s.sparse_dim()
    summed_dense = [d - sd + 1 for d in dims if d >= sd]
    if summed_dense:
        values = values.sum(summed_dense)
    kept = [d for d in range(sd) if d not in dims]
    if len(kept) == sd:
        return _make(s._idx, values, [n for d, n in enumerate(s._size) if d not in dims], s._coalesced)
    if not kept:
        return values.sum(0)
    size = tuple(n for d, n in enumerate(s._size) if d not in dims)
    return _make(_index(s._idx.array[kept]), values, size, False).coalesce()


def _groups(s, dim):
    """For softmax along sparse dim ``dim``: each entry's group (entries sharing all other sparse indices)."""
    others = np.delete(s._idx.array, dim, axis=0)
    if others.shape[0] == 0:
        return np.zeros(s._nnz(), _I64), 1
    _, inverse = np.unique(others, axis=1, return_inverse=True)
    inverse = inverse.reshape(-1)
    return inverse.astype(_I64), int(inverse.max()) + 1 if inverse.size else 0


def _softmax(s, dim, dtype, log):
    s = s.coalesce()
    if dtype is not None:
        s = s.to(dtype)
    dim = dim % len(s._size)
    sd = s.sparse_dim()
    if dim >= sd:  # along a dense dim: each value on its own
        fn = "log_softmax" if log else "softmax"
        return _make(s._idx, getattr(s._vals, fn)(dim - sd + 1), s._size, True)
    group, count = _groups(s, dim)
    v = s._vals.array
    # The shift (each group's largest value) cancels in the result: a constant for autograd.
    peak = np.full((count, *v.shape[1:]), -np.inf, v.dtype)
    np.maximum.at(peak, group, v)
    shifted = s._vals - _dispatch.wrap(peak[group])
    e = shifted.exp()
    total = _summed_rows(e, group, count).index_select(0, _index(group))
    values = shifted - total.log() if log else e / total
    return _make(s._idx, values, s._size, True)


def softmax(input, dim, dtype=None):
    """``torch.sparse.softmax``: softmax along ``dim`` over the specified entries only (the others count as
    ``-inf``); a coalesced sparse result."""
    return _softmax(_sparse_arg(input, "softmax"), dim, dtype, False)


def log_softmax(input, dim, dtype=None):
    """``torch.sparse.log_softmax``: as :func:`softmax`, in log space."""
    return _softmax(_sparse_arg(input, "log_softmax"), dim, dtype, True)


def _sparse_arg(x, fn):
    if not is_sparse(x):
        raise RuntimeError(f"{fn}: expected a sparse COO tensor, got layout {getattr(x, 'layout', type(x))}")
    return x


# -- products ---------------------------------------------------------------------------
def mm(sparse, dense):
    """``sparse @ dense`` for a 2-D sparse COO matrix and a dense matrix: a dense ``(n, p)`` tensor
    (differentiable with respect to ``dense`` and the sparse values)."""
    if is_sparse(dense):
        raise RuntimeError("vfw.torch: products of two sparse tensors are not supported (convert one with "
                           ".to_dense())")
    if not isinstance(dense, CoreTensor):
        raise TypeError(f"mm(): argument 'mat2' (position 2) must be Tensor, not {type(dense).__name__}")
    if sparse.sparse_dim() != 2 or sparse.dense_dim() != 0:
        raise RuntimeError(f"mm: expected a 2-D sparse matrix without dense dims, got sparse_dim "
                           f"{sparse.sparse_dim()} and dense_dim {sparse.dense_dim()}")
    d = dense.array
    if d.ndim != 2:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-max(d.ndim, 1)}, "
                         f"{max(d.ndim, 1) - 1}], but got 1)")
    if d.dtype != sparse._vals.array.dtype:
        raise RuntimeError(f"expected scalar type {_dispatch.type_name(sparse._vals.array.dtype)} but found "
                           f"{_dispatch.type_name(d.dtype)}")
    n, m = sparse._size
    if d.shape[0] != m:
        raise RuntimeError(f"addmm: Argument #3 (dense): Expected dim 0 size {m}, got {d.shape[0]}")
    rows, cols = sparse._idx.array
    products = dense.index_select(0, _index(cols)) * sparse._vals.unsqueeze(1)
    zeros = _dispatch.wrap(np.zeros((n, d.shape[1]), d.dtype))
    return zeros.index_add(0, _index(rows), products)


def matmul(sparse, other):
    """``sparse @ other`` for a dense matrix or vector ``other``."""
    if isinstance(other, CoreTensor) and not is_sparse(other) and other.array.ndim == 1:
        return mm(sparse, other.unsqueeze(1)).squeeze(1)
    return mm(sparse, other)


def addmm(input, sparse, dense, *, beta=1, alpha=1):
    """``beta * input + alpha * (sparse @ dense)`` (dense result)."""
    product = mm(sparse, dense)
    if alpha != 1:
        product = product * alpha
    if beta == 0:  # as torch: ``input`` is not read (its NaNs do not propagate)
        return product
    return product + (input if beta == 1 else input * beta)


def hspmm(sparse, dense):
    """``torch.hspmm``: ``sparse @ dense`` as a hybrid sparse tensor (the rows ``sparse`` has entries in)."""
    product = mm(sparse, dense)
    rows = np.unique(sparse._idx.array[0])
    return _make(_index(rows[None]), product.index_select(0, _index(rows)), product.array.shape, True)


def smm(sparse, dense):
    """``torch.smm``: ``sparse @ dense`` as a sparse tensor holding every column of the rows ``sparse`` has
    entries in."""
    hybrid = hspmm(sparse, dense)
    rows = hybrid._idx.array[0]
    cols = dense.array.shape[1]
    indices = np.stack([np.repeat(rows, cols), np.tile(np.arange(cols), rows.size)])
    return _make(_index(indices), hybrid._vals.reshape(-1), hybrid._size, True)


# -- embeddings with sparse gradients ---------------------------------------------------
def embedding_sparse_grad(weight, indices, lookup, padding_idx, scale_grad_by_freq):
    """Run ``lookup(weight, indices)`` (an embedding lookup) so that ``weight``'s gradient is a sparse COO tensor:
    one entry per looked-up index (``padding_idx`` left out) holding that position's output gradient, as torch's
    ``Embedding(sparse=True)`` makes it (uncoalesced)."""
    num_rows, width = weight.array.shape

    def forward(w, idx):
        out = lookup(w, idx)

        def backward(g):
            if scale_grad_by_freq:
                raise RuntimeError("embedding_backward: scale_grad_by_freq not supported with sparse gradients")
            flat = idx.array.reshape(-1).astype(_I64)
            rows = np.asarray(g.array).reshape(-1, width)
            if padding_idx >= 0:
                keep = flat != padding_idx
                flat, rows = flat[keep], rows[keep]
            # torch's values are a reshape of the output gradient: a view, non-contiguous where that gradient is
            # broadcast (sums of them then concatenate instead of merging, see ``add``)
            values = rows if not rows.flags.c_contiguous else np.array(rows)
            grad = _make(_index(flat[None]), _dispatch.wrap(values), (num_rows, width), flat.size <= 1)
            return grad, None

        backward.function_name = "Embedding"  # grad_fn: EmbeddingBackward
        return out, backward

    return autograd.custom_gradient(forward)(weight, indices)


def embedding_bag_sparse_grad(bag, lookup, input, weight, padding_idx, scale_grad_by_freq, **bag_args):
    """An embedding bag whose weight gradient is sparse: the rows ``lookup(weight, indices)`` finds (one per entry,
    with a sparse gradient) are reduced by ``bag`` (``F.embedding_bag``) over a table of their own, so each
    entry's row gets its own output gradient."""
    idx = input.array
    rows = embedding_sparse_grad(weight, _dispatch.wrap(idx.reshape(-1)), lookup, padding_idx, scale_grad_by_freq)
    positions = np.arange(idx.size, dtype=idx.dtype).reshape(idx.shape)
    table_pad = None
    if padding_idx >= 0:  # padding entries point at an extra zero row, the table's padding row
        positions[idx == padding_idx] = idx.size
        zero_row = _dispatch.wrap(np.zeros((1, weight.array.shape[1]), weight.array.dtype))
        rows = _cat(rows, zero_row)
        table_pad = idx.size
    return bag(_dispatch.wrap(positions), rows, padding_idx=table_pad, **bag_args)
