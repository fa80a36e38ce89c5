"""Max, average and power-average pooling over sliding windows (the engine's MaxPool / AveragePool).

Adaptive and fractional pooling and max unpooling live in ``_adaptive.py`` and are listed here.
"""

import math

import numpy as np

from vfw.core.dtypes import FLOATS
from vfw.frontends.torch import _pointwise, _shape
from vfw.frontends.torch._dispatch import call, cast, op
from vfw.frontends.torch._pointwise import tensor_arg
from vfw.frontends.torch.nn.functional._adaptive import (
    adaptive_avg_pool1d,
    adaptive_avg_pool2d,
    adaptive_avg_pool3d,
    adaptive_max_pool1d,
    adaptive_max_pool1d_with_indices,
    adaptive_max_pool2d,
    adaptive_max_pool2d_with_indices,
    adaptive_max_pool3d,
    adaptive_max_pool3d_with_indices,
    fractional_max_pool2d,
    fractional_max_pool2d_with_indices,
    fractional_max_pool3d,
    fractional_max_pool3d_with_indices,
    max_unpool1d,
    max_unpool2d,
    max_unpool3d,
    plane_indices,
)
from vfw.frontends.torch.nn.functional._conv_layout import keep_layout
from vfw.frontends.torch.nn.functional._spatial import CallCache, batched, ints, operand_key, size_text, unbatched

__all__ = ["max_pool1d", "max_pool2d", "max_pool3d", "max_pool1d_with_indices", "max_pool2d_with_indices",
           "max_pool3d_with_indices", "avg_pool1d", "avg_pool2d", "avg_pool3d", "lp_pool1d", "lp_pool2d", "lp_pool3d",
           "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d", "adaptive_max_pool1d",
           "adaptive_max_pool2d", "adaptive_max_pool3d", "adaptive_max_pool1d_with_indices",
           "adaptive_max_pool2d_with_indices", "adaptive_max_pool3d_with_indices", "max_unpool1d", "max_unpool2d",
           "max_unpool3d", "fractional_max_pool2d", "fractional_max_pool3d", "fractional_max_pool2d_with_indices",
           "fractional_max_pool3d_with_indices"]

# the input is exact in float64 below 2**53: integer pooling computes there
_ENGINE_MAX_TYPES = FLOATS | {np.dtype(np.int8), np.dtype(np.uint8)}
_CALLS = CallCache()
_COUNTS = ("", "one", "two", "three")


class _Window:
    """A pooling call's window arguments, validated and expanded to one value per spatial dim."""

    __slots__ = ("kernel", "stride", "padding", "dilation", "ceil_mode")

    def __init__(self, fn, nd, kernel_size, stride, padding, dilation, ceil_mode):
        def expand(value, arg):
            return ints(value, nd, fn, arg, f"{fn}: {arg} must either be a single int, or a tuple of {_COUNTS[nd]} "
                                            f"ints")

        self.kernel = expand(kernel_size, "kernel_size")
        self.stride = self.kernel if stride is None or (isinstance(stride, (tuple, list)) and not stride) \
            else expand(stride, "stride")
        self.padding = expand(padding, "padding")
        self.dilation = expand(dilation, "dilation")
        self.ceil_mode = bool(ceil_mode)
        if any(s == 0 for s in self.stride):
            raise RuntimeError("stride should not be zero")
        if any(k <= 0 for k in self.kernel) or any(s < 0 for s in self.stride):
            raise RuntimeError(f"{fn}: kernel_size and stride must be greater than zero, but got kernel_size="
                               f"{list(self.kernel)} stride={list(self.stride)}")
        if any(p < 0 for p in self.padding):
            raise RuntimeError(f"pad must be non-negative, but got pad: {list(self.padding)}")
        if any(d <= 0 for d in self.dilation):
            raise RuntimeError(f"dilation should be greater than zero, but got dilation: {list(self.dilation)}")
        for p, k, d in zip(self.padding, self.kernel, self.dilation):
            if p > ((k - 1) * d + 1) // 2:
                raise RuntimeError(f"pad should be at most half of effective kernel size, but got pad={p}, "
                                   f"kernel_size={k} and dilation={d}")

    def out_sizes(self, shape):
        """torch's output size per spatial dim; RuntimeError when one is below 1."""
        in_sp = shape[2:]
        out = []
        for n, k, s, p, d in zip(in_sp, self.kernel, self.stride, self.padding, self.dilation):
            span = n + 2 * p - d * (k - 1) - 1
            o = (span + (s - 1 if self.ceil_mode else 0)) // s + 1
            if self.ceil_mode and (o - 1) * s >= n + p:
                o -= 1
            out.append(o)
        if any(o < 1 for o in out):
            raise RuntimeError(f"Given input size: {size_text(shape[1:])}. Calculated output size: "
                               f"{size_text(shape[1:2] + tuple(out))}. Output size is too small")
        return out

    def attrs(self):
        """The engine's window attributes."""
        return {"kernel_shape": self.kernel, "strides": self.stride, "pads": self.padding * 2,
                "ceil_mode": int(self.ceil_mode)}


