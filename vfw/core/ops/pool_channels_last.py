"""Channels-last pooling (TensorFlow's layout): ChannelsLastMaxPool with its gradients and argmax, and
ChannelsLastAveragePool with its adjoint.

``X`` is ``(N, D1, ..., Dd, C)`` and ``Y`` is ``(N, O1, ..., Od, C)``; output sizes follow TensorFlow
(an empty output when the window is longer than the padded input by less than a stride).  Each
window reduction is a running ``np.maximum`` / ``np.add`` over the strided slices its kernel taps
read, the channels staying the contiguous inner axis; the forward max pool runs it one spatial axis at a
time (a window's maximum is the maximum of its rows' maxima), except for 2x2 windows over many channels, and
(with strides of 2 or more) reads X itself, each tap clipped to the windows where it does not read padding,
rather than a padded copy.

Max pooling: padding never wins (it holds the dtype's lowest value, and taps reading padding are
masked out wherever maxima are compared).  Which tied maxima receive the gradient is the ``ties``
attribute: ``"first"`` (row-major first in the window: TensorFlow's MaxPool, MaxPoolWithArgmax) or
``"all"`` (each position equal to the maximum gets all of it: TensorFlow's MaxPool3D).  The gradient
ChannelsLastMaxPoolGrad (TensorFlow's ``MaxPoolGrad(X, Y, dY)``) and ChannelsLastMaxPoolGradGrad
(which gathers at the same positions) are adjoint in their last input, so each is the other's
gradient.  When the windows tile X (stride == kernel, no padding or dilation: the usual 2x2 pooling),
the gradient views X as ``(N, O1, K1, ..., C)`` and is one compare, a tie resolution on the mask and one
broadcast product.

Average pooling divides each window's sum by the number of its taps that read the input (padding is
not counted, as in TensorFlow); ChannelsLastAveragePoolGrad is its adjoint and vice versa.
"""

import math

import numpy as np

from vfw.core import dtypes as dt
from vfw.core.autograd import not_differentiable, register_gradient
from vfw.core.errors import ShapeError
from vfw.core.ops._channels_last import WINDOW_ATTRS, Window
from vfw.core.ops._common import array_of, execute, int64s, positive
from vfw.core.ops._windows import bounded_cache, clipped_pass, clipped_taps, compute_dtype
from vfw.core.registry import Attr, TensorInfo, defop

_ATTRS = dict(WINDOW_ATTRS, kernel_shape=Attr("ints", check=positive))
_MAX_ATTRS = dict(_ATTRS, ties=Attr("string", "first", choices=("first", "all")))
_MAX_TYPES = dt.FLOATS | dt.INTS


def _lowest(dtype):
    return -np.inf if dtype in dt.FLOATS else np.iinfo(dtype).min


