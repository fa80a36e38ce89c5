"""tf.experimental.numpy reductions, scans, sorting, comparisons of whole arrays and selection.

Sums and products of bools and integers narrower than 64 bits accumulate in int64/uint64 (NumPy's
rule); means, variances and standard deviations of non-floats are in the default float type.
"""

import builtins

import numpy as np

from vfw.frontends import tensorflow as tf
from vfw.frontends.tensorflow.experimental.numpy._promotion import (
    DEFAULT_FLOAT,
    asarray,
    cast,
    np_result_type,
    promote,
    promote_to_float,
    to_np_dtype,
)


def _axis(axis):
    return list(axis) if isinstance(axis, tuple) else axis


def _keep(keepdims):
    return builtins.bool(keepdims) if keepdims is not None else False


def _accumulating(t, dtype):
    """``t`` in the dtype NumPy sums/multiplies it in: ``dtype``, else int64/uint64 for narrower integers."""
    if dtype is not None:
        return cast(t, to_np_dtype(dtype))
    kind = t.array.dtype.kind
    if kind == "b" or (kind == "i" and t.array.dtype.itemsize < 8):
        return cast(t, np.dtype(np.int64))
    if kind == "u" and t.array.dtype.itemsize < 8:
        return cast(t, np.dtype(np.uint64))
    return t


def _float_or_given(t, dtype):
    if dtype is not None:
        return cast(t, to_np_dtype(dtype))
    return t if t.array.dtype.kind in "fc" else cast(t, DEFAULT_FLOAT)


def sum(a, axis=None, dtype=None, keepdims=None):  # noqa: A001 (NumPy's name)
    """``tnp.sum``: the sum over ``axis`` (all axes by default)."""
    return tf.math.reduce_sum(_accumulating(asarray(a), dtype), _axis(axis), _keep(keepdims))


def prod(a, axis=None, dtype=None, keepdims=None):
    """``tnp.prod``: the product over ``axis``."""
    return tf.math.reduce_prod(_accumulating(asarray(a), dtype), _axis(axis), _keep(keepdims))


def _with_nans_as(a, value):
    t = asarray(a)
    if t.array.dtype.kind not in "fc":
        return t
    return tf.where(tf.math.is_nan(t), tf.constant(value, t.dtype), t)


def nansum(a, axis=None, dtype=None, keepdims=False):
    """``tnp.nansum``: ``sum`` treating NaNs as zero."""
    return sum(_with_nans_as(a, 0), axis, dtype, keepdims)


def nanprod(a, axis=None, dtype=None, keepdims=False):
    """``tnp.nanprod``: ``prod`` treating NaNs as one."""
    return prod(_with_nans_as(a, 1), axis, dtype, keepdims)


def mean(a, axis=None, dtype=None, out=None, keepdims=None):
    """``tnp.mean``: the arithmetic mean over ``axis`` (non-floats averaged in the default float type)."""
    return tf.math.reduce_mean(_float_or_given(asarray(a), dtype), _axis(axis), _keep(keepdims))


def nanmean(a, axis=None, dtype=None, keepdims=None):
    """``tnp.nanmean``: the mean of the non-NaN elements."""
    t = _float_or_given(asarray(a), dtype)
    present = cast(tf.logical_not(tf.math.is_nan(t)), t.array.dtype)
    return tf.math.divide(sum(_with_nans_as(t, 0), axis, keepdims=keepdims), sum(present, axis, keepdims=keepdims))


def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=None):
    """``tnp.var``: the variance over ``axis`` with ``ddof`` delta degrees of freedom."""
    t = _float_or_given(asarray(a), dtype)
    centered = t - tf.math.reduce_mean(t, _axis(axis), keepdims=True)
    squares = tf.math.real(centered * tf.math.conj(centered)) if t.array.dtype.kind == "c" else centered * centered
    total = tf.math.reduce_sum(squares, _axis(axis), _keep(keepdims))
    count = t.array.size / builtins.max(total.array.size, 1)
    return total / tf.constant(count - ddof, total.dtype)


