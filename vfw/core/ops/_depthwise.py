"""Depthwise 2-D convolutions (one input channel per group) for the Conv kernel: two routes faster than im2col.

A depthwise filter is a few taps per channel, so the generic im2col GEMM spends its time copying columns
(nine per pixel for 3x3) through a window view whose inner axis is one output row, a short run for the small
images these layers see (14 pixels at 14x14).

* Flattened planes (stride 1, larger images): the columns are cut from the padded image flattened per channel:
  output pixel ``(r, q)`` is read at ``r * Wp + q`` plus the tap's offset, so one tap's column for all pixels is a
  single contiguous run of the plane (the ``Wp - wo`` entries between output rows are junk, computed and dropped).
  Columns are made and multiplied in channel blocks that stay in cache, the bias a weight column against a row of
  ones, and each block's product is copied out without its junk (1.4-1.8x faster than the generic path on
  MobileNet's and ShuffleNet's 3x3 layers at 28x28 and more).
* Channels last (small outputs, any stride): ChannelsLastConv on X transposed to ``(N, H, W, C)``: its padded copy
  and one einsum summing each window's taps times the filters, the channels the contiguous inner axis; the
  other routes make a few BLAS calls per channel, which a few dozen pixels do not amortize (ShuffleNet's 3x3
  layers, one thread: 272 channels at 14x14 0.19 -> 0.12 ms, 544 at 7x7 0.16 -> 0.06 ms, stride 2 from 56x56 to
  28x28 with 112 channels 0.63 -> 0.49 ms; the transposes included).
"""

import math
from typing import NamedTuple

import numpy as np

from vfw.core.ops._windows import compute_dtype
from vfw.core.registry import make_op

_BLOCK = 1 << 18  # column elements (1 MiB of float32) per channel block


def takes_depthwise(nd, cg, kernel):
    """Whether a convolution may take :func:`depthwise`: 2-D, one input channel per group, more than one tap
    (:func:`depthwise_plan` then tells whether it does)."""
    return nd == 2 and cg == 1 and math.prod(kernel) > 1


def _channels_last_wins(channels, pixels, strides):
    """Whether the channels-last einsum is the faster route for ``pixels`` outputs per channel (measured on 3x3
    layers, one thread: at stride 1 and 196 pixels it wins from about 96 channels, at 784 pixels only strided)."""
    if strides == (1, 1):
        return pixels <= 64 or pixels <= 196 and channels >= 96
    return pixels <= 784 and channels >= 48


class DepthwisePlan(NamedTuple):
    """What :func:`depthwise` needs for one input shape (from :func:`depthwise_plan`)."""

    n: int
    channels: int
    mult: int  # output channels per input channel
    padded_shape: tuple
    dst: tuple  # where X goes in the padded image
    taps: tuple  # each tap's offset in a flattened padded plane
    length: int  # a tap's run
    block: int  # channels per block
    out_shape: tuple


class ChannelsLastPlan(NamedTuple):
    """The channels-last route of :func:`depthwise` (from :func:`depthwise_plan`)."""

    conv: object  # ChannelsLastConv's kernel (its depthwise einsum)
    contiguous: bool  # whether X must be copied channels-last first (unpadded, the window view reads X itself)


def depthwise_plan(xshape, m, kernel, strides, dilations, begins, ends, out):
    """Geometry of a depthwise convolution of ``xshape`` (N, C, H, W) to ``m`` channels, cached per shape: a
    :class:`DepthwisePlan`, a :class:`ChannelsLastPlan`, or None where the generic im2col path is as fast (strided
    convolutions of larger images)."""
    n, c, h, w = xshape
    hp, wp = h + begins[0] + ends[0], w + begins[1] + ends[1]
    if _channels_last_wins(c, math.prod(out), strides):
        conv = make_op("ChannelsLastConv", dict(dilations=list(dilations), group=c, pads=list(begins) + list(ends),
                                                strides=list(strides))).kernel  # (Conv checked the shapes)
        return ChannelsLastPlan(conv, not any(begins) and not any(ends))
    if strides != (1, 1):
        return None  # the runs would be strided: no faster than the generic path
    ho, wo = out
    length = (ho - 1) * wp + wo  # a tap's run: the output rows at the padded width, the last one cut short
    taps = tuple(i * dilations[0] * wp + j * dilations[1] for i in range(kernel[0]) for j in range(kernel[1]))
    block = max(1, _BLOCK // (len(taps) * length))
    dst = (slice(None), slice(None), slice(begins[0], begins[0] + h), slice(begins[1], begins[1] + w))
    return DepthwisePlan(n, c, m // c, (n, c, hp, wp), dst, taps, length, block, (n, m, ho, wo))


def depthwise(x, w, b, plan, out=None):
    """Depthwise convolution of ``x`` (N, C, H, W) by ``w`` (C * mult, 1, kh, kw) plus ``b`` (or None), into
    ``out`` when given, by the route of ``plan`` (from :func:`depthwise_plan`)."""
    if isinstance(plan, ChannelsLastPlan):
        xt = x.transpose(0, 2, 3, 1)  # copied into the padded image by the convolution, unless unpadded
        filters = np.ascontiguousarray(w.transpose(2, 3, 1, 0))  # (kh, kw, 1, M): the einsum reads it in order
        y = plan.conv(np.ascontiguousarray(xt) if plan.contiguous else xt, filters, b)
        y = y.transpose(0, 3, 1, 2)
        if out is not None:
            np.copyto(out, y, casting="unsafe")
            return out
        return np.ascontiguousarray(y)
    ct = compute_dtype(x.dtype)
    n, c, mult, padded_shape, dst, taps, length, block, out_shape = plan
    padded = np.zeros(padded_shape, ct)
    padded[dst] = x
    planes = padded.reshape(n, c, -1)
    k = len(taps)
    wr = w.reshape(c, mult, k).astype(ct, copy=False)
    if b is not None:
        wr = np.concatenate([wr, b.reshape(c, mult, 1).astype(ct, copy=False)], axis=2)
    cols = np.empty((min(block, c), wr.shape[2], length), ct)
    cols[:, k:] = 1
    product = np.empty((min(block, c), mult, length), ct)
    y = out if out is not None and out.dtype == ct and out.flags.c_contiguous else np.empty(out_shape, ct)
    ho, wo = out_shape[2:]
    step = product.itemsize
    for item in range(n):
        for start in range(0, c, block):
            stop = min(c, start + block)
            part, result = cols[:stop - start], product[:stop - start]
            for t, offset in enumerate(taps):
                np.copyto(part[:, t], planes[item, start:stop, offset:offset + length])
            np.matmul(wr[start:stop], part, out=result)
            rows = np.ndarray(((stop - start) * mult, ho, wo), ct, result, 0, (length * step, padded_shape[3] * step,
                                                                              step))
            np.copyto(y[item, start * mult:stop * mult], rows)
    if out is not None and y is not out:
        np.copyto(out, y, casting="unsafe")
        return out
    return y if ct == x.dtype else y.astype(x.dtype)


DEPTHWISE_PLANS = (DepthwisePlan, ChannelsLastPlan)
"""The plan types :func:`depthwise` runs."""
