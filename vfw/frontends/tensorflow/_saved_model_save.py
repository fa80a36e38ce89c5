"""``tf.saved_model.save``: a tf.Module's objects, variables and traced functions written in vfw's format.

The objects reachable from the root (``tf.Module`` attributes, lists, tuples and dicts of them, variables and
``tf.function`` methods) become the manifest's object tree (see ``_saved_model_format``).  Each tf.function is saved
as the concrete functions TF would save: one per input signature (``input_signature``, or each
``get_concrete_function`` made), else one per trace made so far.  A concrete function's graph is traced by the
engine on example tensors (unknown dims of size 2); the tensors its graph captures are the variables it reads (graph
inputs, fed the loaded variables) or constants (baked in).

Shape constants.  vfw's traces are concrete: ``tf.shape(x)`` in a trace is a constant of the traced shape.  So that
a loaded function runs on every shape its signature admits, the function is traced once more per unknown dim (that
dim of size 3; dims that must be equal, such as a batch dim several inputs share, together) and then with all of
them of new sizes: when the graphs differ only in integer constants that are affine in the unknown dims
(``tf.shape(x)[0]``, ``[n, -1]``...), or in float constants ``1 / n`` of such counts (a mean's gradient), the saved
graph records those constants as ``base + sum(slope * (dim - 2))`` (or its reciprocal), checked on the last trace.
A graph that depends on the shapes in other ways (its ops change, or a constant is not affine) is saved for the
example shapes only, and the loaded function refuses other shapes with a ValueError.  Tracing runs the Python
functions (their side effects happen); the variables' values are restored afterwards, so writes made by traces are
undone.
"""

import json
import os

import numpy as np

from vfw.core import dtypes as core_dtypes
from vfw.core.errors import VfwError
from vfw.core.graph.function import _unflatten
from vfw.core.graph.serialize import save_graph
from vfw.core.ir import proto_to_tensor, tensor_to_proto
from vfw.core.ops.callback import registered_callback
from vfw.core.proto import GraphDef
from vfw.frontends.tensorflow import _dispatch, _dtypes, nest
from vfw.frontends.tensorflow import _saved_model_format as fmt
from vfw.frontends.tensorflow._concrete_function import ConcreteFunction
from vfw.frontends.tensorflow._function import Function
from vfw.frontends.tensorflow._module import Module
from vfw.frontends.tensorflow._tensor_spec import TensorSpec
from vfw.frontends.tensorflow._variables import Variable, _Storage

_BASE, _STEP = 2, 3  # the example size of unknown dims, and the size each is traced at once more


def _as_tf_variable(obj):
    """The tf.Variable of a tf or Keras variable (a Keras variable wraps one in ``.value``), else None."""
    if isinstance(obj, Variable):
        return obj
    inner = getattr(obj, "value", None) if type(obj).__name__ == "Variable" and hasattr(obj, "assign") else None
    return inner if isinstance(inner, Variable) else None


def _is_trackable(obj):
    if _as_tf_variable(obj) is not None or isinstance(obj, (Module, Function)):
        return True
    if isinstance(obj, dict):
        return any(_is_trackable(v) for v in obj.values())
    if isinstance(obj, (list, tuple)):
        return any(_is_trackable(v) for v in obj)
    return False


def _module_children(module):
    """``(name, child)`` pairs of a module: its trackable attributes, and its tf.function methods (bound)."""
    ignored = module._TF_MODULE_IGNORED_PROPERTIES | {"_name", "_name_scope"}
    children = {name: value for name, value in vars(module).items() if name not in ignored and _is_trackable(value)}
    extra = getattr(module, "_saved_model_children", None)  # objects saved besides the attributes (Keras export)
    if extra is not None:
        children.update(extra())
    for name in dir(type(module)):
        if name not in children and isinstance(getattr(type(module), name, None), Function):
            children[name] = getattr(module, name)
    return sorted(children.items())


def _children(obj):
    if isinstance(obj, Module):
        return _module_children(obj)
    if isinstance(obj, dict):
        return [(str(k), v) for k, v in sorted(obj.items(), key=lambda kv: str(kv[0])) if _is_trackable(v)]
    return [(str(i), v) for i, v in enumerate(obj) if _is_trackable(v)]