def std(a, axis=None, keepdims=None):
    """``tnp.std``: the standard deviation over ``axis``."""
    return tf.math.sqrt(var(a, axis, keepdims=keepdims))


def _extreme(reduce, name):
    def fn(a, axis=None, out=None, keepdims=None):
        t = asarray(a)
        if t.array.size == 0 and axis is None:
            raise ValueError(f"zero-size array to reduction operation {name} which has no identity")
        if t.array.dtype == np.bool_:
            return cast(reduce(cast(t, np.dtype(np.int32)), _axis(axis), _keep(keepdims)), t.array.dtype)
        return reduce(t, _axis(axis), _keep(keepdims))

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``tnp.{name}``: the {'largest' if 'max' in name else 'smallest'} element over ``axis``."
    return fn


amax = _extreme(tf.math.reduce_max, "amax")
amin = _extreme(tf.math.reduce_min, "amin")


def max(a, axis=None, keepdims=None):  # noqa: A001
    """``tnp.max``: the largest element over ``axis``."""
    return amax(a, axis, keepdims=keepdims)


def min(a, axis=None, keepdims=None):  # noqa: A001
    """``tnp.min``: the smallest element over ``axis``."""
    return amin(a, axis, keepdims=keepdims)


def ptp(a, axis=None, keepdims=None):
    """``tnp.ptp``: ``max - min`` over ``axis``."""
    return amax(a, axis, keepdims=keepdims) - amin(a, axis, keepdims=keepdims)


def _flattened_axis(a, axis):
    t = asarray(a)
    return (tf.reshape(t, [-1]), 0) if axis is None else (t, axis)


def argmax(a, axis=None):
    """``tnp.argmax``: the index of the largest element (of the flattened array when ``axis`` is None)."""
    t, axis = _flattened_axis(a, axis)
    return tf.math.argmax(t, axis, output_type=tf.int64)


def argmin(a, axis=None):
    """``tnp.argmin``: the index of the smallest element (of the flattened array when ``axis`` is None)."""
    t, axis = _flattened_axis(a, axis)
    return tf.math.argmin(t, axis, output_type=tf.int64)


def _scan(tf_scan):
    def fn(a, axis=None, dtype=None):
        t, axis = _flattened_axis(a, axis)
        if t.array.dtype == np.bool_ and dtype is None:
            return tf_scan(t, axis)  # TF NumPy scans bools as they are (tf.math's kernels refuse them)
        return tf_scan(_accumulating(t, dtype), axis)

    return fn


cumsum = _scan(tf.math.cumsum)
cumsum.__name__ = cumsum.__qualname__ = "cumsum"
cumsum.__doc__ = "``tnp.cumsum``: running sums along ``axis`` (of the flattened array when None)."
cumprod = _scan(tf.math.cumprod)
cumprod.__name__ = cumprod.__qualname__ = "cumprod"
cumprod.__doc__ = "``tnp.cumprod``: running products along ``axis`` (of the flattened array when None)."


def all(a, axis=None, keepdims=None):  # noqa: A001
    """``tnp.all``: True when every element over ``axis`` is nonzero."""
    return tf.math.reduce_all(cast(asarray(a), np.dtype(np.bool_)), _axis(axis), _keep(keepdims))


def any(a, axis=None, keepdims=None):  # noqa: A001
    """``tnp.any``: True when some element over ``axis`` is nonzero."""
    return tf.math.reduce_any(cast(asarray(a), np.dtype(np.bool_)), _axis(axis), _keep(keepdims))


