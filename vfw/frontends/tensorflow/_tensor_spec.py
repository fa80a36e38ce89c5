"""tf.TensorSpec: the shape (dims may be unknown) and dtype of tensors, as tf.function's input signatures."""

import numpy as np

from vfw.core.tensor import Tensor as CoreTensor
from vfw.frontends.tensorflow import _dtypes
from vfw.frontends.tensorflow._dispatch import convert_to_tensor
from vfw.frontends.tensorflow._shape import as_shape


class TensorSpec:
    """Describes a tensor: its shape (dims may be unknown), dtype and an optional name.

    Parameters
    ----------
    shape : TensorShape, list of (int or None), or None
        ``None`` for an unknown rank.
    dtype : DType or compatible
    name : str, optional
    """

    __slots__ = ("_shape", "_dtype", "_name")

    def __init__(self, shape, dtype=_dtypes.float32, name=None):
        self._shape = as_shape(shape)
        self._dtype = _dtypes.as_dtype(dtype)
        self._name = name

    @classmethod
    def from_tensor(cls, tensor, name=None):
        """The spec of ``tensor`` (its shape and dtype)."""
        return cls(tensor.array.shape, _dtypes.of_array(tensor.array), name)

    @classmethod
    def from_spec(cls, spec, name=None):
        """A copy of ``spec`` (renamed when ``name`` is given)."""
        return cls(spec.shape, spec.dtype, spec.name if name is None else name)

    @property
    def shape(self):
        """TensorShape: the shape (dims may be None)."""
        return self._shape

    @property
    def dtype(self):
        """DType: the element type."""
        return self._dtype

    @property
    def name(self):
        """str or None: the name."""
        return self._name

    @property
    def value_type(self):
        """The Python type of values this spec describes (tf.Tensor)."""
        from vfw.frontends.tensorflow._tensor import TensorBase

        return TensorBase

    def is_compatible_with(self, spec_or_value):
        """Whether a tensor or spec has this dtype and a shape compatible with this one."""
        other = spec_or_value if isinstance(spec_or_value, TensorSpec) else spec_of(spec_or_value)
        return other is not None and other.dtype == self._dtype and self._shape.is_compatible_with(other.shape)

    def is_subtype_of(self, other):
        """Whether every tensor this spec describes is described by ``other`` (same dtype, as or more general)."""
        return isinstance(other, TensorSpec) and other.dtype == self._dtype and shape_within(self._shape, other.shape)

    def most_specific_common_supertype(self, others):
        """The most specific spec describing this one and ``others`` (None when dtypes differ)."""
        shape = self._shape
        for other in others:
            if not isinstance(other, TensorSpec) or other.dtype != self._dtype:
                return None
            shape = shape.most_specific_compatible_shape(other.shape)
        return TensorSpec(shape, self._dtype, self._name)

    most_specific_compatible_type = most_specific_common_supertype

    def flatten(self):
        """list: the TraceTypes of the tensors this spec stands for (itself)."""
        return [self]

    def to_tensors(self, value):
        """``[value]`` as a tensor of this spec (converted to its dtype; TypeError when its shape or dtype does
        not fit)."""
        # a tensor or variable keeps its dtype (a mismatch is the TypeError below, as TF); other values convert
        keeps_dtype = isinstance(value, CoreTensor) or hasattr(value, "_as_tensor")
        tensor = convert_to_tensor(value, dtype=None if keeps_dtype else self._dtype)
        found = spec_of(tensor)
        if not found.is_subtype_of(self):
            raise TypeError(f"Can not cast {found!r} to {self!r}")
        return [tensor]

    def from_tensors(self, tensors):
        """The value this spec stands for, taken from the iterator ``tensors`` (its next tensor)."""
        return next(tensors)

    def __eq__(self, other):
        return isinstance(other, TensorSpec) and (self._shape, self._dtype, self._name) == (
            other.shape, other.dtype, other.name)

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return hash((self._shape, self._dtype, self._name))

    def __repr__(self):
        return f"TensorSpec(shape={self._shape}, dtype={self._dtype!r}, name={self._name!r})"

    def __reduce__(self):
        return (TensorSpec, (self._shape, self._dtype, self._name))


def spec_of(value):
    """The TensorSpec of a tensor, variable or numpy array (``None`` for other values)."""
    convert = getattr(value, "_as_tensor", None)
    if convert is not None:
        value = convert()
    if isinstance(value, CoreTensor):
        value = value.array
    if isinstance(value, np.ndarray):
        dtype = _dtypes.of_array(value)
        return None if dtype is None else TensorSpec(value.shape, dtype)
    return None


def shape_within(shape, general):
    """Whether ``shape`` is as or more specific than ``general`` (every known dim of ``general`` matches)."""
    if general.rank is None:
        return True
    if shape.rank != general.rank:
        return False
    return all(g is None or s == g for s, g in zip(shape.as_list(), general.as_list()))


NAMESPACES = {"tf": ["TensorSpec"]}
TENSOR_METHODS = {}
