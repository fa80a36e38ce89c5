"""ONNX tensors and attributes as numpy values, external data included.

Every decoding failure becomes an :class:`OnnxModelError` (or a :class:`~vfw.core.errors.DTypeError`
for element types the engine lacks) naming the tensor: a malformed model never surfaces as a bare
numpy or protobuf exception.

External data is read only from files inside the model's folder: a ``location`` that is absolute,
climbs out with ``..``, or resolves (through symbolic links) to a path outside the folder is
refused.  Large external tensors are memory-mapped read-only rather than read, so models whose
weights exceed protobuf's 2 GB limit load without copying them.
"""

import math
import mmap
import os

import numpy as np
from onnx import AttributeProto, TensorProto, numpy_helper

from vfw.core import dtypes as dt
from vfw.core.errors import DTypeError, ShapeError, VfwError

MAX_ELEMENTS = 1 << 40
"""Tensors declaring more elements than this are refused as absurd before anything is allocated."""

MMAP_BYTES = 1 << 24
"""External tensors at least this large are memory-mapped instead of read into memory."""

_UNSUPPORTED = {14: "complex64", 15: "complex128", 17: "float8e4m3fn", 18: "float8e4m3fnuz", 19: "float8e5m2",
                20: "float8e5m2fnuz", 21: "uint4", 22: "int4", 23: "float4e2m1", 24: "float8e8m0", 25: "uint2",
                26: "int2"}


class OnnxModelError(VfwError, ValueError):
    """A model that cannot be imported: malformed protobuf, invalid graph, unsafe external data."""


def element_dtype(code, what):
    """The engine dtype of an ONNX element type code, or a DTypeError naming ``what``."""
    if code in _UNSUPPORTED:
        raise DTypeError(f"{what}: element type {_UNSUPPORTED[code]} is not supported by the vfw engine")
    try:
        return dt.as_dtype(int(code))
    except DTypeError:
        raise DTypeError(f"{what}: unknown or unsupported ONNX element type code {code}") from None


def _check_dims(proto, what):
    dims = tuple(proto.dims)
    if any(d < 0 for d in dims):
        raise OnnxModelError(f"{what}: negative dims {list(dims)}")
    count = math.prod(dims)
    if count > MAX_ELEMENTS:
        raise OnnxModelError(f"{what}: dims {list(dims)} declare {count} elements, more than vfw accepts")
    return dims, count


def safe_external_path(base_dir, location, what):
    """The path of external data file ``location`` inside ``base_dir``; refuses paths that leave it."""
    if base_dir is None:
        raise OnnxModelError(f"{what}: the tensor's data is in an external file ({location!r}) but the model was "
                             "not loaded from a path: pass base_dir")
    if not location or os.path.isabs(location) or location.startswith(("/", "\\")) or "\0" in location:
        raise OnnxModelError(f"{what}: external data location {location!r} must be a relative path inside the "
                             "model's folder")
    root = os.path.realpath(base_dir)
    path = os.path.realpath(os.path.join(root, location))
    if os.path.commonpath([root, path]) != root or path == root:
        raise OnnxModelError(f"{what}: external data location {location!r} leaves the model's folder {root!r} "
                             "(through '..' or a symbolic link): refused")
    if not os.path.isfile(path):
        raise OnnxModelError(f"{what}: external data file {location!r} does not exist in {root!r}")
    return path


def _external_array(proto, dtype, dims, count, base_dir, what):
    fields = {entry.key: entry.value for entry in proto.external_data}
    path = safe_external_path(base_dir, fields.get("location", ""), what)
    try:
        offset = int(fields.get("offset", 0) or 0)
        length = int(fields["length"]) if fields.get("length") else None
    except ValueError:
        raise OnnxModelError(f"{what}: malformed external data offset/length {fields}") from None
    if dtype == dt.string:
        raise OnnxModelError(f"{what}: string tensors cannot have external data")
    need = count * dtype.itemsize
    size = os.path.getsize(path)
    length = size - offset if length is None else length
    if offset < 0 or length != need or offset + length > size:
        raise OnnxModelError(f"{what}: external data of shape {list(dims)} ({dt.type_name(dtype)}) needs {need} "
                             f"bytes; the file {fields['location']!r} ({size} bytes) gives {length} at offset "
                             f"{offset}")
    little = dtype.newbyteorder("<")
    if need >= MMAP_BYTES:
        with open(path, "rb") as f:
            mapped = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        array = np.frombuffer(mapped, little, count, offset).reshape(dims)
    else:
        with open(path, "rb") as f:
            f.seek(offset)
            data = f.read(length)
        array = np.frombuffer(data, little, count).reshape(dims)
    if little != dtype:
        array = array.astype(dtype)
    return array


