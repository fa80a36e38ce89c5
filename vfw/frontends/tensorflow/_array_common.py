"""Helpers the creation and array op families share: tensor and int-list arguments, fresh tensors, host computations.

Not a family module (it gives no TF names): ``_creation``, ``_array_ops``, ``_array_transform``,
``_array_gather``, ``_array_slicing``, ``_array_sorting`` and ``_debugging_ops`` import from here.
"""

import numpy as np

from vfw.core.graph.trace import _active as _tracing
from vfw.core.graph.trace import current_trace
from vfw.core.tensor import Tensor as CoreTensor
from vfw.frontends.tensorflow import _dispatch, _dtypes, errors
from vfw.frontends.tensorflow._dispatch import convert_to_tensor, op_error, wrap
from vfw.frontends.tensorflow._shape import TensorShape

INT32 = np.dtype(np.int32)
INT64 = np.dtype(np.int64)
F32 = np.dtype(np.float32)
BOOL = np.dtype(np.bool_)
INDEX_DTYPES = (INT32, INT64)
InvalidArgumentError = errors.InvalidArgumentError
_ints = (int, np.integer)
_INT32_MIN, _INT32_END = -2 ** 31, 2 ** 31


def tensor(x, dtype=None, dtype_hint=None):
    """``x`` as a tf tensor: tensors pass through untouched, Python values convert as ``tf.convert_to_tensor``.

    Python ints, floats and (up to 2-level) lists of ints, the usual index and shape arguments,
    take a direct path (TF's inference: int32 when every value fits, else int64; float32).
    """
    kind = type(x)
    if dtype is None:
        if kind is _dispatch.Tensor:
            return x
        if dtype_hint is None or dtype_hint is _dtypes.int32:
            if kind is int:
                if _INT32_MIN <= x < _INT32_END:
                    return wrap(np.array(x, INT32))
            elif kind is float and dtype_hint is None:
                return wrap(np.array(x, F32))
            elif kind is list and x and _int_rows(x):
                try:
                    array = np.array(x, INT64)
                except (OverflowError, ValueError):  # beyond int64 or ragged: TF's errors
                    return convert_to_tensor(x, dtype, dtype_hint)
                if array.size and _INT32_MIN <= array.min() and array.max() < _INT32_END:
                    return wrap(array.astype(INT32))
                return wrap(array if array.size else array.astype(INT32))
    return convert_to_tensor(x, dtype, dtype_hint)


def _int_rows(values):
    """Whether ``values`` is a list of Python ints or a list of lists of Python ints."""
    first = type(values[0])
    if first is int:
        return all(type(v) is int for v in values)
    if first is list:
        return all(type(row) is list and row and all(type(v) is int for v in row) for row in values)
    return False


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
            raise op_error(f"Value for attr '{name}' of {_dispatch.kernel_type_name(_dtypes.of_array(t.array))} is "
                           "not in the list of allowed values: int32, int64", tf_op)
        raise TypeError(f"Cannot convert {value!r} to EagerTensor of dtype int32")
    return tuple(int(v) for v in t.array.reshape(-1))


def scalar_int(value, name):
    """An int argument given as a Python/numpy int or a one-element integer tensor."""
    if isinstance(value, _ints) and not isinstance(value, bool):
        return int(value)
    t = convert_to_tensor(value, dtype_hint=_dtypes.int32)
    if t.array.dtype.kind not in "iu" or t.array.size != 1:
        raise TypeError(f"Argument `{name}` must be an integer scalar, got {value!r}")
    return int(t.array.reshape(-1)[0])


def shape_text(shape):
    """A shape as TF's kernel messages print it: ``[2,3]``."""
    return "[" + ",".join(str(d) for d in shape) + "]"


def int64s(values):
    """A 1-D int64 array (engine ops take shapes, axes and indices as int64 inputs)."""
    return np.array(values, INT64)


def same_dtype(tensors, tf_op):
    """TF's InvalidArgumentError when ``tensors`` (already tensors) differ in dtype."""
    first = tensors[0].array.dtype
    for i, t in enumerate(tensors[1:], 1):
        if t.array.dtype != first:
            raise op_error(f"cannot compute {tf_op} as input #{i}(zero-based) was expected to be a "
                           f"{_dispatch.kernel_type_name(_dtypes.of_array(tensors[0].array))} tensor but is a "
                           f"{_dispatch.kernel_type_name(_dtypes.of_array(t.array))} tensor", tf_op)


def matching(values, tf_op):
    """A list of values as tensors of one dtype, as TF's list-input ops convert them.

    Python values take the dtype of the first tensor among ``values`` (else the first value's
    inferred dtype); tensors of different dtypes raise TF's InvalidArgumentError.
    """
    if values and type(values[0]) is _dispatch.Tensor:  # the common case: tensors of one dtype
        dtype = values[0].array.dtype
        for v in values:
            if type(v) is not _dispatch.Tensor or v.array.dtype != dtype:
                break
        else:
            return list(values)
    dtype = next((_dtypes.of_array(tensor(v).array) for v in values if isinstance(v, CoreTensor)), None)
    out = []
    for v in values:
        if isinstance(v, CoreTensor):
            out.append(tensor(v))
        else:
            t = convert_to_tensor(v, dtype)
            dtype = dtype or _dtypes.of_array(t.array)
            out.append(t)
    if out:
        same_dtype(out, tf_op)
    return out


def requires_record(*tensors):
    """Whether an op on ``tensors`` must go through the executor (a tape watches one, or a trace is open)."""
    if _tracing:
        return True
    for t in tensors:
        if isinstance(t, CoreTensor) and t.requires_grad:
            return True
    return False


_BOUND = {}


def bound(op_type, **attrs):
    """The engine op ``op_type`` bound with ``attrs``, cached process-wide (binding costs a workspace lookup)."""
    key = (op_type, tuple(sorted(attrs.items())))
    found = _BOUND.get(key)
    if found is None:
        found = _BOUND[key] = _dispatch.op(op_type, **attrs)
    return found



def host(fn, *inputs):
    """The tensor(s) of ``fn(*arrays)``: a numpy computation on the arrays of the tensors ``inputs``.

    For results the engine has no op for (unique, searchsorted, masks built from values...). Under
    a graph trace it is recorded as a PyFunc op, so that each graph run computes it from that run's
    values instead of replaying the traced ones as a constant. Not differentiable.
    """
    if _tracing:
        trace = current_trace()
        if trace is not None:
            result = _dispatch.call(_dispatch.op("PyFunc", token=trace.callback(fn)), *inputs)
            return result[0] if isinstance(result, tuple) and len(result) == 1 else result
    result = fn(*[x.array for x in inputs])
    return tuple(wrap(r) for r in result) if isinstance(result, tuple) else wrap(result)
