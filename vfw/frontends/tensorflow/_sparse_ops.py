"""tf.sparse conversion and structure ops: from_dense, to_dense, to_indicator, reorder, reshape, slice, split,
retain, reset_shape, fill_empty_rows, concat, expand_dims, transpose, eye, map_values, mask, and the
``SparseTensor`` operators ``*`` and ``/`` (sparse with dense or scalar).

Index bookkeeping (orders, masks, new coordinates) is numpy on the int64 index arrays; values move through
differentiable engine ops (gathers, scatters), so gradients reach the values and dense operands as TF's do.
"""

import numpy as np

from vfw.frontends.tensorflow import _dtypes
from vfw.frontends.tensorflow._array_gather import gather, tensor_scatter_nd_update
from vfw.frontends.tensorflow._array_transform import broadcast_to
from vfw.frontends.tensorflow._dispatch import call, convert_to_tensor, op, op_error, wrap
from vfw.frontends.tensorflow._gradients import stop_gradient
from vfw.frontends.tensorflow._indexed_slices import IndexedSlices
from vfw.frontends.tensorflow._math_binary import multiply, truediv
from vfw.frontends.tensorflow._op_support import FLOATS, cast
from vfw.frontends.tensorflow._op_support import reshape as reshape_to
from vfw.frontends.tensorflow._sparse_tensor import SparseTensor, as_sparse, dense_shape_of

I64 = np.dtype(np.int64)
_TAKE = op("Gather", axis=0)  # not the row gather of tf.gather: gradients stay dense, as TF's sparse kernels'


def take(values, positions):
    """``values[positions]`` (a 1-D int64 array of positions), differentiable with a dense gradient."""
    return call(_TAKE, values, np.asarray(positions, I64), tf_op="GatherV2")


def sparse_of(indices, values, dense_shape):
    """A SparseTensor of int64 index/shape arrays (or tensors) and a values tensor, without re-checking."""
    as_tensor = lambda a: a if not isinstance(a, np.ndarray) else wrap(np.asarray(a, I64))  # noqa: E731
    return SparseTensor._from_parts(as_tensor(indices), values, as_tensor(dense_shape))


def row_major_order(indices):
    """The stable permutation sorting the rows of an ``[nnz, rank]`` index array in row-major order."""
    if indices.shape[1] == 0:
        return np.arange(indices.shape[0])
    return np.lexsort(indices.T[::-1])


def linear_keys(indices, shape):
    """Row-major linear positions of in-bounds index rows in a dense tensor of ``shape``."""
    strides = np.cumprod((tuple(shape[1:]) + (1,))[::-1])[::-1].astype(I64)
    return indices @ strides if indices.size else np.zeros(indices.shape[0], I64)


def _check_indices(indices, shape, tf_op):
    """TF's index validation of ``tf.sparse.to_dense``: in bounds, in row-major order, not repeated."""
    shape_array = np.asarray(shape, I64)
    out_of_bounds = np.any((indices < 0) | (indices >= shape_array), axis=1)
    keys = linear_keys(np.where(out_of_bounds[:, None], 0, indices), shape)
    previous = np.concatenate([[-1], keys[:-1]])
    bad = out_of_bounds | (keys <= previous)
    if not bad.any():
        return
    i = int(np.argmax(bad))
    entry = f"indices[{i}] = [{','.join(str(v) for v in indices[i])}]"
    if out_of_bounds[i]:
        raise op_error(f"{entry} is out of bounds: need 0 <= index < [{','.join(str(d) for d in shape)}]", tf_op)
    if keys[i] == previous[i]:
        raise op_error(f"{entry} is repeated", tf_op)
    raise op_error(f"{entry} is out of order. Many sparse ops require sorted indices.\n    Use `tf.sparse.reorder` "
                   "to create a correctly ordered copy.\n\n", tf_op)


# -- conversions -------------------------------------------------------------------------------------------------
def from_dense(tensor, name=None):
    """The SparseTensor of the non-zero (non-empty for strings) entries of ``tensor``, in row-major order."""
    x = convert_to_tensor(tensor)
    zero = b"" if x.array.dtype == object else 0
    indices = np.argwhere(x.array != zero).astype(I64)
    values = call("GatherND", x, indices, batch_dims=0, tf_op="GatherNd")
    return sparse_of(indices, values, np.array(x.array.shape, I64))


