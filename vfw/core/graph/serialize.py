"""Saving and loading graphs: a :class:`~vfw.core.proto.GraphDef` as protobuf bytes.

A file holds one serialized GraphDef and nothing else.  Loading parses it and
validates it (:func:`validate_graph`) before anything can run it: every op
type must be registered with valid attributes and a legal input count, every
value an op reads must be a graph input, an initializer or the output of an
earlier op, and initializers and value infos must decode.  Loading never runs
code from the file: names are only ever dictionary keys and message text, and
:class:`~vfw.core.graph.executor.CompiledGraph` generates integer-indexed code
of its own, whatever the graph's names contain.
"""

import math
import os

from google.protobuf.message import DecodeError

from vfw.core import dtypes as dt
from vfw.core.errors import DTypeError, OpAttributeError, OpInputError, UnknownOpError, VfwError
from vfw.core.ir import opdef_attrs
from vfw.core.proto import GraphDef
from vfw.core.registry import get_schema


def save_graph(graph_def, path):
    """Write ``graph_def`` to ``path`` as protobuf bytes.

    Parameters
    ----------
    graph_def : GraphDef
    path : str or os.PathLike

    Raises
    ------
    OpInputError
        When the graph (or a subgraph of its control-flow ops) holds PyFunc ops (their Python
        functions live in this process only).
    """
    if not isinstance(graph_def, GraphDef):
        raise OpInputError(f"save_graph: expected a GraphDef, got {type(graph_def).__name__}")
    calls = _py_funcs(graph_def)
    if calls:
        raise OpInputError(f"save_graph: graph {graph_def.name!r} has {calls} PyFunc op(s), which call Python "
                           "functions of this process (random draws of a frontend's generator, such as torch.rand or "
                           "dropout in training mode): it cannot be saved; trace the function without them (e.g. the "
                           "model in eval mode)")
    data = graph_def.SerializeToString()
    with open(os.fspath(path), "wb") as f:
        f.write(data)


def _py_funcs(graph_def):
    """Number of PyFunc ops in ``graph_def``, the subgraphs of its control-flow ops included."""
    return sum(op.type == "PyFunc" for op in graph_def.op) + sum(
        _py_funcs(arg.g) for op in graph_def.op for arg in op.arg if arg.WhichOneof("value") == "g")


def load_graph(path):
    """Read a GraphDef saved by :func:`save_graph` and validate it.

    Parameters
    ----------
    path : str or os.PathLike

    Returns
    -------
    GraphDef

    Raises
    ------
    OpInputError
        Bytes that are not a GraphDef, or a graph that reads undefined values.
    UnknownOpError, OpAttributeError, DTypeError
        From :func:`validate_graph`, with the file named.
    """
    path = os.fspath(path)
    with open(path, "rb") as f:
        data = f.read()
    graph = GraphDef()
    try:
        graph.ParseFromString(data)
    except DecodeError as exc:
        raise OpInputError(f"{path}: not a vfw GraphDef file ({exc})") from None
    try:
        validate_graph(graph)
    except VfwError as exc:
        raise type(exc)(f"{path}: {exc}") from None
    return graph


_CODES = {dt.onnx_code(d) for d in dt.FIXED_SIZE | {dt.string}}


def _check_tensor(graph, proto):
    if proto.data_type not in _CODES:
        raise DTypeError(f"graph {graph.name!r}: initializer {proto.name!r} has unsupported data type code "
                         f"{proto.data_type}")
    dtype = dt.as_dtype(proto.data_type)
    if any(d < 0 for d in proto.dims):
        raise OpInputError(f"graph {graph.name!r}: initializer {proto.name!r} has negative dims {list(proto.dims)}")
    count = math.prod(proto.dims)
    if dtype == dt.string:
        got, want = len(proto.string_data), count
    else:
        got, want = len(proto.raw_data), count * dtype.itemsize
    if got != want:
        unit = "strings" if dtype == dt.string else "bytes"
        raise OpInputError(f"graph {graph.name!r}: initializer {proto.name!r} of shape {list(proto.dims)} "
                           f"({dt.type_name(dtype)}) needs {want} {unit} of data, has {got}")


