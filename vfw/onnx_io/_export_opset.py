"""Writing newest-opset nodes for an older target opset.

The engine's ops follow the newest opset onnx defines.  For an older target:

* an operator that did not exist yet is decomposed into older ones (``GreaterOrEqual``, ``LessOrEqual``,
  ``Gelu``, ``Mish``, ``HardSwish``, ``LayerNormalization``, ``GroupNormalization``, ``RMSNormalization``) or refused,
  naming the opset it needs;
* inputs that used to be attributes go back to attributes when they are constants (the axes of
  ``Reduce*`` before opset 18, ``Split``'s ``num_outputs`` before 18), and ``Shape``'s ``start`` /
  ``end`` (opset 15) become a ``Slice`` of the whole shape; the ``axes`` of ``Resize`` and ``Pad``
  (opset 18) become scales / sizes / roi / pads over every axis;
* attributes the target does not know are dropped when they hold the newest default, and refused
  otherwise (:meth:`~vfw.onnx_io._export.GraphWriter.emit`); values an attribute could not take
  yet (``GridSample``'s mode names before 20, ``dilations`` of ``AveragePool``) are translated or refused here,
  ``Pad``'s ``wrap`` (opset 19) is decomposed into slices and concatenations; ``ScatterND`` adding rows becomes a
  one-hot ``MatMul`` before opset 16, and before opset 28 ``Mod`` of floats (Python's modulo) and
  ``SpaceToDepth`` with ``mode='CRD'`` are decomposed;
* before opset 13: ``axes`` / ``split`` inputs become attributes, the softmax family (which then flattened
  its input to 2-D) works on the last axis between transposes, and Resize gets the inputs it required;
* before opset 11 (opsets 9 and 10): :mod:`vfw.onnx_io._export_opset10`.
"""

import functools

import numpy as np
from onnx import defs

from vfw.core import dtypes as dt
from vfw.onnx_io._export import UnsupportedOpError

_REDUCE_WITH_AXES_ATTRIBUTE = frozenset({
    "ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceMax", "ReduceMean", "ReduceMin", "ReduceProd",
    "ReduceSumSquare",
})  # axes became an input at opset 18 (ReduceSum's at 13)


def _needs(op_type, what, opset, since):
    subject = f"{op_type} {what}" if what else op_type
    return UnsupportedOpError(f"ONNX export: {subject} needs opset {since} or newer (exporting for opset {opset}): "
                              f"export with opset_version >= {since}")


def _constant(writer, name, op_type, what, since=18):
    value = writer.model.arrays.get(name)
    if value is None:
        raise UnsupportedOpError(f"ONNX export: {op_type} with {what} computed at run time needs opset {since} or "
                                 f"newer (exporting for opset {writer.opset})")
    return value


