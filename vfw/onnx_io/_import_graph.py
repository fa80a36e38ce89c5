"""ONNX graphs to engine GraphDefs: scopes, names, node dispatch.

A :class:`Converter` turns one model; each graph level (the main graph, a branch, a loop body,
an expanded function inlined into its caller's level) is built by a :class:`Builder`, which
maps ONNX value names to engine value names and records what kind each value is (tensor,
sequence or optional).  Nodes are converted in dependency order (ONNX asks for topologically
sorted nodes; unsorted ones are sorted, and a cycle is an error naming its nodes), each by:

1. a model-local function of that name (its body is inlined); onnxruntime's own operators (the
   ``com.microsoft`` ops its optimizer saves, which ONNX has no schema for) go to
   :mod:`vfw.onnx_io._import_contrib` next;
2. after the opset adapter of :mod:`vfw.onnx_io._import_opsets` rewrote an old-opset node into the
   newest form (some adapters emit the whole node), a handler of the table in
   :mod:`vfw.onnx_io._import_table` (ops whose ONNX form differs from the engine's, ops made of
   several engine ops, control flow; filled by ``_import_ops`` and ``_import_quant``);
3. the engine op of the same name (attributes as they are);
4. the function body that ONNX defines for the op (plain or context-dependent), inlined.

A subgraph reads outer values by name in ONNX; here such a read makes the value an explicit input
of the subgraph (:attr:`Builder.free`), which the control-flow handlers pass to the op.
"""

import itertools

import numpy as np
import onnx
from onnx import defs

from vfw.core import dtypes as dt
from vfw.core.errors import UnknownOpError, VfwError
from vfw.core.ir import make_argument, tensor_to_proto
from vfw.core.proto import GraphDef, OpDef, ValueInfo
from vfw.core.registry import get_schema, op_types
from vfw.onnx_io._import_tensors import (
    OnnxModelError,
    attribute_value,
    element_dtype,
    sparse_value,
    tensor_value,
)

TENSOR, SEQUENCE, OPTIONAL = "tensor", "sequence", "optional"
DEFAULT_DOMAIN = ""
_ENGINE_OPS = frozenset(op_types())


def normalize_domain(domain):
    """``""`` for ONNX's default domain (also spelled ``ai.onnx``)."""
    return DEFAULT_DOMAIN if domain in ("", "ai.onnx") else domain


def kind_of(type_proto):
    """``tensor``, ``sequence`` or ``optional`` for an ONNX TypeProto (tensor when unset)."""
    which = type_proto.WhichOneof("value")
    if which == "sequence_type":
        return SEQUENCE
    if which == "optional_type":
        return OPTIONAL
    return TENSOR


def tensor_type(type_proto, what):
    """``(dtype or None, dims or None)`` of a tensor TypeProto (unknown dims are None)."""
    if type_proto.WhichOneof("value") != "tensor_type":
        return None, None
    tt = type_proto.tensor_type
    dtype = element_dtype(tt.elem_type, what) if tt.elem_type else None
    if not tt.HasField("shape"):
        return dtype, None
    return dtype, tuple(d.dim_value if d.HasField("dim_value") else None for d in tt.shape.dim)


def element_type(type_proto, what):
    """The element dtype of a tensor, sequence-of-tensor or optional TypeProto, or None."""
    which = type_proto.WhichOneof("value")
    if which == "tensor_type":
        return tensor_type(type_proto, what)[0]
    if which == "sequence_type":
        return element_type(type_proto.sequence_type.elem_type, what)
    if which == "optional_type":
        return element_type(type_proto.optional_type.elem_type, what)
    return None


class NodeSpec:
    """An ONNX node on its way to engine ops.

    Attributes
    ----------
    op_type, domain, name : str
    inputs, outputs : list[str]
        Engine value names ('' for an absent optional input or output).
    attrs : dict
        Attribute values (graphs and type protos stay protos).
    since : int
        The ``since_version`` of the op's schema in the opset the node runs under.
    opsets : dict[str, int]
        The opset imports in effect (those of the model, or of the function the node is in).
    proto : onnx.NodeProto
    """

    __slots__ = ("op_type", "domain", "name", "inputs", "outputs", "attrs", "since", "opsets", "proto", "where")

    def __init__(self, proto, inputs, outputs, attrs, since, opsets, where):
        self.op_type = proto.op_type
        self.domain = normalize_domain(proto.domain)
        self.name = proto.name
        self.inputs = inputs
        self.outputs = outputs
        self.attrs = attrs
        self.since = since
        self.opsets = opsets
        self.proto = proto
        self.where = where

    def input(self, i):
        """Engine name of input ``i`` ('' when absent)."""
        return self.inputs[i] if i < len(self.inputs) else ""

    def output(self, i):
        """Engine name of output ``i`` ('' when absent)."""
        return self.outputs[i] if i < len(self.outputs) else ""

    def error(self, message, cls=OnnxModelError):
        """An exception of ``cls`` naming this node."""
        return cls(f"{self.where}: {message}")


