"""Ragged tensors as tf.data elements: their components, rows, batches, stand-ins, and ``ragged_batch``.

An element leaf of spec ``RaggedTensorSpec`` travels as one component: the ``RaggedTensor`` itself, or a numpy
array when the spec's ragged rank is 0 (the rows of a ragged tensor of ragged rank 1 are plain tensors, as in
TF).  Batching such leaves makes a ragged tensor one rank higher (TF's ``batch`` of ragged elements); unbatching
takes its rows.
"""

from vfw.frontends.tensorflow import _dispatch
from vfw.frontends.tensorflow._ragged import RaggedTensor, from_dense, stack_rows
from vfw.frontends.tensorflow._ragged_spec import RaggedTensorSpec
from vfw.frontends.tensorflow._sparse_tensor import SparseTensor
from vfw.frontends.tensorflow._tensor_spec import TensorSpec
from vfw.frontends.tensorflow.data import _sparse_elements
from vfw.frontends.tensorflow.data import _structure as structure
from vfw.frontends.tensorflow.data._dataset import Dataset


def component(value):
    """The component of a leaf value (a RaggedTensor or SparseTensor; a tensor (ragged rank 0) becomes its array)."""
    return value if isinstance(value, (RaggedTensor, SparseTensor)) else value.array


def nrows(comp):
    """The number of rows of a component (array, RaggedTensor or SparseTensor)."""
    if isinstance(comp, SparseTensor):
        return _sparse_elements.nrows(comp)
    return len(comp) if isinstance(comp, RaggedTensor) else comp.shape[0]


def row(comp, i):
    """Row ``i`` of a component: a RaggedTensor's row as a component (ragged, or an array), an array's or a
    SparseTensor's row."""
    if isinstance(comp, RaggedTensor):
        return component(comp[i])
    if isinstance(comp, SparseTensor):
        return _sparse_elements.row(comp, i)
    return comp[i, ...]


def batch(comps, spec):
    """The components ``comps`` (each an element's leaf of the ragged ``spec``) as one ragged tensor of them."""
    rows = [c if isinstance(c, RaggedTensor) else _dispatch.wrap(c) for c in comps]
    first = spec.shape.as_list()[0] if spec.shape.rank else None
    return stack_rows(rows, first)


def example(spec, size, fill):
    """A stand-in ragged value of ``spec`` to trace a function with (unknown dims of ``size``, values ``fill``)."""
    dims = [size if d is None else d for d in spec.shape.as_list()]
    dense = structure.example_component(TensorSpec(dims, spec.dtype), size, fill)
    return from_dense(dense, spec.ragged_rank) if spec.ragged_rank else dense


def _ragged_rank_of(spec):
    """The ragged rank ``ragged_batch`` gives a leaf: the position of its last unknown dim (None: stays dense)."""
    if not isinstance(spec, TensorSpec):
        return None
    unknown = [i for i, d in enumerate(spec.shape.as_list()) if d is None]
    return unknown[-1] if unknown else None


def ragged_spec_of(spec):
    """How ``ragged_batch`` sees an element leaf: a dense leaf with unknown dims as ragged (see _ragged_rank_of)."""
    rank = _ragged_rank_of(spec)
    return spec if rank is None else RaggedTensorSpec(spec.shape, spec.dtype, rank)


class _AsRaggedDataset(Dataset):
    """The input of ``ragged_batch``: dense leaves with unknown dims given as ragged values."""

    def __init__(self, input_dataset):
        for spec in input_dataset._flat_specs:
            if not isinstance(spec, (TensorSpec, RaggedTensorSpec)):
                raise TypeError(f"`ragged_batch` does not support elements holding datasets ({spec}).")
            if isinstance(spec, TensorSpec) and spec.shape.rank is None:
                raise ValueError("`ragged_batch` needs elements of known rank: the rank of a component is unknown.")
        self._input = input_dataset
        self._ragged_ranks = [_ragged_rank_of(s) for s in input_dataset._flat_specs]
        super().__init__(structure.map_structure(ragged_spec_of, input_dataset._structure),
                         input_dataset._cardinality, inputs=[input_dataset])

    def _iterate(self):
        for element in self._input._elements():
            yield tuple([c if not rank else from_dense(c, rank) for c, rank in zip(element, self._ragged_ranks)])


def ragged_batch(dataset, batch_size, drop_remainder, row_splits_dtype):
    """``Dataset.ragged_batch``: batches in which dense leaves with unknown dims become ragged tensors."""
    from vfw.frontends.tensorflow import _dtypes
    from vfw.frontends.tensorflow.data._batching import BatchDataset

    if _dtypes.as_dtype(row_splits_dtype) != _dtypes.int64:
        raise NotImplementedError("vfw's RaggedTensor keeps int64 row splits: ragged_batch(row_splits_dtype=int32) "
                                  "is not supported.")
    return BatchDataset(_AsRaggedDataset(dataset), batch_size, drop_remainder, parallel=False)


def has_ragged(specs):
    """Whether any of the flat ``specs`` is a RaggedTensorSpec."""
    return any(isinstance(s, RaggedTensorSpec) for s in specs)

