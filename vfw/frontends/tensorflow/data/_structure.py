"""Dataset elements: their nested structure as tf.data sees it, their specs, and their flat form.

tf.data nests differently from ``tf.nest``: tuples (namedtuples included) and mappings are
structures, but a **list is a value** (``from_tensor_slices([[1, 2], [3, 4]])`` slices one
tensor), and a list a function returns is taken as a tuple.  Mapping values are flattened in
sorted-key order and packed back in the mapping's own key order, as TF does.

Inside vfw a dataset element travels as a *flat* tuple of components, one per leaf of the
element spec: a numpy array for a ``TensorSpec`` leaf, a Dataset for a ``DatasetSpec`` leaf
(the windows of ``window``).  Users see elements packed back into their structure, arrays
wrapped as ``tf.Tensor``.
"""

import collections.abc

import numpy as np

from vfw.core.tensor import Tensor as CoreTensor
from vfw.frontends.tensorflow import _dispatch, _dtypes
from vfw.frontends.tensorflow._ragged import RaggedTensor
from vfw.frontends.tensorflow._ragged_spec import RaggedTensorSpec
from vfw.frontends.tensorflow._shape import TensorShape, as_shape
from vfw.frontends.tensorflow._sparse_tensor import SparseTensor, SparseTensorSpec
from vfw.frontends.tensorflow._tensor import Tensor
from vfw.frontends.tensorflow._tensor_spec import TensorSpec

_wrap = _dispatch.wrap


# -- tf.data's nesting ------------------------------------------------------------------------------
def is_structure(x):
    """Whether tf.data treats ``x`` as a structure (a tuple or a mapping) rather than a value."""
    return isinstance(x, (tuple, collections.abc.Mapping))


def _keys(mapping):
    return sorted(mapping)


def flatten(structure):
    """The leaves of ``structure`` (mapping values by sorted key; lists are leaves)."""
    if type(structure) is tuple and not any(is_structure(x) for x in structure):
        return list(structure)
    leaves = []
    _collect(structure, leaves)
    return leaves


def _collect(x, leaves):
    if isinstance(x, tuple):
        for item in x:
            _collect(item, leaves)
    elif isinstance(x, collections.abc.Mapping):
        for key in _keys(x):
            _collect(x[key], leaves)
    else:
        leaves.append(x)


def pack(structure, leaves):
    """``structure`` with its leaves replaced, in order, by ``leaves``."""
    return _rebuild(structure, iter(leaves))


def _rebuild(x, leaves):
    if isinstance(x, tuple):
        items = [_rebuild(item, leaves) for item in x]
        return type(x)(*items) if hasattr(type(x), "_fields") else type(x)(items)
    if isinstance(x, collections.abc.Mapping):
        values = {key: _rebuild(x[key], leaves) for key in _keys(x)}
        return type(x)((key, values[key]) for key in x)
    return next(leaves)


def map_structure(fn, structure):
    """``fn`` applied to every leaf of ``structure``, packed like it."""
    return pack(structure, [fn(x) for x in flatten(structure)])


def same_structure(a, b):
    """Whether ``a`` and ``b`` nest alike (same container kinds, lengths and keys)."""
    if isinstance(a, tuple) or isinstance(b, tuple):
        return isinstance(a, tuple) and isinstance(b, tuple) and len(a) == len(b) and all(
            same_structure(x, y) for x, y in zip(a, b))
    if isinstance(a, collections.abc.Mapping) or isinstance(b, collections.abc.Mapping):
        return isinstance(a, collections.abc.Mapping) and isinstance(b, collections.abc.Mapping) and \
            set(a) == set(b) and all(same_structure(a[k], b[k]) for k in a)
    return True