def to_dense(sp_input, default_value=None, validate_indices=True, name=None):
    """The dense tensor of ``sp_input``: its values at its indices, ``default_value`` (0) elsewhere.

    With ``validate_indices`` the indices must be in bounds, sorted and unique (InvalidArgumentError);
    otherwise a repeated index takes its last value. Differentiable with respect to the values and
    ``default_value``.
    """
    st = as_sparse(sp_input)
    shape = dense_shape_of(st)
    indices = st.indices.array
    if validate_indices:
        _check_indices(indices, shape, "SparseToDense")
    default = np.zeros((), st.values.array.dtype) if default_value is None else default_value
    default = convert_to_tensor(default, dtype=st.dtype)
    if not shape:  # a scalar: scatter into one element
        dense = tensor_scatter_nd_update(broadcast_to(default, [1]), np.zeros((indices.shape[0], 1), I64), st.values)
        return reshape_to(dense, [])
    return tensor_scatter_nd_update(broadcast_to(default, shape), indices, st.values)


def to_indicator(sp_input, vocab_size, name=None):
    """A bool tensor ``[..., vocab_size]``: True at ``[i..., id]`` for each id stored in row ``i...`` of
    ``sp_input`` (an integer SparseTensor)."""
    st = as_sparse(sp_input)
    if st.values.array.dtype not in (np.dtype(np.int32), I64):
        raise TypeError(f"sp_input.values must be int32 or int64, got {st.dtype!r}")
    size = int(vocab_size)
    shape = dense_shape_of(st)[:-1] + (size,)
    ids = st.values.array.astype(I64)
    bad = (ids < 0) | (ids >= size)
    if bad.any():
        i = int(np.argmax(bad))
        raise op_error(f"indices[{i}] = [{','.join(str(v) for v in st.indices.array[i, :-1])},{ids[i]}] is out of "
                       f"bounds: need 0 <= index < [{','.join(str(d) for d in shape)}]", "SparseToDense")
    out = np.zeros(shape, bool)
    out[tuple(st.indices.array[:, :-1].T) + (ids,)] = True
    return wrap(out)


# -- structure -----------------------------------------------------------------------------------------------------
def reorder(sp_input, name=None):
    """``sp_input`` with its entries in row-major order (values follow; differentiable)."""
    st = as_sparse(sp_input)
    order = row_major_order(st.indices.array)
    return sparse_of(st.indices.array[order], take(st.values, order), st.dense_shape)


def reshape(sp_input, shape, name=None):
    """``sp_input`` with dense shape ``shape`` (at most one -1, inferred), entries in the same row-major places."""
    st = as_sparse(sp_input)
    old = dense_shape_of(st)
    new = [int(d) for d in np.asarray(convert_to_tensor(shape, dtype=_dtypes.int64).array).reshape(-1)]
    total = int(np.prod(old, dtype=np.int64))
    unknown = [i for i, d in enumerate(new) if d == -1]
    if len(unknown) > 1:
        raise op_error(f"only one output dimension may be -1, not both {unknown[0]} and {unknown[1]}",
                       "SparseReshape")
    known = int(np.prod([d for d in new if d != -1], dtype=np.int64))
    if unknown:
        if known == 0 or total % known:
            raise op_error(f"Input to reshape is a SparseTensor with {total} dense values, but the requested shape "
                           f"requires a multiple of {known}. inputs_shape=[{','.join(map(str, old))}]",
                           "SparseReshape")
        new[unknown[0]] = total // known
    elif known != total:
        raise op_error(f"Input to reshape is a tensor with {total} dense values, but the requested shape has "
                       f"{known}. inputs_shape=[{','.join(map(str, old))}] output_shape=[{','.join(map(str, new))}]",
                       "SparseReshape")
    keys = linear_keys(st.indices.array, old)
    indices = np.stack(np.unravel_index(keys, new), axis=1).astype(I64) if new else np.zeros((keys.size, 0), I64)
    return sparse_of(indices.reshape(keys.size, len(new)), st.values, np.array(new, I64))


def _select(st, keep, indices=None, dense_shape=None, pick=take):
    """The entries of ``st`` where the bool array ``keep`` is True (new ``indices``/``dense_shape`` if given),
    their values taken by ``pick(values, positions)``."""
    positions = np.flatnonzero(keep)
    indices = st.indices.array if indices is None else indices
    return sparse_of(indices[positions], pick(st.values, positions),
                     st.dense_shape if dense_shape is None else dense_shape)


