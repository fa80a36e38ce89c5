"""``tf.compat.dimension_at_index``'s result: TF 1's ``Dimension``, one possibly unknown dimension of a shape."""

import operator


class Dimension:
    """One dimension of a shape: an int, or None when unknown (``tf.compat.v1.Dimension``).

    Parameters
    ----------
    value : int, Dimension or None
        The size; None for an unknown dimension.
    """

    __slots__ = ("_value",)

    def __init__(self, value):
        if isinstance(value, Dimension):
            value = value.value
        if value is not None:
            try:
                value = operator.index(value)
            except TypeError:
                raise TypeError(f"Dimension value must be integer or None or have an __index__ method, got value "
                                f"'{value!r}' with type '{type(value)}'") from None
            if value < 0:
                raise ValueError(f"Dimension {value} must be >= 0")
        self._value = value

    @property
    def value(self):
        """int or None: the size."""
        return self._value

    def __repr__(self):
        return f"Dimension({self._value!r})"

    def __str__(self):
        return "?" if self._value is None else str(self._value)

    def __int__(self):
        return self._value

    def __index__(self):
        return self._value

    def __eq__(self, other):
        # TF: a comparison involving an unknown dimension is unknown (None).
        try:
            other = Dimension(other)
        except (TypeError, ValueError):
            return NotImplemented
        if self._value is None or other.value is None:
            return None
        return self._value == other.value

    def __ne__(self, other):
        equal = self.__eq__(other)
        return equal if equal is None or equal is NotImplemented else not equal

    def __hash__(self):
        return hash(self._value)