class _Plan:
    """Geometry of one input shape: output shape, tap slices, padding masks, window overlap, tap counts."""

    __slots__ = ("window", "kernel", "xshape", "yshape", "taps", "axis_taps", "pad_first", "valid", "overlapping",
                 "tap_dtype", "tiled", "_counts")

    def __init__(self, window, kernel, xshape):
        out = window.out(xshape, kernel)
        self.window, self.kernel, self.xshape = window, kernel, xshape
        self.yshape = (xshape[0],) + out + (xshape[-1],)
        self.taps = window.taps(kernel, out)
        # per spatial axis that is not read as is: ``(axis, windows, taps)`` (a window's maximum is the maximum over
        # one axis of the maxima over the others); None where one pass per window tap is faster: windows of as many
        # taps as their axes' sum (2x2) over rows of many channels (contiguous reads either way)
        self.axis_taps = None if math.prod(kernel) <= sum(kernel) and xshape[-1] >= 16 else []
        geometry = [(a + 1, n, k, o, s, d, b, e) for a, (n, k, o, s, d, b, e) in enumerate(zip(
            xshape[1:-1], kernel, out, window.strides, window.dilations, window.begins, window.ends))
            if not (k == 1 and s == 1 and b == e == 0)]
        clipped = [clipped_taps(n, k, o, s, d, b) for _, n, k, o, s, d, b, _ in geometry]
        # taps clipped to X spare copying it into a padded buffer, unless an axis has only one tap reading X in
        # every window (stride 1): the result's first copy and the clipped taps' short passes then cost more
        self.pad_first = any(partial and len(whole) < 2 for whole, partial in clipped)
        if self.axis_taps is not None:
            self.axis_taps = [(a, o, clipped_taps(n + b + e, k, o, s, d, 0) if self.pad_first else taps)
                              for (a, n, k, o, s, d, b, e), taps in zip(geometry, clipped)]
        self.valid = window.valid_taps(xshape, kernel, out)
        self.overlapping = window.overlapping(kernel)
        self.tap_dtype = np.uint8 if len(self.taps) <= 256 else np.uint32
        # windows that tile X (stride == kernel, no dilation or padding: the usual 2x2 pooling) are axes of a view
        self.tiled = not any(window.begins) and not any(window.ends) and all(
            s == k and (d == 1 or k == 1) for k, s, d in zip(kernel, window.strides, window.dilations))
        self._counts = None

    def counts(self):
        """Per window ``(1, *out, 1)``: how many of its taps read the input (float64)."""
        if self._counts is None:
            total = np.ones((), np.float64)
            out = self.yshape[1:-1]
            for n, k, o, s, d, b in zip(self.xshape[1:-1], self.kernel, out, self.window.strides,
                                        self.window.dilations, self.window.begins):
                pos = np.arange(o)[:, None] * s + np.arange(k)[None, :] * d - b
                total = np.multiply.outer(total, ((pos >= 0) & (pos < n)).sum(axis=1))
            self._counts = total.reshape((1,) + out + (1,))
        return self._counts

    def padded_lowest(self, x):
        return self.window.pad(x, x.dtype, _lowest(x.dtype))

    def equal(self, xp, y, t):
        """Where tap ``t`` reads a (non-padding) value equal to its window's maximum."""
        eq = np.equal(xp[self.taps[t]], y)
        if self.valid[t] is not None:
            eq &= self.valid[t]
        return eq

    def winning_taps(self, xp, y):
        """Per output, the first tap (row-major) reading a non-padding value equal to the window's maximum."""
        tap = np.zeros(y.shape, self.tap_dtype)
        step = np.empty_like(tap)
        # scanning taps last to first, each equal one overwrites: tap += eq * (t - tap) in wrapping unsigned
        # arithmetic is a masked overwrite without a boolean-indexed copy
        for t in range(len(self.taps) - 1, -1, -1):
            np.subtract(t, tap, out=step)
            np.multiply(step, self.equal(xp, y, t), out=step)
            tap += step
        return tap

    def selected(self, x, y, ties):
        """Per tap, the windows whose gradient it receives (``ties``: "first" or "all" tied maxima)."""
        xp = self.padded_lowest(x)
        if ties == "all":
            return (self.equal(xp, y, t) for t in range(len(self.taps)))
        return self._first_maxima(xp, y)

    def _first_maxima(self, xp, y):
        # scanning taps in row-major order, a tap wins the windows where it reads the maximum and no earlier tap
        # did: two boolean passes per tap instead of winning_taps' unsigned arithmetic and a compare per tap
        taken = np.zeros(y.shape, bool)
        last = len(self.taps) - 1
        for t in range(last + 1):
            eq = self.equal(xp, y, t)
            if t:
                eq &= ~taken
            if t < last:
                taken |= eq
            yield eq

    def tiles(self, a):
        """For tiling windows: ``a`` (X-shaped) viewed as ``(N, O1, K1, ..., Od, Kd, C)``, each window's taps on
        axes of their own (X's tail past the last window left out)."""
        shape, strides = [a.shape[0]], [a.strides[0]]
        for o, k, step in zip(self.yshape[1:-1], self.kernel, a.strides[1:-1]):
            shape += [o, k]
            strides += [step * k, step]
        return np.lib.stride_tricks.as_strided(a, shape + [a.shape[-1]], strides + [a.strides[-1]],
                                               writeable=a.flags.writeable)

    def window_axes(self):
        """The kernel axes of :meth:`tiles`; a pooled array with unit axes there broadcasts against the tiles."""
        return tuple(range(2, 2 * self.window.nd + 1, 2))

    def check(self, op, name, array):
        if array.shape != self.yshape:
            raise ShapeError(f"{op}: {name} of shape {array.shape} is not the pooled shape {self.yshape} of an "
                             f"input of shape {self.xshape}")


def _plans(op, kernel_shape, strides, dilations, pads):
    """A per-shape cache of the bound op's ``_Plan``s: ``get(xshape)``."""
    kernel = tuple(kernel_shape)
    window = Window(op, len(kernel), strides, dilations, pads)
    cache = {}

    def get(xshape):
        plan = cache.get(xshape)
        if plan is None:
            bounded_cache(cache)
            plan = cache[xshape] = _Plan(window, kernel, xshape)
        return plan

    return get


