"""Writing nodes for opsets 9 and 10 (what the TorchScript-era exporters and TensorRT-era scripts target).

:mod:`vfw.onnx_io._export_opset` brings a node down to the opset-11 form first; before opset 11:

* ``Clip``'s ``min`` / ``max`` were attributes (constants; onnxruntime runs float32 only: other clips are two
  ``Where`` selections), and so were ``Pad``'s ``pads`` / ``constant_value`` (constants only);
* axes were non-negative (``Concat``, ``Flatten``, ``Softmax``, ``Squeeze``, ``Reduce*``...): a negative axis is
  counted from the known rank;
* ``Resize`` (opset 10) took only ``scales`` and meant ``coordinate_transformation_mode='asymmetric'``, with
  ``floor`` for nearest (torch's ``nearest``); before it, ``Upsample`` did the same for upsampling only;
* ``TopK`` always returned the largest values (``largest=0`` is the top of ``-x``), and took ``k`` as an
  attribute before opset 10, when ``Slice`` took ``starts`` / ``ends`` / ``axes`` as attributes (steps of 1);
* ``Gemm`` required ``C``, ``Equal`` compared only integers and bools, and ``DepthToSpace`` knew only the
  ``DCR`` order (torch's ``pixel_shuffle`` is ``CRD``: written as ``Reshape`` / ``Transpose`` / ``Reshape``);
* ``ScatterElements`` was ``Scatter``, and ``Mod`` (opset 10) of integers is written with ``Div``.

What the older forms cannot express (values computed at run time where an attribute is needed, steps other
than 1, resize modes torch's sampling does not match) is refused naming the opset it needs.
"""

import numpy as np

from vfw.onnx_io._export_opset import _constant, _known_rank, _needs

_I64 = np.int64

_AXIS_ATTRIBUTE = frozenset({
    "ArgMax", "ArgMin", "Compress", "Concat", "Flatten", "Gather", "Hardmax", "LogSoftmax", "Scatter", "Softmax",
    "Split", "TopK",
})  # counted from the first input's rank (OneHot's, from the output's, took negative values already)
_AXES_ATTRIBUTE = frozenset({
    "ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceMax", "ReduceMean", "ReduceMin", "ReduceProd",
    "ReduceSum", "ReduceSumSquare", "Squeeze", "Unsqueeze",
})


def before_opset_11(writer, op_type, inputs, outputs, attrs):
    """Adapt an opset-11 form node to opset 9 or 10; ``None`` when written here, else ``(inputs, attrs)``."""
    opset = writer.opset
    if op_type in _AXIS_ATTRIBUTE or op_type in _AXES_ATTRIBUTE:
        attrs = _non_negative_axes(writer, op_type, inputs, attrs)
    adapter = _ADAPTERS.get(op_type)
    if adapter is not None:
        adapted = adapter(writer, inputs, outputs, attrs)
        if adapted is None:
            return None
        inputs, attrs = adapted
    if op_type == "Slice" and opset < 10:
        return _slice_attributes(writer, inputs, attrs)
    return inputs, attrs


def _non_negative_axes(writer, op_type, inputs, attrs):
    key = "axis" if op_type in _AXIS_ATTRIBUTE else "axes"
    if key not in attrs:
        return attrs
    values = attrs[key] if key == "axes" else [attrs[key]]
    if all(v >= 0 for v in values):
        return attrs
    rank = _known_rank(writer, op_type, inputs[0], f"with a negative {key}", 11)
    if op_type == "Unsqueeze":
        rank += len(values)  # counted in the output
    fixed = [v + rank if v < 0 else v for v in values]
    return dict(attrs, **{key: fixed if key == "axes" else fixed[0]})


# -- inputs that were attributes ------------------------------------------------------------------------------
def _clip(writer, inputs, outputs, attrs):
    x, bounds = inputs[0], [(k, b) for k, b in enumerate(inputs[1:3]) if b]
    values = [writer.model.arrays.get(b) for _, b in bounds]
    if writer.dtypes[x] == np.float32 and all(v is not None for v in values):
        return [x], dict(attrs, **{("min", "max")[k]: float(v.reshape(())) for (k, _), v in zip(bounds, values)})
    # Clip-6 holds constant bounds and (in onnxruntime) float32 only: two selections otherwise, NaN passing through.
    if not bounds:
        writer.emit("Identity", [x], outputs[:1], {})
    for n, (k, bound) in enumerate(bounds):
        outside = writer.op("Less" if k == 0 else "Greater", [x, bound])
        if n == len(bounds) - 1:
            writer.emit("Where", [outside, bound, x], outputs[:1], {})
        else:
            x = writer.op("Where", [outside, bound, x])
    return None


