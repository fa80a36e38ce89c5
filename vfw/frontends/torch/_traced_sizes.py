"""Values that depend on sizes, built with engine ops while a graph trace records.

Eagerly ``torch.eye(n)``, ``torch.linspace(a, b, n)``, ``repeat_interleave``'s gather indices and a diagonal's
positions are numpy arrays computed from sizes.  A trace would record such an array as a constant of the traced
example's sizes, which an ONNX export with dynamic axes cannot generalize (it rebuilds only integer sizes, ramps and
one-value fills from the inputs' shapes).  Under a trace they are therefore made by ops on the sizes instead: a size
read from a tensor is a ``Shape`` op, a size passed as a Python int is an int64 scalar constant (which the export's
dynamic-axes pass rebuilds from the inputs' shapes when it varies with them).
"""

import numpy as np

from vfw.core.graph import trace as _trace
from vfw.frontends.torch._dispatch import call, cast, op

__all__ = []

_INT64 = np.dtype(np.int64)
_ZERO, _ONE = np.zeros((), _INT64), np.ones((), _INT64)
_FIRST = np.zeros(1, _INT64)
_RANGE = op("Range")
_EQUAL, _LESS = op("Equal"), op("Less")
_ADD, _SUB, _MUL, _DIV = op("Add"), op("Sub"), op("Mul"), op("Div")
_MIN, _MAX = op("Min"), op("Max")
_WHERE = op("Where")
_UNSQUEEZE, _SQUEEZE = op("Unsqueeze"), op("Squeeze")
_RESHAPE = op("Reshape")
_CONCAT = op("Concat", axis=0)
_GATHER_LAST = op("Gather", axis=-1)


def tracing():
    """Whether a graph trace is recording on this thread."""
    return _trace.current_trace() is not None


def size(n):
    """The Python int ``n`` as an int64 scalar (a graph constant the dynamic-axes pass can rebuild)."""
    return np.array(n, _INT64)


def dim_size(t, d):
    """Dim ``d`` of tensor ``t``'s shape as an int64 scalar tensor (a ``Shape`` op under a trace)."""
    return call(_SQUEEZE, call(op("Shape", start=d, end=d + 1), t), _FIRST)


def ramp(n):
    """``0, 1, ..., n - 1`` (int64) for an int64 scalar ``n``."""
    return call(_RANGE, _ZERO, n, _ONE)


def eye(n, m, np_dtype):
    """The ``n x m`` identity matrix in ``np_dtype``: row index == column index."""
    diagonal = call(_EQUAL, call(_UNSQUEEZE, ramp(size(n)), _ONE.reshape(1)), ramp(size(m)))
    return cast(diagonal, np_dtype)


def linspace(start, end, steps, np_dtype):
    """``steps`` values from ``start`` to ``end`` computed in ``np_dtype`` (float32 or float64) as torch's kernel
    does: the first half ``start + step * i``, the rest ``end - step * (steps - 1 - i)``."""
    n = size(steps)
    i = ramp(n)
    last = call(_SUB, n, _ONE)
    # a single step gives [start]: the divisor is kept >= 1 and index 0 always counts from start
    start, end = np.array(start, np_dtype), np.array(end, np_dtype)
    step = call(_DIV, end - start, cast(call(_MAX, last, _ONE), np_dtype))
    from_start = call(_ADD, start, call(_MUL, step, cast(i, np_dtype)))
    from_end = call(_SUB, end, call(_MUL, step, cast(call(_SUB, last, i), np_dtype)))
    half = call(_MAX, call(_DIV, n, np.array(2, _INT64)), _ONE)
    return call(_WHERE, call(_LESS, i, half), from_start, from_end)


def repeat_index(x, d, count):
    """Gather indices repeating each element of ``x``'s dim ``d`` ``count`` times: ``i // count`` for ``i`` in
    ``0 .. count * size - 1``."""
    total = call(_MUL, dim_size(x, d), size(count))
    return call(_DIV, ramp(total), size(max(count, 1)))


def diagonal_gather(x, offset, perm, d1, d2):
    """The ``offset`` diagonal of dims ``d1``, ``d2`` of ``x`` (``perm`` moves them last) by a Gather at
    positions computed from ``x``'s shape."""
    row, col = (0, offset) if offset >= 0 else (-offset, 0)
    moved = x if perm == tuple(range(len(perm))) else call(op("Transpose", perm=perm), x)
    batch = call(op("Shape", end=-2), moved)
    flat = call(_RESHAPE, moved, call(_CONCAT, batch, np.array([-1], _INT64)))
    n1, n2 = dim_size(x, d1), dim_size(x, d2)
    length = call(_MAX, _ZERO, call(_MIN, call(_SUB, n1, size(row)), call(_SUB, n2, size(col))))
    first = call(_ADD, call(_MUL, size(row), n2), size(col))
    index = call(_ADD, call(_MUL, ramp(length), call(_ADD, n2, _ONE)), first)
    return call(_GATHER_LAST, flat, index)