# -- specs ------------------------------------------------------------------------------------------------
class DatasetSpec:
    """The type of a dataset used as a value (the windows ``Dataset.window`` produces).

    Parameters
    ----------
    element_spec : nested structure of TensorSpec / DatasetSpec
    dataset_shape : TensorShape, default ``TensorShape([])``
    """

    __slots__ = ("_element_spec", "_dataset_shape")

    def __init__(self, element_spec, dataset_shape=()):
        self._element_spec = element_spec
        self._dataset_shape = as_shape(dataset_shape)

    @staticmethod
    def from_value(value):
        """The spec of the dataset ``value``."""
        return DatasetSpec(value.element_spec)

    @property
    def element_spec(self):
        """The element spec of datasets of this type."""
        return self._element_spec

    @property
    def shape(self):
        """TensorShape: the shape of the dataset value (scalar)."""
        return self._dataset_shape

    @property
    def value_type(self):
        """The Python type of values of this spec (tf.data.Dataset)."""
        from vfw.frontends.tensorflow.data._dataset import Dataset

        return Dataset

    def is_compatible_with(self, spec_or_value):
        other = spec_or_value if isinstance(spec_or_value, DatasetSpec) else spec_of(spec_or_value)
        return isinstance(other, DatasetSpec) and compatible(self._element_spec, other.element_spec)

    def __eq__(self, other):
        return isinstance(other, DatasetSpec) and (self._element_spec, self._dataset_shape) == (
            other._element_spec, other._dataset_shape)

    def __hash__(self):
        return hash((DatasetSpec, self._dataset_shape))

    def __repr__(self):
        return f"DatasetSpec({self._element_spec!r}, {self._dataset_shape!r})"


def spec_of(leaf):
    """The spec of a normalized leaf: a tensor's TensorSpec, a ragged tensor's RaggedTensorSpec, a dataset's
    DatasetSpec."""
    if isinstance(leaf, CoreTensor):
        return TensorSpec(leaf.array.shape, _dtypes.of_array(leaf.array))
    if isinstance(leaf, RaggedTensor):
        return RaggedTensorSpec.from_value(leaf)
    if isinstance(leaf, SparseTensor):
        return SparseTensorSpec.from_value(leaf)
    return DatasetSpec(leaf.element_spec)


def structure_of(value):
    """The element spec of a normalized value (see :func:`normalize`)."""
    return map_structure(spec_of, value)


def compatible(a, b):
    """Whether two element specs describe the same structure with matching dtypes and compatible shapes."""
    if not same_structure(a, b):
        return False
    for x, y in zip(flatten(a), flatten(b)):
        if type(x) is not type(y):
            return False
        if isinstance(x, TensorSpec):
            if x.dtype != y.dtype or not x.shape.is_compatible_with(y.shape):
                return False
        elif isinstance(x, (RaggedTensorSpec, SparseTensorSpec)):
            if not x.is_compatible_with(y):
                return False
        elif not compatible(x.element_spec, y.element_spec):
            return False
    return True


def compatible_types(a, b):
    """Whether two element specs nest alike with the same dtypes (shapes may differ)."""
    if not same_structure(a, b):
        return False
    for x, y in zip(flatten(a), flatten(b)):
        if type(x) is not type(y):
            return False
        if isinstance(x, (TensorSpec, SparseTensorSpec)) and x.dtype != y.dtype:
            return False
        if isinstance(x, RaggedTensorSpec) and x.most_specific_common_supertype([y]) is None:
            return False
        if isinstance(x, DatasetSpec) and not compatible_types(x.element_spec, y.element_spec):
            return False
    return True


def most_specific(a, b):
    """The most specific spec covering the compatible element specs ``a`` and ``b`` (dims that differ: None)."""
    def merge(x, y):
        if isinstance(x, TensorSpec):
            return TensorSpec(x.shape.most_specific_compatible_shape(y.shape), x.dtype)
        if isinstance(x, RaggedTensorSpec):
            return x.most_specific_common_supertype([y])
        if isinstance(x, SparseTensorSpec):
            return SparseTensorSpec(x.shape.most_specific_compatible_shape(y.shape), x.dtype)
        return DatasetSpec(most_specific(x.element_spec, y.element_spec))
    return pack(a, [merge(x, y) for x, y in zip(flatten(a), flatten(b))])


