"""Scans, top-k and permutations of tf.math: cumsum, cumprod, cumulative_logsumexp (exclusive/reverse), top_k,
approx_max_k/approx_min_k, in_top_k, invert_permutation.

Scans run along one axis (a scalar int; TF's InvalidArgumentError when out of range).  Exclusive
scans shift the input by one place, filled with the scan's identity.  ``cumprod`` differentiates
with TF's formula (``div_no_nan(reverse_cumsum(y * g), x)``: 0 at zero inputs), the others
through their engine ops.
"""

import collections

import numpy as np

from vfw.core import dtypes as dt
from vfw.frontends.tensorflow import _dtypes, errors
from vfw.frontends.tensorflow._dispatch import call, convert_to_tensor, mismatch, op_error
from vfw.frontends.tensorflow._math_binary import raw_div_no_nan
from vfw.frontends.tensorflow._op_support import INDEX_DTYPES, OpTypes, attr_error, widened, with_dtype, with_gradient
from vfw.frontends.tensorflow._traced_shapes import checked_at_run, pinned, value_shaped, varies

_INT64 = np.dtype(np.int64)


def _scan_axis(tf_op, x, axis):
    """The scan axis in ``[0, rank)``: a scalar int (tensor or Python), TF's errors otherwise."""
    a = with_dtype(axis, _dtypes.int32)
    if a.array.dtype not in INDEX_DTYPES:
        raise attr_error(tf_op, "Tidx", _dtypes.of_array(a.array).name, "int32, int64")
    if a.array.ndim:
        raise op_error(f"ScanOp: axis must be a scalar, not {list(a.array.shape)}", tf_op)
    value, rank = int(a.array), x.array.ndim
    pinned(a, (value,), "axis", tf_op)
    if not -rank <= value < rank:
        raise op_error(f"ScanOp: Expected scan axis in the range [{-rank}, {rank}), but got {value}", tf_op)
    return value % rank


def _shifted(x, axis, fill, reverse):
    """``x`` moved one place along ``axis`` (toward the end, or the start when ``reverse``), ``fill`` entering."""
    n = x.array.shape[axis]
    if n == 0:
        return x
    shape = list(x.array.shape)
    shape[axis] = 1
    block = np.full(shape, fill, x.array.dtype)
    axes = np.array([axis], _INT64)
    kept = (call("Slice", x, np.array([1], _INT64), np.array([n], _INT64), axes) if reverse else
            call("Slice", x, np.array([0], _INT64), np.array([n - 1], _INT64), axes))
    return call("Concat", kept, block, axis=axis) if reverse else call("Concat", block, kept, axis=axis)


_CUMSUM = OpTypes("Cumsum", "F I U")
_CUMPROD = OpTypes("Cumprod", "F I U")
_CUMULATIVE_LOGSUMEXP = OpTypes("CumulativeLogsumexp", "F")


def cumsum(x, axis=0, exclusive=False, reverse=False, name=None):
    """Cumulative sum along ``axis`` (``exclusive``: outputs exclude their own element; ``reverse``: from the end)."""
    x = convert_to_tensor(x)
    _CUMSUM.check(x.array.dtype)
    a = _scan_axis("Cumsum", x, axis)
    # TF's Eigen scan adds float16/bfloat16 in their own dtype, rounding at every step
    steps = {"half_steps": 1} if x.array.dtype in (dt.float16, dt.bfloat16) else {}
    return widened(lambda t: call("CumSum", t, np.asarray(a, _INT64), exclusive=int(exclusive),
                                  reverse=int(reverse), tf_op="Cumsum", **steps), x)


def cumprod(x, axis=0, exclusive=False, reverse=False, name=None):
    """Cumulative product along ``axis`` (``exclusive``/``reverse`` as ``cumsum``; 1 enters exclusive scans)."""
    x = convert_to_tensor(x)
    _CUMPROD.check(x.array.dtype)
    a = _scan_axis("Cumprod", x, axis)
    axis_array = np.asarray(a, _INT64)

    def forward(t):
        source = _shifted(t, a, 1, reverse) if exclusive else t
        return widened(lambda s: call("CumProd", s, axis_array, reverse=int(reverse), tf_op="Cumprod"), source)

    def backward(g, t):
        # TF's gradient: sum over the outputs each element feeds, divided by it (0 where it is 0).
        fed = call("CumSum", call("Mul", forward(t), g), axis_array, exclusive=int(exclusive),
                   reverse=1 - int(reverse))
        return (raw_div_no_nan(fed, t),)

    return with_gradient(forward, backward, x)


