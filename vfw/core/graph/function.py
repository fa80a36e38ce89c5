"""``vfw.function``: trace a Python function once per input signature and run it as a graph.

The engine's analogue of ``tf.function`` and ``torch.jit.trace`` (which the
frontends wrap).  The first call with a new signature (tensor shapes and
dtypes, which arguments are the same tensor, types and values of the other
arguments) runs the function eagerly under a
:class:`~vfw.core.graph.trace.Trace`; that run is the call's result, side
effects included.  The recorded GraphDef goes through the optimization passes
of the chosen level and is compiled by
:class:`~vfw.core.graph.executor.CompiledGraph`.  Later calls with that
signature only run the compiled graph.

Arguments may be nested tuples, lists and dicts; their tensor and numpy array
leaves are the graph inputs (named after the argument: ``x``, ``batch[0]``,
``params['w']``; the function receives array leaves as :class:`Tensor`
objects, as ``tf.function`` does) and every other value is part of the
signature, baked in.  Tensors the function reads without receiving them are
captures: the graph reads their current arrays on every call.
Results may be nested the same way; Python values in them (and Python values
computed from tensors, such as ``float(loss.array)``) are those of the tracing
run.  Tensor results keep the tensor class they had when traced; a result that
was an argument or a captured tensor is that tensor.

In-place writes are replayed (see :mod:`~vfw.core.graph.trace`): captured
tensors the function writes are state updates, written after each run, and
arguments it writes are written back into the caller's tensors after each run.
A function whose graph could not replay its tracing run raises
:class:`~vfw.core.errors.TraceError` once that eager run is over.

A function called while another is being traced is inlined: its ops are
recorded into the outer graph.
"""

import functools
import inspect

import numpy as np

from vfw.core import dtypes as dt
from vfw.core.errors import DTypeError, OpInputError, ShapeError, TraceError
from vfw.core.graph.assign import write
from vfw.core.graph.executor import CompiledGraph
from vfw.core.graph.memory import Liveness
from vfw.core.graph.passes import optimize, prune
from vfw.core.graph.trace import Trace, _active, current_trace
from vfw.core.ir import tensor_to_proto
from vfw.core.tensor import Tensor

_default_level = [3]


def set_default_opt_level(level):
    """Set the optimization level (0-3) used by functions that do not choose one."""
    if level not in (0, 1, 2, 3):
        raise OpInputError(f"opt_level must be 0, 1, 2 or 3, got {level!r}")
    _default_level[0] = level


def get_default_opt_level():
    """The process-wide default optimization level (3 unless changed)."""
    return _default_level[0]


# -- argument structures -------------------------------------------------------------
# A spec is ("leaf", index) | ("seq", cls, children) | ("dict", cls, ((key, child), ...)) | ("value", type, value).


def _flatten(obj, leaves, sort=True):
    """Structure of ``obj`` with tensor/array leaves replaced by their index in ``leaves``.

    With ``sort``, dict items are in key order (arguments: ``{a, b}`` and
    ``{b, a}`` share a trace); else in insertion order (results).
    """
    if isinstance(obj, (Tensor, np.ndarray)):
        leaves.append(obj)
        return ("leaf", len(leaves) - 1)
    if isinstance(obj, (list, tuple)):
        return ("seq", type(obj), tuple([_flatten(o, leaves, sort) for o in obj]))
    if isinstance(obj, dict):
        items = list(obj.items())
        if sort:
            try:
                items.sort(key=lambda kv: kv[0])
            except TypeError:
                pass  # keys that do not compare: insertion order
        return ("dict", type(obj), tuple([(k, _flatten(v, leaves, sort)) for k, v in items]))
    # The type is part of the signature: 1, 1.0 and True are equal (and hash equal) in Python.
    return ("value", type(obj), obj)


def _unflatten(spec, leaves):
    kind = spec[0]
    if kind == "leaf":
        return leaves[spec[1]]
    if kind == "value":
        return spec[2]
    cls, body = spec[1], spec[2]
    if kind == "dict":
        return cls([(k, _unflatten(v, leaves)) for k, v in body])
    items = [_unflatten(s, leaves) for s in body]
    if hasattr(cls, "_fields"):  # namedtuple
        return cls(*items)
    return cls(items)


