"""Reductions (ReduceSum ... ReduceLogSumExp), ArgMax/ArgMin, CumSum and TopK.

The reductions follow the latest ONNX opsets: ``axes`` is an optional int64
*input*; when it is absent or empty, ``noop_with_empty_axes`` chooses between
reducing over every axis (0, the default) and reducing over no axis (1), in
which case composite reductions still apply their elementwise steps
(ReduceSumSquare squares, ReduceLogSum takes the log, ...).  Reductions over an
empty set give the identity: 0 for sums, 1 for products, -inf (or the dtype's
minimum) for ReduceMax, -inf for ReduceLogSum and ReduceLogSumExp.

float16 and bfloat16 inputs are accumulated in float32 and rounded once at the
end.  Integer ReduceMean and ReduceL2 truncate toward zero, as ONNX does.
"""

import math

import numpy as np

from vfw.core import dtypes as dt
from vfw.core.autograd import broadcast_scalar, not_differentiable, register_gradient
from vfw.core.errors import OpInputError, ShapeError
from vfw.core.graph.trace import _active as _tracing
from vfw.core.ops._common import (
    GEMV_SUM_FROM,
    array_of,
    as_array,
    bound_op,
    conj,
    execute,
    int64s,
    normalize_axes,
    normalize_axis,
    require,
    reshape_to,
    same_as_first,
    scalar,
    trailing_sum,
)
from vfw.core.ops._varying_shapes import count_input, kept_shape_input, shape_input, shape_varies
from vfw.core.registry import Attr, TensorInfo, defop, describe

_HALF = frozenset({dt.float16, dt.bfloat16})
_F32 = dt.float32
_INT64 = dt.int64
_SUM_TYPES = frozenset({dt.uint32, dt.uint64, dt.int32, dt.int64}) | dt.FLOATS
_MINMAX_TYPES = _SUM_TYPES | {dt.uint8, dt.int8, dt.bool_}
_REDUCE_ATTRS = {
    "keepdims": Attr("int", 1, choices=(0, 1)),
    "noop_with_empty_axes": Attr("int", 0, choices=(0, 1)),
}


# -- axes ------------------------------------------------------------------------
def _resolve_axes(op_type, axes, ndim, noop):
    """Axes a reduction runs over: ``None`` for all of them, else a tuple of axes in ``[0, ndim)``."""
    if axes is None or axes.size == 0:
        return () if noop else None
    if not ndim:
        raise ShapeError(f"{op_type}: axes={axes.ravel().tolist()} is out of range for a tensor of rank 0")
    return normalize_axes(op_type, axes.ravel().tolist(), ndim)


def _along(axis, start, stop, step=None):
    """Index tuple selecting ``start:stop:step`` of ``axis``."""
    return (slice(None),) * axis + (slice(start, stop, step),)


def _reduced_shape(shape, axis, keep):
    if axis is None:
        return (1,) * len(shape) if keep else ()
    if keep:
        return tuple(1 if i in axis else d for i, d in enumerate(shape))
    return tuple(d for i, d in enumerate(shape) if i not in axis)


def _count(shape, axis):
    """Number of elements each output element reduces."""
    if axis is None:
        return math.prod(shape)
    return math.prod(shape[a] for a in axis)


def _reduce_infer(op_type):
    def infer(attrs, infos):
        data = infos[0]
        axes = infos[1] if len(infos) > 1 else None
        if data.shape is None:
            return [TensorInfo(None, data.dtype)]
        rank, keep, noop = len(data.shape), attrs["keepdims"], attrs["noop_with_empty_axes"]
        if axes is None or axes.shape == (0,):
            axis = () if noop else None
        elif axes.value is not None:
            axis = _resolve_axes(op_type, np.asarray(axes.value), rank, noop)
        else:  # axes unknown until run time
            return [TensorInfo((None,) * rank if keep else None, data.dtype)]
        return [TensorInfo(_reduced_shape(data.shape, axis, keep), data.dtype)]

    return infer


