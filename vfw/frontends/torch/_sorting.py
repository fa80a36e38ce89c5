"""Sorting and selection (sort, argsort, topk, kthvalue, median, mode, quantile) and searching/counting
(unique, searchsorted, bucketize, bincount, histc).

Sorted values come from the engine's TopK (stable: ties keep their order, NaN sorts as the
largest value), so their gradients scatter back to the sorted positions.  Selections by
position (median/mode/kthvalue with ``dim``, quantile) pick their indices with numpy,
which never needs a gradient, and gather the values with an engine op, so the gradient
goes to the returned index as in torch.  Integer results (unique, searchsorted, counts)
are computed with numpy directly.

Where torch's choice among tied elements is an artifact of its selection algorithm
(``kthvalue``/``topk``/``median`` indices of equal values), vfw returns the first in
stable sorted order; the values are the same.
"""

import numpy as np

from vfw.core import dtypes as dt
from vfw.frontends.torch import _dispatch, return_types
from vfw.frontends.torch._dispatch import call, cast, finish, type_name, wrap
from vfw.frontends.torch._reduction import (
    axes_array,
    bound,
    dim_aliases,
    dim_index,
    idle,
    new_tensor,
    requires_grad,
    tensor_arg,
)

__all__ = ["sort", "argsort", "msort", "topk", "kthvalue", "median", "nanmedian", "mode", "quantile", "nanquantile",
           "unique", "unique_consecutive", "searchsorted", "bucketize", "bincount", "histc"]

_INT64 = np.dtype(np.int64)
_F32 = np.dtype(np.float32)
_U8 = np.dtype(np.uint8)
_FLOATS = dt.FLOATS
_HALF = frozenset({dt.float16, dt.bfloat16})
_NO = object()


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


def sort(input, *args, stable=None, dim=-1, descending=False, out=None, **aliases):
    """``(values, indices)`` sorted along ``dim`` (ties keep their order; NaN sorts last ascending).

    Called as ``sort(input, dim=-1, descending=False)`` or ``sort(input, *, stable, dim, descending)``.
    """
    if aliases:
        dim, _ = dim_aliases("sort", aliases, dim, None)
    x = tensor_arg(input, "sort")
    dim, descending = _sort_args("sort", args, stable, dim, descending)
    d = dim_index(dim, x.array.ndim, "sort")
    if not x.array.ndim:
        result = (call(bound("Identity"), x), _zero_index())
    else:
        result = _sorted_along(x, d, x.array.shape[d], descending)
    if out is not None:
        return return_types.sort_out(finish(result, out, "sort"))
    return return_types.sort(result)


def argsort(input, *args, stable=None, dim=-1, descending=False, **aliases):
    """Indices (int64) that sort ``input`` along ``dim``."""
    if aliases:
        dim, _ = dim_aliases("argsort", aliases, dim, None)
    dim, descending = _sort_args("argsort", args, stable, dim, descending)
    return sort(input, dim=dim, descending=descending)[1]


def msort(input, *, out=None):
    """``input`` sorted along its first dimension."""
    return finish(sort(input, dim=0)[0], out, "msort")


def topk(input, k, dim=-1, largest=True, sorted=True, *, out=None, **aliases):  # noqa: A002  (torch's name)
    """``(values, indices)`` of the ``k`` largest (smallest) elements along ``dim``, best first."""
    if aliases:
        dim, _ = dim_aliases("topk", aliases, dim, None)
    x = tensor_arg(input, "topk")
    k = _int_arg(k, "topk", "k", 2)
    d = dim_index(dim, x.array.ndim, "topk")
    n = x.array.shape[d] if x.array.ndim else 1
    if not 0 <= k <= n:
        raise RuntimeError("selected index k out of range")
    if not x.array.ndim:
        result = (call(bound("Identity"), x), _zero_index())
    else:
        result = _sorted_along(x, d, k, largest)
    if out is not None:
        return return_types.topk_out(finish(result, out, "topk"))
    return return_types.topk(result)


def _finish_selection(kind, values, indices, out):
    if out is not None:
        return getattr(return_types, kind + "_out")(finish((values, indices), out, kind))
    return getattr(return_types, kind)((values, indices))


