"""GridSample (ONNX opset 22) and its gradient GridSampleGrad.

Sampling is separable: along each spatial axis a grid coordinate is unnormalized
(``align_corners``), mapped by the padding mode (border clamps, reflection folds;
for cubic the mapping applies to each tap), and becomes a few taps (1 nearest,
2 linear, 4 cubic) of integer positions and weights.  Every combination of one
tap per axis is one gather of ``X`` (all channels at once) times the product of
the axes' weights; out-of-range taps of 'zeros' padding carry weight 0.

GridSampleGrad returns both gradients: for ``X`` the same taps scattered back
with one ``bincount``; for ``grid`` the derivative of the weights (the cubic and
linear kernels' slopes, through the padding map and the unnormalization).
As in PyTorch, points on a clamped border pass no gradient to the grid, and
nearest sampling passes none at all.  Second derivatives are not implemented:
differentiating GridSampleGrad raises NotImplementedError.
"""

import itertools
import math

import numpy as np

from vfw.core import dtypes as dt
from vfw.core.autograd import register_gradient
from vfw.core.errors import ShapeError
from vfw.core.ops._common import execute
from vfw.core.ops._windows import compute_dtype
from vfw.core.registry import Attr, TensorInfo, defop

_ATTRS = {
    "align_corners": Attr("int", 0, choices=(0, 1)),
    "mode": Attr("string", "linear", choices=("linear", "nearest", "cubic")),
    "padding_mode": Attr("string", "zeros", choices=("zeros", "border", "reflection")),
}
_CUBIC_A = -0.75


def _check(op, xshape, gshape):
    r = len(xshape) - 2
    if r < 1:
        raise ShapeError(f"{op}: X shape {xshape} needs rank >= 3 (N, C and spatial axes)")
    if len(gshape) != r + 2 or gshape[0] != xshape[0] or gshape[-1] != r:
        raise ShapeError(f"{op}: grid shape {gshape} must be (N, *output_spatial, {r}) with N={xshape[0]} for X "
                         f"shape {xshape}")
    return r


def _infer(attrs, infos):
    x, grid = infos
    if x.shape is None or grid.shape is None:
        return [TensorInfo(None, x.dtype)]
    return [TensorInfo((x.shape[0], x.shape[1]) + tuple(grid.shape[1:-1]), x.dtype)]


def _clip(c, n, slope, nan_to):
    """Clamp ``c`` to ``[0, n - 1]`` (NaN to ``nan_to``); ``slope`` becomes 0 where it clamps (borders included,
    as torch)."""
    slope = slope * ((c > 0) & (c < n - 1))
    clamped = np.clip(c, 0, n - 1)
    return np.where(np.isnan(clamped), clamped.dtype.type(nan_to), clamped), slope


def _reflect(c, n, align, slope):
    """Fold ``c`` into the reflected range (about the corner centers, or the image edges); ``slope`` flips sign
    where an odd number of folds mirror it."""
    low, high = (0, 2 * (n - 1)) if align else (-1, 2 * n - 1)
    if low == high:
        return np.zeros_like(c), slope * 0
    lo, span = low / 2, (high - low) / 2
    shifted = c - lo
    sign = np.where(shifted < 0, -1, 1).astype(c.dtype)
    shifted = np.abs(shifted)
    extra = np.fmod(shifted, span)
    odd = np.floor(shifted / span) % 2 == 1
    folded = np.where(odd, span - extra, extra) + lo
    return folded.astype(c.dtype), slope * sign * np.where(odd, -1, 1).astype(c.dtype)


def _cubic(t):
    """Keys' cubic weights of the taps at offsets -1, 0, 1, 2 from ``floor``, and their slopes in ``t``."""
    a = _CUBIC_A
    u, v, w = t + 1, 1 - t, 2 - t
    weights = [((a * u - 5 * a) * u + 8 * a) * u - 4 * a, ((a + 2) * t - (a + 3)) * t * t + 1,
               ((a + 2) * v - (a + 3)) * v * v + 1, ((a * w - 5 * a) * w + 8 * a) * w - 4 * a]
    slopes = [(3 * a * u - 10 * a) * u + 8 * a, (3 * (a + 2) * t - 2 * (a + 3)) * t,
              -((3 * (a + 2) * v - 2 * (a + 3)) * v), -((3 * a * w - 10 * a) * w + 8 * a)]
    return weights, slopes


def _axis_taps(g, n, mode, padding, align, rank):
    """``[(index, weight, slope)]`` per tap of one axis: ``index`` int64 clipped into range, ``weight`` zero for
    taps outside a 'zeros'-padded image, ``slope`` the weight's derivative in the grid value.

    NaN grid values sample as in PyTorch's CPU kernels: for 2-D images border/reflection clamp them to 0 and
    'zeros' padding lets the NaN weights through (NaN output, 0 for nearest); for volumes (rank 3) the clamp gives
    ``n - 1`` and 'zeros' padding drops the tap (0 output)."""
    ct = g.dtype
    volumetric = rank == 3
    if align:
        c, scale = (g + 1) / 2 * (n - 1), ct.type((n - 1) / 2)
    else:
        c, scale = ((g + 1) * n - 1) / 2, ct.type(n / 2)
    slope = np.full(c.shape, scale, ct)
    if mode != "cubic":
        if padding == "border":
            c, slope = _clip(c, n, slope, n - 1 if volumetric else 0)
        elif padding == "reflection":
            c, slope = _reflect(c, n, align, slope)
            c, slope = _clip(c, n, slope, n - 1 if volumetric else 0)
    if mode == "nearest":
        raw = [(np.rint(c), np.ones_like(c), np.zeros_like(c))]
    elif mode == "linear":
        base = np.floor(c)
        t = c - base
        raw = [(base, 1 - t, -slope), (base + 1, t, slope)]
    else:
        base = np.floor(c)
        weights, slopes = _cubic(c - base)
        raw = []
        for k, (w, s) in enumerate(zip(weights, slopes)):
            pos = base + (k - 1)
            if padding == "border":
                pos = np.clip(pos, 0, n - 1)
            elif padding == "reflection":
                pos = np.clip(_reflect(pos, n, align, 0)[0], 0, n - 1)
            raw.append((pos, w, s * slope))
    taps = []
    for pos, w, s in raw:
        inside = (pos >= 0) & (pos <= n - 1)
        index = np.clip(np.where(np.isnan(pos), 0, pos), 0, n - 1).astype(np.int64)
        if not inside.all():
            w, s = (np.where(inside, w, 0), np.where(inside, s, 0)) if volumetric else (w * inside, s * inside)
        taps.append((index, w, s))
    return taps


