"""Lowerings of engine ops that have no ONNX operator of their name, and the ops refused.

Each lowering ``rule(writer, inputs, outputs, attrs)`` writes standard nodes computing the engine
op's outputs (``inputs`` and ``outputs`` are ONNX names, ``""`` where absent) through a
:class:`~vfw.onnx_io._export.GraphWriter`.  Training forms export their inference form
(``LSTMTrain`` -> ``LSTM``): the extra outputs they keep for the backward pass are left out.
"""

import numpy as np
from onnx import defs

from vfw.core import dtypes as dt
from vfw.core.graph.executor import kernel_attrs
from vfw.onnx_io._export import UnsupportedOpError
from vfw.onnx_io._export_opset import channel_affine, normalized

_REFUSED = {
    "PyFunc": "calls Python code (a frontend's random draw such as dropout or torch.rand in training mode, a print "
              "or a callback); export the model in eval mode, without random ops or Python callbacks",
    "FractionalMaxPool": "draws random windows on every call",
    "LogCumSumExp": "has no ONNX operator that computes it stably",
    "ChannelsLastMaxPoolArgmax": "serves gradients only",
}
"""Engine ops refused, and why (besides gradient ops and those :func:`write_op` finds no ONNX operator for)."""


def write_op(writer, opdef):
    """Write one engine op as ONNX nodes (a lowering, or the ONNX operator of the same name)."""
    op_type = opdef.type
    attrs = kernel_attrs(opdef)
    inputs = [writer.name(n) for n in opdef.input]
    outputs = [writer.name(n) for n in opdef.output]
    rule = RULES.get(op_type)
    if rule is not None:
        rule(writer, inputs, outputs, attrs)
        return
    reason = _REFUSED.get(op_type)
    if reason is None and (op_type.endswith("Grad") or op_type.endswith("GradFilter") or op_type.endswith("GradGrad")):
        reason = "is a gradient op: only forward (inference) graphs export; trace the model without a backward pass"
    if reason is None and (opdef.domain or not defs.has(op_type)):
        reason = "has no ONNX operator"
    if reason is not None:
        raise UnsupportedOpError(f"ONNX export: engine op {op_type} {reason}")
    writer.emit(op_type, inputs, outputs, attrs)


def _unused(writer, op_type, outputs, what):
    if any(o and writer.is_used(o) for o in outputs):
        raise UnsupportedOpError(f"ONNX export: the {what} of {op_type} have no ONNX form (a training graph?); "
                                 "export the inference computation")


def _scalar(writer, value, like):
    return writer.const(np.asarray(value, writer.dtypes[like]))


# -- recurrent layers, lookups ----------------------------------------------------------------------
def _recurrent(op_type, n_outputs, **fixed):
    """The ONNX recurrent op, with ``hidden_size`` (which the engine infers from R and onnxruntime requires)."""
    def rule(writer, inputs, outputs, attrs):
        _unused(writer, op_type, outputs[n_outputs:], "extra outputs kept for backward")
        attrs = dict(attrs, **fixed)
        if attrs.get("hidden_size") is None:
            dims = writer.dims.get(inputs[2])
            if dims is None or dims[-1] < 0:
                raise UnsupportedOpError(f"ONNX export: {op_type} needs hidden_size or a recurrence weight of "
                                         "known shape")
            attrs["hidden_size"] = int(dims[-1])
        onnx_type = op_type.replace("Train", "")
        if not attrs.pop("layout", 0):
            writer.emit(onnx_type, inputs, outputs[:n_outputs], attrs)
            return
        # Batch-first (layout 1), which onnxruntime does not run: transposed to and from layout 0.
        inputs = list(inputs)
        inputs[0] = writer.op("Transpose", [inputs[0]], perm=[1, 0, 2])
        for k in range(5, len(inputs)):  # initial states (batch, directions, hidden); not the peepholes
            if inputs[k] and not (onnx_type == "LSTM" and k == 7):
                inputs[k] = writer.op("Transpose", [inputs[k]], perm=[1, 0, 2])
        dtype = writer.dtypes[inputs[1]]
        raw = [writer.value(f"{onnx_type}_seq_first", dtype) if o else "" for o in outputs[:n_outputs]]
        writer.emit(onnx_type, inputs, raw, attrs)
        for k, (seq_first, out) in enumerate(zip(raw, outputs)):
            if out:
                writer.emit("Transpose", [seq_first], [out], {"perm": [2, 0, 1, 3] if k == 0 else [1, 0, 2]})
    return rule


