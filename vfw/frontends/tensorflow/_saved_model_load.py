"""``tf.saved_model.load``: rebuild the objects, variables and functions of a SavedModel in vfw's format.

Modules come back as ``_UserObject`` objects (TF's name) with their attributes, variables as ``tf.Variable``\\s with
the saved values and trainability, and functions as callables that run the saved graphs: through the compiled
graph executor, or op by op through the eager executor when a GradientTape records or a tf.function traces (so
gradients flow through loaded functions and they can be called inside other tf.functions).  The root has
``signatures``: its serving signatures, called with keyword tensors, returning dicts of named outputs.
"""

import json
import os

import numpy as np

from vfw.core import dtypes as core_dtypes
from vfw.core.errors import VfwError
from vfw.core.graph.executor import CompiledGraph
from vfw.core.graph.serialize import load_graph
from vfw.core.graph.subgraph import run_graph
from vfw.core.graph.trace import _active as _tracing
from vfw.core.graph.trace import current_trace
from vfw.core.ir import tensor_to_proto
from vfw.core.proto import GraphDef
from vfw.frontends.tensorflow import _dispatch, _dtypes, _tape_state, nest
from vfw.frontends.tensorflow import _saved_model_format as fmt
from vfw.frontends.tensorflow._tensor_spec import TensorSpec, shape_within, spec_of
from vfw.frontends.tensorflow._variables import Variable


class _UserObject:
    """A module restored from a SavedModel: its saved attributes (TF's ``_UserObject``)."""

    def __call__(self, *args, **kwargs):
        call = self.__dict__.get("__call__")  # a saved ``__call__`` tf.function
        if call is None:
            raise TypeError(f"'{type(self).__name__}' object is not callable")
        return call(*args, **kwargs)


def _corrupt(path, what):
    return ValueError(f"tf.saved_model.load: {path} is not a valid vfw SavedModel: {what}")


class _RestoredConcrete:
    """One saved concrete function: its graph, fed the call's tensors and the variables it reads."""

    def __init__(self, record, graph, variables, name, path):
        self.name = name
        self.graph = graph
        self.specs = [fmt.spec_from_json(s) for s in record["inputs"]]
        self.arguments = record["arguments"]
        self.outputs = record["outputs"]
        self.n_outputs = record["n_outputs"]
        self.output_specs = record["output_specs"]
        self.captures = [variables[i] for i in record["captures"]]
        self.updates = [variables[i] for i in record["updates"]]
        self.dims = [tuple(d) for d in record["dims"]]
        self.fixed_shapes = record["fixed_shapes"]
        self.constants = {name: (np.asarray(c["base"], np.int64), [np.asarray(s, np.int64) for s in c["slopes"]],
                                 c.get("fill"), c.get("reciprocal", False))
                          for name, c in record["shape_constants"].items()}
        if len(graph.input) != len(self.specs) + len(self.captures) or \
                len(graph.output) != self.n_outputs + len(self.updates):
            raise _corrupt(path, f"the graph of {name!r} does not match its manifest entry")
        self._dtypes = {c.name: c.data_type for c in graph.initializer}
        self._compiled = {}  # sizes of the unknown dims -> CompiledGraph

    def matches(self, leaves):
        """Whether the flat tensor ``leaves`` fit the input specs."""
        return len(leaves) == len(self.specs) and all(
            leaf.dtype == spec.dtype and shape_within(leaf.shape, spec.shape)
            for leaf, spec in zip(leaves, self.specs))

    def _graph_for(self, sizes):
        """The graph with its shape constants set for these sizes of the unknown dims."""
        if not self.constants:
            return self.graph
        graph = GraphDef()
        graph.CopyFrom(self.graph)
        by_name = {t.name: k for k, t in enumerate(graph.initializer)}
        for name, (base, slopes, fill, reciprocal) in self.constants.items():
            value = base + sum(s * (n - 2) for s, n in zip(slopes, sizes))
            if reciprocal:  # a float 1 / count (a mean's gradient), computed in float64 as when traced
                value = 1.0 / value
            proto = graph.initializer[by_name[name]]
            dtype = proto_dtype(proto)
            value = value.astype(dtype) if fill is None else np.full(tuple(value.tolist()), fill, dtype)
            proto.CopyFrom(tensor_to_proto(value, name))
        return graph

    def run(self, leaves):
        """Run on matching tensor leaves: the output structure, the variables updated."""
        return fmt.structure_from_json(self.outputs, self.run_flat(leaves))

    def run_flat(self, leaves):
        """Run on matching tensor leaves: the flat outputs, the variables updated."""
        sizes = tuple(leaves[k].shape[axis] for k, axis in self.dims)
        graph_mode = (_tracing and current_trace() is not None) or _tape_state.recording()
        if graph_mode:
            reads = [v._as_tensor() for v in self.captures]
            results = run_graph(self._graph_for(sizes), list(leaves) + reads)
            results = [_dispatch.as_tf(r) if r.array.dtype != object else _dispatch.wrap(_tf_strings(r.array))
                       for r in results]
        else:
            compiled = self._compiled.get(sizes)
            if compiled is None:
                compiled = self._compiled[sizes] = CompiledGraph(self._graph_for(sizes))
            feeds = [leaf.array for leaf in leaves] + [v._as_tensor().array for v in self.captures]
            try:
                arrays = compiled(*feeds)
            except VfwError as e:
                raise _dispatch.translate(e, f"__inference_{self.name}") from None
            # A result may be a feed itself (a returned argument or variable): give it memory of its own.
            results = [_dispatch.wrap(np.array(a) if any(a is f for f in feeds) else _tf_strings(a)) for a in arrays]
        for variable, value in zip(self.updates, results[self.n_outputs:]):
            variable.assign(value)
        return results[:self.n_outputs]


