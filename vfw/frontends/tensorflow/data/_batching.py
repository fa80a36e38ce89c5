"""Batching: batch, padded_batch, unbatch, rebatch, window."""

import itertools
from collections import deque

import numpy as np

from vfw.frontends.tensorflow import _dispatch, _dtypes, errors
from vfw.frontends.tensorflow._ragged_spec import RaggedTensorSpec
from vfw.frontends.tensorflow._shape import TensorShape
from vfw.frontends.tensorflow._sparse_tensor import SparseTensorSpec
from vfw.frontends.tensorflow._tensor_spec import TensorSpec
from vfw.frontends.tensorflow.data import _ragged_elements, _sparse_elements, _tables
from vfw.frontends.tensorflow.data import _structure as structure
from vfw.frontends.tensorflow.data._dataset import INFINITE, UNKNOWN, Dataset, int64_argument, iterator_error
from vfw.frontends.tensorflow.data._sources import ElementsDataset


def _batch_size(batch_size, tf_op):
    size = int64_argument(batch_size, "batch_size")
    if size <= 0:
        raise _dispatch.op_error("Batch size must be greater than zero.", tf_op)
    return size


def _batched_cardinality(n, size, drop_remainder):
    if n in (INFINITE, UNKNOWN):
        return n
    return n // size if drop_remainder else -(-n // size)


def _tensor_specs(input_dataset, transformation, ragged=False):
    """Refuse elements holding datasets (and ragged or sparse tensors unless ``ragged``) for ``transformation``."""
    for spec in input_dataset._flat_specs:
        if not isinstance(spec, TensorSpec) and not (ragged and isinstance(spec, (RaggedTensorSpec, SparseTensorSpec))):
            raise TypeError(f"`{transformation}` does not support elements holding datasets ({spec}).")


def _shape_text(shape):
    return "[" + ",".join(str(d) for d in shape) + "]"


def stack(elements, specs):
    """The components of ``elements`` (flat tuples, of the flat ``specs``) stacked into batches (TF's error if
    shapes differ); ragged leaves are batched into ragged tensors."""
    batch = []
    for k, spec in enumerate(specs):
        arrays = [e[k] for e in elements]
        if isinstance(spec, RaggedTensorSpec):
            batch.append(_ragged_elements.batch(arrays, spec))
            continue
        if isinstance(spec, SparseTensorSpec):
            batch.append(_sparse_elements.batch(arrays))
            continue
        first = arrays[0].shape
        for a in arrays:
            if a.shape != first:
                raise iterator_error(f"Cannot add tensor to the batch: number of elements does not match. Shapes "
                                     f"are: [tensor]: {_shape_text(a.shape)}, [batch]: {_shape_text(first)}")
        batch.append(np.stack(arrays))
    return tuple(batch)


class BatchDataset(Dataset):
    """``batch``: over a table dataset, each batch is gathered at once (``_tables``); else elements are stacked."""

    _tf_name = "_BatchDataset"

    def __init__(self, input_dataset, batch_size, drop_remainder, parallel):
        self._size = _batch_size(batch_size, "BatchDatasetV2")
        self._drop = bool(drop_remainder)
        _tensor_specs(input_dataset, "batch", ragged=True)
        self._input = input_dataset
        if parallel:
            self._tf_name = "_ParallelBatchDataset"
        spec = structure.batched(input_dataset._structure, self._size if self._drop else None)
        super().__init__(spec, _batched_cardinality(input_dataset._cardinality, self._size, self._drop),
                         inputs=[input_dataset])

    def _iterate(self):
        table = self._input._table
        if table is not None:
            for chunk in _tables.regroup(self._input._indices(), itertools.repeat(self._size), self._drop):
                yield table.rows(chunk)
            return
        specs = self._input._flat_specs
        elements = self._input._elements()
        while True:
            group = list(itertools.islice(elements, self._size))
            if not group or (self._drop and len(group) < self._size):
                return
            yield stack(group, specs)


def _padded_shapes(spec, padded_shapes):
    """The padded shape of each component (TensorShapes; None dims pad to the batch's largest)."""
    flat_specs = structure.flatten(spec)
    if padded_shapes is None:
        for i, s in enumerate(flat_specs):
            if s.shape.rank is None:
                raise ValueError(f"You must provide `padded_shapes` argument because component {i} has unknown "
                                 "rank.")
        return [s.shape for s in flat_specs]
    flat_shapes = _flatten_up_to(spec, padded_shapes, "padded_shapes")
    shapes = []
    for s, given in zip(flat_specs, flat_shapes):
        shape = _as_padded_shape(given)
        if not _fits(s.shape, shape):
            raise ValueError(f"The padded shape {shape} is not compatible with the shape {s.shape} of the "
                             f"corresponding input component.")
        shapes.append(shape)
    return shapes


def _fits(shape, padded_shape):
    """Whether elements of ``shape`` can be padded to ``padded_shape`` (same rank, no known dim larger)."""
    if shape.rank is None or padded_shape.rank is None:
        return True
    return shape.rank == padded_shape.rank and all(
        p is None or d is None or p >= d for p, d in zip(padded_shape.as_list(), shape.as_list()))


