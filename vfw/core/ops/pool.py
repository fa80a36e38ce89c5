"""Pooling: MaxPool, AveragePool, LpPool, GlobalAveragePool, GlobalMaxPool, and LRN.

Box windows are separable, so the windowed ops reduce one spatial axis at a
time (last axis first), each pass a short static loop of strided-slice
maximum/add over the kernel taps of that axis: ``sum(kernel)`` vector ops
instead of ``prod(kernel)``; stride-1 window sums shift the whole flattened
padded input instead (one long contiguous add per tap, not a short run per
row).  Geometry (output sizes, pads, divisors, index maps) is computed once
per input shape and cached in the bound op.

Gradients: MaxPool and GlobalMaxPool scatter-add the output gradient onto the
(first) maximum of each window (a plain scatter write when windows are disjoint);
AveragePool's is the engine op AveragePoolGrad
(its adjoint, whose own gradient is AveragePool again); LpPool's window sums go
through AveragePoolGrad too and LRN's channel window sums through AveragePool,
so every gradient here can be differentiated again.
"""

import itertools
import math

import numpy as np

from vfw.core import dtypes as dt
from vfw.core.autograd import register_gradient
from vfw.core.errors import ShapeError
from vfw.core.ops._common import (
    array_of,
    execute,
    int64s,
    non_negative,
    positive,
    reshape_to,
    same_as_first,
    trailing_sum,
)
from vfw.core.ops._windows import (
    AUTO_PADS,
    bounded_cache,
    check_spatial_rank,
    clipped_pass,
    clipped_taps,
    compute_dtype,
    output_geometry,
    pad,
    pad_plan,
    per_axis,
    split_pads,
    tap_slice,
    window_layout,
    window_view,
)
from vfw.core.registry import Attr, TensorInfo, defop

_MAX_TYPES = dt.FLOATS | {dt.int8, dt.uint8}
_WIDER = {dt.int8: dt.int16, dt.uint8: dt.int16}
_SMALL = 1024  # MaxPool outputs up to this size take the im2col + argmax path


def _window_attrs(**extra):
    attrs = {
        "auto_pad": Attr("string", "NOTSET", choices=AUTO_PADS),
        "ceil_mode": Attr("int", 0, choices=(0, 1)),
        "dilations": Attr("ints", None, check=positive),
        "kernel_shape": Attr("ints", check=positive),
        "pads": Attr("ints", None, check=non_negative),
        "strides": Attr("ints", None, check=positive),
    }
    attrs.update(extra)
    return attrs


