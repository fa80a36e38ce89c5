"""tf.SparseTensor and tf.SparseTensorSpec: a tensor stored as its non-default entries.

A ``SparseTensor`` is three tensors: ``indices`` (int64 ``[nnz, rank]``, one row per stored entry),
``values`` (``[nnz]``, any dtype) and ``dense_shape`` (int64 ``[rank]``). Construction checks what TF's
constructor checks (int64 conversion, ranks, matching sizes: ``ValueError``/``TypeError``); index values
are only checked by the ops that use them (``tf.sparse.to_dense``...), as in TF. The ops live in
``_sparse_ops``/``_sparse_reduce``; the operators (``*``, ``/``) are bound onto the class by ``_sparse_ops``.
This module imports no op family so that ``tf.shape``/``tf.is_tensor`` can recognise sparse tensors.
Sparse tensors are eager only: building one while a ``tf.function`` traces raises NotImplementedError.
"""

import numpy as np

from vfw.core.graph.trace import _active as _tracing
from vfw.core.graph.trace import current_trace
from vfw.frontends.tensorflow import _dtypes
from vfw.frontends.tensorflow._dispatch import convert_to_tensor
from vfw.frontends.tensorflow._shape import TensorShape, as_shape


def _int64_part(value, what):
    """``value`` as an int64 tensor, with TF's conversion errors prefixed by the argument's name."""
    try:
        return convert_to_tensor(value, dtype=_dtypes.int64)
    except ValueError as e:
        raise ValueError(f"{what}: {e}") from None


def _check_rank(t, rank):
    if t.array.ndim != rank:
        raise ValueError(f"Shape {TensorShape(list(t.array.shape))} must have rank {rank}")


def _check_dims(a, b):
    if a != b:
        raise ValueError(f"Dimensions {a} and {b} are not compatible")


def refuse_in_graph(what):
    """Refuse sparse computation while a tf.function traces: vfw computes a sparse tensor's indices with numpy,
    which a graph would freeze at their traced values (NotImplementedError rather than wrong later calls)."""
    if _tracing and current_trace() is not None:
        raise NotImplementedError(f"{what} inside tf.function: vfw.tensorflow computes sparse tensors eagerly only "
                                  "(their index bookkeeping is not graph ops); call it outside the tf.function")