def _pick(x, d, positions, keepdim):
    """Values and indices at ``positions`` (int64 array shaped like ``x`` with ``d`` of size 1)."""
    if idle(x):
        values = np.take_along_axis(x.array, positions, d)
        if not keepdim:
            values, positions = values.squeeze(d), positions.squeeze(d)
        return new_tensor(values), new_tensor(positions)
    idx = wrap(positions)
    values = call(bound("GatherElements", axis=d), x, idx)
    if not keepdim:
        values = call(bound("Squeeze"), values, axes_array((d,)))
        idx = wrap(positions.reshape(values.array.shape))
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
    values, indices = _sorted_along(x, d, k, False)
    values = call(bound("Slice"), values, axes_array((k - 1,)), axes_array((k,)), axes_array((d,)))
    indices = wrap(np.ascontiguousarray(indices.array[(slice(None),) * d + (slice(k - 1, k),)]))
    if not keepdim:
        values = call(bound("Squeeze"), values, axes_array((d,)))
        indices = wrap(indices.array.reshape(values.array.shape))
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
    if not arr.shape[d]:
        raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")
    n = arr.shape[d]
    nans = _nan_count(arr, d)
    if skip_nan:  # the lower median of the non-NaN values (of all, when all are NaN)
        pos = np.where(nans == n, (n - 1) // 2, (n - nans - 1) // 2)
    else:  # any NaN makes the median NaN: the first NaN
        pos = np.where(nans > 0, n - nans, (n - 1) // 2)
    positions = np.take_along_axis(_order(arr, d), pos.astype(_INT64), d)
    return _finish_selection(name, *_pick(x, d, positions, keepdim), out)


def _median_all(input, name, skip_nan):
    """The lower median of all elements; the gradient is split evenly among the elements equal to it."""
    x = tensor_arg(input, name)
    arr = x.array
    flat = _keys(arr).reshape(-1)
    n = flat.size
    nans = int(np.count_nonzero(np.isnan(flat))) if flat.dtype.kind == "f" else 0
    if not n or (skip_nan and nans == n):
        value = np.asarray(np.nan, arr.dtype) if arr.dtype in _FLOATS else None
        if value is None:
            raise IndexError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0.")
        return wrap(value)
    if nans and not skip_nan:
        value = np.asarray(np.nan, arr.dtype)
    else:
        k = (n - nans - 1) // 2
        value = np.asarray(np.partition(flat, k)[k] if not nans else np.sort(flat)[k], arr.dtype)
    if not requires_grad(x):
        return wrap(value)
    if np.isnan(value):  # NaN propagates through ReduceMax too, and the result stays in the graph
        return call(bound("ReduceMax", keepdims=0), x)
    # The max over the elements equal to the median is the median itself, with ReduceMax's
    # gradient: shared evenly among the ties, as torch's median() does.
    ties = call(bound("Equal"), x, value)
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
    rows = np.moveaxis(_keys(arr), d, -1).reshape(-1, n)
    order = np.argsort(rows, axis=1, kind="stable")
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
    positions = np.moveaxis(positions.reshape(shape[:d] + shape[d + 1:] + [1]), -1, d)
    return _finish_selection("mode", *_pick(x, d, np.ascontiguousarray(positions), keepdim), out)


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
        qs, q_shape = q.array.astype(np.float64).reshape(-1), q.array.shape
        if ((qs < 0) | (qs > 1) | np.isnan(qs)).any():
            raise RuntimeError(f"{name}() q values must be in the range [0, 1]")
    else:
        if not 0 <= q <= 1:
            raise RuntimeError(f"{name}() q must be in the range [0, 1] but got {q}")
        qs, q_shape = np.asarray([q], np.float64), ()
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
    nans = _nan_count(x.array, d)
    valid = (n - nans) if skip_nan else np.where(nans > 0, 1, n)
    # Ranks per q (leading axis) and row; rows whose median is NaN point at the last (NaN) element.
    ranks = qs.reshape((-1,) + (1,) * x.array.ndim) * (valid - 1)
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
                      ranks - below if interpolation == "linear" else 0.5).astype(arr.dtype)
    # All q at once: their positions side by side along d, then q moved to the front.
    lo = call(bound("GatherElements", axis=d), values, np.concatenate(below, axis=d))
    hi = call(bound("GatherElements", axis=d), values, np.concatenate(above, axis=d))
    mixed = call(bound("Add"), lo, call(bound("Mul"), call(bound("Sub"), hi, lo), np.concatenate(weight, axis=d)))
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


# -- unique values -------------------------------------------------------------------------
def _runs(rows):
    """Where runs of equal consecutive values (1-D) or rows (2-D) start (NaN never equals NaN)."""
    starts = np.ones(len(rows), bool)
    if len(rows) > 1:
        differs = rows[1:] != rows[:-1]
        starts[1:] = differs if rows.ndim == 1 else differs.any(axis=1)
    return starts


def _unique(input, dim, sort_first, return_inverse, return_counts, name):
    x = tensor_arg(input, name)
    arr = x.array
    order = None
    if dim is None:
        rows, other = arr.reshape(-1), ()
        if sort_first:
            if return_inverse:
                order = np.argsort(_keys(rows), kind="stable")
                rows = rows[order]
            else:
                rows = np.sort(_keys(rows)).astype(arr.dtype, copy=False)
    else:
        if not arr.ndim:
            raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
        d = dim_index(dim, arr.ndim, name)
        moved = np.moveaxis(arr, d, 0)
        rows, other = moved.reshape(moved.shape[0], -1), moved.shape[1:]
        if sort_first:  # rows in lexicographic order (stable; NaN last)
            order = np.lexsort(_keys(rows).T[::-1])
            rows = rows[order]
    starts = _runs(rows)
    values = rows[starts]
    results = [wrap(values if dim is None else np.ascontiguousarray(np.moveaxis(values.reshape((-1,) + other), 0, d)))]
    if return_inverse:
        run = np.cumsum(starts) - 1
        inverse = run if order is None else np.empty(len(rows), _INT64)
        if order is not None:
            inverse[order] = run
        results.append(wrap(inverse.reshape(arr.shape) if dim is None else inverse))
    if return_counts:
        results.append(wrap(np.diff(np.append(np.flatnonzero(starts), len(rows)))))
    return results[0] if len(results) == 1 else tuple(results)


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):  # noqa: A002
    """The distinct values (or slices along ``dim``) in ascending order, with optional inverse indices and counts."""
    return _unique(input, dim, True, return_inverse, return_counts, "unique")


