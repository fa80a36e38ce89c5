"""RMSNormalization (ONNX opset 23): ``X / sqrt(mean(X^2 over axes [axis, rank)) + epsilon) * scale``.

As the other normalizations, it computes in float64 when an input is float64 and in float32 otherwise
(float16/bfloat16 inputs are widened and the result rounded once, to scale's dtype V as the spec says).
"""

import math

import numpy as np

from vfw.core import dtypes as dt
from vfw.core.autograd import register_gradient
from vfw.core.ops._common import array_of, cast_to, execute, in_dtype, int64s, normalize_axis, require, unbroadcast
from vfw.core.ops.normalization import _check_unidirectional, _compute_dtype, _finish, _grad_dtype, _k, _mean_t
from vfw.core.registry import Attr, TensorInfo, defop

_OP = "RMSNormalization"


def _infer(attrs, infos):
    return [TensorInfo(infos[0].shape, infos[1].dtype)]


def _split(x_shape, axis):
    """``(axis, rows, n)``: the normalized axes start at ``axis``; ``rows`` slices of ``n`` values each."""
    require(_OP, len(x_shape) >= 1, f"X must have rank >= 1, got shape {tuple(x_shape)}")
    ax = normalize_axis(_OP, axis, len(x_shape))
    return ax, math.prod(x_shape[:ax]), math.prod(x_shape[ax:])


@defop(_OP, inputs="X:T scale:V", outputs="Y:V", types={"T": dt.FLOATS, "V": dt.FLOATS},
       attrs={"axis": Attr("int", -1), "epsilon": Attr("float", 1e-5), "stash_type": Attr("int", 1, choices=(1,))},
       infer=_infer)
def rms_normalization(axis, epsilon, stash_type):
    """Divide by the root mean square over axes [axis, rank) (plus epsilon under the root), then scale.

    ``scale`` must broadcast to X's shape without changing it (unidirectional broadcasting).
    """

    def kernel(x, scale, out=None):
        _, rows, n = _split(x.shape, axis)
        _check_unidirectional(_OP, "scale", scale, x)
        cdt = _compute_dtype(x, scale)
        flat = in_dtype(x, cdt).reshape(rows, n)
        inv = np.einsum("ij,ij->i", flat, flat)  # sum of squares without a temporary array
        inv /= n
        inv += epsilon
        np.sqrt(inv, out=inv)
        np.divide(1.0, inv, out=inv)
        y = (flat * inv[:, None]).reshape(x.shape)
        y *= in_dtype(scale, cdt)
        return _finish(y, scale.dtype, out)

    return kernel


@register_gradient(_OP)
def _rms_norm_grad(node, gy):
    """With ``r = 1 / sqrt(mean(x^2) + eps)`` and ``gs = dY * scale``:
    ``dX = r * (gs - x * r^2 * mean(gs * x))`` and ``dscale = dY * x * r`` summed over broadcast dims."""
    x, scale = node.inputs
    need_x, need_scale = node.needs_input_grad
    x_shape = array_of(x).shape
    ax, _, n = _split(x_shape, node.attrs["axis"])
    cdt = _grad_dtype(x, scale)
    axes, inv_n = int64s(tuple(range(ax, len(x_shape)))), _k(1.0 / n if n else 0.0, cdt)
    xs, g = cast_to(x, cdt), cast_to(gy, cdt)
    mean_square = _mean_t(execute("Mul", xs, xs), axes, inv_n)
    r = execute("Div", _k(1.0, cdt), execute("Sqrt", execute("Add", mean_square, _k(node.attrs["epsilon"], cdt))))
    grads = [None, None]
    if need_x:
        gs = execute("Mul", g, cast_to(scale, cdt))
        proj = execute("Mul", _mean_t(execute("Mul", gs, xs), axes, inv_n), execute("Mul", r, r))
        dx = execute("Mul", execute("Sub", gs, execute("Mul", xs, proj)), r)
        grads[0] = cast_to(dx, array_of(x).dtype)
    if need_scale:
        grads[1] = cast_to(unbroadcast(execute("Mul", g, execute("Mul", xs, r)), array_of(scale).shape),
                           array_of(scale).dtype)
    return tuple(grads)