def _tf_strings(array):
    """``array``, its strings as TF's bytes: a saved graph's string constants load as Python str (the engine's
    TensorProto reading), which TF tensors never hold."""
    if array.dtype != object or not any(isinstance(v, str) for v in array.flat):
        return array
    return np.array([v.encode() if isinstance(v, str) else v for v in array.flat], dtype=object).reshape(array.shape)


def proto_dtype(proto):
    return np.dtype(core_dtypes.as_dtype(proto.data_type))


def _describe(args, kwargs):
    return f"Positional arguments: {args!r}; keyword arguments: {kwargs!r}"


class _RestoredFunction:
    """A tf.function restored from a SavedModel: called like the original, it runs the matching saved trace."""

    def __init__(self, record, concretes):
        self.name = record["name"]
        self.parameters = record["parameters"]
        self.has_input_signature = record["input_signature"]
        self.concretes = concretes

    def _leaves(self, args, kwargs):
        """The call's tensor leaves, in the saved order (parameters bound by name and position)."""
        args = list(args)
        for name in self.parameters[len(args):]:
            if name in kwargs:
                args.append(kwargs.pop(name))
        if kwargs:
            return None
        values = nest.flatten((tuple(args), {}))
        if self.has_input_signature:  # every argument is a tensor (Python numbers converted, as TF)
            specs = self.concretes[0].specs
            if len(values) != len(specs):
                return None
            return [_dispatch.convert_to_tensor(x, dtype_hint=s.dtype) for x, s in zip(values, specs)]
        # Python values of a traced call were baked into its trace
        plain = (bool, int, float, str, type(None))
        return [_dispatch.convert_to_tensor(x) for x in values if not isinstance(x, plain)]

    def __call__(self, *args, **kwargs):
        try:
            leaves = self._leaves(args, dict(kwargs))
        except (TypeError, ValueError):
            leaves = None
        if leaves is not None:
            for concrete in self.concretes:
                if concrete.matches(leaves):
                    return concrete.run(leaves)
        expected = "\n".join(f"  Option {i + 1}: {c.specs!r}" + (
            " (saved for these shapes only: the graph depends on the shapes in a way vfw cannot generalize)"
            if c.fixed_shapes else "") for i, c in enumerate(self.concretes))
        message = f"{_describe(args, kwargs)}.\n Expected these arguments to match one of the following " \
                  f"{len(self.concretes)} option(s):\n{expected}"
        if self.has_input_signature:
            raise TypeError(f"Binding inputs to tf.function `{self.name}` failed: the arguments do not match the "
                            f"input signature. {message}")
        raise ValueError(f"Could not find matching concrete function to call loaded from the SavedModel. Got:\n  "
                         f"{message}")

    def __repr__(self):
        return f"<vfw.tensorflow restored function {self.name} at 0x{id(self):x}>"


