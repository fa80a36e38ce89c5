"""Buffer reuse (O3): intermediates whose lifetimes do not overlap share a byte pool.

Every intermediate that may live in a pool (see
:meth:`~vfw.core.graph.memory.Liveness.poolable`: computed by a
single-output op that does not return views, of known size, not fetched and
not aliased by a fetched value) is live from the step of its op to its
root's end step: the last read of it or of any view of it (views share its
storage).  The in-place chains planned by
:func:`~vfw.core.graph.passes.inplace.plan_inplace` stay together, as one
item live from the chain's first definition to its last end.

Two placements are computed and the one needing fewer pool bytes is kept
(a pool is sized for its largest value; the executor allocates it once):

* by size: items largest first, each into the smallest pool (best fit) none
  of whose items overlaps it in time, else into a new pool;
* linear scan: items in step order; the pools whose items all ended before
  the new item starts are free; it takes the free pool that fits it most
  tightly, else grows the largest free pool, else opens a new one.

Two values share a pool only when their lifetimes are disjoint, or in place
(the op reading one for the last time writes the other), or when one is a
block of the other (a Concat's input computed in its output, see
:mod:`~vfw.core.graph.passes.concat`): a Concat, its blocks and their chains
are one item, sized for the Concat's output.

The plan is the OpDef argument ``buffer``: one entry per output, a pool id
or -1 (graph outputs, state updates, outputs of multi-output ops and of
ops that may return views, values of unknown shape); and ``buffer_offset``
(bytes into the pool, one entry per output) on the ops writing a block.
"""

import bisect
import heapq

from vfw.core.graph.executor import buffers_of
from vfw.core.graph.memory import Liveness
from vfw.core.graph.passes.concat import concat_blocks, place
from vfw.core.graph.passes.inplace import inplace_slots, mark_planned, set_buffers


def _chains(graph, live):
    """Value -> first value of its in-place chain, from the ``buffer`` ids plan_inplace wrote.

    An op output shares a chain with an input only when both carry the same id and the input may be
    overwritten by the op (re-checked, so a stale or hand-made plan cannot break liveness).
    """
    given = {}
    for op in graph.op:
        ids = buffers_of(op) or ()
        given.update((name, b) for name, b in zip(op.output, ids) if name and b >= 0)
    head = {}
    for step, op in enumerate(graph.op):
        y = op.output[0] if len(op.output) == 1 else ""
        if y not in given:
            continue
        for j in inplace_slots(op, step, live):
            x = op.input[j]
            if given.get(x) == given[y]:
                head[y] = head.get(x, x)
                break
    return head


def _linear_scan(items):
    """Place items in step order: each takes the tightest-fitting pool free at its start, else grows
    the largest free pool, else opens a new one.  Returns ``(pool of each item, pool sizes)``."""
    sizes, free, busy, pool_of = [], [], [], {}  # busy: heap of (last step, pool)
    for h, (first, last, need) in sorted(items.items(), key=lambda kv: kv[1][0]):
        while busy and busy[0][0] < first:
            free.append(heapq.heappop(busy)[1])
        fitting = [b for b in free if sizes[b] >= need]
        if fitting:
            b = min(fitting, key=lambda i: (sizes[i], i))
        elif free:
            b = max(free, key=lambda i: (sizes[i], -i))
            sizes[b] = need
        else:
            b = len(sizes)
            sizes.append(need)
        if b in free:
            free.remove(b)
        pool_of[h] = b
        heapq.heappush(busy, (last, b))
    return pool_of, sizes


def _by_size(items):
    """Place items largest first: each takes the smallest pool none of whose items it overlaps in time,
    else opens a new one (pools are never grown).  Returns ``(pool of each item, pool sizes)``."""
    sizes, firsts, lasts, pool_of = [], [], [], {}  # per pool: its items' disjoint intervals, sorted
    for h, (first, last, need) in sorted(items.items(), key=lambda kv: (-kv[1][2], kv[1][0])):
        best = None
        for b, size in enumerate(sizes):
            i = bisect.bisect_right(firsts[b], last) - 1  # the interval starting last before ``last`` ends
            if (i < 0 or lasts[b][i] < first) and (best is None or size < sizes[best]):
                best = b
        if best is None:
            best = len(sizes)
            sizes.append(need)
            firsts.append([])
            lasts.append([])
        i = bisect.bisect_right(firsts[best], last)
        firsts[best].insert(i, first)
        lasts[best].insert(i, last)
        pool_of[h] = best
    return pool_of, sizes


def plan_buffers(graph, keep):
    """Assign intermediates to shared byte pools by liveness (O3).

    Parameters
    ----------
    graph : GraphDef
        Possibly planned by :func:`~vfw.core.graph.passes.inplace.plan_inplace` (its chains are kept).
    keep : list[str]
        Values fetched after the run (graph outputs, state updates): never pooled.

    Returns
    -------
    GraphDef
        A copy with a ``buffer`` argument on every op.
    """
    out = type(graph)()
    out.CopyFrom(graph)
    live = Liveness(out, keep)
    head = _chains(out, live)
    blocks = concat_blocks(out, live, head)
    where = {name: place(name, head, blocks) for name in live.defined if live.poolable(name)}  # (item, offset)
    items = {}  # item (a chain head, or the outermost Concat holding blocks) -> [first step, last step, bytes]
    for name, (key, offset) in where.items():
        first, last = live.interval(name)
        item = items.setdefault(key, [first, last, 0])
        item[0], item[1] = min(item[0], first), max(item[1], last)
        item[2] = max(item[2], offset + live.nbytes(name))
    # Neither placement is always the smaller: keep the one needing fewer pool bytes.
    pool_of, _ = min((_by_size(items), _linear_scan(items)), key=lambda plan: sum(plan[1]))
    for op in out.op:
        placed = [where.get(name) if name else None for name in op.output]
        set_buffers(op, [-1 if p is None else pool_of[p[0]] for p in placed],
                    [0 if p is None else p[1] for p in placed])
    mark_planned(out, "buffers")
    return out
