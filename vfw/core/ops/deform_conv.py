"""DeformConv (ONNX opset 19/22): 2-D convolution whose kernel taps sample the input at learned offsets.

Tap ``(i, j)`` of output position ``(h, w)`` reads the input at ``(h * stride - pad + i * dilation + dy,
w * stride - pad + j * dilation + dx)`` with the offsets ``(dy, dx)`` of its offset group, by bilinear
interpolation (corners outside the input count as zero), scaled by the optional mask.  The kernel
samples every tap of every position at once into columns, then multiplies them with the weights
per group.  Computation runs in float64 for float64 inputs and in float32 otherwise.  2-D inputs
only; not differentiable here.
"""

import numpy as np

from vfw.core import dtypes as dt
from vfw.core.autograd import not_differentiable
from vfw.core.errors import ShapeError
from vfw.core.ops._common import positive, require
from vfw.core.registry import Attr, defop


def _sample(x, py, px):
    """Bilinear samples of ``x`` ``(N, G, Cg, H, W)`` at ``(N, G, ...)`` positions: ``(N, G, ..., Cg)``."""
    n, g, _, height, width = x.shape
    y0, x0 = np.floor(py), np.floor(px)
    fy, fx = py - y0, px - x0
    y0, x0 = y0.astype(np.int64), x0.astype(np.int64)
    extra = (1,) * (py.ndim - 2)
    batch = np.arange(n).reshape((n, 1) + extra)
    group = np.arange(g).reshape((1, g) + extra)
    total = 0
    for dy, wy in ((0, 1 - fy), (1, fy)):
        for dx, wx in ((0, 1 - fx), (1, fx)):
            yi, xi = y0 + dy, x0 + dx
            inside = (yi >= 0) & (yi < height) & (xi >= 0) & (xi < width)
            values = x[batch, group, :, np.clip(yi, 0, height - 1), np.clip(xi, 0, width - 1)]
            total = total + np.where(inside, wy * wx, 0.0)[..., None] * values
    return total


@defop("DeformConv", inputs="X:T W:T offset:T B?:T mask?:T", outputs="Y:T", types={"T": dt.FLOATS},
       attrs={"dilations": Attr("ints", None, check=positive), "group": Attr("int", 1, check=positive),
              "kernel_shape": Attr("ints", None, check=positive), "offset_group": Attr("int", 1, check=positive),
              "pads": Attr("ints", None), "strides": Attr("ints", None, check=positive)})
def deform_conv(dilations, group, kernel_shape, offset_group, pads, strides):
    """Deformable 2-D convolution (see the module docstring)."""

    def kernel(x, w, offset, b=None, mask=None, out=None):
        require("DeformConv", x.ndim == 4 and w.ndim == 4 and offset.ndim == 4,
                f"only 2-D deformable convolution is supported: X {x.shape}, W {w.shape}, offset {offset.shape}")
        n, c, height, width = x.shape
        oc, cg, kh, kw = w.shape
        if kernel_shape is not None and tuple(kernel_shape) != (kh, kw):
            raise ShapeError(f"DeformConv: kernel_shape {kernel_shape} differs from W's {(kh, kw)}")
        if c != cg * group or oc % group or c % offset_group:
            raise ShapeError(f"DeformConv: X has {c} channels, W {w.shape} with group={group}, "
                             f"offset_group={offset_group}")
        sh, sw = strides or (1, 1)
        dh, dw = dilations or (1, 1)
        top, left, bottom, right = pads or (0, 0, 0, 0)
        oh = (height + top + bottom - (kh - 1) * dh - 1) // sh + 1
        ow = (width + left + right - (kw - 1) * dw - 1) // sw + 1
        if offset.shape != (n, offset_group * kh * kw * 2, oh, ow):
            raise ShapeError(f"DeformConv: offset must have shape {(n, offset_group * kh * kw * 2, oh, ow)}, got "
                             f"{offset.shape}")
        if mask is not None and mask.shape != (n, offset_group * kh * kw, oh, ow):
            raise ShapeError(f"DeformConv: mask must have shape {(n, offset_group * kh * kw, oh, ow)}, got "
                             f"{mask.shape}")
        compute = np.float64 if x.dtype == np.float64 else np.float32
        shifts = offset.astype(compute).reshape(n, offset_group, kh, kw, 2, oh, ow)
        rows = (np.arange(oh) * sh - top)[None, None, None, None, :, None] + \
            (np.arange(kh) * dh)[None, None, :, None, None, None]
        cols = (np.arange(ow) * sw - left)[None, None, None, None, None, :] + \
            (np.arange(kw) * dw)[None, None, None, :, None, None]
        grouped = x.astype(compute).reshape(n, offset_group, c // offset_group, height, width)
        taps = _sample(grouped, rows + shifts[:, :, :, :, 0], cols + shifts[:, :, :, :, 1])
        if mask is not None:
            taps = taps * mask.astype(compute).reshape(n, offset_group, kh, kw, oh, ow)[..., None]
        # (N, G, kh, kw, oh, ow, Cg) -> columns (N, group, C / group * kh * kw, oh * ow)
        columns = taps.transpose(0, 1, 6, 2, 3, 4, 5).reshape(n, group, cg * kh * kw, oh * ow)
        weights = w.astype(compute).reshape(group, oc // group, cg * kh * kw)
        y = np.einsum("gok,ngkl->ngol", weights, columns).reshape(n, oc, oh, ow)
        if b is not None:
            y = y + b.astype(compute).reshape(1, -1, 1, 1)
        return y.astype(x.dtype)

    return kernel


not_differentiable("DeformConv")
