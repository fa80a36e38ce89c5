"""Helpers shared by the linalg and nn families: cached engine ops, TF's kernel dtype checks, axes.

TF kernels are registered per dtype; a dtype outside an op's list raises InvalidArgumentError
("Value for attr 'T' of int32 is not in the list of allowed values") and a dtype the op lists
but no CPU kernel implements raises NotFoundError ("Could not find device for node").
``check_dtype`` reproduces both from the sets each family declares.
"""

import ml_dtypes
import numpy as np

from vfw.core.graph.trace import _active as _tracing
from vfw.frontends.tensorflow import _dtypes, errors
from vfw.frontends.tensorflow._dispatch import convert_to_tensor, kernel_type_name, op, op_error, run
from vfw.frontends.tensorflow._tensor import Tensor

F16 = np.dtype(np.float16)
BF16 = np.dtype(ml_dtypes.bfloat16)
F32 = np.dtype(np.float32)
F64 = np.dtype(np.float64)
I64 = np.dtype(np.int64)
BOOL = np.dtype(np.bool_)
FLOATS = frozenset({F16, BF16, F32, F64})
LAPACK = frozenset({F32, F64})  # what the engine's decompositions compute in
SIGNED = frozenset(np.dtype(t) for t in (np.int8, np.int16, np.int32, np.int64))
UNSIGNED = frozenset(np.dtype(t) for t in (np.uint8, np.uint16, np.uint32, np.uint64))
REAL = FLOATS | SIGNED | UNSIGNED

_plain = {}
_bound = {}


def bound(op_type, **attrs):
    """The engine op ``op_type`` bound to ``attrs``, cached process-wide (ops are stateless)."""
    if not attrs:
        found = _plain.get(op_type)
        if found is None:
            found = _plain[op_type] = op(op_type)
        return found
    key = (op_type, *[(k, tuple(v) if v.__class__ is list else v) for k, v in attrs.items()])
    found = _bound.get(key)
    if found is None:
        found = _bound[key] = op(op_type, **attrs)
    return found


def recording(*tensors):
    """Whether ops on ``tensors`` can be recorded (a graph trace is open or a tape watches one of them)."""
    return bool(_tracing) or any(t.requires_grad for t in tensors)


def tensor(value, dtype_hint=None):
    """``value`` as a tf tensor (tensors pass through without a call)."""
    if value.__class__ is Tensor:
        return value
    return convert_to_tensor(value, dtype_hint=dtype_hint)


def _enum_name(dtype):
    return {"float32": "DT_FLOAT", "float64": "DT_DOUBLE", "float16": "DT_HALF"}.get(dtype.name,
                                                                                   "DT_" + dtype.name.upper())


def check_dtype(x, allowed, tf_op, missing=frozenset()):
    """Raise TF's error unless the tensor ``x`` has a dtype in ``allowed`` (numpy dtypes).

    ``missing`` lists dtypes TF's op accepts but has no CPU kernel for (NotFoundError).
    """
    dtype = x.array.dtype
    if dtype in allowed:
        return
    found = _dtypes.of_array(x.array)
    if dtype in missing:
        raise op_error(f"Could not find device for node: {{{{node {tf_op}}}}} = {tf_op}[T={_enum_name(found)}]\n"
                       f"All kernels registered for op {tf_op}: (CPU kernels for other types)", tf_op,
                       errors.NotFoundError)
    names = ", ".join(sorted(kernel_type_name(_dtypes.of_array(np.empty(0, d))) for d in allowed | missing))
    raise op_error(f"Value for attr 'T' of {kernel_type_name(found)} is not in the list of allowed values: "
                   f"{names}\n\t; NodeDef: {{{{node {tf_op}}}}}", tf_op)


def same_dtype(x, y, tf_op, index=1):
    """TF's InvalidArgumentError when input ``index`` (``y``) differs in dtype from ``x``."""
    if x.array.dtype != y.array.dtype:
        raise op_error(f"cannot compute {tf_op} as input #{index}(zero-based) was expected to be a "
                       f"{kernel_type_name(_dtypes.of_array(x.array))} tensor but is a "
                       f"{kernel_type_name(_dtypes.of_array(y.array))} tensor", tf_op)


def const(value, like):
    """A 0-d array of ``value`` in the dtype of tensor ``like`` (an operand of an engine op)."""
    return np.asarray(value, like.array.dtype)


def int64s(values):
    return np.asarray(values, I64).reshape(-1)


def static_int(value, what):
    """A Python int from an int, numpy integer or 0-d integer tensor (TypeError otherwise)."""
    if hasattr(value, "array"):
        value = value.array
    array = np.asarray(value)
    if array.ndim or array.dtype.kind not in "iu":
        raise TypeError(f"`{what}` must be an integer, got {value!r}")
    return int(array)


# Integer types some engine reductions lack, reduced in a wider type of the same kind and cast back
# (sums wrap modulo 2**bits either way; extremes are exact).
_WIDER_INTS = {np.dtype(np.int8): I64, np.dtype(np.int16): I64, np.dtype(np.uint8): np.dtype(np.uint64),
               np.dtype(np.uint16): np.dtype(np.uint64)}


def reduce(op_type, x, axes, keepdims, tf_op):
    """Reduce tensor ``x`` with the engine's ``op_type`` over ``axes`` (a sequence, or None for all)."""
    axes = int64s(list(range(x.array.ndim) if axes is None else axes))
    reducer = bound(op_type, keepdims=int(keepdims))
    dtype = x.array.dtype
    if dtype in reducer.schema.types["T"] or dtype not in _WIDER_INTS:
        return run(reducer, x, axes, tf_op=tf_op)
    return cast(run(reducer, cast(x, _WIDER_INTS[dtype]), axes, tf_op=tf_op), dtype)


def binary(op_type, x, y, tf_op):
    return run(bound(op_type), x, y, tf_op=tf_op)


def unary(op_type, x, tf_op, **attrs):
    return run(bound(op_type, **attrs), x, tf_op=tf_op)


def reshape(x, shape, tf_op="Reshape"):
    """Tensor ``x`` reshaped to the concrete ``shape`` (a 0 is an empty dim)."""
    return run(bound("Reshape", allowzero=1), x, int64s(shape), tf_op=tf_op)


def cast(x, dtype):
    """Tensor ``x`` cast to the numpy ``dtype`` (itself when it has it)."""
    if x.array.dtype == dtype:
        return x
    return run(bound("Cast", to=dtype), x, tf_op="Cast")


def transpose_last(x):
    """``x`` with its last two dims swapped."""
    perm = list(range(x.array.ndim))
    perm[-2:] = perm[-1], perm[-2]
    return run(bound("Transpose", perm=perm), x, tf_op="Transpose")