def _pooled_infer(attrs, infos):
    x = infos[0]
    if x.shape is None or None in x.shape:
        return [TensorInfo(None, x.dtype)]
    kernel = tuple(attrs["kernel_shape"])
    window = Window("ChannelsLastPool", len(kernel), attrs["strides"], attrs["dilations"], attrs["pads"])
    return [TensorInfo((x.shape[0],) + window.out(x.shape, kernel) + (x.shape[-1],), x.dtype)]


def _like_input(index):
    def infer(attrs, infos):
        return [TensorInfo(infos[index].shape, infos[-1].dtype)]
    return infer


def _masked(values, mask, finite):
    """``values`` where ``mask``, else zero.  For ``finite`` values a multiply by the mask: several times faster
    than a select, and equal (a select keeps inf and nan out of the unmasked positions)."""
    if finite:
        return np.multiply(values, mask, dtype=values.dtype)
    return np.where(mask, values, values.dtype.type(0))


def _into(out, shape, dtype):
    """``out`` when it is a usable output buffer, else None."""
    return out if out is not None and out.shape == shape and out.dtype == dtype else None


# ------------------------------------------------------------------------------------------ max pool


def _tap_maxima(xp, taps, y):
    """The maximum of ``xp`` over ``taps`` (indexes of the padded input), one pass per tap, into ``y`` if given."""
    if y is None:
        y = xp[taps[0]].copy()
    else:
        np.copyto(y, xp[taps[0]])
    for index in taps[1:]:
        np.maximum(y, xp[index], out=y)
    return y


@defop("ChannelsLastMaxPool", inputs="X:T", outputs="Y:T", types={"T": _MAX_TYPES}, attrs=dict(_MAX_ATTRS),
       infer=_pooled_infer)
def channels_last_max_pool(dilations, kernel_shape, pads, strides, ties):
    """Maximum over sliding windows of ``X (N, *D, C)`` (padding never wins); ``ties`` picks which tied
    maxima the gradient goes to."""
    plans = _plans("ChannelsLastMaxPool", kernel_shape, strides, dilations, pads)

    def kernel(x, out=None):
        p = plans(x.shape)
        target = _into(out, p.yshape, x.dtype)
        if p.axis_taps is None:
            return _tap_maxima(p.padded_lowest(x), p.taps, target)
        y = p.padded_lowest(x) if p.pad_first else x
        computed = False  # whether ``y`` is a new array (not a view of ``x``)
        # one spatial axis at a time: sum(kernel) passes over arrays shrinking axis by axis instead of prod(kernel)
        # passes over the output (1.5-2x faster for 3x3 windows); the maximum of a set does not depend on the order
        last = len(p.axis_taps) - 1
        for a, (axis, count, taps) in enumerate(p.axis_taps):
            whole, partial = taps
            if len(whole) == 1 and not partial:
                y = y[(slice(None),) * axis + (whole[0],)]  # strided subsampling: a view
                continue
            y = clipped_pass(y, axis, count, taps, np.maximum, _lowest(x.dtype), target if a == last else None)
            computed = True
        if target is not None:
            if y is not target:
                np.copyto(target, y)
            return target
        return y if computed and y.base is None else y.copy()

    return kernel


@register_gradient("ChannelsLastMaxPool")
def _max_pool_grad(node, g):
    return (execute("ChannelsLastMaxPoolGrad", node.inputs[0], node.output(0), g, **node.attrs),)


@defop("ChannelsLastMaxPoolGrad", inputs="X:T Y:T dY:T", outputs="dX:T", types={"T": dt.FLOATS},
       attrs=dict(_MAX_ATTRS), infer=_like_input(0))
def channels_last_max_pool_grad(dilations, kernel_shape, pads, strides, ties):
    """Gradient of ChannelsLastMaxPool: each ``dY`` goes to its window's maxima in ``X`` (the first, or all tied
    ones), summed where windows overlap.  ``Y`` is the pooled ``X``."""
    op = "ChannelsLastMaxPoolGrad"
    plans = _plans(op, kernel_shape, strides, dilations, pads)

    def kernel(x, y, dy, out=None):
        p = plans(x.shape)
        p.check(op, "Y", y)
        p.check(op, "dY", dy)
        ct = compute_dtype(dy.dtype)
        g = dy if dy.dtype == ct else dy.astype(ct)
        finite = bool(np.isfinite(g).all())
        if p.tiled:
            target = _into(out, p.xshape, ct) if ct == dy.dtype and out is not None and out.flags.c_contiguous else None
            return np.ascontiguousarray(_tiled_grad(p, x, y, g, ties, finite, target), dy.dtype)
        gx = np.zeros(p.window.padded(x.shape), ct)
        accumulate = p.overlapping or ties == "all"
        for index, chosen in zip(p.taps, p.selected(x, y, ties)):
            if accumulate:
                gx[index] += _masked(g, chosen, finite)
            elif finite:  # each input position is in one window at most: written once, in place
                np.multiply(g, chosen, out=gx[index], dtype=ct)
            else:
                gx[index] = _masked(g, chosen, finite)
        gx = gx[p.window.interior(x.shape)] if gx.shape != x.shape else gx
        return np.ascontiguousarray(gx, dy.dtype)

    return kernel


