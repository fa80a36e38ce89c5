"""Conversions between Python/numpy values and the protobuf IR (``vfw.proto``)."""

import numpy as np

from vfw.core import dtypes as dt
from vfw.core.errors import OpAttributeError
from vfw.core.proto import Argument, GraphDef, OpDef, TensorProto


def tensor_to_proto(array, name=""):
    """Serialize an array into a :class:`TensorProto`.

    Parameters
    ----------
    array : array_like
        A numeric, bool or string (object) array.
    name : str, optional

    Returns
    -------
    TensorProto
    """
    array = np.asarray(array)
    if array.dtype.kind in "OUS":
        values = [v if isinstance(v, bytes) else str(v).encode() for v in array.ravel()]
        return TensorProto(name=name, dims=array.shape, data_type=dt.onnx_code(dt.string), string_data=values)
    dtype = dt.as_dtype(array.dtype)
    raw = np.ascontiguousarray(array, dtype=dtype.newbyteorder("<")).tobytes()
    return TensorProto(name=name, dims=array.shape, data_type=dt.onnx_code(dtype), raw_data=raw)


def proto_to_tensor(proto):
    """Deserialize a :class:`TensorProto` into a new, writable numpy array."""
    dtype = dt.as_dtype(proto.data_type)
    shape = tuple(proto.dims)
    if dtype == dt.string:
        return np.array([s.decode() for s in proto.string_data], dtype=object).reshape(shape)
    flat = np.frombuffer(proto.raw_data, dtype=dtype.newbyteorder("<"))
    return flat.astype(dtype).reshape(shape)


def make_argument(name, value):
    """An :class:`Argument` holding ``value`` (int, float, str, ndarray, GraphDef or a list of one kind)."""
    arg = Argument(name=name)
    if isinstance(value, (bool, int, np.integer)):
        arg.i = int(value)
    elif isinstance(value, (float, np.floating)):
        arg.f = float(value)
    elif isinstance(value, (str, bytes)):
        arg.s = value.encode() if isinstance(value, str) else value
    elif isinstance(value, np.dtype):
        arg.s = dt.type_name(value).encode()
    elif isinstance(value, np.ndarray):
        arg.t.CopyFrom(tensor_to_proto(value))
    elif isinstance(value, GraphDef):
        arg.g.CopyFrom(value)
    elif isinstance(value, (list, tuple)):
        items = list(value)
        if all(isinstance(v, (bool, int, np.integer)) for v in items):
            arg.ints.values.extend(int(v) for v in items)
        elif all(isinstance(v, (int, float, np.integer, np.floating)) for v in items):
            arg.floats.values.extend(float(v) for v in items)
        elif all(isinstance(v, (str, bytes)) for v in items):
            arg.strings.values.extend(v.encode() if isinstance(v, str) else v for v in items)
        elif all(isinstance(v, np.ndarray) for v in items):
            arg.tensors.values.extend(tensor_to_proto(v) for v in items)
        else:
            raise OpAttributeError(f"argument '{name}': cannot store a list of mixed types {value!r}")
    else:
        raise OpAttributeError(f"argument '{name}': cannot store a value of type {type(value).__name__}")
    return arg


def argument_value(arg):
    """The Python value of an :class:`Argument` (lists become tuples, tensors arrays)."""
    kind = arg.WhichOneof("value")
    if kind is None:
        return None
    value = getattr(arg, kind)
    if kind == "s":
        return value.decode()
    if kind == "t":
        return proto_to_tensor(value)
    if kind == "strings":
        return tuple(v.decode() for v in value.values)
    if kind == "tensors":
        return tuple(proto_to_tensor(v) for v in value.values)
    if kind in ("floats", "ints"):
        return tuple(value.values)
    return value


def make_opdef(op_type, inputs, outputs, name="", domain="", **attrs):
    """An :class:`OpDef`; ``None`` inputs become empty names (absent optional inputs)."""
    op = OpDef(type=op_type, name=name, domain=domain, input=["" if i is None else i for i in inputs],
               output=list(outputs))
    op.arg.extend(make_argument(k, v) for k, v in attrs.items() if v is not None)
    return op


def opdef_attrs(op):
    """Attributes of an :class:`OpDef` as a dict of Python values."""
    return {arg.name: argument_value(arg) for arg in op.arg}