def _pool_input(fn, nd, input, what):
    """``(batched input, whether a batch dim was added)``; torch's error for other ranks or empty planes."""
    tensor_arg(input, fn)
    x = input.array
    if x.ndim not in (nd + 1, nd + 2) or 0 in x.shape[-nd - 1:]:
        raise RuntimeError(what)
    if x.dtype == np.bool_:
        raise NotImplementedError(f"\"{fn}\" not implemented for 'Bool'")
    return batched(input, nd, fn)


def _pooled(plan, fn, nd, input, *args):
    """``plan(fn, nd, input, *args)`` checks the arguments and returns ``run(input)``; it runs once per
    combination of arguments and input shape."""
    operands = operand_key(input)
    key = None if operands is None else (fn, operands) + args
    run = _CALLS.get(key)
    if run is None:
        run = _CALLS.put(key, plan(fn, nd, input, *args))
    return keep_layout(input, run(input))


def _in_batch(input, added):
    return _shape.reshape_to(input, (1,) + input.array.shape) if added else input


def _max_pool_plan(fn, nd, input, kernel_size, stride, padding, dilation, ceil_mode, return_indices):
    if nd == 1:
        what = (f"max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size for input, but "
                f"got:{list(getattr(input, 'array', np.empty(0)).shape)}")
    else:
        what = f"non-empty {nd + 1}D or {nd + 2}D (batch mode) tensor expected for input"
    x4, added = _pool_input(fn, nd, input, what)
    win = _Window(fn, nd, kernel_size, stride, padding, dilation, ceil_mode)
    shape = x4.array.shape
    win.out_sizes(shape)
    dtype = x4.array.dtype
    wide = dtype not in _ENGINE_MAX_TYPES
    bound = op("MaxPool", dilations=win.dilation, **win.attrs())
    def run(input):
        x = _in_batch(input, added)
        y, flat = call(bound, cast(x, np.float64) if wide else x)
        y = unbatched(cast(y, dtype) if wide else y, added)
        return (y, unbatched(plane_indices(flat, shape[2:]), added)) if return_indices else y

    return run


def max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=False):
    """:func:`max_pool1d` returning ``(values, indices)`` (indices: flat positions within each plane)."""
    return _pooled(_max_pool_plan, "max_pool1d", 1, input, kernel_size, stride, padding, dilation, ceil_mode,
                   True)


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=False):
    """:func:`max_pool2d` returning ``(values, indices)`` (indices: flat positions within each plane)."""
    return _pooled(_max_pool_plan, "max_pool2d", 2, input, kernel_size, stride, padding, dilation, ceil_mode,
                   True)


def max_pool3d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=False):
    """:func:`max_pool3d` returning ``(values, indices)`` (indices: flat positions within each plane)."""
    return _pooled(_max_pool_plan, "max_pool3d", 3, input, kernel_size, stride, padding, dilation, ceil_mode,
                   True)


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """Maximum over sliding windows of ``(N, C, L)`` or ``(C, L)``.

    Parameters
    ----------
    input : Tensor
    kernel_size : int or tuple
    stride : int or tuple, optional
        Default: ``kernel_size``.
    padding : int or tuple
        Implicit ``-inf`` padding on both sides, at most half the (dilated) kernel.
    dilation : int or tuple
        Spacing between window elements.
    ceil_mode : bool
        Round the output size up (windows may start in the input or the left padding).
    return_indices : bool
        Also return the flat index of each maximum within its ``(n, c)`` plane (first one on ties).

    Returns
    -------
    Tensor or (Tensor, Tensor)
    """
    return _pooled(_max_pool_plan, "max_pool1d", 1, input, kernel_size, stride, padding, dilation, ceil_mode,
                   return_indices)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """Maximum over sliding windows of ``(N, C, H, W)`` or ``(C, H, W)``; see :func:`max_pool1d`."""
    return _pooled(_max_pool_plan, "max_pool2d", 2, input, kernel_size, stride, padding, dilation, ceil_mode,
                   return_indices)


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """Maximum over sliding windows of ``(N, C, D, H, W)`` or ``(C, D, H, W)``; see :func:`max_pool1d`."""
    return _pooled(_max_pool_plan, "max_pool3d", 3, input, kernel_size, stride, padding, dilation, ceil_mode,
                   return_indices)


