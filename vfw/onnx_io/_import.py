"""``vfw.onnx_io.load``: an ONNX model as an engine GraphDef, runnable by the graph executor.

The import keeps ONNX's calling convention: inputs are the graph inputs that are not
initializers (in order), outputs the graph outputs.  Tensors are numpy arrays; a sequence is a
list of arrays and an optional is ``None`` or its value, on the way in and out.
"""

import os

import numpy as np
import onnx
from google.protobuf.message import DecodeError

from vfw.core import dtypes as dt
from vfw.core.errors import DTypeError, OpInputError, VfwError
from vfw.core.graph import CompiledGraph, optimize, validate_graph
from vfw.core.ir import tensor_to_proto
from vfw.core.proto import GraphDef
from vfw.core.values import OptionalValue, TensorSequence
from vfw.onnx_io import _import_ops, _import_quant  # noqa: F401  (they fill the handler table)
from vfw.onnx_io._import_graph import OPTIONAL, SEQUENCE, TENSOR, Converter, element_type, kind_of, tensor_type
from vfw.onnx_io._import_optimize import optimize_for_inference
from vfw.onnx_io._import_shapes import planned_graph, shape_skeleton, static_shapes
from vfw.onnx_io._import_tensors import OnnxModelError, check_feed

MIN_IR_VERSION = 3
MIN_OPSET = 1
DEFAULT_OPT_LEVEL = 3
"""Imported graphs are pruned, deduplicated and constant-folded, and get the inference rewrites of
``_import_optimize`` (large constant fills and transposes computed once, per-channel affine maps folded
into convolutions, max pools without indices); levels 2 and 3 add the executor's memory plans (in-place
updates, and pooled buffers at 3) from the value shapes ``_import_shapes`` infers per input signature."""

_MAX_SIGNATURES = 8  # planned graphs kept per model (one per input signature), oldest dropped first


class InputSpec:
    """What a graph input or output holds: name, kind (tensor/sequence/optional), element dtype, dims."""

    __slots__ = ("name", "kind", "dtype", "shape")

    def __init__(self, name, kind, dtype, shape):
        self.name = name
        self.kind = kind
        self.dtype = dtype
        self.shape = shape

    def __repr__(self):
        shape = "?" if self.shape is None else f"({', '.join('?' if d is None else str(d) for d in self.shape)})"
        dtype = "?" if self.dtype is None else self.dtype.name
        return f"{self.name}: {self.kind}<{dtype}> {shape}" if self.kind != TENSOR else f"{self.name}: {dtype} {shape}"


def _spec(vi, where):
    kind = kind_of(vi.type)
    if kind == TENSOR:
        dtype, shape = tensor_type(vi.type, f"{where} {vi.name!r}")
    else:
        dtype, shape = element_type(vi.type, f"{where} {vi.name!r}"), None
    return InputSpec(vi.name, kind, dtype, shape)