class _Spec:
    """A windowed op's attributes, normalized per spatial axis (validated once, in the factory)."""

    __slots__ = ("op", "nd", "kernel", "strides", "dilations", "pads", "auto_pad", "ceil_mode")

    def __init__(self, op, kernel_shape, strides, dilations, pads, auto_pad, ceil_mode):
        self.op = op
        self.nd = nd = len(kernel_shape)
        self.kernel = tuple(kernel_shape)
        self.strides = per_axis(op, "strides", strides, nd, 1)
        self.dilations = per_axis(op, "dilations", dilations, nd, 1)
        self.pads = split_pads(op, pads, nd)
        self.auto_pad = auto_pad
        self.ceil_mode = bool(ceil_mode)

    def geometry(self, shape):
        """``(out, begins, ends)`` for an input of ``shape`` (see ``output_geometry``)."""
        check_spatial_rank(self.op, shape, self.nd)
        return output_geometry(self.op, tuple(shape[2:]), self.kernel, self.strides, self.dilations, self.pads,
                               self.auto_pad, self.ceil_mode)

    def passes(self, out):
        """Per spatial axis, first first: ``(axis, [slices of each tap])`` for separable passes.

        The first axis's pass reads whole rows (contiguous runs) and shrinks the data by its stride; the last
        axis's strided slices, which numpy does not vectorise, then see only what is left (3x3/2 windows on
        136 x 28 x 28: 0.16 -> 0.12 ms).
        """
        result = []
        for i in range(self.nd):
            lead = (slice(None),) * (2 + i)
            result.append((2 + i, [lead + (tap_slice(out[i], self.strides[i], self.dilations[i], t),)
                                   for t in range(self.kernel[i])]))
        return result

    def sum_plan(self, shape, out, begins, ends):
        """``(summing function, its plan, padding)`` for the window sums of an input of ``shape``, which the caller
        pads per ``padding`` (from ``pad_plan``; None: not at all) into a C-contiguous array first:
        :func:`_flat_box_sum` for stride-1 windows whose outputs span most of each axis, else :func:`_clipped_box_sum`
        on the unpadded input (with large windows or strides, its slices shrink the data many times faster than
        whole-array shifts, and no padded copy is made: squeezenet's and shufflenet's 3x3/2 pools 20-30% faster).
        """
        padding = pad_plan(shape, begins, ends)
        padded = shape if padding is None else padding[0]
        if any(s != 1 or 2 * o < n for s, o, n in zip(self.strides, out, padded[2:])):
            return _clipped_box_sum, [(2 + i, out[i], clipped_taps(shape[2 + i], self.kernel[i], out[i],
                                                                   self.strides[i], self.dilations[i], begins[i]))
                                      for i in range(self.nd)], None
        return _flat_box_sum, self.flat_passes(padded, out), padding

    def flat_passes(self, padded, out):
        """Separable window sums over a C-contiguous padded input of shape ``padded``, as flat shifts: ``(tap
        offsets per pass, crop)``.

        Along an axis whose neighbours lie ``step`` apart in the flattened input, tap ``t`` of every window lies
        ``t * dilation * step`` after the window's start, so each tap is one add of the whole flat array shifted
        by its offset (1.2-1.4x faster than strided slices whose rows are a few elements long).  Sums starting
        near an image's end run into the next one, but only at positions ``crop`` (the windows' starts, with
        the strides) leaves out: a window's taps all lie inside its own image.
        """
        offsets = []
        for i in reversed(range(self.nd)):
            step = math.prod(padded[3 + i:])
            if self.kernel[i] > 1:
                offsets.append([t * self.dilations[i] * step for t in range(self.kernel[i])])
        crop = (slice(None), slice(None)) + tuple(slice(0, (o - 1) * s + 1 if o else 0, s)
                                                  for o, s in zip(out, self.strides))
        return offsets, crop


def _window_infer(op):
    def infer(attrs, infos):
        x = infos[0]
        if x.shape is None:
            return [TensorInfo(None, x.dtype)]
        spec = _Spec(op, attrs["kernel_shape"], attrs["strides"], attrs["dilations"], attrs["pads"],
                     attrs["auto_pad"], attrs["ceil_mode"])
        shape = x.shape[:2] + spec.geometry(x.shape)[0]
        return [TensorInfo(shape, x.dtype)] + ([TensorInfo(shape, dt.int64)] if op == "MaxPool" else [])

    return infer


def _cached(cache, shape, make):
    plan = cache.get(shape)
    if plan is None:
        bounded_cache(cache)
        plan = cache[shape] = make(shape)
    return plan


def _clipped_box_sum(x, plan):
    """Sum of each window of the unpadded ``x``, one spatial axis at a time (first first: it reads whole rows and
    leaves the strided slices less data), over the taps of ``plan`` from :meth:`_Spec.sum_plan`."""
    for axis, count, taps in plan:
        x = clipped_pass(x, axis, count, taps, np.add, 0)
    return x


def _flat_box_sum(xp, plan):
    """Sum of each window of the C-contiguous ``xp`` (zero padding already applied), one spatial axis at a time,
    per ``plan`` from :meth:`_Spec.flat_passes`: a strided view of a new array."""
    offsets, crop = plan
    cur = flat = xp.reshape(-1)
    n = flat.size
    for taps in offsets:
        n = max(0, n - taps[-1])  # the sums that start early enough for every tap to stay in the array
        acc = np.empty(flat.size, xp.dtype)
        np.add(cur[taps[0]:taps[0] + n], cur[taps[1]:taps[1] + n], out=acc[:n])
        for t in taps[2:]:
            acc[:n] += cur[t:t + n]
        cur = acc
    return (flat.copy() if cur is flat else cur).reshape(xp.shape)[crop]