def _leaf_paths(spec, prefix, paths):
    """Fill ``paths[i]`` with a readable name of leaf ``i`` (``x``, ``x[0]``, ``x['w']``)."""
    kind = spec[0]
    if kind == "leaf":
        paths[spec[1]] = prefix
    elif kind == "seq":
        for i, s in enumerate(spec[2]):
            _leaf_paths(s, f"{prefix}[{i}]", paths)
    elif kind == "dict":
        for k, s in spec[2]:
            _leaf_paths(s, f"{prefix}[{k!r}]", paths)


def _argument_paths(fn, spec, n_leaves):
    """Names of the leaves of ``(args, kwargs)``, using ``fn``'s parameter names."""
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        params = []
    positional = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    star = next((p.name for p in params if p.kind == p.VAR_POSITIONAL), "arg")
    (_, _, args), (_, _, kwargs) = spec[2]
    paths = [None] * n_leaves
    for i, s in enumerate(args):
        _leaf_paths(s, positional[i] if i < len(positional) else f"{star}[{i - len(positional)}]", paths)
    for k, s in kwargs:
        _leaf_paths(s, str(k), paths)
    return paths


def _aliases(leaves):
    """For each leaf, the index of the first leaf that is the same object."""
    first = {}
    return tuple([first.setdefault(id(x), i) for i, x in enumerate(leaves)])


def _leaf_array(x):
    """The array of a tensor or array leaf."""
    return x.array if isinstance(x, Tensor) else x


def _signature(spec, leaves):
    try:
        hash(spec)
    except TypeError:
        raise OpInputError("vfw.function: non-tensor arguments must be hashable (they select the trace)") from None
    arrays = [_leaf_array(x) for x in leaves]
    return spec, tuple([(type(x), a.shape, a.dtype) for x, a in zip(leaves, arrays)]), _aliases(leaves)


def _describe(shape, dtype):
    return f"{dt.type_name(dtype)}{list(shape)}"


def _results_to_copy(graph, keep, outputs, external):
    """For each graph output, whether the graph's array may share memory with a feed or a constant (it is one,
    or a view of one) while the tracing run's result shared memory with no argument or capture."""
    live = Liveness(graph, keep)
    arrays = [t.array for t in external]
    return [live.root_of(name) in live.external and not any(np.may_share_memory(out.array, a) for a in arrays)
            for name, out in zip(graph.output, outputs)]


def _raise_needed_error(graph, keep, deferred):
    """Raise the first error of ``deferred`` (``(value name, error)``) whose value the pruned graph still computes."""
    live = prune(graph, keep)
    needed = set(keep) | {name for op in live.op for name in op.input}
    for name, error in deferred:
        if name in needed:
            raise error


def _write_back(target, value):
    """Write a state update into a tensor (see :func:`write`) or, for a numpy argument, into its memory."""
    if isinstance(target, Tensor):
        write(target, value)
    else:
        np.copyto(target, value, casting="unsafe")


