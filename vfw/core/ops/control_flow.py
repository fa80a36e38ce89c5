"""Control flow: ``If`` and ``Loop`` (ONNX), whose branches and bodies are GraphDef attributes.

Both ops run their subgraphs with the graph executor (:class:`~vfw.core.graph.executor.CompiledGraph`,
compiled once when the op is bound).  One difference from ONNX: a subgraph reads no value of
the enclosing graph by name.  What it needs from outside comes in as explicit inputs:

* ``If(cond, inputs...)``: both branches take ``inputs`` (the same list) and return the same
  number of outputs; the op returns those of the branch ``cond`` selects;
* ``Loop(M, cond, v_initial...)``: the body takes ``(iteration_num, cond, v...)`` and returns
  ``(cond, v..., scan...)``, as in ONNX; values a loop only reads are carried unchanged
  (the body returns its input).  The loop runs while ``cond`` holds and fewer than ``M``
  iterations ran (either may be absent); outputs are the final ``v`` and each scan output
  stacked over the iterations.

An ONNX exporter maps the explicit inputs of a branch onto the outer names they came from.
Outputs never share memory with inputs (a body returning its input gets a copy), as every
engine op other than the documented view ops.

Gradients differentiate the subgraphs by running them again under autograd
(:mod:`vfw.core.graph.subgraph`): the gradient of ``If`` is an ``If`` of the two branches'
backward graphs, and the gradient of ``Loop`` replays the loop once to stack the carried
values of each iteration, then runs a ``Loop`` over the iterations in reverse.  Replaying
draws random numbers again, so a random op inside a differentiated body gets other draws
than the forward run (prints and draws that no output depends on are not replayed).
"""

import weakref

import numpy as np

from vfw.core import autograd
from vfw.core import dtypes as dt
from vfw.core.autograd import register_gradient
from vfw.core.eager import execute
from vfw.core.errors import DTypeError, OpAttributeError, OpInputError, ShapeError
from vfw.core.graph.executor import CompiledGraph, value_infos
from vfw.core.graph.passes import optimize
from vfw.core.graph.subgraph import SUBGRAPH_OPT_LEVEL, bake_captures, gradient_graph, needed_ops, run_graph
from vfw.core.graph.trace import Trace, current_trace
from vfw.core.proto import GraphDef
from vfw.core.registry import Attr, OpSchema, register
from vfw.core.tensor import Tensor
from vfw.core.values import is_container
from vfw.core.workspace import current_workspace

_ANY = dt.ALL | {dt.string}


class _ControlFlowSchema(OpSchema):
    """Leading inputs of fixed dtypes (``fixed``: dtype or ``None`` per position, ``optional``), then any number
    of arrays of any dtypes (a type variable would tie them to one dtype)."""

    def __init__(self, op_type, inputs, fixed, optional, attrs, kernel, doc):
        super().__init__(op_type, inputs=inputs, outputs="outputs*:T", types={"T": _ANY}, attrs=attrs,
                         kernel=kernel, doc=doc)
        self.fixed = fixed
        self.optional = optional
        self.min_inputs = 0 if optional else len(fixed)

    def check_inputs(self, inputs):
        if len(inputs) < self.min_inputs:
            raise OpInputError(f"{self.op_type}: expected at least {self.min_inputs} inputs, got {len(inputs)}")
        names = self.input_names(len(inputs))
        for i, x in enumerate(inputs):
            if (x is None and i < len(self.fixed) and self.optional) or (i >= len(self.fixed) and is_container(x)):
                continue  # sequences and optionals pass through bodies as any value
            if x is None or not (hasattr(x, "dtype") and hasattr(x, "shape")):
                raise DTypeError(f"{self.op_type}: input '{names[i]}' must be a numpy array, got "
                                 f"{type(x).__name__}")
            want = self.fixed[i] if i < len(self.fixed) else None
            if (want is not None and x.dtype != want) or x.dtype not in _ANY:
                raise DTypeError(f"{self.op_type}: input '{names[i]}' has dtype {dt.type_name(x.dtype)}, expected "
                                 f"{dt.type_name(want) if want is not None else 'an engine dtype'}")
        return {}