def _batch_norm(writer, inputs, outputs, attrs):
    """Inference form as it is; training form (batch statistics, which onnxruntime does not run) decomposed."""
    if not attrs.get("training_mode", 0):
        writer.emit("BatchNormalization", inputs, outputs[:1], attrs)
        return
    _unused(writer, "BatchNormalization", outputs[1:], "updated running statistics")
    x, scale, bias = inputs[:3]
    rank = writer.rank(x)
    axes = writer.const(np.asarray([0] + list(range(2, rank)), np.int64))
    y = normalized(writer, x, axes, attrs.get("epsilon", 1e-5), center=True)
    channel_affine(writer, y, scale, bias, rank, outputs[0])


def _embedding(writer, inputs, outputs, attrs):
    writer.emit("Gather", inputs, outputs, {"axis": 0})


def _embedding_bag(writer, inputs, outputs, attrs):
    """Bags reduced with ScatterND over each entry's bag number (computed from the offsets)."""
    _unused(writer, "EmbeddingBag", outputs[1:], "offset2bag, scale and max_indices outputs")
    weight, indices, offsets = inputs[:3]
    weights = inputs[3] if len(inputs) > 3 else ""
    mode = attrs.get("mode", "mean")
    dtype = writer.dtypes[weight]
    i64 = np.int64
    indices = writer.op("Cast", [indices], dtype=i64, to=dt.onnx_code(dt.int64))
    offsets = writer.op("Cast", [offsets], dtype=i64, to=dt.onnx_code(dt.int64))
    n_entries = writer.op("Shape", [indices], dtype=i64)
    positions = writer.op("Range", [writer.const(np.asarray(0, i64)), writer.op("Squeeze", [n_entries]),
                                    writer.const(np.asarray(1, i64))])
    column = writer.const(np.asarray([1], i64))
    last = attrs.get("include_last_offset", 0)
    starts = writer.op("Slice", [offsets, writer.const(np.asarray([0], i64)), writer.const(np.asarray([-1], i64))]) \
        if last else offsets
    # Bag of entry e: how many starts are <= e, minus one (-1 before the first start: none).
    started = writer.op("GreaterOrEqual", [writer.op("Unsqueeze", [positions, column]),
                                           writer.op("Unsqueeze", [starts, writer.const(np.asarray([0], i64))])],
                        dtype=np.bool_)
    bag = writer.op("Sub", [writer.op("ReduceSum", [writer.op("Cast", [started], dtype=i64, to=7), column],
                                      keepdims=0), writer.const(np.asarray(1, i64))])
    keep = writer.op("GreaterOrEqual", [bag, writer.const(np.asarray(0, i64))])
    if last:  # entries from the last offset on belong to no bag
        end = writer.op("Slice", [offsets, writer.const(np.asarray([-1], i64)),
                                  writer.const(np.asarray([np.iinfo(i64).max], i64))])
        keep = writer.op("And", [keep, writer.op("Less", [positions, end])])
    if attrs.get("padding_idx", -1) >= 0:
        keep = writer.op("And", [keep, writer.op("Not", [writer.op("Equal", [
            indices, writer.const(np.asarray(attrs["padding_idx"], i64))])])])
    bag = writer.op("Unsqueeze", [writer.op("Max", [bag, writer.const(np.asarray(0, i64))]), column])
    writer.dims[bag] = (-1, 1)  # one index per entry: older opsets add the rows without ScatterND's reduction
    rows = writer.op("Gather", [weight, indices], axis=0)
    n_bags = writer.op("Shape", [starts], dtype=i64)
    width = writer.op("Shape", [weight], dtype=i64, start=1, end=2)
    bag_shape = writer.op("Concat", [n_bags, width], axis=0)
    keep_column = writer.op("Unsqueeze", [keep, column])
    if mode == "max":
        lowest = writer.const(np.asarray(-np.inf, dtype))
        rows = writer.op("Where", [keep_column, rows, lowest])
        init = writer.op("Expand", [lowest, bag_shape])
        reduced = writer.op("ScatterND", [init, bag, rows], reduction="max")
        # Empty bags (still -inf) give zeros, as torch.
        writer.emit("Where", [writer.op("IsInf", [reduced], detect_positive=0),
                              writer.const(np.asarray(0, dtype)), reduced], outputs[:1], {})
        return
    scale = writer.op("Cast", [keep_column], dtype=dtype, to=dt.onnx_code(dtype))
    if weights:
        scale = writer.op("Mul", [scale, writer.op("Unsqueeze", [weights, column])])
    zeros = writer.op("Expand", [writer.const(np.asarray(0, dtype)), bag_shape])
    summed = writer.op("ScatterND", [zeros, bag, writer.op("Mul", [rows, scale])], reduction="add")
    if mode != "mean":
        writer.emit("Identity", [summed], outputs[:1], {})
        return
    counts = writer.op("ScatterND", [writer.op("Expand", [writer.const(np.asarray(0, dtype)), n_bags]),
                                     bag, writer.op("Squeeze", [scale, column])], reduction="add")
    counts = writer.op("Max", [counts, writer.const(np.asarray(1, dtype))])
    writer.emit("Div", [summed, writer.op("Unsqueeze", [counts, column])], outputs[:1], {})


