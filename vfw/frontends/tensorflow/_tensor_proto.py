"""tf.make_tensor_proto / tf.make_ndarray: a TensorProto-like message with TF's field choices
(``tensor_content`` for full arrays of the packable dtypes, ``*_val`` repeated fields otherwise), its
wire serialization and protobuf text format."""

import numpy as np

from vfw.frontends.tensorflow import _dtypes
from vfw.frontends.tensorflow import _protobuf as pb
from vfw.frontends.tensorflow._dispatch import convert_to_tensor

_VALUE_FIELDS = ("half_val", "float_val", "double_val", "int_val", "string_val", "scomplex_val", "int64_val",
                 "bool_val", "dcomplex_val", "uint32_val", "uint64_val")
_FIELD_NUMBERS = {"float_val": 5, "double_val": 6, "int_val": 7, "string_val": 8, "scomplex_val": 9,
                  "int64_val": 10, "bool_val": 11, "dcomplex_val": 12, "half_val": 13, "uint32_val": 16,
                  "uint64_val": 17}
_FIELD_OF = {"float16": "half_val", "bfloat16": "half_val", "float32": "float_val", "float64": "double_val",
             "int8": "int_val", "int16": "int_val", "int32": "int_val", "uint8": "int_val", "uint16": "int_val",
             "int64": "int64_val", "uint32": "uint32_val", "uint64": "uint64_val", "bool": "bool_val",
             "string": "string_val", "complex64": "scomplex_val", "complex128": "dcomplex_val"}
_CONTENT_TYPES = frozenset({"float16", "bfloat16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8",
                            "uint16", "uint32", "uint64"})


class _Dim:
    def __init__(self, size):
        self.size = size
        self.name = ""


class TensorShapeProto:
    """The ``tensor_shape`` of a TensorProto: ``dim`` (each with ``size``) and ``unknown_rank``."""

    def __init__(self, dims):
        self.dim = [_Dim(int(d)) for d in dims]
        self.unknown_rank = False

    def serialized(self):
        return b"".join(pb.field(2, pb.LENGTH, pb.field(1, pb.VARINT, pb.varint(d.size)) if d.size else b"")
                        for d in self.dim)


def _escape(data):
    """protobuf's text-format escaping of bytes (C escapes, octal for non-printable bytes)."""
    named = {ord("\n"): "\\n", ord("\r"): "\\r", ord("\t"): "\\t", ord('"'): '\\"', ord("'"): "\\'",
             ord("\\"): "\\\\"}
    return "".join(named.get(b) or (chr(b) if 32 <= b < 127 else f"\\{b:03o}") for b in data)


def _text_value(field, value):
    if field == "string_val":
        return f'"{_escape(value)}"'
    if field == "bool_val":
        return "true" if value else "false"
    if isinstance(value, float):
        text = str(np.float32(value) if field in ("float_val", "scomplex_val") else np.float64(value))
        return text[:-2] if text.endswith(".0") else text
    return str(value)


class TensorProto:
    """A TensorProto message: ``dtype`` (the DataType enum), ``tensor_shape``, ``tensor_content`` and the
    repeated ``*_val`` fields, ``SerializeToString()`` and protobuf's text format as ``str()``."""

    def __init__(self, dtype, shape):
        self.dtype = dtype.as_datatype_enum
        self.tensor_shape = TensorShapeProto(shape)
        self.version_number = 0
        self.tensor_content = b""
        for name in _VALUE_FIELDS:
            setattr(self, name, [])

    def SerializeToString(self):  # noqa: N802  (protobuf's name)
        out = pb.field(1, pb.VARINT, pb.varint(self.dtype)) + pb.field(2, pb.LENGTH, self.tensor_shape.serialized())
        if self.tensor_content:
            out += pb.field(4, pb.LENGTH, self.tensor_content)
        for name in _VALUE_FIELDS:
            values = getattr(self, name)
            if not values:
                continue
            number = _FIELD_NUMBERS[name]
            if name == "string_val":
                out += b"".join(pb.field(number, pb.LENGTH, v) for v in values)
            elif name in ("float_val", "scomplex_val"):
                out += pb.field(number, pb.LENGTH, np.asarray(values, "<f4").tobytes())
            elif name in ("double_val", "dcomplex_val"):
                out += pb.field(number, pb.LENGTH, np.asarray(values, "<f8").tobytes())
            else:
                out += pb.field(number, pb.LENGTH, b"".join(pb.varint(int(v) & (2 ** 64 - 1)) for v in values))
        return out

    def __str__(self):
        lines = [f"dtype: {_enum_name(self.dtype)}", "tensor_shape {"]
        for d in self.tensor_shape.dim:
            lines += ["  dim {", f"    size: {d.size}", "  }"]
        lines.append("}")
        if self.tensor_content:
            lines.append(f'tensor_content: "{_escape(self.tensor_content)}"')
        for name in _VALUE_FIELDS:
            lines += [f"{name}: {_text_value(name, v)}" for v in getattr(self, name)]
        return "\n".join(lines) + "\n"

    __repr__ = __str__

    def __eq__(self, other):
        return isinstance(other, TensorProto) and self.SerializeToString() == other.SerializeToString()

    __hash__ = None


