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
