"""Window rearrangements, adaptive pooling and unpooling: Col2Im and MaxUnpool (ONNX), Im2Col,
AdaptiveMaxPool and FractionalMaxPool (vfw's own).

Im2Col copies every sliding window of a padded input into a column (the
convolution's im2col, as ``torch.nn.functional.unfold``); Col2Im sums columns
back into an image (``fold``, ONNX's Col2Im).  Each is the other's adjoint, so
each one's gradient is the other op.  The geometry is computed once per shape;
Im2Col is one strided-view copy, Col2Im one strided-slice add per kernel tap.

AdaptiveMaxPool takes the maximum over PyTorch's adaptive windows (output
position ``i`` of an axis of ``n`` inputs and ``m`` outputs covers inputs
``floor(i n / m)`` to ``ceil((i + 1) n / m)``), gathering every window into a
column (windows shorter than the longest repeat their last element, which
changes no maximum) and taking one argmax; Indices are flat positions within
each ``(n, c)`` plane, as torch returns them.  Its gradient scatter-adds the
output gradient onto those positions.  FractionalMaxPool gathers PyTorch's
pseudo-random windows (starts from per-plane samples) the same way.
MaxUnpool writes values at flat positions; its gradient gathers them back.
"""

import itertools
import math

import numpy as np

from vfw.core import dtypes as dt
from vfw.core.autograd import register_gradient
from vfw.core.errors import IndexOutOfRangeError, OpAttributeError, ShapeError
from vfw.core.ops._common import array_of, execute, int64s, non_negative, positive, reshape_to
from vfw.core.ops._windows import (
    bounded_cache,
    compute_dtype,
    pad,
    pad_plan,
    per_axis,
    split_pads,
    window_layout,
    window_view,
)
from vfw.core.registry import Attr, TensorInfo, defop

_WINDOW_ATTRS = {
    "dilations": Attr("ints", None, check=positive),
    "pads": Attr("ints", None, check=non_negative),
    "strides": Attr("ints", None, check=positive),
}


def _cached(cache, key, make, *args):
    plan = cache.get(key)
    if plan is None:
        bounded_cache(cache)
        plan = cache[key] = make(*args)
    return plan


