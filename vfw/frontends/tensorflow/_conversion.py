"""Python and numpy data as numpy arrays, with TensorFlow's conversion rules (data holding no tensors).

``_dispatch.convert_to_tensor`` handles tensors, variables and lists holding them (packing) and the
common plain values on its fast path; everything else comes here. TF 2.21 converts data this way:

* A numpy array or scalar keeps its dtype; a requested dtype casts it as numpy casts. String arrays
  become object arrays of ``bytes``.
* A Python scalar or nested sequence: the shape and a dtype are inferred from the first elements
  alone (a Python float gives float32, np.float64 float64, np.float16 float16, a bool bool, any
  integer int64, complex complex128, text string). Then a converter writes every element: the
  requested dtype's converter when TF has one (float32, float64, float16, int32, int64, uint64,
  complex128, string, bool), and when it has none or it fails, the inferred dtype's (Python
  ints: int32, else int64, else float32 once a float turns up). A converter fails on an element of
  a kind it does not take ("mixed types": a bool among floats, text among numbers, a list where a
  number is expected), on a length that differs ("non-rectangular") and on a value out of its
  range. The last converter's failure is a ValueError.
* The result is then cast to the requested dtype when TF deems the two compatible (integers to
  integers, integers and floats to floats, numbers to complex); otherwise TypeError "Cannot convert
  ... to EagerTensor of dtype float" (TF's type names: float, double, half...).
"""

import collections.abc
import math

import numpy as np

from vfw.frontends.tensorflow import _dtypes

MIXED = "Can't convert Python sequence with mixed types to Tensor."
_RAGGED = "Can't convert non-rectangular Python sequence to Tensor."
_INT_RANGE = "Can't convert Python sequence with out-of-range integer to Tensor."
_FLOAT_RANGE = "Can't convert Python sequence with a value out of range for a double-precision float."
_INT64_FOUND = "Can't convert Python sequence with out-of-range integer to int32 Tensor."
_FLOAT_FOUND = "Can't convert Python sequence with floating point values to integer Tensor."

_INT32_MIN, _INT32_END = -2 ** 31, 2 ** 31
_INT64_MIN, _INT64_END = -2 ** 63, 2 ** 63
_UINT64_END = 2 ** 64
_NUMPY_TYPE_NAMES = {"M": "NPY_DATETIME", "m": "NPY_TIMEDELTA", "V": "NPY_VOID"}
_KERNEL_NAMES = {"float32": "float", "float64": "double", "float16": "half"}


def kernel_type_name(dtype):
    """TF's name of a DType in kernel and conversion messages (``float``, ``double``, ``half``, ``int32``...)."""
    return _KERNEL_NAMES.get(dtype.name, dtype.name)


def cannot_convert(value, dtype):
    """TF's TypeError for a value that DType ``dtype`` cannot represent."""
    return TypeError(f"Cannot convert {value!r} to EagerTensor of dtype {kernel_type_name(dtype)}")


def unsupported(value):
    """TF's ValueError for a value of a type it does not convert (the value kept as ``unconvertible``)."""
    error = ValueError(f"Attempt to convert a value ({value!r}) with an unsupported type ({type(value)}) to a "
                       "Tensor.")
    error.unconvertible = value
    return error


def graph_unsupported(data, dtype, value):
    """TF's TypeError when a graph being built (tf.function, dataset functions, Keras' symbolic calls) converts
    ``data`` holding ``value``, of a type it does not convert, to a constant (of DType ``dtype`` or inferred)."""
    if dtype is not None:
        return TypeError(f"Expected {dtype.name}, but got {value!r} of type '{type(value).__name__}'.")
    return TypeError(f"Failed to convert elements of {data} to Tensor. Consider casting elements to a supported "
                     "type. See https://www.tensorflow.org/api_docs/python/tf/dtypes for supported TF dtypes.")


