"""tf.sets: ``intersection``, ``union``, ``difference`` and ``size`` of the sets along the last dimension.

A dense input of shape ``[..., n]`` holds one set per leading position (its ``n`` entries, repeats counted once); a
SparseTensor holds the stored values of each leading position. The results are SparseTensors of shape
``[..., max set size]`` (TF's DenseToDense/DenseToSparse/SparseToSparseSetOperation): each set's elements sorted
ascending in row-major order. ``size`` takes a SparseTensor only and returns int32 counts of distinct values.

The bookkeeping is numpy, vectorised: every element becomes an integer key ``row * U + code`` (``code`` its rank
among the ``U`` distinct values of both inputs, so keys sort as (row, value) and strings work too), and the set
algebra is numpy's on the key arrays. Like every sparse op here these run eagerly only (no gradient: TF has none).
"""

import numpy as np

from vfw.frontends.tensorflow import _dtypes
from vfw.frontends.tensorflow._dispatch import convert_to_tensor, op_error, wrap
from vfw.frontends.tensorflow._sparse_tensor import SparseTensor, refuse_in_graph

_VALID_DTYPES = frozenset([_dtypes.int8, _dtypes.int16, _dtypes.int32, _dtypes.int64, _dtypes.uint8, _dtypes.uint16,
                           _dtypes.string])


def _valid_dtypes_text():
    return "frozenset({" + ", ".join(f"tf.{d.name}" for d in _VALID_DTYPES) + "})"


def _as_set_input(value):
    return value if isinstance(value, SparseTensor) else convert_to_tensor(value)


def _dtype_of(value):
    return value.values.dtype if isinstance(value, SparseTensor) else value.dtype


class _Elements:
    """One input's elements: ``rows`` (flat leading position of each element), ``values``, and the leading
    shape."""

    def __init__(self, value, tf_op, validate_indices):
        if isinstance(value, SparseTensor):
            indices = np.asarray(value.indices.array, np.int64)
            shape = tuple(int(d) for d in np.asarray(value.dense_shape.array))
            _check_rank(shape, tf_op)
            if validate_indices:
                _check_indices(indices, shape, tf_op)
            self.leading = shape[:-1]
            self.rows = np.ravel_multi_index(tuple(indices[:, :-1].T), self.leading) if indices.size else \
                np.zeros(len(indices), np.int64)
            self.values = value.values.array
        else:
            array = value.array
            _check_rank(array.shape, tf_op)
            self.leading = array.shape[:-1]
            self.rows = np.repeat(np.arange(int(np.prod(self.leading)), dtype=np.int64), array.shape[-1])
            self.values = array.reshape(-1)


def _check_rank(shape, tf_op):
    if len(shape) < 2:
        raise op_error(f"Shape [{','.join(str(d) for d in shape)}] has rank {len(shape)} < 2", tf_op)


def _check_indices(indices, shape, tf_op):
    """TF's validation of a set operand's indices: within ``shape`` and strictly increasing in row-major order."""
    outside = (indices < 0) | (indices >= np.asarray(shape, np.int64))
    if outside.any():
        k = int(np.flatnonzero(outside.any(axis=1))[0])
        raise op_error(f"indices[{k}] = [{','.join(map(str, indices[k]))}] is out of bounds: need 0 <= index < "
                       f"[{','.join(map(str, shape))}]", tf_op)
    if len(indices) < 2:
        return
    flat = np.ravel_multi_index(tuple(indices.T), shape)
    step = np.diff(flat)
    if (step <= 0).any():
        k = int(np.flatnonzero(step <= 0)[0]) + 1
        problem = "is repeated" if step[k - 1] == 0 else "is out of order. Many sparse ops require sorted indices.\n" \
            "    Use `tf.sparse.reorder` to create a correctly ordered copy.\n\n"
        raise op_error(f"indices[{k}] = [{','.join(map(str, indices[k]))}] {problem}", tf_op)


def _keys(rows, codes, distinct):
    return np.unique(rows * distinct + codes)


def _sparse_result(keys, distinct, uniques, leading, dtype):
    """The SparseTensor of the sorted element keys: each row's elements at columns 0, 1, ..."""
    rows = keys // max(distinct, 1)
    values = uniques[keys % max(distinct, 1)] if len(keys) else uniques[:0]
    starts = np.searchsorted(rows, rows, side="left")
    columns = np.arange(len(keys), dtype=np.int64) - starts
    width = int(np.bincount(rows).max()) if len(keys) else 0
    leading_index = np.stack(np.unravel_index(rows, leading), axis=1) if leading else np.zeros((len(keys), 0))
    indices = np.concatenate([leading_index.astype(np.int64), columns[:, None]], axis=1)
    dense_shape = np.asarray(tuple(leading) + (width,), np.int64)
    return SparseTensor._from_parts(wrap(indices), wrap(np.asarray(values, dtype.np)), wrap(dense_shape))