class ConcreteFunction:
    """One trace of a :class:`Function`: its graph, compiled plan, captures and state updates.

    Calling it runs the compiled graph on arguments with the structure, shapes
    and dtypes it was traced with, then applies the state updates.

    Parameters
    ----------
    fn : callable
    args, kwargs
        The arguments of the tracing run (tensors, arrays, nested structures, other values).
    opt_level : int
    name : str
        Name of the graph.

    Attributes
    ----------
    raw_graph : GraphDef
        The graph as traced (inputs: the arguments, then the captures).
    graph_def : GraphDef
        ``raw_graph`` after the passes of ``opt_level``.
    compiled : CompiledGraph
    captures : list[tuple[str, Tensor]]
        Captured tensors (read by reference on every call) and their input names.
    updates : list[tuple[str, str]]
        ``(capture or input name, value name)``: the state updates, applied after each call (the value
        written into a captured tensor, or back into an argument the function wrote in place).
    input_names : list[str]
        Graph input names of the arguments (one per distinct tensor/array leaf).
    """

    def __init__(self, fn, args, kwargs, opt_level, name):
        if current_trace() is not None:
            raise OpInputError(f"vfw.function {name!r}: cannot trace a new function while another trace is "
                               "recording (call the function instead: calls inside a trace are inlined)")
        leaves = []
        spec = _flatten((args, kwargs), leaves)
        self.name = name
        self._fn = fn
        self._spec = spec
        self._leaf_sig = [(a.shape, a.dtype) for a in map(_leaf_array, leaves)]
        self._aliases = _aliases(leaves)
        self._feed_index = [i for i, j in enumerate(self._aliases) if i == j]
        paths = _argument_paths(fn, spec, len(leaves))
        self._paths = paths
        # numpy leaves become tensors (the function sees tensors); a repeated object stays one input.
        tensors = [x if isinstance(x, Tensor) else Tensor(np.asarray(x)) for x in leaves]
        tensors = [tensors[j] for j in self._aliases]
        trace = Trace(name)
        trace.defers_errors = True  # (checked below, once the graph is complete)
        with trace:
            self.input_names = [trace.add_input(tensors[i], paths[i]) for i in self._feed_index]
            call_args, call_kwargs = _unflatten(spec, tensors)
            result = fn(*call_args, **call_kwargs)
            out_leaves = []
            self._out_spec = _flatten(result, out_leaves, sort=False)
            outputs = [x if isinstance(x, Tensor) else Tensor(x) for x in out_leaves]
            trace.set_outputs(outputs)
        capture_updates, input_updates = trace.updates, trace.input_updates
        if trace.unreplayable is not None:
            raise TraceError(f"vfw.function {name!r}: {trace.unreplayable}, so its graph would not replay the "
                             "Python code (the tracing call ran it eagerly, side effects included)")
        self._trace_result = result
        self.captures = list(trace.captures.items())
        self._capture_tensors = [t for _, t in self.captures]
        self._callbacks = trace.callbacks  # the Python functions of its PyFunc ops live as long as it does
        # State updates: captures first, then the arguments written in place (written back after each run).
        self.updates = list(capture_updates.items()) + list(input_updates.items())
        feed_of = {name: k for k, name in enumerate(self.input_names)}
        self._writes = [(trace.captures[c], None) for c in capture_updates] + \
                       [(None, feed_of[i]) for i in input_updates]
        self._written_args = [feed_of[i] for i in input_updates]
        # Results: the tensor class they had, or (a tensor that is an argument or a capture) that very tensor,
        # which the run's writes have updated, as eagerly.
        position = {id(tensors[i]): ("arg", k) for k, i in enumerate(self._feed_index) if tensors[i] is leaves[i]}
        position.update((id(t), ("capture", t)) for t in self._capture_tensors)
        self._out_wrap = [position.get(id(x)) or (None if isinstance(x, np.ndarray) else type(x).wrap)
                          for x in out_leaves]
        self._out_writable = [o.array.flags.writeable for o in outputs]
        graph = trace.graph
        # Captures are inputs of the compiled graph, after the arguments.
        graph.input.extend(name for name, _ in self.captures)
        self.raw_graph = graph
        self.opt_level = opt_level = min(opt_level, trace.max_opt_level)
        update_values = [value for _, value in self.updates]
        if trace.deferred_errors:
            _raise_needed_error(graph, list(graph.output) + update_values, trace.deferred_errors)
        self.graph_def = optimize(graph, opt_level, keep=list(graph.output) + update_values)
        self.compiled = CompiledGraph(self.graph_def, extra_outputs=update_values)
        self._out_copy = _results_to_copy(self.graph_def, update_values, outputs,
                                          [tensors[i] for i in self._feed_index] + self._capture_tensors)
        self._n_out = len(outputs)
        self._distinct = len(self._feed_index) == len(leaves)
        wrap = self._out_wrap[0] if self._out_spec == ("leaf", 0) else None
        self._single = wrap if callable(wrap) else None

    def __call__(self, *args, **kwargs):
        if _active and current_trace() is not None:
            return self._fn(*args, **kwargs)  # inlined into the recording graph
        leaves = []
        spec = _flatten((args, kwargs), leaves)
        if spec != self._spec:
            raise OpInputError(f"vfw.function {self.name!r}: the arguments do not have the structure and "
                               "non-tensor values this concrete function was traced with")
        for path, x, (shape, dtype) in zip(self._paths, leaves, self._leaf_sig):
            a = _leaf_array(x)
            if a.dtype != dtype:
                raise DTypeError(f"vfw.function {self.name!r}: argument {path!r} must be "
                                 f"{_describe(shape, dtype)}, got {_describe(a.shape, a.dtype)}")
            if a.shape != shape:
                raise ShapeError(f"vfw.function {self.name!r}: argument {path!r} must be "
                                 f"{_describe(shape, dtype)}, got {_describe(a.shape, a.dtype)}")
        if _aliases(leaves) != self._aliases:
            raise OpInputError(f"vfw.function {self.name!r}: arguments that were one tensor when traced must "
                               "still be one tensor, and others distinct")
        return self._run(leaves)

    def _run(self, leaves):
        if self._distinct is False:
            leaves = [leaves[i] for i in self._feed_index]
        feeds = [x.array if isinstance(x, Tensor) else np.asarray(x) for x in leaves]
        if self._capture_tensors:
            feeds += [t.array for t in self._capture_tensors]
        if self._written_args:
            self._check_unshared(feeds)
        results = self.compiled(*feeds)
        n = self._n_out
        if self._writes:
            for (target, k), value in zip(self._writes, results[n:]):
                _write_back(leaves[k] if target is None else target, value)
        if self._single is not None:  # the common case: one tensor result
            r = results[0]
            if self._out_copy[0] or not r.flags.writeable and self._out_writable[0]:
                r = r.copy()
            return self._single(r)
        outputs = [self._result(k, r, leaves) for k, r in enumerate(results[:n])]
        return _unflatten(self._out_spec, outputs)

    def _result(self, k, array, leaves):
        """Result ``k`` as the tracing run gave it: the same argument or capture, or memory of its own where
        the traced result had it (a graph may return a feed, a constant or a read-only broadcast)."""
        wrap = self._out_wrap[k]
        if type(wrap) is tuple:  # an argument or a captured tensor itself
            kind, where = wrap
            return leaves[where] if kind == "arg" else where
        if self._out_copy[k] or not array.flags.writeable and self._out_writable[k]:
            array = array.copy()
        return array if wrap is None else wrap(array)

    def _check_unshared(self, feeds):
        """Refuse arguments written in place that share memory with another argument or a capture."""
        n_args = len(self.input_names)
        for k in self._written_args:
            for j, other in enumerate(feeds):
                if j != k and np.may_share_memory(feeds[k], other) and np.shares_memory(feeds[k], other):
                    what = f"argument {self.input_names[j]!r}" if j < n_args else \
                        f"captured tensor {self.captures[j - n_args][0]!r}"
                    raise OpInputError(f"vfw.function {self.name!r}: argument {self.input_names[k]!r}, which the "
                                       f"function writes in place, shares memory with {what}; the graph was traced "
                                       "with separate memory and would not replay the write through the other: "
                                       "pass tensors that do not share memory (clone() one)")

    def inference_graph(self):
        """A self-contained GraphDef of the outputs, with the captures' current values as initializers.

        The graph's inputs are the argument inputs only; state updates are
        dropped (a snapshot for inference: running it changes nothing), and the
        ops only they needed are pruned.  It is optimized at this function's
        level.

        Raises
        ------
        ShapeError, DTypeError
            When a captured tensor no longer has the shape or dtype it was traced with.
        """
        infos = {vi.name: (tuple(vi.dims), vi.data_type) for vi in self.raw_graph.value_info}
        graph = type(self.raw_graph)()
        graph.CopyFrom(self.raw_graph)
        capture_names = {name for name, _ in self.captures}
        del graph.input[:]
        graph.input.extend(n for n in self.raw_graph.input if n not in capture_names)
        for name, tensor in self.captures:
            data = tensor.array
            shape, code = infos[name]
            if data.shape != shape:
                raise ShapeError(f"vfw.function {self.name!r}: captured tensor {name!r} was traced with shape "
                                 f"{shape} and now has shape {data.shape}: trace the function again")
            if dt.onnx_code(data.dtype) != code:
                raise DTypeError(f"vfw.function {self.name!r}: captured tensor {name!r} changed dtype since "
                                 f"tracing (now {dt.type_name(data.dtype)})")
            graph.initializer.append(tensor_to_proto(data, name))
        return optimize(graph, self.opt_level, keep=list(graph.output))

    def save(self, path):
        """Save :meth:`inference_graph` (protobuf bytes) to ``path``; load it with :func:`load_graph`.

        The captures' current values are baked in as initializers and the state
        updates are dropped: the file is an inference snapshot, which
        ``CompiledGraph(load_graph(path))`` runs on the argument arrays (in the
        order of :attr:`input_names`), returning the flattened outputs.
        """
        from vfw.core.graph.serialize import save_graph

        save_graph(self.inference_graph(), path)