def array_of(value, dtype=None):
    """``value`` (Python or numpy data without tensors) as an ndarray of DType ``dtype`` (TF's inference when None).

    Raises
    ------
    TypeError
        ``dtype`` cannot represent the value.
    ValueError
        A ragged or mixed sequence, an out-of-range number, an unsupported type.
    """
    if isinstance(value, (np.ndarray, np.generic)):
        return _numpy_array(value, dtype)
    shape, inferred = _inferred(value)
    if dtype is not None and dtype in _CONVERTERS:
        try:
            return _converted(value, shape, dtype)
        except _FailureError:
            pass  # TF converts with the inferred dtype then, and casts
    if inferred is None:  # the first element is empty: TF looks no further
        target = _dtypes.float32 if dtype is None else dtype
        return np.full(shape, b"", object) if target == _dtypes.string else np.zeros(shape, target.np)
    array = _with_inferred(value, shape, inferred, dtype is not None)
    if dtype is None or array.dtype == dtype.np:
        return array
    found = _dtypes.of_array(array)
    if not _compatible(dtype, found):
        raise cannot_convert(value, dtype)
    with np.errstate(over="ignore", invalid="ignore"):
        return array.astype(dtype.np)


def _numpy_array(value, dtype):
    """A numpy value as TF takes it: numpy casts it to a requested dtype first (numpy's errors), then its dtype
    must be one TF has (object arrays must hold text)."""
    value = np.asarray(value)
    if dtype is not None and dtype.np != value.dtype:
        with np.errstate(over="ignore", invalid="ignore"):  # numpy's casts (text parsed as numbers too), as TF's
            value = value.astype(dtype.np)
    found = _dtypes.of_array(value)
    if found is None:
        kind = _NUMPY_TYPE_NAMES.get(value.dtype.kind, "NPY_" + value.dtype.name.upper())
        raise ValueError(f"Failed to convert a NumPy array to a Tensor (Unsupported numpy type: {kind}).")
    if found != _dtypes.string:
        return np.array(value)
    if value.dtype.kind == "O":
        odd = next((v for v in value.reshape(-1) if not isinstance(v, (str, bytes))), None)
        if odd is not None:
            raise ValueError(f"Failed to convert a NumPy array to a Tensor (Unsupported object type "
                             f"{type(odd).__name__}).")
    return _string_array(value)


# -- the shape and dtype TF infers from the first elements ----------------------------------------
def _is_sequence(x):
    if isinstance(x, np.ndarray):
        return x.ndim > 0
    return isinstance(x, collections.abc.Sequence) and not isinstance(x, (str, bytes))


def _scalar(x):
    """A 0-d numpy array as its scalar (TF reads them as numbers)."""
    return x[()] if isinstance(x, np.ndarray) and not x.ndim else x


def _inferred(value):
    """``(shape, DType)`` from the first elements of ``value`` (the DType None when an element is empty)."""
    shape = []
    x = _scalar(value)
    while _is_sequence(x):
        shape.append(len(x))
        if not len(x):
            return tuple(shape), None
        x = _scalar(x[0])
    if isinstance(x, (str, bytes)):
        return tuple(shape), _dtypes.string
    for types, dtype in _INFERRED:
        if isinstance(x, types):
            return tuple(shape), dtype
    raise unsupported(x)


_INFERRED = (((np.float64,), _dtypes.float64), ((np.float16,), _dtypes.float16),
             ((float, np.floating), _dtypes.float32), ((bool, np.bool_), _dtypes.bool),
             ((int, np.integer), _dtypes.int64), ((complex, np.complexfloating), _dtypes.complex128))


# -- TF's converters ---------------------------------------------------------------------------------
class _FailureError(Exception):
    """A converter's failure (its message is TF's)."""


def _integer(v, end, int32=False):
    if isinstance(v, np.integer):
        v = int(v)
    if isinstance(v, int):  # Python bools too
        v = int(v)
        if not (_INT64_MIN if end == _INT64_END else 0) <= v < end:
            raise _FailureError(_INT_RANGE)
        if int32 and not _INT32_MIN <= v < _INT32_END:
            raise _FailureError(_INT64_FOUND)
        return v
    raise _FailureError(_FLOAT_FOUND if isinstance(v, (float, np.floating)) else MIXED)


def _floating(v, np_type):
    if isinstance(v, float):
        result = np_type(v)
        if np_type is not np.float64 and math.isinf(result) and math.isfinite(v):
            raise _FailureError(_FLOAT_RANGE)
        return result
    if isinstance(v, np.floating):
        return _floating(float(v), np_type)
    if isinstance(v, (int, np.integer)):  # Python bools too; no overflow check, as TF
        try:
            return np_type(float(v))
        except OverflowError:
            raise _FailureError(_FLOAT_RANGE) from None
    raise _FailureError(MIXED)