def adapt(writer, op_type, schema, inputs, outputs, attrs):
    """Adapt one node to the writer's opset.

    Returns ``None`` when the node was written here (decomposed), else the ``(inputs, attrs)`` to
    write as one node.
    """
    opset = writer.opset
    if schema is None or (op_type == "GroupNormalization" and opset < 21):  # 18-20: per-group scale and bias
        decompose = DECOMPOSITIONS.get(op_type)
        if decompose is None and opset < 11:
            from vfw.onnx_io._export_opset10 import DECOMPOSITIONS as BEFORE_11

            decompose = BEFORE_11.get(op_type)
        if decompose is None:
            raise _needs(op_type, "", opset, _since(op_type))
        decompose(writer, inputs, outputs, attrs)
        return None
    inputs, attrs = list(inputs), dict(attrs)
    if op_type == "CumSum" and not attrs.get("half_steps", 0):
        attrs.pop("half_steps", None)  # the engine's TF rounding of half sums, off: ONNX's Cumsum
    if opset < 18 and op_type in _REDUCE_WITH_AXES_ATTRIBUTE and len(inputs) > 1:
        if inputs[1]:
            attrs["axes"] = [int(a) for a in _constant(writer, inputs[1], op_type, "axes").reshape(-1)]
        if attrs.pop("noop_with_empty_axes", 0) and "axes" not in attrs:
            raise _needs(op_type, "noop_with_empty_axes=1", opset, 18)
        inputs = inputs[:1]
    elif opset < 18 and op_type == "Split" and "num_outputs" in attrs:
        attrs.pop("num_outputs")
        dims = writer.dims.get(inputs[0])
        axis = attrs.get("axis", 0)
        size = None if dims is None else dims[axis]
        if size is not None and size >= 0 and size % len(outputs):
            chunk = -(-size // len(outputs))  # opset 18: equal chunks, the last one smaller
            sizes = [min(chunk, size - k * chunk) for k in range(len(outputs))]
            inputs = [inputs[0], writer.const(np.asarray(sizes, np.int64))]
    elif op_type == "Shape" and opset < 15 and ("start" in attrs or "end" in attrs):
        start, end = attrs.pop("start", 0), attrs.pop("end", None)
        whole = writer.op("Shape", inputs[:1])
        stop = np.iinfo(np.int64).max if end is None else end
        writer.emit("Slice", [whole, writer.const(np.asarray([start], np.int64)),
                              writer.const(np.asarray([stop], np.int64))], outputs, {})
        return None
    elif op_type == "Reshape" and opset < 14 and attrs.pop("allowzero", 0):
        # Before allowzero, a 0 in the shape copies the input's dim: the same unless the shape holds a 0 (a size
        # computed at run time is 0 only for empty inputs).
        shape = writer.model.arrays.get(inputs[1])
        if shape is not None and (shape == 0).any():
            raise _needs(op_type, "to a shape holding 0", opset, 14)
    elif op_type == "Resize" and opset < 18 and "axes" in attrs:
        inputs = _resize_every_axis(writer, inputs, attrs.pop("axes"))
    elif op_type == "AveragePool" and opset < 19 and "dilations" in attrs:
        if any(d != 1 for d in attrs.pop("dilations")):
            raise _needs(op_type, "with dilations", opset, 19)
    elif op_type == "GridSample" and opset < 20:
        mode = attrs.get("mode", "linear")
        if mode not in ("linear", "nearest", "cubic") or len(writer.dims.get(inputs[0]) or ()) != 4:
            raise _needs(op_type, f"mode={mode!r} or non-4-D input", opset, 20)
        attrs["mode"] = {"linear": "bilinear", "cubic": "bicubic"}.get(mode, mode)
    elif op_type == "Pad" and opset < 19:
        if attrs.get("mode") == "wrap":
            _wrap_pad(writer, inputs, outputs)
            return None
        if opset < 18 and len(inputs) > 3 and inputs[3]:
            rank = _known_rank(writer, op_type, inputs[0])
            axes = _constant(writer, inputs[3], op_type, "axes").reshape(-1)
            pads = _every_axis(writer, writer.const(np.zeros(2 * rank, np.int64)), inputs[1], axes, rank, groups=2)
            inputs = [inputs[0], pads, inputs[2]]
    elif op_type == "Mod" and opset < 28 and not attrs.get("fmod", 0) and writer.dtypes[inputs[0]].kind == "f":
        _floor_mod(writer, inputs, outputs)
        return None
    elif op_type == "SpaceToDepth" and opset < 28 and attrs.get("mode", "DCR") == "CRD":
        _space_to_depth_crd(writer, inputs[0], outputs[0], attrs["blocksize"])
        return None
    elif op_type in ("ScatterND", "ScatterElements") and attrs.get("reduction", "none") != "none":
        since = 18 if attrs["reduction"] in ("max", "min") else 16
        if opset < since and _rows_added(writer, op_type, inputs, outputs, attrs):
            return None
        if opset < since:
            raise _needs(op_type, f"reduction={attrs['reduction']!r}", opset, since)
    if opset < 13:
        adapted = _before_opset_13(writer, op_type, inputs, outputs, attrs)
        if adapted is None or opset >= 11:
            return adapted
        from vfw.onnx_io._export_opset10 import before_opset_11

        return before_opset_11(writer, op_type, adapted[0], outputs, adapted[1])
    return inputs, attrs


def _wrap_pad(writer, inputs, outputs):
    """Pad with ``mode='wrap'`` (torch's circular padding) before opset 19: along each padded axis, the input's
    last ``before`` and first ``after`` slices concatenated around it (constant, non-negative pads)."""
    x = inputs[0]
    rank = _known_rank(writer, "Pad", x)
    pads = _constant(writer, inputs[1], "Pad", "mode='wrap' and pads", since=19).reshape(-1)
    axes = (_constant(writer, inputs[3], "Pad", "mode='wrap' and axes", since=19).reshape(-1)
            if len(inputs) > 3 and inputs[3] else np.arange(rank))
    if (pads < 0).any():
        raise _needs("Pad", "mode='wrap' with negative pads", writer.opset, 19)
    i64 = np.int64
    padded = [(int(a) % rank, int(pads[k]), int(pads[k + len(axes)])) for k, a in enumerate(axes)
              if pads[k] or pads[k + len(axes)]]
    if not padded:
        writer.emit("Identity", [x], outputs, {})
        return
    for n, (axis, before, after) in enumerate(padded):
        axis_const = writer.const(np.asarray([axis], i64))
        parts = [writer.op("Slice", [x, writer.const(np.asarray([-before], i64)),
                                     writer.const(np.asarray([np.iinfo(i64).max], i64)), axis_const])] if before else []
        parts.append(x)
        if after:
            parts.append(writer.op("Slice", [x, writer.const(np.asarray([0], i64)),
                                             writer.const(np.asarray([after], i64)), axis_const]))
        if n == len(padded) - 1:
            writer.emit("Concat", parts, outputs, {"axis": axis})
        else:
            x = writer.op("Concat", parts, axis=axis)


def _floor_mod(writer, inputs, outputs):
    """Python's modulo of floats (the divisor's sign) before opset 28, where Mod's floats take ``fmod=1`` only:
    the truncated remainder, plus the divisor where their signs differ."""
    a, b = inputs
    zero = writer.const(np.asarray(0, writer.dtypes[a]))
    rem = writer.op("Mod", [a, b], fmod=1)
    signs_differ = writer.op("Xor", [writer.op("Less", [rem, zero]), writer.op("Less", [b, zero])])
    fix = writer.op("And", [writer.op("Not", [writer.op("Equal", [rem, zero])]), signs_differ])
    writer.emit("Where", [fix, writer.op("Add", [rem, b]), rem], outputs, {})


def _space_to_depth_crd(writer, x, output, block):
    """SpaceToDepth with channels first in the output (torch's pixel_unshuffle) before opset 28:
    ``(N, C, H, W) -> (N, C, H/b, b, W/b, b) -> (N, C, b, b, H/b, W/b) -> (N, C*b*b, H/b, W/b)``."""
    i64 = np.int64
    shape = writer.op("Shape", [x], dtype=i64)

    def part(start, end):
        return writer.op("Slice", [shape, writer.const(np.asarray([start], i64)), writer.const(np.asarray([end], i64))])

    blocks = writer.const(np.asarray([block], i64))
    height, width = (writer.op("Div", [part(k, k + 1), blocks]) for k in (2, 3))
    split = writer.op("Reshape", [x, writer.op("Concat", [part(0, 2), height, blocks, width, blocks], axis=0)])
    moved = writer.op("Transpose", [split], perm=[0, 1, 3, 5, 2, 4])
    target = writer.op("Concat", [part(0, 1), writer.const(np.asarray([-1], i64)), height, width], axis=0)
    writer.emit("Reshape", [moved, target], [output], {})


def _rows_added(writer, op_type, inputs, outputs, attrs):
    """``ScatterND(data, indices, updates, reduction='add')`` with one index per update row (indices ``(N, 1)``)
    as ``data + onehot(indices)^T @ updates``, for opsets before 16; ``False`` (nothing written) otherwise."""
    data, indices, updates = inputs
    dims = writer.dims.get(indices)
    if op_type != "ScatterND" or attrs["reduction"] != "add" or dims is None or len(dims) != 2 or dims[1] != 1:
        return False
    dtype = writer.dtypes[data]
    i64 = np.int64
    rows = writer.op("Shape", [data], dtype=i64, start=0, end=1)
    flat_updates = writer.op("Reshape", [updates, writer.op("Concat", [
        writer.op("Shape", [indices], dtype=i64, start=0, end=1), writer.const(np.asarray([-1], i64))], axis=0)])
    one_hot = writer.op("OneHot", [writer.op("Squeeze", [indices, writer.const(np.asarray([1], i64))]),
                                   writer.op("Squeeze", [rows]), writer.const(np.asarray([0, 1], dtype))],
                        dtype=dtype, axis=-1)
    gathered = writer.op("MatMul", [writer.op("Transpose", [one_hot], perm=[1, 0]), flat_updates])
    writer.emit("Add", [data, writer.op("Reshape", [gathered, writer.op("Shape", [data], dtype=i64)])], outputs, {})
    return True


_AXES_INPUT_SINCE_13 = {"ReduceSum": 1, "Squeeze": 1, "Unsqueeze": 1, "Split": 1}
"""Ops whose ``axes`` (``split`` for Split) input was an attribute before opset 13: the input's position."""

_LAST_AXIS_BEFORE_13 = frozenset({"Softmax", "LogSoftmax", "Hardmax"})
"""Ops that flattened their input to 2-D at ``axis`` before opset 13 (the same as opset 13's for the last axis)."""


def _before_opset_13(writer, op_type, inputs, outputs, attrs):
    """Opsets 11 and 12: attributes that became inputs at 13, the softmax family's 2-D semantics, and the inputs
    Resize required (empty ``roi`` / ``scales`` tensors where they are left out)."""
    position = _AXES_INPUT_SINCE_13.get(op_type)
    if position is not None and len(inputs) > position:
        if inputs[position]:
            name = "split" if op_type == "Split" else "axes"
            values = _constant(writer, inputs[position], op_type, name, since=13).reshape(-1)
            attrs[name] = [int(v) for v in values]
        if op_type == "ReduceSum" and attrs.pop("noop_with_empty_axes", 0) and "axes" not in attrs:
            raise _needs(op_type, "noop_with_empty_axes=1", writer.opset, 13)
        inputs = inputs[:position]
    elif op_type in _LAST_AXIS_BEFORE_13:
        axis = attrs.get("axis", -1)  # given explicitly: the default was 1 before opset 13
        if axis == -1 or axis >= (rank := _known_rank(writer, op_type, inputs[0], f"on axis {axis}", 13)) - 1:
            return inputs, dict(attrs, axis=-1)  # the last axis (or a scalar)
        axis %= rank
        # Move the axis last, apply, move it back.
        order = [d for d in range(rank) if d != axis] + [axis]
        moved = writer.op("Transpose", inputs[:1], perm=order)
        writer.dims[moved] = tuple(writer.dims[inputs[0]][d] for d in order)  # the rank, for opsets before 11
        result = writer.op(op_type, [moved], axis=-1)
        writer.emit("Transpose", [result], outputs, {"perm": list(np.argsort(order))})
        return None
    elif op_type == "Resize":
        inputs = (list(inputs) + [""] * 3)[:4]
        empty = writer.const(np.zeros(0, np.float32))
        inputs[1] = inputs[1] or empty
        inputs[2] = inputs[2] or empty
        if not inputs[3]:
            inputs = inputs[:3]
    return inputs, attrs


def _every_axis(writer, defaults, given, axes, rank, groups=1):
    """``given``, the values of an input per axis of ``axes`` only, extended to every axis of a rank-``rank`` input.

    Both hold ``groups`` consecutive runs (``[starts..., ends...]`` for pads and roi): ``defaults`` one entry per
    axis in each run (what the axes left out take), ``given`` one per axis of ``axes``.  One ``Gather`` of their
    concatenation picks each entry, so values computed at run time (sizes from a dynamic shape) extend as well as
    constants.
    """
    axes = [a % rank for a in axes]
    positions = [groups * rank + g * len(axes) + axes.index(i) if i in axes else g * rank + i
                 for g in range(groups) for i in range(rank)]
    known = [writer.model.arrays.get(defaults), writer.model.arrays.get(given)]
    if all(v is not None for v in known):  # constants stay constants (older opsets need them as attributes)
        return writer.const(np.concatenate([v.reshape(-1) for v in known])[positions])
    table = writer.op("Concat", [defaults, given], axis=0)
    return writer.op("Gather", [table, writer.const(np.asarray(positions, np.int64))], axis=0)


def _known_rank(writer, op_type, x, what="with axes", since=18):
    rank = writer.rank(x)
    if rank is None:
        raise _needs(op_type, f"{what} of an input of unknown rank", writer.opset, since)
    return rank


def _resize_every_axis(writer, inputs, axes):
    """Resize's ``roi`` / ``scales`` / ``sizes`` over every axis: the axes left out keep their extent and size."""
    x = inputs[0]
    rank = _known_rank(writer, "Resize", x)
    roi, scales, sizes = (list(inputs[1:]) + [""] * 3)[:3]
    if writer.opset < 11 and sizes:  # only scales before opset 11
        from vfw.onnx_io._export_opset10 import scales_for_sizes

        scales, sizes = scales_for_sizes(writer, x, sizes, axes), ""
    if roi:
        bounds = np.concatenate([np.zeros(rank), np.ones(rank)]).astype(writer.dtypes[roi])
        roi = _every_axis(writer, writer.const(bounds), roi, axes, rank, groups=2)
    if scales:
        scales = _every_axis(writer, writer.const(np.ones(rank, writer.dtypes[scales])), scales, axes, rank)
    if sizes:
        sizes = _every_axis(writer, writer.op("Shape", [x]), sizes, axes, rank)
    return [x, roi, scales, sizes]


@functools.cache
def _since(op_type):
    """The opset that introduced ``op_type``."""
    return min(s.since_version for s in defs.get_all_schemas_with_history() if s.name == op_type and not s.domain)


# -- decompositions of ops newer than the target opset -----------------------------------------------
def _axes_from(writer, axis, rank):
    return writer.const(np.arange(axis % rank, rank, dtype=np.int64))


def _gelu(writer, inputs, outputs, attrs):
    x, = inputs
    dtype = writer.dtypes[x]
    half = writer.const(np.asarray(0.5, dtype))
    one = writer.const(np.asarray(1.0, dtype))
    if attrs.get("approximate", "none") == "tanh":
        cubic = writer.op("Mul", [writer.op("Mul", [x, x]), x])
        inner = writer.op("Add", [x, writer.op("Mul", [cubic, writer.const(np.asarray(0.044715, dtype))])])
        scaled = writer.op("Mul", [inner, writer.const(np.asarray(np.sqrt(2 / np.pi), dtype))])
        factor = writer.op("Add", [one, writer.op("Tanh", [scaled])])
    else:
        scaled = writer.op("Mul", [x, writer.const(np.asarray(1 / np.sqrt(2), dtype))])
        factor = writer.op("Add", [one, writer.op("Erf", [scaled])])
    writer.emit("Mul", [writer.op("Mul", [x, half]), factor], outputs, {})


def _mish(writer, inputs, outputs, attrs):
    x, = inputs
    writer.emit("Mul", [x, writer.op("Tanh", [writer.op("Softplus", [x])])], outputs, {})


def _hard_swish(writer, inputs, outputs, attrs):
    x, = inputs
    writer.emit("Mul", [x, writer.op("HardSigmoid", [x], alpha=1 / 6, beta=0.5)], outputs, {})


def _stash(writer, x, stash_type):
    """``x`` in the dtype the normalization computes in (float32 for ``stash_type=1``), and its own dtype."""
    dtype = writer.dtypes[x]
    if stash_type == 1 and dtype != np.float32:
        return writer.op("Cast", [x], dtype=np.float32, to=1), dtype
    return x, dtype


def normalized(writer, x, axes, epsilon, center):
    """``(x - mean) / sqrt(var + eps)`` over ``axes`` (just ``x / sqrt(mean(x^2) + eps)`` without ``center``)."""
    dtype = writer.dtypes[x]
    if center:
        x = writer.op("Sub", [x, writer.op("ReduceMean", [x, axes], keepdims=1)])
    power = writer.op("ReduceMean", [writer.op("Mul", [x, x]), axes], keepdims=1)
    spread = writer.op("Add", [power, writer.const(np.asarray(epsilon, dtype))])
    return writer.op("Div", [x, writer.op("Sqrt", [spread])])


def _layer_norm_like(center):
    def decompose(writer, inputs, outputs, attrs):
        if len(outputs) > 1 and any(outputs[1:]):
            raise UnsupportedOpError("ONNX export: the mean and inverse standard deviation outputs of a "
                                     "normalization have no form before its opset")
        x, scale = inputs[:2]
        bias = inputs[2] if len(inputs) > 2 else ""
        rank = writer.rank(x)
        if rank is None:
            raise UnsupportedOpError("ONNX export: a normalization of an input of unknown rank needs a newer opset")
        work, dtype = _stash(writer, x, attrs.get("stash_type", 1))
        y = normalized(writer, work, _axes_from(writer, attrs.get("axis", -1), rank), attrs.get("epsilon", 1e-5),
                        center)
        if writer.dtypes[y] != dtype:
            y = writer.op("Cast", [y], dtype=dtype, to=dt.onnx_code(dtype))
        y = writer.op("Mul", [y, scale])
        writer.emit("Add" if bias else "Identity", [y, bias] if bias else [y], outputs[:1], {})
    return decompose


def _group_norm(writer, inputs, outputs, attrs):
    x, scale, bias = inputs
    rank = writer.rank(x)
    if rank is None:
        raise UnsupportedOpError("ONNX export: GroupNormalization of an input of unknown rank needs opset 21")
    work, dtype = _stash(writer, x, attrs.get("stash_type", 1))
    groups = writer.op("Reshape", [work, writer.const(np.asarray([0, attrs["num_groups"], -1], np.int64))])
    y = normalized(writer, groups, writer.const(np.asarray([2], np.int64)), attrs.get("epsilon", 1e-5), True)
    y = writer.op("Reshape", [y, writer.op("Shape", [x], dtype=np.int64)])
    if writer.dtypes[y] != dtype:
        y = writer.op("Cast", [y], dtype=dtype, to=dt.onnx_code(dtype))
    channel_affine(writer, y, scale, bias, rank, outputs[0])


def channel_affine(writer, y, scale, bias, rank, output):
    """``y * scale + bias`` with one scale and bias per channel (axis 1 of a rank-``rank`` value)."""
    per_channel = writer.const(np.arange(1, rank - 1, dtype=np.int64))
    y = writer.op("Mul", [y, writer.op("Unsqueeze", [scale, per_channel])])
    writer.emit("Add", [y, writer.op("Unsqueeze", [bias, per_channel])], [output], {})


def _or_equal(strict):
    def decompose(writer, inputs, outputs, attrs):
        # Or(Greater, Equal) rather than Not(Less): a NaN compares False either way.
        writer.emit("Or", [writer.op(strict, inputs), writer.op("Equal", inputs)], outputs, {})
    return decompose


DECOMPOSITIONS = {
    "GreaterOrEqual": _or_equal("Greater"),
    "LessOrEqual": _or_equal("Less"),
    "Gelu": _gelu,
    "Mish": _mish,
    "HardSwish": _hard_swish,
    "LayerNormalization": _layer_norm_like(center=True),
    "RMSNormalization": _layer_norm_like(center=False),
    "GroupNormalization": _group_norm,
}
"""Ops newer than the target opset, written with older ops."""

