"""Pruning (O1): drop ops, and initializers, that no fetched value depends on.

What stays:

* every op that (transitively) computes a value in ``keep`` or a graph output;
* every random op drawing from the engine generator (no ``seed`` attribute),
  and every PyFunc op (its Python function may draw from a frontend's
  generator), with what it reads: each draw advances the process-wide stream,
  so removing an unused one would change what the later random ops of the
  run, and of eager code after it, draw;
* the graph inputs, all of them, needed or not: the inputs are the calling
  convention of the compiled graph (arguments, then captures), so feeds keep
  their positions;
* the value infos of what remains.

An op with several outputs stays when one of them is needed; the names of the
others are cleared (the kernel still computes them, but nothing holds them),
so later passes see fewer live values.
"""

from vfw.core.graph.passes.cse import draws_from_engine


def prune(graph, keep):
    """Return a copy of ``graph`` with only what computes the values in ``keep``.

    Parameters
    ----------
    graph : GraphDef
        Ops in execution order (SSA).
    keep : list[str]
        Names of the values that must be computed (the graph outputs are
        always kept).

    Returns
    -------
    GraphDef
    """
    needed = set(keep) | set(graph.output)
    constants = {t.name: t for t in graph.initializer}
    kept_ops = []
    for op in reversed(graph.op):
        wanted = any(name in needed for name in op.output if name)
        if wanted or draws_from_engine(op, constants):
            kept_ops.append((op, wanted))
            needed.update(name for name in op.input if name)
    kept_ops.reverse()
    out = type(graph)()
    out.CopyFrom(graph)
    del out.op[:]
    for op, wanted in kept_ops:
        out.op.add().CopyFrom(op)
        if wanted and any(name and name not in needed for name in op.output):
            outputs = [name if name in needed else "" for name in op.output]
            while not outputs[-1]:
                outputs.pop()  # an op that is kept for a needed output keeps at least that one
            del out.op[-1].output[:]
            out.op[-1].output.extend(outputs)
    del out.initializer[:]
    out.initializer.extend(t for t in graph.initializer if t.name in needed)
    defined = set(graph.input) | needed | {name for op in out.op for name in op.output if name}
    del out.value_info[:]
    out.value_info.extend(v for v in graph.value_info if v.name in defined)
    return out