def _complex(v):
    if isinstance(v, (complex, np.complexfloating)):
        return complex(v)
    return complex(_floating(v, np.float64))


def _text(v):
    if isinstance(v, bytes):
        return bytes(v)
    if isinstance(v, str):
        return v.encode("utf-8")
    raise _FailureError(MIXED)


def _boolean(v):
    if v is True or v is False or isinstance(v, np.bool_):
        return bool(v)
    raise _FailureError(MIXED)


_CONVERTERS = {
    _dtypes.float32: lambda v: _floating(v, np.float32),
    _dtypes.float64: lambda v: _floating(v, np.float64),
    _dtypes.float16: lambda v: _floating(v, np.float16),
    _dtypes.int64: lambda v: _integer(v, _INT64_END),
    _dtypes.int32: lambda v: _integer(v, _INT64_END, int32=True),
    _dtypes.uint64: lambda v: _integer(v, _UINT64_END),
    _dtypes.complex128: _complex,
    _dtypes.string: _text,
    _dtypes.bool: _boolean,
}


def _converted(value, shape, dtype):
    """``value`` written by TF's converter for ``dtype`` into an array of ``shape`` (raises ``_FailureError``)."""
    convert = _CONVERTERS[dtype]
    with np.errstate(over="ignore", invalid="ignore"):
        if not shape:
            flat = [convert(_scalar(value))]
        else:
            flat = []
            if math.prod(shape):
                _write(value, shape, 0, convert, flat)
        if dtype == _dtypes.string:
            array = np.empty(len(flat), object)
            array[:] = flat
            return array.reshape(shape)
        return np.array(flat, dtype.np).reshape(shape)


def _write(x, shape, depth, convert, out):
    """Append the converted elements of the level-``depth`` sequence ``x`` to ``out`` (row-major)."""
    if not _is_sequence(x) or len(x) != shape[depth]:
        raise _FailureError(_RAGGED)
    if depth < len(shape) - 1:
        for item in x:
            _write(item, shape, depth + 1, convert, out)
    else:
        out.extend(convert(_scalar(item)) for item in x)


def _with_inferred(value, shape, inferred, requested):
    """``value`` converted by the converter of its inferred dtype (ValueError when that fails).

    Python ints try int32, then int64 when one needs it, then float32 when a float turns up; with a
    requested dtype (the result is cast to it) they go to int64 or float64, and floats to float64.
    """
    if inferred == _dtypes.int64:
        if requested:
            steps = ((_dtypes.int64, None), (_dtypes.float64, _FLOAT_FOUND))
        else:
            steps = ((_dtypes.int32, None), (_dtypes.int64, _INT64_FOUND), (_dtypes.float32, _FLOAT_FOUND))
    else:
        steps = ((_dtypes.float64 if inferred == _dtypes.float32 and requested else inferred, None),)
    error = None
    for step, after in steps:  # each step runs after the failure it names (the first always)
        if after is not None and error != after:
            continue
        try:
            return _converted(value, shape, step)
        except _FailureError as failure:
            error = str(failure)
    raise ValueError(error)


def _compatible(desired, found):
    """Whether TF casts a converted ``found`` tensor to the requested ``desired`` DType (else TypeError)."""
    if desired.is_integer:
        return found.is_integer
    if desired.is_floating:
        return found.is_integer or found.is_floating
    if desired.is_complex:
        return found.is_integer or found.is_floating or found.is_complex
    return False


def _string_array(value):
    """An object array of ``bytes`` (text encoded as UTF-8) from strings, bytes or a string array."""
    array = np.array(value, dtype=object)
    flat = array.reshape(-1)
    for i, v in enumerate(flat):
        if isinstance(v, str):
            flat[i] = v.encode("utf-8")
        elif isinstance(v, np.bytes_):
            flat[i] = bytes(v)
        elif not isinstance(v, bytes):
            raise TypeError(f"Failed to convert elements of {value!r} to Tensor. Consider casting elements to a "
                            "supported type.")
    return array