def _input_count_ok(schema, n):
    variadic = bool(schema.inputs) and schema.inputs[-1].variadic
    return schema.min_inputs <= n and (variadic or n <= len(schema.inputs))


def validate_graph(graph):
    """Check that ``graph`` is well formed and only uses registered ops.

    Parameters
    ----------
    graph : GraphDef

    Raises
    ------
    UnknownOpError
        An op type that is not registered.
    OpAttributeError
        Attributes the op does not accept.
    OpInputError
        A value read before (or without) being defined, a name defined twice,
        an output that nothing defines, a wrong number of op inputs, or a
        malformed initializer or memory plan.
    DTypeError
        An initializer or value info with a data type code the engine lacks.
    """
    name = graph.name
    defined = set()

    def define(value, what):
        if not value:
            raise OpInputError(f"graph {name!r}: {what} has an empty name")
        if value in defined:
            raise OpInputError(f"graph {name!r}: {what} defines {value!r}, which is already defined "
                               "(graphs are in SSA form)")
        defined.add(value)

    for value in graph.input:
        define(value, "an input")
    for proto in graph.initializer:
        _check_tensor(graph, proto)
        define(proto.name, "an initializer")
    infos = {}
    for vi in graph.value_info:
        if vi.data_type not in _CODES:
            raise DTypeError(f"graph {name!r}: value info of {vi.name!r} has unsupported data type code "
                             f"{vi.data_type}")
        infos[vi.name] = vi
    for k, op in enumerate(graph.op):
        where = f"graph {name!r}: op #{k} ({op.type!r})"
        try:
            schema = get_schema(op.type)
        except UnknownOpError:
            raise UnknownOpError(f"{where}: unknown op type {op.type!r}") from None
        try:
            attrs = opdef_attrs(op)
        except (VfwError, ValueError) as exc:
            raise OpAttributeError(f"{where}: malformed attribute ({exc})") from None
        buffers = attrs.pop("buffer", None)
        offsets = attrs.pop("buffer_offset", None)
        try:
            schema.bind_attrs(attrs)
        except OpAttributeError as exc:
            raise OpAttributeError(f"{where}: {exc}") from None
        if not _input_count_ok(schema, len(op.input)):
            variadic = bool(schema.inputs) and schema.inputs[-1].variadic
            most = "or more" if variadic else f"to {len(schema.inputs)}"
            raise OpInputError(f"{where}: has {len(op.input)} inputs; {op.type} takes {schema.min_inputs} {most}")
        for value in op.input:
            if value and value not in defined:
                raise OpInputError(f"{where}: reads {value!r}, which no input, initializer or earlier op defines")
        if len(op.output) > len(schema.outputs) and not schema.outputs[-1].variadic:
            raise OpInputError(f"{where}: has {len(op.output)} outputs; {op.type} has {len(schema.outputs)}")
        for value in op.output:
            if value:
                define(value, where)
        if buffers is not None:
            _check_buffers(where, op, buffers, infos)
        if offsets is not None and (buffers is None or not isinstance(offsets, tuple) or len(offsets) != len(buffers)
                                    or not all(isinstance(at, int) and at >= 0 for at in offsets)):
            raise OpInputError(f"{where}: 'buffer_offset' must be a list of byte offsets >= 0, one per 'buffer' "
                               f"entry, got {offsets!r}")
    for value in graph.output:
        if value not in defined:
            raise OpInputError(f"graph {name!r}: output {value!r} is not defined by any input, initializer or op")


def _check_buffers(where, op, buffers, infos):
    # The executor sizes pooled buffers from value infos: a plan needs them, fully known.
    if not isinstance(buffers, tuple) or not all(isinstance(b, int) and b >= -1 for b in buffers):
        raise OpInputError(f"{where}: 'buffer' must be a list of buffer ids >= -1, got {buffers!r}")
    for value, b in zip(op.output, buffers):
        if b >= 0:
            vi = infos.get(value)
            if vi is None or any(d < 0 for d in vi.dims):
                raise OpInputError(f"{where}: output {value!r} is assigned buffer {b} but has no value info "
                                   "with a known shape")
