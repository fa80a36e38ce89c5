"""Memory of a graph run: liveness and aliasing analysis, and the memory report.

The analysis numbers the ops of a graph 0..n-1 (*steps*); step ``n`` stands
for "after the run" (when outputs and state updates are fetched).  A value
is *defined* at the step of the op producing it and *read* at the steps of
the ops taking it as input.

Aliasing: the ops of :data:`ALIASING_OPS` may return a view of their first
input (docs/ENGINE.md), so their outputs share the storage of that input.
Every value has a *root*: itself, or for such an output the root of the
op's first input.  A root's storage stays in use until the last read of any
value of its *alias set* (the values with that root): its *end* step.  A
root whose alias set holds a fetched value (graph output, state update)
ends at step ``n``.

The memory passes (:mod:`~vfw.core.graph.passes.inplace`,
:mod:`~vfw.core.graph.passes.buffers`) plan with :class:`Liveness`;
:func:`memory_report` measures a planned graph and :func:`report_by_level`
compares the optimization levels of a traced function.
"""

import numpy as np

from vfw.core import dtypes as dt
from vfw.core.errors import VfwError
from vfw.core.graph.executor import PLAN_MARK, buffers_of, plan_kind, returns_tuple, value_infos
from vfw.core.registry import get_schema

ALIASING_OPS = frozenset({"Identity", "Reshape", "Squeeze", "Unsqueeze", "Flatten", "Transpose", "Slice",
                          "Split", "Expand", "Dropout"})
"""Ops whose outputs may be views of (share storage with) their first input."""

def is_planned(graph):
    """Whether a memory pass planned ``graph`` (its executor releases values after their last read)."""
    return any(arg.name == PLAN_MARK for arg in graph.arg)


def _multi_output(op_type):
    try:
        return returns_tuple(get_schema(op_type))
    except VfwError:
        return True  # unknown op: never plan its outputs


class Liveness:
    """Definition, last read, root and end step of every value of a graph.

    Parameters
    ----------
    graph : GraphDef
    keep : iterable of str, optional
        Values fetched after the run besides the graph outputs (state updates).

    Attributes
    ----------
    n : int
        Number of ops (the step after the run).
    fetched : set[str]
        Graph outputs and ``keep``.
    external : set[str]
        Graph inputs (arguments and captures) and initializers.
    defined : dict[str, int]
        Op output -> step of its op.
    last_read : dict[str, int]
        Value -> last step reading it (``n`` for fetched values).
    root : dict[str, str]
        Op output -> its root (itself unless a possible view).
    end : dict[str, int]
        Root -> last step at which its storage is read.
    members : dict[str, list[str]]
        Root -> the op outputs of its alias set.
    """

    def __init__(self, graph, keep=()):
        self.n = n = len(graph.op)
        self.infos = value_infos(graph)
        self.fetched = set(graph.output) | set(keep or ())
        self.external = set(graph.input) | {t.name for t in graph.initializer}
        self.defined, self.last_read, self.root = {}, {}, {}
        self.multi = set()  # outputs of ops returning tuples (the executor gives them no buffer)
        for step, op in enumerate(graph.op):
            for name in op.input:
                if name:
                    self.last_read[name] = step
            source = op.input[0] if op.type in ALIASING_OPS and op.input else ""
            multi = _multi_output(op.type)
            for name in op.output:
                if name:
                    self.defined[name] = step
                    self.root[name] = self.root.get(source, source) if source else name
                    if multi:
                        self.multi.add(name)
        for name in self.fetched:
            self.last_read[name] = n
        self.end, self.members = {}, {}
        for name, step in self.defined.items():
            r = self.root[name]
            self.members.setdefault(r, []).append(name)
            self.end[r] = max(self.end.get(r, step), self.last_read.get(name, step))

    def root_of(self, name):
        """The root of ``name`` (itself for graph inputs and initializers)."""
        return self.root.get(name, name)

    def nbytes(self, name):
        """Bytes of ``name``'s array, or ``None`` when its shape or dtype is unknown."""
        shape, dtype = self.infos.get(name, (None, None))
        if shape is None or dtype is None or None in shape:
            return None
        return int(np.prod(shape, dtype=np.int64)) * dtype.itemsize

    def is_intermediate(self, name):
        """A root computed by an op whose storage nothing reads after the run (it may be freed or reused)."""
        return (name in self.defined and self.root[name] == name and name not in self.external
                and self.end[name] < self.n)

    def poolable(self, name):
        """Whether ``name`` may live in a pooled buffer: an intermediate of known size, computed by a
        single-output op, of a fixed-size dtype."""
        if not self.is_intermediate(name) or name in self.multi or self.nbytes(name) is None:
            return False
        return self.infos[name][1] in dt.FIXED_SIZE

    def interval(self, name):
        """``(first, last)`` step of a root's storage."""
        return self.defined[name], self.end[name]