# -- channels-last windows --------------------------------------------------------------------------
def _channels_first(writer, x):
    rank = writer.rank(x)
    return writer.op("Transpose", [x], perm=[0, rank - 1] + list(range(1, rank - 1))), rank


def _back_to_channels_last(writer, y, output, rank):
    writer.emit("Transpose", [y], [output], {"perm": [0] + list(range(2, rank)) + [1]})


def _filter_first(writer, w):
    """A channels-last filter ``(*K, C/group, M)`` as ONNX's ``(M, C/group, *K)``."""
    nd = writer.rank(w) - 2
    return writer.op("Transpose", [w], perm=[nd + 1, nd] + list(range(nd)))


def _window_attrs(attrs, *names):
    return {k: attrs[k] for k in names if attrs.get(k) is not None}


def _channels_last_conv(writer, inputs, outputs, attrs):
    x, rank = _channels_first(writer, inputs[0])
    bias = [inputs[2]] if len(inputs) > 2 and inputs[2] else []
    y = writer.op("Conv", [x, _filter_first(writer, inputs[1])] + bias,
                  **_window_attrs(attrs, "dilations", "group", "pads", "strides"))
    _back_to_channels_last(writer, y, outputs[0], rank)


def _channels_last_conv_transpose(writer, inputs, outputs, attrs):
    dy, w, input_shape = inputs
    # The output's spatial size (from the shape input, or the traced output when that is computed at run time).
    shape = writer.model.arrays.get(input_shape)
    shape = writer.dims.get(outputs[0]) if shape is None else shape
    dy_dims = writer.dims.get(dy)
    if shape is None or dy_dims is None or any(d < 0 for d in list(dy_dims[1:-1]) + list(shape[1:-1])):
        raise UnsupportedOpError("ONNX export: ChannelsLastConvTranspose (a transposed convolution) needs known "
                                 "spatial sizes of its input and output")
    nd = len(shape) - 2
    strides = list(attrs.get("strides") or [1] * nd)
    dilations = list(attrs.get("dilations") or [1] * nd)
    pads = list(attrs.get("pads") or [0] * (2 * nd))
    kernel = writer.dims[w][:nd]
    # The output size ConvTranspose gives before output_padding, and what makes up the difference.
    made = [s * (n - 1) + (k - 1) * d + 1 - pads[i] - pads[i + nd]
            for i, (s, n, k, d) in enumerate(zip(strides, dy_dims[1:-1], kernel, dilations))]
    extra = [int(want) - got for want, got in zip(shape[1:-1], made)]
    x, rank = _channels_first(writer, dy)
    y = writer.op("ConvTranspose", [x, _filter_first(writer, w)], strides=strides, dilations=dilations, pads=pads,
                  group=attrs.get("group", 1), output_padding=extra)
    _back_to_channels_last(writer, y, outputs[0], rank)


