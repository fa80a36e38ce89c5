"""The TensorBoard messages an event file holds, with TensorFlow's public field numbers (``event.proto``,
``summary.proto``, ``tensor.proto``, ``tensor_shape.proto``, ``SessionLog`` and the hparams plugin's messages).

The descriptor is written here with protobuf's Python API (no protoc, no generated ``_pb2`` code) and loaded
into a private pool, so these classes never clash with TensorFlow's own when both are imported.
"""

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

_F = descriptor_pb2.FieldDescriptorProto
_TYPES = {"double": _F.TYPE_DOUBLE, "float": _F.TYPE_FLOAT, "int64": _F.TYPE_INT64, "int32": _F.TYPE_INT32,
          "bool": _F.TYPE_BOOL, "string": _F.TYPE_STRING, "bytes": _F.TYPE_BYTES}
_PACKAGE = "vfw.tensorboard"

# message name -> [(field name, number, type, repeated, oneof name)]; a type not in _TYPES names a message.
_MESSAGES = {
    "TensorShapeProto.Dim": [("size", 1, "int64", False, None), ("name", 2, "string", False, None)],
    "TensorShapeProto": [("dim", 2, "TensorShapeProto.Dim", True, None), ("unknown_rank", 3, "bool", False, None)],
    "TensorProto": [("dtype", 1, "int32", False, None), ("tensor_shape", 2, "TensorShapeProto", False, None),
                    ("version_number", 3, "int32", False, None), ("tensor_content", 4, "bytes", False, None),
                    ("float_val", 5, "float", True, None), ("double_val", 6, "double", True, None),
                    ("int_val", 7, "int32", True, None), ("string_val", 8, "bytes", True, None),
                    ("int64_val", 10, "int64", True, None), ("bool_val", 11, "bool", True, None)],
    "HistogramProto": [("min", 1, "double", False, None), ("max", 2, "double", False, None),
                       ("num", 3, "double", False, None), ("sum", 4, "double", False, None),
                       ("sum_squares", 5, "double", False, None), ("bucket_limit", 6, "double", True, None),
                       ("bucket", 7, "double", True, None)],
    "SummaryMetadata.PluginData": [("plugin_name", 1, "string", False, None), ("content", 2, "bytes", False, None)],
    "SummaryMetadata": [("plugin_data", 1, "SummaryMetadata.PluginData", False, None),
                        ("display_name", 2, "string", False, None),
                        ("summary_description", 3, "string", False, None), ("data_class", 4, "int32", False, None)],
    "Summary.Image": [("height", 1, "int32", False, None), ("width", 2, "int32", False, None),
                      ("colorspace", 3, "int32", False, None), ("encoded_image_string", 4, "bytes", False, None)],
    "Summary.Audio": [("sample_rate", 1, "float", False, None), ("num_channels", 2, "int64", False, None),
                      ("length_frames", 3, "int64", False, None), ("encoded_audio_string", 4, "bytes", False, None),
                      ("content_type", 5, "string", False, None)],
    "Summary.Value": [("node_name", 7, "string", False, None), ("tag", 1, "string", False, None),
                      ("metadata", 9, "SummaryMetadata", False, None),
                      ("simple_value", 2, "float", False, "value"), ("image", 4, "Summary.Image", False, "value"),
                      ("histo", 5, "HistogramProto", False, "value"), ("audio", 6, "Summary.Audio", False, "value"),
                      ("tensor", 8, "TensorProto", False, "value")],
    "Summary": [("value", 1, "Summary.Value", True, None)],
    "SourceMetadata": [("writer", 1, "string", False, None)],
    "SessionLog": [("status", 1, "int32", False, None), ("checkpoint_path", 2, "string", False, None),
                   ("msg", 3, "string", False, None)],
    "Event": [("wall_time", 1, "double", False, None), ("step", 2, "int64", False, None),
              ("file_version", 3, "string", False, "what"), ("graph_def", 4, "bytes", False, "what"),
              ("summary", 5, "Summary", False, "what"), ("session_log", 7, "SessionLog", False, "what"),
              ("source_metadata", 10, "SourceMetadata", False, None)],
    # TensorBoard's hparams plugin (plugins/hparams/api.proto, plugin_data.proto), the subset add_hparams writes.
    "MetricName": [("group", 1, "string", False, None), ("tag", 2, "string", False, None)],
    "MetricInfo": [("name", 1, "MetricName", False, None)],
    "HParamInfo": [("name", 1, "string", False, None), ("type", 4, "int32", False, None)],
    "Experiment": [("hparam_infos", 4, "HParamInfo", True, None), ("metric_infos", 5, "MetricInfo", True, None)],
    "HParamValue": [("number_value", 2, "double", False, "kind"), ("string_value", 3, "string", False, "kind"),
                    ("bool_value", 4, "bool", False, "kind")],  # google.protobuf.Value's fields used here
    "SessionStartInfo.HparamsEntry": [("key", 1, "string", False, None), ("value", 2, "HParamValue", False, None)],
    "SessionStartInfo": [("hparams", 1, "SessionStartInfo.HparamsEntry", True, None)],
    "SessionEndInfo": [("status", 1, "int32", False, None)],
    "HParamsPluginData": [("version", 1, "int32", False, None), ("experiment", 2, "Experiment", False, "data"),
                          ("session_start_info", 3, "SessionStartInfo", False, "data"),
                          ("session_end_info", 4, "SessionEndInfo", False, "data")],
}


