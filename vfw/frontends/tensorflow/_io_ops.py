"""``tf.io``: TFRecord files (``TFRecordWriter``; read by ``tf.data.TFRecordDataset``), ``tf.train.Example``
parsing (``parse_single_example``, ``parse_example`` with ``FixedLenFeature`` / ``VarLenFeature`` /
``RaggedFeature`` (in ``_io_ragged``)) and
``serialize_tensor`` / ``parse_tensor`` (a ``TensorProto``).

A TFRecord file is a sequence of records: the data's length (uint64, little-endian), the masked CRC-32C of those
8 bytes (uint32), the data, the masked CRC-32C of the data.  Parsing and tensor (de)serialization run on the host
(``host``: a ``tf.function`` graph or ``tf.data`` map reruns them on each call); ``VarLenFeature`` results are
``tf.SparseTensor``s and ``RaggedFeature`` results ``tf.RaggedTensor``s, which vfw builds eagerly only.
"""

import base64
import collections
import gzip
import sys
import zlib

import numpy as np

from vfw.frontends.tensorflow import _dtypes, errors
from vfw.frontends.tensorflow import _protobuf as pb
from vfw.frontends.tensorflow._dispatch import convert_to_tensor, host, op_error
from vfw.frontends.tensorflow._io_example import Example
from vfw.frontends.tensorflow._io_feature_specs import (
    FixedLenSequenceFeature,
    SparseFeature,
    check_example_spec,
    example_sequence,
    example_sparse,
)
from vfw.frontends.tensorflow._io_ragged import RaggedFeature, parsed_ragged
from vfw.frontends.tensorflow._shape import TensorShape
from vfw.frontends.tensorflow._sparse_tensor import SparseTensor
from vfw.io.tfrecord import frame, masked_crc32c


def _compression(options, tf_op):
    kind = getattr(options, "compression_type", options) or ""
    kind = kind.upper()
    if kind not in ("", "GZIP", "ZLIB"):
        raise op_error(f"Unsupported compression_type: {kind}.", tf_op)
    return kind


class TFRecordOptions:
    """``compression_type``: ``""`` / None, ``"GZIP"`` or ``"ZLIB"`` (the other TF options are accepted)."""

    def __init__(self, compression_type=None, flush_mode=None, input_buffer_size=None, output_buffer_size=None,
                 window_bits=None, compression_level=None, compression_strategy=None, mem_level=None):
        self.compression_type = compression_type


class TFRecordWriter:
    """Writes records (bytes or str) to a TFRecord file at ``path``.

    The file is written when the writer is closed (``close``, or leaving its ``with`` block), compressed as a
    whole for ``options="GZIP"``/``"ZLIB"``.
    """

    def __init__(self, path, options=None):
        self._path = str(path)
        self._compression = _compression(options, "TFRecordWriter")
        self._chunks = []
        try:
            open(self._path, "wb").close()
        except OSError as e:
            raise errors.NotFoundError(None, None, f"{self._path}; {e.strerror}") from None

    def write(self, record):
        """Append one record."""
        if not isinstance(record, (bytes, str)):
            raise TypeError(f"write(): incompatible function arguments: record must be bytes or str, not "
                            f"{type(record).__name__}")
        data = record.encode() if isinstance(record, str) else record
        self._chunks.append(frame(data))

    def flush(self):
        """Write the records so far to the file."""
        content = b"".join(self._chunks)
        if self._compression == "GZIP":
            content = gzip.compress(content)
        elif self._compression == "ZLIB":
            content = zlib.compress(content)
        with open(self._path, "wb") as f:
            f.write(content)

    def close(self):
        """Write the file and finish."""
        self.flush()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


def read_records(path, compression):
    """The records of a TFRecord file (a list of bytes).

    Raises
    ------
    NotFoundError
        For a missing file.
    DataLossError
        For a truncated record or a checksum mismatch.
    """
    try:
        with open(path, "rb") as f:
            content = f.read()
    except FileNotFoundError:
        raise op_error(f"{path}; No such file or directory", "IteratorGetNext", errors.NotFoundError) from None
    if compression == "GZIP":
        content = gzip.decompress(content)
    elif compression == "ZLIB":
        content = zlib.decompress(content)
    records, pos = [], 0
    while pos < len(content):
        header = content[pos:pos + 12]
        length = int.from_bytes(header[:8], "little")
        data = content[pos + 12:pos + 12 + length]
        footer = content[pos + 12 + length:pos + 16 + length]
        if len(header) < 12 or len(footer) < 4:
            raise op_error(f"truncated record at {pos}' failed with Data loss: corrupted record at {pos}",
                           "IteratorGetNext", errors.DataLossError)
        if masked_crc32c(header[:8]) != int.from_bytes(header[8:], "little") or \
                masked_crc32c(data) != int.from_bytes(footer, "little"):
            raise op_error(f"corrupted record at {pos}", "IteratorGetNext", errors.DataLossError)
        records.append(data)
        pos += 16 + length
    return records


