"""Torch frontend helpers for graph traces (``vfw.core.graph``) beyond the hooks of ``_dispatch``.

``replayed`` records a Python computation (a random draw from a generator, or numpy code no
engine op replaces) as a PyFunc op that runs again on every graph run, ``own_memory`` gives a
result a copy of its array that the trace knows holds the same value, ``bind_copy`` tells it that a view
a result was given holds the recorded op's value, and ``value_shaped``
marks a result whose shape depends on values.  Each costs one check of the open-trace list
when no trace records.
"""

from vfw.core.graph.trace import _active as _tracing
from vfw.core.graph.trace import current_trace
from vfw.frontends.torch._dispatch import call, op, wrap


def replayed(fn, *inputs, outputs=None):
    """The tensor of ``fn(*arrays)`` (an ndarray computed in Python, e.g. a random draw from a generator).

    Under a graph trace it is recorded as a PyFunc op, so that every run of the graph calls ``fn``
    again (drawing fresh numbers from the generator, in the order of the eager code, or computing
    from the values of that run what no engine op computes) instead of replaying the traced values as
    a constant.  ``fn`` must compute only from its arguments (the arrays of ``inputs``, tensors) and
    state it reads when called (a generator).  With ``outputs`` (a count), ``fn`` returns that many
    arrays and the result is a tuple of tensors.
    """
    if _tracing:
        trace = current_trace()
        if trace is not None:
            results = call(op("PyFunc", token=trace.callback(fn)), *inputs)
            return results[0] if outputs is None else results
    result = fn(*[x.array for x in inputs])
    return wrap(result) if outputs is None else tuple(wrap(r) for r in result)


def own_memory(t, copy=None):
    """Give ``t`` (a fresh result whose kernel returned a view of an input) a copy of its array (``copy``, made
    by the caller in the layout it wants, or a C-order one), as torch's copying functions (``clone``, ``flip``)
    do; an open trace is told that the copy holds ``t``'s value."""
    if copy is None:
        copy = t.array.copy()
    if _tracing:
        trace = current_trace()
        if trace is not None:
            trace.bind_copy(copy, t)
    t.array = copy
    return t


def bind_copy(array, value):
    """Tell an open trace that ``array`` (a view a result was given in place of the recorded op's output) holds
    ``value`` (that output's array), so that the graph reads the op's output, not positions of the view's strides
    baked for the traced sizes."""
    if _tracing:
        trace = current_trace()
        if trace is not None:
            trace.bind_copy(array, value)


def value_shaped(t, dims=None):
    """Tell an open trace that ``t``'s shape depends on values (a mask's number of true elements), so that graphs
    take the shape of each run: ``dims`` lists the dims that may change (all when None).

    The graph then runs at optimization level 0 (no folded shapes, no preallocated buffers), as traced.
    """
    if _tracing:
        trace = current_trace()
        if trace is not None:
            shape = t.array.shape
            trace.relax_shape(t, None if dims is None else [None if k in dims else n for k, n in enumerate(shape)])
    return t