def _enum_name(enum):
    name = _dtypes.as_dtype(enum).name
    return "DT_" + {"float32": "FLOAT", "float64": "DOUBLE", "float16": "HALF"}.get(name, name.upper())


def _as_array(values, dtype):
    if hasattr(values, "numpy"):
        array = np.asarray(values.numpy())
        return array if dtype is None else array.astype(dtype.as_numpy_dtype)
    if dtype is not None:
        if dtype == _dtypes.string:
            return np.array(values, dtype=object)
        return np.array(values, dtype=dtype.as_numpy_dtype)
    if isinstance(values, np.ndarray) or isinstance(values, np.generic):
        return np.asarray(values)
    return np.asarray(convert_to_tensor(values).numpy())  # TF's inference: Python floats float32, ints int32...


def make_tensor_proto(values, dtype=None, shape=None, verify_shape=False, allow_broadcast=False):
    """A TensorProto of ``values`` (with ``dtype`` and ``shape`` if given; one value fills a larger shape).

    Raises
    ------
    TypeError
        ``verify_shape`` and a shape other than the values'.
    ValueError
        More values than ``shape`` holds.
    """
    dtype = None if dtype is None else _dtypes.as_dtype(dtype)
    array = _as_array(values, dtype)
    if array.dtype.kind in "SU":
        array = array.astype(object)
    tf_dtype = _dtypes.string if array.dtype == object else _dtypes.of_array(array)
    if shape is None:
        shape = array.shape
    shape = tuple(int(d) for d in shape)
    size = int(np.prod(shape))
    if verify_shape and array.shape != shape:
        raise TypeError(f"Expected Tensor's shape: {shape}, but got {array.shape}.")
    if array.size > size:
        raise ValueError(f"Too many elements provided. Takes at most {size}, but got {array.size}.")
    proto = TensorProto(tf_dtype, shape)
    if array.size == size and tf_dtype.name in _CONTENT_TYPES and size > 1:
        proto.tensor_content = np.ascontiguousarray(array).astype(array.dtype.newbyteorder("<")).tobytes()
        return proto
    flat = array.reshape(-1)
    field = _FIELD_OF[tf_dtype.name]
    if field == "half_val":
        values = flat.view(np.uint16).tolist()
    elif field == "string_val":
        values = [v if isinstance(v, bytes) else str(v).encode() for v in flat]
    elif field in ("scomplex_val", "dcomplex_val"):
        values = np.stack([flat.real, flat.imag], axis=-1).reshape(-1).tolist()
    else:
        values = flat.tolist()
    setattr(proto, field, values)
    return proto


def make_ndarray(tensor):
    """The numpy array of a TensorProto (``make_tensor_proto``'s result)."""
    dtype = _dtypes.as_dtype(tensor.dtype)
    shape = tuple(d.size for d in tensor.tensor_shape.dim)
    size = int(np.prod(shape))
    if tensor.tensor_content:
        np_dtype = np.dtype(dtype.as_numpy_dtype).newbyteorder("<")
        return np.frombuffer(tensor.tensor_content, np_dtype).astype(np_dtype.newbyteorder("=")).reshape(shape)
    field = _FIELD_OF[dtype.name]
    values = getattr(tensor, field)
    if dtype == _dtypes.string:
        flat = np.array(values, dtype=object)
    elif field == "half_val":
        flat = np.array(values, np.uint16).view(dtype.as_numpy_dtype)
    elif field in ("scomplex_val", "dcomplex_val"):
        pairs = np.array(values, np.float64).reshape(-1, 2)
        flat = (pairs[:, 0] + 1j * pairs[:, 1]).astype(dtype.as_numpy_dtype)
    else:
        flat = np.array(values, dtype.as_numpy_dtype)
    if flat.size == 0:
        return np.zeros(shape, flat.dtype if dtype != _dtypes.string else object)
    if flat.size < size:
        flat = np.concatenate([flat, np.repeat(flat[-1:], size - flat.size)])
    return flat.reshape(shape)


NAMESPACES = {"tf": ["make_tensor_proto", "make_ndarray"]}
TENSOR_METHODS = {}