class SignatureFunction:
    """A serving signature: called with keyword tensors (or positionally), returns a dict of named outputs."""

    def __init__(self, concrete):
        self._concrete = concrete
        self.name = concrete.name

    @property
    def structured_input_signature(self):
        """``((), {name: TensorSpec})``."""
        return (), {s.name: s for s in self._concrete.specs}

    @property
    def structured_outputs(self):
        """``{key: TensorSpec}`` of the outputs."""
        keys = self._output_keys()
        return {key: TensorSpec(spec["shape"], _dtypes.as_dtype(spec["dtype"]), key)
                for key, spec in zip(keys, self._concrete.output_specs)}

    def _output_keys(self):
        """The outputs' keys: a returned dict's own, else ``output_0``, ``output_1``..."""
        outputs = self._concrete.outputs
        if "dict" in outputs and all("leaf" in v for _, v in outputs["dict"]):
            by_leaf = {v["leaf"]: k for k, v in outputs["dict"]}
            return [by_leaf[i] for i in range(self._concrete.n_outputs)]
        return [f"output_{i}" for i in range(self._concrete.n_outputs)]

    def __call__(self, *args, **kwargs):
        specs = self._concrete.specs
        if len(args) > len(specs):
            raise TypeError(f"{self.name}(...) takes {len(specs)} arguments, got {len(args)} positional ones")
        given = dict(zip([s.name for s in specs], args))
        for key, value in kwargs.items():
            if key in given or key not in {s.name for s in specs}:
                raise TypeError(f"{self.name}(...) got an unexpected or repeated keyword argument {key!r}; its "
                                f"inputs are {[s.name for s in specs]}")
            given[key] = value
        missing = [s.name for s in specs if s.name not in given]
        if missing:
            raise TypeError(f"{self.name}(...) missing required arguments: {', '.join(missing)}")
        leaves = [_dispatch.convert_to_tensor(given[s.name], dtype_hint=s.dtype) for s in specs]
        for leaf, spec in zip(leaves, specs):
            if leaf.dtype != spec.dtype or not shape_within(leaf.shape, spec.shape):
                raise _dispatch.op_error(f"signature {self.name}: input {spec.name!r} must match {spec!r}, got "
                                         f"{spec_of(leaf)!r}", f"__inference_{self.name}")
        return dict(zip(self._output_keys(), self._concrete.run_flat(leaves)))

    def __repr__(self):
        return f"<ConcreteFunction {self.name} at 0x{id(self):X}>"


class _SignatureMap(dict):
    """``loaded.signatures``: signature key -> :class:`SignatureFunction` (TF's ``_SignatureMap``)."""


def _manifest_path(export_dir):
    return os.path.join(export_dir, fmt.MANIFEST)


def contains_saved_model(export_dir):
    """bool: whether ``export_dir`` holds a SavedModel in vfw's format."""
    return os.path.isfile(_manifest_path(os.fspath(export_dir)))


def _read_manifest(export_dir):
    path = _manifest_path(export_dir)
    if not os.path.isfile(path):
        if any(os.path.isfile(os.path.join(export_dir, name)) for name in fmt.TF_FILES):
            raise OSError(f"SavedModel file does not exist at: {export_dir}/{{{fmt.MANIFEST}}}: the directory holds "
                          "a TensorFlow SavedModel, which vfw cannot read (vfw reads only SavedModels that "
                          "vfw.tensorflow.saved_model.save wrote)")
        raise OSError(f"SavedModel file does not exist at: {export_dir}/{{{fmt.MANIFEST}}}")
    try:
        with open(path) as f:
            manifest = json.load(f)
    except (ValueError, UnicodeDecodeError) as e:
        raise _corrupt(export_dir, f"its manifest is not JSON ({e})") from None
    if not isinstance(manifest, dict) or manifest.get("format") != fmt.FORMAT:
        raise _corrupt(export_dir, "its manifest is not a vfw SavedModel manifest")
    if manifest.get("version") != fmt.VERSION:
        raise _corrupt(export_dir, f"format version {manifest.get('version')!r}, this vfw reads {fmt.VERSION}")
    return manifest


