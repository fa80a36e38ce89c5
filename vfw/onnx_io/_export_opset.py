"""Writing newest-opset nodes for an older target opset.

The engine's ops follow the newest opset onnx defines.  For an older target:

* an operator that did not exist yet is decomposed into older ones (``Gelu``, ``Mish``,
  ``HardSwish``, ``LayerNormalization``, ``GroupNormalization``, ``RMSNormalization``) or refused,
  naming the opset it needs;
* inputs that used to be attributes go back to attributes when they are constants (the axes of
  ``Reduce*`` before opset 18, ``Split``'s ``num_outputs`` before 18), and ``Shape``'s ``start`` /
  ``end`` (opset 15) become a ``Slice`` of the whole shape;
* attributes the target does not know are dropped when they hold the newest default, and refused
  otherwise (:meth:`~vfw.onnx_io._export.GraphWriter.emit`); values an attribute could not take
  yet (``GridSample``'s mode names before 20, ``Pad``'s ``wrap``, ``dilations`` of ``AveragePool``)
  are translated or refused here.
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


def _constant(writer, name, op_type, what):
    value = writer.model.arrays.get(name)
    if value is None:
        raise UnsupportedOpError(f"ONNX export: {op_type} with {what} computed at run time needs opset 18 or newer "
                                 f"(exporting for opset {writer.opset})")
    return value


def adapt(writer, op_type, schema, inputs, outputs, attrs):
    """Adapt one node to the writer's opset.

    Returns ``None`` when the node was written here (decomposed), else the ``(inputs, attrs)`` to
    write as one node.
    """
    opset = writer.opset
    if schema is None or (op_type == "GroupNormalization" and opset < 21):  # 18-20: per-group scale and bias
        decompose = DECOMPOSITIONS.get(op_type)
        if decompose is None:
            raise _needs(op_type, "", opset, _since(op_type))
        decompose(writer, inputs, outputs, attrs)
        return None
    inputs, attrs = list(inputs), dict(attrs)
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
    elif op_type == "AveragePool" and opset < 19 and "dilations" in attrs:
        if any(d != 1 for d in attrs.pop("dilations")):
            raise _needs(op_type, "with dilations", opset, 19)
    elif op_type == "GridSample" and opset < 20:
        mode = attrs.get("mode", "linear")
        if mode not in ("linear", "nearest", "cubic") or len(writer.dims.get(inputs[0]) or ()) != 4:
            raise _needs(op_type, f"mode={mode!r} or non-4-D input", opset, 20)
        attrs["mode"] = {"linear": "bilinear", "cubic": "bicubic"}.get(mode, mode)
    elif op_type == "Pad" and opset < 19 and attrs.get("mode") == "wrap":
        raise _needs(op_type, "mode='wrap'", opset, 19)
    elif op_type in ("ScatterND", "ScatterElements") and attrs.get("reduction", "none") != "none":
        since = 18 if attrs["reduction"] in ("max", "min") else 16
        if opset < since:
            raise _needs(op_type, f"reduction={attrs['reduction']!r}", opset, since)
    return inputs, attrs


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


DECOMPOSITIONS = {
    "Gelu": _gelu,
    "Mish": _mish,
    "HardSwish": _hard_swish,
    "LayerNormalization": _layer_norm_like(center=True),
    "RMSNormalization": _layer_norm_like(center=False),
    "GroupNormalization": _group_norm,
}
"""Ops newer than the target opset, written with older ops."""