def slice(sp_input, start, size, name=None):  # noqa: A001  (tf.sparse.slice)
    """The entries of ``sp_input`` inside the box ``[start, start + size)`` (clipped to the dense shape), with
    indices and dense shape relative to ``start``."""
    st = as_sparse(sp_input)
    shape = np.array(dense_shape_of(st), I64)
    begin = np.asarray(convert_to_tensor(start, dtype=_dtypes.int64).array).reshape(-1)
    extent = np.asarray(convert_to_tensor(size, dtype=_dtypes.int64).array).reshape(-1)
    if begin.size != shape.size or extent.size != shape.size:
        raise op_error(f"Expected start and size to have {shape.size} entries, got {begin.size} and {extent.size}",
                       "SparseSlice")
    end = np.minimum(begin + extent, shape)
    indices = st.indices.array
    keep = np.all((indices >= begin) & (indices < end), axis=1)
    return _select(st, keep, indices - begin, np.maximum(end - begin, 0))


def split(sp_input=None, num_split=None, axis=None, name=None):
    """``sp_input`` cut into ``num_split`` slices along ``axis`` (the first ``size % num_split`` one larger)."""
    st = as_sparse(sp_input)
    if num_split is None:
        raise ValueError("Argument `num_split` is required.")
    if axis is None:
        raise ValueError("Argument `axis` is required.")
    shape = dense_shape_of(st)
    axis = int(axis) % len(shape)
    pieces = int(num_split)
    base, extra = divmod(shape[axis], pieces)
    results, offset = [], 0
    for k in range(pieces):
        width = base + (k < extra)
        start = [0] * len(shape)
        start[axis] = offset
        size = list(shape)
        size[axis] = width
        results.append(slice(st, start, size))
        offset += width
    return results


def retain(sp_input, to_retain):
    """The entries of ``sp_input`` where the bool vector ``to_retain`` (one per entry) is True."""
    st = as_sparse(sp_input)
    keep = np.asarray(convert_to_tensor(to_retain).array)
    if keep.ndim != 1 or keep.shape[0] != st.indices.array.shape[0]:
        raise ValueError(f"Shapes ({keep.shape[0] if keep.ndim else ''},) and ({st.indices.array.shape[0]},) are "
                         "incompatible")
    # TF gathers the values with tf.gather: their gradient is an IndexedSlices
    return _select(st, keep.astype(bool), pick=lambda values, positions: gather(values, wrap(positions)))


def reset_shape(sp_input, new_shape=None):
    """``sp_input`` with dense shape ``new_shape`` (no smaller than the current one), or the tightest bounding
    shape of its indices when None."""
    st = as_sparse(sp_input)
    indices = st.indices.array
    if new_shape is None:
        tight = indices.max(axis=0) + 1 if indices.shape[0] else np.zeros(indices.shape[1], I64)
        return sparse_of(st.indices, st.values, tight.astype(I64))
    shape = np.asarray(convert_to_tensor(new_shape, dtype=_dtypes.int64).array)
    if shape.shape != st.dense_shape.array.shape:
        raise ValueError(f"Shapes {shape.shape} and {st.dense_shape.array.shape} must have the same rank")
    if np.any(shape < st.dense_shape.array):
        raise op_error("Condition x >= y did not hold element-wise: new_shape must be larger than the old shape",
                       "Assert")
    return sparse_of(st.indices, st.values, shape.astype(I64))


def fill_empty_rows(sp_input, default_value, name=None):
    """``sp_input`` with an entry ``[row, 0, ...] = default_value`` added in each row that has none.

    Returns
    -------
    tuple
        ``(filled SparseTensor, bool [rows] vector of the rows that were empty)``.
    """
    st = as_sparse(sp_input)
    shape = dense_shape_of(st)
    indices = st.indices.array
    if not shape:
        raise op_error("dense_shape must be a vector", "SparseFillEmptyRows")
    used = np.zeros(shape[0], bool)
    used[indices[:, 0]] = True
    empty = np.flatnonzero(~used)
    new_indices = np.zeros((empty.size, len(shape)), I64)
    new_indices[:, 0] = empty
    default = convert_to_tensor(default_value, dtype=st.dtype)
    if default.array.ndim:
        raise op_error("default_value must be a scalar", "SparseFillEmptyRows")
    fill = broadcast_to(default, [empty.size])
    all_indices = np.concatenate([indices, new_indices])
    order = np.argsort(all_indices[:, 0], kind="stable")
    values = take(call("Concat", st.values, fill, axis=0, tf_op="ConcatV2"), order)
    return sparse_of(all_indices[order], values, st.dense_shape), wrap(~used)


