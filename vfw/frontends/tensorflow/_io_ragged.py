"""``tf.io.RaggedFeature``: a feature of ``tf.train.Example``s parsed into a ``tf.RaggedTensor``.

The feature's values (under ``value_key``, by default the feature's own key) are cut by its ``partitions``, innermost
(last) first: each partition but ``UniformRowLength`` names an int64 feature of the same Example holding row
splits, lengths, starts, limits or value row ids.  ``parse_single_example`` gives the values as a dense tensor when
there is no ragged partition; ``parse_example`` stacks the examples' results as the rows of a ragged tensor.
``_io_ops`` calls ``parsed_ragged`` for every ``RaggedFeature`` it is given.
"""

import collections

import numpy as np

from vfw.frontends.tensorflow import _dispatch, _dtypes
from vfw.frontends.tensorflow._dispatch import op_error
from vfw.frontends.tensorflow._ragged import RaggedTensor, _nrows_of, stack_rows

_PARTITION_KINDS = {
    "RowSplits": RaggedTensor.from_row_splits,
    "RowLengths": RaggedTensor.from_row_lengths,
    "RowStarts": lambda values, starts, validate: RaggedTensor.from_row_splits(
        values, np.append(starts, _nrows_of(values)), validate=validate),
    "RowLimits": lambda values, limits, validate: RaggedTensor.from_row_splits(
        values, np.insert(limits, 0, 0), validate=validate),
    "ValueRowIds": RaggedTensor.from_value_rowids,
}


class RaggedFeature(collections.namedtuple("RaggedFeature", ["dtype", "value_key", "partitions",
                                                               "row_splits_dtype", "validate"])):
    """A feature parsed into a ``tf.RaggedTensor``.

    Parameters
    ----------
    dtype : DType
        float32, int64 or string.
    value_key : str, optional
        The feature holding the values (the key this feature is parsed under by default).
    partitions : sequence
        ``RaggedFeature.RowSplits(key)``, ``RowLengths(key)``, ``RowStarts(key)``, ``RowLimits(key)``,
        ``ValueRowIds(key)`` (int64 features of the same Example) or ``UniformRowLength(length)``, outermost first.
    row_splits_dtype : DType
        int32 or int64 (vfw's ragged tensors keep int64 row splits whichever is given).
    validate : bool
        Whether to check the partitions (InvalidArgumentError when they do not fit the values).
    """

    __slots__ = ()

    RowSplits = collections.namedtuple("RowSplits", ["key"])
    RowLengths = collections.namedtuple("RowLengths", ["key"])
    RowStarts = collections.namedtuple("RowStarts", ["key"])
    RowLimits = collections.namedtuple("RowLimits", ["key"])
    ValueRowIds = collections.namedtuple("ValueRowIds", ["key"])
    UniformRowLength = collections.namedtuple("UniformRowLength", ["length"])

    def __new__(cls, dtype, value_key=None, partitions=(), row_splits_dtype=_dtypes.int32, validate=False):
        dtype = _dtypes.as_dtype(dtype)
        if dtype not in (_dtypes.int64, _dtypes.float32, _dtypes.string):
            raise ValueError(f"Argument `dtype` must be int64, float32, or bytes; got {dtype!r}")
        if value_key is not None:
            if not isinstance(value_key, str):
                raise ValueError(f"Argument `value_key` must be a string; got {value_key}")
            if not value_key:
                raise ValueError("Argument `value_key` must not be empty")
        row_splits_dtype = _dtypes.as_dtype(row_splits_dtype)
        if row_splits_dtype not in (_dtypes.int32, _dtypes.int64):
            raise ValueError(f"Argument `row_splits_dtype` must be int32 or int64; got{row_splits_dtype!r}")
        kinds = tuple(getattr(cls, name) for name in [*_PARTITION_KINDS, "UniformRowLength"])
        if not isinstance(partitions, (list, tuple)) or not all(isinstance(p, kinds) for p in partitions):
            raise TypeError("Argument `partitions` cannot be cast to any of the partition types in "
                            f"{tuple(kind.__name__ for kind in kinds)}; got {partitions!r}")
        return super().__new__(cls, dtype, value_key, tuple(partitions), row_splits_dtype, validate)


def _one_example(example, key, spec, feature_values):
    """The feature ``key`` of one Example: its values cut by ``spec``'s partitions (a tensor without any)."""
    def values_of(name, dtype):
        values = feature_values(example, name, dtype)
        return np.zeros(0, dtype.as_numpy_dtype) if values is None else values

    result = _dispatch.wrap(values_of(spec.value_key or key, spec.dtype))
    for partition in reversed(spec.partitions):
        if isinstance(partition, RaggedFeature.UniformRowLength):
            result = _uniform_rows(result, partition.length)
            continue
        bounds = values_of(partition.key, _dtypes.int64)
        result = _PARTITION_KINDS[type(partition).__name__](result, bounds, validate=spec.validate)
    return result


def _uniform_rows(values, length):
    """``values`` cut into rows of ``length`` items (a dense tensor stays dense, as TF's reshape)."""
    if isinstance(values, RaggedTensor):
        return RaggedTensor.from_uniform_row_length(values, length)
    size = values.array.shape[0]
    if length <= 0 or size % length:
        raise op_error(f"Input to reshape is a tensor with {size} values, but the requested shape requires a multiple "
                       f"of {length}", "Reshape")
    return _dispatch.wrap(values.array.reshape((size // length, length) + values.array.shape[1:]))


def parsed_ragged(examples, key, spec, batched, feature_values):
    """The ``RaggedFeature`` ``key`` of ``examples`` (``tf.train.Example``s): one example's result, or for a batch
    the ragged tensor whose rows are the examples' results.  ``feature_values(example, key, dtype)`` reads a
    feature's values (None when absent)."""
    results = [_one_example(example, key, spec, feature_values) for example in examples]
    if not batched:
        return results[0]
    if results:
        return stack_rows(results)
    # an empty batch: the structure of an example without the feature, with no rows
    return stack_rows([_one_example(_NoFeatures, key, spec, lambda *_: None)])[0:0]


class _NoFeatures:
    """Stands for an Example without features (only read through ``feature_values``)."""
