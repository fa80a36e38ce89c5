"""Per-dim interpolation weight matrices as torch's separable resampling kernels build them.

Used by ``interpolate`` for antialiased resizing (any dtype) and for uint8 images, which torch
resizes in fixed point: weights rounded to int16 with as many fraction bits as the largest weight
allows, one dim at a time (width first), each pass rounded and clamped to uint8.
"""

import numpy as np


def source_scale(n_in, n_out, scale_factor, align_corners):
    """Input pixels per output pixel along one dim (torch's ``area_pixel_compute_scale``)."""
    if align_corners:
        return (n_in - 1) / (n_out - 1) if n_out > 1 else 0.0
    return 1.0 / scale_factor if scale_factor is not None and scale_factor > 0 else n_in / n_out


def _kernel(t, cubic, a):
    """The triangle, or Keys' cubic with coefficient ``a``, at distances ``t``."""
    t = np.abs(t)
    if not cubic:
        return np.maximum(0.0, 1.0 - t)
    near = ((a + 2) * t - (a + 3)) * t * t + 1
    far = ((a * t - 5 * a) * t + 8 * a) * t - 4 * a
    return np.where(t < 1, near, np.where(t < 2, far, 0.0))


def separable_matrix(n_in, n_out, scale_factor, align_corners, cubic, antialias):
    """``(n_out, n_in)`` weights of torch's separable filter along one dim.

    With ``antialias`` the kernel widens by the downscaling factor (PIL's bicubic, a = -0.5); the taps
    are restricted to the input and normalized per output.  Without it (torch's uint8 bilinear) the
    triangle keeps its width, and align_corners shifts the centers by half a pixel.
    """
    scale = source_scale(n_in, n_out, scale_factor, align_corners)
    widen = antialias and scale >= 1.0
    support = (2.0 if cubic else 1.0) * (scale if widen else 1.0)
    stretch = 1.0 / scale if widen else 1.0
    delta = 0.5 if align_corners and not antialias else 0.0
    center = scale * (np.arange(n_out) + 0.5 - delta)
    lo = np.maximum(np.trunc(center - support + 0.5 + delta), 0)[:, None]
    hi = np.minimum(np.trunc(center + support + 0.5 + delta), n_in)[:, None]
    pos = np.arange(n_in)[None, :]
    taps = _kernel((pos - center[:, None] + 0.5 - delta) * stretch, cubic, -0.5)
    weights = np.where((pos >= lo) & (pos < hi), taps, 0.0)
    total = weights.sum(axis=1, keepdims=True)
    return weights / np.where(total == 0, 1.0, total)


def cubic_matrix(n_in, n_out, scale_factor, align_corners):
    """``(n_out, n_in)`` weights of plain bicubic interpolation (a = -0.75, edge pixels repeated)."""
    scale = source_scale(n_in, n_out, scale_factor, align_corners)
    out = np.arange(n_out)
    coords = scale * out if align_corners else scale * (out + 0.5) - 0.5
    base = np.floor(coords)
    offsets = np.arange(-1, 3)
    taps = _kernel(coords[:, None] - (base[:, None] + offsets), True, -0.75)
    weights = np.zeros((n_out, n_in))
    index = np.clip(base[:, None] + offsets, 0, n_in - 1).astype(np.int64)
    np.add.at(weights, (np.repeat(out, 4).reshape(n_out, 4), index), taps)
    return weights


def fixed_point(matrix):
    """``(integer-valued weights, fraction bits)``: ``matrix`` in torch's int16 fixed point."""
    largest = matrix.max() if matrix.size else 0.0
    bits = 0
    while bits < 22 and int(0.5 + largest * (1 << (bits + 1))) < (1 << 15):
        bits += 1
    scaled = matrix * (1 << bits)
    return np.trunc(np.where(scaled < 0, scaled - 0.5, scaled + 0.5)), bits