class Function:
    """A Python function compiled to engine graphs, one per input signature.

    Parameters
    ----------
    fn : callable
        Computes with engine ops (``vfw.core.execute``) on :class:`Tensor` inputs.
    opt_level : int, optional
        0-3; the process default (see :func:`set_default_opt_level`) when omitted.

    Notes
    -----
    Tracing runs ``fn`` once eagerly, with its side effects (:func:`assign`
    writes, random draws), also when it happens in :meth:`get_concrete_function`.
    """

    def __init__(self, fn, opt_level=None):
        if opt_level not in (None, 0, 1, 2, 3):
            raise OpInputError(f"opt_level must be 0, 1, 2 or 3, got {opt_level!r}")
        functools.update_wrapper(self, fn)
        self.fn = fn
        self.opt_level = opt_level
        self._traces = {}
        self._fast = {}

    def __get__(self, obj, objtype=None):
        # Decorating a method: bind the instance, which becomes a (hashable) non-tensor argument.
        if obj is None:
            return self
        return functools.partial(self, obj)

    @property
    def tracing_count(self):
        """int: how many signatures have been traced."""
        return len(self._traces)

    def _lookup(self, args, kwargs):
        """``(concrete, leaves, result)``: ``result`` is the tracing run's, or ``None`` if already traced."""
        leaves = []
        spec = _flatten((args, kwargs), leaves)
        key = _signature(spec, leaves)
        concrete = self._traces.get(key)
        if concrete is not None:
            return concrete, leaves, None
        level = get_default_opt_level() if self.opt_level is None else self.opt_level
        concrete = ConcreteFunction(self.fn, args, kwargs, level, getattr(self.fn, "__name__", "fn"))
        self._traces[key] = concrete
        result, concrete._trace_result = concrete._trace_result, None
        return concrete, leaves, (result,)

    def get_concrete_function(self, *args, **kwargs):
        """The :class:`ConcreteFunction` for these arguments (tracing it if new)."""
        return self._lookup(args, kwargs)[0]

    def __call__(self, *args, **kwargs):
        if _active and current_trace() is not None:
            return self.fn(*args, **kwargs)  # inlined into the recording graph
        fast = not kwargs
        for a in args:
            if not isinstance(a, Tensor):
                fast = False
                break
        if fast:
            # All-tensor positional arguments: the signature is their classes, shapes and dtypes.
            key = tuple([(type(a), a.array.shape, a.array.dtype) for a in args])
            if len(args) > 1 and len({id(a) for a in args}) < len(args):
                fast = False  # repeated tensors: the full signature tells the aliasing apart
            else:
                concrete = self._fast.get(key)
                if concrete is not None:
                    return concrete._run(args)
        concrete, leaves, traced = self._lookup(args, kwargs)
        if fast:
            self._fast[key] = concrete
        if traced is not None:
            return traced[0]  # tracing ran the function eagerly: that run is this call's result
        return concrete._run(leaves)


def function(fn=None, *, opt_level=None):
    """Decorator: trace ``fn`` per input signature and run it as an optimized graph.

    Usable as ``@function`` or ``@function(opt_level=1)``.
    """
    if fn is None:
        return lambda f: Function(f, opt_level)
    return Function(fn, opt_level)