class Builder:
    """One graph level being built: its GraphDef, names, kinds, constants and outer reads.

    Parameters
    ----------
    converter : Converter
    name : str
    parent : Builder, optional
        The enclosing graph level of a subgraph (whose values the subgraph may read).
    """

    def __init__(self, converter, name, parent=None):
        self.converter = converter
        self.parent = parent
        self.graph = GraphDef(name=name)
        self.names = {}  # ONNX name -> engine name
        self.kinds = {}  # engine name -> TENSOR / SEQUENCE / OPTIONAL
        self.consts = {}  # engine name -> array, for the initializers of this level
        self.free = []  # ONNX names of outer values this level reads (inputs after its declared ones)
        self.weights = {}  # engine name -> array fed at run time (external data of the main graph)

    # -- names ---------------------------------------------------------------------------------
    def fresh(self, hint="v"):
        """A new engine value name."""
        return self.converter.fresh(hint)

    def can_read(self, name):
        """Whether ``name`` is defined at this level or an enclosing one."""
        return name in self.names or (self.parent is not None and self.parent.can_read(name))

    def read(self, name, where="graph"):
        """The engine name of ONNX value ``name`` ('' stays ''); an outer value becomes a free input."""
        if not name:
            return ""
        found = self.names.get(name)
        if found is not None:
            return found
        if self.parent is not None and self.parent.can_read(name):
            self.converter.claim(name)
            self.free.append(name)
            self.graph.input.append(name)
            self.names[name] = name
            self.kinds[name] = self.parent.kind(name)
            return name
        raise OnnxModelError(f"{where}: reads {name!r}, which no graph input, initializer or earlier node defines")

    def capture(self, name, where="graph"):
        """A new input of this level holding the outer value ``name``, without binding the name here (the
        body of a synthesized loop may declare an input of the same name)."""
        if self.parent is None or not self.parent.can_read(name):
            raise OnnxModelError(f"{where}: reads {name!r}, which no enclosing graph defines")
        engine = self.fresh(name)
        self.free.append(name)
        self.graph.input.append(engine)
        self.kinds[engine] = self.parent.kind(name)
        return engine

    def kind(self, onnx_name):
        """Kind of the value an ONNX name refers to here or in an enclosing level."""
        found = self.names.get(onnx_name)
        if found is not None:
            return self.kinds.get(found, TENSOR)
        return self.parent.kind(onnx_name) if self.parent is not None else TENSOR

    def define(self, onnx_name, kind=TENSOR, where="graph"):
        """Give ONNX value ``onnx_name`` an engine name at this level and return it."""
        if not onnx_name:
            return ""
        if onnx_name in self.names:
            raise OnnxModelError(f"{where}: defines {onnx_name!r}, which is already defined (ONNX graphs are SSA)")
        engine = onnx_name if self.converter.claim(onnx_name) else self.fresh(onnx_name)
        self.names[onnx_name] = engine
        self.kinds[engine] = kind
        return engine

    def alias(self, onnx_name, engine_name, where="graph"):
        """Let ONNX value ``onnx_name`` be the existing engine value ``engine_name`` (no op)."""
        if onnx_name in self.names:
            raise OnnxModelError(f"{where}: defines {onnx_name!r}, which is already defined (ONNX graphs are SSA)")
        self.names[onnx_name] = engine_name

    # -- content -------------------------------------------------------------------------------
    def const(self, value, dtype=None, hint="c"):
        """A new initializer holding ``value`` (as ``dtype``); returns its engine name."""
        array = np.asarray(value, dtype=dtype)
        name = self.fresh(hint)
        self.graph.initializer.append(tensor_to_proto(array, name))
        self.consts[name] = array
        self.kinds[name] = TENSOR
        return name

    def add_initializer(self, onnx_name, array, external=False):
        """Define an ONNX initializer (an external-data one of the main graph is fed at run time)."""
        name = self.define(onnx_name, where=f"initializer {onnx_name!r}")
        if external and self.parent is None:
            self.weights[name] = array
            self.graph.input.append(name)
            self.set_info(name, array.dtype, array.shape)
        else:
            self.graph.initializer.append(tensor_to_proto(array, name))
            self.consts[name] = array
        return name

    def constant(self, engine_name):
        """The value of ``engine_name`` when it is an initializer of this level, else None."""
        return self.consts.get(engine_name)

    def set_info(self, name, dtype, shape):
        """Record the dtype and (maybe partly known) shape of a value as a ValueInfo."""
        info = ValueInfo(name=name, data_type=dt.onnx_code(dtype) if dtype is not None else 0)
        if shape is not None:
            info.dims.extend(-1 if d is None else int(d) for d in shape)
        self.graph.value_info.append(info)

    def op(self, op_type, inputs, outputs=1, where="graph", **attrs):
        """Append an engine op; ``outputs`` is a count (fresh names) or a list of names; returns the names.

        Attributes are validated here so that an error names the ONNX node.
        """
        names = [self.fresh(op_type.lower()) for _ in range(outputs)] if isinstance(outputs, int) else list(outputs)
        attrs = {k: np.dtype(v) if isinstance(v, type) and issubclass(v, np.generic) else v
                 for k, v in attrs.items() if v is not None}
        try:
            schema = get_schema(op_type)
            schema.bind_attrs(attrs)
        except VfwError as exc:
            raise type(exc)(f"{where}: {exc}") from None
        opdef = OpDef(type=op_type, name=where, input=list(inputs), output=names)
        while opdef.input and not opdef.input[-1]:
            del opdef.input[-1]
        try:
            opdef.arg.extend(make_argument(k, v) for k, v in attrs.items())
        except VfwError as exc:
            raise type(exc)(f"{where}: {exc}") from None
        self.graph.op.append(opdef)
        for name in names:
            if name and name not in self.kinds:
                self.kinds[name] = TENSOR
        return names

    def op1(self, op_type, inputs, where="graph", **attrs):
        """:meth:`op` with one fresh output; returns its name."""
        return self.op(op_type, inputs, 1, where, **attrs)[0]


