"""Message classes of ``vfw.proto``, built at import time without protoc.

The ``.proto`` file beside this module is parsed by a small reader that knows
the subset of proto3 the file uses, turned into a ``FileDescriptorProto``, and
loaded into a private descriptor pool.  This avoids generated ``_pb2`` code,
which is tied to the protobuf version that generated it.
"""

import pathlib
import re

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

PROTO_PATH = pathlib.Path(__file__).with_name("vfw.proto")

_F = descriptor_pb2.FieldDescriptorProto
_SCALARS = {
    "double": _F.TYPE_DOUBLE, "float": _F.TYPE_FLOAT, "int64": _F.TYPE_INT64, "uint64": _F.TYPE_UINT64,
    "int32": _F.TYPE_INT32, "uint32": _F.TYPE_UINT32, "bool": _F.TYPE_BOOL, "string": _F.TYPE_STRING,
    "bytes": _F.TYPE_BYTES,
}
_TOKEN = re.compile(r"[A-Za-z_][\w.]*|\d+|[{};=]")


def _tokens(text):
    text = re.sub(r"//[^\n]*", "", text)
    return _TOKEN.findall(text)


def parse_proto(text, filename="vfw.proto"):
    """Parse the proto3 subset used by ``vfw.proto`` into a ``FileDescriptorProto``."""
    tokens = _tokens(text)
    fdp = descriptor_pb2.FileDescriptorProto(name=filename, syntax="proto3")
    pos = 0

    def take(expected=None):
        nonlocal pos
        tok = tokens[pos]
        if expected is not None and tok != expected:
            raise SyntaxError(f"{filename}: expected {expected!r}, found {tok!r}")
        pos += 1
        return tok

    def field(msg, oneof_index=None):
        label = _F.LABEL_REPEATED if tokens[pos] == "repeated" else _F.LABEL_OPTIONAL
        if label == _F.LABEL_REPEATED:
            take()
        typ, name = take(), take()
        take("=")
        number = int(take())
        take(";")
        f = msg.field.add(name=name, number=number, label=label)
        if typ in _SCALARS:
            f.type = _SCALARS[typ]
        else:
            f.type = _F.TYPE_MESSAGE
            f.type_name = f".{fdp.package}.{typ}"
        if oneof_index is not None:
            f.oneof_index = oneof_index

    while pos < len(tokens):
        word = take()
        if word == "syntax":
            take("=")
            take()
            take(";")
        elif word == "package":
            fdp.package = take()
            take(";")
        elif word == "message":
            msg = fdp.message_type.add(name=take())
            take("{")
            while tokens[pos] != "}":
                if tokens[pos] == "oneof":
                    take()
                    msg.oneof_decl.add(name=take())
                    take("{")
                    while tokens[pos] != "}":
                        field(msg, len(msg.oneof_decl) - 1)
                    take("}")
                else:
                    field(msg)
            take("}")
        else:
            raise SyntaxError(f"{filename}: unexpected {word!r}")
    return fdp


def _load():
    fdp = parse_proto(PROTO_PATH.read_text())
    pool = descriptor_pool.DescriptorPool()
    pool.Add(fdp)
    return {m.name: message_factory.GetMessageClass(pool.FindMessageTypeByName(f"{fdp.package}.{m.name}"))
            for m in fdp.message_type}


_CLASSES = _load()
TensorProto = _CLASSES["TensorProto"]
FloatList = _CLASSES["FloatList"]
IntList = _CLASSES["IntList"]
StringList = _CLASSES["StringList"]
TensorList = _CLASSES["TensorList"]
Argument = _CLASSES["Argument"]
DeviceOption = _CLASSES["DeviceOption"]
ValueInfo = _CLASSES["ValueInfo"]
OpDef = _CLASSES["OpDef"]
GraphDef = _CLASSES["GraphDef"]

__all__ = ["Argument", "DeviceOption", "FloatList", "GraphDef", "IntList", "OpDef", "StringList",
           "TensorList", "TensorProto", "ValueInfo", "parse_proto"]
