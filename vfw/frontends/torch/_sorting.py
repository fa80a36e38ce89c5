"""Sorting and selection: sort, argsort, msort, topk, kthvalue, median, nanmedian, mode, quantile, nanquantile
(searching and counting: ``_searching``).

Stable sorts come from the engine's TopK (ties keep their order, NaN sorts as the largest
value), so their gradients scatter back to the sorted positions.  ``sort(stable=False)``,
``topk`` and ``mode`` order equal values as torch's CPU algorithms do (``_topk_order``).
Selections by position (sort/topk in torch's order, mode, quantile; median with engine ops)
pick their indices with numpy, which never needs a gradient, and gather the values with an
engine op, so the gradient goes to the returned index as in torch.  Under a graph trace the
numpy parts run as PyFunc ops (recomputed from each run's values).

``kthvalue`` returns the first of equal values in stable sorted order, where torch's own
quickselect picks another; the values are the same.
"""

import math

import numpy as np

from vfw.core import dtypes as dt
from vfw.core.graph.trace import _active as _tracing
from vfw.frontends.torch import _dispatch, return_types
from vfw.frontends.torch._arithmetic import lerp
from vfw.frontends.torch._dispatch import call, cast, finish, wrap
from vfw.frontends.torch._grad_fn_names import names_grad_fn
from vfw.frontends.torch._reduction import (
    axes_array,
    bound,
    dim_aliases,
    dim_index,
    idle,
    new_tensor,
    refuse_complex,
    requires_grad,
    tensor_arg,
)
from vfw.frontends.torch._topk_order import kth_indices, sort_indices, topk_indices
from vfw.frontends.torch._traced import replayed

__all__ = ["sort", "argsort", "msort", "topk", "kthvalue", "median", "nanmedian", "mode", "quantile", "nanquantile"]

_INT64 = np.dtype(np.int64)
_F32 = np.dtype(np.float32)
_U8 = np.dtype(np.uint8)
_FLOATS = dt.FLOATS
_HALF = frozenset({dt.float16, dt.bfloat16})
_NO = object()
# The most elements sort/topk replay torch's algorithms on (rows with ties): longer rows with ties keep the
# stable order, as the replay runs a few numpy passes per partitioning level (docs/TORCH.md).
_REPLAY_LIMIT = 1 << 16


def _int_arg(value, name, arg, position):
    if isinstance(value, _dispatch.Tensor) and value.array.size == 1 and value.array.dtype.kind in "iu":
        return int(value.array.reshape(()))
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name}(): argument '{arg}' (position {position}) must be int, not {type(value).__name__}")
    return int(value)


def _zero_index():
    return wrap(np.zeros((), _INT64))


def _sorted_along(x, d, k, largest):
    """``(values, indices)`` of the ``k`` smallest (largest) along ``d``, in order (stable; bools via uint8)."""
    if idle(x):  # TopK's stable sorts with numpy directly
        a = x.array
        n = a.shape[d]
        lead = (slice(None),) * d
        if largest:
            # A stable sort of the reversed axis read backwards: descending, ties by lower index.
            flipped = a[lead + (slice(None, None, -1),)]
            best = slice(n - 1, n - 1 - k, -1) if k < n else slice(None, None, -1)
            order = np.argsort(_keys(flipped), axis=d, kind="stable")[lead + (best,)]
            return new_tensor(np.take_along_axis(flipped, order, d)), new_tensor((n - 1) - order)
        order = np.argsort(_keys(a), axis=d, kind="stable")[lead + (slice(0, k),)]
        return new_tensor(np.take_along_axis(a, order, d)), new_tensor(np.ascontiguousarray(order))
    if x.array.dtype == np.bool_:
        values, indices = call(bound("TopK", axis=d, largest=int(largest), sorted=1), cast(x, _U8), axes_array((k,)))
        return wrap(values.array.astype(np.bool_)), indices
    return call(bound("TopK", axis=d, largest=int(largest), sorted=1), x, axes_array((k,)))


