"""Shape ops, part 2: Slice, Pad, DepthToSpace, SpaceToDepth, Trilu.

Registered by importing :mod:`vfw.core.ops.shape` (which imports this module); see
that module's docstring for the conventions on views, ``out=`` and inference.
"""

import numpy as np

from vfw.core import dtypes as dt
from vfw.core.autograd import register_gradient
from vfw.core.errors import OpInputError, ShapeError
from vfw.core.ops._common import array_of, copy_out, execute, int64s, normalize_axes, positive, reshape_to
from vfw.core.ops._varying_shapes import follows_runs, moved_elements_grad
from vfw.core.ops.shape import DATA, cached, int_list, known_length, known_value, pad_infos
from vfw.core.registry import Attr, TensorInfo, defop

_ZEROS = {}


def zero_of(dtype):
    """The 0-D zero (False, empty string) of ``dtype``."""
    zero = _ZEROS.get(dtype)
    if zero is None:
        zero = np.array("", dtype=object) if dtype == dt.string else np.zeros((), dtype)
        _ZEROS[dtype] = zero
    return zero


def _touched_dims(op_type, shape, axes, n):
    """``shape`` with the dims that ``axes`` (a known list, or the first ``n`` when None) touch made None."""
    if axes is None and n is None:
        return (None,) * len(shape)
    touched = set(range(n)) if axes is None else set(normalize_axes(op_type, axes, len(shape)))
    return tuple(None if i in touched else d for i, d in enumerate(shape))


def _optional_inputs(node, n):
    """The saved inputs 1..n-1 of ``node`` as arrays (None where absent)."""
    rest = list(node.inputs[1:]) + [None] * (n - len(node.inputs))
    return [None if x is None else array_of(x) for x in rest]


def _slice_axis(x, axis, start, end, step=1):
    """``x[start:end:step]`` along ``axis``, as an engine op (differentiable)."""
    return execute("Slice", x, int64s([start]), int64s([end]), int64s([axis]), int64s([step]))


def _pad_axis(x, axis, begin, end):
    """``x`` zero-padded (negative: cropped) by ``begin`` / ``end`` along ``axis``, as an engine op."""
    return execute("Pad", x, int64s([begin, end]), None, int64s([axis]))