class ImportedModel:
    """An imported ONNX model: its engine graph and what it takes and returns.

    Call it (or :meth:`run`) with the inputs, positionally or as a dict by name.

    Attributes
    ----------
    graph : GraphDef
        The engine graph (optimized at level 1; levels 2 and 3 plan its memory per input signature).
    inputs, outputs : list[InputSpec]
        The model's inputs (graph inputs that are not initializers) and outputs.
    ir_version : int
    opset_imports : dict[str, int]
        Opset version per domain (``""`` is the default domain).
    producer_name, producer_version, domain, doc_string : str
    metadata : dict[str, str]
    """

    def __init__(self, model, graph, weights, opsets, opt_level):
        where = "model input"
        self.inputs = [_spec(vi, where) for vi in model.graph.input
                       if vi.name not in {t.name for t in model.graph.initializer}]
        self.outputs = [_spec(vi, "model output") for vi in model.graph.output]
        self.ir_version = model.ir_version
        self.opset_imports = dict(opsets)
        self.producer_name = model.producer_name
        self.producer_version = model.producer_version
        self.domain = model.domain
        self.doc_string = model.doc_string
        self.metadata = {p.key: p.value for p in model.metadata_props}
        self.opt_level = opt_level
        self.graph = graph
        self._weights = list(weights.values())
        self._weight_names = list(weights)
        self._compiled = CompiledGraph(graph)
        self._skeleton = shape_skeleton(model) if opt_level >= 2 else None
        self._planned = {}  # input signature -> planned CompiledGraph (None: that signature runs unplanned)

    def __repr__(self):
        return (f"ImportedModel({self.graph.name!r}, inputs=[{', '.join(map(repr, self.inputs))}], "
                f"outputs=[{', '.join(map(repr, self.outputs))}], opset={self.opset_imports.get('', '?')})")

    @property
    def input_names(self):
        """list[str]: names of the inputs, in the order :meth:`run` takes them."""
        return [s.name for s in self.inputs]

    def self_contained_graph(self):
        """The engine graph with the weights the file keeps as external data as initializers again (the graph
        takes them as inputs after the model's own, fed at each run): what ``to_keras_layer`` / ``to_torch_module``
        turn into trainable weights."""
        if not self._weights:
            return self.graph
        graph = GraphDef()
        graph.CopyFrom(self.graph)
        external = set(self._weight_names)
        kept = [name for name in graph.input if name not in external]
        del graph.input[:]
        graph.input.extend(kept)
        graph.initializer.extend(tensor_to_proto(array, name) for name, array in zip(self._weight_names,
                                                                                     self._weights))
        return graph

    @property
    def output_names(self):
        """list[str]: names of the outputs, in the order :meth:`run` returns them."""
        return [s.name for s in self.outputs]

    def _feeds(self, inputs):
        if isinstance(inputs, dict):
            unknown = sorted(set(inputs) - set(self.input_names))
            if unknown:
                raise OpInputError(f"model {self.graph.name!r}: unknown input(s) {unknown}; inputs are "
                                   f"{self.input_names}")
            missing = [n for n in self.input_names if n not in inputs]
            if missing:
                raise OpInputError(f"model {self.graph.name!r}: missing input(s) {missing}")
            values = [inputs[n] for n in self.input_names]
        else:
            values = list(inputs)
            if len(values) != len(self.inputs):
                raise OpInputError(f"model {self.graph.name!r} takes {len(self.inputs)} input(s) "
                                   f"({', '.join(self.input_names)}), got {len(values)}")
        return [_to_engine(spec, value, f"model {self.graph.name!r}") for spec, value in zip(self.inputs, values)]

    def run(self, inputs):
        """Run the model.

        Parameters
        ----------
        inputs : list or dict
            One value per input (by position or name): arrays, lists of arrays for sequences,
            None or a value for optionals.

        Returns
        -------
        list
            One value per output (arrays; lists for sequences; None for an empty optional).
        """
        feeds = self._feeds(inputs)
        if self._skeleton is None:
            results = self._compiled(*feeds, *self._weights)
        else:
            results = self._run_planned(feeds)
        return [_from_engine(r) for r in results]

    def _run_planned(self, feeds):
        """Run the graph planned for the feeds' signature (planned at the signature's first run)."""
        if not all(type(x) is np.ndarray for x in feeds):
            return self._compiled(*feeds, *self._weights)  # sequences, optionals: no plan
        signature = tuple((x.shape, x.dtype) for x in feeds)
        if signature in self._planned:
            planned = self._planned[signature]
            return (planned or self._compiled)(*feeds, *self._weights)
        shapes = static_shapes(self._skeleton, dict(zip(self.input_names, feeds)))
        planned, results = planned_graph(self._compiled, shapes, self.opt_level, [*feeds, *self._weights])
        if len(self._planned) >= _MAX_SIGNATURES:
            del self._planned[next(iter(self._planned))]
        self._planned[signature] = planned
        return results

    def __call__(self, *inputs, **named):
        """``model(x, y)`` or ``model(x=..., y=...)``; one output is returned bare, several as a tuple."""
        if named and inputs:
            raise OpInputError("give the model's inputs either by position or by name, not both")
        results = self.run(named if named else list(inputs))
        return results[0] if len(results) == 1 else tuple(results)


def _to_engine(spec, value, where):
    if spec.kind == OPTIONAL:
        if value is None:
            return OptionalValue(None)
        inner = _to_engine(InputSpec(spec.name, SEQUENCE if isinstance(value, (list, tuple)) else TENSOR,
                                     spec.dtype, None), value, where)
        return OptionalValue(inner)
    if spec.kind == SEQUENCE:
        if not isinstance(value, (list, tuple)):
            raise DTypeError(f"{where}: input {spec.name!r} is a sequence: give a list of arrays, got "
                             f"{type(value).__name__}")
        items = [np.asarray(v) for v in value]
        for item in items:
            check_feed(spec.name, item, spec.dtype, None, where)
        return TensorSequence(items, spec.dtype if spec.dtype is not None else (items[0].dtype if items else None))
    if value is None or isinstance(value, (list, tuple)) and not value:
        raise DTypeError(f"{where}: input {spec.name!r} must be an array, got {value!r}")
    array = np.asarray(value)
    check_feed(spec.name, array, spec.dtype, spec.shape, where)
    return array


