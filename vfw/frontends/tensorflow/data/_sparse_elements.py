"""Sparse tensors as tf.data elements: their rows (``from_tensor_slices``) and batches (``batch``).

An element leaf of spec ``SparseTensorSpec`` travels as one component, the ``SparseTensor`` itself.  Its rows
are the sparse tensors of its entries with first index ``i`` (dense shape without the first dim); a batch of
sparse tensors of one rank is a sparse tensor one rank higher whose dense shape is, per dim, the largest of the
batched ones (TF's ``batch``).
"""

import numpy as np

from vfw.frontends.tensorflow import _dispatch
from vfw.frontends.tensorflow._sparse_tensor import SparseTensor, SparseTensorSpec


def check_sliceable(value):
    """Refuse to slice the SparseTensor ``value`` into rows unless its rank is at least 2 and its indices are in
    row-major order without repeats, as TF.

    Raises
    ------
    ValueError
        For rank 0.
    tf.errors.InvalidArgumentError
        For rank 1, or indices out of order or repeated (TF's SerializeManySparse kernel).
    """
    rank = value.dense_shape.array.shape[0]
    if rank == 0:
        raise ValueError(f"Unbatching a sparse tensor is only supported for rank >= 1. Obtained input: {value}.")
    if rank == 1:
        raise _dispatch.op_error("Rank of input SparseTensor should be > 1, but saw rank: 1", "SerializeManySparse")
    indices = value.indices.array
    steps = indices[1:] - indices[:-1]
    first_change = np.argmax(steps != 0, axis=1)  # the dim where each index first differs from the one before
    step = steps[np.arange(len(steps)), first_change]
    wrong = np.flatnonzero(step <= 0)
    if wrong.size:
        k = int(wrong[0]) + 1
        shown = "[" + ",".join(str(int(i)) for i in indices[k]) + "]"
        problem = "is repeated" if step[k - 1] == 0 else ("is out of order. Many sparse ops require sorted indices.\n"
                                                         "    Use `tf.sparse.reorder` to create a correctly ordered "
                                                         "copy.\n\n")
        raise _dispatch.op_error(f"indices[{k}] = {shown} {problem}", "SerializeManySparse")


def nrows(value):
    """The size of the first dim of the SparseTensor ``value``."""
    return int(value.dense_shape.array[0])


def row(value, i):
    """Row ``i`` of the SparseTensor ``value``: its entries of first index ``i``, in their order."""
    indices = value.indices.array
    taken = indices[:, 0] == i
    return SparseTensor._from_parts(_dispatch.wrap(indices[taken, 1:]), _dispatch.wrap(value.values.array[taken]),
                                    _dispatch.wrap(value.dense_shape.array[1:]))


def slice_spec(value):
    """The spec of the rows of the SparseTensor ``value``."""
    return SparseTensorSpec(value.shape[1:], value.dtype)


def batch(values):
    """The SparseTensors ``values`` (one rank) as one SparseTensor: the k-th at first index k.

    Raises
    ------
    tf.errors.InvalidArgumentError
        When their ranks differ.
    """
    shapes = [v.dense_shape.array for v in values]
    if any(len(s) != len(shapes[0]) for s in shapes):
        ranks = sorted({len(s) for s in shapes})
        raise _dispatch.op_error(f"Cannot batch sparse tensors of different ranks: {ranks[0]} and {ranks[-1]}")
    counts = [v.indices.array.shape[0] for v in values]
    position = np.repeat(np.arange(len(values), dtype=np.int64), counts)[:, np.newaxis]
    indices = np.concatenate([position, np.concatenate([v.indices.array for v in values])], axis=1)
    dense_values = np.concatenate([v.values.array for v in values])
    dense_shape = np.concatenate([[len(values)], np.max(shapes, axis=0)]).astype(np.int64)
    return SparseTensor._from_parts(_dispatch.wrap(indices), _dispatch.wrap(dense_values),
                                    _dispatch.wrap(dense_shape))
