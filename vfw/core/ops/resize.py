"""Resize (ONNX opset 19+): nearest / linear / cubic interpolation along any subset of axes.

Interpolation is separable: each resized axis gets a small table of source
indices and weights (``taps`` per output position: 1 for nearest, 2 for
linear, 4 for cubic, more for antialiased downscaling), and the kernel applies
one vectorized gather-and-weight per axis, or, for linear and cubic along
axes of up to 256 inputs, one matmul with the equivalent dense matrix (several
times faster than numpy's strided gathers).  The tables depend only on the
input shape and the roi/scales/sizes values, so they are cached per bound op.

Resize is linear in X: its gradient is the engine op ResizeGrad, which applies
the same tables transposed (dense matrix products, or scatter-adds along long
axes), and whose own gradient is Resize again.
"""

import math

import numpy as np

from vfw.core import dtypes as dt
from vfw.core.autograd import register_gradient
from vfw.core.errors import DTypeError, OpInputError, ShapeError
from vfw.core.ops._common import array_of, execute, int64s, normalize_axes
from vfw.core.ops._windows import bounded_cache
from vfw.core.registry import Attr, TensorInfo, defop

_MODES = ("nearest", "linear", "cubic")
_COORDS = ("half_pixel", "half_pixel_symmetric", "pytorch_half_pixel", "align_corners", "asymmetric",
           "tf_crop_and_resize")
_NEAREST = ("round_prefer_floor", "round_prefer_ceil", "floor", "ceil")
_POLICIES = ("stretch", "not_larger", "not_smaller")
_ROI_TYPES = frozenset({dt.float16, dt.float32, dt.float64})
_DENSE_MAX = 256  # axes up to this input length interpolate by a dense matrix product


def _source_coords(mode, n_in, n_out, scale, start, end):
    """Input coordinate of every output position along one axis (float64)."""
    x = np.arange(n_out, dtype=np.float64)
    if mode == "half_pixel":
        return (x + 0.5) / scale - 0.5
    if mode == "half_pixel_symmetric":
        adjustment = n_out / (n_in * scale)
        offset = n_in / 2 * (1 - adjustment)
        return offset + (x + 0.5) / scale - 0.5
    if mode == "pytorch_half_pixel":
        return (x + 0.5) / scale - 0.5 if n_out > 1 else np.zeros(n_out)
    if mode == "align_corners":
        return x * ((n_in - 1) / (n_out - 1)) if n_out > 1 else np.zeros(n_out)
    if mode == "asymmetric":
        return x / scale
    # tf_crop_and_resize
    if n_out > 1:
        return start * (n_in - 1) + x * ((end - start) * (n_in - 1) / (n_out - 1))
    return np.full(n_out, 0.5 * (start + end) * (n_in - 1))


def _cubic(t, a):
    """Keys' cubic convolution kernel at distances ``t``."""
    t = np.abs(t)
    near = ((a + 2) * t - (a + 3)) * t * t + 1
    far = ((a * t - 5 * a) * t + 8 * a) * t - 4 * a
    return np.where(t <= 1, near, np.where(t < 2, far, 0.0))


def _linear(t, a=None):
    return np.maximum(0.0, 1 - np.abs(t))


def _taps(mode, coords, n_in, scale, attrs):
    """``(indices, weights)`` of shape ``(n_out, taps)``; weights are ``None`` for nearest."""
    if mode == "nearest":
        rounding = attrs["nearest_mode"]
        if rounding == "round_prefer_floor":
            idx = np.ceil(coords - 0.5)
        elif rounding == "round_prefer_ceil":
            idx = np.floor(coords + 0.5)
        elif rounding == "floor":
            idx = np.floor(coords)
        else:
            idx = np.ceil(coords)
        return np.clip(idx, 0, n_in - 1).astype(np.int64)[:, None], None
    kernel, radius = (_linear, 1) if mode == "linear" else (_cubic, 2)
    stretch = 1.0 / scale if attrs["antialias"] and scale < 1 else 1.0
    # every integer position within the (stretched) kernel support of each coordinate
    if stretch == 1.0:
        first, count = np.floor(coords) - (radius - 1), 2 * radius
    else:
        first, count = np.floor(coords - radius * stretch) + 1, int(math.ceil(2 * radius * stretch))
    idx = first[:, None] + np.arange(count)[None, :]
    weights = kernel((idx - coords[:, None]) / stretch, attrs["cubic_coeff_a"])
    if attrs["exclude_outside"]:
        weights = np.where((idx >= 0) & (idx <= n_in - 1), weights, 0.0)
    if attrs["exclude_outside"] or stretch != 1.0:
        # the stretched kernel's samples do not sum to 1; outside taps read the edge value
        total = weights.sum(axis=1, keepdims=True)
        weights = weights / np.where(total == 0, 1.0, total)
    return np.clip(idx, 0, n_in - 1).astype(np.int64), weights