def _from_engine(value):
    if isinstance(value, OptionalValue):
        return None if value.value is None else _from_engine(value.value)
    if isinstance(value, TensorSequence):
        return list(value)
    # A kernel the graph calls directly may give a numpy scalar for a 0-d result.
    return value if type(value) is np.ndarray else np.asarray(value)


def _read_model(model):
    """``(ModelProto, folder)`` from a path, bytes, a binary file object or a ModelProto."""
    if isinstance(model, onnx.ModelProto):
        return model, None
    base_dir = None
    if isinstance(model, (str, os.PathLike)):
        path = os.fspath(model)
        if not os.path.isfile(path):
            raise OnnxModelError(f"no ONNX model file at {path!r}")
        with open(path, "rb") as f:
            data = f.read()
        base_dir = os.path.dirname(os.path.abspath(path))
        what = path
    elif isinstance(model, (bytes, bytearray, memoryview)):
        data, what = bytes(model), "bytes"
    elif hasattr(model, "read"):
        data = model.read()
        if not isinstance(data, (bytes, bytearray)):
            raise OnnxModelError("the file object must be opened in binary mode")
        name = getattr(model, "name", None)
        base_dir = os.path.dirname(os.path.abspath(name)) if isinstance(name, str) and os.path.isfile(name) else None
        what = name if isinstance(name, str) else "file object"
    else:
        raise TypeError(f"load: expected a path, bytes, a binary file object or an onnx.ModelProto, got "
                        f"{type(model).__name__}")
    proto = onnx.ModelProto()
    try:
        proto.ParseFromString(bytes(data))
    except (DecodeError, ValueError, RuntimeError) as exc:
        raise OnnxModelError(f"{what}: not an ONNX model (malformed protobuf: {exc})") from None
    if not proto.HasField("graph"):
        raise OnnxModelError(f"{what}: not an ONNX model (no graph)")
    return proto, base_dir


def _check_text(graph, where):
    """Raise when a name, op type or domain of ``graph`` (its subgraphs included) is not valid UTF-8 text (the
    protobuf's proto2 string fields are not checked when parsed and come back as bytes)."""
    fields = [graph.name] + [vi.name for vi in list(graph.input) + list(graph.output) + list(graph.value_info)]
    fields += [t.name for t in graph.initializer]
    for node in graph.node:
        fields += [node.op_type, node.domain, node.name, *node.input, *node.output]
        for attr in node.attribute:
            fields += [attr.name, attr.ref_attr_name]
            for sub in [attr.g] if attr.HasField("g") else list(attr.graphs):
                _check_text(sub, where)
    if not all(isinstance(text, str) for text in fields):
        raise OnnxModelError(f"{where}: a name, op type or domain is not valid UTF-8 text")


# Inputs that are settings, not weights: gradient descent must not move them (ReLU6's bounds, a Pow exponent,
# Resize's roi and scales, Dropout's ratio, Pad's fill value); batch norm's running statistics are state.
_SETTING_INPUTS = {"Clip": (1, 2), "Pow": (1,), "Resize": (1, 2), "Dropout": (1,), "Pad": (2,)}
_STATISTIC_INPUTS = {"BatchNormalization": (3, 4)}


