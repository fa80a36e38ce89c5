"""``tf.ragged`` functions over vfw's minimal ``RaggedTensor``: ``constant`` and ``map_flat_values``."""

import numpy as np

from vfw.frontends.tensorflow import errors, nest
from vfw.frontends.tensorflow._dispatch import convert_to_tensor
from vfw.frontends.tensorflow._ragged import RaggedTensor


def _depths(value, depth, scalar_depths):
    """The deepest list nesting under ``value`` (at ``depth``); the depths of its scalars go to ``scalar_depths``."""
    if not isinstance(value, (list, tuple)):
        scalar_depths.add(depth)
        return depth
    return max([_depths(v, depth + 1, scalar_depths) for v in value], default=depth + 1)


def constant(pylist, dtype=None, ragged_rank=None, inner_shape=None, name=None, row_splits_dtype=None):
    """A ragged tensor of the nested Python lists ``pylist`` (a plain tensor for a scalar or a flat list).

    Parameters
    ----------
    pylist : nested lists of scalars
        Every scalar at the same depth ``K``.
    dtype : DType, optional
        The values' dtype (TF's inference from the scalars by default).
    ragged_rank : int, optional
        How many dimensions after the first are ragged (``K - 1`` by default); the inner ones must be uniform.

    Raises
    ------
    ValueError
        For scalars at different depths or a ``ragged_rank`` out of ``[0, K - 1]``.
    """
    scalar_depths = set()
    deepest = _depths(pylist, 0, scalar_depths)
    if len(scalar_depths) > 1:
        raise ValueError("all scalar values must have the same nesting depth")
    # without scalars (empty lists) the nesting is as deep as ragged_rank asks
    rank = scalar_depths.pop() if scalar_depths else max(deepest, (ragged_rank or 0) + 1)
    if ragged_rank is None:
        ragged_rank = rank - 1 if inner_shape is None else rank - 1 - len(inner_shape)
        if ragged_rank <= 0:  # nothing ragged: a plain tensor, as TF
            return convert_to_tensor(pylist, dtype=dtype)
    if ragged_rank < 0 or (rank > 0 and ragged_rank >= rank):
        raise ValueError(f"Invalid pylist={pylist!r}: incompatible with ragged_rank={ragged_rank}")
    values, row_lengths = pylist, []
    for _ in range(ragged_rank):
        row_lengths.append([len(row) for row in values])
        values = [item for row in values for item in row]
    result = convert_to_tensor(values, dtype=dtype)
    for lengths in reversed(row_lengths):
        result = RaggedTensor.from_row_lengths(result, lengths)
    return result


def map_flat_values(op, *args, **kwargs):
    """``op`` applied to the flat values of the ragged tensors among ``args``/``kwargs`` (nested structures too),
    its result given their row partitions; a plain ``op(*args, **kwargs)`` when none is ragged.

    Raises
    ------
    ValueError
        When the ragged inputs' flat values differ in length.
    InvalidArgumentError
        When their row partitions differ.
    """
    ragged = [x for x in nest.flatten([args, kwargs]) if isinstance(x, RaggedTensor)]
    if not ragged:
        return op(*args, **kwargs)
    sizes = {int(r.flat_values.shape[0]) for r in ragged}
    if len(sizes) > 1:
        raise ValueError("Input RaggedTensors' flat_values must all have the same outer-dimension size.  Got sizes: "
                         f"{set(sorted(sizes))}")
    first = [s.array for s in ragged[0].nested_row_splits]
    for other in ragged[1:]:
        splits = [s.array for s in other.nested_row_splits]
        for a, b in zip(first, splits):
            if a.size != b.size or not np.array_equal(a, b):
                mismatch = "nrows" if a.size != b.size else "row_splits"
                raise errors.InvalidArgumentError(
                    None, None, f"RowPartition._merge_precomputed_encodings: partitions have incompatible {mismatch}")
    flat_args, flat_kwargs = nest.map_structure(
        lambda x: x.flat_values if isinstance(x, RaggedTensor) else x, (list(args), kwargs))
    return ragged[0].with_flat_values(op(*flat_args, **flat_kwargs))


NAMESPACES = {"ragged": ["constant", "map_flat_values"]}
