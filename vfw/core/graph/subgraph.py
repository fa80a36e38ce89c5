"""Subgraphs: Python functions traced into self-contained GraphDefs, the bodies of control-flow ops.

A branch of ``If`` or the body of ``Loop`` is a :class:`~vfw.core.proto.GraphDef` whose inputs
are explicit: the op's own inputs (a loop's iteration number, condition and carried values)
followed by the *captures*, the outer values the Python function read (a tensor of the
enclosing trace, a variable).  :func:`trace_subgraph` records one with a
:class:`SubgraphTrace`, a :class:`~vfw.core.graph.trace.Trace` nested in the trace that is open
(if any):

* a tensor or bare array that an enclosing trace knows is a capture of the subgraph, never a
  constant: the op receives the outer value as an input on every run;
* the tracing run is concrete (the function runs eagerly on real values, as every trace in
  vfw), but it must leave no trace in the program state: a write into a captured tensor (a
  variable's ``assign``) is recorded as a new value of that capture and undone when the
  function returns.  The op computes the written values as extra outputs and the caller
  writes them (:attr:`Subgraph.written`), so the write happens once, when and if the branch
  or the loop body runs;
* PyFunc callbacks recorded inside stay alive with the enclosing trace, and a reason the
  graph cannot replay its run is passed on to it.

:func:`run_graph` runs a GraphDef op by op through the eager executor (so autograd records it:
the gradient makers of the control-flow ops differentiate their subgraphs by running them
again), and :func:`gradient_graph` traces such a run and its backward into a new GraphDef.
"""

import numpy as np

from vfw.core import autograd
from vfw.core import dtypes as dt
from vfw.core.eager import execute
from vfw.core.graph.executor import kernel_attrs
from vfw.core.graph.passes import optimize
from vfw.core.graph.trace import Trace, current_trace
from vfw.core.ir import proto_to_tensor, tensor_to_proto
from vfw.core.proto import GraphDef, ValueInfo
from vfw.core.tensor import Tensor
from vfw.core.workspace import current_workspace

SUBGRAPH_OPT_LEVEL = 1
"""Passes run on subgraphs: pruning, CSE and folding, but no buffer pools, whose sizes would
assume the traced shapes (a loop's carried values may change shape from one iteration to the next)."""


class SubgraphTrace(Trace):
    """A trace recording the body of a control-flow op inside the enclosing trace ``parent``.

    Parameters
    ----------
    name : str
    parent : Trace or None
        The trace open when the body is traced (its values become captures).
    """

    def __init__(self, name, parent):
        super().__init__(name)
        self.parent = parent
        self._saved = {}  # id(array) -> (array, copy of its content before the first write)
        self.differentiable = {}  # capture name -> a tensor of its array that requires grad (what a tape watched)

    def _known_outside(self, array):
        trace = self.parent
        while trace is not None:
            if id(array) in trace._arrays or id(array) in trace._fresh or trace._is_view_of_value(array):
                return True
            trace = getattr(trace, "parent", None)
        return False

    def name_of(self, value):
        """As :meth:`Trace.name_of`, and a bare array an enclosing trace holds is captured (an outer value)."""
        if isinstance(value, np.ndarray) and id(value) not in self._arrays and id(value) not in self._fresh \
                and self._known_outside(value):
            value = Tensor.wrap(value)
        new_capture = isinstance(value, Tensor) and id(value.array) not in self._arrays
        name = super().name_of(value)
        if new_capture and name in self.captures and self._varies_outside(value):
            # An outer value whose shape changes from run to run (a partial last batch, a boolean_mask): the
            # body must not fix the traced shape (in its input's value info, or folded into its ops).  The
            # enclosing trace already knows the value varies (it tells for itself what that requires of its
            # optimization level), so the body's optimization does not lower it.
            self.relax_shape(value, None, fixed_results=True)
        # The op will read the capture from this tensor: gradients flow to it (a variable's watched read).
        if isinstance(value, Tensor) and value.requires_grad and name in self.captures:
            self.differentiable.setdefault(name, value)
        return name

    def _varies_outside(self, tensor):
        trace = self.parent
        while trace is not None:
            if trace.shape_varies(tensor):
                return True
            trace = getattr(trace, "parent", None)
        return False

    def record_write(self, target, value):
        """As :meth:`Trace.record_write`; the memory's content is saved first, to be restored at the end."""
        array = target.array
        if id(array) not in self._saved:
            self._saved[id(array)] = (array, array.copy())
        super().record_write(target, value)

    def __exit__(self, exc_type, *exc):
        result = super().__exit__(exc_type, *exc)
        # Undo the tracing run's writes: the op replays them when (and if) it runs.
        for array, content in self._saved.values():
            np.copyto(array, content)
        for name, tensor in self.captures.items():
            tensor.array = self._capture_arrays[name]
        if self.parent is not None:
            # The body's own values exist only inside the op that runs it: the enclosing traces must not read them.
            captured = {id(a) for a in self._capture_arrays.values()}
            self.parent.inaccessible.update(self.inaccessible)
            self.parent.inaccessible.update((id(a), (a, self.graph.name)) for a in self._alive
                                            if isinstance(a, np.ndarray) and id(a) in self._arrays
                                            and id(a) not in captured)
            self.parent.callbacks.extend(self.callbacks)
            self.parent.max_opt_level = min(self.parent.max_opt_level, self.max_opt_level)
            if self.unreplayable is not None:
                self.parent.refuse(self.unreplayable)
        return result


