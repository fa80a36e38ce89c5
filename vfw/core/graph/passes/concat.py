"""Concat into preallocated blocks (O3): the inputs of a Concat are computed straight into its output.

A Concat whose output ``C`` may live in a pool (see
:meth:`~vfw.core.graph.memory.Liveness.poolable`), of known shape, whose dims
before the axis are all 1 (a batch of one, concatenated along channels: each
input is then one contiguous block of ``C``), takes each input ``x`` as a
block of its own buffer when

* ``x`` may live in a pool too (an intermediate of known size computed by a
  single-output op: not a graph input, constant, output or view), and
* the Concat reads ``x`` (and every view of it) for the last time, so no op
  reads ``x`` after ``C`` exists (an in-place update of ``C``, or a Concat
  placing ``C`` in a larger one, cannot change a value still to be read), and
* ``x`` is not already a block of another Concat (its first occurrence only).

``x``'s whole in-place chain (the ``Relu`` over a ``Conv``'s output) moves
with it.  The buffer pass then places ``C`` and all its blocks as one item,
live from the first block's definition to the end of ``C`` (or of the larger
Concat holding ``C``: blocks nest), so no other value shares those bytes
meanwhile.  The executor hands each block's producer a view of the block as
``out=`` and runs the Concat as :class:`~vfw.core.graph.executor.ConcatIntoBlocks`,
which copies only the inputs not already in place.
"""

import numpy as np

from vfw.core.ir import opdef_attrs


def concat_blocks(graph, live, head):
    """Where the memory plan may put Concat inputs: in-place chain head -> ``(Concat output, byte offset)``.

    Parameters
    ----------
    graph : GraphDef
    live : Liveness
    head : dict[str, str]
        Value -> first value of its in-place chain (values outside chains are their own heads).

    Returns
    -------
    dict[str, tuple[str, int]]
    """
    placed = {}
    for step, op in enumerate(graph.op):
        if op.type != "Concat" or len(op.output) != 1 or not live.poolable(op.output[0]):
            continue
        shape = live.infos[op.output[0]][0]
        axis = opdef_attrs(op).get("axis", 0)
        axis = axis + len(shape) if axis < 0 else axis
        if not 0 <= axis < len(shape) or np.prod(shape[:axis], dtype=np.int64) != 1:
            continue
        offset = 0
        for x in op.input:
            size = live.nbytes(x) if x else None
            if size is None:
                break  # the blocks after it have unknown offsets
            key = head.get(x, x)
            if live.poolable(x) and live.end[x] == step and key not in placed:
                placed[key] = (op.output[0], offset)
            offset += size
    return placed


def place(name, head, placed):
    """``(item, byte offset)``: the outermost value whose buffer holds ``name`` (through nested Concats and
    in-place chains: the head of that value's chain) and ``name``'s offset in it."""
    key, offset = head.get(name, name), 0
    while key in placed:
        host, at = placed[key]
        key, offset = head.get(host, host), offset + at
    return key, offset