# -- Slice ----------------------------------------------------------------------------------------------------
def slice_plan(shape, starts, ends, axes=None, steps=None):
    """(index tuple, output shape) of Slice on data of ``shape`` (None dims allowed for inference).

    Follows the ONNX rules: negative starts/ends count from the end; starts are clamped to
    [0, dim] (step > 0) or [0, dim - 1] (step < 0), ends to [0, dim] or [-1, dim - 1].
    """
    rank, n = len(shape), len(starts)
    if len(ends) != n:
        raise ShapeError(f"Slice: starts {tuple(starts)} and ends {tuple(ends)} must have the same length")
    if axes is None:
        if n > rank:
            raise ShapeError(f"Slice: {n} starts given for data of shape {tuple(shape)} (rank {rank})")
        axes = range(n)
    elif len(axes) != n:
        raise ShapeError(f"Slice: axes {tuple(axes)} and starts {tuple(starts)} must have the same length")
    else:
        axes = normalize_axes("Slice", axes, rank)
    if steps is None:
        steps = (1,) * n
    elif len(steps) != n:
        raise ShapeError(f"Slice: steps {tuple(steps)} and starts {tuple(starts)} must have the same length")
    elif 0 in steps:
        raise OpInputError(f"Slice: steps {tuple(steps)} must not contain 0")
    index = [slice(None)] * rank
    dims = list(shape)
    for axis, start, end, step in zip(axes, starts, ends, steps):
        dim = shape[axis]
        if dim is None:
            continue
        start = start + dim if start < 0 else start
        end = end + dim if end < 0 else end
        if step > 0:
            start = min(max(start, 0), dim)
            end = min(max(end, 0), dim)
            dims[axis] = max(0, (end - start + step - 1) // step)
        else:
            start = min(max(start, 0), dim - 1)
            end = min(max(end, -1), dim - 1)
            dims[axis] = max(0, (start - end - step - 1) // -step)
            end = None if end < 0 else end  # -1 means "past the front", not "the last element"
        index[axis] = slice(start, end, step)
    return tuple(index), tuple(dims)


def _slice_infer(attrs, infos):
    data, starts, ends, axes, steps = pad_infos(infos, 5)
    if data.shape is None:
        return [TensorInfo(None, data.dtype)]
    values = [known_value(i) for i in (starts, ends, axes, steps)]
    if all(v is not None or i is None for v, i in zip(values, (starts, ends, axes, steps))):
        return [TensorInfo(slice_plan(data.shape, *values)[1], data.dtype)]
    if axes is not None and values[2] is None:
        return [TensorInfo((None,) * len(data.shape), data.dtype)]
    n = known_length(starts)
    return [TensorInfo(_touched_dims("Slice", data.shape, values[2], n if n is not None else known_length(ends)),
                       data.dtype)]


@defop("Slice", inputs="data:T starts:Tind ends:Tind axes?:Tind steps?:Tind", outputs="output:T",
       types={"T": DATA, "Tind": dt.INDEX}, infer=_slice_infer, value_inputs=("starts", "ends", "axes", "steps"))
def slice_():
    """Take ``data[starts:ends:steps]`` along ``axes`` (ONNX clamping; negative steps go backwards).

    The result is a view of (aliases) the input.
    """
    cache = {}

    def kernel(data, starts, ends, axes=None, steps=None, out=None):
        key = (data.shape, starts.dtype.char, starts.shape, starts.tobytes(), ends.tobytes(),
               None if axes is None else axes.tobytes(), None if steps is None else steps.tobytes())
        index = cached(cache, key, _slice_kernel_plan, data.shape, starts, ends, axes, steps)
        return copy_out(data[index], out)

    return kernel


def _slice_kernel_plan(shape, starts, ends, axes, steps):
    lists = [None if x is None else int_list("Slice", name, x)
             for name, x in (("starts", starts), ("ends", ends), ("axes", axes), ("steps", steps))]
    return slice_plan(shape, *lists)[0]


@register_gradient("Slice")
def _slice_grad(node, g):
    # Scatter g back into zeros of the input's shape with engine ops only: reverse the axes with
    # negative steps (so every axis runs forward from its lowest taken index), interleave step - 1
    # zeros after each element of strided axes, then pad (or crop the trailing zeros) into place.
    if follows_runs(node, node.inputs[1:]):  # (a traced graph whose shapes or slice bounds vary from run to run)
        return (moved_elements_grad(node.inputs[0], g, lambda t: execute("Slice", t, *node.inputs[1:])),)
    shape = node.inputs[0].array.shape
    index, dims = slice_plan(shape, *[None if x is None else x.tolist() for x in _optional_inputs(node, 5)])
    reverse, strided, axes, begins, ends = [], {}, [], [], []
    for axis, part in enumerate(index):
        if part.start is None:  # axis not sliced
            continue
        n, step = dims[axis], part.step
        low, stride = part.start, abs(step)
        if n == 0:
            low, stride = 0, 1
        elif step < 0:
            low = part.start + (n - 1) * step
            if n > 1:
                reverse.append(axis)
        if stride > 1 and n > 1:
            strided[axis] = stride
        else:
            stride = 1
        axes.append(axis)
        begins.append(low)
        ends.append(shape[axis] - low - n * stride)
    if reverse:
        g = execute("Slice", g, int64s([-1] * len(reverse)), int64s([-dims[a] - 1 for a in reverse]),
                    int64s(reverse), int64s([-1] * len(reverse)))
    if strided:
        split, merged, new_axes = [], [], []
        for axis, d in enumerate(dims):
            split.append(d)
            merged.append(d * strided.get(axis, 1))
            if axis in strided:
                split.append(1)
                new_axes.append(len(split) - 1)
        g = reshape_to(g, split)
        g = execute("Pad", g, int64s([0] * len(new_axes) + [strided[a] - 1 for a in sorted(strided)]), None,
                    int64s(new_axes))
        g = reshape_to(g, merged)
    if any(begins) or any(ends):
        g = execute("Pad", g, int64s(begins + ends), None, int64s(axes))
    return (g,)


# -- Pad ------------------------------------------------------------------------------------------------------
def _gather_index(mode, dim, begin, end):
    """Source positions of a padded axis of ``dim`` elements grown by ``begin`` / ``end``."""
    i = np.arange(-begin, dim + end)
    if mode == "edge":
        return np.clip(i, 0, dim - 1)
    if mode == "wrap":
        return i % dim
    i = np.abs(i)  # reflect: pads are < dim, so one reflection at each end suffices
    return np.where(i >= dim, 2 * (dim - 1) - i, i)


def pad_plan(shape, pads, axes, mode):
    """(crop index or None, [(axis, gather index)], interior index, output shape) of Pad.

    Negative pads first crop the data; positive pads then grow the cropped data (as onnxruntime
    does), so ``edge``/``reflect``/``wrap`` read the cropped values.  None dims are allowed
    (inference): the output dim is then None.
    """
    rank = len(shape)
    axes = range(rank) if axes is None else normalize_axes("Pad", axes, rank)
    n = len(axes)
    if len(pads) != 2 * n:
        raise ShapeError(f"Pad: pads {tuple(pads)} must have {2 * n} entries (begins, then ends, for {n} axes) "
                         f"for data of shape {tuple(shape)}")
    crop, interior = [slice(None)] * rank, [slice(None)] * rank
    cropped, grow, dims = False, [], list(shape)
    for axis, begin, end in zip(axes, pads[:n], pads[n:]):
        dim = shape[axis]
        if dim is None:
            continue
        cut_begin, cut_end = max(-begin, 0), max(-end, 0)
        if cut_begin or cut_end:
            if cut_begin + cut_end > dim:
                raise ShapeError(f"Pad: pads ({begin}, {end}) remove more than the {dim} elements of axis {axis} "
                                 f"(data shape {tuple(shape)})")
            crop[axis] = slice(cut_begin, dim - cut_end)
            dim -= cut_begin + cut_end
            cropped = True
        add_begin, add_end = max(begin, 0), max(end, 0)
        dims[axis] = dim + add_begin + add_end
        if not (add_begin or add_end):
            continue
        interior[axis] = slice(add_begin, add_begin + dim)
        if mode == "reflect" and max(add_begin, add_end) >= dim:
            raise ShapeError(f"Pad: reflect pads ({add_begin}, {add_end}) of axis {axis} must be smaller than its "
                             f"size {dim} (after cropping; data shape {tuple(shape)})")
        if mode in ("edge", "wrap") and dim == 0:
            raise ShapeError(f"Pad: mode '{mode}' cannot pad axis {axis}, which is empty (data shape {tuple(shape)})")
        grow.append((axis, None if mode == "constant" else _gather_index(mode, dim, add_begin, add_end)))
    return (tuple(crop) if cropped else None), grow, tuple(interior), tuple(dims)


def _pad_infer(attrs, infos):
    data, pads, _, axes = pad_infos(infos, 4)
    if data.shape is None:
        return [TensorInfo(None, data.dtype)]
    pad_values, axes_values = known_value(pads), known_value(axes)
    if pad_values is not None and (axes is None or axes_values is not None):
        return [TensorInfo(pad_plan(data.shape, pad_values, axes_values, attrs["mode"])[3], data.dtype)]
    if axes is not None and axes_values is None:
        return [TensorInfo((None,) * len(data.shape), data.dtype)]
    return [TensorInfo(_touched_dims("Pad", data.shape, axes_values, len(data.shape)), data.dtype)]


@defop("Pad", inputs="data:T pads:int64 constant_value?:T axes?:Tind", outputs="output:T",
       types={"T": DATA, "Tind": dt.INDEX},
       attrs={"mode": Attr("string", "constant", choices=("constant", "reflect", "edge", "wrap"))},
       infer=_pad_infer, value_inputs=("pads", "axes"))
def pad(mode):
    """Pad (or, with negative pads, crop) each axis: modes constant, reflect, edge and wrap.

    ``pads`` holds the begin pads of every axis in ``axes`` (default: all), then the end pads.
    The result is a new array (never aliases the input).
    """
    cache = {}

    def plan(data, pads, axes):
        key = (data.shape, pads.shape, pads.tobytes(), None if axes is None else (axes.dtype.char, axes.tobytes()))
        return cached(cache, key, _pad_kernel_plan, data.shape, pads, axes, mode)

    if mode == "constant":
        def kernel(data, pads, constant_value=None, axes=None, out=None):
            crop, grow, interior, dims = plan(data, pads, axes)
            x = data if crop is None else data[crop]
            if constant_value is None:
                value = zero_of(data.dtype)
            elif constant_value.size == 1:
                value = constant_value.reshape(())
            else:
                raise OpInputError(f"Pad: constant_value must be a scalar, got shape {constant_value.shape}")
            y = np.empty(dims, data.dtype) if out is None else out
            if grow:
                y[...] = value
            y[interior] = x
            return y
    else:
        def kernel(data, pads, constant_value=None, axes=None, out=None):
            crop, grow, interior, dims = plan(data, pads, axes)
            x = data if crop is None else data[crop]
            if not grow:
                return copy_out(x, out) if out is not None else x.copy()
            for axis, index in grow[:-1]:
                x = np.take(x, index, axis=axis)
            axis, index = grow[-1]
            return np.take(x, index, axis=axis, out=out, mode="clip")  # indices are valid: no check needed

    return kernel


def _pad_kernel_plan(shape, pads, axes, mode):
    return pad_plan(shape, int_list("Pad", "pads", pads), None if axes is None else int_list("Pad", "axes", axes),
                    mode)


@register_gradient("Pad")
def _pad_grad(node, g):
    data, pads_input = node.inputs[:2]
    pads, _, axes = _optional_inputs(node, 4)
    mode = node.attrs["mode"]
    followed = follows_runs(node, (pads_input,))  # (a traced graph whose shapes or pads vary from run to run)
    if mode == "constant":
        # Negated pads crop what was added and zero-fill what was cropped.
        negated = execute("Neg", pads_input) if followed else int64s([-p for p in pads.tolist()])
        gx = execute("Pad", g, negated, *(() if axes is None else (None, axes)))
        gv = None
        if len(node.needs_input_grad) > 2 and node.needs_input_grad[2]:
            # The constant fills every output element that does not come from the data.
            gv = execute("Sub", execute("ReduceSum", g, keepdims=0), execute("ReduceSum", gx, keepdims=0))
            gv = reshape_to(gv, node.inputs[2].array.shape)
        return gx, None, gv, None
    if followed:  # every output element is an element of the data
        axes_input = node.inputs[3] if len(node.inputs) > 3 else None
        gx = moved_elements_grad(data, g, lambda t: execute("Pad", t, pads_input, None, axes_input, mode=mode))
        return gx, None, None, None
    pads = pads.tolist()
    shape = array_of(data).shape
    axes = range(len(shape)) if axes is None else normalize_axes("Pad", axes.tolist(), len(shape))
    n = len(axes)
    cuts = []
    for axis, begin, end in zip(axes, pads[:n], pads[n:]):
        cut_begin, cut_end = max(-begin, 0), max(-end, 0)
        if begin > 0 or end > 0:
            g = _pad_grad_axis(g, axis, mode, max(begin, 0), max(end, 0), shape[axis] - cut_begin - cut_end)
        cuts.append((axis, cut_begin, cut_end))
    cuts = [c for c in cuts if c[1] or c[2]]
    if cuts:
        g = execute("Pad", g, int64s([c[1] for c in cuts] + [c[2] for c in cuts]), None, int64s([c[0] for c in cuts]))
    return g, None, None, None


def _pad_grad_axis(g, axis, mode, begin, end, dim):
    """Gradient of growing ``axis`` (``dim`` elements) by ``begin`` / ``end`` in ``mode`` reflect, edge or wrap."""
    total = begin + dim + end
    if mode == "wrap":
        # Output position p (from -begin) reads p mod dim: pad to whole periods and sum them.
        front, back = -(-begin // dim) * dim, -(-end // dim) * dim
        if front != begin or back != end:
            g = _pad_axis(g, axis, front - begin, back - end)
        shape = g.array.shape
        periods = shape[:axis] + ((front + dim + back) // dim, dim) + shape[axis + 1:]
        return execute("ReduceSum", reshape_to(g, periods), int64s([axis]), keepdims=0)
    result = _slice_axis(g, axis, begin, begin + dim)
    if mode == "edge":
        if begin:
            head = execute("ReduceSum", _slice_axis(g, axis, 0, begin), int64s([axis]), keepdims=1)
            result = execute("Add", result, _pad_axis(head, axis, 0, dim - 1))
        if end:
            tail = execute("ReduceSum", _slice_axis(g, axis, begin + dim, total), int64s([axis]), keepdims=1)
            result = execute("Add", result, _pad_axis(tail, axis, dim - 1, 0))
        return result
    # reflect: output positions begin-1..0 read 1..begin, and begin+dim..total-1 read dim-2..dim-1-end
    if begin:
        head = _slice_axis(g, axis, begin - 1, -total - 1, -1)
        result = execute("Add", result, _pad_axis(head, axis, 1, dim - 1 - begin))
    if end:
        tail = _slice_axis(g, axis, total - 1, begin + dim - 1, -1)
        result = execute("Add", result, _pad_axis(tail, axis, dim - 1 - end, 1))
    return result


# -- DepthToSpace / SpaceToDepth ------------------------------------------------------------------------------
def _mul(a, b):
    return None if a is None else a * b


def _div(op_type, what, a, b, shape):
    if a is None:
        return None
    if a % b:
        raise ShapeError(f"{op_type}: {what} {a} is not divisible by {b} (input shape {tuple(shape)})")
    return a // b


def depth_space_plan(op_type, shape, blocksize, mode):
    """(split shape, axis permutation, output shape) of DepthToSpace / SpaceToDepth on NCHW ``shape``."""
    if len(shape) != 4:
        raise ShapeError(f"{op_type}: input must be 4-D [N, C, H, W], got shape {tuple(shape)}")
    n, c, h, w = shape
    b = blocksize
    if op_type == "DepthToSpace":
        c2 = _div(op_type, "channel count", c, b * b, shape)
        target = (n, c2, _mul(h, b), _mul(w, b))
        if mode == "DCR":
            return (n, b, b, c2, h, w), (0, 3, 4, 1, 5, 2), target
        return (n, c2, b, b, h, w), (0, 1, 4, 2, 5, 3), target
    h2, w2 = _div(op_type, "height", h, b, shape), _div(op_type, "width", w, b, shape)
    target = (n, _mul(c, b * b), h2, w2)
    return (n, c, h2, b, w2, b), ((0, 3, 5, 1, 2, 4) if mode == "DCR" else (0, 1, 3, 5, 2, 4)), target


def _depth_space(op_type, doc):
    def infer(attrs, infos):
        (x,) = infos
        if x.shape is None:
            return [TensorInfo((None,) * 4, x.dtype)]
        return [TensorInfo(depth_space_plan(op_type, x.shape, attrs["blocksize"], attrs["mode"])[2], x.dtype)]

    def factory(blocksize, mode):
        cache = {}

        def kernel(x, out=None):
            split, perm, target = cached(cache, x.shape, depth_space_plan, op_type, x.shape, blocksize, mode)
            moved = x.reshape(split).transpose(perm)
            y = out if out is not None and out.flags.c_contiguous else np.empty(target, x.dtype)
            np.copyto(y.reshape(moved.shape), moved)  # y is contiguous: reshape is a view, one copy in all
            return copy_out(y, out) if y is not out else y

        return kernel

    factory.__doc__ = doc
    return defop(op_type, inputs="input:T", outputs="output:T", types={"T": DATA}, infer=infer,
                 attrs={"blocksize": Attr("int", check=positive),
                        "mode": Attr("string", "DCR", choices=("DCR", "CRD"))})(factory)


depth_to_space = _depth_space("DepthToSpace", """\
    Move channel blocks into blocksize x blocksize spatial blocks (NCHW; DCR or CRD order).

    The result is a new array (never aliases the input).
    """)
space_to_depth = _depth_space("SpaceToDepth", """\
    Move blocksize x blocksize spatial blocks into channels (NCHW; DCR or CRD order).

    The result is a new array (never aliases the input).
    """)


@register_gradient("DepthToSpace", "SpaceToDepth")
def _depth_space_grad(node, g):
    # With the same blocksize and mode, each op is the other's inverse permutation of elements.
    inverse = "SpaceToDepth" if node.op.schema.op_type == "DepthToSpace" else "DepthToSpace"
    return (execute(inverse, g, blocksize=node.attrs["blocksize"], mode=node.attrs["mode"]),)


# -- Trilu ----------------------------------------------------------------------------------------------------
def _tri_masks(rows, cols, k, upper):
    offset = np.arange(cols)[None, :] - np.arange(rows)[:, None]
    keep = offset >= k if upper else offset <= k
    return keep, ~keep


def _trilu_infer(attrs, infos):
    x = infos[0]
    if x.shape is not None and len(x.shape) < 2:
        raise ShapeError(f"Trilu: input must have rank >= 2, got shape {x.shape}")
    return [TensorInfo(x.shape, x.dtype)]


@defop("Trilu", inputs="input:T k?:int64", outputs="output:T", types={"T": DATA},
       attrs={"upper": Attr("int", 1, choices=(0, 1))}, infer=_trilu_infer)
def trilu(upper):
    """Keep the upper (``upper=1``) or lower triangle of the last two dims from diagonal ``k``; zero the rest.

    The result is a new array (never aliases the input).
    """
    cache = {}

    def kernel(x, k=None, out=None):
        if x.ndim < 2:
            raise ShapeError(f"Trilu: input must have rank >= 2, got shape {x.shape}")
        if k is None:
            diagonal = 0
        elif k.size == 1:
            diagonal = k.item()
        else:
            raise OpInputError(f"Trilu: k must be a scalar, got shape {k.shape}")
        rows, cols = x.shape[-2:]
        keep, drop = cached(cache, (rows, cols, diagonal), _tri_masks, rows, cols, diagonal, upper)
        zero = zero_of(x.dtype)
        if out is None:
            return np.where(keep, x, zero)
        np.copyto(out, x)
        np.copyto(out, zero, where=drop)
        return out

    return kernel


@register_gradient("Trilu")
def _trilu_grad(node, g):
    (k,) = _optional_inputs(node, 2)
    return execute("Trilu", g, *(() if k is None else (k,)), upper=node.attrs["upper"]), None
