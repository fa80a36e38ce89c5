"""The softmax family: Softmax, LogSoftmax, Hardmax (opset 13: one axis, default -1).

Kernels subtract the maximum along the axis before exponentiating; float16 and
bfloat16 compute in float32 and round once.  Along a short last axis the
maximum reduces a transposed copy, and sums along the last axis are a
matrix-vector product (:func:`axis_max`, :func:`axis_sum`).  Gradients are
the engine ops SoftmaxGrad ``y * (g - sum(g * y))`` and LogSoftmaxGrad
``g - exp(y) * sum(g)`` (``softmax_grad.py``); Hardmax has none.
"""

import numpy as np

from vfw.core import dtypes as dt
from vfw.core.autograd import not_differentiable, register_gradient
from vfw.core.ops._common import execute, int64s, normalize_axis, require, trailing_sum
from vfw.core.ops.activations import _widened
from vfw.core.registry import Attr, TensorInfo, defop


def _axis_infer(op_type):
    def infer(attrs, infos):
        shape = infos[0].shape
        if shape is not None:
            require(op_type, len(shape) >= 1, "input must have rank >= 1, got a scalar")
            normalize_axis(op_type, attrs["axis"], len(shape))
        return [TensorInfo(shape, infos[0].dtype)]

    return infer


def _axis_resolver(op_type, axis):
    """Per-rank cache of the normalized axis (kernels see few distinct ranks)."""
    cache = {}

    def resolve(x):
        a = cache.get(x.ndim)
        if a is None:
            require(op_type, x.ndim >= 1, "input must have rank >= 1, got a scalar")
            a = cache[x.ndim] = normalize_axis(op_type, axis, x.ndim)
        return a

    return resolve


# The ufunc reductions themselves: np.max / np.sum add a Python layer per call.
_max = np.maximum.reduce
_sum = np.add.reduce
# numpy reduces along a short contiguous last axis with one inner loop per row: up to this many
# classes, reducing the transposed copy over its leading axis is many times faster.
_SHORT_AXIS = 32


def axis_max(x, axis):
    """Maximum of ``x`` along ``axis``, kept as a size-1 dim (NaN propagates); the axis is not empty."""
    if axis == x.ndim - 1 and x.shape[-1] <= _SHORT_AXIS:
        columns = np.ascontiguousarray(x.reshape(-1, x.shape[-1]).T)
        return _max(columns, axis=0).reshape(x.shape[:-1] + (1,))
    return _max(x, axis=axis, keepdims=True)


def axis_sum(x, axis):
    """Sum of ``x`` along ``axis``, kept as a size-1 dim: along the last axis a matrix-vector product with ones
    (``trailing_sum``, at any width: several times faster than numpy's per-row reduction for short rows, still
    faster for long ones)."""
    total = trailing_sum(x, axis, keepdims=True, max_width=None) if axis == x.ndim - 1 else None
    return _sum(x, axis=axis, keepdims=True) if total is None else total


def _softmax_op(name):
    return defop(name, inputs="input:T", outputs="output:T", types={"T": dt.FLOATS},
                 attrs={"axis": Attr("int", -1)}, infer=_axis_infer(name))


@_softmax_op("Softmax")
def softmax(axis):
    """exp(x) / sum(exp(x)) along axis (max-subtracted)."""
    resolve = _axis_resolver("Softmax", axis)

    def fn(x, out=None):
        a = resolve(x)
        if x.size == 0:
            return np.empty_like(x) if out is None else out
        y = np.subtract(x, axis_max(x, a), out=out)
        np.exp(y, out=y)
        scale = axis_sum(y, a)
        np.reciprocal(scale, out=scale)  # one division per row, then products (as torch's kernel)
        return np.multiply(y, scale, out=y)

    return _widened(fn, scalars=False)


@_softmax_op("LogSoftmax")
def log_softmax(axis):
    """x - log(sum(exp(x))) along axis (max-subtracted)."""
    resolve = _axis_resolver("LogSoftmax", axis)

    def fn(x, out=None):
        a = resolve(x)
        if x.size == 0:
            return np.empty_like(x) if out is None else out
        y = np.subtract(x, axis_max(x, a), out=out)
        s = axis_sum(np.exp(y), a)
        np.log(s, out=s)
        return np.subtract(y, s, out=y)

    return _widened(fn, scalars=False)


def _sum_along(node, t):
    axis = normalize_axis(node.op.schema.op_type, node.attrs["axis"], t.array.ndim)
    return execute("ReduceSum", t, int64s([axis]), keepdims=1)


@register_gradient("Softmax")
def _softmax_grad(node, g):
    return (execute("SoftmaxGrad", g, node.output(0), axis=node.attrs["axis"]),)  # y * (g - sum(g * y))


@register_gradient("LogSoftmax")
def _log_softmax_grad(node, g):
    # g - softmax(x) * sum(g), with softmax(x) = exp(y): no second softmax.
    return (execute("LogSoftmaxGrad", g, node.output(0), axis=node.attrs["axis"]),)


@_softmax_op("Hardmax")
def hardmax(axis):
    """1 at the first maximum along axis, 0 elsewhere (NaN counts as the maximum)."""
    resolve = _axis_resolver("Hardmax", axis)

    positions = {}

    def kernel(x, out=None):
        a = resolve(x)
        if x.size == 0:
            return np.zeros_like(x) if out is None else out
        first = np.argmax(x, axis=a, keepdims=True)
        # Compare an arange along the axis with the argmax: cheaper than put_along_axis.
        key = (x.ndim, a, x.shape[a])
        at = positions.get(key)
        if at is None:
            if len(positions) > 64:
                positions.clear()
            shape = [1] * x.ndim
            shape[a] = x.shape[a]
            at = positions[key] = np.arange(x.shape[a]).reshape(shape)
        hot = np.equal(at, first)
        if out is None:
            return hot.astype(x.dtype)
        np.copyto(out, hot, casting="unsafe")
        return out

    return kernel


not_differentiable("Hardmax")  # piecewise constant; PyTorch has no hardmax to follow
