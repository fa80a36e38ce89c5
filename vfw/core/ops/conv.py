"""Convolution: Conv and ConvTranspose (1-D, 2-D, 3-D, ..., NCHW layout, grouped).

Conv is an im2col product: a strided window view of the padded input is
copied into columns, in batch slices of about 1 MiB that stay in cache for
their GEMM (an item's large columns in blocks of output rows, when its GEMM
would be memory-bound), and multiplied by the weights with one batched matmul per slice
(also for depthwise convolutions, where it beats per-tap broadcast
multiply-adds at every size measured; ``_depthwise`` cuts their columns
from flattened planes at stride 1, or runs small ones channels-last); 1x1 kernels read X itself.  Where the
output is large next to the weights, the bias is one more weight column against
a row of ones below the columns, so the GEMM adds it.  ConvTranspose is Conv's
adjoint: one batched matmul to columns, then col2im by strided-slice adds, one
per kernel tap.  Half-precision inputs accumulate in float32.

Gradients are made of these ops and one more, so they can be differentiated to
any order: the input gradient of either op is the other op applied to the
output gradient with the same weights; the weight gradient is the engine op
ConvGradFilter (the forward's im2col columns times the output gradient, one
GEMM per group), whose own gradients are a Conv and a ConvTranspose again.
"""

import itertools
import math

import numpy as np

from vfw.core import dtypes as dt
from vfw.core.autograd import register_gradient
from vfw.core.errors import OpAttributeError, ShapeError
from vfw.core.ops._common import array_of, execute, int64s, non_negative, positive, zeros
from vfw.core.ops._depthwise import DEPTHWISE_PLANS, depthwise, depthwise_plan, takes_depthwise
from vfw.core.ops._windows import (
    AUTO_PADS,
    bounded_cache,
    columns,
    compute_dtype,
    output_geometry,
    pad,
    pad_plan,
    per_axis,
    split_pads,
    window_layout,
    window_view,
)
from vfw.core.registry import Attr, TensorInfo, defop

_COLS_LIMIT = 1 << 25  # im2col elements (128 MiB of float32) above which ConvGradFilter works in batch slices
_CACHE_COLS = 1 << 18  # im2col elements (1 MiB of float32) per batch slice of Conv (at least one item)
# an item's columns are made in blocks of output rows when they are large (over 4 MiB of float32) for a large
# image and few output channels per group: the GEMM then reads each column about once, at memory speed, unless
# they are still in cache (densenet's 3x3 convolutions at 56x56, 128 -> 32 channels: 13% faster); with more output
# channels the GEMM is compute-bound and a full-width one is faster
_ROW_BLOCK_COLS, _ROW_BLOCK_PIXELS, _ROW_BLOCK_CHANNELS = 1 << 20, 2048, 64

_SPATIAL_ATTRS = {
    "auto_pad": Attr("string", "NOTSET", choices=AUTO_PADS),
    "dilations": Attr("ints", None, check=positive),
    "group": Attr("int", 1, check=positive),
    "kernel_shape": Attr("ints", None, check=positive),
    "pads": Attr("ints", None, check=non_negative),
    "strides": Attr("ints", None, check=positive),
}