def _scalar(x, op_type, what):
    if x.size != 1:
        raise ShapeError(f"{op_type}: {what} must hold one value, got shape {x.shape}")
    return x.reshape(-1)[0]


def _own(array, inputs):
    """``array``, copied when it is (a view of) an input or read-only (a constant of the subgraph); containers
    (sequences, optionals) are immutable and returned as they are."""
    if is_container(array):
        return array
    if not array.flags.writeable or any(np.may_share_memory(array, x) for x in inputs if isinstance(x, np.ndarray)):
        return array.copy()
    return array


def _compiled(graph, op_type, what):
    if not graph.output:
        raise OpAttributeError(f"{op_type}: attribute '{what}' is a graph without outputs")
    return CompiledGraph(graph)


def _if(then_branch, else_branch):
    """The outputs of ``then_branch`` or ``else_branch`` (chosen by ``cond``) run on the other inputs."""
    branches = (_compiled(else_branch, "If", "else_branch"), _compiled(then_branch, "If", "then_branch"))
    if len(then_branch.output) != len(else_branch.output) or len(then_branch.input) != len(else_branch.input):
        raise OpAttributeError(f"If: the branches must have the same numbers of inputs and outputs; then_branch has "
                               f"{len(then_branch.input)} and {len(then_branch.output)}, else_branch "
                               f"{len(else_branch.input)} and {len(else_branch.output)}")

    def kernel(cond, *inputs, out=None):
        results = branches[bool(_scalar(cond, "If", "cond"))](*inputs)
        return tuple([_own(r, inputs) for r in results])

    return kernel


def _loop(body):
    """Run ``body`` while its condition holds and fewer than ``M`` iterations ran (ONNX Loop)."""
    if len(body.input) < 2:
        raise OpAttributeError(f"Loop: the body takes (iteration_num, cond, v...), got {len(body.input)} inputs")
    n = len(body.input) - 2
    if len(body.output) < 1 + n:
        raise OpAttributeError(f"Loop: the body returns (cond, v..., scan...) with {n} carried values, got "
                               f"{len(body.output)} outputs")
    compiled = CompiledGraph(body)
    infos = value_infos(body)
    scan_infos = [infos.get(name, ((None,), None)) for name in body.output[1 + n:]]

    def kernel(trip_count, cond, *initial, out=None):
        if len(initial) != n:
            raise OpInputError(f"Loop: the body carries {n} values, got {len(initial)} initial values")
        trips = None if trip_count is None else int(_scalar(trip_count, "Loop", "M"))
        going = True if cond is None else bool(_scalar(cond, "Loop", "cond"))
        values = list(initial)
        scans = [[] for _ in scan_infos]
        i = 0
        while going and (trips is None or i < trips):
            results = compiled(np.array(i, np.int64), np.array(going), *values)
            if results[0].dtype != dt.bool_:
                raise DTypeError(f"Loop: the body's condition must be bool, got {dt.type_name(results[0].dtype)}")
            going = bool(_scalar(results[0], "Loop", "the body's condition"))
            values = results[1:1 + n]
            for stack, value in zip(scans, results[1 + n:]):
                stack.append(value)
            i += 1
        outputs = [_own(v, initial) for v in values]
        for k, (stack, (shape, dtype)) in enumerate(zip(scans, scan_infos)):
            if not stack:
                known = shape is not None and None not in shape
                outputs.append(np.zeros((0,) + (tuple(shape) if known else ()), dtype or np.float32))
            elif any(v.shape != stack[0].shape for v in stack):
                raise ShapeError(f"Loop: scan output {k} changes shape across iterations "
                                 f"({stack[0].shape} then {next(v.shape for v in stack if v.shape != stack[0].shape)})")
            else:
                outputs.append(np.stack(stack))
        return tuple(outputs)

    return kernel


