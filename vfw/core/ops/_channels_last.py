"""Sliding-window geometry of the channels-last ops (``X`` is ``(N, D1, ..., Dd, C)``, TensorFlow's layout).

The channels-last convolution and pooling ops share it: output sizes (TensorFlow's rule, which
allows an empty output when the window is longer than the padded input by less than a stride),
padding into a contiguous buffer, the read-only window view ``(N, O1..Od, K1..Kd, C)`` and the
strided slice of the padded input each kernel tap reads.  ``pads`` follows ONNX:
``[x1_begin, ..., xd_begin, x1_end, ..., xd_end]``.
"""

import itertools

import numpy as np

from vfw.core.errors import ShapeError
from vfw.core.ops._common import non_negative, positive
from vfw.core.ops._windows import per_axis, split_pads, tap_slice
from vfw.core.registry import Attr

WINDOW_ATTRS = {
    "dilations": Attr("ints", None, check=positive),
    "pads": Attr("ints", None, check=non_negative),
    "strides": Attr("ints", None, check=positive),
}
"""Attributes every channels-last window op takes (kernel sizes come from W or ``kernel_shape``)."""


def window_count(n, kernel, stride, dilation, begin, end):
    """Windows along one axis, TensorFlow's way: ``(n + pads - extent + stride) / stride`` truncated toward
    zero (negative when the window is longer than the padded input by a stride or more)."""
    span = n + begin + end - (kernel - 1) * dilation - 1 + stride
    return span // stride if span >= 0 else -(-span // stride)


def output_size(op, axis, n, kernel, stride, dilation, begin, end):
    """``window_count``, or a ShapeError when it is negative."""
    out = window_count(n, kernel, stride, dilation, begin, end)
    if out < 0:
        raise ShapeError(f"{op}: computed output size would be negative: {out} along spatial axis {axis} "
                         f"[input_size: {n}, effective_filter_size: {(kernel - 1) * dilation + 1}, stride: {stride}]")
    return out


class Window:
    """Per-axis window attributes of a bound op, and the geometry they give an input shape.

    Parameters
    ----------
    op : str
        Op name for error messages.
    nd : int
        Number of spatial axes.
    strides, dilations, pads : tuple[int] or None
        Attributes as given (None: ones / zeros).
    """

    __slots__ = ("op", "nd", "strides", "dilations", "begins", "ends")

    def __init__(self, op, nd, strides, dilations, pads):
        self.op = op
        self.nd = nd
        self.strides = per_axis(op, "strides", strides, nd, 1)
        self.dilations = per_axis(op, "dilations", dilations, nd, 1)
        self.begins, self.ends = split_pads(op, pads, nd)

    def out(self, xshape, kernel):
        """Output spatial sizes for an input of ``xshape`` ``(N, *spatial, C)`` and a ``kernel``."""
        if len(xshape) != self.nd + 2:
            raise ShapeError(f"{self.op}: input of shape {tuple(xshape)} must have rank {self.nd + 2} "
                             f"(N, {self.nd} spatial axes, C)")
        return tuple(output_size(self.op, i, n, k, s, d, b, e) for i, (n, k, s, d, b, e) in enumerate(
            zip(xshape[1:-1], kernel, self.strides, self.dilations, self.begins, self.ends)))

    def padded(self, xshape):
        """The shape of ``X`` padded on its spatial axes."""
        return ((xshape[0],) + tuple(n + b + e for n, b, e in zip(xshape[1:-1], self.begins, self.ends))
                + (xshape[-1],))

    def pad(self, x, dtype, fill=0):
        """``x`` as a C-contiguous array of ``dtype``, its spatial axes padded with ``fill``."""
        if not any(self.begins) and not any(self.ends):
            return x if x.dtype == dtype and x.flags.c_contiguous else np.ascontiguousarray(x, dtype)
        xp = np.full(self.padded(x.shape), fill, dtype)
        xp[self.interior(x.shape)] = x
        return xp

    def interior(self, xshape):
        """Index of the unpadded input inside the padded one."""
        return ((slice(None),) + tuple(slice(b, b + n) for n, b in zip(xshape[1:-1], self.begins))
                + (slice(None),))

    def taps(self, kernel, out):
        """Per kernel tap (row-major order): the index of the padded input it reads for every window."""
        return [(slice(None),) + tuple(tap_slice(o, s, d, t) for t, o, s, d in zip(tap, out, self.strides,
                                                                                self.dilations))
                + (slice(None),)
                for tap in itertools.product(*map(range, kernel))]

    def view(self, xp, kernel, out):
        """Read-only window view ``(N, *out, *kernel, C)`` of the C-contiguous padded ``xp``."""
        st = xp.strides
        spatial = st[1:-1]
        strides = ((st[0],) + tuple(s * k for s, k in zip(spatial, self.strides))
                   + tuple(s * d for s, d in zip(spatial, self.dilations)) + (st[-1],))
        shape = (xp.shape[0],) + tuple(out) + tuple(kernel) + (xp.shape[-1],)
        view = np.ndarray(shape, xp.dtype, xp, 0, strides)
        view.flags.writeable = False
        return view

    def valid_taps(self, xshape, kernel, out):
        """Per tap, a boolean mask over the windows ``(1, *out, 1)`` of where it reads the input, not the
        padding; None for a tap that never reads padding."""
        masks = []
        for tap in itertools.product(*map(range, kernel)):
            inside = np.ones((), bool)
            for n, t, o, s, d, b in zip(xshape[1:-1], tap, out, self.strides, self.dilations, self.begins):
                pos = np.arange(o) * s + t * d - b
                inside = np.logical_and.outer(inside, (pos >= 0) & (pos < n))
            masks.append(None if inside.all() else inside.reshape((1,) + tuple(out) + (1,)))
        return masks

    def overlapping(self, kernel):
        """Whether two windows can read the same input element (some stride shorter than the window)."""
        return any(s < (k - 1) * d + 1 for k, s, d in zip(kernel, self.strides, self.dilations))


def batch_chunk(n, per_item, limit):
    """Batch items per slice so that ``per_item`` elements each stay under ``limit`` (all when they fit)."""
    if n * per_item <= limit:
        return max(n, 1)
    return max(1, limit // max(per_item, 1))