def initializer_roles(graph):
    """The initializers of an engine graph by role, for the wrappers that train an imported model.

    ONNX does not tell weights from state or settings.  Each read of a float initializer (directly or through
    Identity ops) has a role: ``"statistic"`` (batch norm's running mean or variance, which torch keeps as
    buffers and Keras as non-trainable weights), ``"constant"`` (a setting such as ReLU6's bounds) or
    ``"weight"`` (anything else); integer and 0-d initializers are constants (shapes, indices, a formula's
    scalars such as an epsilon).

    Returns
    -------
    (GraphDef, dict[str, str])
        A copy of ``graph`` in which an initializer read in several roles is split into one per role, and each
        initializer's role.  Exporters merge equal initializers: torch's reads a fresh batch norm's running
        variance from its weight (both ones) through an Identity named ``<bn>.running_var``; the copy takes that
        name when the Identity has no other reader (it is dropped), else ``<name>_<role>``.
    """
    names = {t.name for t in graph.initializer}
    alias = {}  # an Identity's output -> the initializer it passes on
    for op in graph.op:
        if op.type == "Identity" and alias.get(op.input[0], op.input[0]) in names:
            alias[op.output[0]] = alias.get(op.input[0], op.input[0])
    reads = {}  # initializer -> {role: [(op index, input position, the name read)]}
    readers = {}  # value -> how many non-Identity reads
    for index, op in enumerate(graph.op):
        for position, name in enumerate(op.input):
            source = alias.get(name, name)
            if source not in names or op.type == "Identity" and op.output[0] in alias:
                continue
            readers[name] = readers.get(name, 0) + 1
            role = ("statistic" if position in _STATISTIC_INPUTS.get(op.type, ()) else
                    "constant" if position in _SETTING_INPUTS.get(op.type, ()) else "weight")
            reads.setdefault(source, {}).setdefault(role, []).append((index, position, name))
    for name in graph.output:
        if alias.get(name, name) in names:
            reads.setdefault(alias.get(name, name), {}).setdefault("weight", []).append((None, None, name))
    split = GraphDef()
    split.CopyFrom(graph)
    roles, dropped = {}, set()
    for proto in graph.initializer:
        dtype = dt.as_dtype(proto.data_type)
        if not (dtype.kind == "f" or dtype.name == "bfloat16") or not proto.dims:
            roles[proto.name] = "constant"
            continue
        by_role = reads.get(proto.name, {"weight": []})
        ordered = sorted(by_role, key=("weight", "statistic", "constant").index)
        roles[proto.name] = ordered[0]
        for role in ordered[1:]:  # a copy for each further role, read there instead
            read_names = {read for _, _, read in by_role[role]}
            via = read_names.pop() if len(read_names) == 1 else None
            copy = split.initializer.add()
            copy.CopyFrom(proto)
            if via in alias and readers[via] == len(by_role[role]) and via not in graph.output:
                copy.name = via  # every read of the Identity's output is this role's: the copy replaces it
                dropped.add(via)
            else:
                copy.name = f"{proto.name}_{role}"
                while copy.name in names:
                    copy.name += "_"
            names.add(copy.name)
            roles[copy.name] = role
            for index, position, _ in by_role[role]:
                split.op[index].input[position] = copy.name
    if dropped:
        kept = [op for op in split.op if not (op.type == "Identity" and op.output[0] in dropped)]
        del split.op[:]
        split.op.extend(kept)
    return split, roles


def load(model, base_dir=None, opt_level=DEFAULT_OPT_LEVEL):
    """Import an ONNX model.

    Parameters
    ----------
    model : str, os.PathLike, bytes, binary file object or onnx.ModelProto
    base_dir : str, optional
        Folder holding external data files (default: the model file's folder).  Data files
        must lie inside it.
    opt_level : int
        Graph optimization level of the imported graph: 0 (as converted), 1 (``vfw.core.graph.optimize``
        at level 1 and the inference rewrites named in ``DEFAULT_OPT_LEVEL``), 2 (also in-place updates) or
        3 (also pooled buffers); the memory plans of 2 and 3 are made at the first run of each input
        signature, for graphs without control flow.

    Returns
    -------
    ImportedModel

    Raises
    ------
    OnnxModelError
        Malformed protobuf, unsupported IR version, invalid graph (cycles, undefined values),
        unsafe external data.
    UnknownOpError
        An operator or domain vfw does not support (the node is named).
    DTypeError
        An element type the engine lacks (float8, int4, complex...).
    """
    proto, found_dir = _read_model(model)
    base_dir = base_dir if base_dir is not None else found_dir
    if proto.ir_version < MIN_IR_VERSION:
        raise OnnxModelError(f"model IR version {proto.ir_version} is not supported (vfw reads IR {MIN_IR_VERSION} "
                             f"to {onnx.IR_VERSION})")
    if proto.ir_version > onnx.IR_VERSION:
        raise OnnxModelError(f"model IR version {proto.ir_version} is newer than the installed onnx "
                             f"({onnx.IR_VERSION})")
    if opt_level not in (0, 1, 2, 3):
        raise ValueError(f"load: opt_level must be 0, 1, 2 or 3, got {opt_level!r}")
    _check_text(proto.graph, "model")
    for function in proto.functions:
        _check_text(onnx.GraphProto(node=function.node), f"function {function.name!r}")
    converter = Converter(proto, base_dir)
    opsets = converter.opsets
    newest = onnx.defs.onnx_opset_version()
    default = opsets.get("")
    if default is not None and not MIN_OPSET <= default <= newest:
        raise OnnxModelError(f"model opset {default} is outside the opsets vfw imports ({MIN_OPSET} to {newest})")
    builder = converter.graph_level(proto.graph, None, opsets, f"graph {proto.graph.name!r}")
    graph = builder.graph
    try:
        validate_graph(graph)
    except VfwError as exc:
        raise type(exc)(f"imported graph: {exc}") from None
    if opt_level:
        # The engine's folding first makes the small constants the rewrites read (per-channel scales...); its
        # second run prunes the parameters they replaced.
        graph = optimize(optimize_for_inference(optimize(graph, 1)), 1)
    return ImportedModel(proto, graph, builder.weights, opsets, opt_level)