# ------------------------------------------------------------------------------------------ MaxPool


def _box_max(xp, passes):
    """Max of each window (padding already applied), one spatial axis at a time."""
    cur = xp
    for _, taps in passes:
        acc = cur[taps[0]].copy() if len(taps) == 1 else np.maximum(cur[taps[0]], cur[taps[1]])
        for sl in taps[2:]:
            np.maximum(acc, cur[sl], out=acc)
        cur = acc
    return cur


@defop("MaxPool", inputs="X:T", outputs="Y:T Indices?:I", types={"T": _MAX_TYPES, "I": {dt.int64}},
       attrs=_window_attrs(storage_order=Attr("int", 0, choices=(0, 1))), infer=_window_infer("MaxPool"))
def max_pool(auto_pad, ceil_mode, dilations, kernel_shape, pads, strides, storage_order):
    """Max over sliding windows; Indices are flat positions in X (N, C included; storage_order for spatial axes).

    Ties go to the first position in row-major window order.
    """
    spec = _Spec("MaxPool", kernel_shape, strides, dilations, pads, auto_pad, ceil_mode)
    taps = list(itertools.product(*map(range, spec.kernel)))
    tap_dtype = dt.uint8 if len(taps) <= 256 else dt.uint32
    cache = {}

    def make(shape):
        out, begins, ends = spec.geometry(shape)
        in_sp = shape[2:]
        mult = [math.prod(in_sp[i + 1:]) if storage_order == 0 else math.prod(in_sp[:i]) for i in range(spec.nd)]
        # Indices = window origin's flat index + the winning tap's offset + the (n, c) plane's start
        origin = np.zeros(out, dt.int64)
        for i, (o, s, b, m) in enumerate(zip(out, spec.strides, begins, mult)):
            origin += ((np.arange(o, dtype=dt.int64) * s - b) * m).reshape((-1,) + (1,) * (spec.nd - 1 - i))
        offsets = np.array([sum(t * d * m for t, d, m in zip(tap, spec.dilations, mult)) for tap in taps], dt.int64)
        plane = math.prod(in_sp)
        nc = (np.arange(shape[0] * shape[1], dtype=dt.int64) * plane).reshape(shape[:2] + (1,) * spec.nd)
        padding = pad_plan(shape, begins, ends)
        if shape[0] * shape[1] * origin.size <= _SMALL:
            # small: copy the windows to columns and take argmax over the taps (fewest numpy calls)
            padded = shape if padding is None else padding[0]
            cols = (window_layout(padded, spec.kernel, spec.strides, spec.dilations, out),
                    shape[:2] + (len(taps), origin.size), shape[:2] + out)
            return padding, None, cols, origin, offsets, nc
        lead = (slice(None), slice(None))
        windows = [lead + tuple(tap_slice(o, s, d, t) for o, s, d, t in zip(out, spec.strides, spec.dilations, tap))
                   for tap in taps]
        return padding, spec.passes(out), windows, origin, offsets, nc

    def kernel(x, out=None):
        padding, passes, windows, origin, offsets, nc = _cached(cache, x.shape, make)
        val = x
        if padding is not None:
            wide = _WIDER.get(x.dtype)
            # pad below every value, so padding never ties with (and wins over) a real minimum
            val = pad(x, padding, x.dtype, -np.inf) if wide is None else pad(x, padding, wide, np.iinfo(wide).min)
        if passes is None:
            layout, cols_shape, y_shape = windows  # the column layout, on this path
            cols = window_view(np.ascontiguousarray(val), layout).reshape(cols_shape)
            tap = cols.argmax(axis=2).reshape(y_shape)
            y = cols.max(axis=2).reshape(y_shape)
        else:
            y = _box_max(val, passes)
            # the winning tap: scanning taps last to first, the first one (row-major) equal to the max wins;
            # tap += eq * (t - tap) in wrapping unsigned arithmetic is much faster than a masked copy
            tap = np.zeros(y.shape, tap_dtype)
            step = np.empty_like(tap)
            for t in range(len(windows) - 1, -1, -1):
                np.subtract(t, tap, out=step)
                np.multiply(step, np.equal(val[windows[t]], y), out=step)
                tap += step
        idx = np.take(offsets, tap)
        idx += origin
        idx += nc
        return (y if y.dtype == x.dtype else y.astype(x.dtype)), idx

    return kernel


