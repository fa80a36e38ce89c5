"""Argument helpers the creation and array op families share: int-list arguments and fresh tensors.

Not a family module (it gives no TF names): ``_creation``, ``_array_ops``, ``_array_transform``,
``_array_gather`` and ``_array_slicing`` import from here.
"""

import numpy as np

from vfw.core.graph.trace import _active as _tracing
from vfw.core.graph.trace import current_trace
from vfw.core.tensor import Tensor as CoreTensor
from vfw.frontends.tensorflow import _dtypes
from vfw.frontends.tensorflow._conversion import cannot_convert
from vfw.frontends.tensorflow._dispatch import convert_to_tensor, kernel_type_name, wrap
from vfw.frontends.tensorflow._op_support import INDEX_DTYPES, attr_error
from vfw.frontends.tensorflow._shape import TensorShape
from vfw.frontends.tensorflow._traced_shapes import pinned

_ints = (int, np.integer)


def fresh(array):
    """A tf tensor around memory a factory just made (``tf.zeros``...).

    Under a graph trace it is a constant of the graph (each run makes it anew, as each eager
    call does), not a captured tensor.
    """
    t = wrap(array)
    if _tracing:
        trace = current_trace()
        if trace is not None:
            trace.mark_fresh(t)
    return t


def int_values(value, name, tf_op=None, python_error=TypeError):
    """A shape-like argument (int, sequence, TensorShape, numpy array or integer tensor) as a tuple of ints.

    Non-integer values raise InvalidArgumentError when they are a tensor (TF's kernel refuses its
    dtype) and ``python_error`` otherwise: TypeError where TF converts the argument to int32
    itself, InvalidArgumentError where the value goes to the kernel as it converts.
    """
    if isinstance(value, TensorShape):
        dims = value.as_list()
        if None in dims:
            raise ValueError(f"Cannot convert a partially known TensorShape {value} to a Tensor.")
        return tuple(dims)
    if isinstance(value, _ints) and not isinstance(value, bool):
        return (int(value),)
    if isinstance(value, (list, tuple)) and all(type(v) is int for v in value):
        return tuple(value)
    t = convert_to_tensor(value, dtype_hint=_dtypes.int32)
    if t.array.dtype not in INDEX_DTYPES:
        if isinstance(value, CoreTensor) or python_error is not TypeError:
            raise attr_error(tf_op, name, kernel_type_name(_dtypes.of_array(t.array)), "int32, int64")
        raise cannot_convert(value, _dtypes.int32)
    values = tuple(int(v) for v in t.array.reshape(-1))
    pinned(t, values, name, tf_op)
    return values


def scalar_int(value, name):
    """An int argument given as a Python/numpy int or a one-element integer tensor."""
    if isinstance(value, _ints) and not isinstance(value, bool):
        return int(value)
    t = convert_to_tensor(value, dtype_hint=_dtypes.int32)
    if t.array.dtype.kind not in "iu" or t.array.size != 1:
        raise TypeError(f"Argument `{name}` must be an integer scalar, got {value!r}")
    value = int(t.array.reshape(-1)[0])
    pinned(t, (value,), name, None)
    return value