def _down(result, dtype, out):
    """Round a float32 accumulation back to the input's half dtype (into ``out`` when given)."""
    if out is None:
        return np.asarray(result, dtype)
    np.copyto(out, result, casting="unsafe")
    return out


# -- reduction bodies: body(x, axis, keepdims, out) -> ndarray of x.dtype ---------------
def _sum(x, axis, keep, out):
    total = trailing_sum(x, axis, keep) if x.size >= GEMV_SUM_FROM else None
    if total is not None:
        return _down(total, x.dtype, out)
    if x.dtype in _HALF:
        return _down(np.add.reduce(x, axis=axis, dtype=_F32, keepdims=keep), x.dtype, out)
    return as_array(np.add.reduce(x, axis=axis, dtype=x.dtype, out=out, keepdims=keep), x.dtype)


def _prod(x, axis, keep, out):
    if x.dtype in _HALF:
        return _down(np.multiply.reduce(x, axis=axis, dtype=_F32, keepdims=keep), x.dtype, out)
    return as_array(np.multiply.reduce(x, axis=axis, dtype=x.dtype, out=out, keepdims=keep), x.dtype)


def _mean(x, axis, keep, out):
    n = _count(x.shape, axis)
    if x.dtype in dt.DIFFERENTIABLE:  # float and complex
        acc = _F32 if x.dtype in _HALF else x.dtype
        total = trailing_sum(x, axis, keep) if x.size >= GEMV_SUM_FROM else None
        if total is None:
            total = np.add.reduce(x, axis=axis, dtype=acc, keepdims=keep)
        return _down(np.true_divide(total, n, dtype=acc), x.dtype, out)
    # Integers: exact integer sum, then division truncated toward zero (ONNX's int mean).
    signed = x.dtype.kind == "i"
    total = np.add.reduce(x, axis=axis, dtype=_INT64 if signed else np.uint64, keepdims=keep)
    quotient = total // n if n else total * 0
    if signed and n:
        quotient += (total < 0) & (total % n != 0)
    return _down(quotient, x.dtype, out)


def _extreme(ufunc, start):
    def body(x, axis, keep, out):
        # ``initial`` is the reduction's identity: what an empty reduction yields.
        return as_array(ufunc.reduce(x, axis=axis, out=out, keepdims=keep, initial=start[x.dtype]), x.dtype)

    return body


def _lowest(dtype):
    if dtype == dt.bool_:
        return False
    return -np.inf if dtype in dt.FLOATS else np.iinfo(dtype).min


def _highest(dtype):
    if dtype == dt.bool_:
        return True
    return np.inf if dtype in dt.FLOATS else np.iinfo(dtype).max


def _l1(x, axis, keep, out):
    work = x.astype(_F32) if x.dtype in _HALF else x
    if work.dtype.kind != "u":
        work = np.abs(work)
    return _down(np.add.reduce(work, axis=axis, dtype=work.dtype, keepdims=keep), x.dtype, out)


def _sum_square(x, axis, keep, out):
    work = x.astype(_F32) if x.dtype in _HALF else x
    return _down(np.add.reduce(np.square(work), axis=axis, dtype=work.dtype, keepdims=keep), x.dtype, out)


def _l2(x, axis, keep, out):
    if x.dtype in dt.FLOATS:
        work = x.astype(_F32) if x.dtype in _HALF else x
        total = np.add.reduce(np.square(work), axis=axis, dtype=work.dtype, keepdims=keep)
        return _down(np.sqrt(total), x.dtype, out)
    total = np.add.reduce(np.square(x), axis=axis, dtype=x.dtype, keepdims=keep)
    return _down(np.trunc(np.sqrt(total, dtype=np.float64)), x.dtype, out)


def _log_sum(x, axis, keep, out):
    acc = _F32 if x.dtype in _HALF else x.dtype
    return _down(np.log(np.add.reduce(x, axis=axis, dtype=acc, keepdims=keep)), x.dtype, out)