# -- Example parsing ---------------------------------------------------------------------------------------------
FixedLenFeature = collections.namedtuple("FixedLenFeature", ["shape", "dtype", "default_value"],
                                         defaults=[None])
VarLenFeature = collections.namedtuple("VarLenFeature", ["dtype"])
_PARSED_KINDS = {"string": "bytes_list", "float32": "float_list", "int64": "int64_list"}
_KIND_NAMES = {"bytes_list": "string", "float_list": "float", "int64_list": "int64"}
_PARSE_OP = "ParseExampleV2"


def _feature_values(example, key, dtype, ragged=False):
    """The values of feature ``key`` of ``example`` as a 1-D array of ``dtype`` (None when the feature is absent);
    ``ragged``: TF's message for a ``RaggedFeature`` of another kind."""
    feature = example.features.feature.get(key)
    if feature is None or feature.WhichOneof("kind") is None:
        return None
    kind = feature.WhichOneof("kind")
    if kind != _PARSED_KINDS[dtype.name]:
        expected = _KIND_NAMES[_PARSED_KINDS[dtype.name]]
        if ragged:
            raise op_error(f"Key: {key}.  Data types don't match. Expected type: {expected}, Actual type: "
                           f"{_KIND_NAMES[kind]}", _PARSE_OP)
        raise op_error(f"Key: {key}.  Data types don't match. Data type: {_KIND_NAMES[kind]} but expected type: "
                       f"{expected}", _PARSE_OP)
    return np.array(getattr(feature, kind).value, dtype=dtype.as_numpy_dtype).reshape(-1)


def _checked_features(features):
    for key, spec in features.items():
        if not isinstance(spec, (FixedLenFeature, VarLenFeature, RaggedFeature, FixedLenSequenceFeature,
                                 SparseFeature)):
            raise ValueError(f"Unsupported feature type for {key!r}: {type(spec).__name__} (vfw parses "
                             "FixedLenFeature, VarLenFeature, RaggedFeature, FixedLenSequenceFeature and "
                             "SparseFeature)")
        check_example_spec(key, spec)
        if _dtypes.as_dtype(spec.dtype).name not in _PARSED_KINDS:
            raise ValueError(f"Unsupported dtype {_dtypes.as_dtype(spec.dtype).name} for feature {key!r}: "
                             "expected float32, int64 or string")


def _dense(examples, key, spec):
    """The ``FixedLenFeature`` ``key`` of every example, stacked: ``[len(examples), *shape]``."""
    dtype = _dtypes.as_dtype(spec.dtype)
    shape = tuple(TensorShape(spec.shape).as_list())
    size = int(np.prod(shape, dtype=np.int64))
    default = None if spec.default_value is None else \
        np.broadcast_to(np.asarray(spec.default_value, dtype=dtype.as_numpy_dtype), shape)
    rows = []
    for example in examples:
        values = _feature_values(example, key, dtype)
        if values is None:
            if default is None:
                raise op_error(f"Feature: {key} (data type: {dtype.name}) is required but could not be found.",
                               _PARSE_OP)
            rows.append(default)
            continue
        if values.size != size:
            raise op_error(f"Key: {key}.  Can't parse serialized Example: Some {_PARSED_KINDS[dtype.name]} slice "
                           "was not parsed.", _PARSE_OP)
        rows.append(values.reshape(shape))
    return np.stack(rows) if rows else np.zeros((0, *shape), dtype.as_numpy_dtype)


def _sparse(examples, key, spec, batched):
    """The ``VarLenFeature`` ``key`` of the examples as a SparseTensor (``[batch, max_len]``, or ``[max_len]``)."""
    dtype = _dtypes.as_dtype(spec.dtype)
    per_example = [_feature_values(example, key, dtype) for example in examples]
    per_example = [np.zeros(0, dtype.as_numpy_dtype) if v is None else v for v in per_example]
    lengths = np.array([v.size for v in per_example], np.int64)
    longest = int(lengths.max()) if lengths.size else 0
    rows = np.repeat(np.arange(len(per_example), dtype=np.int64), lengths)
    columns = np.concatenate([np.arange(n, dtype=np.int64) for n in lengths]) if lengths.size else \
        np.zeros(0, np.int64)
    values = np.concatenate(per_example) if per_example else np.zeros(0, dtype.as_numpy_dtype)
    if batched:
        return SparseTensor(np.stack([rows, columns], 1), values, [len(per_example), longest])
    return SparseTensor(columns[:, None], values, [longest])


