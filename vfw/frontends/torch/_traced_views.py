"""In-place writes into views while a graph trace records (``y[:, 1].add_(1)``, ``y.select(1, 0).zero_()``).

The trace follows a write into a view through memory: the view's base takes the written values at the flat
positions of the view's elements, computed from strides for the traced sizes.  An ONNX export with dynamic axes
cannot generalize those positions.  A view made under a trace by basic indexing, ``select``, ``narrow``,
``diagonal``, ``unbind``/``split``/``chunk`` pieces or ``transpose``/``permute`` therefore remembers its parent
and how it was made (:func:`mark`, :func:`mark_op`), and a write into it (:func:`record_write`) is recorded as the
parent's new value computed by engine ops: the parent's flat positions (a ``Range`` reshaped to the parent's
``Shape``) go through the same view operation, which gives the positions the view's elements take in the parent,
and the written values are scattered there; then the view takes the written value.  Views made otherwise (reshapes,
which keep the memory order, and their chains) keep the trace's memory-based recording.
"""

from vfw.core.graph.trace import current_trace

__all__ = []

_MEMORY_ORDER_OPS = frozenset({"Reshape", "Squeeze", "Unsqueeze", "Expand"})
"""Views whose elements keep their parent's memory order (the trace rebinds them without positions), or that
cannot be written (expanded views)."""


def mark(view, parent, basic):
    """Remember that ``view`` is ``parent[basic]`` (a parsed basic index), for writes into it while tracing."""
    view._traced_index = (parent, basic, None)


def mark_op(view, parent, replay):
    """Remember that ``view`` is ``replay(parent)`` (``replay`` maps any tensor of ``parent``'s shape to its view
    with engine ops), for writes into it while tracing."""
    view._traced_index = (parent, replay, (view.array, parent.array))


def mark_engine_view(view, parent, bound, inputs):
    """:func:`mark_op` for a view made by one engine op (``bound`` with constant ``inputs`` after the parent)."""
    if bound.schema.op_type in _MEMORY_ORDER_OPS:
        return
    from vfw.frontends.torch._dispatch import call

    mark_op(view, parent, lambda t: call(bound, t, *inputs))


def _still_indexes(view, parent, how, arrays):
    """Whether ``view``'s memory is still exactly what ``how`` made of ``parent`` (neither was rebound since)."""
    if arrays is not None:
        return view.array is arrays[0] and parent.array is arrays[1]
    from vfw.frontends.torch._indexing import numpy_index

    try:
        expected = numpy_index(parent.array, how, [])
    except IndexError:
        return False
    got = view.array
    if expected.shape != got.shape or expected.dtype != got.dtype or \
            expected.__array_interface__["data"][0] != got.__array_interface__["data"][0]:
        return False
    # the stride of a size-1 dim (a new axis) is never used
    return all(a == b for a, b, n in zip(expected.strides, got.strides, got.shape) if n > 1)


def _apply(how, t):
    """The view ``how`` (a parsed basic index or a replay function) of ``t`` computed with engine ops."""
    if callable(how):
        return how(t)
    from vfw.frontends.torch._indexing import _engine_basic

    return _engine_basic(t, how)


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
    from vfw.frontends.torch._indexing import _broadcast_into, _traced_grid, scatter_positions

    parent, how, _ = marked
    name = "in-place write into a view"
    pos = _apply(how, _traced_grid(parent))
    value = _broadcast_into(_dispatch.cast(_dispatch.to_tensor(value), t.array.dtype), t.array.shape, name, pos)
    record_write(parent, scatter_positions(parent, pos, value, "none", name))
    # after the parent's write (which re-read this view's elements from it by their traced positions)
    trace.bind_copy(t.array, value)


def _refresh_views(trace, t):
    """Rebind the marked views of ``t`` (just written) to views of its new value made by engine ops: the trace
    re-read them by positions of the traced sizes (which an export with dynamic axes cannot generalize)."""
    from vfw.frontends.torch._dispatch import _live_aliases

    root = getattr(t, "_base", None)
    root = t if root is None else root
    for view in _live_aliases(root):
        marked = getattr(view, "_traced_index", None)
        if marked is not None and marked[0] is t and _still_indexes(view, *marked):
            trace.bind_copy(view.array, _apply(marked[1], t))
            _refresh_views(trace, view)