def _pad(writer, inputs, outputs, attrs):
    attrs = dict(attrs)
    attrs["pads"] = [int(p) for p in _constant(writer, inputs[1], "Pad", "pads", since=11).reshape(-1)]
    if len(inputs) > 2 and inputs[2]:
        attrs["value"] = float(_constant(writer, inputs[2], "Pad", "constant_value", since=11).reshape(()))
    return inputs[:1], attrs


def _slice_attributes(writer, inputs, attrs):
    """Slice before opset 10: ``starts`` / ``ends`` / ``axes`` attributes, every step 1."""
    data, starts, ends = inputs[:3]
    starts = _constant(writer, starts, "Slice", "starts", since=10).reshape(-1)
    ends = _constant(writer, ends, "Slice", "ends", since=10).reshape(-1)
    if len(inputs) > 4 and inputs[4] and (_constant(writer, inputs[4], "Slice", "steps", 10) != 1).any():
        raise _needs("Slice", "with steps other than 1", writer.opset, 10)
    if len(inputs) > 3 and inputs[3]:
        axes = _constant(writer, inputs[3], "Slice", "axes", since=10).reshape(-1)
    else:
        axes = np.arange(len(starts))
    if (axes < 0).any():
        axes = axes % _known_rank(writer, "Slice", data, "with a negative axis", 10)
    return [data], dict(attrs, starts=[int(s) for s in starts], ends=[int(e) for e in ends],
                        axes=[int(a) for a in axes])


def _top_k(writer, inputs, outputs, attrs):
    attrs = dict(attrs)
    attrs.pop("sorted", None)  # the older op always sorts: one of the orders sorted=0 allows
    x = inputs[0]
    if not attrs.pop("largest", 1):
        # The smallest values are the largest of -x (the older op has no ascending form).
        if writer.dtypes[x].kind not in "fi":
            raise _needs("TopK", "largest=False of unsigned values", writer.opset, 11)
        flipped = writer.value("TopK_flipped", writer.dtypes[x])
        outputs = list(outputs) + [""] * (2 - len(outputs))
        writer.emit("TopK", [writer.op("Neg", [x])] + list(inputs[1:]), [flipped, outputs[1]], attrs)
        if outputs[0]:
            writer.emit("Neg", [flipped], outputs[:1], {})
        return None
    if writer.opset < 10 and len(inputs) > 1:
        attrs["k"] = int(_constant(writer, inputs[1], "TopK", "k", since=10).reshape(()))
        inputs = [x]
    return inputs, attrs


def _gemm(writer, inputs, outputs, attrs):
    if len(inputs) > 2 and inputs[2]:
        return inputs, attrs
    # C was required: adding a zero (one element, broadcast to (M, N)).
    return [inputs[0], inputs[1], writer.const(np.zeros(1, writer.dtypes[inputs[0]]))], attrs


def _equal(writer, inputs, outputs, attrs):
    a, b = inputs
    if writer.dtypes[a].kind != "f":
        return inputs, attrs
    # Floats: neither less nor greater, and no NaN (NaN equals nothing).
    ordered = writer.op("Or", [writer.op("Less", [a, b]), writer.op("Greater", [a, b])])
    nan = writer.op("Or", [writer.op("IsNaN", [a]), writer.op("IsNaN", [b])])
    writer.emit("Not", [writer.op("Or", [ordered, nan])], outputs, {})
    return None


def _depth_to_space(writer, inputs, outputs, attrs):
    if attrs.get("mode", "DCR") != "CRD":
        return inputs, attrs
    # torch's pixel_shuffle: (N, C*b*b, H, W) -> (N, C, b, b, H, W) -> (N, C, H, b, W, b) -> (N, C, H*b, W*b).
    x, block = inputs[0], attrs["blocksize"]
    shape = writer.op("Shape", [x], dtype=_I64)

    def part(start, end):
        return writer.op("Slice", [shape, writer.const(np.asarray([start], _I64)),
                                   writer.const(np.asarray([end], _I64))])

    blocks = writer.const(np.asarray([block], _I64))
    channels = writer.op("Div", [part(1, 2), writer.const(np.asarray([block * block], _I64))])
    height, width = part(2, 3), part(3, 4)
    split = writer.op("Reshape", [x, writer.op("Concat", [part(0, 1), channels, blocks, blocks, height, width],
                                               axis=0)])
    moved = writer.op("Transpose", [split], perm=[0, 1, 4, 2, 5, 3])
    target = writer.op("Concat", [part(0, 1), channels, writer.op("Mul", [height, blocks]),
                                  writer.op("Mul", [width, blocks])], axis=0)
    writer.emit("Reshape", [moved, target], outputs[:1], {})
    return None