class Converter:
    """State of one model's conversion: opsets, local functions, known types, name supply.

    Parameters
    ----------
    model : onnx.ModelProto
    base_dir : str or None
        The model's folder (external data).
    """

    def __init__(self, model, base_dir):
        self.base_dir = base_dir
        self.opsets = opset_map(model.opset_import, "the model")
        self.functions = {}
        for f in model.functions:
            self.functions[(normalize_domain(f.domain), f.name, f.overload)] = f
        self._model = model
        self._types = None  # ONNX value name -> TypeProto (declared or inferred), built when first needed
        self._taken = set()  # engine names in use
        self._counter = itertools.count()
        self.function_depth = 0  # nesting of the function calls being expanded

    def _collect_types(self):
        """The declared types, completed by ONNX's shape inference (which may fail on a model it rejects)."""
        types = {}
        try:
            inferred = onnx.shape_inference.infer_shapes(self._model, check_type=False, strict_mode=False)
        except Exception:  # noqa: BLE001  (ONNX's inference is a help, not a requirement)
            inferred = self._model
        graphs = [inferred.graph]
        while graphs:
            graph = graphs.pop()
            for vi in itertools.chain(graph.input, graph.value_info, graph.output):
                if vi.HasField("type"):
                    types.setdefault(vi.name, vi.type)
            for node in graph.node:
                graphs.extend(node_subgraphs(node))
        return types

    def claim(self, name):
        """Reserve ``name`` as an engine name; False when it is taken (a sibling subgraph's value, a fresh name)."""
        if name in self._taken:
            return False
        self._taken.add(name)
        return True

    def fresh(self, hint):
        """A new engine name that no ONNX value of this model uses."""
        while True:
            name = f"{hint}__{next(self._counter)}"
            if self.claim(name):
                return name

    # -- graphs --------------------------------------------------------------------------------
    def graph_level(self, graph, parent, opsets, where, declare=None):
        """Convert ``graph`` (a subgraph when ``parent`` is given) into a new :class:`Builder`.

        Declared inputs come first in ``builder.graph.input`` (``declare(builder)``, when given, defines
        them instead: a Scan body reads slices of whole inputs); outer values it reads follow
        (``builder.free``).  Outputs are the engine names of the declared outputs.
        """
        b = Builder(self, graph.name or where, parent)
        initializers = {t.name for t in graph.initializer} | {s.values.name for s in graph.sparse_initializer}
        named = list(initializers) + [vi.name for vi in list(graph.input) + list(graph.output)]
        if not all(named):
            raise OnnxModelError(f"{where}: a graph input, output or initializer has an empty name")
        for t in graph.initializer:
            b.add_initializer(t.name, tensor_value(t, self.base_dir, f"initializer {t.name!r}"),
                              external=t.data_location == onnx.TensorProto.EXTERNAL)
        for s in graph.sparse_initializer:
            b.add_initializer(s.values.name, sparse_value(s, self.base_dir, f"sparse initializer {s.values.name!r}"))
        for vi in graph.input if declare is None else ():
            if vi.name in initializers:
                continue  # IR < 4 lists initializers among the inputs: they stay constants
            name = b.define(vi.name, kind_of(vi.type), f"{where}: input")
            b.graph.input.insert(len(b.graph.input) - len(b.weights), name)
            if b.kinds[name] == TENSOR:
                dtype, shape = tensor_type(vi.type, f"{where}: input {vi.name!r}")
                if dtype is not None and shape is not None and parent is None:
                    b.set_info(name, dtype, shape)  # an empty dims list would mean a scalar: unknown ranks get none
        if declare is not None:
            declare(b)
        self.convert_nodes(b, graph.node, opsets, where)
        for vi in graph.output:
            b.graph.output.append(b.read(vi.name, f"{where}: output"))
        return b

    def convert_nodes(self, b, nodes, opsets, where):
        """Convert ``nodes`` into ``b`` in dependency order."""
        for node in sort_nodes(b, nodes, where):
            self.convert_node(b, node, opsets, where)

    def convert_node(self, b, node, opsets, where):
        """Convert one ONNX node into engine ops appended to ``b``."""
        # These modules build on this one (NodeSpec, Builder helpers): imported here, not at the top.
        from vfw.onnx_io import _import_contrib, _import_functions, _import_opsets
        from vfw.onnx_io._import_table import HANDLERS

        domain = normalize_domain(node.domain)
        label = f"{where}: node {node.name!r} ({node.op_type})" if node.name else f"{where}: node {node.op_type}"
        local = self.functions.get((domain, node.op_type, getattr(node, "overload", "")))
        if local is not None:
            _import_functions.expand_local(self, b, node, local, label)
            return
        version = opsets.get(domain)
        if version is None:
            raise UnknownOpError(f"{label}: domain {domain or 'ai.onnx'!r} is not among the opset imports")
        if _import_contrib.convert(self, b, node, opsets, label):
            return  # an onnxruntime operator (ONNX has no schema for it)
        try:
            schema = defs.get_schema(node.op_type, version, domain)
        except defs.SchemaError:
            raise UnknownOpError(f"{label}: no operator {node.op_type!r} in domain {domain or 'ai.onnx'!r} at "
                                 f"opset {version}") from None
        if not (schema.min_input <= len(node.input) <= schema.max_input
                and schema.min_output <= len(node.output) <= schema.max_output):
            raise OnnxModelError(f"{label}: has {len(node.input)} inputs and {len(node.output)} outputs; "
                                 f"{node.op_type} takes {schema.min_input} to {schema.max_input} inputs and "
                                 f"{schema.min_output} to {schema.max_output} outputs")
        inputs = [b.read(n, label) for n in node.input]
        while inputs and not inputs[-1]:
            inputs.pop()
        attrs = {a.name: attribute_value(a, self.base_dir, label) for a in node.attribute}
        spec = NodeSpec(node, inputs, [], attrs, schema.since_version, opsets, label)
        adapter = _import_opsets.ADAPTERS.get((domain, node.op_type))
        handler = HANDLERS.get((domain, node.op_type))
        try:
            if adapter is not None and adapter(b, spec):
                return  # the adapter emitted the whole node
            if handler is not None:
                handler(self, b, spec)
            elif domain == DEFAULT_DOMAIN and spec.op_type in _ENGINE_OPS:
                emit_default(b, spec)
            elif schema.has_function or schema.has_context_dependent_function:
                _import_functions.expand_schema(self, b, spec, schema)
            else:
                raise UnknownOpError(f"{label}: operator {domain + '::' if domain else ''}{node.op_type} "
                                     f"(opset {version}) is not supported by vfw")
        except VfwError as exc:
            if label in str(exc):
                raise
            raise type(exc)(f"{label}: {exc}") from None

    def type_of(self, onnx_name):
        """The declared or inferred TypeProto of an ONNX value, or None (shape inference runs on the first
        question: most models never ask)."""
        if self._types is None:
            self._types = self._collect_types()
        return self._types.get(onnx_name)


