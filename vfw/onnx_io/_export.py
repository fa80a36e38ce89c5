"""Engine GraphDef -> ONNX ModelProto.

Engine ops carry the names, inputs and attributes of the ONNX operator of the same name at the
newest opset, so most ops become one node as they are.  The rest go through a table of lowerings
(:mod:`vfw.onnx_io._export_rules`): engine-internal ops (channels-last convolutions, ``Embedding``,
the training forms of recurrent layers, ``FloorDiv``...) become standard ops, and what has no
standard form (gradient ops, Python callbacks, linear algebra decompositions, special functions)
is refused with an error naming the op.  Nodes are written for a chosen opset
(:func:`default_opset`: the newest the installed onnxruntime runs); an op newer than that opset
is decomposed or refused, and attributes and inputs that changed are adapted
(:mod:`vfw.onnx_io._export_opset`).

Inputs whose dtype an ONNX operator does not accept at the target opset (a bool ``ReduceMax``
before opset 20...) are cast to one it does, and the results cast back.

Control flow: an engine ``If`` passes the values its branches read as explicit inputs, which in
ONNX become outer-scope references (the branch inputs are renamed to the outer values); a
``Loop`` body keeps its inputs.  Names inside subgraphs get a unique prefix (ONNX names are unique
across all scopes) and subgraph constants become initializers of the main graph.
"""

import functools

import numpy as np
import onnx
from onnx import defs, helper, numpy_helper

from vfw.core import dtypes as dt
from vfw.core.errors import VfwError
from vfw.core.ir import proto_to_tensor

NEWEST_OPSET = defs.onnx_opset_version()
"""The newest default-domain opset the installed onnx defines (the engine's op semantics)."""

MIN_OPSET = 9
"""The oldest opset an export may target."""

_ONNX_TYPE_NAMES = {
    1: "float", 2: "uint8", 3: "int8", 4: "uint16", 5: "int16", 6: "int32", 7: "int64", 8: "string", 9: "bool",
    10: "float16", 11: "double", 12: "uint32", 13: "uint64", 16: "bfloat16",
}

# Where an operator refuses an input dtype: the dtypes to cast to, best first, by the refused dtype's kind.
_CAST_PREFERENCE = {
    "f": (dt.float32, dt.float64),
    "V": (dt.float32, dt.float64),  # bfloat16 (ml_dtypes)
    "i": (dt.int64, dt.int32, dt.float64, dt.float32),
    "u": (dt.int64, dt.int32, dt.float64, dt.float32),
    "b": (dt.int32, dt.int64, dt.float32),
}

_RESULT_DTYPES = dict.fromkeys(("Equal", "Less", "LessOrEqual", "Greater", "GreaterOrEqual", "And", "Or", "Xor", "Not",
                               "IsInf", "IsNaN"), dt.bool_)
_RESULT_DTYPES.update(Shape=dt.int64, Size=dt.int64)  # the default dtypes of results that are not the inputs'

_NO_TYPE_CHECK = frozenset({"If", "Loop", "Scan"})  # heterogeneous variadic inputs


class ExportError(VfwError, RuntimeError):
    """A graph that cannot be written as a valid ONNX model (the message names the op and why)."""


class UnsupportedOpError(ExportError):
    """An engine op with no standard ONNX form at the target opset."""


@functools.cache
def default_opset():
    """The newest default-domain opset that both onnx and the installed onnxruntime support.

    Found by asking onnxruntime to load a one-node model at each opset, newest first (once per
    process); the newest onnx opset when onnxruntime is not installed.
    """
    try:
        import onnxruntime
    except ImportError:
        return NEWEST_OPSET
    options = onnxruntime.SessionOptions()
    options.log_severity_level = 4
    for opset in range(NEWEST_OPSET, MIN_OPSET - 1, -1):
        graph = helper.make_graph([helper.make_node("Identity", ["x"], ["y"])], "probe",
                                  [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [1])],
                                  [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [1])])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                                  ir_version=ir_version_for(opset))
        try:
            onnxruntime.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
        except Exception:  # noqa: BLE001 - any refusal means: not this opset
            continue
        return opset
    return MIN_OPSET