def _as_padded_shape(value):
    if isinstance(value, TensorShape):
        return value
    array = getattr(value, "array", None)
    dims = array.tolist() if array is not None else list(value)
    return TensorShape([None if d is None or d == -1 else int(d) for d in dims])


def _flatten_up_to(spec, value, argument):
    """The parts of ``value`` at ``spec``'s leaves (a list is a leaf: one shape or value)."""
    if not structure.is_structure(spec):
        return [value]
    if isinstance(spec, tuple):
        if not isinstance(value, tuple) or len(value) != len(spec):
            length = len(value) if isinstance(value, tuple) else 1
            raise ValueError(f"The two structures don't have the same sequence length. Input structure has length "
                             f"{length}, while shallow structure has length {len(spec)}.")
        return [x for s, v in zip(spec, value) for x in _flatten_up_to(s, v, argument)]
    if not isinstance(value, dict) or set(value) != set(spec):
        raise ValueError(f"The two structures don't have the same keys for `{argument}`: {value!r} and {spec!r}.")
    return [x for key in sorted(spec) for x in _flatten_up_to(spec[key], value[key], argument)]


def _padding_values(spec, padding_values):
    flat_specs = structure.flatten(spec)
    if padding_values is None:
        return [b"" if s.dtype == _dtypes.string else s.dtype.np.type(0) for s in flat_specs]
    values = []
    for s, given in zip(flat_specs, _flatten_up_to(spec, padding_values, "padding_values")):
        tensor = _dispatch.convert_to_tensor(given)
        dtype = _dtypes.of_array(tensor.array)
        if tensor.array.ndim:
            raise ValueError(f"Invalid `padding_values`. `padding_values` values should be scalars, but got "
                             f"{tuple(tensor.array.shape)}.")
        if dtype != s.dtype:
            raise TypeError(f"Invalid `padding_values`. `padding_values` values type {dtype!r} does not match type "
                            f"{s.dtype!r} of the corresponding input component.")
        values.append(tensor.array[()])
    return values


def _pad(arrays, padded_shape, value):
    """``arrays`` stacked, each padded with ``value`` up to ``padded_shape`` (None dims: the largest)."""
    rank = arrays[0].ndim
    for a in arrays:
        if a.ndim != rank:
            raise iterator_error(f"All elements in a batch must have the same rank as the padded shape: expected "
                                 f"rank {rank} but got element with rank {a.ndim}.")
    largest = np.max([a.shape for a in arrays], axis=0) if rank else ()
    dims = [int(m) if d is None else d for d, m in zip(padded_shape.as_list(), largest)]
    for a in arrays:
        if any(s > d for s, d in zip(a.shape, dims)):
            raise _dispatch.op_error("Attempted to pad to a smaller size than the input element.", "IteratorGetNext",
                                     errors.DataLossError)
    out = np.full([len(arrays)] + dims, value, dtype=arrays[0].dtype)
    for i, a in enumerate(arrays):
        out[(i,) + tuple(slice(0, s) for s in a.shape)] = a
    return out


class PaddedBatchDataset(Dataset):
    _tf_name = "_PaddedBatchDataset"

    def __init__(self, input_dataset, batch_size, padded_shapes, padding_values, drop_remainder):
        self._size = _batch_size(batch_size, "PaddedBatchDatasetV2")
        self._drop = bool(drop_remainder)
        _tensor_specs(input_dataset, "padded_batch")
        spec = input_dataset._structure
        self._shapes = _padded_shapes(spec, padded_shapes)
        self._values = _padding_values(spec, padding_values)
        self._input = input_dataset
        batch_dim = TensorShape([self._size if self._drop else None])
        padded = structure.pack(spec, [TensorSpec(batch_dim.concatenate(shape), s.dtype)
                                       for shape, s in zip(self._shapes, structure.flatten(spec))])
        super().__init__(padded, _batched_cardinality(input_dataset._cardinality, self._size, self._drop),
                         inputs=[input_dataset])

    def _iterate(self):
        elements = self._input._elements()
        while True:
            group = list(itertools.islice(elements, self._size))
            if not group or (self._drop and len(group) < self._size):
                return
            yield tuple([_pad([e[k] for e in group], shape, value)
                         for k, (shape, value) in enumerate(zip(self._shapes, self._values))])


def _leading_dim(flat_specs, transformation):
    """The leading dim the components share (None if unknown), with TF's errors."""
    known = None
    for s in flat_specs:
        if s.shape.rank == 0:
            raise ValueError(f"Cannot {transformation} an input with scalar components.")
        first = None if s.shape.rank is None else s.shape.as_list()[0]
        if first is not None:
            if known is not None and first != known:
                raise ValueError(f"`{transformation}()` is only supported for datasets of elements whose components "
                                 f"have a matching leading dimension. Encountered both {known} and {first}.")
            known = first
    return known