def batched(spec, batch_dim):
    """``spec`` with a leading dimension ``batch_dim`` (an int or None) on every component."""
    def batched_leaf(s):
        if isinstance(s, RaggedTensorSpec):
            return s.batched(batch_dim)
        return type(s)(TensorShape([batch_dim]).concatenate(s.shape), s.dtype)  # a TensorSpec or SparseTensorSpec
    return map_structure(batched_leaf, spec)


def describe_types(spec):
    """TF's sketch of a structure in messages: ``(tf.int32, tf.int32)``."""
    return str(map_structure(lambda s: _TypeName(s.dtype.name), spec))


class _TypeName:
    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"tf.{self.name}"


# -- values -------------------------------------------------------------------------------------------
def is_dataset(x):
    from vfw.frontends.tensorflow.data._dataset import Dataset

    return isinstance(x, Dataset)


def to_leaf(x):
    """A leaf of an element as TF converts it: datasets, ragged and sparse tensors stay, everything else becomes a
    tensor.

    A list of numpy arrays or tensors of one dtype (or of such lists) keeps that dtype, as TF
    converts it with the dtype of its items' common type spec (``tf.constant`` would make a list of
    int64 arrays int32).
    """
    if type(x) is Tensor or isinstance(x, (RaggedTensor, SparseTensor)) or is_dataset(x):
        return x
    return _dispatch.convert_to_tensor(x, dtype=_items_dtype(x) if type(x) is list else None)


def _items_dtype(value):
    """The dtype shared by a numpy array or tensor, or by all the items of a non-empty list of them (else None)."""
    if isinstance(value, np.ndarray):
        return _dtypes.of_array(value)
    if isinstance(value, CoreTensor) and not hasattr(value, "_as_tensor"):
        return _dtypes.of_array(value.array)
    if type(value) is list and value:
        found = [_items_dtype(item) for item in value]
        if found[0] is not None and all(d == found[0] for d in found):
            return found[0]
    return None


def normalize(value):
    """``value`` as an element: its structure with every leaf a tensor or a dataset (lists become tensors)."""
    if type(value) is Tensor:
        return value
    return map_structure(to_leaf, value)


def components(value):
    """The flat components of a normalized value (arrays for tensors, datasets as they are)."""
    return tuple([x.array if isinstance(x, CoreTensor) else x for x in flatten(value)])


def example_component(spec, size, fill):
    """A component matching ``spec`` (unknown dims of ``size``, values ``fill``), to trace a function with."""
    if isinstance(spec, DatasetSpec):
        from vfw.frontends.tensorflow.data._sources import empty_dataset

        return empty_dataset(spec.element_spec)
    if isinstance(spec, RaggedTensorSpec):
        from vfw.frontends.tensorflow.data._ragged_elements import example

        return example(spec, size, fill)
    if not isinstance(spec, TensorSpec):
        raise NotImplementedError(f"vfw.tensorflow: dataset functions cannot take elements holding {spec} (sparse "
                                  "elements of `sparse_batch` can only be iterated)")
    dims = [size] if spec.shape.rank is None else [size if d is None else d for d in spec.shape.as_list()]
    if spec.dtype == _dtypes.string:
        # 0 and 1: "" and "1"; 2 and 3: 12 and 13 comma-separated digits (see _functional._FIELD_EXAMPLES)
        text = b"" if fill == 0 else str(fill).encode() if fill == 1 else b",".join([str(fill).encode()] * (fill + 10))
        return np.full(dims, text, dtype=object)
    return np.full(dims, fill, dtype=spec.dtype.np)


# -- flat components -> what users see --------------------------------------------------------------
def _user_leaf(component):
    return _wrap(component) if isinstance(component, np.ndarray) else component


def packer(spec):
    """A function turning flat components into the element users see (arrays wrapped as tensors)."""
    if not is_structure(spec):
        if isinstance(spec, TensorSpec):
            return lambda comps: _wrap(comps[0])
        return lambda comps: _user_leaf(comps[0])
    if type(spec) is tuple and all(isinstance(s, TensorSpec) for s in spec):
        return lambda comps: tuple([_wrap(c) for c in comps])
    return lambda comps: pack(spec, [_user_leaf(c) for c in comps])
