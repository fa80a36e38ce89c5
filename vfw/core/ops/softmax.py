"""The softmax family: Softmax, LogSoftmax, Hardmax (opset 13: one axis, default -1).

Kernels subtract the maximum along the axis before exponentiating; float16 and
bfloat16 compute in float32 and round once.  Gradients are engine ops:
Softmax ``y * (g - sum(g * y))``, LogSoftmax ``g - exp(y) * sum(g)``; Hardmax
has none.
"""

import numpy as np

from vfw.core import dtypes as dt
from vfw.core.autograd import not_differentiable, register_gradient
from vfw.core.ops._common import execute, int64s, normalize_axis, require
from vfw.core.ops.activations import _mul, _widened
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
        m = _max(x, axis=a, keepdims=True)
        y = np.subtract(x, m, out=out)
        np.exp(y, out=y)
        s = _sum(y, axis=a, keepdims=True)
        return np.divide(y, s, out=y)

    return _widened(fn, scalars=False)


@_softmax_op("LogSoftmax")
def log_softmax(axis):
    """x - log(sum(exp(x))) along axis (max-subtracted)."""
    resolve = _axis_resolver("LogSoftmax", axis)

    def fn(x, out=None):
        a = resolve(x)
        if x.size == 0:
            return np.empty_like(x) if out is None else out
        m = _max(x, axis=a, keepdims=True)
        y = np.subtract(x, m, out=out)
        s = _sum(np.exp(y), axis=a, keepdims=True)
        np.log(s, out=s)
        return np.subtract(y, s, out=y)

    return _widened(fn, scalars=False)


def _sum_along(node, t):
    axis = normalize_axis(node.op.schema.op_type, node.attrs["axis"], t.array.ndim)
    return execute("ReduceSum", t, int64s([axis]), keepdims=1)


@register_gradient("Softmax")
def _softmax_grad(node, g):
    y = node.output(0)
    return (_mul(y, execute("Sub", g, _sum_along(node, _mul(g, y)))),)


@register_gradient("LogSoftmax")
def _log_softmax_grad(node, g):
    # g - softmax(x) * sum(g), with softmax(x) = exp(y): one pass instead of a second softmax.
    return (execute("Sub", g, _mul(execute("Exp", node.output(0)), _sum_along(node, g))),)


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