register(_ControlFlowSchema(
    "If", "cond:B inputs*:T", fixed=[dt.bool_], optional=False,
    attrs={"then_branch": Attr("graph"), "else_branch": Attr("graph")}, kernel=_if,
    doc="The outputs of then_branch or else_branch, chosen by cond, run on the inputs (explicit, not outer names)."))
register(_ControlFlowSchema(
    "Loop", "M?:I cond?:B v_initial*:T", fixed=[dt.int64, dt.bool_], optional=True,
    attrs={"body": Attr("graph")}, kernel=_loop,
    doc="Run body(iteration_num, cond, v...) -> (cond, v..., scan...) while cond holds and fewer than M ran."))


# -- gradients ----------------------------------------------------------------------------------
_gradient_ops = weakref.WeakKeyDictionary()  # forward Op -> {signature: bound gradient op(s)}


def _cached(op, key, build):
    """The gradient op(s) of the forward ``op`` for ``key``, built once."""
    table = _gradient_ops.setdefault(op, {})
    found = table.get(key)
    if found is None:
        found = table[key] = build()
    return found


def _signature(tensors):
    return tuple([(t.array.shape, t.array.dtype) if t is not None else None for t in tensors])


def _is_float(t):
    return t is not None and t.array.dtype in dt.FLOATS


@register_gradient("If")
def _if_gradient(node, *grads):
    cond, *inputs = node.inputs
    inputs = [x if isinstance(x, Tensor) else Tensor(x) for x in inputs]
    wrt = [k for k, x in enumerate(inputs) if node.needs_input_grad[1 + k] and _is_float(x)]
    seeded = [k for k, g in enumerate(grads) if _is_float(g)]
    result = [None] * len(node.inputs)
    if not wrt or not seeded:
        return tuple(result)
    example = [x.array for x in inputs]
    n_in = len(inputs)

    def build():
        graphs = []
        for branch in (node.attrs["then_branch"], node.attrs["else_branch"]):
            def targets(*xs, branch=branch):
                return run_graph(branch, xs[:n_in], seeded), [xs[k] for k in wrt]
            graphs.append(gradient_graph(targets, example, wrt, f"{branch.name}_grad"))
        return current_workspace().op("If", {"then_branch": graphs[0], "else_branch": graphs[1]})

    grad_op = _cached(node.op, (tuple(wrt), tuple(seeded), _signature(inputs), _signature(grads)), build)
    outputs = execute(grad_op, cond, *inputs, *[grads[k] for k in seeded])
    for k, g in zip(wrt, outputs):
        result[1 + k] = g
    return tuple(result)


def _history_body(body, n):
    """``body`` also returning its carried inputs as scan outputs (the values of every iteration), without
    the ops that only have side effects (prints: replaying the loop must not repeat them)."""
    graph = GraphDef()
    graph.CopyFrom(body)
    del graph.output[1 + n:]
    graph.output.extend(body.input[2:])
    kept = needed_ops(graph, list(graph.output))
    del graph.op[:]
    graph.op.extend(kept)
    return graph