def _tiled_grad(p, x, y, g, ties, finite, out=None):
    """ChannelsLastMaxPoolGrad for windows that tile X: one compare of X's tiles with their maxima, ties resolved
    on that mask (``"first"``), one product of the mask with ``g`` broadcast over the windows (one pass over X per
    tap costs 1.4x as much); written into ``out`` (a C-contiguous array of X's shape and ``g``'s dtype) if given."""
    axes = p.window_axes()
    chosen = np.equal(p.tiles(x), np.expand_dims(y, axes))
    if ties == "first":
        _keep_first(chosen, p.kernel)
    full = all(o * k == n for o, k, n in zip(p.yshape[1:-1], p.kernel, p.xshape[1:-1]))
    if out is None:
        gx = np.empty(p.xshape, g.dtype) if full else np.zeros(p.xshape, g.dtype)
    else:
        gx = out
        if not full:
            gx.fill(0)
    target = p.tiles(gx)
    spread = np.expand_dims(g, axes)
    if finite:
        np.multiply(spread, chosen, out=target)
    else:  # inf * 0 would put nan where no gradient goes
        np.copyto(target, np.where(chosen, spread, g.dtype.type(0)))
    return gx


def _keep_first(chosen, kernel):
    """Clear, in the tiled mask ``chosen`` ``(N, O1, K1, ..., Od, Kd, C)``, every True after a window's first in
    row-major tap order (ties: common after a Relu, whose zeros fill whole windows)."""
    taken = None
    taps = list(np.ndindex(*kernel))
    for t, tap in enumerate(taps):
        flags = chosen[(slice(None),) + tuple(a for i in tap for a in (slice(None), i)) + (slice(None),)]
        if taken is None:
            taken = flags.copy()
            continue
        np.greater(flags, taken, out=flags)  # flags and not taken
        if t < len(taps) - 1:
            taken |= flags


@register_gradient("ChannelsLastMaxPoolGrad")
def _max_pool_grad_grad(node, g):
    # dX is linear in dY with the chosen positions fixed (the gradient in X and Y is zero almost everywhere)
    x, y, _ = node.inputs
    return None, None, execute("ChannelsLastMaxPoolGradGrad", x, y, g, **node.attrs)


@defop("ChannelsLastMaxPoolGradGrad", inputs="X:T Y:T ddX:T", outputs="ddY:T", types={"T": dt.FLOATS},
       attrs=dict(_MAX_ATTRS), infer=_like_input(1))
def channels_last_max_pool_grad_grad(dilations, kernel_shape, pads, strides, ties):
    """Adjoint of ChannelsLastMaxPoolGrad in ``dY``: per window, the sum of ``ddX`` (X-shaped) over the positions
    its gradient goes to."""
    op = "ChannelsLastMaxPoolGradGrad"
    plans = _plans(op, kernel_shape, strides, dilations, pads)

    def kernel(x, y, ddx, out=None):
        p = plans(x.shape)
        p.check(op, "Y", y)
        if ddx.shape != x.shape:
            raise ShapeError(f"{op}: ddX of shape {ddx.shape} is not X's shape {x.shape}")
        ct = compute_dtype(ddx.dtype)
        gp = p.window.pad(ddx, ct)
        total = np.zeros(p.yshape, ct)
        finite = bool(np.isfinite(gp).all())
        for index, chosen in zip(p.taps, p.selected(x, y, ties)):
            total += _masked(gp[index], chosen, finite)
        return total if ct == ddx.dtype else total.astype(ddx.dtype)

    return kernel


@register_gradient("ChannelsLastMaxPoolGradGrad")
def _max_pool_grad_grad_grad(node, g):
    x, y, _ = node.inputs
    return None, None, execute("ChannelsLastMaxPoolGrad", x, y, g, **node.attrs)


def _argmax_infer(attrs, infos):
    return [TensorInfo(infos[1].shape, dt.int64)]


@defop("ChannelsLastMaxPoolArgmax", inputs="X:T Y:T", outputs="Indices:int64", types={"T": _MAX_TYPES},
       attrs=dict(_ATTRS), infer=_argmax_infer)