@register_gradient("MaxPool")
def _max_pool_grad(node, g, _):
    """Each output gradient goes to its window's maximum (the first one on ties, as Indices says)."""
    x = array_of(node.inputs[0])
    if node.attrs["storage_order"] == 0:
        idx = node.output(1)
    else:  # column-major Indices: the row-major ones are what a flat scatter needs
        idx = execute("MaxPool", x, **dict(node.attrs, storage_order=0))[1]
    a = node.attrs
    spec = _Spec("MaxPool", a["kernel_shape"], a["strides"], a["dilations"], a["pads"], a["auto_pad"], a["ceil_mode"])
    out, begins, _ = spec.geometry(x.shape)
    inside = np.ones((), bool)
    for n, o, k, s, d, b in zip(x.shape[2:], out, spec.kernel, spec.strides, spec.dilations, begins):
        inside = np.logical_and.outer(inside, _axis_counts(o, k, s, d, b, b + n) > 0)
    # disjoint windows (stride at least the window's extent, e.g. 2x2 pooling) have distinct maxima: the scatter is
    # a plain write, 15x faster than a reduce-scatter (which must order repeated positions)
    disjoint = all(s >= (k - 1) * d + 1 for k, s, d in zip(spec.kernel, spec.strides, spec.dilations))
    if not inside.all():
        # a window with no tap on X (pads past the kernel) has max -inf and an Indices into padding: it passes nothing
        idx = execute("Where", inside, idx, np.zeros((), np.int64))
        g = execute("Mul", g, inside.astype(g.array.dtype))
        disjoint = False  # those windows' Indices all point at position 0
    flat = execute("ScatterElements", np.zeros(x.size, g.array.dtype), reshape_to(idx, [-1]),
                   reshape_to(g, [-1]), axis=0, reduction="none" if disjoint else "add")
    return (reshape_to(flat, x.shape),)


# -------------------------------------------------------------------------------------- AveragePool


def _axis_counts(o, k, s, d, lo, hi):
    """Per output position along one axis: how many kernel taps fall in ``[lo, hi)`` of the input."""
    pos = np.arange(o)[:, None] * s + np.arange(k)[None, :] * d  # in padded coordinates
    return ((pos >= lo) & (pos < hi)).sum(axis=1)


def _divisor(spec, shape, count_include_pad):
    """AveragePool's divisor per output position, float64 of the output's spatial shape."""
    out, begins, ends = spec.geometry(shape)
    divisor = np.ones((), dt.float64)
    for i, (n, o, k, s, d, b) in enumerate(zip(shape[2:], out, spec.kernel, spec.strides, spec.dilations, begins)):
        if count_include_pad:
            # declared (or SAME) padding counts; the ceil_mode overhang past it does not
            pe = 0 if spec.auto_pad == "VALID" else spec.pads[1][i] if spec.auto_pad == "NOTSET" else ends[i]
            counts = _axis_counts(o, k, s, d, 0, n + b + pe)
        else:
            counts = _axis_counts(o, k, s, d, b, b + n)
        divisor = np.multiply.outer(divisor, counts)
    return divisor


