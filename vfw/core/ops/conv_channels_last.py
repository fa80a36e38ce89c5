"""Channels-last convolution (TensorFlow's layout): ChannelsLastConv, ChannelsLastConvTranspose and
ChannelsLastConvGradFilter.

``X`` is ``(N, D1, ..., Dd, C)``, ``W`` is ``(K1, ..., Kd, C / group, M)`` (TensorFlow's HWIO filters;
group ``g`` reads input channels ``[g * C/group, (g + 1) * C/group)`` and writes output channels
``[g * M/group, (g + 1) * M/group)``), ``Y`` is ``(N, O1, ..., Od, M)``.  In this layout im2col is a
window view ``(N, *O, *K, C)`` of the padded input whose rows ``(N * prod(O), prod(K) * C)`` multiply
the filter ``(prod(K) * C, M)`` as stored: one GEMM per group and batch slice, no transposes of
data or filters (inputs with very few channels copy the columns tap-major instead, and pass them to the
GEMM transposed).  Depthwise convolutions (one input channel per group) skip the columns: each output is
an einsum over the window view, and the transposed convolution one einsum per tap.  Half-precision
inputs accumulate in float32.

The three ops are each other's gradients (``Y = Conv(X, W)`` is bilinear): ``dX`` is the transposed
convolution of ``dY`` by ``W`` (per kernel tap a GEMM added into the positions it reads), ``dW`` is
ChannelsLastConvGradFilter (the columns of ``X`` times ``dY``), and their own gradients are these
ops again, so every order of derivative is available.
"""

import math

import numpy as np

from vfw.core import dtypes as dt
from vfw.core.autograd import register_gradient
from vfw.core.errors import ShapeError
from vfw.core.ops._channels_last import WINDOW_ATTRS, Window, batch_chunk
from vfw.core.ops._common import array_of, execute, int64s, positive
from vfw.core.ops._windows import bounded_cache, columns, compute_dtype
from vfw.core.registry import Attr, TensorInfo, defop

# column elements (2 MiB of float32) above which the batch is processed in slices: a slice's columns are still in
# L2 when its GEMM reads them (the Keras CNN's second conv: forward 8.2 -> 4.6 ms, filter gradient 7.5 -> 5 ms)
_COLS_LIMIT = 1 << 19
_TAP_MAJOR_CHANNELS = 4  # ungrouped inputs with fewer channels than this make their im2col columns tap by tap

_ATTRS = dict(WINDOW_ATTRS, group=Attr("int", 1, check=positive))


