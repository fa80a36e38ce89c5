"""tf.experimental.numpy's dtypes: NumPy's promotion with TF NumPy's defaults, and conversion to tensors.

TF NumPy follows NumPy 2's promotion (Python scalars are "weak": they take the other operand's kind
unless their own kind is higher), infers float64/int64 for Python values as NumPy does, and with
``prefer_float32`` (set by ``experimental_enable_numpy_behavior``) infers float32/complex64 for Python
floats/complexes instead. Results are tf.Tensors; the math runs in vfw.tensorflow's ops.
"""

import builtins

import numpy as np

from vfw.frontends import tensorflow as tf
from vfw.frontends.tensorflow import _dtypes
from vfw.frontends.tensorflow._dispatch import holds_tensors, is_tensor_like, tensor_of

_state = {"prefer_float32": False}

_PYTHON_SCALARS = (builtins.bool, builtins.int, builtins.float, builtins.complex)


def set_prefer_float32(prefer):
    """Whether Python floats (and default float results) become float32 instead of float64."""
    _state["prefer_float32"] = builtins.bool(prefer)


# The float type of float results from integer or bool inputs (also with prefer_float32, as in TF NumPy).
DEFAULT_FLOAT = np.dtype(np.float64)


def to_np_dtype(dtype):
    """A numpy dtype for ``dtype`` (a tf.DType, numpy type or dtype, Python type or dtype name)."""
    if isinstance(dtype, _dtypes.DType):
        return np.dtype(dtype.as_numpy_dtype)
    return np.dtype(dtype)


def _is_python_scalar(x):
    return isinstance(x, _PYTHON_SCALARS) and not isinstance(x, np.generic)


def _promotion_operand(x):
    """What ``x`` contributes to ``np.result_type``: a dtype, or a weak Python scalar of ``x``'s kind."""
    if is_tensor_like(x):
        return tensor_of(x).array.dtype
    if isinstance(x, (np.ndarray, np.generic)):
        return x.dtype
    if _is_python_scalar(x):
        if _state["prefer_float32"] and isinstance(x, (builtins.float, builtins.complex)):
            return np.dtype(np.float32 if isinstance(x, builtins.float) else np.complex64)
        return x
    if isinstance(x, (list, tuple)):
        if holds_tensors(x):
            return tf.convert_to_tensor(x).array.dtype
        kind = np.asarray(x).dtype.kind
        # A list of Python scalars promotes like one Python scalar of its kind.
        return {"b": False, "i": 0, "u": 0, "f": 0.0, "c": 0j}.get(kind, np.asarray(x).dtype)
    return to_np_dtype(x)


def np_result_type(*arrays_and_dtypes):
    """The numpy dtype TF NumPy gives an operation on ``arrays_and_dtypes``."""
    operands = [_promotion_operand(x) for x in arrays_and_dtypes]
    if not operands:
        return DEFAULT_FLOAT
    return np.result_type(*operands)


def result_type(*arrays_and_dtypes):
    """``tnp.result_type``: NumPy's promotion of arrays, Python scalars and dtypes, as a tf.DType."""
    return _dtypes.as_dtype(np_result_type(*arrays_and_dtypes))


def promote_types(type1, type2):
    """``tnp.promote_types``: NumPy's promotion of two dtypes (a numpy dtype, as TF returns)."""
    return np.promote_types(to_np_dtype(type1), to_np_dtype(type2))


def cast(t, np_dtype):
    """``t`` as ``np_dtype`` (the tensor itself when it already has it)."""
    if t.array.dtype == np_dtype:
        return t
    return tf.cast(t, _dtypes.as_dtype(np_dtype))


def asarray(a, dtype=None):
    """``tnp.asarray``: ``a`` as a tf.Tensor (tensors unchanged unless ``dtype`` differs).

    Python values get NumPy's inferred dtype (float64, int64...), float32/complex64 for Python floats
    with prefer_float32.
    """
    target = None if dtype is None else to_np_dtype(dtype)
    if is_tensor_like(a):
        t = tensor_of(a)
    elif isinstance(a, (list, tuple)) and holds_tensors(a):
        t = tf.convert_to_tensor(a, dtype=None if target is None else _dtypes.as_dtype(np_result_type(*a)))
    else:
        array = np.asarray(a, dtype=target)
        if target is None and _state["prefer_float32"] and not isinstance(a, (np.ndarray, np.generic)):
            array = array.astype({"f": np.float32, "c": np.complex64}.get(array.dtype.kind, array.dtype), copy=False)
        t = tf.constant(array)
    return t if target is None else cast(t, target)


def promote(*values):
    """``values`` as tensors of their common TF NumPy dtype."""
    common = np_result_type(*values)
    return [asarray(v, common) for v in values]


def promote_to_float(*values):
    """``promote``, and non-float results cast to the default float type (as TF NumPy's float-only ops)."""
    tensors = promote(*values)
    if tensors[0].array.dtype.kind in "fc":
        return tensors
    return [cast(t, DEFAULT_FLOAT) for t in tensors]
