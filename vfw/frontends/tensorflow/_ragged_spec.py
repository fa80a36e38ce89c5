"""``tf.RaggedTensorSpec``: the type of ragged tensors (shape with None ragged dims, dtype, ragged rank).

A spec with ``ragged_rank`` 0 describes plain tensors: tf.data gives it to the rows of a ragged tensor of
ragged rank 1 (``from_tensor_slices(ragged)``, ``unbatch``), and such elements come out as ``tf.Tensor``.
"""

from vfw.frontends.tensorflow import _dtypes
from vfw.frontends.tensorflow._ragged import RaggedTensor
from vfw.frontends.tensorflow._shape import TensorShape, as_shape


class RaggedTensorSpec:
    """Describes ragged tensors: their shape (ragged dims None), values dtype, ragged rank and row splits dtype.

    Parameters
    ----------
    shape : TensorShape or list, optional
        Unknown rank when None (``ragged_rank`` must then be given).
    dtype : DType, default tf.float32
    ragged_rank : int, optional
        How many dims after the first are ragged (``rank - 1`` by default); must be below the rank.
    row_splits_dtype : DType, default tf.int64
    flat_values_spec : TensorSpec, optional

    Raises
    ------
    ValueError
        When neither ``ragged_rank`` nor a shape of known rank is given, or ``ragged_rank`` is not below the rank.
    """

    __slots__ = ("_shape", "_dtype", "_ragged_rank", "_row_splits_dtype", "_flat_values_spec")

    def __init__(self, shape=None, dtype=_dtypes.float32, ragged_rank=None, row_splits_dtype=_dtypes.int64,
                 flat_values_spec=None):
        self._shape = as_shape(shape)
        self._dtype = _dtypes.as_dtype(dtype)
        self._row_splits_dtype = _dtypes.as_dtype(row_splits_dtype)
        self._flat_values_spec = flat_values_spec
        rank = self._shape.rank
        if ragged_rank is None:
            if rank is None:
                raise ValueError("Must specify ragged_rank or a shape with a known rank.")
            ragged_rank = rank - 1
        if not isinstance(ragged_rank, int):
            raise TypeError(f"Argument `ragged_rank` must be an int. Received {ragged_rank}.")
        if rank is not None and ragged_rank >= rank:
            raise ValueError(f"Argument `ragged_rank` ({ragged_rank}) must be less than rank ({rank}).")
        self._ragged_rank = ragged_rank

    @classmethod
    def from_value(cls, value):
        """The spec of the ragged tensor ``value``."""
        return cls(value.shape, value.dtype, value.ragged_rank, value.row_splits.dtype)

    @property
    def shape(self):
        """TensorShape: the shape (ragged dims None)."""
        return self._shape

    @property
    def dtype(self):
        """DType: the values' dtype."""
        return self._dtype

    @property
    def ragged_rank(self):
        """int: how many dims after the first are ragged."""
        return self._ragged_rank

    @property
    def row_splits_dtype(self):
        """DType: the row splits' dtype (int64 or int32)."""
        return self._row_splits_dtype

    @property
    def flat_values_spec(self):
        """TensorSpec or None: the flat values' spec when it was given."""
        return self._flat_values_spec

    @property
    def value_type(self):
        """The Python type of values this spec describes (tf.RaggedTensor)."""
        return RaggedTensor

    def _key(self):
        return self._shape, self._dtype, self._ragged_rank, self._row_splits_dtype

    def is_compatible_with(self, spec_or_value):
        """Whether a ragged tensor or spec has this dtype, ragged rank and a compatible shape."""
        other = spec_or_value
        if isinstance(other, RaggedTensor):
            other = RaggedTensorSpec.from_value(other)
        if not isinstance(other, RaggedTensorSpec):
            return False
        return (other.dtype, other.ragged_rank, other.row_splits_dtype) == (
            self._dtype, self._ragged_rank, self._row_splits_dtype) and self._shape.is_compatible_with(other.shape)

    def most_specific_common_supertype(self, others):
        """The most specific spec describing this one and ``others`` (None when dtypes or ragged ranks differ)."""
        shape = self._shape
        for other in others:
            if not isinstance(other, RaggedTensorSpec) or (other.dtype, other.ragged_rank, other.row_splits_dtype) \
                    != (self._dtype, self._ragged_rank, self._row_splits_dtype):
                return None
            shape = shape.most_specific_compatible_shape(other.shape)
        return RaggedTensorSpec(shape, self._dtype, self._ragged_rank, self._row_splits_dtype)

    most_specific_compatible_type = most_specific_common_supertype

    def batched(self, batch_dim):
        """The spec of a batch of ``batch_dim`` (int or None) such values: one more leading, ragged dim."""
        return RaggedTensorSpec(TensorShape([batch_dim]).concatenate(self._shape), self._dtype,
                                self._ragged_rank + 1, self._row_splits_dtype)

    def unbatched(self):
        """The spec of the rows of such values (ragged rank 0: plain tensors)."""
        shape = TensorShape(None) if self._shape.rank is None else TensorShape(self._shape.as_list()[1:])
        return RaggedTensorSpec(shape, self._dtype, self._ragged_rank - 1, self._row_splits_dtype)

    def __eq__(self, other):
        return isinstance(other, RaggedTensorSpec) and self._key() == other._key()

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return hash(self._key())

    def __repr__(self):
        return (f"RaggedTensorSpec({self._shape!r}, {self._dtype!r}, {self._ragged_rank}, "
                f"{self._row_splits_dtype!r})")


NAMESPACES = {"tf": ["RaggedTensorSpec"]}