class _Plan:
    """Shapes of one convolution: input, filter, output, groups, and the batch slice bounding the columns."""

    __slots__ = ("window", "xshape", "kernel", "out", "n", "c", "cg", "m", "mg", "group", "k", "npix",
                 "yshape", "wshape", "chunk", "taps", "depthwise", "full")

    def __init__(self, op, window, xshape, wshape, group):
        nd = window.nd
        if len(wshape) != nd + 2:
            raise ShapeError(f"{op}: filter of shape {tuple(wshape)} must have rank {nd + 2} "
                             f"({nd} kernel axes, C / group, M)")
        self.kernel, (self.cg, self.m) = tuple(wshape[:nd]), wshape[nd:]
        self.out = window.out(xshape, self.kernel)
        self.n, self.c = xshape[0], xshape[-1]
        if self.cg * group != self.c:
            raise ShapeError(f"{op}: input of shape {tuple(xshape)} has {self.c} channels but the filter of shape "
                             f"{tuple(wshape)} with group={group} reads {self.cg * group}")
        if self.m % group:
            raise ShapeError(f"{op}: output depth must be evenly divisible by number of groups: {self.m} vs {group}")
        self.window, self.xshape, self.wshape, self.group = window, tuple(xshape), tuple(wshape), group
        self.mg = self.m // group
        self.k, self.npix = math.prod(self.kernel), math.prod(self.out)
        self.yshape = (self.n,) + self.out + (self.m,)
        self.chunk = batch_chunk(self.n, self.npix * self.k * self.c, _COLS_LIMIT)
        self.taps = window.taps(self.kernel, self.out)
        # one input channel per group (depthwise): per-channel window sums beat batched GEMMs of width 1
        self.depthwise = self.full = None
        if self.cg == 1 and group > 1:
            out, ker = "xyz"[:nd], "ijk"[:nd]
            self.depthwise = (f"n{out}{ker}c,{ker}cm->n{out}cm", f"n{out}cm,cm->n{out}c",
                              f"n{out}{ker}c,n{out}cm->{ker}cm", f"n{out}{ker}cm,{ker}cm->n{out}c")
            if all(st == 1 for st in window.strides):
                # with stride 1 the transposed convolution is a correlation of dY padded by the window extent
                # minus one on both sides with the flipped filter: one einsum instead of one per tap
                extents = [(k - 1) * d for k, d in zip(self.kernel, window.dilations)]
                self.full = Window(op, nd, None, window.dilations, extents + extents)

    def columns(self, xp, ones=False):
        """im2col of a batch slice of the padded input: ``(group, rows, prod(K) * C / group)``, with ``ones`` a last
        column of ones (for weights with the bias as their last row)."""
        view = self.window.view(xp, self.kernel, self.out)
        rows = len(xp) * self.npix
        nd = self.window.nd
        if self.group == 1 and self.c < _TAP_MAJOR_CHANNELS:
            # few channels (a first layer): a row of C * prod(K) scattered elements per output pixel copies slowly;
            # tap-major columns copy runs of output pixels and are the GEMMs' transposed operand (2x faster overall)
            order = tuple(range(nd + 1, 2 * nd + 2)) + tuple(range(nd + 1))
            return columns(view.transpose(order), (1, self.k * self.c, rows), -2 if ones else None).transpose(0, 2, 1)
        if self.group == 1:
            return columns(view, (1, rows, self.k * self.c), -1 if ones else None)
        view = view.reshape(view.shape[:-1] + (self.group, self.cg))
        order = (2 * nd + 1,) + tuple(range(2 * nd + 1)) + (2 * nd + 2,)
        return columns(view.transpose(order), (self.group, rows, self.k * self.cg), -1 if ones else None)

    def grouped_filter(self, w):
        """The filter as ``(group, prod(K) * C / group, M / group)``."""
        if self.group == 1:
            return w.reshape(1, self.k * self.c, self.m)
        return w.reshape(self.k, self.cg, self.group, self.mg).transpose(2, 0, 1, 3).reshape(
            self.group, self.k * self.cg, self.mg)

    def grouped_rows(self, dy):
        """An output-shaped batch slice as ``(group, rows, M / group)``."""
        return dy.reshape(-1, self.group, self.mg).transpose(1, 0, 2)

    def forward(self, xp, w, out=None, bias=None):
        """``Y`` from the padded input and the filter (both of the compute dtype), plus ``bias`` (``(M,)``) when
        given; with one group the GEMMs write ``out`` (a C-contiguous array of Y's shape and the compute dtype)
        when given."""
        if self.depthwise:
            view = self.window.view(xp, self.kernel, self.out)
            y = np.einsum(self.depthwise[0], view, w.reshape(self.kernel + (self.c, self.mg)))
            if bias is not None:
                y += bias.reshape(self.c, self.mg)
            return y
        wg = self.grouped_filter(w)
        if bias is not None:  # the bias as the weights' last row, against a column of ones (see _windows.columns)
            wg = np.concatenate([wg, bias.reshape(self.group, 1, self.mg)], axis=1)
        shape = (self.group, self.n * self.npix, self.mg)
        y = np.empty(shape, xp.dtype) if out is None else out.reshape(shape)
        for start in range(0, self.n, self.chunk):
            part = xp[start:start + self.chunk]
            rows = y[:, start * self.npix:(start + len(part)) * self.npix]
            np.matmul(self.columns(part, bias is not None), wg, out=rows)
        return y[0] if self.group == 1 else np.ascontiguousarray(y.transpose(1, 0, 2))

    def add_transposed(self, xp, dy, w):
        """Add the transposed convolution of ``dy`` by ``w`` into the zeroed padded input ``xp``."""
        if self.depthwise:
            rows = dy.reshape(self.yshape[:-1] + (self.c, self.mg))
            filters = w.reshape(self.kernel + (self.c, self.mg))
            if self.full is not None:
                padded = self.full.pad(rows.reshape(rows.shape[:-2] + (-1,)), dy.dtype)
                view = self.full.view(padded, self.kernel, xp.shape[1:-1])
                flipped = filters[(slice(None, None, -1),) * self.window.nd]
                xp[...] = np.einsum(self.depthwise[3], view.reshape(view.shape[:-1] + (self.c, self.mg)), flipped)
                return
            for index, tap in zip(self.taps, filters.reshape(self.k, self.c, self.mg)):
                xp[index] += np.einsum(self.depthwise[1], rows, tap)
            return
        if self.group == 1:
            # one GEMM per tap into a batch-slice buffer: the adds then read contiguous rows (a quarter faster
            # than one GEMM to (rows, K * C) columns whose per-tap slices are strided)
            filters = w.reshape(self.k, self.c, self.m)
            for start in range(0, self.n, self.chunk):
                part = dy[start:start + self.chunk]
                rows, target = part.reshape(-1, self.m), xp[start:start + self.chunk]
                buf = np.empty((len(rows), self.c), xp.dtype)
                shaped = buf.reshape((len(part),) + self.out + (self.c,))
                for t, index in enumerate(self.taps):
                    np.matmul(rows, filters[t].T, out=buf)
                    target[index] += shaped
            return
        wt = self.grouped_filter(w).transpose(0, 2, 1)
        for start in range(0, self.n, self.chunk):
            part = dy[start:start + self.chunk]
            cols = np.matmul(self.grouped_rows(part), wt)  # (group, rows, K * C/group)
            cols = cols.reshape(self.group, -1, self.k, self.cg).transpose(1, 2, 0, 3)
            cols = np.ascontiguousarray(cols).reshape((len(part),) + self.out + (self.k, self.c))
            target = xp[start:start + self.chunk]
            for t, index in enumerate(self.taps):
                target[index] += cols[..., t, :]

    def filter_gradient(self, xp, dy):
        """``dW`` from the padded input and the output gradient (compute dtype)."""
        if self.depthwise:
            view = self.window.view(xp, self.kernel, self.out)
            return np.einsum(self.depthwise[2], view, dy.reshape(self.yshape[:-1] + (self.c, self.mg)))
        acc = np.zeros((self.group, self.k * self.cg, self.mg), xp.dtype)
        for start in range(0, self.n, self.chunk):
            acc += np.matmul(self.columns(xp[start:start + self.chunk]).transpose(0, 2, 1),
                             self.grouped_rows(dy[start:start + self.chunk]))
        return acc[0] if self.group == 1 else acc.reshape(self.group, self.k, self.cg, self.mg).transpose(1, 2, 0, 3)