class _Writer:
    """Gathers the object tree, variables and functions of one ``save`` call."""

    def __init__(self, export_dir):
        self.export_dir = export_dir
        self.nodes = []
        self.node_of = {}  # id(object) -> node index
        self.alive = []  # the objects indexed by id, kept alive while saving
        self.variables = {}  # node index -> tf.Variable
        self.storage_node = {}  # id(variable storage) -> node index
        self.functions = []  # JSON records
        self.function_of = {}  # id(Function or ConcreteFunction) -> function index
        self.graphs = 0

    # -- the object tree -----------------------------------------------------------------------
    def add(self, obj):
        key = id(obj)
        if key in self.node_of:
            return self.node_of[key]
        index = len(self.nodes)
        self.node_of[key] = index
        self.alive.append(obj)
        variable = _as_tf_variable(obj)
        if variable is not None:
            node = {"kind": "variable", "key": f"v{index}", "trainable": bool(variable.trainable),
                    "name": variable.name.rsplit(":", 1)[0], "dtype": variable.dtype.name}
            self.variables[index] = variable
            self.storage_node[id(variable._storage)] = index
            self.nodes.append(node)
            return index
        if isinstance(obj, Function):
            self.nodes.append({"kind": "function", "function": None})
            self.nodes[index]["function"] = self.function_index(obj)
            return index
        kind = "module" if isinstance(obj, Module) else "dict" if isinstance(obj, dict) else \
            "tuple" if isinstance(obj, tuple) else "list"
        node = {"kind": kind, "children": []}
        self.nodes.append(node)
        node["children"] = [[name, self.add(child)] for name, child in _children(obj)]
        return index

    # -- functions -----------------------------------------------------------------------------
    def function_index(self, fn):
        """The index of the function record of a tf.function or of one of its concrete functions."""
        key = id(fn)
        if key not in self.function_of:
            self.alive.append(fn)
            self.function_of[key] = len(self.functions)
            self.functions.append({"fn": fn})  # traced in ``trace_functions``, once every variable is known
        return self.function_of[key]

    def trace_functions(self):
        for record in self.functions:
            fn = record.pop("fn")
            function = fn._function if isinstance(fn, ConcreteFunction) else fn
            record["name"] = function.name
            record["input_signature"] = function.input_signature is not None
            record["parameters"] = [] if function._signature is None else list(function._signature.parameters)
            record["concretes"] = [self.concrete(function, template) for template in _templates(fn)]

    def concrete(self, function, template):
        """The JSON record of one concrete function: its graph written, shape constants found."""
        what = f"tf.function {function.name!r}"
        specs = [s for s in nest.flatten(template) if isinstance(s, TensorSpec)]
        dims = [(k, axis) for k, s in enumerate(specs) if s.shape.rank is not None
                for axis, d in enumerate(s.shape.as_list()) if d is None]
        if any(s.shape.rank is None for s in specs):
            raise ValueError(f"tf.saved_model.save: {what} has an input of unknown rank, which vfw's SavedModel "
                             "format cannot store (give each input signature a rank)")
        base = self.trace(function, template, specs, dims, [_BASE] * len(dims))
        groups, steps = self.stepped_traces(function, template, specs, dims)
        check = self.trace(function, template, specs, dims, _check_sizes(groups, len(dims))) if dims else None
        constants = _shape_constants(base, steps, check, groups, len(dims))
        graph, concrete, infos = base
        fixed = constants is None
        names = _input_names(function, template)
        inputs = []
        for k, spec in enumerate(specs):
            shape = spec.shape.as_list()
            if fixed:
                shape = [_BASE if d is None else d for d in shape]
            inputs.append({"shape": shape, "dtype": spec.dtype.name, "name": names[k]})
        outputs = [_output_spec(name, [infos] + [s[2] for s in steps]) for name in graph.output]
        path = f"{fmt.GRAPHS_DIR}/{self.graphs}.pb"
        self.graphs += 1
        try:
            save_graph(_without_checks(graph), os.path.join(self.export_dir, path))
        except VfwError as e:
            raise ValueError(f"tf.saved_model.save: {what}: {e}") from None
        n_outputs = len(graph.output) - len(concrete.updates)
        return {"graph": path, "arguments": fmt.structure_to_json(concrete._spec, what), "inputs": inputs,
                "captures": [self.storage_node.get(id(t)) for _, t in concrete.captures
                             if id(t) in self.storage_node],
                "outputs": fmt.structure_to_json(concrete._out_spec, what), "n_outputs": n_outputs,
                "output_specs": outputs[:n_outputs],
                "updates": [self.storage_node[id(dict(concrete.captures)[target])]
                            for target, _ in concrete.updates],
                "dims": dims, "shape_constants": constants or {}, "fixed_shapes": fixed}

    def stepped_traces(self, function, template, specs, dims):
        """``(groups, traces)``: the unknown dims grouped by which vary together, and one trace per group with its
        dims of size 3.  Each dim alone when the function takes that, else the dims at the same axis together (a
        batch dim several inputs share: labels and logits), else all of them together."""
        alone = [[d] for d in range(len(dims))]
        by_axis = [[d for d in range(len(dims)) if dims[d][1] == axis] for axis in sorted({a for _, a in dims})]
        first_error = None
        for groups in (alone, by_axis, [list(range(len(dims)))] if dims else []):
            try:
                return groups, [self.trace(function, template, specs, dims,
                                           [_STEP if d in group else _BASE for d in range(len(dims))])
                                for group in groups]
            except Exception as e:  # noqa: BLE001 - a trace at unequal sizes fails as the function does; retried
                first_error = first_error or e
        raise first_error

    def trace(self, function, template, specs, dims, sizes):
        """``(graph, engine concrete function, value infos)`` of one trace at the given sizes of the unknown dims."""
        shapes = [s.shape.as_list() for s in specs]
        for (k, axis), size in zip(dims, sizes):
            shapes[k][axis] = size
        examples = iter([_dispatch.wrap(np.zeros(shape, s.dtype.np)) for shape, s in zip(shapes, specs)])
        args, kwargs = nest.map_structure(lambda x: next(examples) if isinstance(x, TensorSpec) else x, template)
        args, kwargs = function._canonical(tuple(args), dict(kwargs))
        try:
            concrete = function._engine.get_concrete_function(*args, **kwargs)
        except VfwError as e:
            raise ValueError(f"tf.saved_model.save: tracing tf.function {function.name!r} failed: {e}") from None
        infos = {vi.name: (list(vi.dims), vi.data_type) for vi in concrete.raw_graph.value_info}
        return self.graph_of(function, concrete), concrete, infos

    def graph_of(self, function, concrete):
        """The saved GraphDef of an engine concrete function: inputs the arguments then the variables it reads,
        outputs its results then its state updates, constants baked in, no value infos (shapes may vary)."""
        graph = GraphDef()
        graph.CopyFrom(concrete.raw_graph)
        del graph.value_info[:]
        del graph.input[len(concrete.input_names):]
        for name, tensor in concrete.captures:
            if id(tensor) in self.storage_node:
                graph.input.append(name)
            elif isinstance(tensor, _Storage):
                raise ValueError(f"tf.saved_model.save: tf.function {function.name!r} reads a variable that is not "
                                 "reachable from the object being saved (TF: an 'untracked' resource): track it by "
                                 "assigning it to an attribute of the saved object")
            else:
                graph.initializer.append(tensor_to_proto(tensor.array, name))
        for target, value in concrete.updates:
            if target not in dict(concrete.captures) or id(dict(concrete.captures)[target]) not in self.storage_node:
                raise ValueError(f"tf.saved_model.save: tf.function {function.name!r} writes a tensor that is not a "
                                 "variable of the saved object")
            graph.output.append(value)
        return graph

    # -- writing -------------------------------------------------------------------------------
    def write(self, signatures, saved_values):
        manifest = {"format": fmt.FORMAT, "version": fmt.VERSION, "nodes": self.nodes, "functions": self.functions,
                    "signatures": signatures}
        arrays = {self.nodes[i]["key"]: saved_values[i] for i in self.variables}
        for key, array in arrays.items():
            if array.dtype == object or array.dtype.kind in "SU":
                raise ValueError(f"tf.saved_model.save: variable {key} holds strings, which vfw's SavedModel format "
                                 "cannot store")
        np.savez(os.path.join(self.export_dir, fmt.VARIABLES_FILE), **arrays)
        with open(os.path.join(self.export_dir, fmt.MANIFEST), "w") as f:
            json.dump(manifest, f, indent=1)


