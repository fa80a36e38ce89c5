"""tf.data.experimental transformations with no Dataset method of their own in vfw: ``group_by_reducer`` (with
``Reducer``), ``pad_to_cardinality``, ``dense_to_sparse_batch`` (``Dataset.sparse_batch``), ``Dataset.fingerprint``
and ``tf.data.IteratorSpec``."""

import hashlib

import numpy as np

from vfw.frontends.tensorflow import _dispatch, _dtypes, errors
from vfw.frontends.tensorflow._shape import TensorShape
from vfw.frontends.tensorflow._sparse_tensor import SparseTensor, SparseTensorSpec
from vfw.frontends.tensorflow._tensor_spec import TensorSpec
from vfw.frontends.tensorflow.data import _structure as structure
from vfw.frontends.tensorflow.data._dataset import INFINITE, UNKNOWN, Dataset, int64_argument, iterator_error
from vfw.frontends.tensorflow.data._functional import StructuredFunction, output_components
from vfw.frontends.tensorflow.data._grouping import _KEY_SPEC, _int64_function, _scalar


class Reducer:
    """``tf.data.experimental.Reducer(init_func, reduce_func, finalize_func)``: how ``group_by_reducer`` folds a group.

    ``init_func(key)`` gives a group's first state, ``reduce_func(state, element)`` the next one, and
    ``finalize_func(state)`` the group's output element.
    """

    def __init__(self, init_func, reduce_func, finalize_func):
        self._init_func, self._reduce_func, self._finalize_func = init_func, reduce_func, finalize_func

    init_func = property(lambda self: self._init_func)
    reduce_func = property(lambda self: self._reduce_func)
    finalize_func = property(lambda self: self._finalize_func)


class GroupByReducerDataset(Dataset):
    """The elements folded per key (``key_func``) with a :class:`Reducer`; at the end one output per key, in
    increasing key order (TF's)."""

    _tf_name = "_GroupByReducerDataset"

    def __init__(self, input_dataset, key_func, reducer):
        self._input = input_dataset
        self._key = _int64_function(key_func, input_dataset._structure, "key_func")
        self._init = StructuredFunction(reducer.init_func, _KEY_SPEC, "init_func")
        state_spec = self._init.output_spec
        self._reduce = StructuredFunction(reducer.reduce_func, (state_spec, input_dataset._structure), "reduce_func")
        if not structure.compatible_types(self._reduce.output_spec, state_spec):
            raise TypeError(f"The element types for the new state must match the initial state. Expected "
                            f"{structure.describe_types(state_spec)}; got "
                            f"{structure.describe_types(self._reduce.output_spec)}.")
        self._finalize = StructuredFunction(reducer.finalize_func, state_spec, "finalize_func")
        super().__init__(self._finalize.output_spec, UNKNOWN, inputs=[input_dataset])

    def _iterate(self):
        states = {}
        for element in self._input._elements():
            key = _scalar(self._key(element))
            if key not in states:
                states[key] = output_components(self._init((np.array(key, np.int64),)))
            states[key] = output_components(self._reduce(states[key] + element))
        for key in sorted(states):
            yield output_components(self._finalize(states[key]))


def group_by_reducer(key_func, reducer):
    """``tf.data.experimental.group_by_reducer``: a transformation (for ``Dataset.apply``) folding each key's
    elements with ``reducer`` (see :class:`GroupByReducerDataset`)."""
    return lambda dataset: GroupByReducerDataset(dataset, key_func, reducer)