@defop("AveragePool", inputs="X:T", outputs="Y:T", types={"T": dt.FLOATS},
       attrs=_window_attrs(count_include_pad=Attr("int", 0, choices=(0, 1))), infer=_window_infer("AveragePool"))
def average_pool(auto_pad, ceil_mode, dilations, kernel_shape, pads, strides, count_include_pad):
    """Mean over sliding windows; padding counts when count_include_pad=1, a ceil_mode overhang never does."""
    spec = _Spec("AveragePool", kernel_shape, strides, dilations, pads, auto_pad, ceil_mode)
    cache = {}

    def make(shape):
        out, begins, ends = spec.geometry(shape)
        return spec.sum_plan(shape, out, begins, ends), {}, _divisor(spec, shape, count_include_pad)

    def kernel(x, out=None):
        (box_sum, passes, padding), divisors, divisor = _cached(cache, x.shape, make)
        ct = compute_dtype(x.dtype)
        div = divisors.get(ct)
        if div is None:
            div = divisors[ct] = divisor.astype(ct)
        y = np.divide(box_sum(pad(x, padding, ct), passes), div, out=out if ct == x.dtype else None)
        return y if ct == x.dtype else y.astype(x.dtype)

    return kernel


@register_gradient("AveragePool")
def _average_pool_grad(node, g):
    return (execute("AveragePoolGrad", g, int64s(array_of(node.inputs[0]).shape), **node.attrs),)


def _shape_value_infer(attrs, infos):
    value = infos[1].value
    return [TensorInfo(None if value is None else tuple(int(v) for v in value), infos[0].dtype)]


@defop("AveragePoolGrad", inputs="dY:T input_shape:int64", outputs="dX:T", types={"T": dt.FLOATS},
       attrs=_window_attrs(count_include_pad=Attr("int", 0, choices=(0, 1))), infer=_shape_value_infer,
       value_inputs=("input_shape",))
def average_pool_grad(auto_pad, ceil_mode, dilations, kernel_shape, pads, strides, count_include_pad):
    """Adjoint of AveragePool (engine-internal): each dY entry, over its divisor, added to its window's inputs.

    ``input_shape`` is the shape of AveragePool's X; the attributes are AveragePool's.
    """
    spec = _Spec("AveragePoolGrad", kernel_shape, strides, dilations, pads, auto_pad, ceil_mode)
    cache = {}

    def make(shape):
        out, begins, ends = spec.geometry(shape)
        padding = pad_plan(shape, begins, ends)
        padded, crop = (shape, None) if padding is None else padding
        # the forward reduces the first axis first; its adjoint expands the last axis first
        return (shape[:2] + out, padded, crop, spec.passes(out)[::-1], {},
                _divisor(spec, shape, count_include_pad))

    def kernel(dy, input_shape, out=None):
        shape = tuple(int(v) for v in input_shape)
        y_shape, padded, crop, passes, divisors, divisor = _cached(cache, shape, make)
        if dy.shape != y_shape:
            raise ShapeError(f"AveragePoolGrad: dY shape {dy.shape} is not AveragePool's output shape {y_shape} "
                             f"for an input of shape {shape}")
        ct = compute_dtype(dy.dtype)
        div = divisors.get(ct)
        if div is None:
            div = divisors[ct] = divisor.astype(ct)
        g = np.divide(dy, div, dtype=ct)
        for axis, taps in passes:
            acc = np.zeros(g.shape[:axis] + (padded[axis],) + g.shape[axis + 1:], ct)
            for sl in taps:
                acc[sl] += g
            g = acc
        if crop is not None:
            g = g[crop]
        return np.ascontiguousarray(g, dy.dtype)

    return kernel


@register_gradient("AveragePoolGrad")
def _average_pool_grad_grad(node, g):
    return execute("AveragePool", g, **node.attrs), None


# ------------------------------------------------------------------------------------------- LpPool


@defop("LpPool", inputs="X:T", outputs="Y:T", types={"T": dt.FLOATS},
       attrs=_window_attrs(p=Attr("int", 2, check=positive)), infer=_window_infer("LpPool"))
