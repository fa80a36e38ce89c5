"""``tf.io.decode_compressed`` (ZLIB / GZIP), ``tf.io.matching_files`` (glob patterns; ``match_filenames_once``
holds them in a variable) and
``tf.io.decode_json_example`` (protobuf's JSON form of ``tf.train.Example`` to its binary form, written as TF's
JSON converter writes it: repeated numbers unpacked, map entries in the JSON's order).  Run on the host
(``host``: graphs recompute them on each call).
"""

import base64
import glob
import json
import math
import zlib

import numpy as np

from vfw.frontends.tensorflow import _dtypes, errors
from vfw.frontends.tensorflow import _protobuf as pb
from vfw.frontends.tensorflow._dispatch import convert_to_tensor, host, op_error
from vfw.frontends.tensorflow._variables import Variable


def _each_string(array, fn):
    flat = [fn(bytes(item)) for item in array.reshape(-1)]
    return np.array(flat + [None], dtype=object)[:-1].reshape(array.shape)


def decode_compressed(bytes, compression_type="", name=None):  # noqa: A002  (TF's argument name)
    """Decompress each string of ``bytes`` (``compression_type`` "", "ZLIB" or "GZIP"; "" returns them as they are).

    Raises
    ------
    InvalidArgumentError
        For another compression type.
    DataLossError
        For data that does not decompress.
    """
    tf_op = "DecodeCompressed"
    if compression_type not in ("", "ZLIB", "GZIP"):
        raise op_error("Only ZLIB, ZSTD, GZIP or NONE are supported compressions", tf_op)
    data = convert_to_tensor(bytes, dtype=_dtypes.string)
    window = {"": None, "ZLIB": zlib.MAX_WBITS, "GZIP": 16 + zlib.MAX_WBITS}[compression_type]

    def decompress(item):
        try:
            return zlib.decompress(item, window)
        except zlib.error as e:
            raise op_error(f"inflate() failed: {e}", tf_op, errors.DataLossError) from None

    if window is None:
        return host(lambda array: array.copy(), data)
    return host(lambda array: _each_string(array, decompress), data)


def matching_files(pattern, name=None):
    """A 1-D string tensor of the files matching ``pattern`` (a glob, or a list of them), all sorted together
    (a file matched by several patterns appears once per pattern)."""
    patterns = convert_to_tensor(pattern, dtype=_dtypes.string)

    def match(array):
        found = []
        for item in array.reshape(-1):
            found += glob.glob(bytes(item).decode())
        return np.array([f.encode() for f in sorted(found)] + [None], dtype=object)[:-1]

    return host(match, patterns)


def match_filenames_once(pattern, name=None):
    """A non-trainable string variable holding ``matching_files(pattern)`` (matched once, when made)."""
    return Variable(matching_files(pattern), trainable=False)


# -- decode_json_example ---------------------------------------------------------------------------------------------
_LIST_KINDS = {"bytes_list": 1, "bytesList": 1, "float_list": 2, "floatList": 2, "int64_list": 3, "int64List": 3}
_SPECIAL_FLOATS = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}


class _JsonError(Exception):
    pass


def _object(value, where):
    if not isinstance(value, dict):
        raise _JsonError(f"expected an object for {where}")
    return value


def _only(obj, allowed, where):
    for key in obj:
        if key not in allowed:
            raise _JsonError(f"invalid JSON in {where}: no such field: '{key}'")


def _value_field(kind, item):
    """One unpacked entry of a BytesList (1), FloatList (2) or Int64List (3)."""
    if kind == 1:
        if not isinstance(item, str):
            raise _JsonError("expected a base64 string in bytesList")
        return pb.field(1, pb.LENGTH, base64.b64decode(item + "=" * (-len(item) % 4), altchars=b"-_"
                                                       if ("-" in item or "_" in item) else None))
    if kind == 2:
        number = _SPECIAL_FLOATS.get(item, item) if isinstance(item, str) else item
        if isinstance(number, bool) or not isinstance(number, (int, float)):
            raise _JsonError(f"invalid float value {item!r}")
        return pb.field(1, pb.FIXED32, np.float32(number).astype("<f4").tobytes())
    try:
        number = int(item) if isinstance(item, str) or (isinstance(item, (int, float)) and float(item).is_integer()
                                                        and not isinstance(item, bool)) else None
    except ValueError:
        number = None
    if number is None:
        raise _JsonError(f"invalid int64 value {item!r}")
    return pb.field(1, pb.VARINT, pb.varint(number))


def _feature_bytes(feature):
    feature = _object(feature, "Feature")
    _only(feature, _LIST_KINDS, "type.googleapis.com/tensorflow.Feature")
    out = b""
    for key, values in feature.items():
        kind = _LIST_KINDS[key]
        values = _object(values, key)
        _only(values, ("value",), key)
        items = values.get("value", [])
        if not isinstance(items, list):
            raise _JsonError(f"expected a list for {key}.value")
        out += pb.field(kind, pb.LENGTH, b"".join(_value_field(kind, item) for item in items))
    return out


def _example_bytes(text):
    example = _object(json.loads(text), "Example")
    _only(example, ("features",), "type.googleapis.com/tensorflow.Example")
    if "features" not in example:
        return b""
    features = _object(example["features"], "features")
    _only(features, ("feature",), "type.googleapis.com/tensorflow.Features")
    entries = b"".join(pb.field(1, pb.LENGTH, pb.field(1, pb.LENGTH, key.encode()) +
                                pb.field(2, pb.LENGTH, _feature_bytes(value)))
                       for key, value in _object(features.get("feature", {}), "feature").items())
    return pb.field(1, pb.LENGTH, entries)


def decode_json_example(json_examples, name=None):
    """The binary ``tf.train.Example`` of each JSON-encoded one (protobuf's JSON mapping: camelCase or snake_case
    names, int64s as numbers or strings, bytes base64, floats also "NaN"/"Infinity").

    Raises
    ------
    InvalidArgumentError
        For text that is not JSON, or JSON that is not an Example.
    """
    tf_op = "DecodeJSONExample"
    texts = convert_to_tensor(json_examples, dtype=_dtypes.string)

    def decode(item):
        try:
            return _example_bytes(item.decode())
        except (ValueError, _JsonError) as e:
            raise op_error(f"Error while parsing JSON: {e}", tf_op) from None

    return host(lambda array: _each_string(array, decode), texts)


NAMESPACES = {"io": ["decode_compressed", "decode_json_example", "match_filenames_once", "matching_files"]}
TENSOR_METHODS = {}
