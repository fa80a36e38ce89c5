"""tf.TensorShape: a possibly partially known shape (unknown rank, or None for unknown dimensions)."""

import operator

from vfw.frontends.tensorflow._trace_type import ValuelessTraceType


def _dim(value):
    if value is None:
        return None
    if hasattr(value, "value") and not isinstance(value, int):  # a Dimension-like object
        return _dim(value.value)
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"Dimension value must be integer or None or have an __index__ method, got value "
                        f"'{value!r}' with type '{type(value)}'") from None


class TensorShape(ValuelessTraceType):
    """The shape of a tensor: ``TensorShape([2, None])`` (rank 2, second dim unknown), ``TensorShape(None)``.

    Parameters
    ----------
    dims : iterable of (int or None), TensorShape, or None
        The dimensions; None for an unknown rank.
    """

    __slots__ = ("_dims",)

    def __init__(self, dims):
        if isinstance(dims, TensorShape):
            self._dims = dims._dims
        elif dims is None:
            self._dims = None
        elif isinstance(dims, (list, tuple)) or hasattr(dims, "__iter__"):
            self._dims = tuple(_dim(d) for d in dims)
        else:
            self._dims = (_dim(dims),)

    # -- what it is ------------------------------------------------------------------------------
    @property
    def rank(self):
        """int or None: the number of dimensions (None when unknown)."""
        return None if self._dims is None else len(self._dims)

    ndims = rank

    @property
    def dims(self):
        """list of (int or None), or None for an unknown rank."""
        return None if self._dims is None else list(self._dims)

    def as_list(self):
        """The dimensions as a list (None for unknown ones)."""
        if self._dims is None:
            raise ValueError("as_list() is not defined on an unknown TensorShape.")
        return list(self._dims)

    def is_fully_defined(self):
        """bool: every dimension (and the rank) is known."""
        return self._dims is not None and None not in self._dims

    def num_elements(self):
        """int or None: the number of elements, when fully defined."""
        if not self.is_fully_defined():
            return None
        n = 1
        for d in self._dims:
            n *= d
        return n

    # -- compatibility ---------------------------------------------------------------------------
    def is_compatible_with(self, other):
        """bool: whether some fully defined shape matches both."""
        other = as_shape(other)
        if self._dims is None or other._dims is None:
            return True
        return len(self._dims) == len(other._dims) and all(
            a is None or b is None or a == b for a, b in zip(self._dims, other._dims))

    def assert_is_compatible_with(self, other):
        """Raise ValueError unless compatible with ``other``."""
        if not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {as_shape(other)} are incompatible")

    def merge_with(self, other):
        """The most specific shape compatible with both (ValueError when they conflict)."""
        other = as_shape(other)
        if self._dims is None:
            return other
        if other._dims is None:
            return self
        if not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {other} are not compatible")
        return TensorShape([a if a is not None else b for a, b in zip(self._dims, other._dims)])

    def most_specific_compatible_shape(self, other):
        """The most specific shape both are compatible with (dims that differ become None)."""
        other = as_shape(other)
        if self._dims is None or other._dims is None or len(self._dims) != len(other._dims):
            return TensorShape(None)
        return TensorShape([a if a == b else None for a, b in zip(self._dims, other._dims)])

    def concatenate(self, other):
        """This shape followed by ``other``'s dimensions."""
        other = as_shape(other)
        if self._dims is None or other._dims is None:
            return TensorShape(None)
        return TensorShape(self._dims + other._dims)

    def with_rank(self, rank):
        """This shape, when it has (or may have) ``rank`` dimensions."""
        if self._dims is None:
            return TensorShape([None] * rank)
        if len(self._dims) != rank:
            raise ValueError(f"Shape {self} must have rank {rank}")
        return self

    def assert_has_rank(self, rank):
        """Raise ValueError unless the rank is ``rank`` (or unknown)."""
        self.with_rank(rank)

    def with_rank_at_least(self, rank):
        """This shape, when it has (or may have) at least ``rank`` dimensions (ValueError otherwise)."""
        if self._dims is not None and len(self._dims) < rank:
            raise ValueError(f"Shape {self} must have rank at least {rank}")
        return self

    def with_rank_at_most(self, rank):
        """This shape, when it has (or may have) at most ``rank`` dimensions (ValueError otherwise)."""
        if self._dims is not None and len(self._dims) > rank:
            raise ValueError(f"Shape {self} must have rank at most {rank}")
        return self

    def assert_same_rank(self, other):
        """Raise ValueError unless ``other`` has this rank (or either rank is unknown)."""
        other = as_shape(other)
        if self._dims is not None and other._dims is not None and len(self._dims) != len(other._dims):
            raise ValueError(f"Shapes {self} and {other} must have the same rank")

    def assert_is_fully_defined(self):
        """Raise ValueError unless every dimension (and the rank) is known."""
        if not self.is_fully_defined():
            raise ValueError(f"Shape {self} is not fully defined")

    # -- tf.function's trace types ---------------------------------------------------------------
    def is_subtype_of(self, other):
        """bool: whether ``other`` (a TensorShape) describes every shape this one does."""
        if not isinstance(other, TensorShape):
            return False
        if other._dims is None:
            return True
        return self._dims is not None and len(self._dims) == len(other._dims) and all(
            b is None or a == b for a, b in zip(self._dims, other._dims))

    def most_specific_common_supertype(self, others):
        """The most specific TensorShape describing this one and every one of ``others`` (None when one of them
        is not a TensorShape): dims that differ become None, ranks that differ an unknown rank."""
        result = self
        for other in others:
            if not isinstance(other, TensorShape):
                return None
            result = result.most_specific_compatible_shape(other)
        return result

    # -- Python protocol -------------------------------------------------------------------------
    def __len__(self):
        if self._dims is None:
            raise ValueError("Cannot take the length of shape with unknown rank.")
        return len(self._dims)

    def __iter__(self):
        if self._dims is None:
            raise ValueError("Cannot iterate over a shape with unknown rank.")
        return iter(self._dims)

    def __getitem__(self, key):
        if self._dims is None:
            return TensorShape(None) if isinstance(key, slice) else None
        if isinstance(key, slice):
            return TensorShape(self._dims[key])
        return self._dims[key]

    def __bool__(self):
        return self._dims is not None

    def __add__(self, other):
        return self.concatenate(other)

    def __radd__(self, other):
        return as_shape(other).concatenate(self)

    def __eq__(self, other):
        try:
            other = as_shape(other)
        except TypeError:
            return NotImplemented
        return self._dims == other._dims

    def __ne__(self, other):
        result = self.__eq__(other)
        return result if result is NotImplemented else not result

    def __hash__(self):
        return hash(self._dims)

    def __repr__(self):
        return "TensorShape(None)" if self._dims is None else f"TensorShape({list(self._dims)})"

    def __str__(self):
        if self._dims is None:
            return "<unknown>"
        inner = ", ".join("None" if d is None else str(d) for d in self._dims)
        return f"({inner},)" if len(self._dims) == 1 else f"({inner})"

    def __reduce__(self):
        return (TensorShape, (self.dims,))


def as_shape(shape):
    """``shape`` as a TensorShape."""
    return shape if isinstance(shape, TensorShape) else TensorShape(shape)
