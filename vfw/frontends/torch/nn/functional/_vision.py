"""Padding, pixel and channel shuffles, fold/unfold, grid sampling, and interpolation (from ``_interpolate``)."""

import math

import numpy as np

from vfw.core.dtypes import FLOATS
from vfw.frontends.torch import _shape, _typing
from vfw.frontends.torch._dispatch import call, op, scalar_array, type_name
from vfw.frontends.torch._grad_fn_names import names_grad_fn, pad_name
from vfw.frontends.torch._pointwise import tensor_arg
from vfw.frontends.torch.nn.functional._grid import affine_grid, grid_sample
from vfw.frontends.torch.nn.functional._interpolate import (
    interpolate,
    upsample,
    upsample_bilinear,
    upsample_nearest,
)
from vfw.frontends.torch.nn.functional._spatial import batched, ints, is_int, unbatched

__all__ = ["pad", "pixel_shuffle", "pixel_unshuffle", "channel_shuffle", "native_channel_shuffle", "fold", "unfold",
           "interpolate", "upsample", "upsample_nearest", "upsample_bilinear", "grid_sample", "affine_grid"]

_PAD_MODES = ("constant", "reflect", "replicate", "circular")
_ENGINE_PAD_MODE = {"constant": "constant", "reflect": "reflect", "replicate": "edge", "circular": "wrap"}
_SUPPORTED_PADS = ("Supported combinations for non-constant padding:\n"
                   "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
                   "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
                   "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")


def _pad_list(pad):
    if not isinstance(pad, (tuple, list)):
        raise TypeError(f"pad(): argument 'pad' (position 2) must be tuple of ints, not {type(pad).__name__}")
    for pos, p in enumerate(pad):
        if not is_int(p):
            raise TypeError(f"pad(): argument 'pad' (position 2) must be tuple of ints, but found element of type "
                            f"{type(p).__name__} at pos {pos}")
    return [int(p) for p in pad]


def _engine_pad(input, mode, begins, ends, axes, value=None):
    """The engine's Pad over ``axes`` (negative pads crop); ``value`` fills constant padding."""
    bound = op("Pad", mode=mode)
    pads = np.asarray(list(begins) + list(ends), np.int64)
    axes = np.asarray(axes, np.int64)
    if value is None:
        return call(bound, input, pads, None, axes)
    return call(bound, input, pads, scalar_array(value, input.array.dtype), axes)


def _check_non_constant(x, mode, n, begins, ends, axes):
    """torch's limits for reflect / replicate / circular padding of ``n`` trailing dims."""
    if n not in (1, 2, 3) or x.ndim not in (n + 1, n + 2):
        raise NotImplementedError(f"Padding size {2 * n} is not supported for {x.ndim}D input tensor.\n"
                                  + _SUPPORTED_PADS)
    if mode != "circular":
        if x.dtype == np.bool_:
            raise NotImplementedError(f"\"{mode}ion_pad{n}d\" not implemented for 'Bool'")
        if 0 in x.shape[x.ndim - n - 1:]:
            raise RuntimeError(f"Expected {n + 1}D or {n + 2}D (batch mode) tensor with possibly 0 batch size and "
                               f"other non-zero dimensions for input, but got: {list(x.shape)}")
    for b, e, axis in zip(begins, ends, axes):
        size = x.shape[axis]
        if mode == "reflect" and (b >= size or e >= size):
            raise RuntimeError(f"Argument #4: Padding size should be less than the corresponding input dimension, "
                               f"but got: padding ({b}, {e}) at dimension {axis} of input {list(x.shape)}")
        if mode == "circular" and (b > size or e > size):
            raise RuntimeError("Padding value causes wrapping around more than once.")
        if mode == "circular" and max(b, e) > size + min(b, 0) + min(e, 0):
            # torch copies the wrap from its own (cropped) output, which is then too short
            raise RuntimeError(f"pad: circular padding ({b}, {e}) of dimension {axis} wraps past the {size} - "
                               f"{-min(b, 0) - min(e, 0)} elements left after cropping (input {list(x.shape)})")