def _example_of(record):
    try:
        return Example.FromString(record)
    except pb.DecodeError:
        shown = "".join(c for c in record.decode("latin-1") if c.isprintable() or c in "\n\t")  # as TF shows it
        raise op_error(f"Could not parse example input, value: '{shown}'", _PARSE_OP) from None


def _on_stand_ins():
    """Whether a tf.data function runs on stand-in elements (for its output spec only: see ``data._functional``)."""
    functional = sys.modules.get("vfw.frontends.tensorflow.data._functional")
    return functional is not None and functional.ON_STAND_INS[0]


def _placeholder(count, spec):
    """Zeros of the static shape of a ``FixedLenFeature`` parsed from ``count`` records."""
    dtype = _dtypes.as_dtype(spec.dtype)
    rows = [0] if isinstance(spec, FixedLenSequenceFeature) else []  # no rows of a sequence feature
    shape = (count, *rows, *TensorShape(spec.shape).as_list())
    return np.full(shape, b"", dtype=object) if dtype == _dtypes.string else np.zeros(shape, dtype.as_numpy_dtype)


def _parsed(serialized, features, batched):
    _checked_features(features)
    serialized = convert_to_tensor(serialized, dtype=_dtypes.string)
    dense_keys = [k for k, spec in features.items() if isinstance(spec, (FixedLenFeature, FixedLenSequenceFeature))]

    def examples_of(array):
        return [_example_of(record) for record in np.asarray(array).reshape(-1)]

    def dense(array):
        try:
            examples = examples_of(array)
            results = [_dense(examples, key, features[key]) if isinstance(features[key], FixedLenFeature) else
                       example_sequence(examples, key, features[key], _feature_values, _PARSE_OP) for key in dense_keys]
        except errors.OpError:
            if not _on_stand_ins():
                raise
            results = [_placeholder(array.size, features[key]) for key in dense_keys]
        return tuple(results if batched else [r[0, ...] for r in results])

    result = {}
    if dense_keys:
        tensors = host(dense, serialized)
        result.update(zip(dense_keys, tensors if isinstance(tensors, tuple) else (tensors,)))
    sparse_keys = [k for k in features if k not in dense_keys]
    if sparse_keys:
        examples = examples_of(serialized.array)
        for key in sparse_keys:
            spec = features[key]
            if isinstance(spec, SparseFeature):
                result[key] = example_sparse(examples, spec, batched, _feature_values)
                continue
            result[key] = _sparse(examples, key, spec, batched) if isinstance(spec, VarLenFeature) else \
                parsed_ragged(examples, key, spec, batched,
                              lambda example, name, dtype: _feature_values(example, name, dtype, ragged=True))
    return {key: result[key] for key in sorted(result)}


def parse_single_example(serialized, features, example_names=None, name=None):
    """The features of one serialized ``tf.train.Example`` (a scalar string).

    Parameters
    ----------
    serialized : scalar string tensor or bytes
    features : dict
        Feature name -> ``FixedLenFeature(shape, dtype, default_value=None)`` (a tensor of ``shape``) or
        ``VarLenFeature(dtype)`` (a 1-D SparseTensor); dtypes float32, int64 or string.

    Returns
    -------
    dict
        Feature name -> Tensor or SparseTensor.

    Raises
    ------
    InvalidArgumentError
        For a missing feature without default, a feature of another kind or a wrong number of values.
    """
    return _parsed(serialized, features, batched=False)


def parse_example(serialized, features, example_names=None, name=None):
    """The features of a batch (a 1-D string tensor) of serialized Examples: ``FixedLenFeature`` values
    ``[batch, *shape]``, ``VarLenFeature`` values SparseTensors ``[batch, longest]`` (see ``parse_single_example``).
    """
    return _parsed(serialized, features, batched=True)


# -- TensorProto ---------------------------------------------------------------------------------------------------
_BY_ENUM = {d.as_datatype_enum: d for d in (_dtypes.float16, _dtypes.float32, _dtypes.float64, _dtypes.bfloat16,
                                            _dtypes.int8, _dtypes.int16, _dtypes.int32, _dtypes.int64, _dtypes.uint8,
                                            _dtypes.uint16, _dtypes.uint32, _dtypes.uint64, _dtypes.bool,
                                            _dtypes.string, _dtypes.complex64, _dtypes.complex128)}