def _in_torch_order(x, d, select, largest, k=None):
    """``(values, indices)`` along ``d`` at the positions ``select(rows)`` gives (per row, as ``(rows, k)``): torch's
    order among equal values (see ``_topk_order``).

    The positions are computed from the values with numpy (under a graph trace a PyFunc, recomputed on every
    run); the values are gathered with an engine op when autograd or a trace records, so the gradient reaches
    the elements they came from.  An ONNX export records TopK instead (ONNX's order among equal values).
    """
    arr = x.array
    n = arr.shape[d]
    if _tracing and _exporting_onnx():
        return _sorted_along(x, d, n if k is None else k, largest)

    lead = arr.shape[:d] + arr.shape[d + 1:]

    def positions(a):
        picked = select(np.moveaxis(_keys(a), d, -1).reshape(math.prod(lead), n))
        return np.ascontiguousarray(np.moveaxis(picked.reshape(lead + picked.shape[-1:]), -1, d))

    if idle(x):
        order = positions(arr)
        return new_tensor(np.take_along_axis(arr, order, d)), new_tensor(order)
    order = _computed(positions, x)
    index = order if isinstance(order, _dispatch.Tensor) else wrap(order)
    return call(bound("GatherElements", axis=d), x, index), index


def _exporting_onnx():
    from vfw.frontends.torch.onnx import is_in_onnx_export  # the exporter imports the whole frontend

    return is_in_onnx_export()


def _keys(arr):
    """An array numpy sorts like torch: halves as float32 (NaN last either way)."""
    return arr.astype(_F32) if arr.dtype in _HALF else arr


# -- sort and selection --------------------------------------------------------------------
def _sort_args(name, args, stable, dim, descending):
    """torch's two sort overloads: ``(input, dim, descending)``, or keywords only when ``stable`` is given."""
    if len(args) > 2 or (args and stable is not None):
        raise TypeError(f"{name}() received an invalid combination of arguments: with 'stable', 'dim' and "
                        "'descending' are keyword-only (input, *, stable, dim=-1, descending=False)")
    if args:
        dim = args[0]
        descending = args[1] if len(args) > 1 else descending
    return dim, descending


@names_grad_fn("SortBackward0")
def sort(input, *args, stable=None, dim=-1, descending=False, out=None, **aliases):
    """``(values, indices)`` sorted along ``dim`` (ties keep their order; NaN sorts last ascending).

    Called as ``sort(input, dim=-1, descending=False)`` or ``sort(input, *, stable, dim, descending)``.
    """
    if aliases:
        dim, _ = dim_aliases("sort", aliases, dim, None)
    x = tensor_arg(input, "sort")
    refuse_complex(x, RuntimeError, " Sort does not support complex dtypes on CPU")
    dim, descending = _sort_args("sort", args, stable, dim, descending)
    d = dim_index(dim, x.array.ndim, "sort")
    if not x.array.ndim:
        result = (call(bound("Identity"), x), _zero_index())
    elif stable:
        result = _sorted_along(x, d, x.array.shape[d], descending)
    else:
        result = _in_torch_order(x, d, lambda rows: sort_indices(rows, descending, _REPLAY_LIMIT), descending)
    if out is not None:
        return return_types.sort_out(finish(result, out, "sort"))
    return return_types.sort(result)


def argsort(input, *args, stable=None, dim=-1, descending=False, **aliases):
    """Indices (int64) that sort ``input`` along ``dim``."""
    if aliases:
        dim, _ = dim_aliases("argsort", aliases, dim, None)
    dim, descending = _sort_args("argsort", args, stable, dim, descending)
    return sort(input, stable=stable, dim=dim, descending=descending)[1]


def msort(input, *, out=None):
    """``input`` sorted along its first dimension."""
    return finish(sort(input, dim=0)[0], out, "msort")