def _templates(fn):
    """The ``(args, kwargs)`` templates (TensorSpec leaves) of the concrete functions saved for ``fn``."""
    if isinstance(fn, ConcreteFunction):
        return [fn._template]
    if fn.input_signature is not None:
        return [(tuple(fn.input_signature), {})]
    templates = {}
    for concrete in fn._concrete.values():
        templates.setdefault(repr(concrete._template), concrete._template)
    for concrete in fn._engine._traces.values():
        specs = [TensorSpec(shape, _dtypes.as_dtype(dtype)) for shape, dtype in concrete._leaf_sig]
        template = _unflatten(concrete._spec, specs)
        templates.setdefault(repr(template), (tuple(template[0]), dict(template[1])))
    return list(templates.values())


def _input_names(function, template):
    """Each tensor input's name: its spec's name, else its parameter's (``x``, ``x_1``... for nested ones)."""
    params = [] if function._signature is None else list(function._signature.parameters)
    args, kwargs = template
    names = []
    for i, arg in enumerate(args):
        param = params[i] if i < len(params) else f"args_{i}"
        leaves = [s for s in nest.flatten(arg) if isinstance(s, TensorSpec)]
        names += [s.name or (param if len(leaves) == 1 else f"{param}_{j}") for j, s in enumerate(leaves)]
    for key in sorted(kwargs):
        leaves = [s for s in nest.flatten(kwargs[key]) if isinstance(s, TensorSpec)]
        names += [s.name or (key if len(leaves) == 1 else f"{key}_{j}") for j, s in enumerate(leaves)]
    return names