def ir_version_for(opset):
    """The IR version of the onnx release that introduced ``opset``."""
    return helper.find_min_ir_version_for([helper.make_opsetid("", opset)])


def check_opset(opset, who):
    """``opset`` (``None``: :func:`default_opset`) validated against the range the exporter writes."""
    if opset is None:
        return default_opset()
    if isinstance(opset, bool) or not isinstance(opset, (int, np.integer)):
        raise TypeError(f"{who}: opset_version must be an int, got {type(opset).__name__}")
    if not MIN_OPSET <= opset <= NEWEST_OPSET:
        raise ValueError(f"{who}: opset_version {opset} is not supported: vfw exports opsets {MIN_OPSET} to "
                         f"{NEWEST_OPSET} (the newest the installed onnx defines)")
    return int(opset)


def type_string(dtype):
    """ONNX's ``tensor(float)`` spelling of a numpy dtype."""
    return f"tensor({_ONNX_TYPE_NAMES[dt.onnx_code(dtype)]})"


def schema_at(op_type, opset):
    """The ONNX schema of ``op_type`` in force at ``opset``, or ``None`` if the op did not exist yet."""
    try:
        return defs.get_schema(op_type, opset)
    except defs.SchemaError:
        return None


def attribute_default(op_type, name):
    """The value an attribute takes when absent, at the newest opset (``None`` when it has none)."""
    schema = defs.get_schema(op_type, NEWEST_OPSET)
    attr = schema.attributes.get(name)
    if attr is None or not attr.default_value.name:
        return None
    return helper.get_attribute_value(attr.default_value)


def _same_value(a, b):
    if isinstance(a, bytes):
        a = a.decode()
    if isinstance(b, bytes):
        b = b.decode()
    if isinstance(a, (list, tuple)) or isinstance(b, (list, tuple)):
        return list(a) == list(b)
    return a == b


class ModelWriter:
    """What the graphs of one model share: the opset, unique names, and the main graph's initializers.

    Parameters
    ----------
    opset : int
        The default-domain opset the nodes are written for.
    """

    def __init__(self, opset):
        self.opset = opset
        self.initializers = []
        self.arrays = {}  # initializer name -> its value
        self.taken = set()
        self._count = {}
        self._small = {}  # (dtype, shape, bytes) -> name of a small constant made by a lowering

    def reserve(self, name):
        """Claim ``name`` (a graph input, initializer or value name kept as it is)."""
        self.taken.add(name)
        return name

    def unique(self, hint):
        """A new name starting with ``hint``, unused anywhere in the model."""
        if hint not in self.taken:
            return self.reserve(hint)
        k = self._count.get(hint, 0)
        while True:
            k += 1
            name = f"{hint}_{k}"
            if name not in self.taken:
                self._count[hint] = k
                return self.reserve(name)

    def add_initializer(self, array, hint):
        """A main-graph initializer holding ``array``; returns its (new) name."""
        name = self.unique(hint)
        self.append_initializer(name, np.asarray(array))
        return name

    def append_initializer(self, name, array):
        """Store ``array`` as the initializer ``name`` (already claimed)."""
        self.arrays[name] = array
        self.initializers.append(numpy_helper.from_array(array, name))

    def small_constant(self, array):
        """An initializer for a small constant a lowering needs (one per distinct value)."""
        array = np.asarray(array)
        key = (array.dtype.str, array.shape, array.tobytes())
        name = self._small.get(key)
        if name is None:
            name = self._small[key] = self.add_initializer(array, "const")
        return name