def _max_pool(writer, inputs, outputs, attrs):
    if writer.opset >= 10 or "dilations" not in attrs:
        return inputs, attrs
    attrs = dict(attrs)
    if any(d != 1 for d in attrs.pop("dilations")):
        raise _needs("MaxPool", "with dilations", writer.opset, 10)
    return inputs, attrs


# -- Resize / Upsample ------------------------------------------------------------------------------------------
_RESIZE_DEFAULTS = {"cubic_coeff_a": -0.75, "exclude_outside": 0, "extrapolation_value": 0.0, "antialias": 0,
                    "keep_aspect_ratio_policy": "stretch"}


def _empty(writer, name):
    if not name:
        return True
    value = writer.model.arrays.get(name)
    return value is not None and value.size == 0


def resize_scales(writer, inputs, attrs, op_type):
    """The ``scales`` input and ``mode`` of a Resize in its opset-11 form, for Resize-10 / Upsample: only the
    samplings torch's ``nearest`` (asymmetric, floor) and ``align_corners``-free asymmetric linear match."""
    opset = writer.opset
    attrs = dict(attrs)
    mode = attrs.pop("mode", "nearest")
    transform = attrs.pop("coordinate_transformation_mode", "half_pixel")
    rounding = attrs.pop("nearest_mode", "round_prefer_floor")
    for key, default in _RESIZE_DEFAULTS.items():
        if key in attrs and attrs.pop(key) != default:
            raise _needs("Resize", f"with {key}", opset, 11 if key in ("cubic_coeff_a", "exclude_outside",
                                                                         "extrapolation_value") else 18)
    if mode not in ("nearest", "linear") or transform != "asymmetric" or (mode == "nearest" and rounding != "floor"):
        what = (f"mode={mode!r}" if mode not in ("nearest", "linear") else
                f"coordinate_transformation_mode={transform!r}" if transform != "asymmetric" else
                f"nearest_mode={rounding!r}")
        raise _needs("Resize", f"with {what}", opset, 11)
    x = inputs[0]
    scales = inputs[2] if len(inputs) > 2 else ""
    sizes = inputs[3] if len(inputs) > 3 else ""
    if _empty(writer, scales):
        rank = _known_rank(writer, "Resize", x, "to sizes", 11)
        scales = scales_for_sizes(writer, x, sizes, list(range(rank)))
    value = writer.model.arrays.get(scales)
    if op_type == "Upsample" and value is not None and (value < 1).any():
        raise _needs("Resize", "downsampling", opset, 10)
    if mode == "nearest" and value is not None and (value < 1).any():
        _check_nearest_downsampling(writer, x, value)
    if writer.dtypes[scales] != np.float32:
        scales = writer.op("Cast", [scales], dtype=np.float32, to=1)
    return [x, scales], {"mode": mode}


def scales_for_sizes(writer, x, sizes, axes):
    """Constant float32 scales, one per axis of ``axes``, that make Resize-10 / Upsample produce ``sizes`` and pick
    the source rows torch's ``nearest`` picks (``floor(out * in / size)``); refused when no float32 scale does
    (a size computed at run time, an axis of unknown size)."""
    target = _constant(writer, sizes, "Resize", "sizes", since=11).reshape(-1)
    dims = writer.dims.get(x)
    known = dims is not None and all(dims[a] > 0 for a in axes)
    if not known:
        raise _needs("Resize", "to sizes on an axis of unknown size", writer.opset, 11)
    scales = []
    for axis, size in zip(axes, target):
        dim, size = int(dims[axis]), int(size)
        scale = _exact_scale(dim, size)
        if scale is None:
            raise _needs("Resize", f"from {dim} to {size} (no float32 scale reads torch's rows)", writer.opset, 11)
        scales.append(scale)
    return writer.const(np.asarray(scales, np.float32))


def _old_nearest_rows(dim, size, scale):
    """The source rows Resize-10 (onnxruntime) reads for ``size`` outputs: ``o / scale`` in float32, rounded down,
    but up when downsampling (where the newer ``floor`` rounds down)."""
    position = np.arange(size, dtype=np.float32) / np.float32(scale)
    return np.minimum(np.ceil(position) if scale < 1 else np.floor(position), dim - 1)