def _output_spec(name, infos):
    """An output's shape and dtype from the value infos of the traces (dims that differ between them: None)."""
    known = [info[name] for info in infos if name in info]
    if not known:
        return {"shape": None, "dtype": None}
    dims, code = known[0]
    shape = [d if all(len(k[0]) == len(dims) and k[0][i] == d for k in known) else None for i, d in enumerate(dims)]
    return {"shape": shape, "dtype": _dtypes.as_dtype(np.dtype(core_dtypes.as_dtype(code))).name}


def _structure(graph):
    """What must agree between the traces of a shape-generic graph: everything but the constants' values (and the
    checks left out of saved graphs, whose PyFunc tokens differ between traces)."""
    graph = _without_checks(graph)
    return (list(graph.op), list(graph.input), list(graph.output), [(t.name, t.data_type) for t in graph.initializer])


def _affine(values, sizes):
    """``(base, slopes)`` of integer arrays ``values`` (traced at the base sizes, each unknown dim stepped, then at
    ``sizes``) that follow the unknown dims affinely, else None."""
    base = np.asarray(values[0], np.int64)
    if any(np.shape(v) != base.shape for v in values):
        return None
    slopes = [np.asarray(v, np.int64) - base for v in values[1:-1]]
    predicted = base + sum(s * (n - _BASE) for s, n in zip(slopes, sizes))
    return (base, slopes) if np.array_equal(predicted, values[-1]) else None


def _reciprocal_counts(versions):
    """The integer counts ``n`` of float constants that are ``1 / n`` in every trace (the scale of a mean's
    gradient), else None."""
    counts = []
    for value in versions:
        if not value.size or not (value > 0).all():
            return None
        count = np.rint(1.0 / value.astype(np.float64))
        if not np.array_equal((1.0 / count).astype(value.dtype), value):
            return None
        counts.append(count.astype(np.int64))
    return counts


def _fill_value(array):
    flat = array.reshape(-1)
    return flat[0] if flat.size and (flat == flat[0]).all() else None


def _check_sizes(groups, n_dims):
    """The sizes of the unknown dims in the last trace: new ones, the same within a group."""
    sizes = [0] * n_dims
    for g, group in enumerate(groups):
        for d in group:
            sizes[d] = 5 + g
    return sizes


def _per_dim(slopes, groups, n_dims):
    """Slopes per unknown dim from slopes per group: a group's slope on its first dim (the dims of a group have the
    same size in every call), zeros on the others."""
    per_dim = [np.zeros_like(slopes[0]) for _ in range(n_dims)]
    for slope, group in zip(slopes, groups):
        per_dim[group[0]] = slope
    return [s.tolist() for s in per_dim]


def _shape_constants(base, steps, check, groups, n_dims):
    """``{constant name: {"base": values, "slopes": [values per unknown dim]}}`` for the integer constants that
    follow the unknown dims affinely, and ``{"fill": value, "base": shape, "slopes": [...]}`` for constants filled
    with one value whose shape does (``tf.zeros([n, 3])``); None when the graph depends on the shapes otherwise (see
    the module doc).  ``steps`` holds one trace per group of dims that vary together."""
    if not n_dims:
        return {}
    traces = [base] + steps + [check]
    if any(_structure(t[0]) != _structure(base[0]) for t in traces):
        return None
    values = [{t.name: proto_to_tensor(t) for t in g.initializer} for g, _, _ in traces]
    sizes = [5 + g for g in range(len(groups))]
    constants = {}
    for name, value in values[0].items():
        versions = [v[name] for v in values]
        if all(v.shape == value.shape and np.array_equal(v, value) for v in versions):
            continue
        fill = _fill_value(value)
        if fill is not None and all(_fill_value(v) == fill for v in versions):
            shape = _affine([v.shape for v in versions], sizes)
            if shape is None:
                return None
            constants[name] = {"fill": fill.item(), "base": shape[0].tolist(),
                               "slopes": _per_dim(shape[1], groups, n_dims)}
            continue
        counts = _reciprocal_counts(versions) if value.dtype.kind == "f" else None
        affine = _affine(versions if counts is None else counts, sizes) if value.dtype.kind in "iu" or counts \
            else None
        if affine is None:
            return None
        constants[name] = {"base": affine[0].tolist(), "slopes": _per_dim(affine[1], groups, n_dims)}
        if counts is not None:
            constants[name]["reciprocal"] = True
    return constants


