"""Graph control flow: frontends' ``cond`` and ``while_loop`` inside a trace become ``If`` and ``Loop`` ops.

Eagerly a frontend runs Python control flow; while a function is traced the branches and the
loop body are traced into subgraphs (:func:`~vfw.core.graph.subgraph.trace_subgraph`) and
:func:`run_if` / :func:`run_loop` run the op on the traced values, which records it in the
trace: later runs of the graph take the branch and the number of iterations their own values
select.  Tensors the bodies read from outside are inputs of the op, and the captured tensors
a body writes (variables) are written with the op's results, once.
"""

from vfw.core.eager import execute
from vfw.core.graph.assign import assign
from vfw.core.graph.subgraph import merged
from vfw.core.graph.trace import current_trace
from vfw.core.workspace import current_workspace


def run_if(pred, branches, name="cond"):
    """Run an ``If`` op choosing between two traced branches.

    Parameters
    ----------
    pred : Tensor
        A bool tensor of one element.
    branches : list[Subgraph]
        The true and false branches (traced without explicit inputs), with as many outputs each.
    name : str

    Returns
    -------
    list[Tensor]
        The outputs of the branch ``pred`` selects.
    """
    graphs, captures, sources, written = merged(branches, 0, name)
    op = current_workspace().op("If", {"then_branch": graphs[0], "else_branch": graphs[1]})
    _capture_outside(captures)
    results = execute(op, pred, *sources)
    n = len(branches[0].outputs)
    for k, value in zip(written, results[n:]):
        assign(captures[k], value)
    return list(results[:n])


def run_loop(trip_count, cond, initial, body, name="while", varying=None):
    """Run a ``Loop`` op over a traced body.

    Parameters
    ----------
    trip_count : Tensor or None
        int64 scalar: the most iterations to run.
    cond : Tensor or None
        bool scalar: whether to run the first iteration.
    initial : list[Tensor]
        The carried values' initial values.
    body : Subgraph
        Traced on ``(iteration_num, cond, *carried)``, returning ``(cond, *carried)``.
    name : str
    varying : dict[int, tuple or None], optional
        Carried values whose shape may change from one iteration (and run) to the next: their dims
        (None where one may change; None for an unknown rank).  The body accepts such shapes, and
        the trace learns that the results' shapes vary (:meth:`~vfw.core.graph.trace.Trace.relax_shape`).

    Returns
    -------
    list[Tensor]
        The carried values after the last iteration.
    """
    n = len(initial)
    (graph,), captures, sources, written = merged([body], 2 + n, name, carry_all=True)
    varying = varying or {}
    if varying:
        _relax_inputs(graph, {graph.input[2 + k]: dims for k, dims in varying.items()})
    op = current_workspace().op("Loop", {"body": graph})
    _capture_outside(captures)
    results = execute(op, trip_count, cond, *initial, *sources)
    for k in written:
        assign(captures[k], results[n + k])
    trace = current_trace()
    if trace is not None:
        for k, dims in varying.items():
            trace.relax_shape(results[k], dims)
    return list(results[:n])


def _capture_outside(captures):
    """Let the enclosing trace read the captures from the tensors the bodies captured (a variable's storage,
    which assigns rebind), before the op's inputs (maybe a watched read of it, holding the same array) name them."""
    trace = current_trace()
    if trace is not None:
        for t in captures:
            trace.name_of(t)


def _relax_inputs(graph, dims_of):
    """Mark the dims that may change as unknown in the value infos of the graph inputs ``dims_of`` names."""
    for vi in graph.value_info:
        if vi.name not in dims_of:
            continue
        dims = dims_of[vi.name]
        rank = len(vi.dims)
        del vi.dims[:]
        vi.dims.extend([-1] * rank if dims is None else [-1 if d is None else d for d in dims])