def _set_operation(a, b, operation, validate_indices):
    refuse_in_graph(f"tf.sets.{operation}")
    a_sparse, b_sparse = isinstance(a, SparseTensor), isinstance(b, SparseTensor)  # never Sparse,Dense
    tf_op = ("SparseToSparseSetOperation" if a_sparse else
             "DenseToSparseSetOperation" if b_sparse else "DenseToDenseSetOperation")
    first, second = _Elements(a, tf_op, validate_indices), _Elements(b, tf_op, validate_indices)
    if first.leading != second.leading:
        def text(shape):
            return "[" + ",".join(str(d) for d in shape) + "]"
        raise op_error(f"Mismatched shapes {text(first.leading)} vs {text(second.leading)}", tf_op)
    uniques, codes = np.unique(np.concatenate([first.values, second.values]), return_inverse=True)
    codes = codes.reshape(-1)
    distinct = len(uniques)
    keys_a = _keys(first.rows, codes[:len(first.values)], distinct)
    keys_b = _keys(second.rows, codes[len(first.values):], distinct)
    combine = {"intersection": np.intersect1d, "union": np.union1d, "a-b": np.setdiff1d,
               "b-a": lambda x, y: np.setdiff1d(y, x)}[operation]
    keys = combine(keys_a, keys_b).astype(np.int64)
    return _sparse_result(keys, distinct, uniques, first.leading, _dtype_of(a))


def _operands(a, b):
    """Both operands converted and dtype-checked as TF's; a Dense,Sparse pair is reordered (``flipped`` True)."""
    a = _as_set_input(a)
    if _dtype_of(a) not in _VALID_DTYPES:
        raise TypeError(f"'a' has invalid dtype `{_dtype_of(a)!r}` not in supported dtypes: `{_valid_dtypes_text()}`.")
    b = _as_set_input(b)
    if _dtype_of(b) != _dtype_of(a):
        raise TypeError(f"Types don't match, {_dtype_of(a)!r} vs {_dtype_of(b)!r}.")
    if isinstance(a, SparseTensor) and not isinstance(b, SparseTensor):
        return b, a, True
    return a, b, False


def intersection(a, b, validate_indices=True):
    """Intersection of the sets in the last dimension of ``a`` and ``b`` (dense Tensors or SparseTensors of
    int8/16/32/64, uint8/16 or string, same leading shape), as a SparseTensor of sorted elements.

    Returns
    -------
    SparseTensor
        Shape ``[..., max result set size]``, int64 indices in row-major order, each set's values ascending.
    """
    a, b, _ = _operands(a, b)
    return _set_operation(a, b, "intersection", validate_indices)


def union(a, b, validate_indices=True):
    """Union of the sets in the last dimension of ``a`` and ``b`` (see ``intersection``)."""
    a, b, _ = _operands(a, b)
    return _set_operation(a, b, "union", validate_indices)


def difference(a, b, aminusb=True, validate_indices=True):
    """``a - b`` (``b - a`` when ``aminusb`` is False) of the sets in the last dimension (see ``intersection``)."""
    a, b, flipped = _operands(a, b)
    if flipped:
        aminusb = not aminusb
    return _set_operation(a, b, "a-b" if aminusb else "b-a", validate_indices)


def size(a, validate_indices=True):
    """Number of distinct values in each set of SparseTensor ``a`` (int32, shape ``dense_shape[:-1]``)."""
    if not isinstance(a, SparseTensor):
        raise TypeError(f"Expected `SparseTensor`, got {a}.")
    if a.values.dtype not in _VALID_DTYPES:
        raise TypeError(f"Invalid dtype `{a.values.dtype!r}` not in supported dtypes: `{_valid_dtypes_text()}`.")
    refuse_in_graph("tf.sets.size")
    elements = _Elements(a, "SetSize", validate_indices)
    _, codes = np.unique(elements.values, return_inverse=True)
    rows = _keys(elements.rows, codes.reshape(-1), len(codes)) // max(len(codes), 1)
    counts = np.bincount(rows, minlength=int(np.prod(elements.leading))).astype(np.int32)
    return wrap(counts.reshape(elements.leading))


NAMESPACES = {"sets": ["intersection", "union", "difference", "size"]}
