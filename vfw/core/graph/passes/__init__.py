"""Graph passes: small functions ``GraphDef -> GraphDef`` and the pipeline per optimization level.

Levels (``opt_level``):

* 0: the graph as traced;
* 1: prune what the fetched values do not need, eliminate common
  subexpressions, fold ops whose inputs are all constants, and free each
  intermediate after its last read (level 0 holds them all to the end);
* 2: level 1, then move Relu gradients of max-pool gradients onto the pooled gradient, and let an op overwrite
  an input that it reads last (in place);
* 3: level 2, then assign intermediates to pooled buffers by liveness (a Concat's inputs computed straight
  into its output when they are contiguous blocks of it).
"""

from vfw.core.graph.passes.buffers import plan_buffers
from vfw.core.graph.passes.cse import eliminate_common_subexpressions
from vfw.core.graph.passes.fold import fold_constants
from vfw.core.graph.passes.inplace import mark_planned, plan_inplace
from vfw.core.graph.passes.prune import prune
from vfw.core.graph.passes.relu_pool import move_relu_grads_before_pool_grads


def release_dead_values(graph, keep):
    """Let the executor drop each intermediate after its last read (allocation stays dynamic)."""
    out = type(graph)()
    out.CopyFrom(graph)
    mark_planned(out, "release")
    return out


_O1 = (prune, eliminate_common_subexpressions, fold_constants, prune, release_dead_values)
PIPELINES = {
    0: (),
    1: _O1,
    2: _O1 + (move_relu_grads_before_pool_grads, plan_inplace),
    3: _O1 + (move_relu_grads_before_pool_grads, plan_inplace, plan_buffers),
}


def optimize(graph, level, keep=None):
    """Run the passes of ``level`` on a copy of ``graph``.

    Parameters
    ----------
    graph : GraphDef
    level : int
        0-3.
    keep : list[str], optional
        Values that must stay computed (default: the graph outputs).

    Returns
    -------
    GraphDef
    """
    out = type(graph)()
    out.CopyFrom(graph)
    keep = list(graph.output) if keep is None else list(keep)
    for run_pass in PIPELINES[level]:
        out = run_pass(out, keep=keep)
    return out