class GraphWriter:
    """Writes the nodes of one (sub)graph.

    Lowerings (:mod:`vfw.onnx_io._export_rules`) call :meth:`emit` / :meth:`op` and read
    :attr:`dtypes` and :meth:`rank`; names they receive and return are ONNX names.

    Parameters
    ----------
    model : ModelWriter
    renames : dict[str, str]
        Engine value name -> ONNX name, for the names fixed beforehand (inputs of a branch that
        stand for outer values...); other engine names are claimed as they come (with ``prefix``).
    prefix : str
        Prepended to the names of this graph's values (unique per subgraph; empty for the main graph).
    """

    def __init__(self, model, renames=None, prefix=""):
        self.model = model
        self.opset = model.opset
        self.nodes = []
        self.renames = dict(renames or {})
        self.prefix = prefix
        self.dtypes = {}  # ONNX name -> numpy dtype
        self.dims = {}  # ONNX name -> tuple of dims (-1 unknown), as far as known
        self.used = set()  # ONNX names of the values some op or the graph's outputs read

    # -- names ---------------------------------------------------------------------------------------
    def name(self, engine_name):
        """The ONNX name of an engine value (claimed on first use)."""
        if not engine_name:
            return ""
        name = self.renames.get(engine_name)
        if name is None:
            name = self.renames[engine_name] = self.model.unique(self.prefix + engine_name)
        return name

    def value(self, hint, dtype):
        """A new intermediate value of ``dtype``."""
        name = self.model.unique(f"{self.prefix}{hint}")
        self.dtypes[name] = dt.as_dtype(dtype)
        return name

    def const(self, array, dtype=None):
        """A constant input (a main-graph initializer)."""
        array = np.asarray(array, dtype=dtype)
        name = self.model.small_constant(array)
        self.dtypes[name] = array.dtype
        self.dims[name] = array.shape
        return name

    def is_used(self, name):
        """Whether an op of the graph or its outputs read the value ``name``."""
        return name in self.used

    def rank(self, name):
        """The rank of a value (``None`` when unknown)."""
        dims = self.dims.get(name)
        return None if dims is None else len(dims)

    # -- nodes ---------------------------------------------------------------------------------------
    def op(self, op_type, inputs, dtype=None, n_outputs=1, **attrs):
        """Emit a standard node with new outputs; returns its output name (or a list when ``n_outputs > 1``).

        ``dtype`` is the outputs' dtype (default: bool for comparisons and logic, int64 for ``Shape``,
        the values' dtype for ``Where``, else the first input's).
        """
        if dtype is None:
            dtype = _RESULT_DTYPES.get(op_type) or self.dtypes.get(inputs[1] if op_type == "Where" else inputs[0])
        outputs = [self.value(op_type, dtype) for _ in range(n_outputs)]
        self.emit(op_type, inputs, outputs, attrs)
        return outputs[0] if n_outputs == 1 else outputs

    def emit(self, op_type, inputs, outputs, attrs):
        """Emit one standard node for the target opset (adapted or decomposed where the opset needs it)."""
        from vfw.onnx_io._export_opset import adapt  # the adapters emit through this writer

        schema = schema_at(op_type, self.opset)
        adapted = adapt(self, op_type, schema, inputs, outputs, attrs)
        if adapted is None:
            return
        inputs, attrs = adapted
        attributes = [self._attribute(op_type, schema, k, v, inputs) for k, v in attrs.items()]
        outputs = self._all_outputs(op_type, schema, outputs, attrs)
        inputs, outputs, after = self._legal_types(op_type, schema, list(inputs), list(outputs))
        node_name = self.model.unique(f"{self.prefix}{op_type}")
        node = helper.make_node(op_type, inputs, outputs, name=node_name)
        node.attribute.extend(a for a in attributes if a is not None)
        if op_type == "If":
            del node.input[1:]  # the branch inputs became outer-scope references
        self.nodes.append(node)
        self.nodes.extend(after)

    def _all_outputs(self, op_type, schema, outputs, attrs):
        """Name every output ONNX requires: traces drop unread trailing outputs (a control-flow node has one
        output per subgraph result; other ops their non-optional outputs, e.g. TopK's indices)."""
        body = attrs.get("body") if op_type == "Loop" else attrs.get("then_branch") if op_type == "If" else None
        if body is not None:
            required = len(body.output) - (1 if op_type == "Loop" else 0)
        else:
            required = sum(p.option == defs.OpSchema.FormalParameterOption.Single for p in schema.outputs)
        outputs = list(outputs) + [""] * (required - len(outputs))
        # An unread output has no declared type (nothing reads it): a name only, never cast.
        return [o or (self.model.unique(f"{self.prefix}{op_type}_unused") if k < required else "")
                for k, o in enumerate(outputs)]

    def _attribute(self, op_type, schema, key, value, inputs):
        spec = schema.attributes.get(key)
        if spec is None:
            default = attribute_default(op_type, key)
            if default is not None and _same_value(value, default):
                return None  # the target opset's behaviour without the attribute
            since = next((v for v in range(self.opset + 1, NEWEST_OPSET + 1)
                          if key in getattr(schema_at(op_type, v), "attributes", ())), None)
            newer = "a newer opset_version" if since is None else f"opset_version >= {since}"
            raise UnsupportedOpError(f"ONNX export: {op_type} attribute {key}={value!r} has no equivalent at "
                                     f"opset {self.opset}: export with {newer}")
        kind = spec.type
        if kind == defs.OpSchema.AttrType.GRAPH:
            return helper.make_attribute(key, self._subgraph(op_type, key, value, inputs))
        if kind == defs.OpSchema.AttrType.INT and isinstance(value, str):
            value = dt.onnx_code(dt.as_dtype(value))  # a dtype attribute
        elif kind == defs.OpSchema.AttrType.TENSOR:
            value = numpy_helper.from_array(np.asarray(value), "")
        elif kind == defs.OpSchema.AttrType.FLOATS:
            value = [float(v) for v in value]
        elif kind == defs.OpSchema.AttrType.INTS:
            value = [int(v) for v in value]
        elif kind == defs.OpSchema.AttrType.FLOAT:
            value = float(value)
        return helper.make_attribute(key, value, attr_type=kind)

    def _legal_types(self, op_type, schema, inputs, outputs):
        """Cast inputs of dtypes the operator refuses to one it accepts; outputs tied to them are cast back."""
        if op_type in _NO_TYPE_CHECK:
            return inputs, outputs, []
        constraints = {c.type_param_str: set(c.allowed_type_strs) for c in schema.type_constraints}
        params = list(schema.inputs)
        chosen = {}  # type variable -> dtype it is cast to
        for i, name in enumerate(inputs):
            if not name or name not in self.dtypes:
                continue
            param = params[min(i, len(params) - 1)]
            allowed = constraints.get(param.type_str, {param.type_str})
            dtype = self.dtypes[name]
            if type_string(dtype) in allowed:
                continue
            target = chosen.get(param.type_str)
            if target is None:
                target = next((d for d in _CAST_PREFERENCE.get(dtype.kind, ()) if type_string(d) in allowed), None)
                if target is None:
                    raise UnsupportedOpError(f"ONNX export: {op_type} input '{param.name}' of dtype "
                                             f"{dt.type_name(dtype)} has no ONNX form at opset {self.opset} "
                                             f"(accepted: {', '.join(sorted(allowed))})")
                chosen[param.type_str] = target
        if not chosen:
            return inputs, outputs, []
        new_inputs = []
        for i, name in enumerate(inputs):
            param = params[min(i, len(params) - 1)]
            target = chosen.get(param.type_str)
            if name and target is not None and self.dtypes.get(name) != target:
                cast = self.value(f"{name}_cast", target)
                self.nodes.append(helper.make_node("Cast", [name], [cast], to=dt.onnx_code(target),
                                                   name=self.model.unique(f"{self.prefix}Cast")))
                name = cast
            new_inputs.append(name)
        after, new_outputs = [], []
        out_params = list(schema.outputs)
        for k, name in enumerate(outputs):
            param = out_params[min(k, len(out_params) - 1)] if out_params else None
            target = chosen.get(param.type_str) if param is not None else None
            if name and target is not None and self.dtypes.get(name, target) != target:
                raw = self.value(f"{name}_uncast", target)
                after.append(helper.make_node("Cast", [raw], [name], to=dt.onnx_code(self.dtypes[name]),
                                              name=self.model.unique(f"{self.prefix}Cast")))
                name = raw
            new_outputs.append(name)
        return new_inputs, new_outputs, after

    # -- subgraphs -----------------------------------------------------------------------------------
    def _subgraph(self, op_type, key, graph, inputs):
        """An engine branch or body as an ONNX GraphProto nested in this graph."""
        prefix = self.model.unique(f"{self.prefix}{op_type}_{key}") + "/"
        if op_type == "If":
            # A branch's inputs are the If's inputs after the condition: outer values, referenced by name.
            renames = dict(zip(graph.input, inputs[1:]))
            writer = GraphWriter(self.model, renames, prefix)
            writer.dtypes.update((n, self.dtypes[n]) for n in inputs[1:] if n in self.dtypes)
            return writer.write(graph, graph_inputs=(), name=prefix[:-1], loose_dims=True)
        writer = GraphWriter(self.model, prefix=prefix)
        return writer.write(graph, graph_inputs=list(graph.input), name=prefix[:-1], loose_dims=True)

    # -- whole graphs --------------------------------------------------------------------------------
    def write(self, graph, graph_inputs, name, loose_dims=False, dim_names=None):
        """Write ``graph``'s ops; returns the GraphProto.

        Parameters
        ----------
        graph : GraphDef
        graph_inputs : list[str]
            The engine names that are inputs of the ONNX graph (an If branch has none).
        name : str
        loose_dims : bool
            Declare the inputs and outputs with unknown dims (a subgraph: a loop's values may change
            shape from one iteration to the next, and a body traced once holds the traced sizes).
        dim_names : dict[str, dict[int, str]], optional
            Symbolic names of the dims of inputs and outputs (engine names), where known.
        """
        from vfw.onnx_io._export_rules import write_op

        infos = {vi.name: vi for vi in graph.value_info}
        _refuse_complex(graph)
        for vi in graph.value_info:
            if vi.name in self.renames or vi.name in graph_inputs:
                self.dtypes[self.name(vi.name)] = dt.as_dtype(vi.data_type)
                self.dims[self.name(vi.name)] = tuple(vi.dims)
        constants = set()
        for proto in graph.initializer:
            array = proto_to_tensor(proto)
            onnx_name = self.model.add_initializer(array, self.prefix + proto.name) if self.prefix else \
                self._main_initializer(proto.name, array)
            self.renames[proto.name] = onnx_name
            self.dtypes[onnx_name] = array.dtype
            self.dims[onnx_name] = array.shape
            constants.add(onnx_name)
        inputs = [self.name(n) for n in graph_inputs]
        self.used = {self.name(n) for op in graph.op for n in op.input if n} | {self.name(n) for n in graph.output}
        for op in graph.op:
            for out in op.output:
                vi = infos.get(out)
                if out and vi is not None:
                    self.dtypes[self.name(out)] = dt.as_dtype(vi.data_type)
                    self.dims[self.name(out)] = tuple(vi.dims)
            if op.type == "PyFunc" and not any(self.name(n) in self.used for n in op.output if n):
                continue  # a run-time check or print read by nothing: ONNX has no Python, the model runs without it
            write_op(self, op)
        outputs = self._output_names(graph, set(inputs) | constants)
        dim_names = dim_names or {}

        def declared(engine_name, onnx_name):
            dims = () if engine_name not in infos else tuple(infos[engine_name].dims)
            named = dim_names.get(engine_name, {})
            shape = [named.get(k, None if (loose_dims or d < 0) else d) for k, d in enumerate(dims)]
            return helper.make_tensor_value_info(onnx_name, dt.onnx_code(self.dtypes[onnx_name]), shape)

        proto = helper.make_graph(self.nodes, name, [declared(e, o) for e, o in zip(graph_inputs, inputs)],
                                  [declared(e, o) for e, o in zip(graph.output, outputs)])
        if not self.prefix:  # the intermediate values' types and shapes (subgraphs: their sizes were traced once)
            produced = {out for node in self.nodes for out in node.output} - set(outputs)
            proto.value_info.extend(declared(vi.name, self.renames[vi.name]) for vi in graph.value_info
                                    if self.renames.get(vi.name) in produced and self.renames[vi.name] in self.dtypes)
        return proto

    def _main_initializer(self, name, array):
        onnx_name = self.renames.get(name) or self.model.unique(name)
        self.model.append_initializer(onnx_name, array)
        return onnx_name

    def _output_names(self, graph, not_produced):
        """ONNX names of the outputs; an output no node of this graph makes (an input, a constant, an outer
        value) or that repeats another gets an Identity node."""
        produced = {out for node in self.nodes for out in node.output}
        names = []
        for engine_name in graph.output:
            name = self.name(engine_name)
            if name in not_produced or name not in produced or name in names:
                copy = self.value(f"{engine_name}_out", self.dtypes[name])
                self.dims[copy] = self.dims.get(name)
                self.nodes.append(helper.make_node("Identity", [name], [copy],
                                                   name=self.model.unique(f"{self.prefix}Identity")))
                name = copy
            names.append(name)
        return names