def count_nonzero(a, axis=None):
    """``tnp.count_nonzero``: the number of nonzero elements over ``axis`` (int64)."""
    return tf.math.count_nonzero(asarray(a), _axis(axis), dtype=tf.int64)


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """``tnp.isclose``: ``|a - b| <= atol + rtol * |b|`` elementwise (as TF NumPy, infinities are never close)."""
    a, b = promote_to_float(a, b)
    close = tf.math.less_equal(tf.abs(a - b), tf.constant(atol, a.dtype) + tf.constant(rtol, a.dtype) * tf.abs(b))
    if equal_nan:
        close = tf.logical_or(close, tf.logical_and(tf.math.is_nan(a), tf.math.is_nan(b)))
    return close


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """``tnp.allclose``: whether ``isclose`` holds everywhere (a bool tensor)."""
    return tf.math.reduce_all(isclose(a, b, rtol, atol, equal_nan))


def array_equal(a1, a2):
    """``tnp.array_equal``: whether the arrays have one shape and equal elements (a bool tensor)."""
    a, b = promote(a1, a2)
    if a.array.shape != b.array.shape:
        return tf.constant(False)
    return tf.math.reduce_all(tf.equal(a, b))


def sort(a, axis=-1, kind="quicksort", order=None):
    """``tnp.sort``: ``a`` sorted along ``axis`` (the flattened array when None)."""
    if order is not None:
        raise ValueError("'order' argument to sort is not supported.")
    t, axis = _flattened_axis(a, axis)
    return tf.sort(t, axis=axis)


def argsort(a, axis=-1, kind="quicksort", order=None):
    """``tnp.argsort``: the indices that sort ``a`` along ``axis`` (stable; int64)."""
    if order is not None:
        raise ValueError("'order' argument to sort is not supported.")
    t, axis = _flattened_axis(a, axis)
    return cast(tf.argsort(t, axis=axis, stable=True), np.dtype(np.int64))


def nonzero(a):
    """``tnp.nonzero``: per dimension, the indices of the nonzero elements (int64)."""
    t = asarray(a)
    if t.array.ndim == 0:
        t = tf.reshape(t, [1])  # as TF NumPy: a scalar counts as a 1-element vector
    indices = tf.where(cast(t, np.dtype(np.bool_)))
    return [indices[:, d] for d in range(t.array.ndim)]


def where(condition, x=None, y=None):
    """``tnp.where``: ``x`` where ``condition`` else ``y``; with only ``condition``, ``nonzero(condition)``."""
    condition = cast(asarray(condition), np.dtype(np.bool_))
    if x is None and y is None:
        return nonzero(condition)
    if x is None or y is None:
        raise ValueError("Both x and y must be ndarrays, or both must be None.")
    x, y = promote(x, y)
    return tf.where(condition, x, y)


def select(condlist, choicelist, default=0):
    """``tnp.select``: per element, the first choice whose condition holds, else ``default``."""
    if len(condlist) != len(choicelist):
        raise ValueError(f"condlist and choicelist must have the same length, got {len(condlist)} and "
                         f"{len(choicelist)}")
    common = np_result_type(*choicelist, default)
    result = asarray(default, common)
    for condition, choice in reversed(list(zip(condlist, choicelist))):
        result = tf.where(cast(asarray(condition), np.dtype(np.bool_)), asarray(choice, common), result)
    return result


def average(a, axis=None, weights=None, returned=False):
    """``tnp.average``: the (weighted) mean over ``axis``; with ``returned``, also the sum of weights."""
    if weights is None:
        result = mean(a, axis)
        total = tf.cast(tf.size(asarray(a)) // tf.size(result), result.dtype)
        total = tf.fill(tf.shape(result), total)
    else:
        values, weights = promote_to_float(a, weights)
        if values.array.shape != weights.array.shape:
            if axis is None or weights.array.ndim != 1:
                raise ValueError("Axis must be specified when shapes of a and weights differ.")
            shape = [1] * values.array.ndim
            shape[axis] = -1
            weights = tf.reshape(weights, shape) + tf.zeros_like(values)
        total = tf.math.reduce_sum(weights, _axis(axis))
        result = tf.math.reduce_sum(values * weights, _axis(axis)) / total
    return (result, total) if returned else result