def _rows(elements):
    """The rows of batched elements, one flat element at a time."""
    for element in elements:
        n = _ragged_elements.nrows(element[0])
        for c in element[1:]:
            if _ragged_elements.nrows(c) != n:
                raise iterator_error(f"Input element must have the same batch size in each component. Component 0 "
                                     f"had size {n} but component had size {_ragged_elements.nrows(c)}.")
        for i in range(n):
            yield tuple([_ragged_elements.row(c, i) for c in element])


def _unbatched(spec):
    return structure.map_structure(lambda s: s.unbatched() if isinstance(s, RaggedTensorSpec) else type(s)(
        None if s.shape.rank is None else s.shape.as_list()[1:], s.dtype), spec)  # TensorSpec or SparseTensorSpec


class UnbatchDataset(Dataset):
    _tf_name = "_UnbatchDataset"

    def __init__(self, input_dataset):
        _tensor_specs(input_dataset, "unbatch", ragged=True)
        known = _leading_dim(input_dataset._flat_specs, "unbatch")
        n = input_dataset._cardinality
        if n == INFINITE or n == 0:
            cardinality = n
        elif known is not None and n != UNKNOWN:
            cardinality = n * known
        else:
            cardinality = UNKNOWN
        self._input = input_dataset
        super().__init__(_unbatched(input_dataset._structure), cardinality, inputs=[input_dataset])

    def _iterate(self):
        return _rows(self._input._elements())


class RebatchDataset(Dataset):
    """``rebatch``: the rows of the input's batches regrouped into batches of the given size(s), in turn."""

    _tf_name = "_RebatchDataset"

    def __init__(self, input_dataset, batch_size, drop_remainder):
        _tensor_specs(input_dataset, "rebatch", ragged=True)
        _leading_dim(input_dataset._flat_specs, "rebatch")
        if isinstance(batch_size, (list, tuple)) or getattr(getattr(batch_size, "array", None), "ndim", 0):
            sizes = [int64_argument(s, "batch_size") for s in (batch_size.array.tolist() if hasattr(
                batch_size, "array") else batch_size)]
        else:
            sizes = [int64_argument(batch_size, "batch_size")]
        if not sizes or any(s < 0 for s in sizes):
            raise _dispatch.op_error("Batch sizes must be non-negative.", "RebatchDatasetV2")
        self._sizes = sizes
        self._drop = bool(drop_remainder)
        self._input = input_dataset
        known = sizes[0] if self._drop and len(set(sizes)) == 1 else None
        super().__init__(structure.batched(_unbatched(input_dataset._structure), known), UNKNOWN,
                         inputs=[input_dataset])

    def _iterate(self):
        specs = structure.flatten(_unbatched(self._input._structure))
        rows = _rows(self._input._elements())
        sizes = itertools.cycle(self._sizes)
        while True:
            size = next(sizes)
            group = list(itertools.islice(rows, size))
            if not group or (self._drop and len(group) < size):
                return
            yield stack(group, specs)


class WindowDataset(Dataset):
    """``window``: each element a structure of datasets (one per component) of up to ``size`` elements."""

    _tf_name = "_WindowDataset"

    def __init__(self, input_dataset, size, shift, stride, drop_remainder):
        self._size = int64_argument(size, "size")
        self._shift = self._size if shift is None else int64_argument(shift, "shift")
        self._stride = int64_argument(stride, "stride")
        for name, value in (("Window size", self._size), ("Window shift", self._shift),
                            ("Window stride", self._stride)):
            if value <= 0:
                raise _dispatch.op_error(f"{name} must be greater than zero.", "WindowDataset")
        self._drop = bool(drop_remainder)
        self._input = input_dataset
        spec = structure.map_structure(structure.DatasetSpec, input_dataset._structure)
        super().__init__(spec, self._windows(input_dataset._cardinality), inputs=[input_dataset])

    def _windows(self, n):
        if n in (INFINITE, UNKNOWN):
            return n
        if not self._drop:
            return -(-n // self._shift)
        span = (self._size - 1) * self._stride + 1
        return 0 if n < span else (n - span) // self._shift + 1

    def _iterate(self):
        elements = self._input._elements()
        specs = self._input._flat_specs
        span = (self._size - 1) * self._stride + 1
        buffer = deque()  # the elements from position `first` on
        first = 0
        exhausted = False
        start = 0
        while True:
            while not exhausted and first + len(buffer) < start + span:
                element = next(elements, None)
                if element is None:
                    exhausted = True
                elif first + len(buffer) < start:
                    first += 1  # between windows (a shift longer than a window's span)
                else:
                    buffer.append(element)
            available = first + len(buffer)
            if start >= available or (self._drop and available < start + span):
                return
            picked = [buffer[p - first] for p in range(start, min(start + span, available), self._stride)]
            yield tuple([ElementsDataset(s, [(e[k],) for e in picked]) for k, s in enumerate(specs)])
            start += self._shift
            while buffer and first < start:
                buffer.popleft()
                first += 1