def tensor_proto(array, strings_in_content=False):
    """A serialized ``TensorProto`` of ``array``: its dtype, shape and little-endian ``tensor_content``; strings
    as ``string_val`` entries, or with ``strings_in_content`` (TF's ``AsProtoTensorContent``) in ``tensor_content``:
    the varint lengths of all strings, then their bytes."""
    dtype = _dtypes.of_array(array)
    shape = b"".join(pb.field(2, pb.LENGTH, pb.field(1, pb.VARINT, pb.varint(n)) if n else b"")
                     for n in array.shape)
    out = pb.field(1, pb.VARINT, pb.varint(dtype.as_datatype_enum)) + pb.field(2, pb.LENGTH, shape)
    if dtype == _dtypes.string:
        items = [bytes(s) for s in array.reshape(-1)]
        if not strings_in_content:
            return out + b"".join(pb.field(8, pb.LENGTH, item) for item in items)
        content = b"".join(pb.varint(len(item)) for item in items) + b"".join(items)
    else:
        content = np.ascontiguousarray(array).astype(array.dtype.newbyteorder("<")).tobytes()
    return out + (pb.field(4, pb.LENGTH, content) if content else b"")


def tensor_proto_parts(data):
    """``(dtype enum, dims, tensor_content, string_val entries)`` of a serialized ``TensorProto`` (``pb.DecodeError``
    when it does not parse)."""
    dtype_enum, dims, content, strings = 0, [], b"", []
    for number, _, value in pb.fields(data):
        if number == 1:
            dtype_enum = value
        elif number == 2:
            dims = [next((v for n, _, v in pb.fields(dim) if n == 1), 0) for n, _, dim in pb.fields(value) if n == 2]
        elif number == 4:
            content = value
        elif number == 8:
            strings.append(value)
    return dtype_enum, dims, content, strings


def numeric_array(dtype, content, dims):
    """The ``dims``-shaped array of non-string ``dtype`` whose little-endian bytes are ``content``."""
    np_dtype = np.dtype(dtype.as_numpy_dtype).newbyteorder("<")
    return np.frombuffer(content, dtype=np_dtype).astype(np_dtype.newbyteorder("=")).reshape(dims)


def serialize_tensor(tensor, name=None):
    """``tensor`` as a serialized ``TensorProto`` (a scalar string): dtype, shape and the raw little-endian
    content (``string_val`` entries for strings)."""
    t = convert_to_tensor(tensor)
    return host(lambda array: np.array(tensor_proto(array), dtype=object), t)


def _array_of_proto(data, out_type):
    dtype_enum, dims, content, strings = tensor_proto_parts(data)
    dtype = _BY_ENUM.get(dtype_enum)
    if dtype != out_type:
        raise op_error(f"Type mismatch between parsed tensor ({dtype.name if dtype else dtype_enum}) and dtype "
                       f"({out_type.name})", "ParseTensor")
    if dtype == _dtypes.string:
        return np.array(strings, dtype=object).reshape(dims)
    return numeric_array(dtype, content, dims)


def parse_tensor(serialized, out_type, name=None):
    """The tensor of a serialized ``TensorProto`` (``serialize_tensor``'s output).

    Raises
    ------
    InvalidArgumentError
        When its dtype is not ``out_type``.
    """
    out_type = _dtypes.as_dtype(out_type)
    serialized = convert_to_tensor(serialized, dtype=_dtypes.string)
    def run(array):
        data = bytes(array[()])
        try:
            return _array_of_proto(data, out_type)
        except pb.DecodeError:
            raise op_error(f"Could not parse `serialized` as TensorProto, base64: "
                           f"{base64.urlsafe_b64encode(data).decode()}", "ParseTensor") from None
    return host(run, serialized)


def read_file(filename, name=None):
    """The bytes of the file ``filename`` as a scalar string tensor (NotFoundError if it does not exist)."""
    def run(array):
        path = array.reshape(()).item()
        path = path.decode() if isinstance(path, bytes) else path
        try:
            with open(path, "rb") as f:
                return np.array(f.read(), dtype=object)
        except FileNotFoundError:
            if _on_stand_ins():  # a tf.data function traced on stand-in paths
                return np.array(b"", dtype=object)
            raise op_error(f"{path}; No such file or directory", "ReadFile", errors.NotFoundError) from None

    return host(run, convert_to_tensor(filename, dtype=_dtypes.string))


def write_file(filename, contents, name=None):
    """Writes the string ``contents`` to the file ``filename`` (replacing it)."""
    path = convert_to_tensor(filename, dtype=_dtypes.string).array.reshape(()).item()
    data = convert_to_tensor(contents, dtype=_dtypes.string).array.reshape(()).item()
    with open(path.decode() if isinstance(path, bytes) else path, "wb") as f:
        f.write(data.encode() if isinstance(data, str) else data)


NAMESPACES = {"io": ["FixedLenFeature", "RaggedFeature", "TFRecordOptions", "TFRecordWriter", "VarLenFeature",
                     "parse_example", "parse_single_example", "parse_tensor", "read_file", "serialize_tensor",
                     "write_file"]}
