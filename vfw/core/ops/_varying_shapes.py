"""Shapes for gradient makers that follow each run of a traced graph.

Gradient makers compute with the shapes of the values they differentiate (an ``Expand`` back to
the input's shape, a mean's element count).  Eagerly and for most traced values those shapes are
the same on every run, and makers use them as constants.  A value whose shape follows run-time
values inside a traced graph (:meth:`~vfw.core.graph.trace.Trace.shape_varies`) needs them
computed by the graph (``Shape`` and friends): these helpers give either, so that a maker is
written once.
"""

import numpy as np

from vfw.core.graph.trace import _active as _tracing
from vfw.core.graph.trace import current_trace
from vfw.core.ops._common import array_of, execute, int64s
from vfw.core.tensor import Tensor

_INT64 = np.dtype(np.int64)


def shape_varies(t):
    """Whether the shape of ``t`` (a tensor or array) may change from one run of the graph being traced to the
    next (False eagerly)."""
    if not _tracing:
        return False
    trace = current_trace()
    if trace is None:
        return False
    name = trace._arrays.get(id(array_of(t)))
    if name is None:
        return False
    trace._scan()
    return name in trace._shape_varying


def shape_input(t):
    """The shape of ``t`` as a 1-D int64 input: a ``Shape`` op when it varies, else a constant."""
    return execute("Shape", t) if shape_varies(t) else int64s(array_of(t).shape)


def kept_shape_input(t, axes):
    """The shape of ``t`` with ``axes`` (None: all) set to 1, computed by the graph (for a ``t`` whose shape
    varies)."""
    rank = array_of(t).ndim
    reduced = np.ones(rank, bool) if axes is None else np.isin(np.arange(rank), axes)
    return execute("Where", reduced, np.ones((), _INT64), execute("Shape", t))


def count_input(t, axes, dtype):
    """The number of elements of ``t`` along ``axes`` (None: all) as a ``dtype`` scalar computed by the graph."""
    sizes = execute("Shape", t)
    if axes is not None:
        sizes = execute("Gather", sizes, int64s(tuple(axes)), axis=0)
    return execute("Cast", execute("ReduceProd", sizes, keepdims=0), to=dtype)


def value_varies(t):
    """Whether the value of ``t`` (a tensor or an array, or None) may change from one run of the graph being traced
    to the next (False eagerly, for None and for a constant the op was recorded with)."""
    if not _tracing or t is None:
        return False
    trace = current_trace()
    if trace is None or id(array_of(t)) not in trace._arrays:  # (not a value of the graph: a constant of the op)
        return False
    return trace.varies(t if isinstance(t, Tensor) else Tensor(t))


def follows_runs(node, parameters=()):
    """Whether the gradient maker of ``node`` must compute with each run's shapes and values: in a traced graph,
    the shape of an input or output varies, or the value of one of ``parameters`` (the inputs the maker would
    read in Python: starts, pads, repeats) does."""
    if not _tracing:
        return False
    arrays = [x for x in node.inputs if x is not None] + [y for y in node._outputs if y is not None]
    return any(shape_varies(a) for a in arrays) or any(value_varies(p) for p in parameters)


def moved_elements_grad(x, g, move):
    """The gradient to ``x`` of an op whose every output element is an element of ``x`` (a slice, a gather, a
    tile, a reflecting pad), given the output's gradient ``g``, with shapes computed by the graph.

    ``move(t)`` applies the op (with the node's own other inputs, so that they follow each run) to ``t``, shaped
    like ``x``: applied to the flat position of each element of ``x``, it tells which element each output
    element came from, and ``g`` is summed into those positions.
    """
    shape = execute("Shape", x)
    size = execute("Size", x)
    positions = execute("Reshape", execute("Range", np.zeros((), _INT64), size, np.ones((), _INT64)), shape)
    taken = execute("Reshape", move(positions), int64s((-1, 1)))
    zeros = execute("Expand", np.zeros((), g.array.dtype), execute("Reshape", size, int64s((1,))))
    summed = execute("ScatterND", zeros, taken, execute("Reshape", g, int64s((-1,))), reduction="add")
    return execute("Reshape", summed, shape, allowzero=1)
