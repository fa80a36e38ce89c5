"""Sorting and searching: sort, argsort, unique, unique_with_counts, searchsorted.

``sort``/``argsort`` run the engine's TopK over the whole axis (stable: ties keep their order in
both directions, as TF's results show), which also gives ``sort`` TF's gradient (the output
gradient scattered back to where each value came from). ``unique`` and ``searchsorted`` give
integer results TF does not differentiate; they compute in numpy (a PyFunc op under a trace).
"""

import collections

import numpy as np

from vfw.core.graph.trace import _active as _tracing
from vfw.frontends.tensorflow import _dtypes, _traced_shapes
from vfw.frontends.tensorflow._dispatch import call, convert_to_tensor, host, op_error
from vfw.frontends.tensorflow._op_support import I64, INDEX_DTYPES, int64s, same_dtype

_DIRECTIONS = ("ASCENDING", "DESCENDING")
_SORTABLE = {"bfloat16", "float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "uint16",
             "uint32", "uint64"}

Unique = collections.namedtuple("Unique", ["y", "idx"])
UniqueWithCounts = collections.namedtuple("UniqueWithCounts", ["y", "idx", "count"])


def _top(values, axis, direction):
    """(sorted values, int64 positions) of ``values`` along ``axis`` (TopK over the whole axis)."""
    if direction not in _DIRECTIONS:
        raise ValueError(f"Argument `direction` should be one of {', '.join(_DIRECTIONS)}. Received: "
                         f"direction={direction}")
    x = convert_to_tensor(values)
    rank = x.array.ndim
    if not -rank <= axis < rank:
        raise op_error(f"slice index {axis if axis >= 0 else axis + rank} of dimension 0 out of bounds.",
                       "StridedSlice")
    dtype = _dtypes.of_array(x.array)
    if dtype.name not in _SORTABLE:
        raise op_error(f"Value for attr 'T' of {dtype.name} is not in the list of allowed values: bfloat16, half, "
                       "float, double, int8, int16, int32, int64, complex64, complex128", "Neg")
    axis %= rank
    k = _traced_shapes.dim_of(x, axis)  # (the whole axis: inside tf.function, that of each call)
    return call("TopK", x, k, axis=axis, largest=int(direction == "DESCENDING"), sorted=1, tf_op="TopKV2")


def sort(values, axis=-1, direction="ASCENDING", name=None):
    """``values`` sorted along ``axis`` (differentiable: the gradient flows back to each value's place)."""
    return _top(values, axis, direction)[0]


def argsort(values, axis=-1, direction="ASCENDING", stable=False, name=None):
    """int32 positions that sort ``values`` along ``axis`` (ties in their original order)."""
    positions = _top(values, axis, direction)[1]
    return call("Cast", positions, to=np.dtype(np.int32), tf_op="Cast")


def _out_index(out_idx, tf_op):
    dtype = _dtypes.as_dtype(out_idx)
    if dtype.np not in INDEX_DTYPES:
        raise op_error(f"Value for attr 'out_idx' of {dtype.name} is not in the list of allowed values: int32, int64",
                       tf_op)
    return dtype.np


def _unique_arrays(x, index_dtype):
    """(unique values in order of first occurrence, index of each entry's value, counts); each NaN is its own value."""
    n = x.shape[0]
    key = x
    if x.dtype.kind == "f":  # NaNs never compare equal in TF: give each its own key after every real value
        nan = np.isnan(x)
        if nan.any():
            codes, inverse = np.unique(np.where(nan, 0, x), return_inverse=True)
            key = np.where(nan, codes.size + np.cumsum(nan), inverse.reshape(-1))
    _, first, inverse, counts = np.unique(key, return_index=True, return_inverse=True, return_counts=True)
    order = np.argsort(first, kind="stable")
    rank = np.empty(order.size, np.int64)
    rank[order] = np.arange(order.size)
    idx = rank[inverse.reshape(-1)] if n else np.zeros(0, np.int64)
    return x[first[order]], idx.astype(index_dtype), counts[order].astype(index_dtype)


def _unique(x, out_idx, tf_op):
    x = convert_to_tensor(x)
    index_dtype = _out_index(out_idx, tf_op)
    if x.array.ndim != 1:
        raise op_error("unique expects a 1D vector.", tf_op)
    if _tracing and x.array.dtype.kind in "biu":  # the engine's Unique, which ONNX export takes (floats: see below)
        # (as int64, which onnxruntime's Unique takes, where it has no int32 kernel)
        keys = x if x.array.dtype == I64 else call("Cast", x, to=I64)
        y, _, idx, counts = call("Unique", keys, sorted=0, tf_op=tf_op)  # in order of first occurrence, as TF's
        y = y if x.array.dtype == I64 else call("Cast", y, to=x.array.dtype)
        if index_dtype != I64:
            idx, counts = call("Cast", idx, to=index_dtype), call("Cast", counts, to=index_dtype)
    else:  # (each float NaN is a value of its own in TF, where Unique makes one of all NaNs)
        y, idx, counts = host(lambda a: _unique_arrays(a, index_dtype), x)
    if _traced_shapes.varies(x):  # how many distinct values follows each call's values
        _traced_shapes.value_shaped(y)
        _traced_shapes.value_shaped(counts)
    return y, idx, counts


