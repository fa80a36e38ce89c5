"""Relu gradients moved before max-pool gradients (O2): ``ReluGrad(MaxPoolGrad(X, Y, dY), F)`` with ``X = Relu(F)``
becomes ``MaxPoolGrad(X, Y, ReluGrad(dY, Y))``.

A max-pool gradient puts ``dY[w]`` only on positions ``p`` with ``X[p] == Y[w]`` (a maximum of window ``w``), and
there ``F[p] > 0`` exactly when ``X[p] = max(F[p], 0) > 0``, that is when ``Y[w] > 0``; so zeroing ``dY`` where the
pooled ``Y`` is not positive gives the same gradient, for any window geometry, tie rule or ``Y``.  Nan inputs get
no gradient either way (no position equals a nan maximum, and ``nan > 0`` is false), and a non-finite ``dY`` is
selected, not multiplied, by both ops.  The Relu gradient then runs over the pooled array (a quarter of ``X`` for
2x2 pooling) instead of ``X``, and the Relu's input loses its last reader there (the Relu can run in place).
"""

POOL_GRADS = frozenset({"ChannelsLastMaxPoolGrad"})
"""Max-pool gradients ``(X, Y, dY) -> dX`` whose positions receiving gradient hold their window's maximum."""


def move_relu_grads_before_pool_grads(graph, keep):
    """Return a copy of ``graph`` with each Relu gradient of a max-pool gradient of a Relu output computed on the
    pooled gradient instead (see the module docstring).

    Parameters
    ----------
    graph : GraphDef
        Ops in execution order (SSA).
    keep : list[str]
        Values that must stay computed: a pool gradient in it keeps its Relu gradient where it is.

    Returns
    -------
    GraphDef
    """
    producer = {name: op for op in graph.op for name in op.output if name}
    readers = {}
    for op in graph.op:
        for name in op.input:
            readers[name] = readers.get(name, 0) + 1
    visible = set(keep) | set(graph.output)
    rewrites = {}  # id of a pool gradient -> its Relu gradient
    for op in graph.op:
        if op.type != "ReluGrad" or len(op.input) != 2:
            continue
        pool = producer.get(op.input[0])
        if pool is None or pool.type not in POOL_GRADS or readers[pool.output[0]] != 1 or pool.output[0] in visible:
            continue
        relu = producer.get(pool.input[0])
        if relu is not None and relu.type == "Relu" and op.input[1] in (relu.input[0], relu.output[0]):
            rewrites[id(pool)] = op
    if not rewrites:
        return graph
    out = type(graph)()
    out.CopyFrom(graph)
    del out.op[:]
    moved = {id(op) for op in rewrites.values()}
    infos = {vi.name: vi for vi in graph.value_info}
    defined = set(producer) | set(graph.input) | {t.name for t in graph.initializer}
    for op in graph.op:
        if id(op) in moved:
            continue
        relu_grad = rewrites.get(id(op))
        if relu_grad is None:
            out.op.add().CopyFrom(op)
            continue
        x, y, dy = op.input
        masked = _new_name(f"{dy}/relu_masked", defined)
        _add_copy(out, relu_grad, [dy, y], [masked])
        _add_copy(out, op, [x, y, masked], [relu_grad.output[0]])
        if dy in infos:
            info = out.value_info.add()
            info.CopyFrom(infos[dy])
            info.name = masked
    gone = {rewrites[pool].input[0] for pool in rewrites}  # the pool gradients' former outputs
    kept_infos = [vi for vi in out.value_info if vi.name not in gone]
    del out.value_info[:]
    out.value_info.extend(kept_infos)
    return out


def _new_name(base, defined):
    name, n = base, 0
    while name in defined:
        n += 1
        name = f"{base}_{n}"
    defined.add(name)
    return name


def _add_copy(graph, op, inputs, outputs):
    """Append a copy of ``op`` reading ``inputs`` and writing ``outputs``."""
    new = graph.op.add()
    new.CopyFrom(op)
    del new.input[:], new.output[:]
    new.input.extend(inputs)
    new.output.extend(outputs)