def _log_sum_exp(x, axis, keep, out):
    work = x.astype(_F32) if x.dtype in _HALF else x
    # Shift by the max for stability; an infinite or empty (-inf) max shifts by 0 instead,
    # so all -inf gives -inf, +inf gives +inf and an empty set gives log(0) = -inf.
    shift = np.asarray(np.maximum.reduce(work, axis=axis, keepdims=True, initial=-np.inf))
    np.copyto(shift, 0, where=~np.isfinite(shift))
    shifted = np.subtract(work, shift)
    shifted = np.exp(shifted, out=shifted) if type(shifted) is np.ndarray else np.exp(shifted)
    total = np.add.reduce(shifted, axis=axis, keepdims=keep)
    result = np.log(total)
    result += shift if keep else shift.reshape(np.shape(result))
    return _down(result, x.dtype, out)


_REDUCTIONS = (
    ("ReduceSum", _SUM_TYPES | dt.COMPLEX, _sum, "Sum of the elements along ``axes``."),
    ("ReduceMean", _SUM_TYPES | dt.COMPLEX, _mean, "Mean of the elements along ``axes`` (integers: truncated)."),
    ("ReduceProd", _SUM_TYPES | dt.COMPLEX, _prod, "Product of the elements along ``axes``."),
    ("ReduceMax", _MINMAX_TYPES, _extreme(np.maximum, {d: _lowest(d) for d in _MINMAX_TYPES}),
     "Maximum along ``axes`` (an empty set gives -inf or the dtype's minimum; NaN propagates)."),
    ("ReduceMin", _MINMAX_TYPES, _extreme(np.minimum, {d: _highest(d) for d in _MINMAX_TYPES}),
     "Minimum along ``axes`` (an empty set gives +inf or the dtype's maximum; NaN propagates)."),
    ("ReduceL1", _SUM_TYPES, _l1, "Sum of absolute values along ``axes``."),
    ("ReduceL2", _SUM_TYPES, _l2, "Euclidean norm along ``axes`` (integers: truncated)."),
    ("ReduceSumSquare", _SUM_TYPES, _sum_square, "Sum of squares along ``axes``."),
    ("ReduceLogSum", dt.FLOATS, _log_sum, "Log of the sum along ``axes``."),
    ("ReduceLogSumExp", dt.FLOATS, _log_sum_exp, "Log of the sum of exponentials along ``axes`` (max-shifted)."),
)


def _reduction_factory(op_type, body, doc):
    def factory(keepdims, noop_with_empty_axes):
        keep = bool(keepdims)
        noop = bool(noop_with_empty_axes)
        default = () if noop else None
        resolved = {}  # (rank, axes bytes) -> axis: graphs reuse a few axes values many times

        def kernel(data, axes=None, out=None):
            if axes is None:
                return body(data, default, keep, out)
            key = (data.ndim, axes.tobytes())
            axis = resolved.get(key, resolved)
            if axis is resolved:
                axis = _resolve_axes(op_type, axes, data.ndim, noop)
                if len(resolved) < 256:
                    resolved[key] = axis
            return body(data, axis, keep, out)

        return kernel

    factory.__doc__ = doc
    factory.__name__ = op_type
    return factory


for _name, _types, _body, _doc in _REDUCTIONS:
    defop(_name, inputs="data:T axes?:int64", outputs="reduced:T", types={"T": _types}, attrs=_REDUCE_ATTRS,
          infer=_reduce_infer(_name), value_inputs=("axes",))(_reduction_factory(_name, _body, _doc))


# -- gradients of the reductions -------------------------------------------------------
# Each maker reshapes the output gradient to the input's rank (reduced dims kept as 1) and lets
# the elementwise ops broadcast it back over the reduced dims.
def _node_axis(node):
    """The axes a recorded reduction ran over (``None`` for all)."""
    axes = array_of(node.inputs[1]) if len(node.inputs) > 1 else None
    return _resolve_axes(node.op.schema.op_type, axes, node.inputs[0].array.ndim, node.attrs["noop_with_empty_axes"])


def _keepdims_shape(node):
    """Shape of the reduction's output with the reduced dims kept (as 1)."""
    return _reduced_shape(node.inputs[0].array.shape, _node_axis(node), True)