def pad_to_cardinality(cardinality, mask_key="valid"):
    """``tf.data.experimental.pad_to_cardinality``: a transformation padding a dataset of dicts with zero elements
    up to ``cardinality`` elements; each element gets a boolean ``mask_key`` entry (True for the original ones).

    Raises
    ------
    ValueError
        When the elements are not dicts, the cardinality is unknown or infinite or not below ``cardinality``, or a
        dim of an element is unknown (TF cannot make its zero element).
    """
    def apply(dataset):
        spec = dataset.element_spec
        if not isinstance(spec, dict):
            raise ValueError("`pad_to_cardinality` requires its input dataset to be a dictionary.")
        count = dataset._cardinality
        if count in (INFINITE, UNKNOWN):
            raise ValueError(f"The dataset passed into `pad_to_cardinality` must have a known cardinalty, but has "
                             f"cardinality {count}")
        if count > cardinality:
            raise ValueError(f"The dataset passed into `pad_to_cardinality` must have a cardinalty less than the "
                             f"target cardinality ({cardinality}), but has cardinality {count}")
        filler = {}
        for key, leaf in spec.items():
            if not isinstance(leaf, TensorSpec) or not leaf.shape.is_fully_defined():
                raise ValueError(f"Cannot convert a partially known TensorShape {leaf.shape} to a Tensor.")
            filler[key] = _dispatch.wrap(np.zeros(leaf.shape.as_list(), leaf.dtype.np)
                                         if leaf.dtype != _dtypes.string else
                                         np.full(leaf.shape.as_list(), b"", dtype=object))
        filler[mask_key] = _dispatch.wrap(np.array(False))
        marked = dataset.map(lambda element: {**element, mask_key: True})
        return marked.concatenate(Dataset.from_tensors(filler).repeat(cardinality - count))

    return apply


def _row_shape(row_shape):
    """The dims of ``row_shape`` (TF reads it as a TensorShape: no negative dims)."""
    dims = _dispatch.convert_to_tensor(row_shape, dtype=_dtypes.int64).array
    if dims.ndim != 1:
        raise ValueError(f"`row_shape` must be a vector, got shape {dims.shape}.")
    for d in dims:
        if d < 0:
            raise ValueError(f"Dimension {d} must be >= 0")
    return [int(d) for d in dims]