def channels_last_max_pool_argmax(dilations, kernel_shape, pads, strides):
    """Flat position in ``X`` (batch included, row-major ``(N, *D, C)``) of each window's first maximum.

    ``Y`` is the pooled ``X``.  This is TensorFlow's ``MaxPoolWithArgmax`` index with
    ``include_batch_in_index=True``.
    """
    op = "ChannelsLastMaxPoolArgmax"
    plans = _plans(op, kernel_shape, strides, dilations, pads)
    positions = {}

    def flat_positions(p):
        """``(offset per tap, window origin (1, *O, 1), batch/channel base (N, 1.., C))`` in X's flat index."""
        found = positions.get(p.xshape)
        if found is None:
            bounded_cache(positions)
            xshape, window, nd = p.xshape, p.window, p.window.nd
            step = [math.prod(xshape[i + 1:]) for i in range(1, nd + 1)]  # flat stride of each spatial axis
            taps = np.indices(p.kernel).reshape(nd, -1).T
            offsets = (taps * np.array(window.dilations) * np.array(step)).sum(axis=1).astype(np.int64)
            origin = np.zeros((1,) + p.yshape[1:-1] + (1,), np.int64)
            for i in range(nd):
                pos = (np.arange(p.yshape[1 + i], dtype=np.int64) * window.strides[i] - window.begins[i]) * step[i]
                origin += pos.reshape((1,) + (1,) * i + (-1,) + (1,) * (nd - i))
            base = (np.arange(xshape[0], dtype=np.int64) * math.prod(xshape[1:])).reshape((-1,) + (1,) * (nd + 1))
            found = positions[p.xshape] = offsets, origin, base + np.arange(xshape[-1], dtype=np.int64)
        return found

    def kernel(x, y, out=None):
        p = plans(x.shape)
        p.check(op, "Y", y)
        offsets, origin, base = flat_positions(p)
        index = np.take(offsets, p.winning_taps(p.padded_lowest(x), y))
        index += origin
        index += base
        return index

    return kernel


not_differentiable("ChannelsLastMaxPoolArgmax")


# -------------------------------------------------------------------------------------- average pool


@defop("ChannelsLastAveragePool", inputs="X:T", outputs="Y:T", types={"T": dt.FLOATS}, attrs=dict(_ATTRS),
       infer=_pooled_infer)
def channels_last_average_pool(dilations, kernel_shape, pads, strides):
    """Mean over sliding windows of ``X (N, *D, C)``, each window's sum divided by its taps inside ``X``."""
    plans = _plans("ChannelsLastAveragePool", kernel_shape, strides, dilations, pads)

    def kernel(x, out=None):
        p = plans(x.shape)
        ct = compute_dtype(x.dtype)
        xp = p.window.pad(x, ct)
        total = xp[p.taps[0]].copy()
        for index in p.taps[1:]:
            total += xp[index]
        total /= p.counts().astype(ct)
        return total if ct == x.dtype else total.astype(x.dtype)

    return kernel


@register_gradient("ChannelsLastAveragePool")
def _average_pool_grad(node, g):
    return (execute("ChannelsLastAveragePoolGrad", g, int64s(array_of(node.inputs[0]).shape), **node.attrs),)


def _shape_infer(attrs, infos):
    value = infos[1].value
    return [TensorInfo(None if value is None else tuple(int(v) for v in value), infos[0].dtype)]


@defop("ChannelsLastAveragePoolGrad", inputs="dY:T input_shape:int64", outputs="dX:T", types={"T": dt.FLOATS},
       attrs=dict(_ATTRS), infer=_shape_infer, value_inputs=("input_shape",))
def channels_last_average_pool_grad(dilations, kernel_shape, pads, strides):
    """Adjoint of ChannelsLastAveragePool: each ``dY`` over its window's count, added to the window's inputs
    (``input_shape`` is the pooled input's shape)."""
    op = "ChannelsLastAveragePoolGrad"
    plans = _plans(op, kernel_shape, strides, dilations, pads)

    def kernel(dy, input_shape, out=None):
        p = plans(tuple(int(v) for v in input_shape))
        p.check(op, "dY", dy)
        ct = compute_dtype(dy.dtype)
        g = np.divide(dy, p.counts().astype(ct), dtype=ct)
        gx = np.zeros(p.window.padded(p.xshape), ct)
        for index in p.taps:
            gx[index] += g
        gx = gx[p.window.interior(p.xshape)] if gx.shape != p.xshape else gx
        return np.ascontiguousarray(gx, dy.dtype)

    return kernel


@register_gradient("ChannelsLastAveragePoolGrad")
def _average_pool_grad_grad(node, g):
    return execute("ChannelsLastAveragePool", g, **node.attrs), None
