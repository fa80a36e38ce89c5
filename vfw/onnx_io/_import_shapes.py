"""Value shapes of imported graphs, for the executor's memory plans (``vfw.onnx_io.load`` at ``opt_level`` 2 and 3).

The in-place and buffer-pool passes (``vfw.core.graph.passes``, levels 2 and 3) need the shape and dtype of every
value they place; an ONNX graph need not declare them.  At the first run with a given input signature (the shapes
and dtypes of the feeds), ONNX's shape inference with data propagation runs on the model with its inputs fixed to
those shapes; the shapes it determines statically (every dim a number: they cannot depend on the input values)
become value infos of the engine values that carry the ONNX value names.  That first run executes the graph as
imported (level 1) and fetches those values too: a planned graph is compiled only when every inferred shape and
dtype equals the computed one (a model whose declared shapes are wrong keeps the level-1 graph for that signature).
Values the import rewrites introduce (channels-last copies, say) get their shapes from the engine ops' shape
inference, forward from the values ONNX's inference determines, the feeds and the weights.  Values without a
static shape (data-dependent sizes) get no buffer.
"""

import onnx

from vfw.core import dtypes as dt
from vfw.core.errors import VfwError
from vfw.core.graph import CompiledGraph, optimize
from vfw.core.ir import opdef_attrs, proto_to_tensor
from vfw.core.proto import ValueInfo
from vfw.core.registry import TensorInfo, get_schema

_DATA_LIMIT = 4096
"""Initializers of at most this many elements keep their data in the skeleton (shapes, axes, pads that data
propagation reads); larger ones become typed graph inputs (ONNX's inference only needs their types)."""


def _has_subgraphs(graph):
    return any(a.type in (onnx.AttributeProto.GRAPH, onnx.AttributeProto.GRAPHS) for n in graph.node
               for a in n.attribute)


def shape_skeleton(model):
    """A copy of ``model`` for shape inference without its large weights, or None (graphs with subgraphs: the
    memory passes leave control flow alone)."""
    if _has_subgraphs(model.graph):
        return None
    source = model.graph
    graph = onnx.GraphProto(name=source.name, node=source.node, output=[onnx.ValueInfoProto(name=vi.name)
                                                                          for vi in source.output])
    graph.input.extend(source.input)
    declared = {vi.name for vi in source.input}
    for t in source.initializer:
        if t.data_location != onnx.TensorProto.EXTERNAL and _elements(t.dims) <= _DATA_LIMIT:
            graph.initializer.append(t)
        elif t.name not in declared:
            graph.input.append(onnx.helper.make_tensor_value_info(t.name, t.data_type, list(t.dims)))
    skeleton = onnx.ModelProto(ir_version=model.ir_version, graph=graph)
    skeleton.opset_import.extend(model.opset_import)
    skeleton.functions.extend(model.functions)
    return skeleton


def _elements(dims):
    count = 1
    for d in dims:
        count *= d
    return count


def _static(type_proto):
    """``(shape, dtype)`` of a tensor type whose dims are all numbers, else None."""
    if type_proto.WhichOneof("value") != "tensor_type" or not type_proto.tensor_type.HasField("shape"):
        return None
    tt = type_proto.tensor_type
    if not all(d.HasField("dim_value") for d in tt.shape.dim):
        return None
    try:
        dtype = dt.as_dtype(tt.elem_type)
    except VfwError:
        return None
    return tuple(d.dim_value for d in tt.shape.dim), dtype