def tracing_subgraph():
    """bool: whether a control-flow body is being traced (its tracing run must have no side effects: a PyFunc
    that prints checks this, and the op running the body prints when it runs)."""
    return isinstance(current_trace(), SubgraphTrace)


class Subgraph:
    """A traced body: its GraphDef and what the op that runs it needs from outside.

    Attributes
    ----------
    graph : GraphDef
        Inputs: the explicit inputs, then one per capture; outputs: the function's outputs, then
        the new value of each written capture (see :attr:`written`).  Not optimized.
    captures : list[Tensor]
        The outer tensors the body reads, in input order (the tensors its writes go to).
    sources : list[Tensor]
        What the op reads each capture from: the capture, or a tensor holding its array that
        requires grad (a variable's read that a tape watches), so gradients reach it.
    written : list[int]
        Positions in :attr:`captures` of the tensors the body writes.
    outputs : list[Tensor]
        The tensors the tracing run returned (their shapes and dtypes are the traced ones).
    """

    def __init__(self, graph, captures, sources, written, outputs):
        self.graph = graph
        self.captures = captures
        self.sources = sources
        self.written = written
        self.outputs = outputs

    def capture_keys(self):
        """Identity of each capture (its array), to merge the captures of several bodies."""
        return [id(t.array) for t in self.captures]


def trace_subgraph(fn, inputs, name, varying=None):
    """Trace ``fn(*inputs)`` (which returns a list of tensors) into a :class:`Subgraph`.

    Parameters
    ----------
    fn : callable
    inputs : list[Tensor]
        The body's explicit inputs: tensors of their own memory (the function receives them).
    name : str
    varying : dict[int, tuple or None], optional
        Inputs whose shape may change from one run to the next (a loop's carried values under relaxed shape
        invariants): their dims, None where one may change (None for an unknown rank).  Marked before the body
        runs, so that the shapes the body reads (``Shape``, static shapes) follow each run.
    """
    trace = SubgraphTrace(name, current_trace())
    with trace:
        for t in inputs:
            trace.add_input(t)
        for k, dims in (varying or {}).items():
            trace.relax_shape(inputs[k], dims)
        outputs = list(fn(*inputs))
        trace.set_outputs(outputs)
        trace.forget_varying_shapes()  # the subgraph is optimized at SUBGRAPH_OPT_LEVEL, which folds known shapes
    graph = trace.graph
    names = list(trace.captures)
    graph.input.extend(names)
    written = [k for k, name in enumerate(names) if name in trace.updates]
    graph.output.extend(trace.updates[names[k]] for k in written)
    return Subgraph(graph, [trace.captures[n] for n in names],
                    [trace.differentiable.get(n, trace.captures[n]) for n in names], written, outputs)


def with_inputs(sub, n_explicit, keys, arrays, name):
    """A copy of ``sub``'s graph whose inputs after the ``n_explicit`` first read the captures ``keys``.

    ``keys`` (identities of capture arrays, see :meth:`Subgraph.capture_keys`) include the body's
    own; ``arrays`` are their values: a capture the body does not read becomes an unused input.
    """
    graph = GraphDef()
    graph.CopyFrom(sub.graph)
    own = dict(zip(sub.capture_keys(), sub.graph.input[n_explicit:]))
    used = {n for n in graph.input} | {n for op in graph.op for n in op.output} | {t.name for t in graph.initializer}
    del graph.input[n_explicit:]
    for k, (key, array) in enumerate(zip(keys, arrays)):
        input_name = own.get(key)
        if input_name is None:
            input_name = f"{name}_unused{k}"
            while input_name in used:
                input_name += "_"
            graph.value_info.append(_value_info(input_name, array))
        graph.input.append(input_name)
    return graph


def _value_info(name, array):
    # Unknown dims: the body never reads this input, and the capture's shape may change from run to run.
    return ValueInfo(name=name, data_type=dt.onnx_code(array.dtype), dims=[-1] * array.ndim)