class SparseTensor:
    """A sparse tensor: ``dense[indices[k]] = values[k]``, every other entry zero (or a default).

    Parameters
    ----------
    indices : int64 tensor-like, shape ``[nnz, rank]``
        The stored entries' coordinates (canonically in row-major order; see ``tf.sparse.reorder``).
    values : tensor-like, shape ``[nnz]``
    dense_shape : int64 tensor-like, shape ``[rank]``
    """

    def __init__(self, indices, values, dense_shape):
        refuse_in_graph("tf.SparseTensor")
        indices = _int64_part(indices, "indices")
        values = convert_to_tensor(values)
        dense_shape = _int64_part(dense_shape, "dense_shape")
        _check_rank(indices, 2)
        _check_rank(values, 1)
        _check_rank(dense_shape, 1)
        _check_dims(indices.array.shape[0], values.array.shape[0])
        _check_dims(indices.array.shape[1], dense_shape.array.shape[0])
        self._indices, self._values, self._dense_shape = indices, values, dense_shape

    @classmethod
    def _from_parts(cls, indices, values, dense_shape):
        """A sparse tensor of already-checked parts (int64 tensors for ``indices``/``dense_shape``)."""
        refuse_in_graph("tf.SparseTensor")
        st = cls.__new__(cls)
        st._indices, st._values, st._dense_shape = indices, values, dense_shape
        return st

    @classmethod
    def from_value(cls, sparse_tensor_value):
        """``sparse_tensor_value`` itself when it is a SparseTensor, else one built from its three parts."""
        if isinstance(sparse_tensor_value, SparseTensor):
            return sparse_tensor_value
        return cls(sparse_tensor_value.indices, sparse_tensor_value.values, sparse_tensor_value.dense_shape)

    indices = property(lambda self: self._indices, doc="int64 Tensor ``[nnz, rank]``: the stored entries' indices.")
    values = property(lambda self: self._values, doc="Tensor ``[nnz]``: the stored entries' values.")
    dense_shape = property(lambda self: self._dense_shape, doc="int64 Tensor ``[rank]``: the dense shape.")

    @property
    def dtype(self):
        """DType: the values' dtype."""
        return _dtypes.of_array(self._values.array)

    @property
    def shape(self):
        """TensorShape: the dense shape (negative sizes are unknown dims)."""
        return TensorShape([int(d) if d >= 0 else None for d in self._dense_shape.array])

    def get_shape(self):
        """The ``shape`` property."""
        return self.shape

    def set_shape(self, shape):
        """Check that ``shape`` is compatible with the dense shape (``ValueError`` otherwise)."""
        wanted = as_shape(shape)
        if not self.shape.is_compatible_with(wanted):
            raise ValueError(f"Shapes {self.shape} and {wanted} are not compatible")

    def with_values(self, new_values):
        """A sparse tensor with the same indices and dense shape and ``new_values`` (``[nnz]``)."""
        new_values = convert_to_tensor(new_values)
        _check_rank(new_values, 1)
        _check_dims(self._indices.array.shape[0], new_values.array.shape[0])
        return SparseTensor._from_parts(self._indices, new_values, self._dense_shape)

    def consumers(self):
        """The ops using this tensor in a graph: none in eager code."""
        return []

    @property
    def _type_spec(self):
        return SparseTensorSpec(self.shape, self.dtype)

    def _nest_components(self):
        """The tensors ``tf.nest.flatten(..., expand_composites=True)`` gives: indices, values, dense shape."""
        return [self._indices, self._values, self._dense_shape]

    def _nest_rebuilt(self, components):
        """A SparseTensor of the tensors ``components`` (as :meth:`_nest_components` gives them)."""
        return SparseTensor._from_parts(*components)

    def __repr__(self):
        return f"SparseTensor(indices={self._indices!s}, values={self._values!s}, dense_shape={self._dense_shape!s})"

    __str__ = __repr__


class SparseTensorSpec:
    """The type of a SparseTensor: its (possibly partial) dense shape and dtype.

    Parameters
    ----------
    shape : TensorShape-like, optional
        Unknown rank when None.
    dtype : DType-like
        The values' dtype (float32 by default).
    """

    def __init__(self, shape=None, dtype=_dtypes.float32):
        self._shape = as_shape(shape)
        self._dtype = _dtypes.as_dtype(dtype)

    shape = property(lambda self: self._shape, doc="TensorShape: the dense shape.")
    dtype = property(lambda self: self._dtype, doc="DType: the values' dtype.")
    value_type = property(lambda self: SparseTensor, doc="The class of the values of this spec.")

    @classmethod
    def from_value(cls, value):
        """The spec of the SparseTensor ``value``."""
        return cls(value.shape, value.dtype)

    def is_compatible_with(self, spec_or_value):
        """Whether a SparseTensor or spec has a compatible shape and the same dtype."""
        if isinstance(spec_or_value, SparseTensor):
            spec_or_value = spec_or_value._type_spec
        if not isinstance(spec_or_value, SparseTensorSpec):
            return False
        return self._dtype == spec_or_value.dtype and self._shape.is_compatible_with(spec_or_value.shape)

    def _key(self):
        return self._dtype.name, None if self._shape.rank is None else tuple(self._shape.as_list())

    def __eq__(self, other):
        return isinstance(other, SparseTensorSpec) and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    def __repr__(self):
        return f"SparseTensorSpec({self._shape!r}, {self._dtype!r})"


def as_sparse(value, what="sp_input"):
    """``value`` when it is a SparseTensor, else TypeError naming the argument (TF's check)."""
    if not isinstance(value, SparseTensor):
        raise TypeError(f"Input must be a SparseTensor. {what}: {value!r}")
    return value


def dense_shape_of(st):
    """The dense shape as a tuple of Python ints."""
    return tuple(int(d) for d in np.asarray(st.dense_shape.array))


NAMESPACES = {"tf": ["SparseTensor", "SparseTensorSpec"], "sparse": ["SparseTensor"]}
TENSOR_METHODS = {}