class _Settings:
    """Resize's attributes as the planning code needs them (one per bound op)."""

    __slots__ = ("axes", "coords", "crop", "mode", "policy", "taps")

    def __init__(self, antialias, axes, coordinate_transformation_mode, cubic_coeff_a, exclude_outside, mode,
                 nearest_mode, keep_aspect_ratio_policy):
        self.axes = axes
        self.coords = coordinate_transformation_mode
        self.crop = coordinate_transformation_mode == "tf_crop_and_resize"
        self.mode = mode
        self.policy = keep_aspect_ratio_policy
        self.taps = {"antialias": antialias, "cubic_coeff_a": cubic_coeff_a, "exclude_outside": exclude_outside,
                     "nearest_mode": nearest_mode}


def _plan(cfg, shape, roi, scales, sizes):
    """``(out_shape, steps, has_dense)``: one step ``(axis, idx, weights, outside, dense, cast, n_in)`` per
    resized axis, in the order the forward applies them."""
    rank = len(shape)
    ax = normalize_axes("Resize", cfg.axes, rank) if cfg.axes is not None else tuple(range(rank))
    k = len(ax)
    given = [name for name, v in (("scales", scales), ("sizes", sizes)) if v is not None]
    if len(given) != 1:
        raise OpInputError(f"Resize: exactly one of 'scales' and 'sizes' must be given (got {given or 'neither'})")
    vals = scales if scales is not None else sizes
    if vals.ndim != 1 or vals.shape[0] != k:
        raise ShapeError(f"Resize: input '{given[0]}' of shape {vals.shape} needs {k} values "
                         f"(one per axis {list(ax)} of X shape {shape})")
    starts, ends = np.zeros(k), np.ones(k)
    if cfg.crop and roi is not None and roi.size:  # roi means nothing to the other transformations
        if roi.shape != (2 * k,):
            raise ShapeError(f"Resize: input 'roi' of shape {roi.shape} needs {2 * k} values "
                             f"([starts..., ends...] for axes {list(ax)})")
        starts, ends = roi[:k].astype(np.float64), roi[k:].astype(np.float64)
    n_in = [shape[a] for a in ax]
    if scales is not None:
        fscales = [float(s) for s in scales]
        if any(not s > 0 for s in fscales):
            raise OpInputError(f"Resize: scales {fscales} must all be positive")
        n_out = [int(math.floor(n * s)) for n, s in zip(n_in, fscales)]
    else:
        n_out = [int(s) for s in sizes]
        if any(s < 0 for s in n_out):
            raise OpInputError(f"Resize: sizes {n_out} must be non-negative")
        if cfg.policy != "stretch":
            ratios = [s / n for s, n in zip(n_out, n_in)]
            common = min(ratios) if cfg.policy == "not_larger" else max(ratios)
            n_out = [int(math.floor(common * n + 0.5)) for n in n_in]
            fscales = [common] * k
        else:
            fscales = [s / n if n else 1.0 for s, n in zip(n_out, n_in)]
    out_shape = list(shape)
    steps = []
    for i, a in enumerate(ax):
        out_shape[a] = n_out[i]
        if n_out[i] == n_in[i] and fscales[i] == 1.0 and not cfg.crop:
            continue  # identity along this axis (every transformation maps x to x)
        if n_in[i] == 0 and n_out[i]:
            raise ShapeError(f"Resize: cannot resize empty axis {a} of X shape {shape} to {n_out[i]}")
        coords = _source_coords(cfg.coords, n_in[i], n_out[i], fscales[i], starts[i], ends[i])
        idx, weights = _taps(cfg.mode, coords, n_in[i], fscales[i], cfg.taps)
        outside = None
        if cfg.crop:
            outside = (coords < 0) | (coords > n_in[i] - 1)
            outside = outside.nonzero()[0] if outside.any() else None
        dense = None
        if weights is not None and n_in[i] <= _DENSE_MAX:
            dense = _dense_matrix(idx, weights, n_in[i])
        steps.append((a, idx, weights, outside, dense, {}, n_in[i]))
    return tuple(out_shape), steps, any(step[4] is not None for step in steps)


def _dense_matrix(idx, weights, n_in):
    """The ``(n_out, n_in)`` interpolation matrix of a step (weights ``None``: nearest, one 1 per row)."""
    n_out = idx.shape[0]
    dense = np.zeros((n_out, n_in))
    np.add.at(dense, (np.arange(n_out)[:, None], idx), 1.0 if weights is None else weights)
    return dense


