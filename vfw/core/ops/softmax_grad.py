"""SoftmaxGrad and LogSoftmaxGrad: the backward of Softmax and LogSoftmax as one engine op each.

With ``Y`` the forward's output and sums taken along ``axis`` (kept):

* ``SoftmaxGrad(dY, Y) = Y * (dY - sum(dY * Y))``;
* ``LogSoftmaxGrad(dY, Y) = dY - exp(Y) * sum(dY)``.

One kernel instead of four ops, with ``softmax.py``'s row sums (a matrix-vector
product along the last axis).  float16 and bfloat16 compute in float32 and
round once.  Their own gradients are engine ops, so every order follows:

* SoftmaxGrad: ``d/ddY = SoftmaxGrad(G, Y)``, ``d/dY = G * (dY - sum(dY * Y)) - dY * sum(G * Y)``;
* LogSoftmaxGrad: ``d/ddY = G - sum(G * exp(Y))``, ``d/dY = -G * exp(Y) * sum(dY)``.
"""

import numpy as np

from vfw.core import dtypes as dt
from vfw.core.autograd import register_gradient
from vfw.core.errors import ShapeError
from vfw.core.ops._common import execute
from vfw.core.ops.softmax import _axis_infer, _axis_resolver, _sum_along, axis_sum
from vfw.core.registry import Attr, defop

_F32 = np.dtype(np.float32)


def _backward_op(name):
    """Register ``name`` (inputs dY, Y; attribute axis) from a factory of ``fn(dy, y, axis, out)``."""

    def wrap(compute):
        def factory(axis):
            resolve = _axis_resolver(name, axis)

            def kernel(dy, y, out=None):
                if dy.shape != y.shape:
                    raise ShapeError(f"{name}: dY {dy.shape} and Y {y.shape} must have the same shape")
                a = resolve(y)
                if dy.dtype.itemsize != 2:
                    return compute(dy, y, a, out)
                dx = compute(dy.astype(_F32), y.astype(_F32), a, None)  # half types: float32, one rounding
                if out is None:
                    return dx.astype(dy.dtype)
                np.copyto(out, dx, casting="unsafe")
                return out

            return kernel

        factory.__doc__ = compute.__doc__
        defop(name, inputs="dY:T Y:T", outputs="dX:T", types={"T": dt.FLOATS}, attrs={"axis": Attr("int", -1)},
              infer=_axis_infer(name))(factory)
        return compute

    return wrap


@_backward_op("SoftmaxGrad")
def _softmax_backward(dy, y, axis, out):
    """Softmax's backward (engine op): ``Y * (dY - sum(dY * Y, axis))``."""
    dx = np.multiply(dy, y, out=out)
    np.subtract(dy, axis_sum(dx, axis), out=dx)
    dx *= y
    return dx


@_backward_op("LogSoftmaxGrad")
def _log_softmax_backward(dy, y, axis, out):
    """LogSoftmax's backward (engine op): ``dY - exp(Y) * sum(dY, axis)``."""
    total = axis_sum(dy, axis)
    dx = np.exp(y, out=out)
    dx *= total
    return np.subtract(dy, dx, out=dx)


def _mul(a, b):
    return execute("Mul", a, b)


@register_gradient("SoftmaxGrad")
def _softmax_grad_grad(node, g):
    dy, y = node.inputs
    need_dy, need_y = node.needs_input_grad
    grad_dy = execute("SoftmaxGrad", g, y, axis=node.attrs["axis"]) if need_dy else None
    grad_y = None
    if need_y:
        centered = execute("Sub", dy, _sum_along(node, _mul(dy, y)))
        grad_y = execute("Sub", _mul(g, centered), _mul(dy, _sum_along(node, _mul(g, y))))
    return grad_dy, grad_y


@register_gradient("LogSoftmaxGrad")
def _log_softmax_grad_grad(node, g):
    dy, y = node.inputs
    need_dy, need_y = node.needs_input_grad
    g_probs = _mul(g, execute("Exp", y))
    grad_dy = execute("Sub", g, _sum_along(node, g_probs)) if need_dy else None
    grad_y = execute("Neg", _mul(g_probs, _sum_along(node, dy))) if need_y else None
    return grad_dy, grad_y
