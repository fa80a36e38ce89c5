"""Segment reductions, bincount and confusion_matrix of tf.math.

Every op here scatters rows of ``data`` into an output of one row per segment with the engine's
ScatterND (``add``/``mul``/``max``/``min`` reductions), starting from the reduction's identity, so
gradients are the engine's scatter gradients, which are TF's: sums gather the gradient back,
products handle zeros, maxima and minima share it evenly among tied rows.

* ``segment_*``: ids sorted, non-negative, one per row of ``data``; ``ids[-1] + 1`` segments;
  empty segments are 0 (1 for products).
* ``unsorted_segment_*``: ids of any order and shape (a prefix of ``data``'s), negative ids are
  dropped, ``num_segments`` given; empty segments hold the identity (the dtype's lowest value for
  max, highest for min, 0 for mean and sqrt_n).
"""

import numpy as np

from vfw.frontends.tensorflow import _dtypes
from vfw.frontends.tensorflow._dispatch import call, convert_to_tensor, op_error
from vfw.frontends.tensorflow._math_binary import truediv
from vfw.frontends.tensorflow._math_unary import sqrt
from vfw.frontends.tensorflow._op_support import (
    FLOATS,
    INDEX_DTYPES,
    OpTypes,
    attr_error,
    cast,
    shape_text,
    with_gradient,
)
from vfw.frontends.tensorflow._traced_shapes import (
    as_int64,
    checked_at_run,
    pinned,
    pinned_to,
    shape_of,
    shape_varies,
    shape_with,
    value_shaped,
    varies,
)

_INT64 = np.dtype(np.int64)


def _indices(tf_op, value, attr="Tindices", allowed=INDEX_DTYPES):
    """An integer index input (ids, num_segments): Python values become int32; other dtypes raise TF's error."""
    t = convert_to_tensor(value, dtype_hint=_dtypes.int32)
    if t.array.dtype not in allowed:
        raise attr_error(tf_op, attr, _dtypes.of_array(t.array).name, ", ".join(d.name for d in allowed))
    return t


def _identity(reduction, dtype):
    """The value an empty segment starts from."""
    if reduction == "mul":
        return 1
    if reduction in ("max", "min"):
        info = np.finfo(np.float32) if dtype == _dtypes.bfloat16.np else (
            np.finfo(dtype) if dtype in FLOATS else np.iinfo(dtype))
        return info.min if reduction == "max" else info.max
    return 0


def _scatter(tf_op, data, ids, rows, reduction):
    """``data`` rows reduced into ``rows`` segments at ``ids`` (an int tensor; negative ids are dropped).

    ``rows`` is an int, or an int64 scalar tensor whose value follows each call's inside a tf.function.
    Returns the segments and the number of rows each received (in data's dtype, shaped to broadcast
    against the segments).
    """
    x = convert_to_tensor(data)
    tail = x.array.shape[ids.array.ndim:]
    ids64 = call("Cast", ids, to=_INT64)
    counted = rows.__class__ is not int
    # Dropped rows go to one extra segment, cut off at the end.
    target = call("Where", call("Less", ids64, np.zeros((), _INT64)), rows if counted else np.asarray(rows, _INT64),
                  ids64)
    index = call("Unsqueeze", target, np.array([-1], _INT64))
    start_value = np.asarray(_identity(reduction, x.array.dtype), x.array.dtype)
    ones = np.ones((), x.array.dtype)
    if counted or shape_varies(x):  # the number of segments or the segments' dims follow each call's values
        start = call("Expand", start_value, shape_with(x, _segment_count(rows, 1), ids.array.ndim), tf_op=tf_op)
        zeros = call("Expand", np.zeros((), x.array.dtype), _segment_count(rows, 1), tf_op=tf_op)
        ones = call("Expand", ones, shape_of(ids), tf_op=tf_op)
    else:
        start = np.full((rows + 1,) + tail, start_value)
        zeros = np.zeros(rows + 1, x.array.dtype)
        ones = np.ones(ids.array.shape, x.array.dtype)
    out = call("ScatterND", start, index, x, reduction=reduction, tf_op=tf_op)
    counts = call("ScatterND", zeros, index, ones, reduction="add", tf_op=tf_op)
    first = np.zeros(1, _INT64)
    end = _segment_count(rows, 0)
    counts_shape = call("Concat", end, np.ones(len(tail), _INT64), axis=0) if counted else \
        np.array((rows,) + (1,) * len(tail), _INT64)
    counts = call("Reshape", call("Slice", counts, first, end, first), counts_shape)
    segments = call("Slice", out, first, end, first)
    return (value_shaped(segments), value_shaped(counts)) if counted else (segments, counts)