def unique(x, out_idx=_dtypes.int32, name=None):
    """``(y, idx)``: the distinct values of the 1-D ``x`` in order of first occurrence, and ``x == y[idx]``."""
    y, idx, _ = _unique(x, out_idx, "Unique")
    return Unique(y, idx)


def unique_with_counts(x, out_idx=_dtypes.int32, name=None):
    """``(y, idx, count)``: ``unique`` and how many times each value occurs."""
    return UniqueWithCounts(*_unique(x, out_idx, "UniqueWithCounts"))


def _search(sorted_rows, values, right):
    """Insertion points of each row of ``values`` into the matching row of ``sorted_rows`` (numpy, vectorized)."""
    n, m = sorted_rows.shape[-1], values.shape[-1]
    if not (n and values.size):  # nothing to search in (every place is 0) or nothing to search
        return np.zeros(values.shape, I64)
    rows = sorted_rows.reshape(-1, n)
    queries = values.reshape(-1, m)
    side = "right" if right else "left"
    if rows.shape[0] == 1:
        found = np.searchsorted(rows[0], queries[0], side)[None]
    else:  # one search over (row, rank of value) keys: rows stay apart, order within a row is kept
        _, ranks = np.unique(np.concatenate([rows.reshape(-1), queries.reshape(-1)]), return_inverse=True)
        ranks = ranks.reshape(-1)
        width = ranks.max(initial=0) + 1
        offsets = np.arange(rows.shape[0], dtype=I64)[:, None] * width
        keys = (offsets + ranks[:rows.size].reshape(rows.shape)).reshape(-1)
        wanted = (offsets + ranks[rows.size:].reshape(queries.shape)).reshape(-1)
        found = (np.searchsorted(keys, wanted, side) - np.repeat(np.arange(rows.shape[0]) * n, m)).reshape(
            queries.shape)
    if values.dtype.kind == "f":  # a NaN compares false with everything: first place (left) or past the end (right)
        found = np.where(np.isnan(queries), n if right else 0, found)
    return found.reshape(values.shape)


def searchsorted(sorted_sequence, values, side="left", out_type=_dtypes.int32, name=None):
    """Where each of ``values`` would go in the sorted last dim of ``sorted_sequence`` to keep it sorted.

    Parameters
    ----------
    sorted_sequence : tensor ``[..., n]``, sorted along its last dim
    values : tensor ``[..., m]`` with the same leading dims
    side : {"left", "right"}
        Before (left) or after (right) equal entries.
    out_type : tf.int32 or tf.int64
    """
    if side not in ("left", "right"):
        raise ValueError(f"Argument `side` must be either 'right' or 'left'. Received: `side` = '{side}'.")
    tf_op = "UpperBound" if side == "right" else "LowerBound"
    s, v = convert_to_tensor(sorted_sequence), convert_to_tensor(values)
    index_dtype = _out_index(out_type, tf_op)
    same_dtype(tf_op, s, v)
    if s.array.ndim < 1 or v.array.ndim < 1:
        raise op_error("slice index -1 of dimension 0 out of bounds.", "StridedSlice")
    if int(np.prod(s.array.shape[:-1])) != int(np.prod(v.array.shape[:-1])):
        raise op_error("Leading dim_size of both tensors must match.", tf_op)
    if _tracing and s.array.shape[:-1] == v.array.shape[:-1] and s.array.size * v.array.shape[-1] <= _COMPARED:
        return _traced_search(s, v, side == "right", index_dtype)  # engine ops, which ONNX export takes
    return host(lambda a, b: _search(a, b, side == "right").astype(index_dtype), s, v)


_COMPARED = 1 << 24
"""The most entry-value pairs a traced ``searchsorted`` compares (their int64 flags: 128 MB); larger searches keep the
sorting host callback."""


def _traced_search(rows, values, right, index_dtype):
    """``searchsorted`` as engine ops, for rows and values of the same leading dims: the count of each row's entries
    below a value (left), or not above it (right, ``not value < entry``, which puts a NaN value past the end).

    It compares every entry with every value (``n * m`` per row), where the eager search sorts: the graph has no
    search op, and this is how ONNX can express it."""
    entries = call("Unsqueeze", rows, int64s([-2]), tf_op="ExpandDims")  # [..., 1, n]
    queries = call("Unsqueeze", values, int64s([-1]), tf_op="ExpandDims")  # [..., m, 1]
    before = call("Not", call("Less", queries, entries)) if right else call("Less", entries, queries)
    counts = call("ReduceSum", call("Cast", before, to=I64), int64s([-1]), keepdims=0, tf_op="Sum")
    return counts if index_dtype == I64 else call("Cast", counts, to=index_dtype)


NAMESPACES = {"tf": ["sort", "argsort", "unique", "unique_with_counts", "searchsorted"]}
TENSOR_METHODS = {}
