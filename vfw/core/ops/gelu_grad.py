"""GeluGrad: the backward of the exact Gelu (``approximate='none'``) as one engine op.

``GeluGrad(dY, X) = dY * (Phi(X) + X * phi(X))``, with ``Phi`` the standard
normal CDF and ``phi`` its density.  One kernel instead of the ten elementwise
ops the formula takes: ``Phi`` comes from the same erfc as Gelu's forward
(``2 Phi(x) = erfc(-x / sqrt 2)``, float32's precision for float32 and
narrower inputs), and the products are formed in float64 and rounded once.
float16 and bfloat16 work in float32 before that, as the other activations.

Its own gradient is made of engine ops, so every order follows:
``d/ddY = GeluGrad(g, X)`` and ``d/dX = g * dY * phi(X) * (2 - X**2)``.
"""

import math

import numpy as np

from vfw.core import dtypes as dt
from vfw.core.autograd import register_gradient
from vfw.core.errors import ShapeError
from vfw.core.ops._common import execute, same_as_first, scalar
from vfw.core.ops._special import erfc_scaled
from vfw.core.registry import defop

_F32 = np.dtype(np.float32)
_F64 = np.dtype(np.float64)
_SQRT_HALF = math.sqrt(0.5)
_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)  # 2 * phi(x) = sqrt(2 / pi) * exp(-x**2 / 2)
# phi(x) is 0 in float64 beyond this (exp(-800)), and x**2 stays finite in float16 below it.
_DENSITY_EDGE = 40.0


@defop("GeluGrad", inputs="dY:T X:T", outputs="dX:T", types={"T": dt.FLOATS}, infer=same_as_first)
def gelu_grad():
    """Exact Gelu's backward (engine op): ``dY * (Phi(X) + X * phi(X))``."""

    def kernel(dy, x, out=None):
        if dy.shape != x.shape:
            raise ShapeError(f"GeluGrad: dY {dy.shape} and X {x.shape} must have the same shape")
        dtype = dy.dtype
        if dtype.itemsize == 2:  # numpy has no fast half loops: widen once
            dy, x = dy.astype(_F32), x.astype(_F32)
        slope = erfc_scaled(x, -_SQRT_HALF)  # 2 Phi(x), float64
        density = x.astype(_F64)
        density *= density  # exact for float32 x
        density *= -0.5
        np.exp(density, out=density)
        density *= x
        density *= _SQRT_2_OVER_PI  # 2 x phi(x)
        slope += density
        slope *= 0.5
        slope *= dy
        if out is not None:
            np.copyto(out, slope, casting="unsafe")
            return out
        return slope.astype(dtype, copy=False)

    return kernel


@register_gradient("GeluGrad")
def _gelu_grad_grad(node, g):
    dy, x = node.inputs
    need_dy, need_x = node.needs_input_grad
    grad_dy = execute("GeluGrad", g, x) if need_dy else None
    grad_x = None
    if need_x:
        dtype = x.array.dtype
        # Clipped: phi(x) * (2 - x**2) is 0 out there, and 0 * inf (x**2 overflowing) would be nan.
        xc = execute("Clip", x, scalar(-_DENSITY_EDGE, dtype), scalar(_DENSITY_EDGE, dtype))
        square = execute("Mul", xc, xc)
        density = execute("Exp", execute("Mul", square, scalar(-0.5, dtype)))
        curvature = execute("Mul", density, execute("Sub", scalar(2.0, dtype), square))  # sqrt(2 pi) phi (2 - x^2)
        scaled = execute("Mul", curvature, scalar(_SQRT_2_OVER_PI / 2.0, dtype))
        grad_x = execute("Mul", execute("Mul", g, dy), scaled)
    return grad_dy, grad_x
