"""``tf.ragged`` array functions: ``boolean_mask``, ``stack``, ``stack_dynamic_partitions``, ``cross``, the
conversions between row splits and segment ids, and ``tf.strings.reduce_join`` of a ragged tensor.

Rows are moved with ``_ragged._take`` (a differentiable gather of the flat values) and new row partitions are
computed with numpy on the partitions, so tapes see the values move as in TF.
"""

import itertools

import numpy as np

from vfw.frontends.tensorflow import _dispatch, _dtypes
from vfw.frontends.tensorflow._dispatch import convert_to_tensor, op_error
from vfw.frontends.tensorflow._ragged import RaggedTensor, _take, concat_rows, stack_rows
from vfw.frontends.tensorflow._shape import TensorShape


def _splits_tensor(array):
    return _dispatch.wrap(np.asarray(array, np.int64))


def _as_ragged(value, ragged_rank):
    """``value`` (a tensor or ragged tensor) as a ragged tensor of ``ragged_rank`` (dense dims made uniform rows,
    through a differentiable reshape)."""
    if isinstance(value, RaggedTensor) or ragged_rank == 0:
        return value
    from vfw.frontends.tensorflow._array_ops import reshape

    dims = value.array.shape
    values = _as_ragged(reshape(value, [-1, *dims[2:]]), ragged_rank - 1)
    return RaggedTensor(values, _splits_tensor(np.arange(dims[0] + 1) * dims[1]))


def _check_same_splits(a, b):
    if a.array.shape != b.array.shape or not np.array_equal(a.array, b.array):
        raise op_error("Inputs must have identical ragged splits", "AssertEqual")


# -- row splits and segment ids ----------------------------------------------------------------------------------
def _integer_vector(value, name, message):
    tensor = convert_to_tensor(value, dtype_hint=_dtypes.int64)
    if tensor.array.ndim != 1:
        raise ValueError(f"Shape {TensorShape(tensor.array.shape)} must have rank 1")
    if tensor.dtype not in (_dtypes.int32, _dtypes.int64):
        raise (ValueError if message else TypeError)(
            message or f"Argument `tensor` (name: {name}) must be of type integer. Received `tensor` = "
                       f"{tensor.array} of dtype: {tensor.dtype!r}")
    return tensor


def row_splits_to_segment_ids(splits, name=None, out_type=None):
    """The row of every value of a partition ``splits`` (``[0, 2, 2, 5]`` -> ``[0, 0, 2, 2, 2]``).

    ``out_type`` defaults to the dtype of ``splits`` (int64 for Python lists).

    Raises
    ------
    ValueError
        For splits that are not a vector of int32 or int64.
    """
    splits = _integer_vector(splits, "splits", "splits must have dtype int32 or int64")
    dtype = _dtypes.as_dtype(out_type or splits.dtype).as_numpy_dtype
    lengths = np.maximum(np.diff(splits.array), 0)
    return _dispatch.wrap(np.repeat(np.arange(len(lengths), dtype=dtype), lengths))


def segment_ids_to_row_splits(segment_ids, num_segments=None, out_type=None, name=None):
    """The row splits of the rows of ``segment_ids`` (as many values in row ``i`` as ids equal to ``i``;
    ``num_segments`` rows, by default one past the largest id).

    Raises
    ------
    ValueError / TypeError
        For ids that are not a vector of int32 or int64.
    """
    ids = _integer_vector(segment_ids, "segment_ids", None)
    dtype = _dtypes.as_dtype(out_type or ids.dtype).as_numpy_dtype
    count = None if num_segments is None else int(convert_to_tensor(num_segments).array)
    counts = np.bincount(ids.array, minlength=count or 0)
    if count is not None:
        counts = counts[:count]
    return _dispatch.wrap(np.concatenate([[0], np.cumsum(counts)]).astype(dtype))


