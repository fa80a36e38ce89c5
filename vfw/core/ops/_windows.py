"""Sliding-window geometry shared by the convolution and pooling ops.

Everything here depends only on shapes and attributes, so the op kernels
compute it once per input shape and cache it.  Spatial attributes follow ONNX:
``pads`` is ``[x1_begin, x2_begin, ..., x1_end, x2_end, ...]``; ``auto_pad`` is
one of :data:`AUTO_PADS`.
"""

import numpy as np

from vfw.core import dtypes as dt
from vfw.core.errors import OpAttributeError, ShapeError

AUTO_PADS = ("NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID")

_COMPUTE = {dt.float16: dt.float32, dt.bfloat16: dt.float32}

CACHE_LIMIT = 64
"""Shapes a bound op remembers before its geometry cache is cleared."""


def compute_dtype(dtype):
    """Dtype to accumulate in: half-precision floats are widened to float32."""
    return _COMPUTE.get(dtype, dtype)


def per_axis(op, name, value, nd, default):
    """``value`` (an ints attribute or ``None``) as a tuple of ``nd`` entries."""
    if value is None:
        return (default,) * nd
    if len(value) != nd:
        raise OpAttributeError(f"{op}: attribute '{name}'={list(value)} needs {nd} values (one per spatial axis)")
    return tuple(value)


def split_pads(op, pads, nd):
    """``pads`` as ``(begins, ends)`` tuples of ``nd`` entries."""
    if pads is None:
        return (0,) * nd, (0,) * nd
    if len(pads) != 2 * nd:
        raise OpAttributeError(
            f"{op}: attribute 'pads'={list(pads)} needs {2 * nd} values "
            f"([x1_begin, ..., x1_end, ...] for {nd} spatial axes)"
        )
    return tuple(pads[:nd]), tuple(pads[nd:])


def check_spatial_rank(op, shape, nd, name="X"):
    """Require ``shape`` to be ``(N, C, D1, ..., Dnd)``."""
    if len(shape) != nd + 2:
        raise ShapeError(
            f"{op}: input '{name}' of shape {tuple(shape)} must have rank {nd + 2} "
            f"(N, C and {nd} spatial axes)"
        )