def define_outputs(b, spec, kinds=()):
    """Define the node's ONNX outputs in ``b`` and store their engine names in ``spec.outputs``."""
    spec.outputs = [b.define(name, kinds[i] if i < len(kinds) else TENSOR, spec.where)
                    for i, name in enumerate(spec.proto.output)]
    while spec.outputs and not spec.outputs[-1]:
        spec.outputs.pop()
    return spec.outputs


def emit_default(b, spec, op_type=None, attrs=None):
    """Emit the node as one engine op of the same name (or ``op_type``) with its attributes (or ``attrs``)."""
    if any(isinstance(v, (onnx.GraphProto, onnx.TypeProto)) for v in spec.attrs.values()) and attrs is None:
        raise spec.error("graph or type attributes are not supported on this operator", UnknownOpError)
    outputs = spec.outputs or define_outputs(b, spec)
    return b.op(op_type or spec.op_type, spec.inputs, outputs, spec.where, **(spec.attrs if attrs is None else attrs))


def opset_map(opset_imports, what):
    """``{domain: version}`` of opset imports (``ai.onnx`` spelled ``""``); duplicates are an error."""
    found = {}
    for entry in opset_imports:
        domain = normalize_domain(entry.domain)
        if domain in found and found[domain] != entry.version:
            raise OnnxModelError(f"{what} imports domain {domain or 'ai.onnx'!r} twice (opsets {found[domain]} and "
                                 f"{entry.version})")
        found[domain] = int(entry.version)
    return found


