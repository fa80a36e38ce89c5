"""Values that are not tensors: ONNX sequences and optionals.

Engine values are numpy arrays, with two exceptions that ONNX's sequence and
optional ops (``vfw/core/ops/sequence.py``) produce and read:

* a :class:`TensorSequence` is a Python ``list`` of arrays that share a dtype
  (kept in ``elem_dtype``, so that an empty sequence knows it too);
* an :class:`OptionalValue` holds a tensor, a sequence or nothing.

Both are immutable by convention: sequence ops return new containers and never
change their inputs, so graph passes may share one container between readers
(common-subexpression elimination) exactly as they share arrays.  Executors pass
them through untouched: :class:`~vfw.core.registry.Op` returns them as they are
(:func:`is_container`), and the control-flow ops carry them through their bodies.
"""

import numpy as np


class TensorSequence(list):
    """An ONNX sequence of tensors: a list of numpy arrays of dtype ``elem_dtype``.

    Parameters
    ----------
    items : iterable of numpy.ndarray
    elem_dtype : numpy.dtype
        The dtype of the elements (that of an empty sequence too).
    """

    __slots__ = ("elem_dtype",)

    def __init__(self, items=(), elem_dtype=None):
        super().__init__(items)
        if elem_dtype is None:
            elem_dtype = self[0].dtype if self else np.dtype(np.float32)
        self.elem_dtype = np.dtype(elem_dtype)

    def __repr__(self):
        return f"TensorSequence({list.__repr__(self)}, elem_dtype={self.elem_dtype})"


class OptionalValue:
    """An ONNX optional: ``value`` is a tensor, a :class:`TensorSequence`, or ``None`` (empty).

    Parameters
    ----------
    value : numpy.ndarray, TensorSequence or None
    """

    __slots__ = ("value",)

    def __init__(self, value=None):
        self.value = value

    def __repr__(self):
        return f"OptionalValue({self.value!r})"


def is_container(value):
    """Whether ``value`` is a sequence or an optional (a non-tensor engine value)."""
    return isinstance(value, (TensorSequence, OptionalValue))


def describe_value(value):
    """``sequence<float32>[3]`` / ``optional(...)`` style description of a container."""
    if isinstance(value, TensorSequence):
        return f"sequence<{value.elem_dtype.name}>[{len(value)}]"
    if isinstance(value, OptionalValue):
        return "optional(empty)" if value.value is None else f"optional({describe_value(value.value)})"
    dtype, shape = getattr(value, "dtype", None), getattr(value, "shape", None)
    if dtype is None or shape is None:
        return type(value).__name__
    return f"{dtype.name}[{', '.join(map(str, shape))}]"