def lp_pool(auto_pad, ceil_mode, dilations, kernel_shape, pads, strides, p):
    """p-norm over sliding windows (zero padding)."""
    spec = _Spec("LpPool", kernel_shape, strides, dilations, pads, auto_pad, ceil_mode)
    cache = {}

    def make(shape):
        return spec.sum_plan(shape, *spec.geometry(shape))

    def kernel(x, out=None):
        box_sum, passes, padding = _cached(cache, x.shape, make)
        ct = compute_dtype(x.dtype)
        xc = x.astype(ct) if x.dtype != ct else x
        powered = np.square(xc) if p == 2 else np.abs(xc) if p == 1 else np.abs(xc) ** p
        y = box_sum(pad(powered, padding, ct), passes)
        y = np.sqrt(y) if p == 2 else np.ascontiguousarray(y) if p == 1 else np.power(y, 1.0 / p)
        return y if ct == x.dtype else y.astype(x.dtype)

    return kernel


@register_gradient("LpPool")
def _lp_pool_grad(node, g):
    """``dX = sign(x) |x|^(p-1) * sum over windows of dY y^(1-p)``, the window sum as AveragePool's adjoint."""
    x, y = node.inputs[0], node.output(0)
    shape = array_of(x).shape
    p = node.attrs["p"]
    win = {k: node.attrs[k] for k in ("auto_pad", "ceil_mode", "dilations", "kernel_shape", "pads", "strides")}
    spec = _Spec("LpPool", win["kernel_shape"], win["strides"], win["dilations"], win["pads"], win["auto_pad"],
                 win["ceil_mode"])
    dtype = g.array.dtype
    v = g if p == 1 else execute("Div", g, y if p == 2 else execute("Pow", y, np.asarray(p - 1, dtype)))
    # AveragePoolGrad divides by the divisor: multiplying by it first leaves the plain window sum
    divisor = _divisor(spec, shape, 1).astype(dtype)
    total = execute("AveragePoolGrad", execute("Mul", v, divisor), int64s(shape), count_include_pad=1, **win)
    if p == 1:
        return (execute("Mul", total, execute("Sign", x)),)
    if p > 2:
        x = execute("Mul", x, execute("Pow", execute("Abs", x), np.asarray(p - 2, dtype)))
    return (execute("Mul", total, x),)


# ------------------------------------------------------------------------------------- global pools


def _global_infer(attrs, infos):
    x = infos[0]
    if x.shape is None:
        return [TensorInfo(None, x.dtype)]
    return [TensorInfo(x.shape[:2] + (1,) * (len(x.shape) - 2), x.dtype)]


def _global_check(op, x):
    if x.ndim < 2:
        raise ShapeError(f"{op}: input 'X' of shape {x.shape} needs rank >= 2 (N, C, spatial...)")
    if x.size == 0 and any(n == 0 for n in x.shape[2:]):
        raise ShapeError(f"{op}: input 'X' of shape {x.shape} has an empty spatial axis")


@defop("GlobalAveragePool", inputs="X:T", outputs="Y:T", types={"T": dt.FLOATS}, infer=_global_infer)
def global_average_pool():
    """Mean over all spatial axes (kept as size 1)."""

    def kernel(x, out=None):
        _global_check("GlobalAveragePool", x)
        axes = tuple(range(2, x.ndim))
        total = trailing_sum(x, axes, keepdims=True)
        if total is not None:
            return np.divide(total, math.prod(x.shape[2:]), out=total)
        ct = compute_dtype(x.dtype)
        y = np.mean(x, axis=axes, dtype=ct, keepdims=True)
        return y if ct == x.dtype else y.astype(x.dtype)

    return kernel


@register_gradient("GlobalAveragePool")
def _global_average_pool_grad(node, g):
    shape = array_of(node.inputs[0]).shape
    mean = execute("Div", g, np.asarray(math.prod(shape[2:]), g.array.dtype))
    return (execute("Expand", mean, int64s(shape)),)