def _kept(node, t):
    """``t`` (shaped like the reduction's output) reshaped to :func:`_keepdims_shape`."""
    x = node.inputs[0]
    if shape_varies(x):  # (in a traced graph, computed from each run's shape)
        return execute("Reshape", t, kept_shape_input(x, _node_axis(node)), allowzero=1)
    shape = _keepdims_shape(node)
    return t if t.array.shape == shape else reshape_to(t, shape)


def _grad_to_input_shape(node, g):
    """``g`` (shaped like the reduction's output) reshaped with kept dims and broadcast to the input's shape."""
    x = node.inputs[0]
    if not g.array.shape and not g.requires_grad and not _tracing:
        # A full reduction's gradient that nothing records (no create_graph, no trace): the view Expand makes,
        # without the op's dispatch (the loss.backward() of every training step).
        return g.result_class.wrap(broadcast_scalar(g.array, x.array.shape))
    # A 0-d gradient (a full reduction) broadcasts as it is; otherwise put the reduced dims back first.
    return execute(bound_op("Expand"), g if not g.array.shape else _kept(node, g), shape_input(x))


def _reduce_like(node, op_type, x):
    """``op_type`` over the node's axes (and ``noop_with_empty_axes``), dims kept."""
    axes = array_of(node.inputs[1]) if len(node.inputs) > 1 else None
    return execute(op_type, x, axes, keepdims=1, noop_with_empty_axes=node.attrs["noop_with_empty_axes"])


@register_gradient("ReduceSum")
def _reduce_sum_grad(node, g):
    return _grad_to_input_shape(node, g), None


@register_gradient("ReduceMean")
def _reduce_mean_grad(node, g):
    x = node.inputs[0]
    if shape_varies(x):  # (in a traced graph, the count of each run)
        scaled = execute("Div", _kept(node, g), count_input(x, _node_axis(node), x.array.dtype))
        return execute("Expand", scaled, shape_input(x)), None
    n = _count(x.array.shape, _node_axis(node))
    scaled = execute("Mul", _kept(node, g), scalar(1 / n if n else 0, x.array.dtype))
    return execute("Expand", scaled, int64s(x.array.shape)), None


@register_gradient("ReduceProd")
def _reduce_prod_grad(node, g):
    # d prod / d x_i is the product of the others, computed without dividing by a zero x_i:
    # with no zero in the group it is prod / x_i; with one zero it is the product of the
    # non-zeros at the zero's place and 0 elsewhere; with more zeros it is 0 everywhere.
    # Complex: g times the conjugate of that product.
    x = node.inputs[0]
    dtype = x.array.dtype
    zero = execute("Equal", x, scalar(0, dtype))
    safe = execute("Where", zero, scalar(1, dtype), x)
    scaled = execute("Mul", _kept(node, g), conj(_reduce_like(node, "ReduceProd", safe)))
    zeros = _reduce_like(node, "ReduceSum", execute("Cast", zero, to=_INT64))
    none = execute("Cast", execute("Equal", zeros, scalar(0, _INT64)), to=dtype)
    one = execute("Cast", execute("Equal", zeros, scalar(1, _INT64)), to=dtype)
    at_zero = execute("Mul", scaled, one)
    elsewhere = execute("Div", execute("Mul", scaled, none), conj(safe))
    return execute("Where", zero, at_zero, elsewhere), None


@register_gradient("ReduceMax", "ReduceMin")
def _reduce_extreme_grad(node, g):
    # The gradient goes to the elements equal to the result, split evenly among ties (as
    # torch.amax/amin do; an index-based max such as torch.max(dim) picks one of them instead).
    x = node.inputs[0]
    hits = execute("Cast", execute("Equal", x, _kept(node, node.output(0))), to=x.array.dtype)
    share = execute("Div", _kept(node, g), _reduce_like(node, "ReduceSum", hits))
    return execute("Mul", share, hits), None