def concat(axis, sp_inputs, expand_nonconcat_dims=False, name=None):
    """The SparseTensors ``sp_inputs`` joined along ``axis`` (entries in row-major order).

    With ``expand_nonconcat_dims`` the other dims take the largest size among the inputs; otherwise
    they must agree (InvalidArgumentError).
    """
    inputs = [as_sparse(s, "sp_inputs") for s in sp_inputs]
    shapes = [np.array(dense_shape_of(s), I64) for s in inputs]
    rank = shapes[0].size
    if any(s.size != rank for s in shapes):
        raise op_error("Ranks of all input tensors must match", "SparseConcat")
    axis = int(axis)
    if not -rank <= axis < rank:
        raise op_error(f"Concat dimension must be in range [{-rank}, {rank}), got {axis}", "SparseConcat")
    axis %= rank
    dtypes = {s.values.array.dtype for s in inputs}
    if len(dtypes) > 1:
        raise TypeError(f"Tensors in list passed to 'values' of 'SparseConcat' Op have types "
                        f"[{', '.join(s.dtype.name for s in inputs)}] that don't all match.")
    others = [np.delete(s, axis) for s in shapes]
    if not expand_nonconcat_dims:
        for i, other in enumerate(others[1:], 1):
            if np.any(other != others[0]):
                d = int(np.flatnonzero(other != others[0])[0])
                d += d >= axis
                raise op_error(f"Input shapes must match: expected {shapes[0][d]} for dimension {d} but got "
                               f"{shapes[i][d]} at position {i}", "SparseConcat")
    offsets = np.cumsum([0] + [int(s[axis]) for s in shapes])
    shifted = []
    for s, offset in zip(inputs, offsets):
        idx = s.indices.array.copy()
        idx[:, axis] += offset
        shifted.append(idx)
    out_shape = np.max(np.stack(shapes), axis=0)
    out_shape[axis] = offsets[-1]
    indices = np.concatenate(shifted)
    order = row_major_order(indices)
    values = call("Concat", *[s.values for s in inputs], axis=0, tf_op="ConcatV2")
    # TF's SparseConcat has no gradient: the values come out disconnected
    return sparse_of(indices[order], stop_gradient(take(values, order)), out_shape)


def expand_dims(sp_input, axis=None, name=None):
    """``sp_input`` with a new dim of size 1 at ``axis`` (default -1: the end)."""
    st = as_sparse(sp_input)
    rank = st.indices.array.shape[1]
    axis = -1 if axis is None else int(np.asarray(convert_to_tensor(axis).array))
    if not -(rank + 1) <= axis <= rank:
        raise op_error(f"Tried to expand dim index {axis} for tensor with {rank} dimensions.", "ExpandDims")
    axis %= rank + 1
    indices = np.insert(st.indices.array, axis, 0, axis=1)
    shape = np.insert(st.dense_shape.array, axis, 1)
    return sparse_of(indices, st.values, shape.astype(I64))


def transpose(sp_input, perm=None, name=None):
    """``sp_input`` with its dims permuted by ``perm`` (default reversed), entries reordered row-major."""
    st = as_sparse(sp_input)
    rank = st.indices.array.shape[1]
    perm = list(range(rank))[::-1] if perm is None else [int(p) for p in np.asarray(convert_to_tensor(perm).array)]
    if sorted(p % rank if rank else p for p in perm) != list(range(rank)) or len(perm) != rank:
        raise op_error(f"transpose expects a vector of size {rank}. But input(1) is a vector of size {len(perm)}"
                       if len(perm) != rank else f"{perm} is not a valid permutation", "Transpose")
    indices = st.indices.array[:, perm]
    order = row_major_order(indices)
    return sparse_of(indices[order], take(st.values, order), st.dense_shape.array[perm])


def eye(num_rows, num_columns=None, dtype=_dtypes.float32, name=None):
    """The ``num_rows x num_columns`` identity as a SparseTensor (ones on the diagonal)."""
    rows = int(np.asarray(convert_to_tensor(num_rows).array))
    columns = rows if num_columns is None else int(np.asarray(convert_to_tensor(num_columns).array))
    diagonal = np.arange(min(rows, columns), dtype=I64)
    ones = wrap(np.ones(diagonal.size, _dtypes.as_dtype(dtype).np))
    return sparse_of(np.stack([diagonal, diagonal], axis=1), ones, np.array([rows, columns], I64))