@names_grad_fn(pad_name)
def pad(input, pad, mode="constant", value=None):
    """Pad (or, with negative amounts, crop) the last ``len(pad) // 2`` dims of ``input``.

    Parameters
    ----------
    input : Tensor
    pad : sequence of int
        ``(last_begin, last_end, second_last_begin, second_last_end, ...)``.
    mode : {'constant', 'reflect', 'replicate', 'circular'}
        The non-constant modes pad 1 to 3 trailing dims of a (batched or unbatched) input.
    value : float, optional
        Fill value of 'constant' padding (default 0).

    Returns
    -------
    Tensor
    """
    tensor_arg(input, "pad")
    pads = _pad_list(pad)
    x = input.array
    if len(pads) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    n = len(pads) // 2
    if n > x.ndim:
        raise RuntimeError(f"Padding length should be less than or equal to two times the input dimension but got "
                           f"padding length {len(pads)} and input of dimension {x.ndim}")
    if mode not in _PAD_MODES:
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    begins, ends = pads[0::2], pads[1::2]
    axes = [x.ndim - 1 - i for i in range(n)]
    if mode == "constant":
        for b, e, axis in zip(begins, ends, axes):
            if x.shape[axis] + b + e < 0:
                raise RuntimeError(f"The input size {x.shape[axis]}, plus negative padding {b} and {e} resulted in a "
                                   f"negative output size, which is invalid. Check dimension {axis} of your input.")
        return _engine_pad(input, "constant", begins, ends, axes, 0 if value is None else value)
    if value is not None and value != 0:
        raise RuntimeError(f"Padding mode \"{mode}\" doesn't take in value argument")
    _check_non_constant(x, mode, n, begins, ends, axes)
    engine_mode = _ENGINE_PAD_MODE[mode]
    if mode == "circular" or all(p >= 0 for p in pads):
        return _engine_pad(input, engine_mode, begins, ends, axes)  # circular crops first, then wraps (as torch)
    # reflect and replicate pad the whole input first (reflecting about its true ends), then crop
    grown = _engine_pad(input, engine_mode, [max(b, 0) for b in begins], [max(e, 0) for e in ends], axes)
    return _engine_pad(grown, "constant", [min(b, 0) for b in begins], [min(e, 0) for e in ends], axes)


def _factor(value, fn, arg):
    if not is_int(value):
        raise TypeError(f"{fn}(): argument '{arg}' (position 2) must be int, not {type(value).__name__}")
    return int(value)


def _depth_space(input, factor, fn, to_space):
    """pixel_shuffle / pixel_unshuffle: the engine's DepthToSpace / SpaceToDepth (CRD) over ``(*, C, H, W)``."""
    x = input.array
    if x.ndim < 3:
        raise RuntimeError(f"{fn} expects input to have at least 3 dimensions, but got input with {x.ndim} "
                           f"dimension(s)")
    what = "upscale_factor" if to_space else "downscale_factor"
    if factor <= 0:
        raise RuntimeError(f"{fn} expects a positive {what}, but got {factor}")
    c, h, w = x.shape[-3:]
    if to_space and c % (factor * factor):
        raise RuntimeError(f"pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of "
                           f"upscale_factor, but input.size(-3)={c} is not divisible by {factor * factor}")
    if not to_space:
        for name, size, dim in (("height", h, -2), ("width", w, -1)):
            if size % factor:
                raise RuntimeError(f"pixel_unshuffle expects {name} to be divisible by downscale_factor, but "
                                   f"input.size({dim})={size} is not divisible by {factor}")
    lead = x.shape[:-3]
    planes = _shape.reshape_to(input, (math.prod(lead), c, h, w))
    moved = call(op("DepthToSpace" if to_space else "SpaceToDepth", blocksize=factor, mode="CRD"), planes)
    return _shape.reshape_to(moved, lead + moved.array.shape[1:])


def pixel_shuffle(input, upscale_factor):
    """Rearrange ``(*, C * r**2, H, W)`` into ``(*, C, H * r, W * r)`` (``r = upscale_factor``)."""
    tensor_arg(input, "pixel_shuffle")
    return _depth_space(input, _factor(upscale_factor, "pixel_shuffle", "upscale_factor"), "pixel_shuffle", True)


def pixel_unshuffle(input, downscale_factor):
    """Rearrange ``(*, C, H * r, W * r)`` into ``(*, C * r**2, H, W)`` (``r = downscale_factor``)."""
    tensor_arg(input, "pixel_unshuffle")
    return _depth_space(input, _factor(downscale_factor, "pixel_unshuffle", "downscale_factor"), "pixel_unshuffle",
                        False)