def _plans(op, strides, dilations, pads, group):
    """A per-shape cache of ``_Plan``s for a bound op: ``get(xshape, wshape)``."""
    cache, windows = {}, {}

    def get(xshape, wshape):
        key = (xshape, wshape)
        plan = cache.get(key)
        if plan is None:
            nd = len(wshape) - 2
            window = windows.get(nd)
            if window is None:
                window = windows[nd] = Window(op, nd, strides, dilations, pads)
            bounded_cache(cache)
            plan = cache[key] = _Plan(op, window, xshape, wshape, group)
        return plan

    return get


def _as(a, dtype):
    return a if a.dtype == dtype else a.astype(dtype)


def _result(y, dtype, out):
    """``y`` in the op's dtype (half precision computes in float32), written into ``out`` when given."""
    if out is not None and out.shape == y.shape and out.dtype == dtype:
        np.copyto(out, y)
        return out
    return _as(y, dtype)


def _window_attrs(attrs):
    return {k: attrs[k] for k in ("dilations", "group", "pads", "strides")}


def _shape_of(value):
    return tuple(int(v) for v in value)


# ------------------------------------------------------------------------------------------ forward


def _conv_infer(attrs, infos):
    x, w = infos[:2]
    if x.shape is None or w.shape is None or None in x.shape[1:] or None in w.shape:
        return [TensorInfo(None, x.dtype)]
    nd = len(w.shape) - 2
    window = Window("ChannelsLastConv", nd, attrs["strides"], attrs["dilations"], attrs["pads"])
    return [TensorInfo((x.shape[0],) + window.out(x.shape, tuple(w.shape[:nd])) + (w.shape[-1],), x.dtype)]


