"""The IR messages: every message round-trips through bytes; the .proto reader."""

import numpy as np
import pytest
from google.protobuf import descriptor_pb2

from vfw.core import ir, proto


def _full_graph():
    graph = proto.GraphDef(name="g", input=["x", "w"], output=["y"])
    graph.arg.append(ir.make_argument("opt_level", 3))
    graph.initializer.append(ir.tensor_to_proto(np.arange(6, dtype=np.float32).reshape(2, 3), "w"))
    op = graph.op.add()
    op.CopyFrom(ir.make_opdef("Conv", ["x", "w", None], ["y"], name="conv1", strides=[1, 2], alpha=0.5,
                              auto_pad="SAME_UPPER", value=np.ones(2), names=["a", "b"], scales=[0.5, 2.0],
                              pair=[np.zeros(1), np.ones(2)]))
    op.device_option.CopyFrom(proto.DeviceOption(device_type="cpu", device_id=0, random_seed=7))
    graph.value_info.append(proto.ValueInfo(name="y", data_type=1, dims=[-1, 4]))
    body = proto.GraphDef(name="body", output=["z"])
    graph.op.add().CopyFrom(ir.make_opdef("If", ["c"], ["z"], then_branch=body))
    return graph


MESSAGES = {
    "TensorProto": lambda: ir.tensor_to_proto(np.arange(4, dtype=np.int64), "t"),
    "FloatList": lambda: proto.FloatList(values=[1.5, -2.0]),
    "IntList": lambda: proto.IntList(values=[1, -2, 2**40]),
    "StringList": lambda: proto.StringList(values=[b"a", b""]),
    "TensorList": lambda: proto.TensorList(values=[ir.tensor_to_proto(np.ones(2))]),
    "Argument": lambda: ir.make_argument("k", [1, 2, 3]),
    "DeviceOption": lambda: proto.DeviceOption(device_type="cpu", device_id=1, random_seed=3),
    "ValueInfo": lambda: proto.ValueInfo(name="x", data_type=1, dims=[2, -1, 3]),
    "OpDef": lambda: ir.make_opdef("Add", ["a", "b"], ["c"], name="add"),
    "GraphDef": _full_graph,
}


def test_every_message_of_the_proto_file_is_exercised():
    fdp = proto.parse_proto(proto.PROTO_PATH.read_text())
    assert sorted(m.name for m in fdp.message_type) == sorted(MESSAGES)


@pytest.mark.parametrize("name", sorted(MESSAGES))
def test_round_trip_serialize_parse(name):
    message = MESSAGES[name]()
    cls = getattr(proto, name)
    data = message.SerializeToString()
    parsed = cls.FromString(data)
    assert parsed == message
    assert parsed.SerializeToString() == data
    assert len(data) > 0


def test_reader_matches_protobufs_own_descriptor():
    # The classes are built from the file; their descriptors must carry every field the file declares.
    fdp = proto.parse_proto(proto.PROTO_PATH.read_text())
    for message in fdp.message_type:
        fields = getattr(proto, message.name).DESCRIPTOR.fields_by_name
        for f in message.field:
            assert fields[f.name].number == f.number
            assert fields[f.name].type == f.type


def test_argument_oneof_and_values():
    cases = {"i": 3, "f": 0.25, "s": "abc", "ints": (1, 2), "floats": (0.5, 1.5), "strings": ("x", "y")}
    for kind, value in cases.items():
        arg = ir.make_argument("a", value)
        assert arg.WhichOneof("value") == kind
        assert ir.argument_value(proto.Argument.FromString(arg.SerializeToString())) == value


def test_reader_rejects_unsupported_syntax():
    with pytest.raises(SyntaxError, match="enum"):
        proto.parse_proto("syntax = \"proto3\"; enum E { A = 0; }")
    with pytest.raises(SyntaxError, match="expected '='"):
        proto.parse_proto("message M { int32 x 1; }")


def test_descriptor_is_proto3():
    fdp = proto.parse_proto(proto.PROTO_PATH.read_text())
    assert fdp.syntax == "proto3" and fdp.package == "vfw"
    assert isinstance(fdp, descriptor_pb2.FileDescriptorProto)