def _backward_body(body, n, floats, scans, history, scan_grads):
    """Trace the body of the reverse loop: ``(j, cond, g..., stacks..., scan_grads..., last) -> (true, g...,
    stacks..., scan_grads..., last)``.

    Iteration ``j`` takes the carried values of forward iteration ``t = last - j`` from the
    stacks, runs the forward body on them again and replaces the gradients ``g`` of its float
    carried outputs (plus row ``t`` of the gradients of its float scan outputs ``scans``) by
    those of its float carried inputs ``floats``.
    """
    trace = Trace(f"{body.name}_grad")
    with trace:
        step = Tensor(np.array(0, np.int64))
        going = Tensor(np.array(True))
        grads = [Tensor(np.zeros(history[k].shape[1:], history[k].dtype)) for k in floats]
        stacks = [Tensor(np.array(h)) for h in history + scan_grads]
        last = Tensor(np.array(len(history[0]) - 1, np.int64))
        for t in [step, going, *grads, *stacks, last]:
            trace.add_input(t)
        forward_step = execute("Sub", last, step)
        rows = [execute("Gather", s, forward_step, axis=0) for s in stacks]
        states = rows[:n]
        for k in floats:
            states[k].requires_grad = True
        true = Tensor(np.array(True))
        trace.mark_fresh(true)
        with autograd.enable_grad():
            targets = run_graph(body, [forward_step, true, *states], [1 + k for k in floats] +
                                [1 + n + k for k in scans])
        new_grads = autograd.gradient(targets, [states[k] for k in floats], grads + rows[n:])
        for j, g in enumerate(new_grads):
            if g is None:
                new_grads[j] = Tensor(np.zeros(grads[j].array.shape, grads[j].array.dtype))
                trace.mark_fresh(new_grads[j])
        trace.set_outputs([true, *new_grads, *stacks, last])
    graph = trace.graph
    bake_captures(trace)
    # The stacks hold as many rows as the forward loop ran iterations: not a fixed shape.
    stack_names = set(graph.input[2 + len(floats):2 + len(floats) + len(stacks)])
    for vi in graph.value_info:
        if vi.name in stack_names:
            vi.dims[0] = -1
    return optimize(graph, SUBGRAPH_OPT_LEVEL)


def _example_rows(stacked, like):
    """``stacked`` if it has rows, else one row of zeros shaped like ``like`` (to trace a body on)."""
    return stacked if len(stacked) else np.zeros((1,) + like.shape, like.dtype)


@register_gradient("Loop")
def _loop_gradient(node, *grads):
    body = node.attrs["body"]
    trip_count, cond, *initial = node.inputs
    initial = [x if isinstance(x, Tensor) else Tensor(x) for x in initial]
    n = len(initial)
    result = [None] * len(node.inputs)
    # Every float carried value has an adjoint in the reverse loop (gradients flow between them from one
    # iteration to the one before), whichever of their initial values the caller differentiates.
    floats = [k for k, x in enumerate(initial) if _is_float(x)]
    scans = [k for k, g in enumerate(grads[n:]) if _is_float(g)]
    if not any(node.needs_input_grad[2 + k] for k in floats):
        return tuple(result)
    workspace = current_workspace()
    history_op = _cached(node.op, "history", lambda: workspace.op("Loop", {"body": _history_body(body, n)}))
    history = execute(history_op, trip_count, cond, *initial)[n:]
    trace = current_trace()
    if trace is not None:  # the stacks have one row per iteration: their shape depends on the run
        for h in history:
            trace.relax_shape(h, (None,) + h.array.shape[1:], fixed_results=True)
    count = execute("Gather", execute("Shape", history[0]), np.array(0, np.int64), axis=0)
    last = execute("Sub", count, np.array(1, np.int64))
    scan_grads = [grads[n + k] for k in scans]
    # Trace the reverse body on this run's values (on zeros if the loop did not run).
    examples = [_example_rows(h.array, x.array) for h, x in zip(history, initial)]
    examples += [_example_rows(g.array, g.array[0] if len(g.array) else np.zeros(g.array.shape[1:], g.array.dtype))
                 for g in scan_grads]
    backward_op = _cached(node.op, ("backward", tuple(floats), tuple(scans), _signature(initial)),
                          lambda: workspace.op("Loop", {"body": _backward_body(body, n, floats, scans, examples[:n],
                                                                               examples[n:])}))
    seeds = [grads[k] if grads[k] is not None else Tensor(np.zeros(initial[k].array.shape, initial[k].array.dtype))
             for k in floats]
    outputs = execute(backward_op, count, None, *seeds, *history, *scan_grads, last)
    for k, g in zip(floats, outputs):
        if node.needs_input_grad[2 + k]:
            result[2 + k] = g
    return tuple(result)
