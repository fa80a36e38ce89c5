"""Quantized ONNX operators built from engine ops: MatMulInteger, ConvInteger, QLinearMatMul, QLinearConv.

Integer products are exact: MatMulInteger multiplies int32 matrices; ConvInteger convolves in
float64 (every sum of int8/uint8 products a convolution makes is far below 2**53) and casts back
to int32.  The QLinear ops requantize the int32 accumulator as ONNX's reference does:
``round_half_even(acc * (a_scale * b_scale / y_scale) + y_zero_point)`` in float64 (the scale ratio
computed in the scales' dtype), saturated to the output type.
"""

import numpy as np

from vfw.core.errors import DTypeError
from vfw.onnx_io._import_graph import define_outputs
from vfw.onnx_io._import_table import handler, int64s, known_shape, rank_of

_RANGES = {np.dtype(np.int8): (-128, 127), np.dtype(np.uint8): (0, 255)}


def _shifted(b, spec, value, zero_point, dtype, rows_of=None):
    """``value - zero_point`` as ``dtype``; a 1-D zero point with more than one value is per row of ``value``
    (``rows_of``: its shape is reshaped to (n, 1, ...) over that many trailing dims)."""
    shifted = b.op1("Cast", [value], spec.where, to=dtype)
    if not zero_point:
        return shifted
    zp = b.op1("Cast", [zero_point], spec.where, to=dtype)
    if rows_of:
        zp = b.op1("Reshape", [zp, int64s(b, [-1] + [1] * rows_of)], spec.where)
    return b.op1("Sub", [shifted, zp], spec.where)


def _per_row(b, spec, index):
    """Whether the zero point at input ``index`` has several values (per row / per channel)."""
    shape = known_shape(b, spec, index) if spec.input(index) else None
    return shape is not None and len(shape) == 1 and shape[0] not in (None, 1)


def _matmul_integer(b, spec, a, b_in, a_zp, b_zp, a_zp_index, outputs=1):
    """int32 ``(a - a_zp) @ (b - b_zp)``; a per-row ``a_zp`` subtracts from A's rows."""
    left = _shifted(b, spec, a, a_zp, np.int32, rows_of=1 if _per_row(b, spec, a_zp_index) else None)
    right = _shifted(b, spec, b_in, b_zp, np.int32)
    return b.op("MatMul", [left, right], outputs, spec.where)[0]


def _conv_integer(b, spec, x, w, x_zp, w_zp, w_zp_index, w_index, bias="", outputs=1):
    """int32 convolution of ``x - x_zp`` with ``w - w_zp`` (per output channel zero points) plus ``bias``."""
    rows = rank_of(b, spec, w_index) - 1 if _per_row(b, spec, w_zp_index) else None
    left = _shifted(b, spec, x, x_zp, np.float64)
    right = _shifted(b, spec, w, w_zp, np.float64, rows_of=rows)
    bias = b.op1("Cast", [bias], spec.where, to=np.float64) if bias else ""
    attrs = {k: spec.attrs[k] for k in ("auto_pad", "dilations", "group", "kernel_shape", "pads", "strides")
             if k in spec.attrs}
    y = b.op1("Conv", [left, right, bias], spec.where, **attrs)
    return b.op("Cast", [y], outputs, spec.where, to=np.int32)[0]


def _requantize(b, spec, accumulator, scales, y_scale, y_zero_point, out_dtype, channel_rank=None):
    """``saturate(round(acc * (prod(scales) / y_scale) + y_zero_point))`` into ``spec``'s output."""
    ratio = scales[0]
    for scale in scales[1:]:
        factor = scale
        if channel_rank is not None and scale is scales[-1]:  # a per-output-channel weight scale
            factor = b.op1("Reshape", [scale, int64s(b, [1, -1] + [1] * (channel_rank - 2))], spec.where)
        ratio = b.op1("Mul", [ratio, factor], spec.where)
    ratio = b.op1("Div", [ratio, y_scale], spec.where)
    value = b.op1("Mul", [b.op1("Cast", [accumulator], spec.where, to=np.float64),
                          b.op1("Cast", [ratio], spec.where, to=np.float64)], spec.where)
    if y_zero_point:
        value = b.op1("Add", [value, b.op1("Cast", [y_zero_point], spec.where, to=np.float64)], spec.where)
    low, high = _RANGES[out_dtype]
    clipped = b.op1("Clip", [b.op1("Round", [value], spec.where), b.const(np.float64(low)),
                             b.const(np.float64(high))], spec.where)
    define_outputs(b, spec)
    b.op("Cast", [clipped], spec.outputs, spec.where, to=out_dtype)


def _output_dtype(b, spec, zero_point_index, fallback_index):
    """The quantized output type: the y zero point's (or input ``fallback_index``'s) element type."""
    for index in (zero_point_index, fallback_index):
        name = spec.proto.input[index] if index < len(spec.proto.input) else ""
        value = b.constant(spec.input(index))
        if value is not None:
            dtype = value.dtype
        elif name and b.converter.type_of(name) is not None:
            elem = b.converter.type_of(name).tensor_type.elem_type
            dtype = np.dtype({2: np.uint8, 3: np.int8}.get(elem, np.float32))
        else:
            continue
        if dtype in _RANGES:
            return dtype
    raise spec.error("the output type (int8 or uint8) of the quantized result is unknown", DTypeError)


@handler("MatMulInteger")
def _matmul_integer_op(conv, b, spec):
    _matmul_integer(b, spec, spec.input(0), spec.input(1), spec.input(2), spec.input(3), 2, define_outputs(b, spec))


@handler("ConvInteger")
def _conv_integer_op(conv, b, spec):
    _conv_integer(b, spec, spec.input(0), spec.input(1), spec.input(2), spec.input(3), 3, 1,
                  outputs=define_outputs(b, spec))


@handler("QLinearMatMul")
def _qlinear_matmul(conv, b, spec):
    a, a_scale, a_zp, b_in, b_scale, b_zp, y_scale, y_zp = [spec.input(i) for i in range(8)]
    acc = _matmul_integer(b, spec, a, b_in, a_zp, b_zp, 2)
    _requantize(b, spec, acc, [a_scale, b_scale], y_scale, y_zp, _output_dtype(b, spec, 7, 0))


@handler("QLinearConv")
def _qlinear_conv(conv, b, spec):
    x, x_scale, x_zp, w, w_scale, w_zp, y_scale, y_zp = [spec.input(i) for i in range(8)]
    acc = _conv_integer(b, spec, x, w, x_zp, w_zp, 5, 3, spec.input(8))
    per_channel = _per_row(b, spec, 4)
    _requantize(b, spec, acc, [x_scale, w_scale], y_scale, y_zp, _output_dtype(b, spec, 7, 0),
                channel_rank=rank_of(b, spec, 3) if per_channel else None)