def cumulative_logsumexp(x, axis=0, exclusive=False, reverse=False, name=None):
    """``log(cumsum(exp(x)))`` along ``axis``, computed stably (-inf enters exclusive scans)."""
    x = convert_to_tensor(x)
    _CUMULATIVE_LOGSUMEXP.check(x.array.dtype)
    a = _scan_axis("CumulativeLogsumexp", x, axis)
    source = _shifted(x, a, -np.inf, reverse) if exclusive else x
    return call("LogCumSumExp", source, np.asarray(a, _INT64), reverse=int(reverse), tf_op="CumulativeLogsumexp")


# -- top_k / in_top_k ----------------------------------------------------------------------------
TopKV2 = collections.namedtuple("TopKV2", ["values", "indices"])
_TOP_K = OpTypes("TopKV2", "F I U")
_INDEX_TYPES = ("int16", "int32", "int64")


def top_k(input, k=1, sorted=True, index_type=_dtypes.int32, name=None):  # noqa: A002  (TF's names)
    """The ``k`` largest entries of the last axis and their indices (ties: lower index first; NaN is largest).

    Returns
    -------
    TopKV2
        ``(values, indices)``: sorted descending, or in index order when ``sorted`` is False.
    """
    x = convert_to_tensor(input)
    _TOP_K.check(x.array.dtype)
    index_dtype = _dtypes.as_dtype(index_type)
    if index_dtype.name not in _INDEX_TYPES:
        raise attr_error("TopKV2", "index_type", index_dtype.name, ", ".join(_INDEX_TYPES))
    given = with_dtype(k, _dtypes.int32)
    if x.array.ndim == 0:
        raise op_error("input must be >= 1-D, got shape []", "TopKV2")
    n = x.array.shape[-1]

    def k_in_range(value):
        if int(value) < 0:
            raise op_error(f"Need k >= 0, got {int(value)}", "TopKV2")
        if int(value) > n:
            raise op_error(f"input must have at least k columns. Had {n}, needed {int(value)}", "TopKV2")

    checked_at_run(k_in_range, given)
    run_k = varies(given)  # inside tf.function, k computed from the arguments: the graph takes each call's k
    count = call("Reshape", call("Cast", given, to=_INT64), np.array([1], _INT64)) if run_k else np.array(
        [int(given.array)], _INT64)
    values, indices = call("TopK", x, count, axis=-1, largest=1, sorted=1, tf_op="TopKV2")
    if not sorted and (run_k or int(given.array)):
        # TF's unsorted result lists the chosen entries in index order.
        indices, order = call("TopK", indices, count, axis=-1, largest=0, sorted=1)
        values = call("GatherElements", values, order, axis=-1)
    if index_dtype.np != _INT64:
        indices = call("Cast", indices, to=index_dtype.np)
    if run_k:
        values, indices = (value_shaped(t, [d if d < x.array.ndim - 1 else None for d in range(x.array.ndim)])
                           for t in (values, indices))
    return TopKV2(values, indices)


ApproxTopK = collections.namedtuple("ApproxTopK", ["values", "indices"])
_APPROX_TOP_K = OpTypes("ApproxTopK", "float16 bfloat16 float32")


def approx_top_k(input, k, reduction_dimension=-1, recall_target=0.95, is_max_k=True,  # noqa: A002
                 reduction_input_size_override=-1, aggregate_to_topk=True, name=None):
    """The ``k`` largest (``is_max_k``) entries of the last axis, exactly (TF's CPU kernel does so too).

    Only ``reduction_dimension=-1`` with ``is_max_k`` has a CPU kernel in TF; other settings raise
    NotFoundError as there.
    """
    x = convert_to_tensor(input)
    _APPROX_TOP_K.check(x.array.dtype)
    if reduction_dimension != -1 or not is_max_k:
        raise op_error(f"Could not find device for node: {{{{node ApproxTopK}}}} = ApproxTopK[is_max_k="
                       f"{str(bool(is_max_k)).lower()}, k={k}, reduction_dimension={reduction_dimension}]",
                       "ApproxTopK", errors.NotFoundError)
    values, indices = top_k(x, k)
    return ApproxTopK(values, indices)


