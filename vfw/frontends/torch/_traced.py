"""Torch frontend helpers for graph traces (``vfw.core.graph``) beyond the hooks of ``_dispatch``.

``replayed`` records a Python computation (a random draw from a generator) as a PyFunc op
that runs again on every graph run, and ``own_memory`` gives a result a copy of its array
that the trace knows holds the same value.  Each costs one check of the open-trace list
when no trace records.
"""

from vfw.core.graph.trace import _active as _tracing
from vfw.core.graph.trace import current_trace
from vfw.frontends.torch._dispatch import call, op, wrap


def replayed(fn, *inputs):
    """The tensor of ``fn(*arrays)`` (an ndarray computed in Python, e.g. a random draw from a generator).

    Under a graph trace it is recorded as a PyFunc op, so that every run of the graph calls ``fn``
    again (drawing fresh numbers from the generator, in the order of the eager code) instead of
    replaying the traced values as a constant.  ``fn`` must compute only from its arguments (the
    arrays of ``inputs``, tensors) and state it reads when called (a generator).
    """
    if _tracing:
        trace = current_trace()
        if trace is not None:
            return call(op("PyFunc", token=trace.callback(fn)), *inputs)[0]
    return wrap(fn(*[x.array for x in inputs]))


def own_memory(t):
    """Give ``t`` (a fresh result whose kernel returned a view of an input) a copy of its array, as torch's
    copying functions (``clone``, ``flip``) do; an open trace is told that the copy holds ``t``'s value."""
    copy = t.array.copy()
    if _tracing:
        trace = current_trace()
        if trace is not None:
            trace.bind_copy(copy, t)
    t.array = copy
    return t