def _channels_last_pool(op_type, **fixed):
    def rule(writer, inputs, outputs, attrs):
        x, rank = _channels_first(writer, inputs[0])
        y = writer.op(op_type, [x], **_window_attrs(attrs, "dilations", "kernel_shape", "pads", "strides"), **fixed)
        _back_to_channels_last(writer, y, outputs[0], rank)
    return rule


def _adaptive_max_pool(writer, inputs, outputs, attrs):
    """MaxPool when the windows tile the input evenly, else the maxima of each window axis by axis."""
    _unused(writer, "AdaptiveMaxPool", outputs[1:], "indices")
    x, = inputs
    dims = writer.dims.get(x)
    sizes = list(attrs["output_size"])
    spatial = None if dims is None else dims[2:]
    if spatial is None or any(d < 0 for d in spatial):
        raise UnsupportedOpError("ONNX export: AdaptiveMaxPool needs known spatial dims")
    if all(n % m == 0 for n, m in zip(spatial, sizes)):
        kernel = [n // m for n, m in zip(spatial, sizes)]
        writer.emit("MaxPool", [x], outputs[:1], {"kernel_shape": kernel, "strides": kernel})
        return
    for axis, (n, m) in enumerate(zip(spatial, sizes), start=2):
        parts = []
        for i in range(m):  # torch's adaptive window i: [floor(i n / m), ceil((i + 1) n / m))
            begin, end = i * n // m, -(-(i + 1) * n // m)
            window = writer.op("Slice", [x, writer.const(np.asarray([begin], np.int64)),
                                         writer.const(np.asarray([end], np.int64)),
                                         writer.const(np.asarray([axis], np.int64))])
            parts.append(writer.op("ReduceMax", [window, writer.const(np.asarray([axis], np.int64))], keepdims=1))
        x = writer.op("Concat", parts, axis=axis)
    writer.emit("Identity", [x], outputs[:1], {})


def _im2col(writer, inputs, outputs, attrs):
    """A grouped convolution with one-hot filters: output channel ``c * K + k`` copies tap ``k`` of channel c."""
    x, = inputs
    dims = writer.dims.get(x)
    channels = None if dims is None else dims[1]
    if channels is None or channels < 0:
        raise UnsupportedOpError("ONNX export: Im2Col (unfold) needs a known channel dim")
    kernel = list(attrs["kernel_shape"])
    taps = int(np.prod(kernel))
    eye = np.eye(taps, dtype=writer.dtypes[x]).reshape([taps, 1] + kernel)
    filters = writer.const(np.tile(eye, (channels, 1) + (1,) * len(kernel)))
    y = writer.op("Conv", [x, filters], group=channels, kernel_shape=kernel,
                  **_window_attrs(attrs, "dilations", "pads", "strides"))
    writer.emit("Reshape", [y, writer.const(np.asarray([0, channels * taps, -1], np.int64))], outputs, {})


# -- elementwise math -----------------------------------------------------------------------------
def _floor_div(writer, inputs, outputs, attrs):
    a, b = inputs
    if writer.dtypes[a].kind in "iu":
        # Mod (fmod=0) takes the divisor's sign, so a - mod is an exact multiple of b.
        writer.emit("Div", [writer.op("Sub", [a, writer.op("Mod", [a, b], fmod=0)]), b], outputs, {})
        return
    # Python's float floor division: from fmod, corrected by one where the signs differ, then rounded.
    mod = writer.op("Mod", [a, b], fmod=1)
    quotient = writer.op("Div", [writer.op("Sub", [a, mod]), b])
    zero = _scalar(writer, 0, a)
    signs_differ = writer.op("Xor", [writer.op("Less", [b, zero]),
                                     writer.op("Less", [mod, zero])])
    fix = writer.op("And", [writer.op("Not", [writer.op("Equal", [mod, zero])]), signs_differ])
    quotient = writer.op("Where", [fix, writer.op("Sub", [quotient, _scalar(writer, 1, a)]), quotient])
    floor = writer.op("Floor", [quotient])
    up = writer.op("Greater", [writer.op("Sub", [quotient, floor]), _scalar(writer, 0.5, a)])
    result = writer.op("Where", [up, writer.op("Add", [floor, _scalar(writer, 1, a)]), floor])
    # Division by zero: a / b (inf or nan), as Python's IEEE result.
    writer.emit("Where", [writer.op("Equal", [b, zero]), writer.op("Div", [a, b]), result], outputs, {})


def _trunc(writer, inputs, outputs, attrs):
    x, = inputs
    negative = writer.op("Less", [x, _scalar(writer, 0, x)])
    writer.emit("Where", [negative, writer.op("Ceil", [x]), writer.op("Floor", [x])], outputs, {})


def _expm1(writer, inputs, outputs, attrs):
    """Kahan's accurate expm1: ``(u - 1) * x / log(u)`` with ``u = exp(x)``; x itself where u rounds to 1."""
    x, = inputs
    u = writer.op("Exp", [x])
    one = _scalar(writer, 1, x)
    um1 = writer.op("Sub", [u, one])
    ratio = writer.op("Div", [writer.op("Mul", [um1, x]), writer.op("Log", [u])])
    general = writer.op("Where", [writer.op("IsInf", [u]), um1, ratio])
    near = writer.op("Equal", [u, one])
    general = writer.op("Where", [near, x, general])
    # exp(x) - 1 == -1: x is so negative that the result is -1 (log(u) would be -inf or u 0).
    writer.emit("Where", [writer.op("Equal", [um1, _scalar(writer, -1, x)]), um1, general],
                outputs, {})


def _accurate_log1p(writer, x, output=None):
    """Accurate log1p: ``log(u) * x / (u - 1)`` with ``u = 1 + x``; x itself where u rounds to 1."""
    one = _scalar(writer, 1, x)
    u = writer.op("Add", [x, one])
    log_u = writer.op("Log", [u])
    ratio = writer.op("Div", [writer.op("Mul", [log_u, x]), writer.op("Sub", [u, one])])
    general = writer.op("Where", [writer.op("IsInf", [u]), log_u, ratio])
    inputs = [writer.op("Equal", [u, one]), x, general]
    if output is None:
        return writer.op("Where", inputs)
    writer.emit("Where", inputs, [output], {})
    return output


def _log1p(writer, inputs, outputs, attrs):
    _accurate_log1p(writer, inputs[0], outputs[0])


def _log_base(base):
    def rule(writer, inputs, outputs, attrs):
        x, = inputs
        writer.emit("Div", [writer.op("Log", [x]), _scalar(writer, np.log(base), x)], outputs, {})
    return rule


def _erfc(writer, inputs, outputs, attrs):
    x, = inputs
    writer.emit("Sub", [_scalar(writer, 1, x), writer.op("Erf", [x])], outputs, {})


def _hypot(writer, inputs, outputs, attrs):
    """``m * sqrt(1 + (n / m)^2)`` with ``m = max(|a|, |b|)``, ``n = min``: no overflow of the squares."""
    a, b = (writer.op("Abs", [v]) for v in inputs)
    big, small = writer.op("Max", [a, b]), writer.op("Min", [a, b])
    zero = _scalar(writer, 0, big)
    ratio = writer.op("Div", [small, writer.op("Where", [writer.op("Equal", [big, zero]), _scalar(writer, 1, big),
                                                          big])])
    root = writer.op("Sqrt", [writer.op("Add", [_scalar(writer, 1, big), writer.op("Mul", [ratio, ratio])])])
    result = writer.op("Mul", [big, root])
    # An infinite side gives inf, also with a NaN on the other.
    infinite = writer.op("Or", [writer.op("IsInf", [a]), writer.op("IsInf", [b])])
    writer.emit("Where", [infinite, _scalar(writer, np.inf, big), result], outputs, {})


def _sign_bit(writer, x):
    """Whether ``x`` has its sign bit set: negative, or -0.0 (whose reciprocal is -inf)."""
    zero = _scalar(writer, 0, x)
    negative_zero = writer.op("And", [writer.op("Equal", [x, zero]),
                                      writer.op("Less", [writer.op("Reciprocal", [x]), zero])])
    return writer.op("Or", [writer.op("Less", [x, zero]), negative_zero])


def _with_sign_of(writer, magnitude, source, output=None):
    """``magnitude`` (>= 0) with the sign bit of ``source``, as a product by +-1 (onnxruntime's Where returns
    +0.0 where it selects a -0.0)."""
    factor = writer.op("Where", [_sign_bit(writer, source), _scalar(writer, -1, magnitude),
                                 _scalar(writer, 1, magnitude)])
    if output is None:
        return writer.op("Mul", [magnitude, factor])
    writer.emit("Mul", [magnitude, factor], [output], {})
    return output


def _atan2(writer, inputs, outputs, attrs):
    """The angle of ``(b, a)`` from ``atan`` of a ratio at most 1: ``r = atan(min / max)`` of the magnitudes, then
    ``pi/2 - r`` when ``|a| > |b|``, ``pi - r`` when ``b`` has its sign bit, and the sign of ``a``.  Two zeros
    give a ratio of 0, two infinities a ratio of 1 (angles 0, pi, pi/4, 3pi/4 as atan2)."""
    a, b = inputs
    ay, ax = writer.op("Abs", [a]), writer.op("Abs", [b])
    big, small = writer.op("Max", [ax, ay]), writer.op("Min", [ax, ay])
    zero, one = _scalar(writer, 0, a), _scalar(writer, 1, a)
    both_zero = writer.op("Equal", [big, zero])
    both_infinite = writer.op("And", [writer.op("IsInf", [ax]), writer.op("IsInf", [ay])])
    ratio = writer.op("Div", [small, writer.op("Where", [both_zero, one, big])])
    ratio = writer.op("Where", [both_infinite, one, ratio])
    angle = writer.op("Atan", [ratio])
    angle = writer.op("Where", [writer.op("Greater", [ay, ax]),
                                writer.op("Sub", [_scalar(writer, np.pi / 2, a), angle]), angle])
    angle = writer.op("Where", [_sign_bit(writer, b), writer.op("Sub", [_scalar(writer, np.pi, a), angle]), angle])
    _with_sign_of(writer, angle, a, outputs[0])


def _copysign(writer, inputs, outputs, attrs):
    a, b = inputs
    _with_sign_of(writer, writer.op("Abs", [a]), b, outputs[0])


def _binary_cross_entropy(writer, inputs, outputs, attrs):
    """``-(t * log(x) + (1 - t) * log1p(-x))`` with each log clamped at -100, as the engine op."""
    x, t = inputs
    one = _scalar(writer, 1, x)
    floor = _scalar(writer, -100, x)
    log_x = writer.op("Max", [writer.op("Log", [x]), floor])
    log_rest = writer.op("Max", [_accurate_log1p(writer, writer.op("Neg", [x])), floor])
    total = writer.op("Add", [writer.op("Mul", [t, log_x]), writer.op("Mul", [writer.op("Sub", [one, t]), log_rest])])
    writer.emit("Neg", [total], outputs, {})


RULES = {
    "LSTM": _recurrent("LSTM", 3),
    "GRU": _recurrent("GRU", 2),
    "RNN": _recurrent("RNN", 2),
    "LSTMTrain": _recurrent("LSTMTrain", 3),
    "GRUTrain": _recurrent("GRUTrain", 2, linear_before_reset=1),
    "BatchNormalization": _batch_norm,
    "Embedding": _embedding,
    "EmbeddingBag": _embedding_bag,
    "ChannelsLastConv": _channels_last_conv,
    "ChannelsLastConvTranspose": _channels_last_conv_transpose,
    "ChannelsLastMaxPool": _channels_last_pool("MaxPool"),
    "ChannelsLastAveragePool": _channels_last_pool("AveragePool", count_include_pad=0),
    "AdaptiveMaxPool": _adaptive_max_pool,
    "Im2Col": _im2col,
    "FloorDiv": _floor_div,
    "Trunc": _trunc,
    "Expm1": _expm1,
    "Log1p": _log1p,
    "Log2": _log_base(2),
    "Log10": _log_base(10),
    "Erfc": _erfc,
    "Hypot": _hypot,
    "Atan2": _atan2,
    "Copysign": _copysign,
    "BinaryCrossEntropy": _binary_cross_entropy,
}
"""Engine op type -> lowering to standard ONNX nodes."""