def _include_pad_counts(win, shape):
    """Per output position: window elements inside the zero-padded input (torch's count_include_pad divisor)."""
    counts = np.ones((), np.float64)
    for n, o, k, s, p in zip(shape[2:], win.out_sizes(shape), win.kernel, win.stride, win.padding):
        start = np.arange(o) * s - p
        counts = np.multiply.outer(counts, np.minimum(start + k, n + p) - start)
    return counts


def _avg_pool_plan(fn, nd, input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override):
    tensor_arg(input, fn)
    rank = input.array.ndim
    if nd == 1 and rank not in (2, 3):
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {rank}-dimensional tensor for argument #1 'self' "
                           f"(while checking arguments for avg_pool1d)")
    if nd == 2 and rank < 3:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-max(rank, 1)}, {max(rank, 1) - 1}], "
                         f"but got -3)")
    x4, added = _pool_input(fn, nd, input, f"non-empty {nd + 1}D or {nd + 2}D (batch mode) tensor expected for input")
    win = _Window(fn, nd, kernel_size, stride, padding, 1, ceil_mode)
    shape = x4.array.shape
    win.out_sizes(shape)
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    dtype = x4.array.dtype
    exact = dtype in FLOATS
    include = bool(count_include_pad) or divisor_override is not None
    bound = op("AveragePool", count_include_pad=int(include), **win.attrs())
    scale = None
    if divisor_override is not None:  # the window sum over the given divisor
        scale = (_include_pad_counts(win, shape) / float(divisor_override)).astype(dtype if exact else np.float64)

    def run(input):
        x = _in_batch(input, added)
        y = call(bound, x if exact else cast(x, np.float64))
        if scale is not None:
            y = call(op("Mul"), y, scale)
        if not exact:  # integer averages truncate toward zero, as torch's integer division
            y = cast(call(op("Trunc"), y), dtype)
        return unbatched(y, added)

    return run


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    """Mean over sliding windows of ``(N, C, L)`` or ``(C, L)``.

    Parameters
    ----------
    input : Tensor
    kernel_size : int or tuple
    stride : int or tuple, optional
        Default: ``kernel_size``.
    padding : int or tuple
        Implicit zero padding on both sides (at most half the kernel).
    ceil_mode : bool
        Round the output size up.
    count_include_pad : bool
        Count the zero padding in the divisor.

    Returns
    -------
    Tensor
    """
    return _pooled(_avg_pool_plan, "avg_pool1d", 1, input, kernel_size, stride, padding, ceil_mode,
                   count_include_pad, None)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    """Mean over sliding windows of ``(N, C, H, W)`` or ``(C, H, W)``; see :func:`avg_pool1d`.

    ``divisor_override``, when given, divides every window's sum instead of its size.
    """
    return _pooled(_avg_pool_plan, "avg_pool2d", 2, input, kernel_size, stride, padding, ceil_mode,
                   count_include_pad, divisor_override)


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    """Mean over sliding windows of ``(N, C, D, H, W)`` or ``(C, D, H, W)``; see :func:`avg_pool2d`."""
    return _pooled(_avg_pool_plan, "avg_pool3d", 3, input, kernel_size, stride, padding, ceil_mode,
                   count_include_pad, divisor_override)


def _lp_pool(nd, input, norm_type, kernel_size, stride, ceil_mode):
    """torch's power-average: ``(sum over the window of x ** p) ** (1 / p)`` (negative sums clamp to 0)."""
    tensor_arg(input, f"lp_pool{nd}d")
    max_pool = (max_pool1d, max_pool2d, max_pool3d)[nd - 1]
    avg_pool = (avg_pool1d, avg_pool2d, avg_pool3d)[nd - 1]
    if norm_type == math.inf:
        return max_pool(input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    if norm_type == -math.inf:
        return -max_pool(-input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    kernel = ints(kernel_size, nd, f"lp_pool{nd}d", "kernel_size")
    out = avg_pool(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    return (out.sign() * _pointwise.relu(out.abs())).mul(math.prod(kernel)).pow(1.0 / norm_type)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """Power-average pooling of ``(N, C, L)`` or ``(C, L)``: ``(sum of x ** p over each window) ** (1 / p)``.

    Parameters
    ----------
    input : Tensor
    norm_type : float
        ``p`` (``inf`` gives max pooling of ``|x|``).
    kernel_size : int
    stride : int, optional
        Default: ``kernel_size``.
    ceil_mode : bool
    """
    return _lp_pool(1, input, norm_type, kernel_size, stride, ceil_mode)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """Power-average pooling of ``(N, C, H, W)`` or ``(C, H, W)``; see :func:`lp_pool1d`."""
    return _lp_pool(2, input, norm_type, kernel_size, stride, ceil_mode)


def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """Power-average pooling of ``(N, C, D, H, W)`` or ``(C, D, H, W)``; see :func:`lp_pool1d`."""
    return _lp_pool(3, input, norm_type, kernel_size, stride, ceil_mode)