@register_gradient("ReduceL1")
def _reduce_l1_grad(node, g):
    x = node.inputs[0]
    return execute("Mul", _kept(node, g), execute("Sign", x)), None


@register_gradient("ReduceL2")
def _reduce_l2_grad(node, g):
    # x / ||x||, taken as 0 for a zero norm (the subgradient torch uses) rather than NaN.
    x = node.inputs[0]
    norm = _kept(node, node.output(0))
    ratio = execute("Div", _kept(node, g), norm)
    ratio = execute("Where", execute("Equal", norm, scalar(0, x.array.dtype)), scalar(0, x.array.dtype), ratio)
    return execute("Mul", ratio, x), None


@register_gradient("ReduceSumSquare")
def _reduce_sum_square_grad(node, g):
    x = node.inputs[0]
    return execute("Mul", execute("Mul", _kept(node, g), scalar(2, x.array.dtype)), x), None


@register_gradient("ReduceLogSum")
def _reduce_log_sum_grad(node, g):
    x = node.inputs[0]
    ratio = execute("Div", _kept(node, g), _reduce_like(node, "ReduceSum", x))
    return execute("Expand", ratio, shape_input(x)), None


@register_gradient("ReduceLogSumExp")
def _reduce_log_sum_exp_grad(node, g):
    # softmax(x) over the axes: exp(x - logsumexp(x)).
    x = node.inputs[0]
    weights = execute("Exp", execute("Sub", x, _kept(node, node.output(0))))
    return execute("Mul", _kept(node, g), weights), None


# -- ArgMax / ArgMin -------------------------------------------------------------------
def _arg_infer(op_type):
    def infer(attrs, infos):
        shape = infos[0].shape
        if shape is None:
            return [TensorInfo(None, _INT64)]
        if not shape:
            normalize_axis(op_type, attrs["axis"], 0)
            return [TensorInfo((), _INT64)]
        axis = (normalize_axis(op_type, attrs["axis"], len(shape)),)
        return [TensorInfo(_reduced_shape(shape, axis, attrs["keepdims"]), _INT64)]

    return infer


def _arg_factory(op_type, find):
    def factory(axis, keepdims, select_last_index):
        keep = bool(keepdims)

        def kernel(data, out=None):
            ax = normalize_axis(op_type, axis, data.ndim)
            if not data.ndim:
                return np.zeros((), _INT64)
            n = data.shape[ax]
            if not n:
                raise ShapeError(f"{op_type}: axis {axis} of data {describe(data)} is empty; it has no {find.__name__}")
            if select_last_index:
                # The first hit in the reversed axis is the last one in the original order.
                return as_array((n - 1) - find(data[_along(ax, None, None, -1)], axis=ax, keepdims=keep), _INT64)
            return as_array(find(data, axis=ax, out=out, keepdims=keep), _INT64)

        return kernel

    factory.__doc__ = f"Index (int64) of the {find.__name__[3:]} element along ``axis`` (first or last of ties)."
    return factory


for _name, _find in (("ArgMax", np.argmax), ("ArgMin", np.argmin)):
    defop(_name, inputs="data:T", outputs="reduced:int64", types={"T": dt.NUMERIC},
          attrs={"axis": Attr("int", 0), "keepdims": Attr("int", 1, choices=(0, 1)),
                 "select_last_index": Attr("int", 0, choices=(0, 1))},
          infer=_arg_infer(_name))(_arg_factory(_name, _find))

not_differentiable("ArgMax", "ArgMin")


# -- CumSum ------------------------------------------------------------------------------
@defop("CumSum", inputs="x:T axis:T2", outputs="y:T",
       types={"T": _SUM_TYPES | dt.COMPLEX, "T2": dt.INDEX},
       attrs={"exclusive": Attr("int", 0, choices=(0, 1)), "reverse": Attr("int", 0, choices=(0, 1)),
              "half_steps": Attr("int", 0, choices=(0, 1))},
       infer=same_as_first)