@names_grad_fn("TopkBackward0")
def topk(input, k, dim=-1, largest=True, sorted=True, *, out=None, **aliases):  # noqa: A002  (torch's name)
    """``(values, indices)`` of the ``k`` largest (smallest) elements along ``dim``, best first."""
    if aliases:
        dim, _ = dim_aliases("topk", aliases, dim, None)
    x = tensor_arg(input, "topk")
    refuse_complex(x, RuntimeError, " topk does not support complex dtypes on CPU")
    k = _int_arg(k, "topk", "k", 2)
    d = dim_index(dim, x.array.ndim, "topk")
    n = x.array.shape[d] if x.array.ndim else 1
    if not 0 <= k <= n:
        raise RuntimeError("selected index k out of range")
    if not x.array.ndim:
        result = (call(bound("Identity"), x), _zero_index())
    else:
        result = _in_torch_order(x, d, lambda rows: topk_indices(rows, k, largest, sorted, _REPLAY_LIMIT), largest, k)
    if out is not None:
        return return_types.topk_out(finish(result, out, "topk"))
    return return_types.topk(result)


def _finish_selection(kind, values, indices, out):
    if out is not None:
        return getattr(return_types, kind + "_out")(finish((values, indices), out, kind))
    return getattr(return_types, kind)((values, indices))


def _pick(x, d, positions, keepdim):
    """Values and indices at ``positions`` (int64 shaped like ``x`` with ``d`` of size 1: an array, or a tensor
    computed under a graph trace)."""
    if idle(x):
        values = np.take_along_axis(x.array, positions, d)
        if not keepdim:
            values, positions = values.squeeze(d), positions.squeeze(d)
        return new_tensor(values), new_tensor(positions)
    idx = positions if isinstance(positions, _dispatch.Tensor) else wrap(positions)
    values = call(bound("GatherElements", axis=d), x, idx)
    if not keepdim:
        values = call(bound("Squeeze"), values, axes_array((d,)))
        idx = call(bound("Squeeze"), idx, axes_array((d,)))
    return values, idx


def kthvalue(input, k, dim=-1, keepdim=False, *, out=None, **aliases):
    """``(values, indices)`` of the ``k``-th smallest element (1-based) along ``dim``."""
    if aliases:
        dim, keepdim = dim_aliases("kthvalue", aliases, dim, keepdim)
    x = tensor_arg(input, "kthvalue")
    k = _int_arg(k, "kthvalue", "k", 2)
    d = dim_index(dim, x.array.ndim, "kthvalue")
    n = x.array.shape[d] if x.array.ndim else 1
    if not n:
        raise IndexError(f"kthvalue(): Expected reduction dim {d} to have non-zero size.")
    if not 1 <= k <= n:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
    if not x.array.ndim:
        return _finish_selection("kthvalue", call(bound("Identity"), x), _zero_index(), out)
    if _tracing and _exporting_onnx():  # TopK's k smallest, the last of them
        window = (axes_array((k - 1,)), axes_array((k,)), axes_array((d,)))
        values, indices = (call(bound("Slice"), t, *window) for t in _sorted_along(x, d, k, False))
    else:
        values, indices = _in_torch_order(x, d, lambda rows: kth_indices(rows, k, _REPLAY_LIMIT), False, 1)
    if not keepdim:
        values, indices = (call(bound("Squeeze"), t, axes_array((d,))) for t in (values, indices))
    return _finish_selection("kthvalue", values, indices, out)


def _order(arr, d):
    """Stable ascending argsort along ``d`` (NaN last, in index order)."""
    return np.argsort(_keys(arr), axis=d, kind="stable")


def _nan_count(arr, d):
    if arr.dtype.kind == "f" or arr.dtype in _HALF:
        return np.count_nonzero(np.isnan(arr), axis=d, keepdims=True)
    return np.zeros((1,) * arr.ndim, _INT64)