def output_geometry(op, in_sp, kernel, strides, dilations, pads, auto_pad, ceil_mode=False):
    """Output spatial size and the begin/end pads actually used, per axis.

    Parameters
    ----------
    in_sp, kernel, strides, dilations : tuple[int]
        Per spatial axis (``in_sp`` entries may be ``None`` for shape inference).
    pads : tuple[tuple[int], tuple[int]]
        Explicit ``(begins, ends)``; used only when ``auto_pad`` is NOTSET.
    ceil_mode : bool
        Round the output size up (pooling); windows that would start in the
        end padding are dropped.

    Returns
    -------
    out, begins, ends : tuple[int]
        ``ends`` may be larger than the declared end pad when ``ceil_mode``
        makes the last window overhang the padded input; the overhang is not
        padding (AveragePool does not count it).

    Raises
    ------
    ShapeError
        If the (dilated) kernel is larger than the padded input.
    """
    out, begins, ends = [], [], []
    for i, (n, k, s, d) in enumerate(zip(in_sp, kernel, strides, dilations)):
        eff = (k - 1) * d + 1
        if n is None:
            out.append(None)
            begins.append(0)
            ends.append(0)
            continue
        if auto_pad in ("SAME_UPPER", "SAME_LOWER"):
            o = -(-n // s)
            total = max(0, (o - 1) * s + eff - n)
            b = total // 2 if auto_pad == "SAME_UPPER" else total - total // 2
            e = total - b
        else:
            b, e = (0, 0) if auto_pad == "VALID" else (pads[0][i], pads[1][i])
            span = n + b + e - eff
            if span < 0:
                raise ShapeError(
                    f"{op}: kernel extent {eff} (kernel_shape {k}, dilation {d}) is larger than the padded input "
                    f"({n} + pads {b}+{e}) along spatial axis {i}"
                )
            if ceil_mode:
                o = -(-span // s) + 1
                if (o - 1) * s >= n + b:
                    o -= 1
            else:
                o = span // s + 1
        out.append(o)
        begins.append(b)
        ends.append(max(e, (o - 1) * s + eff - n - b))
    return tuple(out), tuple(begins), tuple(ends)


def pad_plan(shape, begins, ends):
    """What :func:`pad` needs to pad the trailing spatial axes of ``shape``; ``None`` when nothing is padded."""
    if not any(begins) and not any(ends):
        return None
    lead = len(shape) - len(begins)
    padded = tuple(shape[:lead]) + tuple(n + b + e for n, b, e in zip(shape[lead:], begins, ends))
    dst = (slice(None),) * lead + tuple(slice(b, b + n) for n, b in zip(shape[lead:], begins))
    return padded, dst


def pad(x, plan, dtype, fill=0):
    """``x`` as a C-contiguous array of ``dtype``, padded with ``fill`` per ``plan`` (from :func:`pad_plan`)."""
    if plan is None:
        return x if x.dtype == dtype and x.flags.c_contiguous else np.ascontiguousarray(x, dtype)
    padded, dst = plan
    xp = np.zeros(padded, dtype) if fill == 0 else np.full(padded, fill, dtype)
    xp[dst] = x
    return xp


def tap_slice(out, stride, dilation, tap):
    """Slice of a padded axis read by kernel tap ``tap`` for all ``out`` windows (empty for ``out == 0``: the
    stop ``start - stride + 1`` could be negative, which a slice would count from the end)."""
    start = tap * dilation
    return slice(start, start + (out - 1) * stride + 1 if out else start, stride)


def clipped_taps(n, kernel, out, stride, dilation, begin):
    """The kernel taps along one axis of length ``n`` (begin pad ``begin``), each with the windows where it reads
    the input rather than padding: ``(whole, partial)``, ``whole`` the input slices of taps that read the input
    in every window, ``partial`` ``(window slice, input slice)`` pairs of the others (taps that only ever read
    padding are left out).  Reducing over these reads the unpadded input exactly as a pass over the padded one
    would, when padding never contributes (zero in a sum, never the maximum), and nothing is copied to pad it."""
    whole, partial = [], []
    for t in range(kernel):
        offset = t * dilation - begin  # window w's tap reads input position w * stride + offset
        lo = max(0, -(offset // stride))  # the first w with w * stride + offset >= 0
        hi = min(out - 1, (n - 1 - offset) // stride) if n - 1 - offset >= 0 else -1
        if lo <= hi:
            start = lo * stride + offset
            src = slice(start, start + (hi - lo) * stride + 1, stride)
            if lo == 0 and hi == out - 1:
                whole.append(src)
            else:
                partial.append((slice(lo, hi + 1), src))
    return whole, partial


def clipped_pass(x, axis, count, taps, ufunc, fill, out=None):
    """Reduce ``count`` windows along ``axis`` of ``x`` with ``ufunc`` (``np.maximum``, ``np.add``) over ``taps``
    from :func:`clipped_taps`, into ``out`` when given (else a new array); windows no tap reads hold ``fill``."""
    lead = (slice(None),) * axis
    whole, partial = taps
    if len(whole) >= 2:
        y = ufunc(x[lead + (whole[0],)], x[lead + (whole[1],)], out=out)
        rest = whole[2:]
    else:
        y = np.empty(x.shape[:axis] + (count,) + x.shape[axis + 1:], x.dtype) if out is None else out
        if whole:
            np.copyto(y, x[lead + (whole[0],)])
        else:
            y.fill(fill)
        rest = ()
    for src in rest:
        ufunc(y, x[lead + (src,)], out=y)
    for dst, src in partial:
        target = y[lead + (dst,)]
        ufunc(target, x[lead + (src,)], out=target)
    return y


def window_layout(padded, kernel, strides, dilations, out):
    """Shape and element strides of the window view ``(*lead, *kernel, *out)`` of a C-contiguous array."""
    nd = len(kernel)
    steps = [1] * len(padded)
    for i in range(len(padded) - 2, -1, -1):
        steps[i] = steps[i + 1] * padded[i + 1]
    lead = len(padded) - nd
    shape = tuple(padded[:lead]) + tuple(kernel) + tuple(out)
    elem = (tuple(steps[:lead]) + tuple(steps[lead + i] * dilations[i] for i in range(nd))
            + tuple(steps[lead + i] * strides[i] for i in range(nd)))
    return shape, elem


def columns(block, shape, ones_axis=None):
    """im2col: the window view ``block`` copied into a new C-contiguous array of ``shape`` (a reshape of it).

    With ``ones_axis`` (-1 or -2) that axis is one longer and its last entries are ones: a GEMM of the columns by
    weights that carry the bias as their last row (column) adds the bias, which saves the pass over the output
    that adds it afterwards (after a GEMM that pass costs about as much as a GEMM of 16 input channels).
    """
    if ones_axis is None:
        return np.ascontiguousarray(block).reshape(shape)
    wide = list(shape)
    wide[ones_axis] += 1
    cols = np.empty(wide, block.dtype)
    index = [slice(None)] * len(shape)
    index[ones_axis] = -1
    cols[tuple(index)] = 1
    index[ones_axis] = slice(0, -1)
    np.copyto(np.reshape(cols[tuple(index)], block.shape, copy=False), block)
    return cols


def window_view(xp, layout):
    """Read-only window view of the C-contiguous ``xp`` with a layout from :func:`window_layout`."""
    shape, elem = layout
    item = xp.itemsize
    view = np.ndarray(shape, xp.dtype, xp, 0, tuple(e * item for e in elem))
    view.flags.writeable = False
    return view


def bounded_cache(cache):
    """Empty ``cache`` when it grows past :data:`CACHE_LIMIT` (shapes seen by one bound op)."""
    if len(cache) >= CACHE_LIMIT:
        cache.clear()