def tensor_value(proto, base_dir=None, what=None):
    """The numpy array of an ONNX :class:`~onnx.TensorProto` (read-only when memory-mapped).

    Parameters
    ----------
    proto : onnx.TensorProto
    base_dir : str, optional
        The model's folder, where external data files must be.
    what : str, optional
        How errors name the tensor (default: ``tensor 'name'``).
    """
    what = what or f"tensor {proto.name!r}"
    dtype = element_dtype(proto.data_type, what)
    dims, count = _check_dims(proto, what)
    if proto.data_location == TensorProto.EXTERNAL:
        return _external_array(proto, dtype, dims, count, base_dir, what)
    if proto.HasField("raw_data") and dtype != dt.string and len(proto.raw_data) != count * dtype.itemsize:
        raise OnnxModelError(f"{what}: shape {list(dims)} ({dt.type_name(dtype)}) needs {count * dtype.itemsize} "
                             f"bytes of raw data, has {len(proto.raw_data)}")
    try:
        array = numpy_helper.to_array(proto)
    except Exception as exc:  # noqa: BLE001  (any decoding failure of a malformed tensor)
        raise OnnxModelError(f"{what}: cannot decode shape {list(dims)} ({dt.type_name(dtype)}): {exc}") from None
    if array.dtype != dtype:
        array = array.astype(dtype)
    return np.array(array, copy=True) if not array.flags.writeable else array


def sparse_value(proto, base_dir=None, what="sparse tensor"):
    """The dense numpy array of an ONNX SparseTensorProto (values scattered into zeros)."""
    values = tensor_value(proto.values, base_dir, f"{what} values")
    indices = tensor_value(proto.indices, base_dir, f"{what} indices")
    dims = tuple(proto.dims)
    if any(d < 0 for d in dims) or math.prod(dims) > MAX_ELEMENTS:
        raise OnnxModelError(f"{what}: bad dims {list(dims)}")
    dense = np.zeros(dims, values.dtype)
    flat = dense.reshape(-1)
    try:
        if indices.ndim == 1:
            flat[indices] = values
        else:
            dense[tuple(indices.T)] = values
    except (IndexError, ValueError) as exc:
        raise OnnxModelError(f"{what}: indices do not fit dims {list(dims)} ({exc})") from None
    return dense


def attribute_value(attr, base_dir=None, where="node"):
    """The Python value of an ONNX attribute: numbers, str, tuples, arrays; graphs and type protos as protos."""
    what = f"{where}: attribute {attr.name!r}"
    kind = attr.type
    try:
        if kind == AttributeProto.FLOAT:
            return float(attr.f)
        if kind == AttributeProto.INT:
            return int(attr.i)
        if kind == AttributeProto.STRING:
            return attr.s.decode("utf-8")
        if kind == AttributeProto.TENSOR:
            return tensor_value(attr.t, base_dir, what)
        if kind == AttributeProto.SPARSE_TENSOR:
            return sparse_value(attr.sparse_tensor, base_dir, what)
        if kind == AttributeProto.GRAPH:
            return attr.g
        if kind == AttributeProto.TYPE_PROTO:
            return attr.tp
        if kind == AttributeProto.FLOATS:
            return tuple(float(v) for v in attr.floats)
        if kind == AttributeProto.INTS:
            return tuple(int(v) for v in attr.ints)
        if kind == AttributeProto.STRINGS:
            return tuple(v.decode("utf-8") for v in attr.strings)
        if kind == AttributeProto.TENSORS:
            return tuple(tensor_value(t, base_dir, what) for t in attr.tensors)
        if kind == AttributeProto.GRAPHS:
            return tuple(attr.graphs)
        if kind == AttributeProto.TYPE_PROTOS:
            return tuple(attr.type_protos)
    except UnicodeDecodeError:
        raise OnnxModelError(f"{what}: a string is not valid UTF-8") from None
    raise OnnxModelError(f"{what}: unsupported attribute type {kind}")


def check_feed(name, value, dtype, shape, where):
    """Raise when a feed does not match the declared element type or (known) dims of input ``name``."""
    if dtype is not None and value.dtype != dtype:
        raise DTypeError(f"{where}: input {name!r} must be {dt.type_name(dtype)}, got {dt.type_name(value.dtype)}")
    if shape is not None and (value.ndim != len(shape) or any(
            d is not None and d != n for d, n in zip(shape, value.shape))):
        shown = ", ".join("?" if d is None else str(d) for d in shape)
        raise ShapeError(f"{where}: input {name!r} must have shape ({shown}), got {value.shape}")