def channel_shuffle(input, groups):
    """Interleave the channels of ``(N, C, *)`` from ``groups`` blocks: channel ``g * (C / groups) + k`` moves to
    ``k * groups + g``.  Returns a new tensor."""
    tensor_arg(input, "channel_shuffle")
    groups = _factor(groups, "channel_shuffle", "groups")
    x = input.array
    if x.ndim <= 2:
        raise RuntimeError(f"channel_shuffle expects input with > 2 dims, but got input with sizes {list(x.shape)}")
    if groups <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of groups:{groups}")
    n, c = x.shape[:2]
    if c % groups:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {c} channels and {groups} groups.")
    rest = x.shape[2:]
    split = _shape.reshape_to(input, (n, groups, c // groups) + rest)
    swapped = _shape.permuted(split, (0, 2, 1) + tuple(range(3, 3 + len(rest))))
    out = _shape.reshape_to(swapped, x.shape)
    if np.shares_memory(out.array, x):  # nothing moved (one group, or one channel per group): torch still copies
        out = _typing.clone(out)
    return out


native_channel_shuffle = channel_shuffle


def _pair(value, arg):
    """fold / unfold's size arguments: an int or a pair."""
    count = len(value) if isinstance(value, (tuple, list)) else 1
    return ints(value, 2, "im2col", arg, f"It is expected {arg} equals to 2, but got size {count}")


class _Blocks:
    """fold / unfold's window arguments as pairs, with torch's checks."""

    def __init__(self, kernel_size, dilation, padding, stride):
        self.kernel = _pair(kernel_size, "kernel_size")
        self.dilation = _pair(dilation, "dilation")
        self.padding = _pair(padding, "padding")
        self.stride = _pair(stride, "stride")
        for name, values, low in (("kernel size", self.kernel, 1), ("stride", self.stride, 1),
                                  ("dilation", self.dilation, 1)):
            if min(values) < low:
                raise RuntimeError(f"{name} should be greater than zero, but got {name.split()[0]}_height: "
                                   f"{values[0]} {name.split()[0]}_width: {values[1]}")
        if min(self.padding) < 0:
            raise RuntimeError(f"padding should be non-negative, but got pad_height: {self.padding[0]} pad_width: "
                               f"{self.padding[1]}")

    def counts(self, image):
        """Window positions per spatial dim over an image of size ``image``."""
        return [(n + 2 * p - d * (k - 1) - 1) // s + 1
                for n, p, d, k, s in zip(image, self.padding, self.dilation, self.kernel, self.stride)]

    def describe(self):
        return (f"kernel_size={tuple(self.kernel)}, dilation={tuple(self.dilation)}, padding={tuple(self.padding)}, "
                f"stride={tuple(self.stride)}")

    def attrs(self):
        return {"dilations": self.dilation, "pads": self.padding * 2, "strides": self.stride}


def _check_window_dtype(x, name):
    if x.dtype not in FLOATS and x.dtype != np.bool_:
        raise NotImplementedError(f"\"{name}_out_cpu\" not implemented for '{type_name(x.dtype)}'")


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """Extract sliding blocks (im2col): ``(N, C, H, W)`` -> ``(N, C * kH * kW, L)`` (or unbatched ``(C, H, W)``).

    Parameters
    ----------
    input : Tensor
    kernel_size, dilation, padding, stride : int or pair
        ``padding`` zeros are added on both sides of both spatial dims.

    Returns
    -------
    Tensor
        Row ``c * kH * kW + i * kW + j`` holds channel ``c`` at kernel tap ``(i, j)`` for each of the ``L`` block
        positions (row-major).
    """
    tensor_arg(input, "unfold")
    x = input.array
    if x.ndim < 3:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-max(x.ndim, 1)}, "
                         f"{max(x.ndim, 1) - 1}], but got 2)")
    if x.ndim > 4 or 0 in x.shape[-3:]:
        raise RuntimeError(f"Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other non-zero "
                           f"dimensions for input, but got: {list(x.shape)}")
    blocks = _Blocks(kernel_size, dilation, padding, stride)
    _check_window_dtype(x, "im2col")
    counts = blocks.counts(x.shape[-2:])
    if min(counts) < 1:
        raise RuntimeError(f"Given input with spatial size {tuple(x.shape[-2:])}, {blocks.describe().split(', s')[0]}, "
                           f"calculated shape of the array of sliding blocks as {tuple(counts)}, but its components "
                           f"must be at least one.")
    x4, added = batched(input, 2, "unfold")
    return unbatched(call(op("Im2Col", kernel_shape=blocks.kernel, **blocks.attrs()), x4), added)


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """Sum sliding blocks back into an image (col2im), the adjoint of :func:`unfold`.

    Parameters
    ----------
    input : Tensor
        ``(N, C * kH * kW, L)`` or unbatched ``(C * kH * kW, L)``.
    output_size : int or pair
        The image's spatial size.
    kernel_size, dilation, padding, stride : int or pair

    Returns
    -------
    Tensor
        ``(N, C, *output_size)``; overlapping block entries are summed.
    """
    tensor_arg(input, "fold")
    x = input.array
    if x.ndim not in (2, 3) or 0 in x.shape[-2:]:
        raise RuntimeError(f"Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and non-zero "
                           f"dimensions for input, but got: {list(x.shape)}")
    image = _pair(output_size, "output_size")
    blocks = _Blocks(kernel_size, dilation, padding, stride)
    _check_window_dtype(x, "col2im")
    per_block = blocks.kernel[0] * blocks.kernel[1]
    if x.shape[-2] % per_block:
        raise RuntimeError(f"Expected size of input's dimension {x.ndim - 2} to be divisible by the product of "
                           f"kernel_size, but got input.size({x.ndim - 2})={x.shape[-2]} and "
                           f"kernel_size={tuple(blocks.kernel)}.")
    counts = blocks.counts(image)
    if min(counts) < 1 or counts[0] * counts[1] != x.shape[-1]:
        raise RuntimeError(f"Given output_size={tuple(image)}, {blocks.describe()}, expected size of input's dimension "
                           f"{x.ndim - 1} to match the calculated number of sliding blocks {counts[0]} * {counts[1]} = "
                           f"{counts[0] * counts[1]}, but got input.size({x.ndim - 1})={x.shape[-1]}.")
    x3 = input if x.ndim == 3 else _shape.reshape_to(input, (1,) + x.shape)
    y = call(op("Col2Im", **blocks.attrs()), x3, np.asarray(image, np.int64), np.asarray(blocks.kernel, np.int64))
    return y if x.ndim == 3 else _shape.reshape_to(y, y.array.shape[1:])