class SparseBatchDataset(Dataset):
    """``Dataset.sparse_batch``: batches of ``batch_size`` elements as one ``tf.SparseTensor`` of dense shape
    ``[n, *row_shape]`` holding every value of each element."""

    _tf_name = "_DenseToSparseBatchDataset"

    def __init__(self, input_dataset, batch_size, row_shape):
        spec = input_dataset.element_spec
        if not isinstance(spec, TensorSpec):
            raise TypeError(f"`sparse_batch` needs elements that are single tensors, got {spec}.")
        self._input = input_dataset
        self._size = int64_argument(batch_size, "batch_size")
        if self._size <= 0:
            raise _dispatch.op_error(f"Batch size must be greater than zero, got {self._size}",
                                     "DenseToSparseBatchDataset")
        self._row_shape = _row_shape(row_shape)
        n = input_dataset._cardinality
        cardinality = n if n in (INFINITE, UNKNOWN) else -(-n // self._size)
        super().__init__(SparseTensorSpec(TensorShape([None] + self._row_shape), spec.dtype), cardinality,
                         inputs=[input_dataset])

    def _batch(self, arrays):
        rank = len(self._row_shape)
        row_text = ",".join(map(str, self._row_shape))
        for array in arrays:
            shape_text = ",".join(map(str, array.shape))
            if array.ndim != rank:
                raise iterator_error(f"Input element had shape ([{shape_text}]) that is incompatible with the row "
                                     f"shape ([{row_text}]).")
            if any(n > d for n, d in zip(array.shape, self._row_shape)):
                raise _dispatch.op_error(f"Input element had shape ([{shape_text}]) that is larger than the row "
                                         f"shape ([{row_text}]).", "IteratorGetNext", errors.DataLossError)
        # every value of each element, in row-major order, prefixed by the element's position in the batch
        indices = [np.concatenate([np.full((array.size, 1), i, np.int64),
                                   np.indices(array.shape).reshape(rank, -1).T.astype(np.int64)], axis=1)
                   for i, array in enumerate(arrays)]
        values = np.concatenate([array.reshape(-1) for array in arrays])
        return SparseTensor._from_parts(_dispatch.wrap(np.concatenate(indices).reshape(-1, rank + 1)),
                                        _dispatch.wrap(values),
                                        _dispatch.wrap(np.array([len(arrays)] + self._row_shape, np.int64)))

    def _iterate(self):
        batch = []
        for (array,) in self._input._elements():
            batch.append(array)
            if len(batch) == self._size:
                yield (self._batch(batch),)
                batch = []
        if batch:
            yield (self._batch(batch),)


class CopyToDeviceDataset(Dataset):
    """``copy_to_device``: the input's elements (vfw has one device); its cardinality is unknown, as TF's."""

    _tf_name = "_CopyToDeviceDataset"

    def __init__(self, input_dataset):
        self._input = input_dataset
        super().__init__(input_dataset.element_spec, UNKNOWN, inputs=[input_dataset])

    def _iterate(self):
        return self._input._elements()


def dense_to_sparse_batch(batch_size, row_shape):
    """``tf.data.experimental.dense_to_sparse_batch``: ``Dataset.sparse_batch`` as a transformation."""
    return lambda dataset: SparseBatchDataset(dataset, batch_size, row_shape)


# -- fingerprints -----------------------------------------------------------------------------------------
def _describe(value, seen):
    """A stable text describing what defines a dataset: its class, specs, functions' code, constants and inputs."""
    if isinstance(value, Dataset):
        if id(value) in seen:
            return "<cycle>"
        seen.add(id(value))
        fields = sorted((k, _describe(v, seen)) for k, v in vars(value).items() if k not in ("_pack", "_options"))
        return f"{type(value).__name__}:{value._tf_name}:{fields}"
    if isinstance(value, StructuredFunction):
        return _describe(value._func, seen) + repr(value.output_spec)
    if callable(value) and hasattr(value, "__code__"):
        code = value.__code__
        return f"code:{code.co_code.hex()}:{[_describe(c, seen) for c in code.co_consts]}:{code.co_names}"
    if isinstance(value, np.ndarray):
        return f"array:{value.dtype}:{value.shape}:{value.tobytes() if value.dtype != object else value.tolist()}"
    if isinstance(value, (list, tuple)):
        return f"{type(value).__name__}:{[_describe(v, seen) for v in value]}"
    if isinstance(value, dict):
        return f"dict:{sorted((repr(k), _describe(v, seen)) for k, v in value.items())}"
    if hasattr(value, "array"):
        return _describe(value.array, seen)
    if isinstance(value, (int, float, str, bytes, bool, type(None))) or hasattr(value, "__code__"):
        return repr(value)
    return type(value).__name__  # other helper objects: their kind (their state is not part of the definition)


def fingerprint(dataset):
    """``Dataset.fingerprint``: a scalar uint64 hash of the dataset's definition (equal for datasets built the same
    way; vfw's own hash, not TF's graph fingerprint)."""
    digest = hashlib.sha256(_describe(dataset, set()).encode()).digest()
    return _dispatch.wrap(np.array(int.from_bytes(digest[:8], "little"), np.uint64))


class IteratorSpec:
    """``tf.data.IteratorSpec(element_spec)``: the type specification of a dataset iterator."""

    def __init__(self, element_spec):
        self._element_spec = element_spec

    @property
    def value_type(self):
        from vfw.frontends.tensorflow.data._iterator import OwnedIterator

        return OwnedIterator

    @staticmethod
    def from_value(value):
        """The spec of an iterator."""
        return IteratorSpec(value.element_spec)

    def is_compatible_with(self, spec_or_value):
        other = spec_or_value if isinstance(spec_or_value, IteratorSpec) else \
            IteratorSpec(getattr(spec_or_value, "element_spec", None))
        return other._element_spec is not None and structure.compatible(self._element_spec, other._element_spec)

    def __eq__(self, other):
        return isinstance(other, IteratorSpec) and repr(self._element_spec) == repr(other._element_spec)

    def __hash__(self):
        return hash(repr(self._element_spec))

    def __repr__(self):
        return f"IteratorSpec({self._element_spec!r},)"