def _median_dim(input, dim, keepdim, out, name, skip_nan):
    x = tensor_arg(input, name)
    arr = x.array
    d = dim_index(dim, arr.ndim, name)
    if not arr.ndim:
        return _finish_selection(name, call(bound("Identity"), x), _zero_index(), out)
    n = arr.shape[d]
    if not n:
        raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")
    if not _tracing:
        nans = _nan_count(arr, d)
        if skip_nan:  # the lower median of the non-NaN values (of all, when all are NaN)
            pos = np.where(nans == n, (n - 1) // 2, (n - nans - 1) // 2)
        else:  # any NaN makes the median NaN: the first NaN
            pos = np.where(nans > 0, n - nans, (n - 1) // 2)
        positions = np.take_along_axis(_order(arr, d), pos.astype(_INT64), d)
        return _finish_selection(name, *_pick(x, d, positions, keepdim), out)
    # Under a graph trace the same with engine ops, so that graphs recompute it from the values: the median's
    # place in TopK's sorted order (stable, NaN last), the value there (its gradient reaches the element it
    # came from) and its index.
    # (The length along d is read with Shape, so that ONNX exports with dynamic axes follow it too.)
    ranked, order = _sorted_along(x, d, n, False)
    one, two = np.ones((), _INT64), np.asarray(2, _INT64)
    last = call(bound("Sub"), call(bound("Gather", axis=0), call(bound("Shape"), x), axes_array((d,))), one)
    row_shape = call(bound("Shape"), call(bound("Slice"), order, axes_array((0,)), axes_array((1,)), axes_array((d,))))
    pos = call(bound("Expand"), call(bound("Div"), last, two), row_shape)
    if arr.dtype in _FLOATS:
        nans = call(bound("ReduceSum", keepdims=1), cast(call(bound("IsNaN"), wrap(arr)), _INT64), axes_array((d,)))
        if skip_nan:  # the lower median of the non-NaN values (of all, when all are NaN)
            lower = call(bound("Div"), call(bound("Sub"), last, nans), two)
            pos = call(bound("Where"), call(bound("Greater"), nans, last), pos, lower)
        else:  # any NaN makes the median NaN: the first NaN
            first_nan = call(bound("Sub"), call(bound("Add"), last, one), nans)
            pos = call(bound("Where"), call(bound("Greater"), nans, np.zeros((), _INT64)), first_nan, pos)
    values, indices = (call(bound("GatherElements", axis=d), t, pos) for t in (ranked, order))
    if not keepdim:
        values, indices = (call(bound("Squeeze"), t, axes_array((d,))) for t in (values, indices))
    return _finish_selection(name, values, indices, out)


def _median_value(x, skip_nan):
    """The lower median of all elements of ``x`` (not empty): a 0-d array, or under a graph trace a tensor
    computed with engine ops."""
    arr = x.array
    floating = arr.dtype in _FLOATS
    if not _tracing:
        flat = _keys(arr).reshape(-1)
        n = flat.size
        nans = int(np.count_nonzero(np.isnan(flat))) if floating else 0
        if nans and not skip_nan:
            return np.asarray(np.nan, arr.dtype)
        k = (n - nans - 1) // 2  # -1 (the last, a NaN) when every element is NaN
        return np.asarray(np.partition(flat, k)[k] if not nans else np.sort(flat)[k], arr.dtype)
    column = call(bound("Reshape"), wrap(arr), axes_array((-1, 1)))
    return call(bound("Reshape"), _median_dim(column, 0, False, None, "median", skip_nan)[0], axes_array(()))


def _median_all(input, name, skip_nan):
    """The lower median of all elements; the gradient is split evenly among the elements equal to it."""
    x = tensor_arg(input, name)
    arr = x.array
    if not arr.size:
        if arr.dtype not in _FLOATS:
            raise IndexError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0.")
        return wrap(np.asarray(np.nan, arr.dtype))
    value = _median_value(x, skip_nan)
    if not requires_grad(x):
        return value if isinstance(value, _dispatch.Tensor) else wrap(value)
    # The max over the elements equal to the median is the median itself, with ReduceMax's gradient:
    # shared evenly among the ties, as torch's median() does.  A NaN median keeps every element, so
    # NaN propagates through ReduceMax and the result stays in the graph.
    ties = call(bound("Or"), call(bound("Equal"), x, value), call(bound("IsNaN"), value))
    masked = call(bound("Where"), ties, x, np.asarray(-np.inf, arr.dtype))
    return call(bound("ReduceMax", keepdims=0), masked)


def _median(input, dim, keepdim, out, name, skip_nan):
    x = tensor_arg(input, name)
    if x.array.dtype == np.bool_:
        raise NotImplementedError(f'"{name}_cpu" not implemented for \'Bool\'')
    if dim is _NO:
        if keepdim is not _NO or out is not None:
            raise TypeError(f'{name}() missing 1 required positional arguments: "dim"')
        return _median_all(x, name, skip_nan)
    return _median_dim(x, dim, keepdim is not _NO and keepdim, out, name, skip_nan)


def median(input, dim=_NO, keepdim=_NO, *, out=None, **aliases):
    """The lower median of all elements, or ``(values, indices)`` along ``dim``; NaN if any element is NaN."""
    if aliases:
        dim, keepdim = dim_aliases("median", aliases, dim, keepdim)
    return _median(input, dim, keepdim, out, "median", False)


def nanmedian(input, dim=_NO, keepdim=_NO, *, out=None, **aliases):
    """Like ``median`` but ignoring NaN (NaN only where every element is NaN)."""
    if aliases:
        dim, keepdim = dim_aliases("nanmedian", aliases, dim, keepdim)
    return _median(input, dim, keepdim, out, "nanmedian", True)


def mode(input, dim=-1, keepdim=False, *, out=None, **aliases):
    """``(values, indices)``: the most frequent value along ``dim`` (the smallest of equally frequent
    ones) and the last index where it occurs.  NaNs never equal each other."""
    if aliases:
        dim, keepdim = dim_aliases("mode", aliases, dim, keepdim)
    x = tensor_arg(input, "mode")
    arr = x.array
    d = dim_index(dim, arr.ndim, "mode")
    if not arr.ndim:
        return _finish_selection("mode", call(bound("Identity"), x), _zero_index(), out)
    n = arr.shape[d]
    if not n:
        raise IndexError(f"mode(): Expected reduction dim {d} to have non-zero size.")
    return _finish_selection("mode", *_pick(x, d, _computed(lambda a: _mode_positions(a, d), x), keepdim), out)


def _mode_positions(arr, d):
    """Per row along ``d``: the last index of the first longest run of equal values in the order torch's sort
    leaves them (int64, shaped like ``arr`` with ``d`` of size 1)."""
    n = arr.shape[d]
    rows = np.moveaxis(_keys(arr), d, -1).reshape(-1, n)
    order = sort_indices(rows, False, _REPLAY_LIMIT)
    ranked = np.take_along_axis(rows, order, 1)
    starts = np.ones(ranked.shape, bool)
    starts[:, 1:] = ranked[:, 1:] != ranked[:, :-1]
    run = np.cumsum(starts, axis=1) - 1 + (np.arange(len(rows)) * n)[:, None]  # run ids, unique across rows
    length = np.bincount(run.ravel(), minlength=run.size)[run]
    first = np.argmax(length, axis=1)  # the first (smallest) run of the largest length starts here
    last = first + length[np.arange(len(rows)), first] - 1
    positions = order[np.arange(len(rows)), last]
    shape = list(arr.shape)
    shape[d] = 1
    return np.ascontiguousarray(np.moveaxis(positions.reshape(shape[:d] + shape[d + 1:] + [1]), -1, d))


def _computed(fn, x):
    """``fn(x.array)`` (an array computed from the values with numpy): under a graph trace a PyFunc tensor, which
    graphs compute again from the values of each run."""
    return replayed(fn, x) if _tracing else fn(x.array)


# -- quantiles -----------------------------------------------------------------------------
_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile(input, q, dim, keepdim, interpolation, out, name, skip_nan):
    x = tensor_arg(input, name)
    arr = x.array
    if arr.dtype not in (np.float32, np.float64):
        raise RuntimeError(f"{name}() input tensor must be either float or double dtype")
    if isinstance(q, _dispatch.Tensor):
        if q.array.ndim > 1:
            raise RuntimeError(f"{name}() q must be a scalar or 1D tensor")
        if q.array.dtype != arr.dtype:
            raise RuntimeError(f"{name}() q tensor must be same dtype as the input tensor")
        qs, q_shape = q.array.reshape(-1), q.array.shape
        if ((qs < 0) | (qs > 1) | np.isnan(qs)).any():
            raise RuntimeError(f"{name}() q values must be in the range [0, 1]")
    else:
        if not 0 <= q <= 1:
            raise RuntimeError(f"{name}() q must be in the range [0, 1] but got {q}")
        qs, q_shape = np.asarray([q], arr.dtype), ()  # torch makes q a tensor of the input's dtype
    if interpolation not in _INTERPOLATIONS:
        raise RuntimeError(f"{name}() interpolation must be one of linear, lower, higher, midpoint or nearest, but "
                           f"got {interpolation}")
    if not arr.size:
        raise RuntimeError(f"{name}() input tensor must be non-empty")
    if dim is None:
        out_shape = (1,) * arr.ndim if keepdim else ()
        x = call(bound("Reshape"), x, axes_array((-1,)))
        d = 0
    else:
        d = dim_index(dim, arr.ndim, name)
        out_shape = arr.shape[:d] + ((1,) if keepdim else ()) + arr.shape[d + 1:]
        if not arr.ndim:
            x = call(bound("Reshape"), x, axes_array((1,)))
            out_shape = ()
    if not len(qs):
        return finish(wrap(np.empty(tuple(q_shape) + out_shape, arr.dtype)), out, name)
    n = x.array.shape[d]
    values = _sorted_along(x, d, n, False)[0]  # NaN last

    def interpolation_points(a):  # computed from the values: under a graph trace, again on every run
        nans = _nan_count(a, d)
        valid = (n - nans) if skip_nan else np.where(nans > 0, 1, n)
        # Ranks per q (leading axis) and row, in the input's dtype as torch computes them (float32 rounding can
        # make a rank whole, and the quantile then a data value); rows whose median is NaN point at the last
        # (NaN) element.
        ranks = qs.reshape((-1,) + (1,) * a.ndim) * (valid - 1).astype(arr.dtype)
        nan_rows = (valid == 0) if skip_nan else (nans > 0)
        ranks = np.where(nan_rows, n - 1, ranks)
        if interpolation == "nearest":
            ranks = np.round(ranks)
        below = np.floor(ranks).astype(_INT64)
        above = np.ceil(ranks).astype(_INT64)
        if interpolation == "lower":
            above = below
        elif interpolation == "higher":
            below = above
        weight = np.where(below == above, 0.5 if interpolation == "midpoint" else 0.0,
                          ranks - below.astype(arr.dtype) if interpolation == "linear" else 0.5).astype(arr.dtype)
        # All q at once: their positions side by side along d.
        return tuple(np.concatenate(p, axis=d) for p in (below, above, weight))

    below, above, weight = replayed(interpolation_points, x, outputs=3)
    lo = call(bound("GatherElements", axis=d), values, below)
    hi = call(bound("GatherElements", axis=d), values, above)
    mixed = lerp(lo, hi, weight)  # as torch.lerp (from the nearer end); then q to the front
    perm = (d,) + tuple(i for i in range(mixed.array.ndim) if i != d)
    result = call(bound("Transpose", perm=perm), mixed)
    result = call(bound("Reshape", allowzero=1), result, axes_array(tuple(q_shape) + out_shape))
    return finish(result, out, name)


def quantile(input, q, dim=None, keepdim=False, *, interpolation="linear", out=None, **aliases):
    """The ``q``-th quantiles (a number or 1-D tensor) along ``dim`` or of all elements; NaN rows give NaN."""
    if aliases:
        dim, keepdim = dim_aliases("quantile", aliases, dim, keepdim)
    return _quantile(input, q, dim, keepdim, interpolation, out, "quantile", False)


def nanquantile(input, q, dim=None, keepdim=False, *, interpolation="linear", out=None, **aliases):
    """Like ``quantile`` but ignoring NaN (NaN only where a row is all NaN)."""
    if aliases:
        dim, keepdim = dim_aliases("nanquantile", aliases, dim, keepdim)
    return _quantile(input, q, dim, keepdim, interpolation, out, "nanquantile", True)


TENSOR_METHODS = {name: globals()[name] for name in __all__}
