"""The feature specs ``tf.io.FixedLenSequenceFeature`` and ``tf.io.SparseFeature``, and how an Example parser
(``_io_ops``) reads them; ``feature_values(example, key, dtype)`` is that parser's reader of one feature's values
(a 1-D array, None when absent; its errors for a feature of another kind).

- ``FixedLenSequenceFeature(shape, dtype, allow_missing=True, default_value)`` in an Example: the feature's values
  as rows of ``shape``, ``[rows, *shape]`` (a batch padded with ``default_value``, else zeros, to the most rows).
- ``SparseFeature(index_key, value_key, dtype, size)``: a SparseTensor of dense shape ``size`` whose indices are
  the int64 features ``index_key`` (one per dimension) and values the feature ``value_key``, sorted by index
  unless ``already_sorted`` (TF keeps indices beyond ``size`` too).
"""

import collections

import numpy as np

from vfw.frontends.tensorflow import _dtypes
from vfw.frontends.tensorflow._dispatch import op_error
from vfw.frontends.tensorflow._shape import TensorShape
from vfw.frontends.tensorflow._sparse_tensor import SparseTensor

FixedLenSequenceFeature = collections.namedtuple("FixedLenSequenceFeature",
                                                 ["shape", "dtype", "allow_missing", "default_value"],
                                                 defaults=[False, None])
SparseFeature = collections.namedtuple("SparseFeature", ["index_key", "value_key", "dtype", "size", "already_sorted"],
                                       defaults=[False])

_VALUE_NAMES = {"string": "bytes", "float32": "float", "int64": "int64"}


def numpy_dtype(dtype):
    """The numpy dtype of parsed values of DType ``dtype`` (object for strings)."""
    return object if dtype == _dtypes.string else dtype.as_numpy_dtype


def padded(rows, shape, dtype, fill):
    """``rows`` (arrays ``[n_i, *shape]``) stacked into ``[len(rows), max n_i, *shape]``, the rest ``fill``."""
    longest = max((len(r) for r in rows), default=0)
    out = np.empty((len(rows), longest, *shape), numpy_dtype(dtype))
    out[...] = fill
    for i, row in enumerate(rows):
        out[i, :len(row)] = row
    return out


def check_example_spec(key, spec):
    """TF's ValueError for a spec an Example cannot be parsed with."""
    if isinstance(spec, FixedLenSequenceFeature) and not spec.allow_missing:
        raise ValueError("Unsupported: FixedLenSequenceFeature requires allow_missing to be True.")


def example_sequence(examples, key, spec, feature_values, tf_op):
    """The ``FixedLenSequenceFeature`` ``key`` of every example: ``[len(examples), rows, *shape]``."""
    dtype = _dtypes.as_dtype(spec.dtype)
    shape = tuple(TensorShape(spec.shape).as_list())
    stride = int(np.prod(shape, dtype=np.int64))
    rows = []
    for index, example in enumerate(examples):
        values = feature_values(example, key, dtype)
        values = np.zeros(0, numpy_dtype(dtype)) if values is None else values
        if stride == 0 and values.size or stride and values.size % stride:
            shown = ",".join(["?", *map(str, shape)])
            raise op_error(f"Name: <unknown>, Key: {key}, Index: {index}.  Number of {_VALUE_NAMES[dtype.name]} "
                           f"values is not a multiple of stride length. Saw {values.size} values but output shape "
                           f"is: [{shown}]", tf_op)
        rows.append(values.reshape((-1 if stride else 0, *shape)))
    fill = spec.default_value if spec.default_value is not None else (b"" if dtype == _dtypes.string else 0)
    return padded(rows, shape, dtype, fill)


def _index_keys(spec):
    return [spec.index_key] if isinstance(spec.index_key, str) else list(spec.index_key)


def example_sparse(examples, spec, batched, feature_values):
    """The ``SparseFeature`` of the examples as a SparseTensor (``[batch, *size]``, or ``size``)."""
    dtype = _dtypes.as_dtype(spec.dtype)
    keys = _index_keys(spec)
    size = [int(n) for n in np.atleast_1d(np.asarray(spec.size, np.int64))]
    all_indices, all_values = [], []
    for b, example in enumerate(examples):
        values = feature_values(example, spec.value_key, dtype)
        values = np.zeros(0, numpy_dtype(dtype)) if values is None else values
        columns = []
        for key in keys:
            column = feature_values(example, key, _dtypes.int64)
            column = np.zeros(0, np.int64) if column is None else column
            if column.size != values.size:
                raise ValueError(f"Dimensions {column.size} and {values.size} are not compatible")
            columns.append(column)
        indices = np.stack(columns, axis=1) if columns else np.zeros((values.size, 0), np.int64)
        if not spec.already_sorted and len(values):
            order = np.lexsort(indices.T[::-1])
            indices, values = indices[order], values[order]
        all_indices.append(np.concatenate([np.full((len(values), 1), b, np.int64), indices], axis=1))
        all_values.append(values)
    indices = np.concatenate(all_indices) if all_indices else np.zeros((0, len(keys) + 1), np.int64)
    values = np.concatenate(all_values) if all_values else np.zeros(0, numpy_dtype(dtype))
    if batched:
        return SparseTensor(indices, values, [len(examples), *size])
    return SparseTensor(np.ascontiguousarray(indices[:, 1:]), values, size)


NAMESPACES = {"io": ["FixedLenSequenceFeature", "SparseFeature"]}
TENSOR_METHODS = {}