def _file_descriptor():
    fdp = descriptor_pb2.FileDescriptorProto(name="vfw_tensorboard.proto", package=_PACKAGE, syntax="proto3")
    declared = {}
    for full_name, fields in sorted(_MESSAGES.items(), key=lambda item: item[0].count(".")):  # parents first
        outer, _, inner = full_name.partition(".")
        parent = declared.get(outer) if inner else None
        msg = parent.nested_type.add(name=inner) if parent is not None else fdp.message_type.add(name=outer)
        declared[full_name] = msg
        oneofs = []
        for name, number, typ, repeated, oneof in fields:
            f = msg.field.add(name=name, number=number,
                              label=_F.LABEL_REPEATED if repeated else _F.LABEL_OPTIONAL)
            if typ in _TYPES:
                f.type = _TYPES[typ]
            else:
                f.type, f.type_name = _F.TYPE_MESSAGE, f".{_PACKAGE}.{typ}"
            if oneof is not None:
                if oneof not in oneofs:
                    oneofs.append(oneof)
                    msg.oneof_decl.add(name=oneof)
                f.oneof_index = oneofs.index(oneof)
    return fdp


def _classes():
    pool = descriptor_pool.DescriptorPool()
    pool.Add(_file_descriptor())
    return {name.split(".")[0]: message_factory.GetMessageClass(pool.FindMessageTypeByName(f"{_PACKAGE}.{name}"))
            for name in _MESSAGES if "." not in name}


_CLASSES = _classes()
Event = _CLASSES["Event"]
Summary = _CLASSES["Summary"]
SummaryMetadata = _CLASSES["SummaryMetadata"]
HistogramProto = _CLASSES["HistogramProto"]
TensorProto = _CLASSES["TensorProto"]
TensorShapeProto = _CLASSES["TensorShapeProto"]
SessionLog = _CLASSES["SessionLog"]
HParamsPluginData = _CLASSES["HParamsPluginData"]
Experiment = _CLASSES["Experiment"]
SessionStartInfo = _CLASSES["SessionStartInfo"]
SessionEndInfo = _CLASSES["SessionEndInfo"]
HParamInfo = _CLASSES["HParamInfo"]
MetricInfo = _CLASSES["MetricInfo"]
MetricName = _CLASSES["MetricName"]
HParamValue = _CLASSES["HParamValue"]
SourceMetadata = _CLASSES["SourceMetadata"]

# TensorFlow's DataType enum values (types.proto) of the numpy dtypes a summary tensor may have.
DATA_TYPES = {"float32": 1, "float64": 2, "int32": 3, "uint8": 4, "int16": 5, "int8": 6, "object": 7,
              "complex64": 8, "int64": 9, "bool": 10, "uint16": 17, "complex128": 18, "float16": 19,
              "uint32": 22, "uint64": 23}
DT_STRING = DATA_TYPES["object"]


def tensor_proto(array):
    """The ``TensorProto`` of a numpy array: strings (object/bytes/str arrays) as ``string_val``, numbers as
    little-endian ``tensor_content``."""
    shape = TensorShapeProto(dim=[TensorShapeProto.Dim(size=n) for n in array.shape])
    if array.dtype.kind in "OSU":
        values = [v.encode() if isinstance(v, str) else bytes(v) for v in array.reshape(-1).tolist()]
        return TensorProto(dtype=DT_STRING, tensor_shape=shape, string_val=values)
    if array.dtype.name not in DATA_TYPES:
        raise TypeError(f"a summary tensor cannot have dtype {array.dtype}")
    content = array.astype(array.dtype.newbyteorder("<"), copy=False).tobytes()
    return TensorProto(dtype=DATA_TYPES[array.dtype.name], tensor_shape=shape, tensor_content=content)


def plugin_metadata(plugin_name, content=b"", description="", display_name=""):
    """A ``SummaryMetadata`` naming the TensorBoard plugin that displays the value."""
    return SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name=plugin_name, content=content),
                           summary_description=description, display_name=display_name)
