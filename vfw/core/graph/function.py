"""``vfw.function``: trace a Python function once per input signature and run it as a graph.

The engine's analogue of ``tf.function`` and ``torch.jit.trace`` (which the
frontends wrap).  The first call with a new signature (tensor shapes and
dtypes, values of the other arguments) runs the function eagerly under a
:class:`~vfw.core.graph.trace.Trace`; the recorded GraphDef goes through the
optimization passes of the chosen level and is compiled by
:class:`~vfw.core.graph.executor.CompiledGraph`.  Later calls with that
signature only run the compiled graph.
"""

import functools

import numpy as np

from vfw.core.errors import OpInputError
from vfw.core.graph.executor import CompiledGraph
from vfw.core.graph.passes import optimize
from vfw.core.graph.trace import Trace
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


def _flatten(obj, leaves):
    """Structure of ``obj`` with tensor/array leaves replaced by their index in ``leaves``."""
    if isinstance(obj, (Tensor, np.ndarray)):
        leaves.append(obj)
        return ("leaf", len(leaves) - 1)
    if isinstance(obj, (list, tuple)):
        return (type(obj), tuple(_flatten(o, leaves) for o in obj))
    if isinstance(obj, dict):
        return (dict, tuple((k, _flatten(v, leaves)) for k, v in sorted(obj.items())))
    return ("value", obj)


def _unflatten(spec, leaves):
    kind, body = spec
    if kind == "leaf":
        return leaves[body]
    if kind == "value":
        return body
    if kind is dict:
        return {k: _unflatten(v, leaves) for k, v in body}
    return kind(_unflatten(s, leaves) for s in body)


def _signature(spec, leaves):
    try:
        hash(spec)
    except TypeError:
        raise OpInputError("vfw.function: non-tensor arguments must be hashable (they select the trace)") from None
    return spec, tuple((type(x), x.shape, x.dtype) for x in leaves)


class ConcreteFunction:
    """One trace of a :class:`Function`: its graph, compiled plan, captures and state updates."""

    def __init__(self, fn, args, kwargs, opt_level, name):
        leaves = []
        spec = _flatten((args, kwargs), leaves)
        tensors = [x if isinstance(x, Tensor) else Tensor(np.asarray(x)) for x in leaves]
        trace = Trace(name)
        with trace:
            for t in tensors:
                trace.add_input(t)
            call_args, call_kwargs = _unflatten(spec, tensors)
            result = fn(*call_args, **call_kwargs)
            out_leaves = []
            self._out_spec = _flatten(result, out_leaves)
            outputs = [x if isinstance(x, Tensor) else Tensor(np.asarray(x)) for x in out_leaves]
            trace.set_outputs(outputs)
        self._out_classes = [type(t) for t in outputs]
        self.captures = list(trace.captures.items())
        self.updates = list(trace.updates.items())
        self.result = result
        graph = trace.graph
        # Captures are inputs of the compiled graph, after the arguments.
        graph.input.extend(name for name, _ in self.captures)
        self.raw_graph = graph
        fetch = list(graph.output) + [value for _, value in self.updates]
        self.graph_def = optimize(graph, opt_level, keep=fetch)
        self.opt_level = opt_level
        self.compiled = CompiledGraph(self.graph_def, extra_outputs=[v for _, v in self.updates])
        self._n_out = len(outputs)

    def __call__(self, leaves):
        feeds = [x.data if isinstance(x, Tensor) else np.asarray(x) for x in leaves]
        feeds += [t.data for _, t in self.captures]
        results = self.compiled(*feeds)
        capture_of = dict(self.captures)
        for (name, _), value in zip(self.updates, results[self._n_out:]):
            target = capture_of[name]
            if target.data.shape == value.shape and target.data.flags.writeable:
                np.copyto(target.data, value)
            else:
                target.data = value.copy() if value.base is not None else value
        outputs = [cls.wrap(r) for cls, r in zip(self._out_classes, results[: self._n_out])]
        return _unflatten(self._out_spec, outputs)


class Function:
    """A Python function compiled to engine graphs, one per input signature.

    Parameters
    ----------
    fn : callable
        Computes with engine ops (``vfw.core.execute``) on :class:`Tensor` inputs.
    opt_level : int, optional
        0-3; the process default (see :func:`set_default_opt_level`) when omitted.
    """

    def __init__(self, fn, opt_level=None):
        functools.update_wrapper(self, fn)
        self.fn = fn
        self.opt_level = opt_level
        self._traces = {}
        self._fast = {}

    @property
    def tracing_count(self):
        """int: how many signatures have been traced."""
        return len(self._traces)

    def get_concrete_function(self, *args, **kwargs):
        """The :class:`ConcreteFunction` for these arguments (tracing it if new)."""
        leaves = []
        spec = _flatten((args, kwargs), leaves)
        key = _signature(spec, leaves)
        concrete = self._traces.get(key)
        if concrete is None:
            level = get_default_opt_level() if self.opt_level is None else self.opt_level
            concrete = ConcreteFunction(self.fn, args, kwargs, level, getattr(self.fn, "__name__", "fn"))
            self._traces[key] = concrete
            concrete.first_call = True
        return concrete, leaves

    def __call__(self, *args, **kwargs):
        if not kwargs and all(type(a) is Tensor or isinstance(a, Tensor) for a in args):
            # Fast path (all-tensor positional arguments): key on shapes and dtypes only.
            concrete = self._fast.get(tuple([(type(a), a.data.shape, a.data.dtype) for a in args]))
            if concrete is not None and not getattr(concrete, "first_call", False):
                return concrete(args)
        concrete, leaves = self.get_concrete_function(*args, **kwargs)
        if not kwargs and all(isinstance(a, Tensor) for a in args):
            self._fast[tuple([(type(a), a.data.shape, a.data.dtype) for a in args])] = concrete
        if getattr(concrete, "first_call", False):
            # Tracing ran the function eagerly: that run is this call's result.
            concrete.first_call = False
            result, concrete.result = concrete.result, None
            return result
        return concrete(leaves)


def function(fn=None, *, opt_level=None):
    """Decorator: trace ``fn`` per input signature and run it as an optimized graph.

    Usable as ``@function`` or ``@function(opt_level=1)``.
    """
    if fn is None:
        return lambda f: Function(f, opt_level)
    return Function(fn, opt_level)
