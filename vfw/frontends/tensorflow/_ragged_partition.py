"""More ways to build a ``tf.RaggedTensor`` from a row partition (row starts, row limits, nested value row ids),
``with_row_splits_dtype`` and the tensor-protocol leftovers (a mixin of ``RaggedTensor``)."""

import numpy as np

from vfw.frontends.tensorflow import _dtypes
from vfw.frontends.tensorflow._dispatch import convert_to_tensor, op_error
from vfw.frontends.tensorflow._shape import TensorShape


def _partition(name, partition, values, build_splits, validate):
    """The int64 row splits ``build_splits(positions, nvals)`` makes of the rank-1 ``partition``, checked like TF
    (InvalidArgumentError naming ``name`` when they do not cut ``values`` into rows)."""
    positions = convert_to_tensor(partition, dtype_hint=_dtypes.int64).array
    TensorShape(positions.shape).with_rank(1)
    nvals = values.nrows().array if hasattr(values, "nrows") else values.array.shape[0]
    splits = build_splits(positions.astype(np.int64), int(nvals))
    if validate and (splits[0] != 0 or splits[-1] != nvals or np.any(np.diff(splits) < 0)):
        raise op_error(f"Arguments to {name} do not form a valid RaggedTensor")
    return splits


class RowPartitionConstructors:
    """``from_row_starts``, ``from_row_limits``, ``from_nested_value_rowids``, ``with_row_splits_dtype``,
    ``get_shape`` and ``consumers``.

    Mixed into ``RaggedTensor``, which provides ``from_row_splits``, ``from_value_rowids`` and ``shape``.  vfw
    keeps row partitions as int64 (TF keeps int32 ones as int32: their ``row_splits`` read int64 here).
    """

    @classmethod
    def from_row_starts(cls, values, row_starts, name=None, validate=True):
        """The ragged tensor whose row ``i`` starts at ``values[row_starts[i]]`` (and ends where the next starts;
        the last at the end of ``values``)."""
        values = values if isinstance(values, cls) else convert_to_tensor(values)
        splits = _partition("from_row_starts", row_starts, values,
                            lambda starts, nvals: np.append(starts, nvals), validate)
        return cls.from_row_splits(values, splits, validate=False)

    @classmethod
    def from_row_limits(cls, values, row_limits, name=None, validate=True):
        """The ragged tensor whose row ``i`` ends before ``values[row_limits[i]]`` (and starts where the previous
        one ends; the first at 0)."""
        values = values if isinstance(values, cls) else convert_to_tensor(values)
        splits = _partition("_from_row_partition", row_limits, values,
                            lambda limits, nvals: np.concatenate([[0], limits]).astype(np.int64), validate)
        return cls.from_row_splits(values, splits, validate=False)

    @classmethod
    def from_nested_value_rowids(cls, flat_values, nested_value_rowids, nested_nrows=None, name=None,
                                 validate=True):
        """``flat_values`` grouped by each of ``nested_value_rowids`` in turn (outermost first), with
        ``nested_nrows[i]`` rows at level ``i`` (default: one past the largest id)."""
        if not isinstance(nested_value_rowids, (list, tuple)):
            raise TypeError(f"Argument `nested_value_rowids` must be a list of Tensors. Received "
                            f"{nested_value_rowids}.")
        if nested_nrows is None:
            nested_nrows = [None] * len(nested_value_rowids)
        elif len(nested_nrows) != len(nested_value_rowids):
            raise ValueError(f"Argument `nested_nrows` must have the same length as argument "
                             f"`nested_value_rowids`. len(nested_nrows) = {len(nested_nrows)} vs. "
                             f"len(nested_values_rowids) = {len(nested_value_rowids)}.")
        result = flat_values
        for rowids, nrows in reversed(list(zip(nested_value_rowids, nested_nrows))):
            result = cls.from_value_rowids(result, rowids, nrows, validate=validate)
        return result

    def with_row_splits_dtype(self, dtype):
        """This ragged tensor with ``dtype`` (int32 or int64) row partitions: vfw's stay int64."""
        dtype = _dtypes.as_dtype(dtype)
        if dtype not in (_dtypes.int32, _dtypes.int64):
            raise ValueError(f"Argument `row_splits` dtype must be int32 or int64. Received {dtype}.")
        return self

    def get_shape(self):
        """TensorShape: the static shape (``shape``: None for ragged dimensions)."""
        return self.shape

    def consumers(self):
        """list: the ops reading this tensor in a graph (none in eager mode, as TF)."""
        return []
