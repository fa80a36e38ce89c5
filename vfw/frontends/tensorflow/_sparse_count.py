"""tf.sparse.bincount: counts (or weight sums) of non-negative integers as a SparseTensor.

``values`` is a dense Tensor, a SparseTensor (its stored values) or a RaggedTensor (its flat values); ``axis=0``
counts all of them into one vector, ``axis=-1`` each row of a 2-D input into one row of a ``[rows, size]`` matrix
(TF's Dense/Sparse/RaggedCountSparseOutput). ``size`` is ``maxlength`` when given (larger values are dropped), else
``max(values) + 1`` (1 when empty) raised to ``minlength``. Only the non-zero bins are stored, in row-major order.
Eager only, as every sparse op here (no gradient: TF has none).
"""

import numpy as np

from vfw.frontends.tensorflow._dispatch import convert_to_tensor, op_error, wrap
from vfw.frontends.tensorflow._op_support import OpTypes, shape_text
from vfw.frontends.tensorflow._ragged import RaggedTensor
from vfw.frontends.tensorflow._sparse_tensor import SparseTensor, refuse_in_graph


def _types(tf_op):
    return (OpTypes(tf_op, "int32 int64"), OpTypes(tf_op, "int32 int64 float32 float64"))


def _entries(values, weights, axis, tf_op):
    """``(rows, values, weights or None, leading shape)`` of the counted elements (``rows`` all 0 for axis 0)."""
    if isinstance(values, SparseTensor):
        shape = tuple(int(d) for d in np.asarray(values.dense_shape.array))
        rows = np.asarray(values.indices.array[:, 0]) if len(shape) == 2 and axis == -1 else None
        flat, weight_array = values.values.array, None if weights is None else weights.values.array
    elif isinstance(values, RaggedTensor):
        shape = (int(values.nrows().array), None)
        rows = np.asarray(values.value_rowids().array) if axis == -1 else None
        flat = values.flat_values.array
        weight_array = None if weights is None else weights.flat_values.array
    else:
        array = values.array
        shape = array.shape if axis == -1 else (array.size,)
        if axis == -1 and array.ndim > 2:
            raise op_error(f"Input must be a 1 or 2-dimensional tensor. Got: {shape_text(array.shape)}", tf_op)
        rows = np.repeat(np.arange(shape[0]), shape[1]) if len(shape) == 2 else None
        flat = array.reshape(-1)
        weight_array = None if weights is None else weights.array
        if weight_array is not None and weight_array.shape != array.shape:
            raise op_error(f"Weights and data must have the same shape. Weight shape: "
                            f"{shape_text(weight_array.shape)}; data shape: {shape_text((array.size,))}", tf_op)
    leading = shape[:1] if rows is not None else ()
    rows = np.zeros(flat.shape, np.int64) if rows is None else rows.astype(np.int64)
    return rows, flat.astype(np.int64), None if weight_array is None else weight_array.reshape(-1), leading


def _converted(value):
    if value is None or isinstance(value, (SparseTensor, RaggedTensor)):
        return value
    return convert_to_tensor(value)


def _dtype_of(value):
    return value.values.array.dtype if isinstance(value, SparseTensor) else (
        value.flat_values.array.dtype if isinstance(value, RaggedTensor) else value.array.dtype)


def bincount(values, weights=None, axis=0, minlength=None, maxlength=None, binary_output=False, name=None):
    """Count each non-negative integer of ``values`` (or sum its ``weights``), as a SparseTensor.

    Parameters
    ----------
    values : int32/int64 Tensor, SparseTensor or RaggedTensor
    weights : same kind and shape as ``values``, int32/int64/float32/float64, optional
        Summed per bin instead of counting; the result takes their dtype.
    axis : 0 or -1
        0: one count vector over all values; -1: one per row of a 2-D ``values``.
    minlength, maxlength : int, optional
    binary_output : bool
        Bins hold 1 where a value occurs (exclusive with ``weights``).

    Returns
    -------
    SparseTensor
        ``[size]`` (axis 0) or ``[rows, size]`` (axis -1).
    """
    if axis not in (0, -1):
        raise ValueError(f"Unsupported value for argument axis={axis}. Only 0 and -1 are currently supported.")
    if binary_output and weights is not None:
        raise ValueError("Arguments `binary_output` and `weights` are mutually exclusive. Please specify only one.")
    refuse_in_graph("tf.sparse.bincount")
    values, weights = _converted(values), _converted(weights)
    tf_op = ("SparseCountSparseOutput" if isinstance(values, SparseTensor) else
             "RaggedCountSparseOutput" if isinstance(values, RaggedTensor) else "DenseCountSparseOutput")
    value_types, weight_types = _types(tf_op)
    value_types.check(_dtype_of(values))
    out_dtype = _dtype_of(values) if weights is None else _dtype_of(weights)
    if weights is not None:
        weight_types.check(out_dtype)
    rows, flat, weight_array, leading = _entries(values, weights, axis, tf_op)
    if (flat < 0).any():
        raise op_error("Input values must all be non-negative", tf_op)
    if maxlength is not None:
        size = int(maxlength)
    else:
        size = max(int(flat.max()) + 1 if flat.size else 1, int(minlength or 0))
    kept = flat < size
    keys = rows[kept] * size + flat[kept]
    unique_keys, inverse = np.unique(keys, return_inverse=True)
    if binary_output:
        sums = np.ones(len(unique_keys), out_dtype)
    elif weight_array is None:
        sums = np.bincount(inverse.reshape(-1), minlength=len(unique_keys)).astype(out_dtype)
    else:
        sums = np.zeros(len(unique_keys), out_dtype)
        np.add.at(sums, inverse.reshape(-1), weight_array[kept])
    columns = [unique_keys // size] if leading else []
    indices = np.stack(columns + [unique_keys % size], axis=1) if len(unique_keys) else \
        np.zeros((0, len(leading) + 1), np.int64)
    dense_shape = np.asarray(tuple(leading) + (size,), np.int64)
    return SparseTensor._from_parts(wrap(indices.astype(np.int64)), wrap(sums), wrap(dense_shape))


NAMESPACES = {"sparse": ["bincount"]}
