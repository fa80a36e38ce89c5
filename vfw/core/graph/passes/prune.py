"""Pruning (O1): drop ops, and initializers, that no fetched value depends on."""


def prune(graph, keep):
    """Return a copy of ``graph`` with only what computes the values in ``keep``.

    Parameters
    ----------
    graph : GraphDef
    keep : list[str]
        Names of the values that must be computed.

    Returns
    -------
    GraphDef
    """
    needed = set(keep)
    kept_ops = []
    for op in reversed(graph.op):
        if any(name in needed for name in op.output if name):
            kept_ops.append(op)
            needed.update(name for name in op.input if name)
    kept_ops.reverse()
    out = type(graph)()
    out.CopyFrom(graph)
    del out.op[:]
    out.op.extend(kept_ops)
    del out.initializer[:]
    out.initializer.extend(t for t in graph.initializer if t.name in needed)
    produced = {name for op in kept_ops for name in op.output} | set(graph.input) | needed
    del out.value_info[:]
    out.value_info.extend(v for v in graph.value_info if v.name in produced)
    return out