def _segment_count(rows, extra):
    """``[rows + extra]`` as a 1-D int64 input (computed by the graph when ``rows`` is a tensor)."""
    if rows.__class__ is int:
        return np.array([rows + extra], _INT64)
    return call("Reshape", call("Add", rows, np.asarray(extra, _INT64)), np.array([1], _INT64))


# -- sorted segments -----------------------------------------------------------------------------
def _check_sorted(tf_op, x, ids):
    if ids.array.ndim != 1:
        raise op_error("segment_ids should be a vector.", tf_op)
    if x.array.ndim == 0 or ids.array.shape[0] != x.array.shape[0]:
        raise op_error("segment_ids should be the same size as dimension 0 of input.", tf_op)
    rows = _sorted_rows(tf_op, ids.array)
    pinned_to((ids,), lambda values: (_sorted_rows(tf_op, values),), (rows,), "the number of segments", tf_op)
    return rows


def _sorted_rows(tf_op, values):
    """The number of segments of sorted ``values`` (TF's errors for unsorted or negative ids)."""
    rows = int(values[-1]) + 1 if values.size else 0
    if values.size and (values[:-1] > values[1:]).any():
        raise op_error("segment ids are not increasing", tf_op)
    if values.size and values[0] < 0:
        raise op_error(f"Segment id {int(values[0])} out of range [0, {rows}), possibly because 'segment_ids' input "
                       "is not sorted.", tf_op)
    return rows


def _sorted_segment(name, tf_op, reduction, mean=False):
    types = OpTypes(tf_op, "F I U")

    def fn(data, segment_ids, name=None):
        x = convert_to_tensor(data)
        types.check(x.array.dtype)
        ids = _indices(tf_op, segment_ids)
        rows = _check_sorted(tf_op, x, ids)
        out, counts = _scatter(tf_op, x, ids, rows, reduction)
        if mean:
            return call("Div", out, call("Max", counts, np.ones((), counts.array.dtype)), tf_op=tf_op)
        if reduction in ("max", "min"):  # TF's sorted kernels give 0 for an empty segment
            return call("Where", call("Greater", counts, np.zeros((), counts.array.dtype)), out,
                       np.zeros((), x.array.dtype))
        return out

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"``{name}``: rows of ``data`` reduced per segment (``segment_ids`` sorted, one per row); "
                  "empty segments are 0" + (" (1 for products)." if reduction == "mul" else "."))
    return fn


segment_sum = _sorted_segment("segment_sum", "SegmentSum", "add")
segment_mean = _sorted_segment("segment_mean", "SegmentMean", "add", mean=True)
segment_prod = _sorted_segment("segment_prod", "SegmentProd", "mul")
segment_max = _sorted_segment("segment_max", "SegmentMax", "max")
segment_min = _sorted_segment("segment_min", "SegmentMin", "min")


# -- unsorted segments ---------------------------------------------------------------------------
_UNSORTED_IDS = (np.dtype(np.int16),) + INDEX_DTYPES