def _blocks(op, image, block, dilations, pads, strides):
    """Per spatial axis, the number of window positions; ShapeError when a window does not fit."""
    nd = len(block)
    dil = per_axis(op, "dilations", dilations, nd, 1)
    st = per_axis(op, "strides", strides, nd, 1)
    begins, ends = split_pads(op, pads, nd)
    counts = []
    for i, (n, k, d, s, b, e) in enumerate(zip(image, block, dil, st, begins, ends)):
        span = n + b + e - d * (k - 1) - 1
        if span < 0:
            raise ShapeError(f"{op}: block extent {d * (k - 1) + 1} (block_shape {k}, dilation {d}) is larger than "
                             f"the padded image ({n} + pads {b}+{e}) along spatial axis {i}")
        counts.append(span // s + 1)
    return tuple(counts), dil, st, begins, ends


# -------------------------------------------------------------------------------------------- Im2Col


def _im2col_infer(attrs, infos):
    x = infos[0]
    if x.shape is None or None in x.shape[1:]:
        return [TensorInfo(None, x.dtype)]
    kernel = tuple(attrs["kernel_shape"])
    counts = _blocks("Im2Col", x.shape[2:], kernel, attrs["dilations"], attrs["pads"], attrs["strides"])[0]
    return [TensorInfo((x.shape[0], x.shape[1] * math.prod(kernel), math.prod(counts)), x.dtype)]


@defop("Im2Col", inputs="X:T", outputs="Y:T", types={"T": dt.ALL},
       attrs=dict(_WINDOW_ATTRS, kernel_shape=Attr("ints", check=positive)), infer=_im2col_infer)
def im2col(dilations, kernel_shape, pads, strides):
    """Sliding windows of ``X`` ``(N, C, *spatial)`` as columns ``(N, C * prod(kernel_shape), L)``.

    Row ``c * prod(kernel_shape) + k`` holds channel ``c`` at kernel tap ``k`` (row-major over the kernel) for
    each of the ``L`` window positions (row-major); ``pads`` is ONNX's ``[x1_begin, ..., x1_end, ...]``.
    """
    kernel = tuple(kernel_shape)
    nd = len(kernel)
    cache = {}

    def plan(shape):
        if len(shape) != nd + 2:
            raise ShapeError(f"Im2Col: X shape {shape} needs rank {nd + 2} for kernel_shape={list(kernel)}")
        counts, dil, st, begins, ends = _blocks("Im2Col", shape[2:], kernel, dilations, pads, strides)
        padding = pad_plan(shape, begins, ends)
        padded = shape if padding is None else padding[0]
        return (padding, window_layout(padded, kernel, st, dil, counts),
                (shape[0], shape[1] * math.prod(kernel), math.prod(counts)))

    def kernel_fn(x, out=None):
        padding, layout, y_shape = _cached(cache, x.shape, plan, x.shape)
        view = window_view(pad(x, padding, x.dtype), layout)
        if out is not None and out.shape == y_shape and out.flags.c_contiguous:
            np.copyto(out.reshape(view.shape), view)
            return out
        return view.reshape(y_shape)  # a strided view reshaped: numpy copies it once

    return kernel_fn


@register_gradient("Im2Col")
def _im2col_grad(node, g):
    x = array_of(node.inputs[0])
    attrs = node.attrs
    return (execute("Col2Im", g, int64s(x.shape[2:]), int64s(attrs["kernel_shape"]), dilations=attrs["dilations"],
                    pads=attrs["pads"], strides=attrs["strides"]),)


# -------------------------------------------------------------------------------------------- Col2Im


def _col2im_infer(attrs, infos):
    x, image, block = infos
    if image.value is None or x.shape is None:
        return [TensorInfo(None, x.dtype)]
    k = None if block.value is None else math.prod(int(v) for v in block.value)
    c = None if k is None or x.shape[1] is None else x.shape[1] // k
    return [TensorInfo((x.shape[0], c) + tuple(int(v) for v in image.value), x.dtype)]


def _col2im_plan(xshape, image, block, dilations, pads, strides):
    op = "Col2Im"
    nd = len(image)
    if len(block) != nd:
        raise ShapeError(f"Col2Im: image_shape {list(image)} and block_shape {list(block)} need the same length")
    if any(k <= 0 for k in block):
        raise ShapeError(f"Col2Im: block_shape {list(block)} must be positive")
    if len(xshape) != 3:
        raise ShapeError(f"Col2Im: input shape {xshape} must be (N, C * prod(block_shape), L)")
    k = math.prod(block)
    counts, dil, st, begins, ends = _blocks(op, image, block, dilations, pads, strides)
    n, ck, length = xshape
    if ck % k:
        raise ShapeError(f"Col2Im: input shape {xshape}: dim 1 ({ck}) is not divisible by prod(block_shape) = {k}")
    if length != math.prod(counts):
        raise ShapeError(f"Col2Im: input shape {xshape} has {length} blocks, but image_shape {list(image)} with "
                         f"block_shape {list(block)}, dilations {list(dil)}, strides {list(st)} and pads "
                         f"{list(begins) + list(ends)} gives {math.prod(counts)}")
    c = ck // k
    padded = tuple(s + b + e for s, b, e in zip(image, begins, ends))
    lead = (slice(None), slice(None))
    taps = []
    for tap in itertools.product(*map(range, block)):
        dst = lead + tuple(slice(t * d, t * d + (o - 1) * s + 1, s) for t, d, o, s in zip(tap, dil, counts, st))
        taps.append((lead + tap, dst))
    crop = lead + tuple(slice(b, b + s) for b, s in zip(begins, image))
    return (n, c) + tuple(block) + counts, (n, c) + padded, taps, crop


@defop("Col2Im", inputs="input:T image_shape:int64 block_shape:int64", outputs="output:T", types={"T": dt.NUMERIC},
       attrs=dict(_WINDOW_ATTRS), infer=_col2im_infer, value_inputs=("image_shape", "block_shape"))
def col2im(dilations, pads, strides):
    """Sum columns ``(N, C * prod(block_shape), L)`` back into an image ``(N, C, *image_shape)`` (ONNX Col2Im).

    The adjoint of Im2Col: every column entry is added at its window position; padding is cropped.
    """
    cache = {}

    def kernel_fn(x, image_shape, block_shape, out=None):
        image, block = tuple(int(v) for v in image_shape), tuple(int(v) for v in block_shape)
        cols_shape, padded, taps, crop = _cached(cache, (x.shape, image, block), _col2im_plan, x.shape, image, block,
                                                 dilations, pads, strides)
        ct = compute_dtype(x.dtype)
        cols = x.reshape(cols_shape)
        y = np.zeros(padded, ct)
        for src, dst in taps:
            y[dst] += cols[src]
        y = y[crop]
        return np.ascontiguousarray(y, x.dtype)

    return kernel_fn


@register_gradient("Col2Im")
def _col2im_grad(node, g):
    attrs = node.attrs
    block = [int(v) for v in array_of(node.inputs[2])]
    return (execute("Im2Col", g, kernel_shape=block, dilations=attrs["dilations"], pads=attrs["pads"],
                    strides=attrs["strides"]), None, None)


# ----------------------------------------------------------------------------------- AdaptiveMaxPool


def adaptive_windows(n_in, n_out):
    """``(starts, ends)`` of PyTorch's adaptive pooling windows along one axis."""
    i = np.arange(n_out, dtype=np.int64)
    return (i * n_in) // n_out, -((-(i + 1) * n_in) // n_out)


def _adaptive_infer(attrs, infos):
    x = infos[0]
    if x.shape is None:
        return [TensorInfo(None, x.dtype), TensorInfo(None, dt.int64)]
    shape = tuple(x.shape[:2]) + tuple(attrs["output_size"])
    return [TensorInfo(shape, x.dtype), TensorInfo(shape, dt.int64)]


def _adaptive_plan(shape, output_size):
    nd = len(output_size)
    if len(shape) != nd + 2:
        raise ShapeError(f"AdaptiveMaxPool: X shape {shape} needs rank {nd + 2} for output_size={list(output_size)}")
    if any(n == 0 for n in shape[2:]):
        raise ShapeError(f"AdaptiveMaxPool: X shape {shape} has an empty spatial axis")
    steps = [math.prod(shape[3 + i:]) for i in range(nd)]
    fancy, offsets, kernel = [], np.zeros((), np.int64), []
    for i, (n, m) in enumerate(zip(shape[2:], output_size)):
        starts, ends = adaptive_windows(n, m)
        k = int((ends - starts).max()) if m else 1
        taps = np.minimum(starts[:, None] + np.arange(k), ends[:, None] - 1)  # (m, k)
        # axis i's (m, k) index block sits at positions (2i, 2i + 1) of a rank-2nd broadcast
        fancy.append(taps.reshape((1,) * (2 * i) + (m, k) + (1,) * (2 * (nd - 1 - i))))
        offsets = np.add.outer(offsets, taps * steps[i])  # (m0, k0, m1, k1, ...)
        kernel.append(k)
    perm = tuple(range(0, 2 * nd, 2)) + tuple(range(1, 2 * nd, 2))
    columns = tuple(output_size) + (math.prod(kernel),)
    offsets = offsets.transpose(perm).reshape(columns)
    window_perm = (0, 1) + tuple(2 + p for p in perm)
    return (slice(None), slice(None)) + tuple(fancy), window_perm, shape[:2] + columns, offsets


@defop("AdaptiveMaxPool", inputs="X:T", outputs="Y:T Indices:int64", types={"T": dt.FLOATS | dt.INTS},
       attrs={"output_size": Attr("ints", check=non_negative)}, infer=_adaptive_infer)
def adaptive_max_pool(output_size):
    """Max over PyTorch's adaptive windows of X ``(N, C, *spatial)``; Y is ``(N, C, *output_size)``.

    Indices are the flat positions of the maxima within each ``(n, c)`` plane (the first on ties).
    """
    output_size = tuple(output_size)
    cache = {}

    def kernel_fn(x, out=None):
        fancy, perm, cols_shape, offsets = _cached(cache, x.shape, _adaptive_plan, x.shape, output_size)
        cols = x[fancy].transpose(perm).reshape(cols_shape)
        tap = cols.argmax(axis=-1)[..., None]
        y = np.take_along_axis(cols, tap, axis=-1)[..., 0]
        idx = np.take_along_axis(np.broadcast_to(offsets, cols_shape), tap, axis=-1)[..., 0]
        return y, idx

    return kernel_fn


# ---------------------------------------------------------------------------------- FractionalMaxPool


def _fractional_starts(samples, n_in, n_out, k):
    """Window starts ``(N, C, n_out)`` of PyTorch's fractional max pooling along one axis, computed in the
    samples' dtype as torch computes them."""
    dtype = samples.dtype.type
    starts = np.full(samples.shape + (n_out,), n_in - k, np.int64)
    if n_out > 1:
        alpha = dtype(n_in - k) / dtype(n_out - 1)
        steps = np.arange(n_out - 1).astype(samples.dtype)
        moved = np.trunc((steps + samples[..., None]) * alpha).astype(np.int64)
        starts[..., :-1] = moved - np.trunc(samples * alpha).astype(np.int64)[..., None]
    return starts


def _fractional_infer(attrs, infos):
    x = infos[0]
    if x.shape is None:
        return [TensorInfo(None, x.dtype), TensorInfo(None, dt.int64)]
    shape = tuple(x.shape[:2]) + tuple(attrs["output_size"])
    return [TensorInfo(shape, x.dtype), TensorInfo(shape, dt.int64)]


@defop("FractionalMaxPool", inputs="X:T samples:T", outputs="Y:T Indices:int64", types={"T": dt.FLOATS},
       attrs={"kernel_shape": Attr("ints", check=positive), "output_size": Attr("ints", check=non_negative)},
       infer=_fractional_infer)
def fractional_max_pool(kernel_shape, output_size):
    """PyTorch's fractional max pooling of X ``(N, C, *spatial)``: pseudo-random window starts from ``samples``
    ``(N, C, nd)`` in ``[0, 1)`` (``samples[..., a]`` for spatial axis ``a``); Indices are flat positions within
    each ``(n, c)`` plane (the first maximum on ties)."""
    kernel, out_sp = tuple(kernel_shape), tuple(output_size)
    nd = len(kernel)
    if len(out_sp) != nd:
        raise OpAttributeError(f"FractionalMaxPool: output_size {list(out_sp)} and kernel_shape {list(kernel)} need "
                               f"the same length")
    perm = (0, 1) + tuple(range(2, 2 + 2 * nd, 2)) + tuple(range(3, 3 + 2 * nd, 2))

    def kernel_fn(x, samples, out=None):
        n, c = x.shape[:2]
        if len(x.shape) != nd + 2 or samples.shape != (n, c, nd):
            raise ShapeError(f"FractionalMaxPool: X shape {x.shape} and samples shape {samples.shape} must be "
                             f"(N, C, *{nd} spatial) and (N, C, {nd})")
        in_sp = x.shape[2:]
        for a, (size, k, o) in enumerate(zip(in_sp, kernel, out_sp)):
            if o + k - 1 > size:
                raise ShapeError(f"FractionalMaxPool: output size {o} with kernel {k} does not fit the input size "
                                 f"{size} along spatial axis {a} (X shape {x.shape})")
        flat = np.zeros((n, c) + (1,) * (2 * nd), np.int64)
        for a, (size, k, o) in enumerate(zip(in_sp, kernel, out_sp)):
            taps = _fractional_starts(samples[..., a], size, o, k)[..., None] + np.arange(k)  # (N, C, o, k)
            # axis a's (o, k) block sits at positions (2a, 2a + 1) after N and C
            block = (n, c) + (1,) * (2 * a) + (o, k) + (1,) * (2 * (nd - 1 - a))
            flat = flat + (taps * math.prod(in_sp[a + 1:])).reshape(block)
        flat = flat.transpose(perm).reshape(n, c, math.prod(out_sp), math.prod(kernel))
        cols = np.take_along_axis(x.reshape(n, c, -1), flat.reshape(n, c, -1), axis=2).reshape(flat.shape)
        tap = cols.argmax(axis=-1)[..., None]
        y = np.take_along_axis(cols, tap, axis=-1).reshape((n, c) + out_sp)
        return y, np.take_along_axis(flat, tap, axis=-1).reshape((n, c) + out_sp)

    return kernel_fn


@register_gradient("AdaptiveMaxPool", "FractionalMaxPool")
def _plane_max_pool_grad(node, g, _):
    """Max pools whose Indices are flat positions within each plane: the gradient goes to those positions."""
    shape = array_of(node.inputs[0]).shape
    planes = shape[:2] + (math.prod(shape[2:]),)
    flat = shape[:2] + (math.prod(array_of(g).shape[2:]),)
    dx = execute("ScatterElements", np.zeros(planes, g.array.dtype), reshape_to(node.output(1), flat),
                 reshape_to(g, flat), axis=2, reduction="add")
    return (reshape_to(dx, shape),) + (None,) * (len(node.inputs) - 1)


# ---------------------------------------------------------------------------------------- MaxUnpool


def _unpool_shape(xshape, kernel, pads, strides, output_shape):
    nd = len(kernel)
    if len(xshape) != nd + 2:
        raise ShapeError(f"MaxUnpool: X shape {xshape} needs rank {nd + 2} for kernel_shape={list(kernel)}")
    if output_shape is not None:
        shape = tuple(int(v) for v in output_shape)
        if len(shape) != nd + 2 or shape[:2] != tuple(xshape[:2]):
            raise ShapeError(f"MaxUnpool: output_shape {list(shape)} must be (N, C, *spatial) with X's N and C "
                             f"(X shape {xshape})")
        return shape
    st = per_axis("MaxUnpool", "strides", strides, nd, 1)
    begins, ends = split_pads("MaxUnpool", pads, nd)
    return tuple(xshape[:2]) + tuple((n - 1) * s + k - b - e
                                     for n, s, k, b, e in zip(xshape[2:], st, kernel, begins, ends))


def _unpool_infer(attrs, infos):
    x, _, shape = (list(infos) + [None])[:3]
    if shape is not None:
        return [TensorInfo(None if shape.value is None else tuple(int(v) for v in shape.value), x.dtype)]
    if x.shape is None or None in x.shape:
        return [TensorInfo(None, x.dtype)]
    return [TensorInfo(_unpool_shape(x.shape, attrs["kernel_shape"], attrs["pads"], attrs["strides"], None),
                       x.dtype)]


@defop("MaxUnpool", inputs="X:T1 I:int64 output_shape?:int64", outputs="output:T1", types={"T1": dt.FLOATS},
       attrs={"kernel_shape": Attr("ints", check=positive), "pads": Attr("ints", None, check=non_negative),
              "strides": Attr("ints", None, check=positive)},
       infer=_unpool_infer, value_inputs=("output_shape",))
def max_unpool(kernel_shape, pads, strides):
    """Partial inverse of MaxPool: each X value goes to its flat position I in a zero output (ONNX MaxUnpool).

    I indexes the whole output (N and C included, as MaxPool's Indices); where several values share a
    position, the last one (in X's row-major order) is kept.
    """

    def kernel_fn(x, i, output_shape=None, out=None):
        shape = _unpool_shape(x.shape, kernel_shape, pads, strides, output_shape)
        if i.shape != x.shape:
            raise ShapeError(f"MaxUnpool: I shape {i.shape} must equal X shape {x.shape}")
        size = math.prod(shape)
        if i.size and (i.min() < 0 or i.max() >= size):
            raise IndexOutOfRangeError(f"MaxUnpool: indices must lie in [0, {size}) for output shape {shape}; got "
                                       f"values from {i.min()} to {i.max()}")
        y = np.zeros(size, x.dtype)
        y[i.ravel()] = x.ravel()
        return y.reshape(shape)

    return kernel_fn


@register_gradient("MaxUnpool")
def _max_unpool_grad(node, g):
    # every X value reads its position (duplicates included, as torch's max_unpool backward)
    flat = reshape_to(g, (math.prod(array_of(g).shape),))
    return execute("Gather", flat, node.inputs[1], axis=0), None, None