def _combinations(x, grid, attrs):
    """``(flat X (N, C, P_in), [(flat index (N, P), weights per axis, slopes per axis)])`` over tap combinations."""
    r = _check("GridSample", x.shape, grid.shape)
    ct = compute_dtype(grid.dtype)
    n, c = x.shape[:2]
    g = grid.reshape(n, -1, r).astype(ct, copy=False)
    sizes = x.shape[2:]
    steps = [math.prod(sizes[a + 1:]) for a in range(r)]
    per_axis = [_axis_taps(g[:, :, r - 1 - a], sizes[a], attrs["mode"], attrs["padding_mode"],
                           attrs["align_corners"], r) for a in range(r)]
    combos = []
    for taps in itertools.product(*per_axis):
        flat = taps[0][0] * steps[0]
        for a in range(1, r):
            flat = flat + taps[a][0] * steps[a]
        combos.append((flat, [t[1] for t in taps], [t[2] for t in taps]))
    xf = x.reshape(n, c, -1).astype(ct, copy=False)
    return xf, combos, ct


def _product(factors):
    result = factors[0]
    for f in factors[1:]:
        result = result * f
    return result


@defop("GridSample", inputs="X:T grid:T", outputs="Y:T", types={"T": dt.FLOATS}, attrs=_ATTRS, infer=_infer)
def grid_sample(align_corners, mode, padding_mode):
    """Sample X ``(N, C, *spatial)`` at the normalized positions ``grid`` ``(N, *out, r)`` (``grid[..., 0]`` is
    the last axis); modes linear / nearest (half to even) / cubic (a = -0.75), padding zeros / border / reflection.
    """
    attrs = {"align_corners": align_corners, "mode": mode, "padding_mode": padding_mode}

    def kernel(x, grid, out=None):
        xf, combos, ct = _combinations(x, grid, attrs)
        n, c = x.shape[:2]
        y = np.zeros((n, c, combos[0][0].shape[1]), ct)
        for flat, weights, _ in combos:
            y += np.take_along_axis(xf, flat[:, None, :], axis=2) * _product(weights)[:, None, :]
        return y.reshape((n, c) + grid.shape[1:-1]).astype(x.dtype, copy=False)

    return kernel


@register_gradient("GridSample")
def _grid_sample_grad(node, g):
    x, grid = node.inputs
    need_x, need_grid = node.needs_input_grad
    gx, ggrid = execute("GridSampleGrad", g, x, grid, **node.attrs)
    return (gx if need_x else None), (ggrid if need_grid else None)


@defop("GridSampleGrad", inputs="dY:T X:T grid:T", outputs="dX:T dgrid:T", types={"T": dt.FLOATS}, attrs=_ATTRS)
def grid_sample_grad(align_corners, mode, padding_mode):
    """Gradients of GridSample (engine-internal) with respect to X and grid, given the output gradient dY."""
    attrs = {"align_corners": align_corners, "mode": mode, "padding_mode": padding_mode}

    def kernel(dy, x, grid, out=None):
        xf, combos, ct = _combinations(x, grid, attrs)
        n, c, p_in = xf.shape
        r = len(x.shape) - 2
        dyf = dy.reshape(n, c, -1).astype(ct, copy=False)
        # dX: every tap's weighted dY added at its (n, c, position), all taps in one bincount
        base = (np.arange(n * c, dtype=np.int64) * p_in).reshape(n, c, 1)
        targets = np.concatenate([(base + flat[:, None, :]).ravel() for flat, _, _ in combos])
        amounts = np.concatenate([(dyf * _product(w)[:, None, :]).ravel() for _, w, _ in combos])
        dx = np.bincount(targets, amounts, minlength=n * c * p_in).astype(x.dtype).reshape(x.shape)
        dgrid = np.zeros((n, dyf.shape[2], r), ct)
        if mode != "nearest":
            for flat, weights, slopes in combos:
                along = np.einsum("ncp,ncp->np", dyf, np.take_along_axis(xf, flat[:, None, :], axis=2))
                for a in range(r):
                    dgrid[:, :, r - 1 - a] += along * _product(weights[:a] + [slopes[a]] + weights[a + 1:])
        return dx, dgrid.reshape(grid.shape).astype(grid.dtype, copy=False)

    return kernel


@register_gradient("GridSampleGrad")
def _grid_sample_grad_grad(node, g_dx, g_dgrid):
    # refuse rather than drop the terms: a second derivative taken silently as zero would be wrong
    raise NotImplementedError("GridSample: derivatives of order 2 and higher are not supported (the gradient of "
                              "GridSampleGrad)")