@defop("ChannelsLastConv", inputs="X:T W:T B?:T", outputs="Y:T", types={"T": dt.FLOATS}, attrs=dict(_ATTRS),
       infer=_conv_infer)
def channels_last_conv(dilations, group, pads, strides):
    """Grouped N-D convolution (cross-correlation) of ``X (N, *D, C)`` by ``W (*K, C/group, M)``, plus the bias
    ``B (M,)`` when given."""
    plans = _plans("ChannelsLastConv", strides, dilations, pads, group)

    def kernel(x, w, b=None, out=None):
        p = plans(x.shape, w.shape)
        if b is not None and b.shape != (p.m,):
            raise ShapeError(f"ChannelsLastConv: bias of shape {b.shape} must be ({p.m},), one per output channel "
                             f"of the filter of shape {w.shape}")
        ct = compute_dtype(x.dtype)
        # one group's GEMMs write the output buffer itself (a copy of Y saved)
        direct = (out is not None and p.group == 1 and not p.depthwise and out.shape == p.yshape and out.dtype == ct
                  and out.flags.c_contiguous)
        y = p.forward(p.window.pad(x, ct), _as(w, ct), out if direct else None, None if b is None else _as(b, ct))
        return out if direct else _result(y.reshape(p.yshape), x.dtype, out)

    return kernel


@register_gradient("ChannelsLastConv")
def _conv_grad(node, g):
    return channels_last_conv_grads(node.inputs, node.needs_input_grad, g, _window_attrs(node.attrs))


def channels_last_conv_grads(inputs, needs, g, attrs):
    """Gradients of ``ChannelsLastConv(X, W[, B])`` (``inputs``, ``needs`` their ``needs_input_grad``) for the
    output gradient ``g``; ``attrs`` the convolution's window attributes."""
    x, w = inputs[:2]
    gx = execute("ChannelsLastConvTranspose", g, w, int64s(array_of(x).shape), **attrs) if needs[0] else None
    gw = (execute("ChannelsLastConvGradFilter", x, g, kernel_shape=list(array_of(w).shape[:-2]), **attrs)
          if needs[1] else None)
    if len(inputs) < 3 or inputs[2] is None:
        return gx, gw
    if not needs[2]:
        return gx, gw, None
    return gx, gw, execute("ReduceSum", g, int64s(list(range(array_of(g).ndim - 1))), keepdims=0)


# --------------------------------------------------------------------------------------- transpose


def _transpose_infer(attrs, infos):
    return [TensorInfo(None if infos[2].value is None else _shape_of(infos[2].value), infos[0].dtype)]


@defop("ChannelsLastConvTranspose", inputs="dY:T W:T input_shape:int64", outputs="dX:T", types={"T": dt.FLOATS},
       attrs=dict(_ATTRS), infer=_transpose_infer, value_inputs=("input_shape",))