def cumsum(exclusive, reverse, half_steps):
    """Cumulative sum along the axis given as input (optionally exclusive and/or reversed).

    float16/bfloat16 accumulate in float32, rounded once per output (torch), or with ``half_steps=1`` in their own
    dtype, rounded after every addition (TF's Eigen scan).
    """

    def kernel(x, axis, out=None):
        if axis.size != 1:
            raise OpInputError(f"CumSum: input 'axis' must hold one value, got {describe(axis)}")
        ax = normalize_axis("CumSum", axis.item(), x.ndim)
        if not x.ndim:
            return x.copy() if out is None else (np.copyto(out, x) or out)
        if half_steps and x.dtype in _HALF:
            return _half_steps_cumsum(x, ax, exclusive, reverse, out)
        half = x.dtype in _HALF
        acc = _F32 if half else x.dtype
        if not (exclusive or reverse or half):
            return np.cumsum(x, axis=ax, dtype=acc, out=out)
        result = np.empty(x.shape, acc) if out is None or half else out
        # Work in reversed views so the result is written in place, in its final order.
        flip = _along(ax, None, None, -1)
        dst = result[flip] if reverse else result
        src = x[flip] if reverse else x
        if exclusive:
            dst[_along(ax, 0, 1)] = 0
            np.cumsum(src[_along(ax, 0, -1)], axis=ax, dtype=acc, out=dst[_along(ax, 1, None)])
        else:
            np.cumsum(src, axis=ax, dtype=acc, out=dst)
        return _down(result, x.dtype, out) if half else result

    return kernel


def _half_steps_cumsum(x, ax, exclusive, reverse, out):
    """CumSum of a half ``x`` rounded to its dtype after each addition: a running sum cannot skip the roundings, so
    this walks ``ax`` one slice at a time (each step vectorized over the other dims)."""
    result = np.empty(x.shape, x.dtype) if out is None else out
    src, dst = np.moveaxis(x, ax, 0), np.moveaxis(result, ax, 0)
    steps = range(src.shape[0] - 1, -1, -1) if reverse else range(src.shape[0])
    total = np.zeros(src.shape[1:], x.dtype)
    for i in steps:
        if exclusive:
            dst[i] = total
        total = (total.astype(_F32) + src[i]).astype(x.dtype)
        if not exclusive:
            dst[i] = total
    return result


@register_gradient("CumSum")
def _cumsum_grad(node, g):
    # Each x_j feeds the outputs after it (before it, reversed): the gradient is the cumulative
    # sum of g running the other way, exclusive when the forward is.
    attrs = node.attrs
    return execute("CumSum", g, array_of(node.inputs[1]), exclusive=attrs["exclusive"],
                   reverse=1 - attrs["reverse"], **({"half_steps": 1} if attrs["half_steps"] else {})), None


# -- TopK --------------------------------------------------------------------------------
def _topk_sort(keys, k, ax, largest):
    """``(indices, values)`` of the top ``k`` by full stable sorts: best first, ties by lower index.

    The values come from a second stable sort (the same permutation) rather than a gather, which
    costs more than a small sort.
    """
    n = keys.shape[ax]
    if largest:
        # A stable ascending sort of the reversed axis, read backwards, is descending with ties
        # in increasing original index.
        flipped = keys[_along(ax, None, None, -1)]
        top = _along(ax, n - 1, n - k - 1 if k < n else None, -1)
        return (n - 1) - np.argsort(flipped, axis=ax, kind="stable")[top], np.sort(flipped, axis=ax,
                                                                                    kind="stable")[top]
    top = _along(ax, 0, k)
    return np.argsort(keys, axis=ax, kind="stable")[top], np.sort(keys, axis=ax, kind="stable")[top]


