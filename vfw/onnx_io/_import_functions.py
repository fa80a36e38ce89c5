"""ONNX functions inlined into the calling graph: model-local functions and the bodies ONNX gives ops.

A call is expanded by converting the function's nodes into the caller's graph level, every name
of the body (its nested subgraphs included) prefixed by a name unique to the call, formal inputs
bound to the caller's values and formal outputs to the caller's output names.  Attributes the body
references (``ref_attr_name``) take the caller's value, else the function's (or the operator
schema's) default, else they are left out.  The body's nodes run under the function's own opset
imports.
"""

import onnx

from vfw.core.errors import UnknownOpError
from vfw.onnx_io._import_graph import opset_map
from vfw.onnx_io._import_tensors import OnnxModelError

MAX_DEPTH = 32
"""Deepest nesting of function calls expanded (deeper means a function that calls itself)."""


def _renamer(prefix, bound):
    """Map a body name to its name in the caller: bound names (formal inputs) or ``prefix/name``."""

    def rename(name):
        if not name:
            return ""
        if name in bound:
            return bound[name]
        return f"{prefix}/{name}"

    return rename


def _substitute(attributes, caller_attrs, defaults):
    """Attribute protos with references to the caller's attributes resolved (unresolved ones dropped)."""
    out = []
    for attr in attributes:
        if not attr.ref_attr_name:
            out.append(attr)
            continue
        source = caller_attrs.get(attr.ref_attr_name) or defaults.get(attr.ref_attr_name)
        if source is None:
            continue
        resolved = onnx.AttributeProto()
        resolved.CopyFrom(source)
        resolved.name = attr.name
        out.append(resolved)
    return out


def _rename_graph(graph, rename, caller_attrs, defaults):
    """A copy of subgraph ``graph`` with every name renamed and attribute references resolved."""
    out = onnx.GraphProto()
    out.CopyFrom(graph)
    for vi in list(out.input) + list(out.output) + list(out.value_info):
        vi.name = rename(vi.name)
    for t in out.initializer:
        t.name = rename(t.name)
    for s in out.sparse_initializer:
        s.values.name = rename(s.values.name)
    nodes = [_rename_node(node, rename, caller_attrs, defaults) for node in graph.node]
    del out.node[:]
    out.node.extend(nodes)
    return out


def _rename_node(node, rename, caller_attrs, defaults):
    out = onnx.NodeProto()
    out.CopyFrom(node)
    del out.input[:]
    out.input.extend(rename(n) for n in node.input)
    del out.output[:]
    out.output.extend(rename(n) for n in node.output)
    attributes = _substitute(node.attribute, caller_attrs, defaults)
    del out.attribute[:]
    for attr in attributes:
        copy = out.attribute.add()
        copy.CopyFrom(attr)
        if copy.type == onnx.AttributeProto.GRAPH:
            copy.g.CopyFrom(_rename_graph(attr.g, rename, caller_attrs, defaults))
        elif copy.type == onnx.AttributeProto.GRAPHS:
            renamed = [_rename_graph(g, rename, caller_attrs, defaults) for g in attr.graphs]
            del copy.graphs[:]
            copy.graphs.extend(renamed)
    return out


def _expand(converter, b, node, function, defaults, opsets, label):
    """Inline ``function`` called by ``node`` into ``b``."""
    depth = converter.function_depth
    if depth >= MAX_DEPTH:
        raise OnnxModelError(f"{label}: functions nested more than {MAX_DEPTH} deep (a recursive function?)")
    if len(node.input) > len(function.input) or len(node.output) > len(function.output):
        raise OnnxModelError(f"{label}: function {function.name!r} takes {len(function.input)} inputs and "
                             f"{len(function.output)} outputs, the node has {len(node.input)} and {len(node.output)}")
    prefix = converter.fresh(f"{function.name}")
    bound = {}
    for k, formal in enumerate(function.input):
        actual = node.input[k] if k < len(node.input) else ""
        if actual:
            bound[formal] = f"{prefix}/{formal}"
            b.alias(bound[formal], b.read(actual, label), label)
        else:
            bound[formal] = ""
    rename = _renamer(prefix, bound)
    caller_attrs = {a.name: a for a in node.attribute}
    body = [_rename_node(n, rename, caller_attrs, defaults) for n in function.node]
    converter.function_depth = depth + 1
    try:
        converter.convert_nodes(b, body, opsets, f"{label} -> function {function.name!r}")
    finally:
        converter.function_depth = depth
    for k, actual in enumerate(node.output):
        if actual:
            inner = rename(function.output[k])
            b.alias(actual, b.read(inner, label), label)


def expand_local(converter, b, node, function, label):
    """Inline a call of a model-local function."""
    defaults = {a.name: a for a in function.attribute_proto}
    opsets = opset_map(function.opset_import, f"{label}: function {function.name!r}") or converter.opsets
    _expand(converter, b, node, function, defaults, opsets, label)


def _schema_defaults(schema):
    return {name: attr.default_value for name, attr in schema.attributes.items()
            if attr.default_value is not None and attr.default_value.type}


def expand_schema(converter, b, spec, schema):
    """Inline the function body ONNX defines for ``spec``'s operator (context-dependent ones built for the
    node's input types)."""
    version = spec.opsets.get(spec.domain)
    node = spec.proto
    if schema.has_function:
        usable = [v for v in schema.function_opset_versions if v <= version] or sorted(schema.function_opset_versions)
        data = schema.get_function_with_opset_version(max(usable))
    else:
        usable = [v for v in schema.context_dependent_function_opset_versions if v <= version]
        usable = usable or sorted(schema.context_dependent_function_opset_versions)
        types = []
        for name in node.input:
            found = converter.type_of(name) if name else None
            if name and found is None:
                raise UnknownOpError(f"{spec.where}: {spec.op_type} is expanded into its ONNX function body, which "
                                     f"needs the type of input {name!r}; it is unknown (give the graph's value_info)")
            types.append(found.SerializeToString() if found is not None else onnx.TypeProto().SerializeToString())
        try:
            data = schema.get_context_dependent_function_with_opset_version(max(usable), node.SerializeToString(),
                                                                           types)
        except Exception as exc:  # noqa: BLE001  (ONNX's builder rejects unsupported combinations)
            raise UnknownOpError(f"{spec.where}: ONNX cannot build the function body of {spec.op_type} for this node "
                                 f"({exc})") from None
    function = onnx.FunctionProto()
    function.ParseFromString(data)
    if not function.node:
        raise UnknownOpError(f"{spec.where}: ONNX gives no function body for {spec.op_type} at opset {version}")
    opsets = opset_map(function.opset_import, spec.where) or dict(spec.opsets)
    for domain, v in spec.opsets.items():
        opsets.setdefault(domain, v)
    if not function.name:
        function.name = spec.op_type
    _expand(converter, b, node, function, _schema_defaults(schema), opsets, spec.where)