_COMPLEX_CODES = frozenset(dt.onnx_code(d) for d in dt.COMPLEX)


def _refuse_complex(graph):
    """UnsupportedOpError for a graph holding complex values: the engine's complex ops (FFT, ComplexMake...) and
    complex arithmetic have no ONNX form (ONNX's DFT works on real pairs)."""
    makers = {out: op.type for op in graph.op for out in op.output}
    for vi in graph.value_info:
        if vi.data_type in _COMPLEX_CODES:
            made_by = f"made by {makers[vi.name]} " if vi.name in makers else ""
            dtype = dt.type_name(dt.as_dtype(vi.data_type))
            raise UnsupportedOpError(f"ONNX export: value {vi.name!r} {made_by}is {dtype}; "
                                     "vfw exports no complex tensors")


def graph_to_model(graph, opset=None, dim_names=None, defaults=None, doc_string="", producer="vfw", check=True):
    """Write an engine GraphDef as an ONNX ModelProto.

    Parameters
    ----------
    graph : GraphDef
        Self-contained: its inputs are fed, its constants and weights are initializers; value
        infos give each value's dtype and dims (-1: unknown).
    opset : int, optional
        The default-domain opset (:func:`default_opset` when omitted).
    dim_names : dict[str, dict[int, str]], optional
        Symbolic dim names of inputs and outputs: ``{value name: {axis: name}}``.
    defaults : dict[str, numpy.ndarray], optional
        Values for graph inputs that a caller may leave out (stored as initializers of the same
        name: ``keep_initializers_as_inputs``).
    doc_string, producer : str
    check : bool
        Run ``onnx.checker.check_model(full_check=True)`` on the result.

    Returns
    -------
    onnx.ModelProto

    Raises
    ------
    UnsupportedOpError
        For an op with no ONNX form (the message names it).
    ExportError
        When the written model fails ONNX's checker.
    """
    from vfw import __version__

    opset = check_opset(opset, "vfw.onnx_io export")
    model = ModelWriter(opset)
    for name in list(graph.input) + [t.name for t in graph.initializer] + list(graph.output):
        model.reserve(name)
    writer = GraphWriter(model, {n: n for n in list(graph.input) + [t.name for t in graph.initializer] +
                                 list(graph.output)})
    proto = writer.write(graph, list(graph.input), graph.name or "main_graph", dim_names=dim_names)
    for name, array in (defaults or {}).items():
        model.append_initializer(name, np.asarray(array))
    read = _names_read(proto) | {i.name for i in proto.input}
    proto.initializer.extend(t for t in model.initializers if t.name in read)
    result = helper.make_model(proto, opset_imports=[helper.make_opsetid("", opset)], ir_version=ir_version_for(opset),
                               producer_name=producer, producer_version=__version__, doc_string=doc_string)
    if check:
        check_model(result)
    return result


def _names_read(graph):
    """Names the nodes of ``graph`` and of its subgraphs read, and its outputs."""
    names = {o.name for o in graph.output}
    for node in graph.node:
        names.update(node.input)
        for attr in node.attribute:
            for sub in [attr.g] if attr.type == onnx.AttributeProto.GRAPH else list(attr.graphs):
                names |= _names_read(sub)
    return names


def check_model(model):
    """``onnx.checker.check_model(model, full_check=True)``, its failure raised as :class:`ExportError`."""
    try:
        onnx.checker.check_model(model, full_check=True)
    except ValueError:  # over 2 GB: the checker needs a file
        return
    except (onnx.checker.ValidationError, onnx.shape_inference.InferenceError) as e:
        raise ExportError(f"ONNX export: the written model is not valid ONNX ({e}); please report this as a vfw "
                          "bug") from None