# -- boolean_mask ------------------------------------------------------------------------------------------------
def boolean_mask(data, mask, name=None):
    """The items of ``data`` where ``mask`` is True, keeping the dims of ``mask`` after the first as ragged dims.

    Parameters
    ----------
    data : Tensor or RaggedTensor
    mask : bool Tensor or RaggedTensor
        Its shape a prefix of ``data``'s (the same row partitions for ragged dims).

    Returns
    -------
    A tensor for a 1-D mask over a dense ``data``, else a RaggedTensor.

    Raises
    ------
    ValueError
        For a scalar mask, a mask that is not bool, or shapes that do not match.
    InvalidArgumentError
        For ragged row partitions that differ.
    """
    if not isinstance(data, RaggedTensor):
        data = convert_to_tensor(data)
    if not isinstance(mask, RaggedTensor):
        mask = convert_to_tensor(mask, dtype_hint=_dtypes.bool)
    if mask.dtype != _dtypes.bool:
        raise ValueError(f"mask: Tensor conversion requested dtype bool for Tensor with dtype {mask.dtype.name}: "
                         f"{mask!r}")
    mask_rank = mask.shape.rank
    if mask_rank == 0:
        raise ValueError("mask cannot be scalar.")
    if not isinstance(mask, RaggedTensor) and not isinstance(data, RaggedTensor):
        data_dims = data.shape.as_list()
        if data.shape.rank < mask_rank or not TensorShape(data_dims[:mask_rank]).is_compatible_with(mask.shape):
            raise ValueError(f"Shapes {data.shape} and {mask.shape} are incompatible")
        if mask_rank == 1:
            from vfw.frontends.tensorflow._array_gather import boolean_mask as dense_boolean_mask

            return dense_boolean_mask(data, mask)
    return _masked(data, mask)


def _masked(data, mask):
    """``boolean_mask`` once one of ``data``/``mask`` is ragged (or the mask has 2+ dims)."""
    if mask.shape.rank == 1:
        return _take(data, np.flatnonzero(mask.array))
    data, mask = _as_ragged(data, 1), _as_ragged(mask, 1)
    _check_same_splits(data.row_splits, mask.row_splits)
    splits = data.row_splits.array
    if mask.values.shape.rank == 1:  # the rows' items are masked: count the kept ones per row
        kept = np.concatenate([[0], np.cumsum(mask.values.array)])
        splits = kept[splits]
    return RaggedTensor(_masked(data.values, mask.values), _splits_tensor(splits))


# -- stack -------------------------------------------------------------------------------------------------------
def stack(values, axis=0, name=None):
    """The tensors or ragged tensors ``values`` stacked along a new dim ``axis``: a ragged tensor, unless every
    input is dense and ``axis`` is not 0 (or they are scalars): ``tf.stack`` then.

    Raises
    ------
    ValueError
        For no input, inputs of different ranks, or ``axis`` out of ``[-(rank + 1), rank]``.
    InvalidArgumentError
        For different dtypes, different row counts (``axis`` >= 1) or ragged partitions (``axis`` >= 2).
    """
    if not isinstance(values, (list, tuple)):
        values = [values]
    if not values:
        raise ValueError("rt_inputs may not be empty.")
    values = [v if isinstance(v, RaggedTensor) else convert_to_tensor(v) for v in values]
    rank = values[0].shape.rank
    for value in values[1:]:
        if value.shape.rank != rank:
            raise ValueError(f"Shape {TensorShape([len(value)] + [None] * (value.shape.rank - 1))} must have rank "
                             f"{rank}")
    if not -(rank + 1) <= axis <= rank:
        raise ValueError(f"axis={axis} out of bounds: expected {-(rank + 1)}<=axis<{rank + 1}")
    axis %= rank + 1
    for i, value in enumerate(values[1:], 1):
        if value.dtype != values[0].dtype:
            raise op_error(f"cannot compute ConcatV2 as input #{i}(zero-based) was expected to be a "
                           f"{_dispatch.kernel_type_name(values[0].dtype)} tensor but is a "
                           f"{_dispatch.kernel_type_name(value.dtype)} tensor", "ConcatV2")
    if not any(isinstance(v, RaggedTensor) for v in values) and (axis != 0 or rank == 0):
        from vfw.frontends.tensorflow._array_ops import stack as dense_stack

        return dense_stack(values, axis)
    # dense inputs become ragged tensors of the inputs' ragged rank (or of rank - 1 ragged dims when all are dense)
    ragged_rank = min(max([v.ragged_rank for v in values if isinstance(v, RaggedTensor)] + [1]), rank - 1)
    values = [_as_ragged(v, ragged_rank) for v in values]
    if axis == 0:
        return stack_rows(values)
    nrows = [len(v) for v in values]
    for i, n in enumerate(nrows[1:], 1):
        if n != nrows[0]:
            raise op_error(f"Input tensors at index 0 (=x) and {i} (=y) have incompatible shapes.", "AssertEqual")
    if axis == 1:  # row i: the rows i of every input, in turn
        count, n = len(values), nrows[0]
        order = (np.arange(count)[None, :] * n + np.arange(n)[:, None]).reshape(-1)
        return RaggedTensor(_take(concat_rows(values), order), _splits_tensor(np.arange(n + 1) * count))
    for value in values[1:]:
        _check_same_splits(values[0].row_splits, value.row_splits)
    return values[0].with_values(stack([v.values for v in values], axis - 1))