def map_values(op, *args, **kwargs):  # noqa: A002  (TF's argument name)
    """``op`` applied to the values of the SparseTensors among ``args``/``kwargs`` (which must share their
    indices and dense shape); returns a SparseTensor with those indices."""
    found = []

    def unwrap(x):
        if isinstance(x, SparseTensor):
            found.append(x)
            return x.values
        if isinstance(x, (list, tuple)):
            return type(x)(unwrap(v) for v in x)
        if isinstance(x, dict):
            return {k: unwrap(v) for k, v in x.items()}
        return x

    new_args = unwrap(list(args))
    new_kwargs = unwrap(kwargs)
    if not found:
        raise ValueError("No SparseTensor in argument list of map_values")
    first = found[0]
    for other in found[1:]:
        if not (np.array_equal(other.dense_shape.array, first.dense_shape.array)
                and np.array_equal(other.indices.array, first.indices.array)):
            raise op_error("Inputs must have identical indices and dense shapes.", "AssertEqual")
    return sparse_of(first.indices, convert_to_tensor(op(*new_args, **new_kwargs)), first.dense_shape)


def mask(a, mask_indices, name=None):
    """The IndexedSlices ``a`` without the rows whose index is in ``mask_indices``."""
    indices = convert_to_tensor(a.indices)
    drop = np.isin(indices.array, np.asarray(convert_to_tensor(mask_indices).array))
    keep = np.flatnonzero(~drop)
    return IndexedSlices(take(a.values, keep), wrap(indices.array[keep]), a.dense_shape)


# -- operators -----------------------------------------------------------------------------------------------------
def _dense_operand(st, other, tf_op):
    """The entries of the dense ``other`` (broadcast to ``st``'s dense shape) at ``st``'s indices."""
    shape = dense_shape_of(st)
    dense = convert_to_tensor(other, dtype=st.dtype)
    if tf_op == "SparseDenseCwiseDiv" and not np.all(dense.array):
        raise op_error("SparseDenseCwiseDiv cannot divide by zero,but input dense tensor contains zero ", tf_op)
    dims = dense.array.shape
    lead = len(shape) - len(dims)
    if lead < 0 or any(d not in (1, s) for d, s in zip(dims, shape[lead:])):
        raise op_error(f"SparseDenseBinaryOpShared broadcasts dense to sparse only; got incompatible shapes: "
                       f"[{','.join(map(str, shape))}] vs. [{','.join(map(str, dims))}]", tf_op)
    if not dims:
        return dense  # a scalar: it broadcasts in the elementwise op
    where = st.indices.array[:, lead:] * (np.array(dims, I64) != 1)
    return call("GatherND", dense, where, batch_dims=0, tf_op="GatherNd")


def _sparse_multiply(self, other):
    """``sparse * dense``: the product at the stored entries (the dense side broadcasts to the sparse shape)."""
    return sparse_of(self.indices, multiply(self.values, _dense_operand(self, other, "SparseDenseCwiseMul")),
                     self.dense_shape)


def _sparse_truediv(self, other):
    """``sparse / dense``: the quotient at the stored entries (integers divide as floats, as ``tf.truediv``)."""
    values = self.values
    if values.array.dtype not in FLOATS:
        wide = np.dtype(np.float64) if values.array.dtype.itemsize > 2 else np.dtype(np.float32)
        dense = _dense_operand(self, other, "SparseDenseCwiseDiv")
        return sparse_of(self.indices, truediv(cast(values, wide), cast(dense, wide)), self.dense_shape)
    return sparse_of(self.indices, truediv(values, _dense_operand(self, other, "SparseDenseCwiseDiv")),
                     self.dense_shape)


SparseTensor.__mul__ = _sparse_multiply
SparseTensor.__truediv__ = _sparse_truediv
SparseTensor.__div__ = _sparse_truediv

NAMESPACES = {"sparse": ["from_dense", "to_dense", "to_indicator", "reorder", "reshape", "slice", "split", "retain",
                         "reset_shape", "fill_empty_rows", "concat", "expand_dims", "transpose", "eye", "map_values",
                         "mask"]}
TENSOR_METHODS = {}