def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """Collapse runs of equal consecutive values (or slices along ``dim``)."""
    return _unique(input, dim, False, return_inverse, return_counts, "unique_consecutive")


# -- searching -----------------------------------------------------------------------------
def _side(right, side, name):
    if side is None:
        return "right" if right else "left"
    if side not in ("left", "right"):
        raise RuntimeError(f"torch.{name}(): side can only be 'left' or 'right' but got {side}")
    if right and side == "left":
        raise RuntimeError(f"torch.{name}(): side and right can't be set to opposites, got side of left while right "
                           "was True")
    return side


def _search_arrays(boundaries, values, name):
    """Boundaries and values as ndarrays of their promoted dtype (and whether values was a number)."""
    scalar = not isinstance(values, _dispatch.Tensor)
    (b, v), np_dtype = _dispatch.promoted(boundaries, values)
    if np_dtype == np.bool_:
        raise NotImplementedError(f'"{name}_out_cpu" not implemented for \'Bool\'')
    b_arr = b.array if isinstance(b, _dispatch.Tensor) else b
    v_arr = v.array if isinstance(v, _dispatch.Tensor) else v
    return _keys(b_arr), _keys(v_arr), scalar


def _batched_search(seq, values, side):
    """Row-wise searchsorted of ``values`` (R, m) in the sorted rows of ``seq`` (R, n), by one stable merge sort."""
    rows, n = seq.shape
    m = values.shape[1]
    # Equal keys keep their concatenation order: values first counts the elements strictly
    # below each value (left), sequence first counts those below or equal (right).
    merged = np.concatenate([values, seq] if side == "left" else [seq, values], axis=1)
    order = np.argsort(merged, axis=1, kind="stable")
    is_value = order < m if side == "left" else order >= n
    values_before = np.cumsum(is_value, axis=1) - is_value
    below = np.arange(n + m) - values_before
    which = (order if side == "left" else order - n)[is_value].reshape(rows, m)
    result = np.empty((rows, m), _INT64)
    np.put_along_axis(result, which, below[is_value].reshape(rows, m), axis=1)
    return result


def _bisect(seq, values, side):
    """Row-wise binary search with torch's comparisons, for sequences holding NaN.

    A NaN in the sequence compares false both ways, so the result depends on the search path;
    torch moves right whenever ``not seq[mid] >= value`` (``>`` for the right side), and so do
    all the searches here, one halving step at a time for every value at once.
    """
    n = seq.shape[1]
    rows = np.arange(len(seq))[:, None]
    start = np.zeros(values.shape, _INT64)
    end = np.full(values.shape, n, _INT64)
    active = start < end
    while active.any():
        mid = (start + end) >> 1
        probe = seq[rows, np.minimum(mid, n - 1)]
        right = ~(probe >= values) if side == "left" else ~(probe > values)
        start = np.where(active & right, mid + 1, start)
        end = np.where(active & ~right, mid, end)
        active = start < end
    return start


