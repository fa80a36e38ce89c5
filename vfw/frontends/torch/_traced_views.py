"""In-place writes into views while a graph trace records (``y[:, 1].add_(1)``, ``y[..., 1:3] *= -1``).

The trace follows a write into a view through memory: the view's base takes the written values at the flat
positions of the view's elements, computed from strides for the traced sizes.  An ONNX export with dynamic axes
cannot generalize those positions.  A view made by basic indexing under a trace therefore remembers its parent and
index (:func:`mark`), and a write into it (:func:`record_write`) is recorded as the parent's new value computed by
engine ops whose positions come from the parent's shape (as ``parent[key] = value`` records), then as the view's
new value.  Views made otherwise keep the trace's memory-based recording.
"""

from vfw.core.graph.trace import current_trace

__all__ = []


def mark(view, parent, basic):
    """Remember that ``view`` is ``parent[basic]`` (a parsed basic index), for writes into it while tracing."""
    view._traced_index = (parent, basic)


def _still_indexes(view, parent, basic):
    """Whether ``view``'s memory is still exactly ``parent[basic]`` (neither was rebound since)."""
    from vfw.frontends.torch._indexing import numpy_index

    try:
        expected = numpy_index(parent.array, basic, [])
    except IndexError:
        return False
    got = view.array
    if expected.shape != got.shape or expected.dtype != got.dtype or \
            expected.__array_interface__["data"][0] != got.__array_interface__["data"][0]:
        return False
    # the stride of a size-1 dim (a new axis) is never used
    return all(a == b for a, b, n in zip(expected.strides, got.strides, got.shape) if n > 1)


def record_write(t, value):
    """Tell the open trace that ``t``'s memory is about to hold ``value`` (see ``Trace.record_write``), writing a
    marked view back into its parent with positions computed from the parent's shape."""
    trace = current_trace()
    if trace is None:
        return
    marked = getattr(t, "_traced_index", None)
    if marked is None or not _still_indexes(t, *marked):
        trace.record_write(t, value)
        _refresh_views(trace, t)
        return
    from vfw.frontends.torch import _dispatch
    from vfw.frontends.torch._indexing import _broadcast_into, positions, scatter_positions

    parent, basic = marked
    name = "in-place write into a view"
    pos = positions(parent.array.shape, basic, [], like=parent)
    value = _broadcast_into(_dispatch.cast(_dispatch.to_tensor(value), t.array.dtype), t.array.shape, name, pos)
    record_write(parent, scatter_positions(parent, pos, value, "none", name))
    # after the parent's write (which re-read this view's elements from it by their traced positions)
    trace.bind_copy(t.array, value)


def _refresh_views(trace, t):
    """Rebind the marked views of ``t`` (just written) to slices of its new value: the trace re-read them by
    positions of the traced sizes (which an export with dynamic axes cannot generalize)."""
    from vfw.frontends.torch._dispatch import _live_aliases
    from vfw.frontends.torch._indexing import _engine_basic

    root = getattr(t, "_base", None)
    root = t if root is None else root
    for view in _live_aliases(root):
        marked = getattr(view, "_traced_index", None)
        if marked is not None and marked[0] is t and _still_indexes(view, *marked):
            trace.bind_copy(view.array, _engine_basic(t, marked[1]))
            _refresh_views(trace, view)