def _topk_partition(keys, k, ax, largest, ordered):
    """``(indices, values)`` of the top ``k`` via a partition (O(n)), for ``k`` much smaller than the axis."""
    n = keys.shape[ax]
    kth = n - k if largest else k - 1
    part = np.argpartition(keys, kth, axis=ax)
    threshold = np.take_along_axis(keys, part[_along(ax, kth, kth + 1)], ax)
    if (np.count_nonzero(keys >= threshold if largest else keys <= threshold, axis=ax) == k).all():
        # No tie straddles the k-th place: the partition's top k is the answer (put in index
        # order, which the stable sort below turns into "ties by lower index").
        idx = np.sort(part[_along(ax, kth, None) if largest else _along(ax, 0, k)], axis=ax)
    else:
        # Fill the places the strictly better elements leave with the lowest-index ties.
        chosen = keys > threshold if largest else keys < threshold
        tied = keys == threshold
        room = k - np.count_nonzero(chosen, axis=ax, keepdims=True)
        tied &= np.cumsum(tied, axis=ax) <= room
        chosen |= tied
        moved = np.moveaxis(chosen, ax, -1)
        idx = np.moveaxis(np.nonzero(moved)[-1].reshape(moved.shape[:-1] + (k,)), -1, ax)
    values = np.take_along_axis(keys, idx, ax)
    if not ordered:
        return idx, values
    order, values = _topk_sort(values, k, ax, largest)
    return np.take_along_axis(idx, order, ax), values


def _topk_infer(attrs, infos):
    x, k = infos[0], infos[1]
    if x.shape is None:
        return [TensorInfo(None, x.dtype), TensorInfo(None, _INT64)]
    require("TopK", len(x.shape) >= 1, "input 'X' must have rank >= 1")
    shape = list(x.shape)
    shape[normalize_axis("TopK", attrs["axis"], len(shape))] = (
        None if k.value is None else int(np.asarray(k.value).reshape(-1)[0]))
    return [TensorInfo(shape, x.dtype), TensorInfo(shape, _INT64)]


@defop("TopK", inputs="X:T K:int64", outputs="Values:T Indices:int64", types={"T": dt.NUMERIC},
       attrs={"axis": Attr("int", -1), "largest": Attr("int", 1, choices=(0, 1)),
              "sorted": Attr("int", 1, choices=(0, 1))},
       infer=_topk_infer, value_inputs=("K",))
def topk(axis, largest, sorted):
    """The ``K`` largest (or smallest) elements along ``axis`` and their int64 indices; ties by lower index."""

    def kernel(x, k, out=None):
        if not x.ndim:
            raise ShapeError(f"TopK: input 'X' must have rank >= 1, got {describe(x)}")
        ax = normalize_axis("TopK", axis, x.ndim)
        if k.size != 1:
            raise OpInputError(f"TopK: input 'K' must hold one value, got {describe(k)}")
        kk = int(k.item())
        n = x.shape[ax]
        if not 0 <= kk <= n:
            raise OpInputError(f"TopK: K={kk} is out of range for axis {axis} of X {describe(x)} (size {n})")
        if kk == 0:
            shape = x.shape[:ax] + (0,) + x.shape[ax + 1:]
            return np.empty(shape, x.dtype), np.empty(shape, _INT64)
        # Half floats convert exactly to float32, which numpy sorts natively.
        keys = x.astype(_F32) if x.dtype in _HALF else x
        # NaN breaks the partition's comparisons; it keeps numpy's sort order (NaN above +inf).
        if n >= 256 and kk * 8 <= n and (keys.dtype.kind != "f" or not np.isnan(keys).any()):
            idx, values = _topk_partition(keys, kk, ax, largest, sorted)
        else:
            idx, values = _topk_sort(keys, kk, ax, largest)
        # Copies into fresh C-ordered arrays (the selections are strided views); half keys convert back exactly.
        return np.ascontiguousarray(values, dtype=x.dtype), np.ascontiguousarray(idx)

    return kernel


@register_gradient("TopK")
def _topk_grad(node, g_values, g_indices):
    # Values[..., j, ...] = X[..., Indices[..., j, ...], ...]: scatter the gradient back into zeros
    # (the indices along the axis are distinct, so no two updates collide).
    x = node.inputs[0]
    zeros = execute("ConstantOfShape", int64s(x.array.shape), value=np.zeros(1, x.array.dtype))
    return execute("ScatterElements", zeros, node.output(1), g_values, axis=node.attrs["axis"]), None