def _check_nearest_downsampling(writer, x, scales):
    """Refuse constant nearest downsampling scales for which Resize-10 reads other rows than ``floor(o / scale)``
    (any scale whose inverse is not a whole number): checked on the input's dims where known, else the scale must be
    ``1 / 2**n``."""
    dims = writer.dims.get(x)
    for axis, scale in enumerate(scales.reshape(-1)):
        if scale >= 1:
            continue
        dim = None if dims is None or len(dims) != scales.size or dims[axis] < 0 else int(dims[axis])
        if dim is None:
            inverse = 1 / np.float64(scale)
            exact = inverse == 2 ** round(np.log2(inverse))
        else:
            size = int(np.float32(dim) * scale)
            want = np.minimum(np.floor(np.arange(size) / np.float64(scale)), dim - 1)
            exact = (_old_nearest_rows(dim, size, scale) == want).all()
        if not exact:
            raise _needs("Resize", f"nearest downsampling by {float(scale):g}", writer.opset, 11)


def _exact_scale(dim, size):
    """A float32 scale near ``size / dim`` for which the older ops make ``size`` items and read source
    ``floor(o * dim / size)`` for each output ``o`` (they compute ``int(dim * scale)`` and the rows of
    :func:`_old_nearest_rows`)."""
    want = np.arange(size, dtype=np.int64) * dim // size
    scale = np.float32(size / dim)
    candidates = [scale]
    up = down = scale
    for _ in range(4):  # a few float32 steps either way
        up, down = np.nextafter(up, np.float32(np.inf)), np.nextafter(down, np.float32(0))
        candidates += [up, down]
    for s in candidates:
        # onnx's shape inference multiplies in double, onnxruntime in float: both must give ``size``.
        if int(np.float32(dim) * s) == size == int(dim * np.float64(s)) and \
                (_old_nearest_rows(dim, size, s) == want).all():
            return s
    return None


def _resize(writer, inputs, outputs, attrs):
    return resize_scales(writer, inputs, attrs, "Resize")


def resize_as_upsample(writer, inputs, outputs, attrs):
    """Resize before opset 10: ``Upsample`` (which the opset-9 ops write in place of a Resize)."""
    from vfw.onnx_io._export_opset import _before_opset_13, _resize_every_axis

    attrs = dict(attrs)
    if "axes" in attrs:
        inputs = _resize_every_axis(writer, inputs, attrs.pop("axes"))
    inputs, attrs = _before_opset_13(writer, "Resize", inputs, outputs, attrs)
    inputs, attrs = resize_scales(writer, inputs, attrs, "Upsample")
    writer.emit("Upsample", inputs, outputs, attrs)


def scatter_elements(writer, inputs, outputs, attrs):
    """ScatterElements (without a reduction) before opset 11: ``Scatter``."""
    if attrs.get("reduction", "none") != "none":
        raise _needs("ScatterElements", f"reduction={attrs['reduction']!r}", writer.opset, 16)
    writer.emit("Scatter", inputs, outputs, {k: v for k, v in attrs.items() if k != "reduction"})


def integer_mod(writer, inputs, outputs, attrs):
    """Mod of integers before opset 10: ``a - (a / b) * b`` (Div truncates: the remainder takes the dividend's
    sign, ``fmod=1``), plus ``b`` where a nonzero remainder's sign differs from the divisor's (``fmod=0``)."""
    a, b = inputs
    if writer.dtypes[a].kind not in "iu":
        raise _needs("Mod", "of floats", writer.opset, 10)
    rem = writer.op("Sub", [a, writer.op("Mul", [writer.op("Div", [a, b]), b])])
    if attrs.get("fmod", 0) or writer.dtypes[a].kind == "u":
        writer.emit("Identity", [rem], outputs, {})
        return
    zero = writer.const(np.asarray(0, writer.dtypes[a]))
    signs_differ = writer.op("Xor", [writer.op("Less", [rem, zero]), writer.op("Less", [b, zero])])
    fix = writer.op("And", [writer.op("Not", [writer.op("Equal", [rem, zero])]), signs_differ])
    writer.emit("Where", [fix, writer.op("Add", [rem, b]), rem], outputs, {})


_ADAPTERS = {
    "Clip": _clip,
    "Pad": _pad,
    "TopK": _top_k,
    "Gemm": _gemm,
    "Equal": _equal,
    "DepthToSpace": _depth_to_space,
    "Resize": _resize,
    "MaxPool": _max_pool,
}
"""Per op: ``(writer, inputs, outputs, attrs) -> (inputs, attrs)``, or ``None`` when the node was written."""

DECOMPOSITIONS = {
    "Resize": resize_as_upsample,
    "ScatterElements": scatter_elements,
    "Mod": integer_mod,
}
"""Ops newer than opset 9 or 10 written with the older ops."""