def static_shapes(skeleton, feeds):
    """``{ONNX value name: (shape, dtype)}`` of the values whose shapes ONNX infers statically when the inputs
    have the shapes and dtypes of ``feeds`` (``{input name: array}``); empty when inference fails."""
    model = onnx.ModelProto()
    model.CopyFrom(skeleton)
    for vi in model.graph.input:
        x = feeds.get(vi.name)
        if x is not None:
            vi.CopyFrom(onnx.helper.make_tensor_value_info(vi.name, dt.onnx_code(x.dtype), list(x.shape)))
    # ONNX's data propagation follows the values of 1-D tensors (shapes) element by element: a long 1-D input (an
    # embedding table, a signal) would cost gigabytes, so such graphs are inferred without it
    vectors = [vi.type.tensor_type.shape.dim for vi in model.graph.input if vi.type.tensor_type.shape.dim
               and len(vi.type.tensor_type.shape.dim) == 1]
    propagate = all(d[0].HasField("dim_value") and d[0].dim_value <= _DATA_LIMIT for d in vectors)
    try:
        inferred = onnx.shape_inference.infer_shapes(model, check_type=False, strict_mode=False, data_prop=propagate)
    except Exception:  # noqa: BLE001  (ONNX's inference is a help: without it the graph runs unplanned)
        return {}
    shapes = {}
    for vi in list(inferred.graph.value_info) + list(inferred.graph.output):
        found = _static(vi.type)
        if found is not None:
            shapes[vi.name] = found
    return shapes


def _engine_inferred(graph, shapes, feeds):
    """``shapes`` and the static ``(shape, dtype)`` of the values it lacks that the engine ops' shape inference
    finds, forward from it, the graph inputs ``feeds`` and the constants (small integer ones by value: axes)."""
    infos = {name: TensorInfo(shape, dtype) for name, (shape, dtype) in shapes.items()}
    for name, value in zip(graph.input, feeds):
        small = getattr(value, "dtype", None) is not None and value.dtype.kind in "iu" and value.size <= _DATA_LIMIT
        infos[name] = TensorInfo(value.shape, value.dtype, value if small else None)
    for proto in graph.initializer:
        dtype = dt.as_dtype(proto.data_type)
        small = dtype.kind in "iu" and _elements(proto.dims) <= _DATA_LIMIT
        infos[proto.name] = TensorInfo(tuple(proto.dims), dtype, proto_to_tensor(proto) if small else None)
    found = dict(shapes)
    for op in graph.op:
        if all(name in infos for name in op.output if name) or not all(name in infos for name in op.input if name):
            continue
        try:
            schema = get_schema(op.type)
            inferred = schema.infer(schema.bind_attrs(opdef_attrs(op)), [infos[name] if name else None
                                                                          for name in op.input])
        except (VfwError, KeyError, TypeError, ValueError):
            continue
        for name, info in zip(op.output, inferred):
            if name and name not in infos and info is not None and info.shape is not None \
                    and None not in info.shape and info.dtype is not None:
                infos[name] = TensorInfo(info.shape, info.dtype)
                found[name] = (info.shape, info.dtype)
    return found


def planned_graph(compiled, shapes, level, feeds):
    """A :class:`CompiledGraph` of ``compiled.graph`` planned at ``level`` with the value infos ``shapes`` of its
    intermediates, and the results of running ``compiled`` on ``feeds`` (the engine's inputs in order).

    The run fetches every value the plan would use; the planned graph is None when one of them differs from its
    inferred shape or dtype (or when no intermediate has a static shape).
    """
    graph = compiled.graph
    outputs = set(graph.output)
    shapes = _engine_inferred(graph, shapes, feeds)
    known = [name for op in graph.op for name in op.output if name and name in shapes and name not in outputs]
    if not known:
        return None, compiled(*feeds)
    values = CompiledGraph(graph, extra_outputs=known)(*feeds)
    results, computed = values[:len(graph.output)], values[len(graph.output):]
    for name, value in zip(known, computed):
        if getattr(value, "shape", None) != shapes[name][0] or getattr(value, "dtype", None) != shapes[name][1]:
            return None, results
    annotated = type(graph)()
    annotated.CopyFrom(graph)
    kept = [vi for vi in annotated.value_info if vi.name not in shapes]
    del annotated.value_info[:]
    annotated.value_info.extend(kept)
    annotated.value_info.extend(ValueInfo(name=name, data_type=dt.onnx_code(shapes[name][1]),
                                          dims=list(shapes[name][0])) for name in known)
    return CompiledGraph(optimize(annotated, level)), results
