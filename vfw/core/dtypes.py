"""Engine dtypes: numpy dtypes, their ONNX codes, and the groups op schemas use.

The engine's dtype objects are plain ``numpy.dtype`` instances, so kernels need
no conversion.  ``bfloat16`` comes from ``ml_dtypes`` (the numpy extension type
that ONNX, JAX and TensorFlow share).
"""

import ml_dtypes
import numpy as np

bool_ = np.dtype(np.bool_)
int8 = np.dtype(np.int8)
int16 = np.dtype(np.int16)
int32 = np.dtype(np.int32)
int64 = np.dtype(np.int64)
uint8 = np.dtype(np.uint8)
uint16 = np.dtype(np.uint16)
uint32 = np.dtype(np.uint32)
uint64 = np.dtype(np.uint64)
float16 = np.dtype(np.float16)
bfloat16 = np.dtype(ml_dtypes.bfloat16)
float32 = np.dtype(np.float32)
float64 = np.dtype(np.float64)
complex64 = np.dtype(np.complex64)
complex128 = np.dtype(np.complex128)
string = np.dtype(object)

BOOL = frozenset({bool_})
SIGNED_INTS = frozenset({int8, int16, int32, int64})
UNSIGNED_INTS = frozenset({uint8, uint16, uint32, uint64})
INTS = SIGNED_INTS | UNSIGNED_INTS
FLOATS = frozenset({float16, bfloat16, float32, float64})
SIGNED = SIGNED_INTS | FLOATS
NUMERIC = INTS | FLOATS
ALL = NUMERIC | BOOL
INDEX = frozenset({int32, int64})
# Complex types are kept out of NUMERIC and ALL on purpose: an op accepts them only where its
# schema names COMPLEX (or FIXED_SIZE), so no real-only kernel sees a complex array by accident.
COMPLEX = frozenset({complex64, complex128})
FIXED_SIZE = ALL | COMPLEX  # every non-string type (data movement, graph values, buffer pools)
DIFFERENTIABLE = FLOATS | COMPLEX  # the types autograd records gradients for

# Codes of ONNX's TensorProto.DataType; vfw.proto uses the same numbering.
_ONNX_CODES = {
    float32: 1, uint8: 2, int8: 3, uint16: 4, int16: 5, int32: 6, int64: 7,
    string: 8, bool_: 9, float16: 10, float64: 11, uint32: 12, uint64: 13,
    complex64: 14, complex128: 15, bfloat16: 16,
}
_FROM_CODE = {code: dt for dt, code in _ONNX_CODES.items()}
_BY_NAME = {dt.name: dt for dt in _ONNX_CODES} | {"bool": bool_, "string": string}


def as_dtype(value):
    """Return the engine dtype named by ``value``.

    Parameters
    ----------
    value : numpy.dtype, type, str or int
        A numpy dtype or scalar type, a name such as ``"float32"``, or an ONNX
        ``TensorProto.DataType`` code.

    Returns
    -------
    numpy.dtype

    Raises
    ------
    DTypeError
        If ``value`` names no dtype the engine supports.
    """
    from vfw.core.errors import DTypeError

    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        if int(value) in _FROM_CODE:
            return _FROM_CODE[int(value)]
        raise DTypeError(f"unsupported ONNX data type code {int(value)}")
    if isinstance(value, str) and value in _BY_NAME:
        return _BY_NAME[value]
    try:
        dt = np.dtype(value)
    except TypeError:
        raise DTypeError(f"{value!r} is not a dtype") from None
    if dt.byteorder not in "=|":
        dt = dt.newbyteorder("=")
    if dt not in _ONNX_CODES:
        raise DTypeError(f"dtype {dt} is not supported by the vfw engine")
    return dt


def onnx_code(dtype):
    """Return the ONNX ``TensorProto.DataType`` code of an engine dtype."""
    return _ONNX_CODES[np.dtype(dtype)]


def type_name(dtype):
    """Short display name of a dtype (``float32``, ``bfloat16``, ``string``)."""
    return "string" if dtype == string else np.dtype(dtype).name