def searchsorted(sorted_sequence, values, *, out_int32=False, right=False, side=None, out=None, sorter=None):
    """Indices where ``values`` would be inserted into the innermost dim of ``sorted_sequence`` to keep it sorted."""
    seq_t = tensor_arg(sorted_sequence, "searchsorted", "sorted_sequence")
    side = _side(right, side, "searchsorted")
    if not seq_t.array.ndim:
        raise RuntimeError("torch.searchsorted(): boundaries tensor should have positive dimension, but got 0 "
                           "dimension")
    seq, vals, scalar = _search_arrays(seq_t, values, "searchsorted")
    if sorter is not None:
        seq = np.take_along_axis(seq, tensor_arg(sorter, "searchsorted", "sorter").array, -1)
    if seq.ndim > 1 and (scalar or seq.shape[:-1] != vals.shape[:-1]):
        raise RuntimeError("torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 "
                           "dimensions of boundaries tensor and input value tensor must match, but we got "
                           f"boundaries tensor {list(seq.shape)} and input value tensor {list(np.shape(vals))}")
    if seq.dtype.kind == "f" and np.isnan(seq).any():
        rows = seq.reshape(-1, seq.shape[-1])
        result = _bisect(rows, np.reshape(vals, (len(rows), -1)), side).reshape(np.shape(vals))
    elif seq.ndim == 1:
        result = np.searchsorted(seq, vals, side=side)
    else:
        rows = int(np.prod(seq.shape[:-1]))
        result = _batched_search(seq.reshape(rows, seq.shape[-1]), vals.reshape(rows, vals.shape[-1]), side)
        result = result.reshape(vals.shape)
    result = np.asarray(result, np.int32 if out_int32 else _INT64)
    return finish(wrap(result), out, "searchsorted")


def bucketize(input, boundaries, *, out_int32=False, right=False, out=None):
    """Index of the bucket of each element of ``input``: ``boundaries[i-1] < x <= boundaries[i]``
    (``<=``/``<`` swapped with ``right=True``)."""
    b = tensor_arg(boundaries, "bucketize", "boundaries")
    if b.array.ndim != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({b.array.ndim})")
    seq, vals, _ = _search_arrays(b, input, "bucketize")
    side = "right" if right else "left"
    if seq.dtype.kind == "f" and np.isnan(seq).any():
        result = _bisect(seq.reshape(1, -1), np.reshape(vals, (1, -1)), side).reshape(np.shape(vals))
    else:
        result = np.searchsorted(seq, vals, side=side)
    result = np.asarray(result, np.int32 if out_int32 else _INT64)
    return finish(wrap(result), out, "bucketize")


# -- counting ------------------------------------------------------------------------------
def bincount(input, weights=None, minlength=0):
    """Occurrences of each non-negative integer in the 1-D ``input`` (or the sums of ``weights`` there)."""
    x = tensor_arg(input, "bincount")
    arr = x.array
    if arr.dtype.kind not in "iu":
        raise NotImplementedError(f'"bincount_cpu" not implemented for \'{type_name(arr.dtype)}\'')
    minlength = int(minlength)
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if arr.ndim != 1 or (arr.size and arr.min() < 0):
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if weights is None:
        return wrap(np.bincount(arr, minlength=minlength).astype(_INT64))
    w = tensor_arg(weights, "bincount", "weights").array
    if w.ndim != 1 or w.shape != arr.shape:
        raise RuntimeError("weights should be 1-d and have the same length as input")
    out_dtype = w.dtype if w.dtype in (np.float32, np.float64) else np.dtype(np.float64)
    return wrap(np.bincount(arr, w.astype(np.float64), minlength=minlength).astype(out_dtype))


def histc(input, bins=100, min=0, max=0, *, out=None):  # noqa: A002
    """Histogram of ``input`` in ``bins`` equal bins over ``[min, max]`` (the data's range when both are 0)."""
    x = tensor_arg(input, "histc")
    arr = x.array
    if arr.dtype not in _FLOATS:
        raise NotImplementedError(f'"histogram_cpu" not implemented for \'{type_name(arr.dtype)}\'')
    bins = int(bins)
    if bins <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")
    work = arr.reshape(-1)
    lo, hi = np.asarray(min, work.dtype), np.asarray(max, work.dtype)
    if lo == hi and work.size:
        lo, hi = work.min(), work.max()
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if not (np.isfinite(lo) and np.isfinite(hi)):
        raise RuntimeError(f"torch.histc: range of [{lo}, {hi}] is not finite")
    if lo > hi:
        raise RuntimeError("torch.histc: max must be larger than min")
    inside = work[(work >= lo) & (work <= hi)]
    # The bin of each element, computed in the input's precision (rounding after each step, also
    # for halves) as torch does; the top edge belongs to the last bin.
    pos = ((inside - lo) * bins / (hi - lo)).astype(_INT64)
    counts = np.bincount(np.minimum(pos, bins - 1), minlength=bins)
    return finish(wrap(counts.astype(arr.dtype)), out, "histc")


TENSOR_METHODS = {name: globals()[name] for name in __all__ if name not in ("searchsorted", "bucketize")}