@defop("GlobalMaxPool", inputs="X:T", outputs="Y:T", types={"T": dt.FLOATS}, infer=_global_infer)
def global_max_pool():
    """Max over all spatial axes (kept as size 1)."""

    def kernel(x, out=None):
        _global_check("GlobalMaxPool", x)
        return np.max(x, axis=tuple(range(2, x.ndim)), keepdims=True)

    return kernel


@register_gradient("GlobalMaxPool")
def _global_max_pool_grad(node, g):
    """The gradient goes to the maximum of each (n, c) plane; the first one on ties, as MaxPool's."""
    x = array_of(node.inputs[0])
    planes = x.shape[:2] + (math.prod(x.shape[2:]),)
    first = execute("ArgMax", x.reshape(planes), axis=2, keepdims=1).array
    gx = execute("ScatterElements", np.zeros(planes, g.array.dtype), first,
                 reshape_to(g, x.shape[:2] + (1,)), axis=2)
    return (reshape_to(gx, x.shape),)


# ---------------------------------------------------------------------------------------------- LRN


@defop("LRN", inputs="X:T", outputs="Y:T", types={"T": dt.FLOATS},
       attrs={"alpha": Attr("float", 1e-4), "beta": Attr("float", 0.75), "bias": Attr("float", 1.0),
              "size": Attr("int", check=positive)},
       infer=same_as_first)
def lrn(alpha, beta, bias, size):
    """Local response normalization across channels: X / (bias + alpha / size * sum(X^2 over size channels))^beta."""
    before = (size - 1) // 2  # channels below c in the window; size - 1 - before above it
    scale = alpha / size

    def kernel(x, out=None):
        if x.ndim < 2:
            raise ShapeError(f"LRN: input 'X' of shape {x.shape} needs rank >= 2 (N, C, ...)")
        ct = compute_dtype(x.dtype)
        xc = x.astype(ct) if x.dtype != ct else x
        c = x.shape[1]
        sq = np.zeros((x.shape[0], c + size - 1) + x.shape[2:], ct)
        np.square(xc, out=sq[:, before:before + c])
        total = sq[:, :c].copy()
        for t in range(1, size):
            total += sq[:, t:t + c]
        total *= ct.type(scale)
        total += ct.type(bias)
        y = np.divide(xc, total ** ct.type(beta), out=total)
        return y if ct == x.dtype else y.astype(x.dtype)

    return kernel


@register_gradient("LRN")
def _lrn_grad(node, g):
    """``y = x s^-beta`` with ``s = bias + alpha * mean of x^2 over the channel window``:
    ``dX = dY s^-beta - 2 alpha beta x * (mean over the mirrored window of dY y / s)``."""
    x, y = node.inputs[0], node.output(0)
    shape = array_of(x).shape
    size, dtype = node.attrs["size"], g.array.dtype
    before = (size - 1) // 2
    planes = int64s((shape[0], 1, shape[1], math.prod(shape[2:])))

    def channel_mean(t, lo, hi):
        # channels [c - lo, c + hi] as a (size, 1) window over (N, 1, C, rest); padding counts as zeros
        t = execute("AveragePool", execute("Reshape", t, planes), kernel_shape=[size, 1], pads=[lo, 0, hi, 0],
                    count_include_pad=1)
        return reshape_to(t, shape)

    def const(v):
        return np.asarray(v, dtype)

    s = execute("Add", execute("Mul", channel_mean(execute("Mul", x, x), before, size - 1 - before),
                               const(node.attrs["alpha"])), const(node.attrs["bias"]))
    direct = execute("Mul", g, execute("Pow", s, const(-node.attrs["beta"])))
    back = channel_mean(execute("Div", execute("Mul", g, y), s), size - 1 - before, before)
    through = execute("Mul", execute("Mul", x, back), const(2 * node.attrs["alpha"] * node.attrs["beta"]))
    return (execute("Sub", direct, through),)