def _unsorted_inputs(tf_op, data, segment_ids, num_segments):
    x = convert_to_tensor(data)
    ids = _indices(tf_op, segment_ids, allowed=_UNSORTED_IDS)
    num = _indices(tf_op, num_segments, attr="Tnumsegments")
    rows = int(num.array) if num.array.ndim == 0 else None
    if rows is None:
        raise op_error(f"num_segments should be a scalar, not shape {shape_text(num.array.shape)}", tf_op)
    if rows < 0:
        raise op_error(f"Input num_segments == {rows} must not be negative.", tf_op)
    if x.array.shape[:ids.array.ndim] != ids.array.shape:
        raise op_error(f"data.shape = {shape_text(x.array.shape)} does not start with segment_ids.shape = "
                       f"{shape_text(ids.array.shape)}", tf_op)

    def ids_in_range(values, count):
        count = int(count)
        if count < 0:
            raise op_error(f"Input num_segments == {count} must not be negative.", tf_op)
        beyond = np.flatnonzero(values.reshape(-1) >= count)
        if beyond.size:
            raise op_error(f"segment_ids[{beyond[0]}] = {int(values.reshape(-1)[beyond[0]])} is out of range "
                           f"[0, {count})", tf_op)

    checked_at_run(ids_in_range, ids, num)
    # Inside a tf.function the number of segments follows each call's value.
    return x, ids, as_int64(num) if varies(num) else rows


def _unsorted_segment(name, tf_op, reduction, allowed):
    types = OpTypes(tf_op, allowed)

    def fn(data, segment_ids, num_segments, name=None):
        x, ids, rows = _unsorted_inputs(tf_op, data, segment_ids, num_segments)
        types.check(x.array.dtype)
        return _scatter(tf_op, x, ids, rows, reduction)[0]

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"``{name}``: slices of ``data`` reduced into ``num_segments`` segments by ``segment_ids`` "
                  "(any order; negative ids dropped).")
    return fn


unsorted_segment_sum = _unsorted_segment("unsorted_segment_sum", "UnsortedSegmentSum", "add", "F I U")
unsorted_segment_prod = _unsorted_segment("unsorted_segment_prod", "UnsortedSegmentProd", "mul", "F I U")
unsorted_segment_max = _unsorted_segment("unsorted_segment_max", "UnsortedSegmentMax", "max", "F I U")
unsorted_segment_min = _unsorted_segment("unsorted_segment_min", "UnsortedSegmentMin", "min", "F I U")


_UNSORTED_SUM = OpTypes("UnsortedSegmentSum", "F I U")


def _segment_sizes(data, segment_ids, num_segments):
    """``(sums, max(count, 1))``: the unsorted sums and the segments' sizes broadcastable against them."""
    x, ids, rows = _unsorted_inputs("UnsortedSegmentSum", data, segment_ids, num_segments)
    _UNSORTED_SUM.check(x.array.dtype)
    sums, counts = _scatter("UnsortedSegmentSum", x, ids, rows, "add")
    return sums, call("Max", counts, np.ones((), counts.array.dtype))


def unsorted_segment_mean(data, segment_ids, num_segments, name=None):
    """Mean of the slices of each segment (0 for an empty one); integers are divided as floats."""
    sums, sizes = _segment_sizes(data, segment_ids, num_segments)
    return truediv(sums, sizes)


def unsorted_segment_sqrt_n(data, segment_ids, num_segments, name=None):
    """Sum of the slices of each segment divided by the square root of their number (floats only)."""
    sums, sizes = _segment_sizes(data, segment_ids, num_segments)
    return truediv(sums, sqrt(sizes))


# -- bincount ------------------------------------------------------------------------------------
_BINCOUNT = OpTypes("DenseBincount", "int32 int64 float32 float64")


def _no_gradient(g, *inputs):
    raise LookupError("gradient registry has no entry for: DenseBincount")


def _non_negative(arr):
    if arr.size and arr.min() < 0:
        raise op_error("Input arr must be non-negative!", "DenseBincount")