def subgraph_reads(graph):
    """Names a subgraph reads from outside itself (its nested subgraphs included)."""
    defined = {vi.name for vi in graph.input} | {t.name for t in graph.initializer}
    defined |= {s.values.name for s in graph.sparse_initializer}
    defined |= {o for node in graph.node for o in node.output}
    reads = []
    for node in graph.node:
        reads.extend(node.input)
        for g in node_subgraphs(node):
            reads.extend(subgraph_reads(g))
    reads.extend(vi.name for vi in graph.output)
    return [n for n in reads if n and n not in defined]


def node_subgraphs(node):
    """The subgraphs in a node's attributes."""
    found = []
    for attr in node.attribute:
        if attr.type == onnx.AttributeProto.GRAPH:
            found.append(attr.g)
        elif attr.type == onnx.AttributeProto.GRAPHS:
            found.extend(attr.graphs)
    return found


def sort_nodes(b, nodes, where):
    """``nodes`` in an order where each runs after the nodes producing what it reads (stable for sorted input).

    Raises
    ------
    OnnxModelError
        Two nodes defining one name, or a cycle (the nodes on it are named).
    """
    producer = {}
    for k, node in enumerate(nodes):
        for name in node.output:
            if name:
                if name in producer:
                    raise OnnxModelError(f"{where}: value {name!r} is defined by two nodes "
                                         f"({nodes[producer[name]].name!r} and {node.name!r})")
                producer[name] = k
    needs = []
    for node in nodes:
        reads = list(node.input)
        for g in node_subgraphs(node):
            reads.extend(subgraph_reads(g))
        needs.append({producer[n] for n in reads if n in producer})
    if all(all(d < k for d in deps) for k, deps in enumerate(needs)):
        return list(nodes)
    users = [[] for _ in nodes]
    waiting = [len(deps) for deps in needs]
    for k, deps in enumerate(needs):
        for d in deps:
            users[d].append(k)
    ready = [k for k, n in enumerate(waiting) if n == 0]
    order = []
    while ready:
        ready.sort(reverse=True)
        k = ready.pop()
        order.append(k)
        for u in users[k]:
            waiting[u] -= 1
            if waiting[u] == 0:
                ready.append(u)
    if len(order) != len(nodes):
        stuck = [nodes[k].name or nodes[k].op_type for k in range(len(nodes)) if waiting[k]]
        raise OnnxModelError(f"{where}: the graph has a cycle through node(s) {', '.join(map(repr, stuck[:10]))}")
    return [nodes[k] for k in order]