def _graph(export_dir, relative):
    path = os.path.normpath(os.path.join(export_dir, relative))
    if os.path.dirname(path) != os.path.normpath(os.path.join(export_dir, fmt.GRAPHS_DIR)):
        raise _corrupt(export_dir, f"graph path {relative!r} is outside its graphs directory")
    try:
        return load_graph(path)
    except (VfwError, OSError) as e:
        raise _corrupt(export_dir, str(e)) from None


def load(export_dir, tags=None, options=None):
    """Load a SavedModel written by ``tf.saved_model.save`` (vfw's format).

    Parameters
    ----------
    export_dir : str or os.PathLike
    tags : optional
        Accepted.
    options : tf.saved_model.LoadOptions, optional
        Accepted.

    Returns
    -------
    object
        The root object: its attributes, variables and functions restored, and ``signatures``.

    Raises
    ------
    OSError
        When ``export_dir`` holds no vfw SavedModel (TF's own SavedModels included).
    """
    export_dir = os.fspath(export_dir)
    manifest = _read_manifest(export_dir)
    try:
        with np.load(os.path.join(export_dir, fmt.VARIABLES_FILE), allow_pickle=False) as data:
            values = {key: data[key] for key in data.files}
        return _Loader(export_dir, manifest, values).root()
    except (KeyError, IndexError, TypeError) as e:
        raise _corrupt(export_dir, f"its manifest is inconsistent ({type(e).__name__}: {e})") from None


class _Loader:
    def __init__(self, export_dir, manifest, values):
        self.export_dir = export_dir
        self.manifest = manifest
        self.nodes = manifest["nodes"]
        self.objects = {}
        self.variables = {}
        for index, node in enumerate(self.nodes):
            if node["kind"] == "variable":
                self.variables[index] = Variable(values[node["key"]], trainable=node["trainable"],
                                                 name=node["name"], dtype=_dtypes.as_dtype(node["dtype"]))
        self.functions = [self._function(record) for record in manifest["functions"]]

    def _function(self, record):
        concretes = [_RestoredConcrete(c, _graph(self.export_dir, c["graph"]), self.variables, record["name"],
                                       self.export_dir) for c in record["concretes"]]
        return _RestoredFunction(record, concretes)

    def build(self, index):
        if index in self.objects:
            return self.objects[index]
        node = self.nodes[index]
        kind = node["kind"]
        if kind == "variable":
            obj = self.variables[index]
        elif kind == "function":
            obj = self.functions[node["function"]]
        elif kind == "module":
            obj = _UserObject()
        elif kind in ("list", "tuple", "dict"):
            obj = {} if kind == "dict" else []
        else:
            raise _corrupt(self.export_dir, f"unknown object kind {kind!r}")
        self.objects[index] = obj
        children = [(name, self.build(child)) for name, child in node.get("children", [])]
        if kind == "module":
            for name, child in children:
                setattr(obj, name, child)
        elif kind == "dict":
            obj.update(children)
        elif kind in ("list", "tuple"):
            obj.extend(child for _, child in children)
            if kind == "tuple":
                obj = self.objects[index] = tuple(obj)
        return obj

    def root(self):
        root = self.build(0)
        if isinstance(root, _UserObject):
            signatures = _SignatureMap()
            for key, entry in sorted(self.manifest["signatures"].items()):
                signatures[key] = SignatureFunction(self.functions[entry["function"]].concretes[0])
            root.signatures = signatures
            root.tensorflow_version = "2.21.0"
        return root