# -- signatures ------------------------------------------------------------------------------------
def _default_signature_functions(root):
    """The root's tf.function attributes with an input signature: TF's serving_default when there is one."""
    if not isinstance(root, Module):
        return []
    return [fn for _, fn in _module_children(root) if isinstance(fn, Function) and fn.input_signature is not None]


def _signature_map(writer, root, signatures):
    if signatures is None:
        found = _default_signature_functions(root)
        signatures = {"serving_default": found[0]} if len(found) == 1 else {}
    elif not isinstance(signatures, dict):
        signatures = {"serving_default": signatures}
    result = {}
    for key, fn in signatures.items():
        if not isinstance(key, str):
            raise ValueError(f"Signature key must be a string, got {key!r}")
        if isinstance(fn, Function):
            if fn.input_signature is None:
                raise ValueError(f"Function {fn} used as a signature must have an input signature (input_signature "
                                 "in tf.function) or be a concrete function (get_concrete_function)")
        elif not isinstance(fn, ConcreteFunction):
            raise ValueError(f"Expected a TensorFlow function for which to generate a signature, but got {fn}. Only "
                             "`tf.functions` with an input signature or concrete functions can be used as a "
                             "signature.")
        result[key] = {"function": writer.function_index(fn)}
    return result


def save(obj, export_dir, signatures=None, options=None):
    """Write ``obj`` (a tf.Module) to the directory ``export_dir`` in vfw's SavedModel format.

    Parameters
    ----------
    obj : tf.Module
        Its variables, submodules and tf.function methods are saved.
    export_dir : str or os.PathLike
        Created if missing.
    signatures : tf.function, ConcreteFunction or dict, optional
        The serving signatures (``serving_default`` for a single function); by default the root's only
        tf.function with an input signature, if it has exactly one.
    options : tf.saved_model.SaveOptions, optional
        Accepted.
    """
    if not isinstance(obj, Module):
        raise ValueError(f"Expected an object of type `Trackable`, such as `tf.Module` or a subclass of the "
                         f"`Trackable` class, for export. Got {obj} with type {type(obj)}.")
    export_dir = os.fspath(export_dir)
    os.makedirs(os.path.join(export_dir, fmt.GRAPHS_DIR), exist_ok=True)
    os.makedirs(os.path.dirname(os.path.join(export_dir, fmt.VARIABLES_FILE)), exist_ok=True)
    writer = _Writer(export_dir)
    writer.add(obj)
    signature_map = _signature_map(writer, obj, signatures)
    saved_values = {i: v.numpy() for i, v in writer.variables.items()}
    try:
        writer.trace_functions()
    finally:
        for i, variable in writer.variables.items():  # traces may have written them
            variable.assign(saved_values[i])
    writer.write(signature_map, saved_values)


def _without_checks(graph):
    """``graph`` without the PyFunc ops that only check values (TF's errors for indices out of range... that vfw
    raises from Python: ``_traced_shapes.checked_at_run``) and whose outputs nothing reads, in its control-flow
    subgraphs too: their Python functions live in this process only, and the saved graph's kernels still refuse
    what they cannot compute."""
    read = set()

    def collect(g):
        read.update(g.output)
        for op in g.op:
            read.update(op.input)
            for arg in op.arg:
                if arg.WhichOneof("value") == "g":
                    collect(arg.g)

    def strip(g):
        kept = []
        for op in g.op:
            token = next((arg.s.decode() if isinstance(arg.s, bytes) else arg.s
                          for arg in op.arg if arg.name == "token"), None) if op.type == "PyFunc" else None
            fn = registered_callback(token) if token else None
            if getattr(fn, "check_only", False) and not any(name in read for name in op.output if name):
                continue
            for arg in op.arg:
                if arg.WhichOneof("value") == "g":
                    strip(arg.g)
            kept.append(op)
        if len(kept) != len(g.op):
            del g.op[:]
            g.op.extend(kept)

    collect(graph)
    out = GraphDef()
    out.CopyFrom(graph)
    strip(out)
    return out