def _cached_plan(cache, cfg, shape, roi, scales, sizes):
    """:func:`_plan` through the bound op's cache (empty scales/sizes count as absent)."""
    if scales is not None and scales.size == 0:
        scales = None
    if sizes is not None and sizes.size == 0:
        sizes = None
    key = (shape, None if roi is None or not cfg.crop else (roi.dtype.str, roi.tobytes()),
           None if scales is None else scales.tobytes(), None if sizes is None else sizes.tobytes())
    p = cache.get(key)
    if p is None:
        bounded_cache(cache)
        p = cache[key] = _plan(cfg, shape, roi, scales, sizes)
    return p


_RESIZE_ATTRS = {
    "antialias": Attr("int", 0, choices=(0, 1)),
    "axes": Attr("ints", None),
    "coordinate_transformation_mode": Attr("string", "half_pixel", choices=_COORDS),
    "cubic_coeff_a": Attr("float", -0.75),
    "exclude_outside": Attr("int", 0, choices=(0, 1)),
    "extrapolation_value": Attr("float", 0.0),
    "keep_aspect_ratio_policy": Attr("string", "stretch", choices=_POLICIES),
    "mode": Attr("string", "nearest", choices=_MODES),
    "nearest_mode": Attr("string", "round_prefer_floor", choices=_NEAREST),
}


@defop("Resize", inputs="X:T1 roi?:T2 scales?:float32 sizes?:int64", outputs="Y:T1",
       types={"T1": dt.ALL, "T2": _ROI_TYPES}, attrs=_RESIZE_ATTRS, value_inputs=("roi", "scales", "sizes"))
def resize(antialias, axes, coordinate_transformation_mode, cubic_coeff_a, exclude_outside, extrapolation_value,
           keep_aspect_ratio_policy, mode, nearest_mode):
    """Resize X by scales or to sizes with nearest, (multi)linear or (multi)cubic interpolation."""
    cfg = _Settings(antialias, axes, coordinate_transformation_mode, cubic_coeff_a, exclude_outside, mode,
                    nearest_mode, keep_aspect_ratio_policy)
    crop = cfg.crop
    cache = {}

    def kernel(x, roi=None, scales=None, sizes=None, out=None):
        out_shape, steps, has_dense = _cached_plan(cache, cfg, x.shape, roi, scales, sizes)
        if x.size == 0 or math.prod(out_shape) == 0:
            return np.zeros(out_shape, x.dtype)
        if mode == "nearest" or x.dtype in (dt.float32, dt.float64):
            ct = x.dtype  # nearest only gathers: exact for every dtype
        elif x.dtype.kind in "iu":
            ct = dt.float64
        elif x.dtype in (dt.float16, dt.bfloat16):
            ct = dt.float32
        else:
            raise DTypeError(f"Resize: mode '{mode}' needs a numeric X, got {dt.type_name(x.dtype)}")
        y = x if x.dtype == ct else x.astype(ct)
        # a zero weight times inf is NaN: the dense products would spread one inf over a whole row
        dense_ok = has_dense and (x.dtype.kind in "iu" or bool(np.isfinite(x).all()))
        for a, idx, weights, _, dense, cast, _ in steps:
            if weights is None:
                y = np.take(y, idx[:, 0], axis=a)
                continue
            w = cast.get(ct)
            if w is None:
                w = cast[ct] = (None if dense is None else dense.astype(ct), weights.astype(ct))
            shape = y.shape
            if dense_ok and w[0] is not None:
                lead, rest = math.prod(shape[:a]), math.prod(shape[a + 1:])
                new_shape = shape[:a] + (idx.shape[0],) + shape[a + 1:]
                if rest == 1:
                    y = np.matmul(y.reshape(lead, shape[a]), w[0].T).reshape(new_shape)
                else:
                    y = np.matmul(w[0], y.reshape(lead, shape[a], rest)).reshape(new_shape)
                continue
            bshape = (-1,) + (1,) * (y.ndim - 1 - a)
            acc = np.take(y, idx[:, 0], axis=a) * w[1][:, 0].reshape(bshape)
            for t in range(1, idx.shape[1]):
                acc += np.take(y, idx[:, t], axis=a) * w[1][:, t].reshape(bshape)
            y = acc
        if crop:
            if y is x:
                y = x.copy()
            for a, _, _, outside, _, _, _ in steps:
                if outside is not None:
                    y[(slice(None),) * a + (outside,)] = extrapolation_value
        if y.dtype != x.dtype:
            if x.dtype.kind in "iu":
                info = np.iinfo(x.dtype)
                y = np.clip(np.rint(y), info.min, info.max)
            y = y.astype(x.dtype)
        elif y is x:
            y = x.copy()
        return y

    return kernel


