"""Fake quantization (quantization-aware training): FakeQuantizeAffine and its gradient (not ONNX ops).

``FakeQuantizeAffine(X, scale, zero_point)`` rounds ``X`` onto the grid of an affine integer type and
maps it back: ``q = clamp(round_half_even(X * (1 / scale)) + zero_point, quant_min, quant_max)``,
``Y = (q - zero_point) * scale``.  As in PyTorch's CPU kernels the reciprocal of the scale and the
product are float32 (float16/bfloat16 inputs are computed in float32; a float64 input is multiplied in float64, and
the dequantized result is float32 arithmetic cast back to the input's dtype, as torch's).  ``scale``
and ``zero_point`` hold one value (per tensor, ``axis`` unset) or one value per slice along ``axis``
(per channel).  ONNX expresses the same as QuantizeLinear followed by DequantizeLinear, whose rounding
divides by the scale instead of multiplying by its float32 reciprocal.

The gradient is the straight-through estimator: ``dY`` where the unclamped level
``round(X / scale) + zero_point`` lies in ``[quant_min, quant_max]``, zero elsewhere
(``FakeQuantizeAffineGrad``); scale and zero point get no gradient.
"""

import numpy as np

from vfw.core import dtypes as dt
from vfw.core.autograd import register_gradient
from vfw.core.errors import ShapeError
from vfw.core.ops._common import execute, normalize_axis, same_as_first
from vfw.core.registry import Attr, defop

_F32 = np.dtype(np.float32)
_FLOATS = frozenset({dt.float32, dt.float64, dt.float16, dt.bfloat16})
_ZERO_POINTS = frozenset({dt.int32, dt.int64})
_ATTRS = {"quant_min": Attr("int"), "quant_max": Attr("int"), "axis": Attr("int", None)}


def _params(op_type, param, x_shape, axis, what):
    """``param`` (scale or zero point) as float32, shaped to broadcast onto ``x_shape``."""
    if axis is None:
        if param.size != 1:
            raise ShapeError(f"{op_type}: a per-tensor {what} holds one value, got shape {param.shape}")
        return param.astype(_F32).reshape(())
    ax = normalize_axis(op_type, axis, len(x_shape))
    if param.ndim != 1 or param.shape[0] != x_shape[ax]:
        raise ShapeError(f"{op_type}: per-channel {what} must be 1-D with {x_shape[ax]} values (axis {axis} of X "
                         f"{x_shape}), got shape {param.shape}")
    return param.astype(_F32).reshape((1,) * ax + (-1,) + (1,) * (len(x_shape) - ax - 1))


def _levels(op_type, x, scale, zero_point, axis):
    """The unclamped integer levels ``round(x * (1 / scale)) + zero_point`` (float32), scale and zero point
    shaped for broadcasting."""
    scale = _params(op_type, scale, x.shape, axis, "scale")
    zero_point = _params(op_type, zero_point, x.shape, axis, "zero_point")
    compute = x.dtype if x.dtype == np.float64 else _F32
    levels = np.rint(x.astype(compute, copy=False) * (np.float32(1.0) / scale).astype(compute)).astype(_F32)
    levels += zero_point
    return levels, scale, zero_point


@defop("FakeQuantizeAffine", inputs="X:T scale:S zero_point:Z", outputs="Y:T",
       types={"T": _FLOATS, "S": {dt.float32}, "Z": _ZERO_POINTS}, attrs=_ATTRS, infer=same_as_first)
def fake_quantize_affine(quant_min, quant_max, axis):
    """``(clamp(round(X / scale) + zero_point, quant_min, quant_max) - zero_point) * scale`` (engine op)."""

    def kernel(x, scale, zero_point, out=None):
        levels, scale_b, zero_point_b = _levels("FakeQuantizeAffine", x, scale, zero_point, axis)
        np.clip(levels, quant_min, quant_max, out=levels)
        levels -= zero_point_b
        levels *= scale_b
        return levels.astype(x.dtype, copy=False)

    return kernel


@defop("FakeQuantizeAffineGrad", inputs="dY:T X:T scale:S zero_point:Z", outputs="dX:T",
       types={"T": _FLOATS, "S": {dt.float32}, "Z": _ZERO_POINTS}, attrs=_ATTRS, infer=same_as_first)
def fake_quantize_affine_grad(quant_min, quant_max, axis):
    """``dY`` where ``round(X / scale) + zero_point`` lies in ``[quant_min, quant_max]``, 0 elsewhere."""

    def kernel(dy, x, scale, zero_point, out=None):
        if dy.shape != x.shape:
            raise ShapeError(f"FakeQuantizeAffineGrad: dY {dy.shape} and X {x.shape} must have the same shape")
        levels, _, _ = _levels("FakeQuantizeAffineGrad", x, scale, zero_point, axis)
        inside = (levels >= quant_min) & (levels <= quant_max)
        return np.where(inside, dy, np.zeros((), dy.dtype))

    return kernel


@register_gradient("FakeQuantizeAffine")
def _fake_quantize_gradient(node, g):
    x, scale, zero_point = node.inputs
    return execute("FakeQuantizeAffineGrad", g, x, scale, zero_point, **node.attrs), None, None


@register_gradient("FakeQuantizeAffineGrad")
def _fake_quantize_grad_gradient(node, g):
    # Linear in dY with the same mask; piecewise constant in X (zero almost everywhere).
    _, x, scale, zero_point = node.inputs
    return execute("FakeQuantizeAffineGrad", g, x, scale, zero_point, **node.attrs), None, None, None
