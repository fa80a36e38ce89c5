"""Searching and counting: nonzero, argwhere, unique, unique_consecutive, searchsorted, bucketize, bincount,
histc.

Integer results never carry gradients: they are computed with numpy directly, and under a graph
trace ``nonzero`` runs as the engine's NonZero and ``unique`` and ``histc`` (whose results follow
the values) as PyFunc ops, recomputed from each run's values (their shapes too).
"""

import math

import numpy as np

from vfw.core import dtypes as dt
from vfw.core.tensor import Tensor as CoreTensor
from vfw.frontends.torch import _dispatch
from vfw.frontends.torch._dispatch import call, finish, type_name, wrap
from vfw.frontends.torch._indexing import finish as finish_same_dtype
from vfw.frontends.torch._indexing import method, tracing
from vfw.frontends.torch._reduction import dim_index, tensor_arg
from vfw.frontends.torch._sorting import _keys
from vfw.frontends.torch._traced import replayed, value_shaped

__all__ = ["nonzero", "argwhere", "unique", "unique_consecutive", "searchsorted", "bucketize", "bincount", "histc"]

_INT64 = np.dtype(np.int64)
_FLOATS = dt.FLOATS


# -- nonzero --------------------------------------------------------------------------------
def nonzero(input, *, out=None, as_tuple=False):
    """Indices of the non-zero elements: an ``(n, ndim)`` int64 tensor, or (``as_tuple``) one 1-D tensor per dim."""
    if not isinstance(input, CoreTensor):
        raise TypeError(f"nonzero(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    x = input.array
    if as_tuple:
        if x.ndim == 0:
            return (wrap(np.zeros(int(bool(x)), _INT64)),)
        if tracing():
            coords = value_shaped(call("NonZero", input), (1,))
            return tuple(coords[i] for i in range(x.ndim))
        return tuple(wrap(c.astype(_INT64, copy=False)) for c in np.nonzero(x))
    if x.ndim == 0:
        return finish_same_dtype(wrap(np.zeros((int(bool(x)), 0), _INT64)), out, "nonzero")
    if not tracing():
        return finish_same_dtype(wrap(np.array(np.nonzero(x)).T.copy()), out, "nonzero")
    return finish_same_dtype(call("Transpose", value_shaped(call("NonZero", input), (1,)), perm=[1, 0]), out, "nonzero")


def argwhere(input):
    """Indices of the non-zero elements as an ``(n, ndim)`` int64 tensor."""
    return nonzero(input)


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
    if dim is not None:
        if not arr.ndim:
            raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
        dim = dim_index(dim, arr.ndim, name)
        empty_dims = [i for i, n in enumerate(arr.shape) if n == 0]
        if len(empty_dims) > 1:
            raise RuntimeError("Number of zero sized dimensions is more than one, so unique cannot be applied ")
        if empty_dims and empty_dims != [dim]:
            raise RuntimeError("There are 0 sized dimensions, and they aren't selected, so unique cannot be applied")

    def distinct(a):  # computed from the values: under a graph trace, again on every run
        return _distinct(a, dim, sort_first, return_inverse, return_counts)

    results = [value_shaped(r) for r in replayed(distinct, x, outputs=1 + bool(return_inverse) + bool(return_counts))]
    return results[0] if len(results) == 1 else tuple(results)


def _distinct(arr, d, sort_first, return_inverse, return_counts):
    """The arrays of ``unique`` / ``unique_consecutive`` (values, then inverse and counts when asked for)."""
    order = None
    if d is None:
        rows, other = arr.reshape(-1), ()
        if sort_first:
            if return_inverse:
                order = np.argsort(_keys(rows), kind="stable")
                rows = rows[order]
            else:
                rows = np.sort(_keys(rows)).astype(arr.dtype, copy=False)
    else:
        moved = np.moveaxis(arr, d, 0)
        rows, other = moved.reshape(moved.shape[0], math.prod(moved.shape[1:])), moved.shape[1:]
        if sort_first:  # rows in lexicographic order (stable; NaN last)
            order = np.lexsort(_keys(rows).T[::-1])
            rows = rows[order]
    starts = _runs(rows)
    values = rows[starts]
    results = [values if d is None else np.ascontiguousarray(np.moveaxis(values.reshape((len(values),) + other), 0, d))]
    if return_inverse:
        run = np.cumsum(starts) - 1
        inverse = run if order is None else np.empty(len(rows), _INT64)
        if order is not None:
            inverse[order] = run
        results.append(inverse.reshape(arr.shape) if d is None else inverse)
    if return_counts:
        results.append(np.diff(np.append(np.flatnonzero(starts), len(rows))))
    return tuple(results)


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
    dtype = x.array.dtype
    if dtype not in _FLOATS:
        raise NotImplementedError(f'"histogram_cpu" not implemented for \'{type_name(dtype)}\'')
    bins = int(bins)
    if bins <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")

    def histogram(arr):  # computed from the values: under a graph trace, again on every run
        work = arr.reshape(-1)
        lo, hi = np.asarray(min, dtype), np.asarray(max, dtype)
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
        return np.bincount(np.minimum(pos, bins - 1), minlength=bins).astype(dtype)

    return finish(replayed(histogram, x), out, "histc")


TENSOR_METHODS = {name: globals()[name] for name in __all__ if name not in ("searchsorted", "bucketize")}
TENSOR_METHODS["nonzero"] = method(nonzero)