def _add_interval(diff, first, last, size):
    diff[first] += size
    diff[last + 1] -= size


def memory_report(graph, keep=()):
    """Intermediate memory of one run of ``graph`` as planned.

    Intermediates are the roots computed by ops that no fetched value aliases
    (views are free: they share their root's storage; graph outputs and state
    updates are not intermediates).  Values of unknown size count 0 bytes.

    Parameters
    ----------
    graph : GraphDef
        Possibly annotated by the memory passes (``buffer`` arguments).
    keep : iterable of str, optional
        Values fetched besides the graph outputs (state updates).

    Returns
    -------
    dict
        ``peak_bytes``: max over the steps of the bytes of live
        intermediates, a buffer counted once (at its pool size) while any of
        its values is live; unplanned graphs hold every intermediate from its
        definition to the end of the run (the executor's local variables keep
        them), planned ones only until their root's last read.
        ``pool_bytes``: sum of the buffer pool sizes (held by the compiled
        graph for its lifetime).  ``resident_bytes``: max over the steps of
        ``pool_bytes`` plus the live intermediates outside pools (what the
        process really holds, pools being allocated once).
        ``lower_bound_bytes``: max over the steps of the bytes of the
        intermediates live at that step (the liveness bound without sharing
        constraints; in-place updates can go below it).  ``buffers``: number
        of pools; ``intermediates``: number of intermediate roots.
    """
    live = Liveness(graph, keep)
    n = live.n
    planned = is_planned(graph)
    assigned = {}  # value -> buffer id, as the executor honours them
    offsets = {}  # value -> its byte offset in its buffer
    for op in graph.op:
        ids = buffers_of(op)
        if ids and ids[0] >= 0 and op.output and op.output[0] and op.output[0] not in live.multi:
            assigned[op.output[0]] = ids[0]
            offsets[op.output[0]] = (buffers_of(op, "buffer_offset") or [0])[0]
    pool = {}
    for name, b in assigned.items():
        pool[b] = max(pool.get(b, 0), offsets[name] + (live.nbytes(name) or 0))
    lower = np.zeros(n + 2, np.int64)
    unpooled = np.zeros(n + 2, np.int64)
    spans = {}  # buffer -> intervals of its live values
    count = 0
    for name in live.defined:
        if not live.is_intermediate(name):
            continue
        count += 1
        size = live.nbytes(name) or 0
        first, last = live.interval(name)
        _add_interval(lower, first, last, size)
        if name in assigned:
            spans.setdefault(assigned[name], []).append((first, last))
        else:
            _add_interval(unpooled, first, last if planned else n - 1, size)
    pooled = np.zeros(n + 2, np.int64)
    # Level 2's in-place chains are allocated when they start and freed after their last read;
    # level 3's buffers are pools held for the whole life of the compiled graph.
    dynamic = plan_kind(graph) == "inplace"
    for b, intervals in spans.items():
        intervals.sort()
        start, stop = intervals[0]
        for first, last in intervals[1:]:
            if first > stop:
                _add_interval(unpooled if dynamic else pooled, start, stop, pool[b])
                start = first
            stop = max(stop, last)
        _add_interval(unpooled if dynamic else pooled, start, stop, pool[b])

    lower, unpooled, pooled = (np.cumsum(a)[:n] for a in (lower, unpooled, pooled))
    pool_bytes = 0 if dynamic else sum(pool.values())

    def top(a):
        return int(a.max()) if n else 0

    return {"peak_bytes": top(pooled + unpooled), "pool_bytes": pool_bytes,
            "resident_bytes": pool_bytes + top(unpooled), "lower_bound_bytes": top(lower),
            "buffers": len(pool), "intermediates": count}


def report_by_level(fn, *args, levels=(0, 1, 2, 3), **kwargs):
    """:func:`memory_report` of a traced function at each optimization level.

    ``fn`` (a Python function of engine tensors, or a :class:`~vfw.core.graph.Function`) is traced
    once on ``args``/``kwargs``: it runs eagerly one time, its state updates included.

    Returns
    -------
    dict[int, dict]
        Level -> report.
    """
    # Imported here: the passes import this module.
    from vfw.core.graph.function import ConcreteFunction, Function
    from vfw.core.graph.passes import optimize

    if isinstance(fn, Function):
        fn = fn.fn
    concrete = ConcreteFunction(fn, args, kwargs, 0, getattr(fn, "__name__", "fn"))
    graph = concrete.raw_graph
    keep = list(graph.output) + [value for _, value in concrete.updates]
    return {level: memory_report(optimize(graph, level, keep), keep) for level in levels}