def _shape(shape):
    return "(" + ", ".join("?" if d is None else str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"


def _check_common(op, xshape, wshape, bshape, kernel_shape, group, transpose):
    """Validate X/W/B shapes; return ``(nd, C, M)`` (input and output channel counts)."""
    if len(xshape) < 3:
        raise ShapeError(f"{op}: X shape {_shape(xshape)} needs rank >= 3 (N, C and at least one spatial axis)")
    if len(wshape) != len(xshape):
        raise ShapeError(f"{op}: W shape {_shape(wshape)} must have the rank of X shape {_shape(xshape)}")
    nd = len(xshape) - 2
    if 0 in wshape[2:]:
        raise ShapeError(f"{op}: W shape {_shape(wshape)} has an empty kernel axis")
    if kernel_shape is not None and tuple(kernel_shape) != tuple(wshape[2:]) and None not in wshape[2:]:
        raise ShapeError(f"{op}: attribute kernel_shape={list(kernel_shape)} disagrees with W shape {_shape(wshape)}")
    c = xshape[1]
    if transpose:
        if c is not None and wshape[0] is not None and c != wshape[0]:
            raise ShapeError(
                f"{op}: X shape {_shape(xshape)} has {c} channels but W shape {_shape(wshape)} has "
                f"W.shape[0] = {wshape[0]} (group={group})"
            )
        if wshape[0] is not None and wshape[0] % group:
            raise ShapeError(
                f"{op}: W shape {_shape(wshape)}: W.shape[0] = {wshape[0]} is not divisible by group={group}"
            )
        m = None if wshape[1] is None else wshape[1] * group
    else:
        if c is not None and wshape[1] is not None and c != wshape[1] * group:
            raise ShapeError(
                f"{op}: X shape {_shape(xshape)} has {c} channels but W shape {_shape(wshape)} with group={group} "
                f"needs W.shape[1] * group = {wshape[1] * group}"
            )
        m = wshape[0]
        if m is not None and m % group:
            raise ShapeError(f"{op}: W shape {_shape(wshape)}: {m} output channels are not divisible by group={group}")
    if bshape is not None and m is not None and tuple(bshape) not in ((m,), (None,)):
        raise ShapeError(f"{op}: B shape {_shape(bshape)} must be ({m},) (one bias per output channel)")
    return nd, c, m


# ---------------------------------------------------------------------------------------------- Conv


def _batch_inner(nd):
    """Window view ``(n, G, cg, *kernel, *out)`` -> ``(G, cg, *kernel, n, *out)``: columns whose inner axis runs
    over the batch and the output pixels (one GEMM per group covers the whole batch)."""
    return (1, 2) + tuple(range(3, 3 + nd)) + (0,) + tuple(range(3 + nd, 3 + 2 * nd))


def _conv_geometry(attrs, xshape, wshape, bshape):
    op = "Conv"
    nd, c, m = _check_common(op, xshape, wshape, bshape, attrs["kernel_shape"], attrs["group"], False)
    kernel = tuple(wshape[2:])
    strides = per_axis(op, "strides", attrs["strides"], nd, 1)
    dilations = per_axis(op, "dilations", attrs["dilations"], nd, 1)
    pads = split_pads(op, attrs["pads"], nd)
    out, begins, ends = output_geometry(op, tuple(xshape[2:]), kernel, strides, dilations, pads, attrs["auto_pad"])
    return nd, kernel, strides, dilations, out, begins, ends, m


def _conv_infer(attrs, infos):
    x, w, b = (list(infos) + [None])[:3]
    if x.shape is None or w.shape is None or None in w.shape[2:]:
        return [TensorInfo(None, x.dtype)]
    geo = _conv_geometry(attrs, x.shape, w.shape, None if b is None else b.shape)
    return [TensorInfo((x.shape[0], geo[-1]) + geo[4], x.dtype)]


def _with_bias(wr, b):
    """The grouped weights ``(G, mg, cg * k)`` with the bias as one more column, for columns with a row of ones
    (:func:`~vfw.core.ops._windows.columns`): the GEMM then adds the bias (a 1x1 convolution of 16 -> 64 channels
    at 55x55: 0.13 -> 0.05 ms)."""
    return np.concatenate([wr, b.reshape(wr.shape[:2] + (1,)).astype(wr.dtype, copy=False)], axis=2)


def _gemm_by_rows(wr, view, y, rows, perm, ones):
    """One item's convolution in blocks of ``rows`` output rows (first spatial axis), each block's columns copied
    and multiplied while in cache: ``wr`` the grouped weights ``(G, mg, cg * k)`` (plus the bias column with
    ``ones``), ``view`` the item's window view ``(1, G, cg, *kernel, *out)``, ``y`` its output ``(G, mg, pixels)``
    (each block's GEMM writes its columns)."""
    axis = (view.ndim + 3) // 2  # the first output axis: after (1, G, cg) and the kernel axes
    per_row = y.shape[2] // view.shape[axis]
    k = wr.shape[2] - ones
    for r in range(0, view.shape[axis], rows):
        block = view[(slice(None),) * axis + (slice(r, r + rows),)].transpose(perm)
        cols = columns(block, (wr.shape[0], k, block.size // (wr.shape[0] * k)), -2 if ones else None)
        np.matmul(wr, cols, out=y[:, :, r * per_row:r * per_row + cols.shape[2]])


@defop("Conv", inputs="X:T W:T B?:T", outputs="Y:T", types={"T": dt.FLOATS}, attrs=dict(_SPATIAL_ATTRS),
       infer=_conv_infer)
def conv(auto_pad, dilations, group, kernel_shape, pads, strides):
    """N-D convolution with strides, pads, dilations and groups (cross-correlation, like ONNX)."""
    attrs = {"auto_pad": auto_pad, "dilations": dilations, "group": group, "kernel_shape": kernel_shape,
             "pads": pads, "strides": strides}
    cache = {}

    def plan(xshape, wshape, bshape):
        nd, kernel, st, dil, out, begins, ends, m = _conv_geometry(attrs, xshape, wshape, bshape)
        n, c = xshape[:2]
        cg, mg = c // group, m // group
        if takes_depthwise(nd, cg, kernel):
            plan = depthwise_plan(xshape, m, kernel, st, dil, begins, ends, out)
            if plan is not None:
                return plan
        padding = pad_plan(xshape, begins, ends)
        padded = xshape if padding is None else padding[0]
        grouped = (n, group, cg) + tuple(padded[2:])
        k, npix = math.prod(kernel), math.prod(out)
        per_item = group * cg * k * npix  # column elements per batch item
        layout = window_layout(grouped, kernel, st, dil, out)
        # the columns of 1x1 kernels are a view of X: one batched GEMM, nothing copied; others are copied in batch
        # slices small enough to stay in cache until their GEMM reads them (1.4x faster than whole-batch columns)
        view_only = k == 1 and all(s == 1 for s in st) and padding is None
        chunk = None if view_only else max(1, _CACHE_COLS // max(per_item, 1))
        # a slice's columns batch-inner: one GEMM per group for the slice (fewer, larger BLAS calls, which also
        # thread better than one per batch item); but when the output has more rows than the columns (few input
        # channels, e.g. a first layer), moving its batch axis back costs more than the GEMMs save: one GEMM per
        # batch item then writes the output in place
        inner = not view_only and (n == 1 or mg <= cg * k)
        rows = None
        if not view_only and per_item >= _ROW_BLOCK_COLS and npix >= _ROW_BLOCK_PIXELS and mg <= _ROW_BLOCK_CHANNELS:
            rows = max(1, _CACHE_COLS * out[0] // per_item)  # output rows (first spatial axis) per block
        # the bias as a GEMM column (see _with_bias) where widening the weights (a copy of them) costs less than the
        # pass over Y it saves: at least twice as many output pixels as weights per output channel (32 -> 128
        # channels 3x3 at 27x27: 0.43 -> 0.33 ms; 512 -> 512 at 7x7 would take 1.7 -> 3 ms); for 1x1 kernels also
        # where copying X to add the row of ones costs less, with fewer input than output channels
        ones = bshape is not None and n * npix >= 2 * cg * k and (not view_only or cg <= mg)
        return (padding, grouped, layout, (n, group, cg * k, npix), (group, mg, cg * k), (n, group, mg, npix),
                (n, m) + out, (m,) + (1,) * nd, chunk, inner, _batch_inner(nd), rows, ones)

    def kernel_fn(x, w, b=None, out=None):
        key = (x.shape, w.shape, None if b is None else b.shape)
        p = cache.get(key)
        if p is None:
            bounded_cache(cache)
            p = cache[key] = plan(*key)
        if type(p) in DEPTHWISE_PLANS:
            return depthwise(x, w, b, p, out)
        padding, grouped, layout, cols_shape, w_shape, y_shape, out_shape, b_shape, chunk, inner, perm, rows, ones = p
        ct = compute_dtype(x.dtype)
        xp = pad(x, padding, ct).reshape(grouped)
        wr = (w if w.dtype == ct else w.astype(ct)).reshape(w_shape)
        if ones:
            wr = _with_bias(wr, b)
        direct = out is not None and ct == x.dtype and out.flags.c_contiguous
        if chunk is None:
            cols = window_view(xp, layout)  # a view of X
            cols = columns(cols, cols_shape, -2) if ones else cols.reshape(cols_shape)
            y = np.matmul(wr, cols, out=out.reshape(y_shape) if direct else None).reshape(out_shape)
        else:
            y = out.reshape(y_shape) if direct else np.empty(y_shape, ct)
            for start in range(0, y_shape[0], chunk):
                part = xp[start:start + chunk]
                nb = len(part)
                view = window_view(part, ((nb,) + layout[0][1:], layout[1]))  # the slice's im2col, copied below
                if rows is not None:  # one item (its columns are over _CACHE_COLS)
                    _gemm_by_rows(wr, view, y[start], rows, perm, ones)
                    continue
                if not inner:
                    np.matmul(wr, columns(view, (nb,) + cols_shape[1:], -2 if ones else None),
                              out=y[start:start + nb])
                    continue
                cols = columns(view.transpose(perm), (w_shape[0], w_shape[2], nb * cols_shape[3]),
                               -2 if ones else None)
                if nb == 1:  # (group, mg, 1, pixels) is the item's own layout: the GEMM writes it in place
                    np.matmul(wr, cols, out=y[start])
                else:
                    y[start:start + nb] = np.matmul(wr, cols).reshape(y_shape[1:3] + (nb, -1)).transpose(2, 0, 1, 3)
            y = y.reshape(out_shape)
        if b is not None and not ones:
            y += b.reshape(b_shape) if b.dtype == ct else b.astype(ct).reshape(b_shape)
        if direct:
            return out
        return y if ct == x.dtype else y.astype(x.dtype)

    return kernel_fn


# ------------------------------------------------------------------------------------ Conv gradients


def _padded3(seq):
    return (tuple(seq) + (None, None, None))[:3]


def _conv_attrs(attrs):
    return {k: attrs[k] for k in ("auto_pad", "dilations", "group", "pads", "strides")}


def _tail_ends(out, strides, kernel, dilations, in_sp, begins):
    """Per axis, the end pad after which Conv's last window ends exactly (negative: an input tail no window reads)."""
    return [(o - 1) * s + (k - 1) * d + 1 - n - b
            for o, s, k, d, n, b in zip(out, strides, kernel, dilations, in_sp, begins)]


def _conv_input_grad(g, w, xshape, attrs):
    """Gradient of Conv(X, w) for X of ``xshape``: ConvTranspose of ``g`` by the same weights."""
    geo = _conv_geometry(dict(attrs, kernel_shape=None), xshape, array_of(w).shape, None)
    _, kernel, strides, dilations, out, begins, _, _ = geo
    ends = _tail_ends(out, strides, kernel, dilations, xshape[2:], begins)
    # the tail no window reads (shorter than a stride) comes back as output_padding
    opad = [max(0, -e) for e in ends]
    return execute("ConvTranspose", g, w, group=attrs["group"], strides=list(strides), dilations=list(dilations),
                   pads=list(begins) + [max(0, e) for e in ends], output_padding=opad if any(opad) else None)


def _bias_grad(g, nd):
    return execute("ReduceSum", g, int64s([0] + list(range(2, 2 + nd))), keepdims=0)


@register_gradient("Conv")
def _conv_grad(node, g):
    x, w, b = _padded3(node.inputs)
    need_x, need_w, need_b = _padded3(node.needs_input_grad)
    attrs = _conv_attrs(node.attrs)
    ws = array_of(w).shape
    gx = _conv_input_grad(g, w, array_of(x).shape, attrs) if need_x else None
    gw = execute("ConvGradFilter", x, g, kernel_shape=list(ws[2:]), **attrs) if need_w else None
    return gx, gw, (_bias_grad(g, len(ws) - 2) if need_b else None)


def _filter_infer(attrs, infos):
    x, dy = infos
    c = None if x.shape is None else x.shape[1]
    m = None if dy.shape is None else dy.shape[1]
    return [TensorInfo((m, None if c is None else c // attrs["group"]) + tuple(attrs["kernel_shape"]), x.dtype)]


@defop("ConvGradFilter", inputs="X:T dY:T", outputs="dW:T", types={"T": dt.FLOATS},
       attrs=dict(_SPATIAL_ATTRS, kernel_shape=Attr("ints", check=positive)), infer=_filter_infer)
def conv_grad_filter(auto_pad, dilations, group, kernel_shape, pads, strides):
    """Gradient of Conv with respect to W (engine-internal), given X and the output gradient dY.

    ``dW[m, c, k] = sum over n and output pixels p of dY[n, m, p] * window_k(X)[n, group(m) * C/G + c, p]``:
    the forward's im2col columns of X (batch items moved next to the pixels) times dY, one GEMM per group
    (or, when dY has more channels than the columns have rows, one GEMM per batch item, summed).
    The attributes are Conv's; ``kernel_shape`` (W's spatial shape) is required.
    """
    op = "ConvGradFilter"
    attrs = {"auto_pad": auto_pad, "dilations": dilations, "group": group, "kernel_shape": None, "pads": pads,
             "strides": strides}
    nd = len(kernel_shape)
    perm = _batch_inner(nd)
    cache = {}

    def plan(xshape, yshape):
        if len(xshape) != nd + 2 or len(yshape) != nd + 2:
            raise ShapeError(f"{op}: X shape {xshape} and dY shape {yshape} need rank {nd + 2} for "
                             f"kernel_shape={list(kernel_shape)}")
        n, c = xshape[:2]
        if c % group:
            raise ShapeError(f"{op}: X shape {xshape} has {c} channels, not divisible by group={group}")
        wshape = (yshape[1], c // group) + tuple(kernel_shape)
        _, kernel, st, dil, out, begins, ends, m = _conv_geometry(attrs, xshape, wshape, None)
        if tuple(yshape) != (n, m) + out:
            raise ShapeError(f"{op}: dY shape {yshape} is not Conv's output shape {(n, m) + out} for X shape "
                             f"{xshape} and W shape {wshape}")
        cg, mg = c // group, m // group
        padding = pad_plan(xshape, begins, ends)
        padded = xshape if padding is None else padding[0]
        grouped = (n, group, cg) + tuple(padded[2:])
        k, npix = math.prod(kernel), math.prod(out)
        per_item = group * cg * k * npix
        chunk = max(1, _COLS_LIMIT // per_item) if per_item * n > _COLS_LIMIT else max(n, 1)
        layout = window_layout(grouped, kernel, st, dil, out)
        return padding, grouped, layout, (n, group, mg, npix), (group, cg * k), chunk, wshape

    def kernel_fn(x, dy, out=None):
        key = (x.shape, dy.shape)
        p = cache.get(key)
        if p is None:
            bounded_cache(cache)
            p = cache[key] = plan(*key)
        padding, grouped, layout, dy_shape, cols_lead, chunk, wshape = p
        ct = compute_dtype(x.dtype)
        xp = pad(x, padding, ct).reshape(grouped)
        dyc = (dy if dy.dtype == ct else dy.astype(ct)).reshape(dy_shape)
        acc = np.zeros((group, dy_shape[2], cols_lead[1]), ct)
        # more output than input-window channels (few input channels, e.g. a first layer): one GEMM per batch
        # item on the forward's columns, summed, beats copying dY into a batch-inner layout
        per_item = dy_shape[2] > cols_lead[1]
        for start in range(0, dy_shape[0], chunk):  # batch slices bound the columns' memory
            part = xp[start:start + chunk]
            nb = len(part)
            view = window_view(part, ((nb,) + layout[0][1:], layout[1]))
            if per_item:
                cols = view.reshape((nb,) + cols_lead + (dy_shape[3],))
                acc += np.matmul(dyc[start:start + chunk], cols.transpose(0, 1, 3, 2)).sum(axis=0)
                continue
            cols = np.ascontiguousarray(view.transpose(perm)).reshape(cols_lead + (nb * dy_shape[3],))
            d = np.ascontiguousarray(dyc[start:start + chunk].transpose(1, 2, 0, 3)).reshape(group, dy_shape[2], -1)
            acc += np.matmul(d, cols.transpose(0, 2, 1))
        acc = acc.reshape(wshape)
        return acc if ct == x.dtype else acc.astype(x.dtype)

    return kernel_fn


@register_gradient("ConvGradFilter")
def _conv_grad_filter_grad(node, g):
    # dW is bilinear in (X, dY): each gradient is one of the ops Conv's own gradient uses, with g as the weights
    x, dy = node.inputs
    need_x, need_dy = node.needs_input_grad
    attrs = _conv_attrs(node.attrs)
    gx = _conv_input_grad(dy, g, array_of(x).shape, attrs) if need_x else None
    return gx, (execute("Conv", x, g, **attrs) if need_dy else None)


# ------------------------------------------------------------------------------------- ConvTranspose


def _convt_geometry(attrs, xshape, wshape, bshape):
    op = "ConvTranspose"
    nd, c, m = _check_common(op, xshape, wshape, bshape, attrs["kernel_shape"], attrs["group"], True)
    kernel = tuple(wshape[2:])
    strides = per_axis(op, "strides", attrs["strides"], nd, 1)
    dilations = per_axis(op, "dilations", attrs["dilations"], nd, 1)
    opad = per_axis(op, "output_padding", attrs["output_padding"], nd, 0)
    for i, (a, s, d) in enumerate(zip(opad, strides, dilations)):
        if a >= max(s, d):
            raise OpAttributeError(
                f"{op}: output_padding={list(opad)} must be smaller than the stride or the dilation on each axis "
                f"(axis {i}: stride {s}, dilation {d})"
            )
    begins, ends = split_pads(op, attrs["pads"], nd)
    auto_pad = attrs["auto_pad"]
    out_shape = attrs["output_shape"]
    if out_shape is not None:
        if len(out_shape) == nd + 2:  # some exporters include N and C; only the spatial part counts
            out_shape = out_shape[2:]
        out_shape = per_axis(op, "output_shape", out_shape, nd, 0)
    out, pb = [], []
    for i, n in enumerate(xshape[2:]):
        full = None if n is None else strides[i] * (n - 1) + opad[i] + (kernel[i] - 1) * dilations[i] + 1
        if out_shape is not None or auto_pad in ("SAME_UPPER", "SAME_LOWER"):
            o = out_shape[i] if out_shape is not None else (None if n is None else n * strides[i])
            if o is None or full is None:
                out.append(o)
                pb.append(0)
                continue
            # an output larger than the full result only gains zeros at the end (as onnxruntime does)
            total = max(0, full - o)
            pb.append(total // 2 if auto_pad == "SAME_UPPER" else total - total // 2)
            out.append(o)
        else:
            b, e = (0, 0) if auto_pad == "VALID" else (begins[i], ends[i])
            pb.append(b)
            out.append(None if full is None else full - b - e)
        if out[-1] is not None and out[-1] < 1:
            raise ShapeError(
                f"{op}: output size {out[-1]} along spatial axis {i} is not positive "
                f"(X shape {_shape(xshape)}, W shape {_shape(wshape)}, pads {list(attrs['pads'] or [])})"
            )
    return nd, kernel, strides, dilations, tuple(out), tuple(pb), m


def _convt_infer(attrs, infos):
    x, w, b = (list(infos) + [None])[:3]
    if x.shape is None or w.shape is None or None in w.shape[2:]:
        return [TensorInfo(None, x.dtype)]
    geo = _convt_geometry(attrs, x.shape, w.shape, None if b is None else b.shape)
    return [TensorInfo((x.shape[0], geo[-1]) + geo[4], x.dtype)]


def _col2im_taps(in_sp, kernel, strides, dilations, out, pb):
    """``(column index, output slices, input slices)`` per kernel tap that touches the output."""
    per_axis_taps = []
    for n, k, s, d, o, b in zip(in_sp, kernel, strides, dilations, out, pb):
        axis = []
        for t in range(k):
            # input i lands on output i * s + t * d - b; keep the i that land inside [0, o)
            lo = max(0, -((t * d - b) // s))
            hi = min(n - 1, (o - 1 + b - t * d) // s)
            if lo <= hi:
                start = lo * s + t * d - b
                axis.append((t, slice(start, start + (hi - lo) * s + 1, s), slice(lo, hi + 1)))
        per_axis_taps.append(axis)
    taps = []
    for combo in itertools.product(*per_axis_taps):
        idx = tuple(c[0] for c in combo)
        taps.append(((slice(None), slice(None)) + idx + tuple(c[2] for c in combo),
                     (slice(None), slice(None)) + tuple(c[1] for c in combo)))
    return taps


def _shifted_col2im(xshape, kern, dil, osp, pb):
    """Stride-1 col2im as flat shifts: ``(pad plan, columns per image, shift per tap, buffer size, full shape,
    crop)``.

    With the input's trailing spatial axes zero-padded to the output's full extent, every kernel tap moves a
    whole image by one flat offset, so each tap is one contiguous add (the padding only ever adds zeros).
    """
    in_sp = tuple(xshape[2:])
    nd = len(in_sp)
    full = tuple(max(i + (k - 1) * d, b + o) for i, k, d, b, o in zip(in_sp, kern, dil, pb, osp))
    steps = [math.prod(full[a + 1:]) for a in range(nd)]
    padded = (in_sp[0],) + full[1:]
    shifts = [sum(t * d * s for t, d, s in zip(tap, dil, steps)) for tap in itertools.product(*map(range, kern))]
    length = math.prod(padded)
    size = max(math.prod(full), max(shifts) + length)
    padding = pad_plan(xshape, (0,) * nd, tuple(p - i for p, i in zip(padded, in_sp)))
    crop = None
    if tuple(pb) != (0,) * nd or tuple(osp) != full:
        crop = (slice(None), slice(None)) + tuple(slice(b, b + o) for b, o in zip(pb, osp))
    return padding, length, shifts, size, full, crop


@defop("ConvTranspose", inputs="X:T W:T B?:T", outputs="Y:T", types={"T": dt.FLOATS},
       attrs=dict(_SPATIAL_ATTRS, output_padding=Attr("ints", None, check=non_negative),
                  output_shape=Attr("ints", None, check=positive)),
       infer=_convt_infer)
def conv_transpose(auto_pad, dilations, group, kernel_shape, pads, strides, output_padding, output_shape):
    """N-D transposed convolution (the adjoint of Conv), with output_padding / output_shape."""
    attrs = {"auto_pad": auto_pad, "dilations": dilations, "group": group, "kernel_shape": kernel_shape,
             "pads": pads, "strides": strides, "output_padding": output_padding, "output_shape": output_shape}
    cache = {}

    def plan(xshape, wshape, bshape):
        nd, kern, st, dil, osp, pb, m = _convt_geometry(attrs, xshape, wshape, bshape)
        n, c = xshape[:2]
        cg, mg = c // group, m // group
        in_sp = tuple(xshape[2:])
        # stride == kernel without padding (the usual 2x upsampling): the taps tile the output exactly
        tiled = all(s == k and (d == 1 or k == 1) and b == 0 and o == i * k
                    for s, k, d, b, o, i in zip(st, kern, dil, pb, osp, in_sp))
        interleave = None
        if tiled:  # (n, m, k1.., i1..) -> (n, m, i1, k1, i2, k2, ...)
            interleave = (0, 1) + tuple(a for i in range(nd) for a in (2 + nd + i, 2 + i))
        shifted = None if tiled or any(s != 1 for s in st) else _shifted_col2im(xshape, kern, dil, osp, pb)
        taps = None if tiled or shifted else _col2im_taps(in_sp, kern, st, dil, osp, pb)
        return (n, cg, mg, m, kern, math.prod(kern), math.prod(in_sp), osp, taps, interleave, shifted,
                (m,) + (1,) * nd)

    def kernel_fn(x, w, b=None, out=None):
        key = (x.shape, w.shape, None if b is None else b.shape)
        p = cache.get(key)
        if p is None:
            bounded_cache(cache)
            p = cache[key] = plan(*key)
        n, cg, mg, m, kern, k, npix, osp, taps, interleave, shifted, bshape = p
        ct = compute_dtype(x.dtype)
        xc = x if x.dtype == ct else x.astype(ct)
        wc = w if w.dtype == ct else w.astype(ct)
        # columns[n, g, (mg, taps), pixels] = sum over the group's input channels
        wt = wc.reshape(group, cg, mg * k).transpose(0, 2, 1)
        if shifted is not None:
            padding, length, shifts, size, full, crop = shifted
            # one GEMM per group over the whole batch: X's batch axis moves next to its pixels
            xp = pad(xc, padding, ct).reshape(n, group, cg, length).transpose(1, 2, 0, 3)
            cols = np.matmul(wt, np.ascontiguousarray(xp).reshape(group, cg, n * length)).reshape(m, k, n, length)
            flat = np.zeros((m, n, size), ct)
            for t, shift in enumerate(shifts):  # one contiguous add per kernel tap
                flat[:, :, shift:shift + length] += cols[:, t]
            y = flat[:, :, :math.prod(full)].reshape((m, n) + full)
            y = np.ascontiguousarray((y if crop is None else y[crop]).swapaxes(0, 1))
        elif taps is None:
            cols = np.matmul(wt, xc.reshape(n, group, cg, npix)).reshape((n, m) + kern + x.shape[2:])
            y = np.ascontiguousarray(cols.transpose(interleave)).reshape((n, m) + osp)
        else:
            cols = np.matmul(wt, xc.reshape(n, group, cg, npix)).reshape((n, m) + kern + x.shape[2:])
            y = np.zeros((n, m) + osp, ct)
            for src, dst in taps:
                y[dst] += cols[src]
        if b is not None:
            y += b.reshape(bshape) if b.dtype == ct else b.astype(ct).reshape(bshape)
        return y if ct == x.dtype else y.astype(x.dtype)

    return kernel_fn


def _crop_ends(t, ends):
    """``t`` cut short on the spatial axes whose end pad is negative; ``None`` if one empties."""
    axes = [2 + i for i, e in enumerate(ends) if e < 0]
    if not axes:
        return t
    stops = [t.array.shape[a] + ends[a - 2] for a in axes]
    if min(stops) <= 0:
        return None
    return execute("Slice", t, int64s([0] * len(axes)), int64s(stops), int64s(axes))


@register_gradient("ConvTranspose")
def _conv_transpose_grad(node, g):
    x, w, b = _padded3(node.inputs)
    need_x, need_w, need_b = _padded3(node.needs_input_grad)
    xs, ws = array_of(x).shape, array_of(w).shape
    nd, kernel, strides, dilations, out, begins, _ = _convt_geometry(node.attrs, xs, ws, None)
    group = node.attrs["group"]
    # ConvTranspose(x) is the adjoint of Conv with these geometry attributes on an input shaped like g;
    # input i lands on outputs i * s + t * d - begin, so a g longer than the last landing spot is cropped
    ends = _tail_ends(xs[2:], strides, kernel, dilations, out, begins)
    attrs = {"group": group, "strides": list(strides), "dilations": list(dilations),
             "pads": list(begins) + [max(0, e) for e in ends]}
    gx = gw = None
    if need_x or need_w:
        gc = _crop_ends(g, ends)
        if gc is None:  # every input lands outside the (cropped) output along some axis
            gx = zeros(xs, g.array.dtype) if need_x else None
            gw = zeros(ws, g.array.dtype) if need_w else None
        else:
            gx = execute("Conv", gc, w, **attrs) if need_x else None
            gw = execute("ConvGradFilter", gc, x, kernel_shape=list(kernel), **attrs) if need_w else None
    return gx, gw, (_bias_grad(g, nd) if need_b else None)