def _traced_bin_count(values, bounds, has_min, has_max):
    """The number of bins as an int64 scalar computed when the graph runs: ``max(arr) + 1`` (0 for an empty
    ``arr``), raised to ``minlength`` and capped at ``maxlength`` (``bounds`` holds those given, in that order)."""
    flat = call("Reshape", call("Cast", values, to=_INT64), np.array([-1], _INT64))
    # a -1 appended makes an empty arr give 0 bins, as eagerly, where ReduceMax of nothing would fail
    largest = call("ReduceMax", call("Concat", flat, np.array([-1], _INT64), axis=0), keepdims=0, tf_op="Max")
    length = call("Add", largest, np.ones((), _INT64))
    scalars = [call("Reshape", call("Cast", b, to=_INT64), np.zeros(0, _INT64)) for b in bounds]
    if has_min:
        length = call("Max", length, scalars.pop(0))
    if has_max:
        length = call("Min", length, scalars[0])
    return length


def bincount(arr, weights=None, minlength=None, maxlength=None, dtype=_dtypes.int32, name=None, axis=None,
             binary_output=False):
    """Counts (or summed ``weights``) of each value of the non-negative integers ``arr``.

    Parameters
    ----------
    arr : int tensor (other numbers are cast to int32)
    weights : tensor shaped like ``arr``, optional
        Summed per value instead of counting; the result takes their dtype.
    minlength, maxlength : int, optional
        Bounds of the output length (``max(arr) + 1`` otherwise); values past ``maxlength`` are dropped.
    dtype : DType
        The result's dtype without weights.
    axis : None, 0 or -1
        -1 counts each row of a 2-D ``arr`` separately; None/0 count everything.
    binary_output : bool
        1 where a value occurs instead of its count.
    """
    if binary_output and weights is not None:
        raise ValueError("Arguments `binary_output` and `weights` are mutually exclusive. Please specify only one.")
    values = convert_to_tensor(arr)
    if values.array.dtype not in INDEX_DTYPES:
        values = call("Cast", values, to=np.dtype(np.int32))
    bounds = [convert_to_tensor(b, dtype_hint=_dtypes.int32) for b in (minlength, maxlength) if b is not None]

    def bins(arr, *limits):
        if arr.size and arr.min() < 0:
            raise op_error("Input arr must be non-negative!", "DenseBincount")
        length = int(arr.max()) + 1 if arr.size else 0
        limits = list(limits)
        if minlength is not None:
            length = max(length, int(limits.pop(0)))
        if maxlength is not None:
            length = min(length, int(limits[0]))
        return length

    length = bins(values.array, *[b.array for b in bounds])
    # In a trace over varying values (a tf.data map, a tf.function argument) the number of bins follows each
    # run's values, as in TF, whose static shape leaves that dim unknown: compute it with engine ops.
    follows_values = varies(values, *bounds)
    if follows_values:
        checked_at_run(_non_negative, values)
        length = _traced_bin_count(values, bounds, minlength is not None, maxlength is not None)
    out_dtype = _dtypes.as_dtype(dtype).np
    if weights is not None:
        weights = convert_to_tensor(weights)
        out_dtype = weights.array.dtype
        if weights.array.shape != values.array.shape:
            raise op_error("`weights` must be the same shape as `arr` or a length-0 `Tensor`, in which case it acts as "
                           "all weights equal to 1.", "DenseBincount")
    _BINCOUNT.check(out_dtype)
    per_row = axis is not None and axis == -1 and values.array.ndim == 2
    if axis not in (None, 0, -1):
        raise op_error(f"Unsupported axis value {axis}: bincount counts all of arr or each row (axis=-1)",
                       "DenseBincount")
    if not per_row:
        values = call("Reshape", values, np.array([-1], _INT64))
        weights = None if weights is None else call("Reshape", weights, np.array([-1], _INT64))
    ones = np.ones(values.array.shape, out_dtype)

    def count(w):
        updates = ones if w is None or binary_output else w
        index = call("Cast", values, to=_INT64)
        limit = length if follows_values else np.asarray(length, _INT64)
        index = call("Where", call("Less", index, limit), index, limit)
        rows = (values.array.shape[0],) if per_row else ()
        if per_row:
            rows_at = np.broadcast_to(np.arange(values.array.shape[0], dtype=_INT64)[:, None], values.array.shape)
            index = call("Concat", call("Unsqueeze", rows_at.copy(), np.array([-1], _INT64)),
                        call("Unsqueeze", index, np.array([-1], _INT64)), axis=-1)
        else:
            index = call("Unsqueeze", index, np.array([-1], _INT64))
        if follows_values:
            dims = call("Concat", np.array(rows, _INT64), call("Reshape", call("Add", length, np.ones((), _INT64)),
                                                              np.array([1], _INT64)), axis=0)
            start = call("Expand", np.zeros((), out_dtype), dims, tf_op="DenseBincount")
        else:
            start = np.zeros(rows + (length + 1,), out_dtype)
        totals = call("ScatterND", start, index, updates, reduction="add", tf_op="DenseBincount")
        if binary_output:
            totals = call("Cast", call("Greater", totals, np.zeros((), out_dtype)), to=out_dtype)
        zero = np.zeros(1, _INT64)
        if not follows_values:
            return call("Slice", totals, zero, np.array([length], _INT64), np.array([-1], _INT64))
        end = call("Reshape", length, np.array([1], _INT64))
        return value_shaped(call("Slice", totals, zero, end, np.array([-1], _INT64)), [0] * len(rows) + [None])

    if weights is None:
        return count(None)
    return with_gradient(count, _no_gradient, weights)