# -- stack_dynamic_partitions ------------------------------------------------------------------------------------
def stack_dynamic_partitions(data, partitions, num_partitions, name=None):
    """The ragged tensor whose row ``p`` holds the rows of ``data`` whose ``partitions`` entry is ``p`` (in order).

    Raises
    ------
    InvalidArgumentError
        For partitions outside ``[0, num_partitions)``.
    """
    if not isinstance(data, RaggedTensor):
        data = convert_to_tensor(data)
    ids = convert_to_tensor(partitions, dtype_hint=_dtypes.int32).array.reshape(-1)
    count = int(convert_to_tensor(num_partitions).array)
    if ids.size and ids.min() < 0:
        raise op_error("partitions must be non-negative", "AssertGreaterEqual")
    if ids.size and ids.max() >= count:
        raise op_error("partitions must be less than num_partitions", "AssertLess")
    order = np.argsort(ids, kind="stable")
    splits = np.concatenate([[0], np.cumsum(np.bincount(ids, minlength=count))])
    return RaggedTensor(_take(data, order), _splits_tensor(splits))


# -- cross -------------------------------------------------------------------------------------------------------
def _row_items(value):
    """The items of every row of a 2-D tensor, ragged tensor or SparseTensor, as lists of bytes."""
    def text(item):
        return item if isinstance(item, bytes) else str(item).encode()
    if isinstance(value, RaggedTensor):
        splits, items = value.row_splits.array, value.values.array
        return [[text(x) for x in items[splits[i]:splits[i + 1]]] for i in range(len(splits) - 1)]
    if hasattr(value, "indices"):  # a SparseTensor: row-major entries
        rows = value.indices.array[:, 0]
        count = int(value.dense_shape.array[0])
        return [[text(x) for x in value.values.array[rows == i]] for i in range(count)]
    return [[text(x) for x in row] for row in convert_to_tensor(value).array]


def cross(inputs, name=None):
    """The feature crosses of ``inputs`` (2-D string or int64 tensors, ragged or sparse): for every row, each
    combination of one item per input joined with ``"_X_"`` (the last input varying fastest)."""
    rows = [_row_items(value) for value in inputs]
    counts = {len(r) for r in rows}
    if len(counts) > 1:
        raise op_error("Inputs must have the same number of rows", "RaggedCross")
    crossed = [[b"_X_".join(parts) for parts in itertools.product(*row)] for row in zip(*rows)]
    lengths = [len(row) for row in crossed]
    flat = np.array([item for row in crossed for item in row], object).reshape(-1)
    return RaggedTensor.from_row_lengths(_dispatch.wrap(flat), np.asarray(lengths, np.int64))


# -- tf.strings.reduce_join of a ragged tensor -------------------------------------------------------------------
def ragged_reduce_join(inputs, axis, keepdims, separator, dense_join):
    """``tf.strings.reduce_join`` of the ragged ``inputs`` over all dims (``axis`` None), its innermost dim, or the
    first dim of a 2-D ragged tensor; ``dense_join(tensor, axis, keepdims, separator)`` joins dense tensors."""
    rank = inputs.shape.rank
    if axis is None:
        return dense_join(inputs.flat_values, None, keepdims, separator)
    if not -rank <= axis < rank:
        raise ValueError(f"axis={axis} out of bounds: expected {-rank}<=axis<{rank}")
    axis %= rank
    sep = separator.encode() if isinstance(separator, str) else bytes(separator)
    flat = inputs.flat_values
    if axis == rank - 1 and flat.shape.rank > 1:  # a uniform innermost dim
        return inputs.with_flat_values(dense_join(flat, -1, keepdims, separator))
    if axis == rank - 1:
        splits = inputs.nested_row_splits[-1].array
        joined = np.array([sep.join(flat.array[splits[i]:splits[i + 1]]) for i in range(len(splits) - 1)], object)
        result = _dispatch.wrap(joined[:, None] if keepdims else joined)
        return RaggedTensor.from_nested_row_splits(result, list(inputs.nested_row_splits[:-1])) \
            if rank > 2 else result
    if axis == 0 and rank == 2 and not keepdims:
        splits = inputs.row_splits.array
        columns = np.arange(flat.array.shape[0]) - np.repeat(splits[:-1], np.diff(splits))
        width = int(columns.max()) + 1 if columns.size else 0
        joined = [sep.join(flat.array[columns == c]) for c in range(width)]
        return _dispatch.wrap(np.array(joined, object).reshape(-1))
    raise NotImplementedError("vfw's tf.strings.reduce_join of a RaggedTensor joins all dims, the innermost dim, or "
                              "the first dim of a 2-D ragged tensor.")


NAMESPACES = {"ragged": ["boolean_mask", "cross", "row_splits_to_segment_ids", "segment_ids_to_row_splits", "stack",
                         "stack_dynamic_partitions"]}