@register_gradient("Resize")
def _resize_grad(node, g):
    x, roi, scales, sizes = (tuple(node.inputs) + (None,) * 3)[:4]
    gx = execute("ResizeGrad", g, int64s(array_of(x).shape), array_of(roi), array_of(scales), array_of(sizes),
                 **node.attrs)
    return gx, None, None, None


def _grad_infer(attrs, infos):
    value = infos[1].value
    return [TensorInfo(None if value is None else tuple(int(v) for v in value), infos[0].dtype)]


@defop("ResizeGrad", inputs="dY:T input_shape:int64 roi?:T2 scales?:float32 sizes?:int64", outputs="dX:T",
       types={"T": dt.FLOATS, "T2": _ROI_TYPES}, attrs=_RESIZE_ATTRS, infer=_grad_infer,
       value_inputs=("input_shape", "roi", "scales", "sizes"))
def resize_grad(antialias, axes, coordinate_transformation_mode, cubic_coeff_a, exclude_outside, extrapolation_value,
                keep_aspect_ratio_policy, mode, nearest_mode):
    """Adjoint of Resize (engine-internal): dY scattered back through the transposed interpolation.

    ``input_shape`` is the shape of Resize's X; roi/scales/sizes and the attributes are Resize's.  Outputs
    that tf_crop_and_resize extrapolates do not depend on X and pass nothing back.
    """
    cfg = _Settings(antialias, axes, coordinate_transformation_mode, cubic_coeff_a, exclude_outside, mode,
                    nearest_mode, keep_aspect_ratio_policy)
    cache = {}

    def kernel(dy, input_shape, roi=None, scales=None, sizes=None, out=None):
        shape = tuple(int(v) for v in input_shape)
        out_shape, steps, _ = _cached_plan(cache, cfg, shape, roi, scales, sizes)
        if dy.shape != out_shape:
            raise ShapeError(f"ResizeGrad: dY shape {dy.shape} is not Resize's output shape {out_shape} for an "
                             f"input of shape {shape}")
        if dy.size == 0 or math.prod(shape) == 0:
            return np.zeros(shape, dy.dtype)
        ct = dy.dtype if dy.dtype in (dt.float32, dt.float64) else dt.float32
        g = dy.astype(ct)  # a copy: the crop zeroing below writes into it
        for a, _, _, outside, _, _, _ in steps:
            if outside is not None:
                g[(slice(None),) * a + (outside,)] = 0
        # as in the forward: a zero weight times inf is NaN, so the dense products need finite values
        dense_ok = bool(np.isfinite(g).all())
        for a, idx, weights, _, dense, cast, n_in in reversed(steps):
            m = cast.get(ct)
            if m is None:
                if dense is None and n_in <= _DENSE_MAX:
                    dense = _dense_matrix(idx, weights, n_in)
                m = cast[ct] = (None if dense is None else dense.astype(ct),
                                None if weights is None else weights.astype(ct))
            gshape = g.shape
            new_shape = gshape[:a] + (n_in,) + gshape[a + 1:]
            if dense_ok and m[0] is not None:
                lead, rest = math.prod(gshape[:a]), math.prod(gshape[a + 1:])
                if rest == 1:
                    g = np.matmul(g.reshape(lead, gshape[a]), m[0]).reshape(new_shape)
                else:
                    g = np.matmul(m[0].T, g.reshape(lead, gshape[a], rest)).reshape(new_shape)
                continue
            acc = np.zeros(new_shape, ct)
            lead_idx = (slice(None),) * a
            bshape = (-1,) + (1,) * (g.ndim - 1 - a)
            for t in range(idx.shape[1]):
                np.add.at(acc, lead_idx + (idx[:, t],), g if m[1] is None else g * m[1][:, t].reshape(bshape))
            g = acc
        return g if g.dtype == dy.dtype else g.astype(dy.dtype)

    return kernel


@register_gradient("ResizeGrad")
def _resize_grad_grad(node, g):
    _, _, roi, scales, sizes = (tuple(node.inputs) + (None,) * 3)[:5]
    # the adjoint's adjoint is the interpolation, with the extrapolated outputs (which got no gradient) zero
    gy = execute("Resize", g, array_of(roi), array_of(scales), array_of(sizes),
                 **dict(node.attrs, extrapolation_value=0.0))
    return gy, None, None, None, None
