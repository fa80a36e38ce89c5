"""Linear quantization (ONNX): QuantizeLinear and DequantizeLinear to and from 8- and 16-bit integers.

``QuantizeLinear``: ``y = saturate(round_half_even(x / y_scale) + y_zero_point)``; ``DequantizeLinear``:
``y = (x - x_zero_point) * x_scale``.  The scale (and zero point, of the same shape) is per tensor
(one value), per axis (1-D, along ``axis``) or blocked (the input's rank, each value covering
``block_size`` consecutive elements along ``axis``).  The integer types are int8, uint8, int16 and
uint16 (and int32 as a dequantized input); the float8/4-bit types of newer opsets are not engine
dtypes.

The division of QuantizeLinear runs in ``precision`` when given, else in the common type of x and
the scale (as ONNX's reference evaluator; the spec names the scale's type, the same when x and the
scale share a dtype, as they do in practice).  Neither op is differentiable (rounding, integers).
"""

import numpy as np

from vfw.core import dtypes as dt
from vfw.core.autograd import not_differentiable
from vfw.core.errors import DTypeError, ShapeError
from vfw.core.ops._common import normalize_axis, require
from vfw.core.registry import Attr, TensorInfo, defop

_QUANTIZED = frozenset({dt.int8, dt.uint8, dt.int16, dt.uint16})
_SCALES = frozenset({dt.float32, dt.float16, dt.bfloat16})


def _broadcast_params(op_type, param, x_shape, axis, block_size, what):
    """``param`` (scale or zero point) reshaped or repeated so that it broadcasts onto ``x_shape``."""
    if param.size == 1 and param.ndim <= 1:
        return param.reshape(())
    ax = normalize_axis(op_type, axis, len(x_shape))
    if not block_size:
        require(op_type, param.ndim == 1 and param.shape[0] == x_shape[ax],
                f"per-axis {what} must be 1-D with {x_shape[ax]} values (axis {axis} of x {x_shape}), got shape "
                f"{param.shape}")
        return param.reshape((1,) * ax + (-1,) + (1,) * (len(x_shape) - ax - 1))
    require(op_type, block_size > 0, f"block_size must be positive, got {block_size}")
    blocks = -(-x_shape[ax] // block_size)
    expected = x_shape[:ax] + (blocks,) + x_shape[ax + 1:]
    if param.shape != expected:
        raise ShapeError(f"{op_type}: blocked {what} of x {x_shape} with block_size {block_size} on axis {axis} must "
                         f"have shape {expected}, got {param.shape}")
    return np.repeat(param, block_size, axis=ax)[(slice(None),) * ax + (slice(0, x_shape[ax]),)]


def _quantize_infer(attrs, infos):
    zero_point = infos[2] if len(infos) > 2 else None
    dtype = zero_point.dtype if zero_point is not None else (attrs["output_dtype"] or dt.uint8)
    return [TensorInfo(infos[0].shape, dtype)]


def _check_output_dtype(op_type, output_dtype, zero_point):
    if zero_point is not None:
        if output_dtype is not None and output_dtype != zero_point.dtype:
            raise DTypeError(f"{op_type}: output_dtype {dt.type_name(output_dtype)} differs from the zero point's "
                             f"dtype {dt.type_name(zero_point.dtype)}")
        return zero_point.dtype
    return output_dtype or dt.uint8


def _same_layout(zero_point, scale):
    """Whether a zero point fits its scale: the same shape, or both one element (per-tensor: onnxruntime's
    quantizer writes a bias's zero point 0-d beside a scale of shape [1], which onnxruntime runs)."""
    return zero_point.shape == scale.shape or zero_point.size == scale.size == 1


@defop("QuantizeLinear", inputs="x:T1 y_scale:T2 y_zero_point?:T3", outputs="y:T3",
       types={"T1": _SCALES | {dt.int32}, "T2": _SCALES | {dt.int32}, "T3": _QUANTIZED},
       attrs={"axis": Attr("int", 1), "block_size": Attr("int", 0), "saturate": Attr("int", 1, choices=(0, 1)),
              "output_dtype": Attr("dtype", None, check=lambda d: None if d in _QUANTIZED else
                                   "must be int8, uint8, int16 or uint16"),
              "precision": Attr("dtype", None, check=lambda d: None if d in _SCALES | {dt.int32} else
                                "must be a float type")},
       infer=_quantize_infer)
def quantize_linear(axis, block_size, saturate, output_dtype, precision):
    """``saturate(round_half_even(x / y_scale) + y_zero_point)`` in the zero point's type (uint8 by default)."""

    def kernel(x, y_scale, y_zero_point=None, out=None):
        dtype = _check_output_dtype("QuantizeLinear", output_dtype, y_zero_point)
        if y_zero_point is not None and not _same_layout(y_zero_point, y_scale):
            raise ShapeError(f"QuantizeLinear: y_zero_point {y_zero_point.shape} must have the shape of y_scale "
                             f"{y_scale.shape}")
        scale = _broadcast_params("QuantizeLinear", y_scale, x.shape, axis, block_size, "y_scale")
        if precision is not None:
            scaled = x.astype(precision) / scale.astype(precision)
        else:
            scaled = x / scale
        rounded = np.rint(scaled.astype(np.float64) if scaled.dtype != np.float64 else scaled)
        if y_zero_point is not None:
            rounded += _broadcast_params("QuantizeLinear", y_zero_point, x.shape, axis, block_size, "y_zero_point")
        info = np.iinfo(dtype)
        np.clip(rounded, info.min, info.max, out=rounded)
        return rounded.astype(dtype)

    return kernel


def _dequantize_infer(attrs, infos):
    return [TensorInfo(infos[0].shape, attrs["output_dtype"] or infos[1].dtype)]


@defop("DequantizeLinear", inputs="x:T1 x_scale:T2 x_zero_point?:T1", outputs="y:T3",
       types={"T1": _QUANTIZED | {dt.int32}, "T2": _SCALES, "T3": _SCALES},
       attrs={"axis": Attr("int", 1), "block_size": Attr("int", 0),
              "output_dtype": Attr("dtype", None, check=lambda d: None if d in _SCALES else
                                   "must be float32, float16 or bfloat16")},
       infer=_dequantize_infer)
def dequantize_linear(axis, block_size, output_dtype):
    """``(x - x_zero_point) * x_scale`` in ``output_dtype`` (default: the scale's dtype)."""

    def kernel(x, x_scale, x_zero_point=None, out=None):
        dtype = output_dtype or x_scale.dtype
        shifted = x.astype(np.int64)
        if x_zero_point is not None:
            if not _same_layout(x_zero_point, x_scale):
                raise ShapeError(f"DequantizeLinear: x_zero_point {x_zero_point.shape} must have the shape of "
                                 f"x_scale {x_scale.shape}")
            shifted -= _broadcast_params("DequantizeLinear", x_zero_point, x.shape, axis, block_size,
                                         "x_zero_point")
        scale = _broadcast_params("DequantizeLinear", x_scale, x.shape, axis, block_size, "x_scale")
        # Half-precision results are computed in float32 and rounded once (the engine's rule).
        compute = np.float32 if dtype in (dt.float16, dt.bfloat16) else dtype
        return (shifted.astype(compute) * scale.astype(compute)).astype(dtype)

    return kernel


not_differentiable("QuantizeLinear", "DequantizeLinear")