def channels_last_conv_transpose(dilations, group, pads, strides):
    """Adjoint of ChannelsLastConv in X: ``dX`` of shape ``input_shape`` from ``dY (N, *O, M)`` and ``W``.

    Each window's columns ``dY W^T`` are added back onto the input positions the window read (one strided
    add per kernel tap); positions no window reads get zero.  This is TensorFlow's transposed convolution
    (``conv2d_transpose``, ``Conv2DBackpropInput``) with ``input_shape`` as its output shape.
    """
    plans = _plans("ChannelsLastConvTranspose", strides, dilations, pads, group)

    def kernel(dy, w, input_shape, out=None):
        xshape = _shape_of(input_shape)
        p = plans(xshape, w.shape)
        if dy.shape != p.yshape:
            raise ShapeError(f"ChannelsLastConvTranspose: dY of shape {dy.shape} is not the convolution output "
                             f"shape {p.yshape} for an input of shape {xshape} and a filter of shape {w.shape}")
        ct = compute_dtype(dy.dtype)
        padded = p.window.padded(xshape)
        if (out is not None and padded == xshape and out.shape == xshape and out.dtype == ct
                and out.flags.c_contiguous):
            out.fill(0)  # no padding: the sums accumulate in the output buffer itself
            p.add_transposed(out, _as(dy, ct), _as(w, ct))
            return out
        xp = np.zeros(padded, ct)
        p.add_transposed(xp, _as(dy, ct), _as(w, ct))
        x = xp[p.window.interior(xshape)] if xp.shape != xshape else xp
        return _result(np.ascontiguousarray(x), dy.dtype, out)

    return kernel


@register_gradient("ChannelsLastConvTranspose")
def _conv_transpose_grad(node, g):
    dy, w, _ = node.inputs
    need_dy, need_w, _ = node.needs_input_grad
    attrs = _window_attrs(node.attrs)
    gdy = execute("ChannelsLastConv", g, w, **attrs) if need_dy else None
    gw = (execute("ChannelsLastConvGradFilter", g, dy, kernel_shape=list(array_of(w).shape[:-2]), **attrs)
          if need_w else None)
    return gdy, gw, None


# ------------------------------------------------------------------------------------ filter gradient


def _filter_infer(attrs, infos):
    x, dy = infos
    c = None if x.shape is None else x.shape[-1]
    m = None if dy.shape is None else dy.shape[-1]
    return [TensorInfo(tuple(attrs["kernel_shape"]) + (None if c is None else c // attrs["group"], m), x.dtype)]


@defop("ChannelsLastConvGradFilter", inputs="X:T dY:T", outputs="dW:T", types={"T": dt.FLOATS},
       attrs=dict(_ATTRS, kernel_shape=Attr("ints", check=positive)), infer=_filter_infer)
def channels_last_conv_grad_filter(dilations, group, kernel_shape, pads, strides):
    """Gradient of ChannelsLastConv in W: the columns of ``X`` times ``dY``, one GEMM per group.

    ``kernel_shape`` is W's spatial shape; W is ``(*kernel_shape, C/group, dY.shape[-1])``.
    """
    plans = _plans("ChannelsLastConvGradFilter", strides, dilations, pads, group)

    def kernel(x, dy, out=None):
        if x.ndim != len(kernel_shape) + 2 or x.shape[-1] % group:
            raise ShapeError(f"ChannelsLastConvGradFilter: input of shape {x.shape} must have rank "
                             f"{len(kernel_shape) + 2} and channels divisible by group={group}")
        wshape = tuple(kernel_shape) + (x.shape[-1] // group, dy.shape[-1])
        p = plans(x.shape, wshape)
        if dy.shape != p.yshape:
            raise ShapeError(f"ChannelsLastConvGradFilter: dY of shape {dy.shape} is not the convolution output "
                             f"shape {p.yshape} for an input of shape {x.shape} and a filter of shape {wshape}")
        ct = compute_dtype(x.dtype)
        dw = p.filter_gradient(p.window.pad(x, ct), _as(dy, ct))
        return _result(np.ascontiguousarray(dw).reshape(wshape), x.dtype, out)

    return kernel


@register_gradient("ChannelsLastConvGradFilter")
def _conv_grad_filter_grad(node, g):
    # dW is bilinear in (X, dY): <dW(X, dY), G> = <Conv(X, G), dY> = <X, ConvTranspose(dY, G)>
    x, dy = node.inputs
    need_x, need_dy = node.needs_input_grad
    attrs = _window_attrs(node.attrs)
    gx = execute("ChannelsLastConvTranspose", dy, g, int64s(array_of(x).shape), **attrs) if need_x else None
    return gx, (execute("ChannelsLastConv", x, g, **attrs) if need_dy else None)