def merged(subs, n_explicit, name, carry_all=False):
    """Give several bodies (the branches of an ``If``, or a loop body) one list of captures.

    Parameters
    ----------
    subs : list[Subgraph]
    n_explicit : int
        Number of explicit inputs of each body (before the captures).
    name : str
        Prefix of the names of inputs a body gets but does not read.
    carry_all : bool
        Return one output per capture after the body's outputs (its new value, or the capture
        passed through: a loop body carries its captures), instead of one per written capture.

    Returns
    -------
    graphs : list[GraphDef]
        Each body's graph with inputs ``explicit + captures`` and outputs ``outputs + written``
        (or ``outputs + captures``), optimized; a body that does not write a capture another
        writes passes its input through.  A body with no output at all gets a constant one, as
        graph ops need one (the op may still have effects: prints).
    captures : list[Tensor]
    sources : list[Tensor]
        The op's inputs for the captures (see :attr:`Subgraph.sources`).
    written : list[int]
        Positions in ``captures`` of the tensors some body writes.
    """
    keys, captures, sources = [], [], []
    for sub in subs:
        for key, t, source in zip(sub.capture_keys(), sub.captures, sub.sources):
            if key not in keys:
                keys.append(key)
                captures.append(t)
                sources.append(source)
            elif source.requires_grad:
                sources[keys.index(key)] = source
    written_keys = []
    for sub in subs:
        for k in sub.written:
            key = id(sub.captures[k].array)
            if key not in written_keys:
                written_keys.append(key)
    graphs = []
    for sub in subs:
        graph = with_inputs(sub, n_explicit, keys, [t.array for t in captures], name)
        n_out = len(sub.outputs)
        new_values = dict(zip([id(sub.captures[k].array) for k in sub.written], sub.graph.output[n_out:]))
        del graph.output[n_out:]
        for key in keys if carry_all else written_keys:
            graph.output.append(new_values.get(key) or graph.input[n_explicit + keys.index(key)])
        if not graph.output:
            graph.initializer.append(tensor_to_proto(np.zeros((), np.bool_), f"{name}_no_output"))
            graph.output.append(f"{name}_no_output")
        graphs.append(optimize(graph, SUBGRAPH_OPT_LEVEL))
    return graphs, captures, sources, [keys.index(key) for key in written_keys]


# -- differentiating subgraphs -------------------------------------------------------------------
def needed_ops(graph, outputs):
    """The ops of ``graph`` that the values ``outputs`` depend on, in order (side effects such as prints
    and unused random draws are left out)."""
    needed = set(outputs)
    kept = []
    for op in reversed(graph.op):
        if any(n in needed for n in op.output if n):
            kept.append(op)
            needed.update(n for n in op.input if n)
    kept.reverse()
    return kept


def run_graph(graph, inputs, outputs=None):
    """Run ``graph`` on ``inputs`` op by op through the eager executor; returns its output tensors.

    Autograd records the ops as usual (tensors that require grad flow through), and an open
    trace records them.  Only the ops that the chosen ``outputs`` (indices into the graph's
    outputs; all by default) need are run.
    """
    names = list(graph.output) if outputs is None else [graph.output[k] for k in outputs]
    values = dict(zip(graph.input, inputs))
    values.update((t.name, proto_to_tensor(t)) for t in graph.initializer)
    workspace = current_workspace()
    for opdef in needed_ops(graph, names):
        args = [values[n] if n else None for n in opdef.input]
        result = execute(workspace.op(opdef.type, kernel_attrs(opdef)), *args)
        for out_name, value in zip(opdef.output, result if type(result) is tuple else (result,)):
            if out_name:
                values[out_name] = value
    return [v if isinstance(v, Tensor) else Tensor(v) for v in (values[n] for n in names)]


def gradient_graph(fn, example, wrt, name):
    """Trace the gradients of ``fn``'s outputs into a GraphDef.

    ``fn(*tensors)`` returns ``(targets, sources)``: it computes differentiable ``targets`` from
    the tensors (e.g. by :func:`run_graph` of a forward graph) and names the ``sources``.  The
    traced graph's inputs are ``example``'s tensors followed by one output gradient per target;
    its outputs are the gradients of the sources (zeros where a source is unconnected).

    Parameters
    ----------
    fn : callable
    example : list[numpy.ndarray]
        Values to trace with (their shapes and dtypes are those of the graph's inputs).
    wrt : list[int]
        Which of the inputs require grad (the others are data).
    name : str

    Returns
    -------
    GraphDef
        Optimized at :data:`SUBGRAPH_OPT_LEVEL`.
    """
    trace = Trace(name)  # a trace of its own: the values of any enclosing trace are not read here
    with trace:
        # Inputs get memory of their own, so two of them never share one recorded array.
        xs = [Tensor(np.array(a)) for a in example]
        for t in xs:
            trace.add_input(t)
        for k in wrt:
            xs[k].requires_grad = True
        with autograd.enable_grad():
            targets, sources = fn(*xs)
        seeds = [Tensor(np.zeros(t.array.shape, t.array.dtype)) for t in targets]
        for t in seeds:
            trace.add_input(t)
        grads = autograd.gradient(targets, sources, seeds)
        results = []
        for g, s in zip(grads, sources):
            if g is None:  # unconnected: a constant zero
                g = Tensor(np.zeros(s.array.shape, s.array.dtype))
                trace.mark_fresh(g)
            results.append(g)
        trace.set_outputs(results)
    bake_captures(trace)
    return optimize(trace.graph, SUBGRAPH_OPT_LEVEL)


def bake_captures(trace):
    """Make the captures of a self-contained trace (a backward graph) constants of its graph.

    Such a trace reads nothing from outside: what it captured are tensors that gradient makers
    made during the run (zeros standing in for missing gradients, seeds of ones).
    """
    trace.graph.initializer.extend(tensor_to_proto(t.array, name) for name, t in trace.captures.items())