# -- confusion matrix ----------------------------------------------------------------------------
def _class_ids(value, what, num_classes):
    ids = call("Cast", convert_to_tensor(value), to=_INT64)

    def in_range(values):
        if values.size and values.min() < 0:
            raise op_error(f"`{what}` contains negative values.  \nCondition x >= 0 did not hold element-wise:\n"
                           f"x (shape={values.shape} dtype=int64) = \n{values}")
        if num_classes is not None and values.size and values.max() >= num_classes:
            raise op_error(f"`{what}` out of bound\nCondition x < y did not hold.")

    checked_at_run(in_range, ids)
    return ids


def confusion_matrix(labels, predictions, num_classes=None, weights=None, dtype=_dtypes.int32, name=None):
    """The ``num_classes x num_classes`` matrix counting (or summing ``weights`` of) each (label, prediction) pair.

    ``num_classes`` defaults to ``max(labels, predictions) + 1``; labels index rows, predictions columns.
    """
    given = None if num_classes is None else convert_to_tensor(num_classes)
    num = None if given is None else int(given.array)
    if given is not None:
        pinned(given, (num,), "num_classes", "ScatterNd")
    rows = _class_ids(labels, "labels", num)
    cols = _class_ids(predictions, "predictions", num)
    if rows.array.shape != cols.array.shape:
        raise op_error(f"Shapes of all inputs must match: values[0].shape = {shape_text(rows.array.shape)} != "
                       f"values[1].shape = {shape_text(cols.array.shape)}", "Pack")
    if num is None:
        if not rows.array.size:  # TF's default size is max + 1 of nothing: the lowest int64, + 1
            raise op_error(f"Dimension {np.iinfo(np.int64).min + 1} must be >= 0", "ScatterNd")
        num = int(max(rows.array.max(), cols.array.max())) + 1
        pinned_to((rows, cols), lambda r, c: (int(max(r.max(), c.max())) + 1,), (num,), "num_classes", "ScatterNd")
    out_dtype = _dtypes.as_dtype(dtype).np
    updates = np.ones(rows.array.shape, out_dtype) if weights is None else cast(convert_to_tensor(weights), out_dtype)
    axis = np.array([-1], _INT64)
    index = call("Concat", call("Unsqueeze", rows, axis), call("Unsqueeze", cols, axis), axis=-1)
    return call("ScatterND", np.zeros((num, num), out_dtype), index, updates, reduction="add", tf_op="ScatterNd")


NAMESPACES = {
    "math": ["segment_sum", "segment_mean", "segment_prod", "segment_max", "segment_min", "unsorted_segment_sum",
             "unsorted_segment_prod", "unsorted_segment_max", "unsorted_segment_min", "unsorted_segment_mean",
             "unsorted_segment_sqrt_n", "bincount", "confusion_matrix"],
}
TENSOR_METHODS = {}
