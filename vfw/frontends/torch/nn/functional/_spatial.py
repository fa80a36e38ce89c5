"""Argument handling shared by the convolution, pooling and vision functionals.

Spatial arguments (kernel sizes, strides, paddings...) arrive as an int or a sequence;
``ints`` normalizes them to one value per spatial dim with torch's errors.  Inputs may be
batched ``(N, C, *spatial)`` or, where torch allows, unbatched ``(C, *spatial)``: ``batched``
adds the missing batch dim and ``unbatched`` removes it from the result again.
"""

import numpy as np

from vfw.core.tensor import Tensor as CoreTensor
from vfw.frontends.torch import _shape

_INTS = (int, np.integer)


def is_int(value):
    """Whether ``value`` is an integer (not a bool) as torch's int arguments accept it."""
    return isinstance(value, _INTS) and not isinstance(value, (bool, np.bool_))


def ints(value, n, fn, arg, message=None):
    """``value`` (an int or a sequence of 1 or ``n`` ints) as a tuple of ``n`` Python ints.

    Raises
    ------
    TypeError
        If ``value`` or one of its elements is not an integer.
    RuntimeError
        If the sequence has another length (``message`` when given, else a generic one).
    """
    if isinstance(value, CoreTensor):
        value = value.array.tolist()
    if is_int(value):
        return (int(value),) * n
    if not isinstance(value, (tuple, list)):
        raise TypeError(f"{fn}(): argument '{arg}' must be tuple of ints, not {type(value).__name__}")
    for pos, v in enumerate(value):
        if not is_int(v):
            raise TypeError(f"{fn}(): argument '{arg}' must be tuple of ints, but found element of type "
                            f"{type(v).__name__} at pos {pos}")
    if len(value) == 1:
        return (int(value[0]),) * n
    if len(value) != n:
        raise RuntimeError(message or f"{fn}: expected {arg} to be a single integer value or a list of {n} values, "
                                      f"but got {arg}={list(value)}")
    return tuple(int(v) for v in value)


def batched(input, nd, fn, what=None):
    """``(input with a batch dim, whether one was added)`` for an input of ``nd`` spatial dims.

    ``what`` overrides the error message for other ranks.
    """
    rank = input.array.ndim
    if rank == nd + 2:
        return input, False
    if rank == nd + 1:
        return _shape.reshape_to(input, (1,) + input.array.shape), True
    raise RuntimeError(what or f"Expected {nd + 1}D (unbatched) or {nd + 2}D (batched) input to {fn}, but got "
                               f"input of size: {list(input.array.shape)}")


def unbatched(result, added):
    """``result`` without the batch dim ``batched`` added (unchanged when none was added)."""
    if not added:
        return result
    return _shape.reshape_to(result, result.array.shape[1:])


def size_text(shape, sep="x"):
    """A shape as torch writes it in messages, e.g. ``(3x4)``."""
    return "(" + sep.join(str(d) for d in shape) + ")"


class CallCache:
    """What validating a call produced (bound ops, shapes), keyed by its arguments and operand shapes.

    Training loops call a layer with the same shapes every step: a hit skips argument parsing and
    checks.  Keys holding unhashable arguments (lists) are simply not cached.
    """

    __slots__ = ("_entries", "_limit")

    def __init__(self, limit=256):
        self._entries = {}
        self._limit = limit

    def get(self, key):
        """The value stored for ``key``, or None."""
        try:
            return self._entries.get(key)
        except TypeError:
            return None

    def put(self, key, value):
        """Store ``value`` for ``key`` (the oldest entries go when full); returns ``value``."""
        if len(self._entries) >= self._limit:
            self._entries.clear()
        try:
            self._entries[key] = value
        except TypeError:
            pass
        return value


def operand_key(*tensors):
    """Shapes and dtypes of tensor operands (None stays None) for a cache key; None if one is not a tensor."""
    key = []
    for t in tensors:
        if t is None:
            key.append(None)
        elif isinstance(t, CoreTensor):
            key.append((t.array.shape, t.array.dtype))
        else:
            return None
    return tuple(key)