def approx_max_k(operand, k, reduction_dimension=-1, recall_target=0.95, reduction_input_size_override=-1,
                 aggregate_to_topk=True, name=None):
    """``approx_top_k`` of the largest ``k`` entries along ``reduction_dimension``."""
    return approx_top_k(operand, k, reduction_dimension, recall_target, True, reduction_input_size_override,
                        aggregate_to_topk)


def approx_min_k(operand, k, reduction_dimension=-1, recall_target=0.95, reduction_input_size_override=-1,
                 aggregate_to_topk=True, name=None):
    """``approx_top_k`` of the smallest ``k`` entries (no CPU kernel in TF: NotFoundError)."""
    return approx_top_k(operand, k, reduction_dimension, recall_target, False, reduction_input_size_override,
                        aggregate_to_topk)


_FLOAT32 = np.dtype(np.float32)
_IN_TOP_K_TARGETS = OpTypes("InTopKV2", "int32 int64")


def in_top_k(targets, predictions, k, name=None):
    """Whether ``predictions[i, targets[i]]`` is among the ``k`` largest of row ``i`` (ties count as in).

    A row holding a non-finite prediction, or a target out of range, gives False.
    """
    predictions = with_dtype(predictions, _dtypes.float32)  # the op's fixed dtype: Python/numpy values take it
    targets = convert_to_tensor(targets)
    if predictions.array.dtype != _FLOAT32:
        raise mismatch("InTopKV2", _FLOAT32, predictions.array.dtype, 0)
    _IN_TOP_K_TARGETS.check(targets.array.dtype)
    if predictions.array.ndim != 2:
        raise op_error("predictions must be 2-dimensional", "InTopKV2")
    rows, cols = predictions.array.shape
    if targets.array.shape != (rows,):
        raise op_error(f"First dimension of predictions {rows} must match length of targets "
                       f"{targets.array.size}", "InTopKV2")
    kk = int(with_dtype(k, targets.dtype).array)
    ids = call("Cast", targets, to=_INT64)
    valid = call("And", call("GreaterOrEqual", ids, np.zeros((), _INT64)), call("Less", ids, np.asarray(cols, _INT64)))
    safe = call("Unsqueeze", call("Where", valid, ids, np.zeros((), _INT64)), np.array([1], _INT64))
    target_values = call("GatherElements", predictions, safe, axis=1)
    above = call("ReduceSum", call("Cast", call("Greater", predictions, target_values), to=_INT64),
                 np.array([1], _INT64), keepdims=0)
    non_finite = call("Or", call("IsNaN", predictions), call("IsInf", predictions))
    all_finite = call("Not", call("ReduceMax", non_finite, np.array([1], _INT64), keepdims=0))
    return call("And", call("And", valid, all_finite), call("Less", above, np.asarray(kk, _INT64)))


_INVERT_PERMUTATION = OpTypes("InvertPermutation", "int32 int64")


def invert_permutation(x, name=None):
    """The inverse of the permutation ``x`` (a 1-D int tensor holding each of 0..n-1 once): ``y[x[i]] = i``."""
    x = convert_to_tensor(x)
    _INVERT_PERMUTATION.check(x.array.dtype)
    if x.array.ndim != 1:
        raise op_error("invert_permutation expects a 1D vector.", "InvertPermutation")
    n = x.array.shape[0]
    values = x.array
    bad = (values < 0) | (values >= n)
    # Repeats: in a stable sort, an entry equal to its predecessor comes later in x.  (Out-of-range
    # entries, sorted as 0, may mark a later 0 too: the first offending position is unchanged.)
    order = np.argsort(np.where(bad, 0, values), kind="stable")
    ranked = values[order]
    bad[order[1:]] |= ranked[1:] == ranked[:-1]
    if bad.any():  # TF names the first offending value
        raise op_error(f"{values[np.argmax(bad)]} is not between 0 and {n}", "InvertPermutation")
    positions = np.arange(n, dtype=x.array.dtype)
    return call("ScatterElements", np.zeros(n, x.array.dtype), x, positions, tf_op="InvertPermutation")


NAMESPACES = {
    "tf": ["cumsum", "approx_top_k"],
    "math": ["cumsum", "cumprod", "cumulative_logsumexp", "top_k", "in_top_k", "approx_max_k", "approx_min_k",
             "invert_permutation"],
}
TENSOR_METHODS = {}
