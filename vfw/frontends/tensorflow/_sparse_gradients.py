"""tf.IndexedSlices gradients on tapes: TF's gradient of a gather (axis 0) with respect to its params.

TF's GatherV2/ResourceGather gradient for ``params`` is an ``IndexedSlices``: the upstream gradient's
rows (one per looked-up id, duplicates NOT summed), the ids flattened, and ``params``' shape. A tape
returns it as is when every op that consumes the source on the way to the targets is such a gather;
when the source is also used otherwise TF adds everything into a dense tensor. Several gathers'
slices are concatenated (in the order the gathers ran; indices widened to int64 when their dtypes
differ), as TF aggregates them.

Here the engine differentiates with respect to the gathers' outputs instead of the source (so no
dense scatter is computed), and the slices are built from those gradients with engine ops, so a
``tf.function`` graph replays them with each call's ids.
"""

import numpy as np

from vfw.core.eager import execute
from vfw.core.registry import make_op
from vfw.frontends.tensorflow import _dispatch
from vfw.frontends.tensorflow._indexed_slices import IndexedSlices

_INT64 = np.dtype(np.int64)

ROW_GATHER = make_op("Gather", {"axis": 0})
"""The Gather of TF's row lookups (``tf.gather`` on axis 0, ``embedding_lookup``, ``sparse_read``): only gathers by
this op instance have IndexedSlices gradients (the frontend's own gathers, mirror padding or rolls, stay dense)."""


def sparse_plan(targets, groups, spans):
    """Which source tensors only feed axis-0 gathers: ``{key: [(gather node, its ids), oldest first]}``.

    The ids are taken now: a backward pass that goes through a gather for another source frees its inputs.

    Parameters
    ----------
    targets : list of engine tensors
    groups : list of lists of engine tensors
        The tensors making up each source's gradient (a variable's reads, or the tensor itself).
    spans : list of [first, last] creation numbers
        The tape's recording windows (nodes outside are not followed, as in the backward pass).
    """
    wanted = {}
    for group in groups:
        for t in group:
            wanted[tensor_key(t)] = t
    if not wanted:
        return {}
    consumers = {}
    seen = set()
    stack = [t.grad_node for t in targets]
    while stack:
        node = stack.pop()
        if node is None or node.seq in seen or not _recorded(spans, node.seq):
            continue
        seen.add(node.seq)
        for position, edge in enumerate(node.edges):
            if edge is None:
                continue
            key = id(edge[1]) if edge[0] is None else (edge[0].seq, edge[1])
            if key in wanted:
                consumers.setdefault(key, []).append((node, position))
            if edge[0] is not None:
                stack.append(edge[0])
    target_keys = {tensor_key(t) for t in targets}
    plan = {}
    for key, uses in consumers.items():
        if key not in target_keys and all(_is_row_gather(node, position) for node, position in uses):
            nodes = sorted({node.seq: node for node, _ in uses}.values(), key=lambda n: n.seq)
            plan[key] = [(node, node.inputs[1]) for node in nodes]
    return plan


def stand_ins(plan):
    """Per planned source key, the gather outputs to differentiate with respect to instead."""
    return {key: [node.output(0) for node, _ in gathers] for key, gathers in plan.items()}


def slices(gathers, output_grads, source):
    """The IndexedSlices gradient of ``source`` from the gradients of its gathers' outputs (None if none)."""
    shape = source.array.shape
    row_shape = np.array((-1,) + shape[1:], np.int64)
    values, indices = [], []
    for (_, ids), g in zip(gathers, output_grads):
        if g is None:
            continue
        values.append(execute("Reshape", g, row_shape))
        indices.append(execute("Reshape", ids, np.array([-1], np.int64)))
    if not values:
        return None
    if len({i.array.dtype for i in indices}) > 1:
        indices = [i if i.array.dtype == _INT64 else execute("Cast", i, to=_INT64) for i in indices]
    if len(values) > 1:
        values = [execute("Concat", *values, axis=0)]
        indices = [execute("Concat", *indices, axis=0)]
    dense_shape = _dispatch.wrap(np.array(shape, np.int32))
    return IndexedSlices(_dispatch.as_tf(values[0]), _dispatch.as_tf(indices[0]), dense_shape)


def combine(parts):
    """A source's gradient from its parts (one per read): TF's aggregation.

    All IndexedSlices: concatenated; any dense part: the dense sum.
    """
    parts = [p for p in parts if p is not None]
    if not parts:
        return None
    if len(parts) == 1:
        return parts[0]
    if all(isinstance(p, IndexedSlices) for p in parts):
        return slices_concat(parts)
    total = None
    for p in parts:
        p = p._as_tensor() if isinstance(p, IndexedSlices) else p
        total = p if total is None else execute("Add", total, p)
    return total


def slices_concat(parts):
    """Several IndexedSlices of one dense shape as one (values and indices concatenated)."""
    indices = [p.indices for p in parts]
    if len({i.array.dtype for i in indices}) > 1:
        indices = [i if i.array.dtype == _INT64 else execute("Cast", i, to=_INT64) for i in indices]
    values = execute("Concat", *[p.values for p in parts], axis=0)
    return IndexedSlices(_dispatch.as_tf(values), _dispatch.as_tf(execute("Concat", *indices, axis=0)),
                         parts[0].dense_shape)


def tensor_key(t):
    """The engine's key of a tensor in a backward pass: its node and slot, or its id for a leaf."""
    node = t.grad_node
    return id(t) if node is None else (node.seq, t.grad_slot)


def _recorded(spans, seq):
    return any(lo <= seq and (hi is None or seq <= hi) for lo, hi in spans)


def _is_row_gather(node, position):
    return position == 0 and node.op is ROW_GATHER and node.inputs is not None
