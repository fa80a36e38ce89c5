"""Less common keras.ops numpy functions: flips and rotations, more stacking and splitting, NaN-ignoring
reductions, quantiles, bitwise operations, and assorted elementwise functions."""

import numpy as np

import vfw.tensorflow as tf
from vfw.frontends.tensorflow.keras.src.backend import config
from vfw.frontends.tensorflow.keras.src.backend.dtypes import result_type
from vfw.frontends.tensorflow.keras.src.ops._common import (
    axis_tuple,
    canonicalize_axis,
    convert_to_tensor,
    float_of,
    keras_op,
    operand,
    promoted,
    promoted_tensors,
)
from vfw.frontends.tensorflow.keras.src.ops.numpy_array import diag, split
from vfw.frontends.tensorflow.keras.src.ops.numpy_creation import linspace
from vfw.frontends.tensorflow.keras.src.ops.numpy_elementwise import nan_to_num
from vfw.frontends.tensorflow.keras.src.ops.numpy_reduce import argmax, argmin, cumprod, cumsum

_WIDER = {"bool": "int32", "int8": "int32", "int16": "int32", "uint8": "uint32", "uint16": "uint32"}


# -- flips, stacking, splitting -----------------------------------------------------------------------------------
@keras_op
def fliplr(x):
    """``x`` reversed along axis 1."""
    return tf.reverse(convert_to_tensor(x), [1])


@keras_op
def flipud(x):
    """``x`` reversed along axis 0."""
    return tf.reverse(convert_to_tensor(x), [0])


@keras_op
def rot90(array, k=1, axes=(0, 1)):
    """``array`` rotated by ``k`` quarter turns in the plane of ``axes`` (from the first axis towards the second)."""
    array = convert_to_tensor(array)
    if array.shape.rank < 2:
        raise ValueError(f"Input array must have at least 2 dimensions. Received: array.ndim={array.shape.rank}")
    if len(axes) != 2 or axes[0] == axes[1]:
        raise ValueError(f"Invalid axes: {axes}. Axes must be a tuple of two different dimensions.")
    first, second = (canonicalize_axis(a, array.shape.rank) for a in axes)
    for _ in range(k % 4):
        array = tf.reverse(array, [second])
        perm = list(range(array.shape.rank))
        perm[first], perm[second] = second, first
        array = tf.transpose(array, perm)
    return array


@keras_op
def dstack(xs):
    """``xs`` (as at least 3-D) joined along axis 2."""
    xs = [convert_to_tensor(x) for x in xs]
    dtype = result_type(*(x.dtype.name for x in xs))
    stacked = []
    for x in xs:
        x = tf.cast(x, dtype)
        if x.shape.rank == 0:
            x = tf.reshape(x, (1, 1, 1))
        elif x.shape.rank == 1:
            x = x[None, :, None]
        elif x.shape.rank == 2:
            x = x[:, :, None]
        stacked.append(x)
    return tf.concat(stacked, axis=2)


@keras_op
def hsplit(x, indices_or_sections):
    """``split`` along axis 1 (axis 0 for 1-D ``x``)."""
    x = convert_to_tensor(x)
    return split.eager(x, indices_or_sections, axis=0 if x.shape.rank == 1 else 1)


@keras_op
def vsplit(x, indices_or_sections):
    """``split`` along axis 0."""
    return split.eager(x, indices_or_sections, axis=0)


@keras_op
def dsplit(x, indices_or_sections):
    """``split`` along axis 2."""
    return split.eager(x, indices_or_sections, axis=2)


@keras_op
def diagflat(x, k=0):
    """A matrix with the flattened ``x`` on its ``k``-th diagonal."""
    return diag.eager(tf.reshape(convert_to_tensor(x), [-1]), k)


# -- elementwise ------------------------------------------------------------------------------------------------------
def _nan_ignoring(extremum):
    def function(x1, x2):
        x1, x2 = promoted(operand(x1), operand(x2))
        out = extremum(x1, x2)
        if "float" not in x1.dtype.name:
            return out
        nan1, nan2 = tf.math.is_nan(x1), tf.math.is_nan(x2)
        out = tf.where(tf.logical_and(nan1, tf.logical_not(nan2)), x2, out)
        return tf.where(tf.logical_and(nan2, tf.logical_not(nan1)), x1, out)

    return function


@keras_op
def fmax(x1, x2):
    """The larger of ``x1`` and ``x2``, ignoring a NaN when the other is a number."""
    return _nan_ignoring(tf.math.maximum)(x1, x2)


@keras_op
def fmin(x1, x2):
    """The smaller of ``x1`` and ``x2``, ignoring a NaN when the other is a number."""
    return _nan_ignoring(tf.math.minimum)(x1, x2)


@keras_op
def logaddexp2(x1, x2):
    """``log2(2**x1 + 2**x2)``, computed stably."""
    x1, x2 = promoted_tensors(x1, x2, extra=(float,))
    delta = x1 - x2
    log2 = tf.cast(tf.math.log(2.0), x1.dtype)
    stable = tf.math.maximum(x1, x2) + tf.math.log1p(tf.math.exp(-tf.math.abs(delta) * log2)) / log2
    return tf.where(tf.math.is_nan(delta), x1 + x2, stable)


@keras_op
def sinc(x):
    """``sin(pi x) / (pi x)`` (1 at 0)."""
    x = float_of(x)
    pi_x = x * tf.constant(np.pi, dtype=x.dtype)
    return tf.where(tf.equal(x, 0), tf.ones_like(x), tf.math.sin(pi_x) / pi_x)


@keras_op
def real(x):
    """The real part of ``x`` (``x`` itself for real tensors)."""
    return tf.math.real(convert_to_tensor(x))


@keras_op
def imag(x):
    """The imaginary part of ``x`` (zeros for real tensors)."""
    return tf.math.imag(convert_to_tensor(x))


@keras_op
def conjugate(x):
    """The complex conjugate of ``x`` (``x`` itself for real tensors)."""
    return tf.math.conj(convert_to_tensor(x))


conj = conjugate


@keras_op
def isin(x1, x2, assume_unique=False, invert=False):
    """Whether each element of ``x1`` occurs in ``x2`` (negated with ``invert``)."""
    x1, x2 = promoted_tensors(x1, x2)
    found = tf.reduce_any(tf.equal(tf.reshape(x1, [-1, 1]), tf.reshape(x2, [1, -1])), axis=1)
    if invert:
        found = tf.logical_not(found)
    return tf.reshape(found, tf.shape(x1))


@keras_op
def logspace(start, stop, num=50, endpoint=True, base=10, dtype=None, axis=0):
    """``base ** linspace(start, stop, num)``."""
    exponents = linspace.eager(start, stop, num=num, endpoint=endpoint, dtype=dtype, axis=axis)
    return tf.pow(tf.cast(base, exponents.dtype), exponents)


# -- bitwise --------------------------------------------------------------------------------------------------------
def _bitwise(tf_function):
    def function(x, y):
        return tf_function(*promoted_tensors(x, y))

    return function


@keras_op
def bitwise_and(x, y):
    """``x & y`` of integer tensors."""
    return _bitwise(tf.bitwise.bitwise_and)(x, y)


@keras_op
def bitwise_or(x, y):
    """``x | y`` of integer tensors."""
    return _bitwise(tf.bitwise.bitwise_or)(x, y)


@keras_op
def bitwise_xor(x, y):
    """``x ^ y`` of integer tensors."""
    return _bitwise(tf.bitwise.bitwise_xor)(x, y)


@keras_op
def bitwise_invert(x):
    """``~x`` of an integer tensor."""
    return tf.bitwise.invert(convert_to_tensor(x))


bitwise_not = bitwise_invert


def _shift(tf_function, x, y):
    x = convert_to_tensor(x)
    if isinstance(y, int):
        return tf_function(x, tf.constant(y, x.dtype))
    return tf_function(*promoted_tensors(x, y))


@keras_op
def bitwise_left_shift(x, y):
    """``x << y``."""
    return _shift(tf.bitwise.left_shift, x, y)


@keras_op
def bitwise_right_shift(x, y):
    """``x >> y`` (arithmetic for signed types)."""
    return _shift(tf.bitwise.right_shift, x, y)


left_shift = bitwise_left_shift
right_shift = bitwise_right_shift


# -- NaN-ignoring reductions -----------------------------------------------------------------------------------------
@keras_op
def nansum(x, axis=None, keepdims=False):
    """Sum over ``axis`` treating NaNs as 0 (small ints widened as in ``sum``)."""
    x = convert_to_tensor(x)
    dtype = x.dtype.name
    clean = tf.where(tf.math.is_nan(tf.cast(x, config.floatx())), tf.zeros((), dtype=dtype), x)
    return tf.reduce_sum(tf.cast(clean, _WIDER.get(dtype, dtype)), axis=axis, keepdims=keepdims)


@keras_op
def nanmean(x, axis=None, keepdims=False):
    """Mean over ``axis`` of the non-NaN elements."""
    x = convert_to_tensor(x)
    if axis in ((), []):
        return x
    if not x.dtype.is_floating:
        return tf.reduce_mean(tf.cast(x, "float32"), axis=axis, keepdims=keepdims)
    dtype = result_type(x.dtype.name, float)
    total = tf.cast(nansum.eager(x, axis=axis, keepdims=keepdims), dtype)
    count = tf.reduce_sum(tf.cast(tf.logical_not(tf.math.is_nan(x)), dtype), axis=axis, keepdims=keepdims)
    return total / count


def _nan_extremum(x, axis, keepdims, reduce, bool_reduce, fill):
    x = convert_to_tensor(x)
    if not x.dtype.is_floating:
        return (bool_reduce if x.dtype.name == "bool" else reduce)(x, axis=axis, keepdims=keepdims)
    nan = tf.math.is_nan(x)
    clean = tf.where(nan, tf.constant(fill, dtype=x.dtype), x)
    all_nan = tf.reduce_all(nan, axis=axis, keepdims=keepdims)
    return tf.where(all_nan, tf.constant(float("nan"), dtype=x.dtype), reduce(clean, axis=axis, keepdims=keepdims))


@keras_op
def nanmax(x, axis=None, keepdims=False):
    """Maximum over ``axis`` ignoring NaNs (NaN where all are NaN)."""
    return _nan_extremum(x, axis, keepdims, tf.reduce_max, tf.reduce_any, float("-inf"))


@keras_op
def nanmin(x, axis=None, keepdims=False):
    """Minimum over ``axis`` ignoring NaNs (NaN where all are NaN)."""
    return _nan_extremum(x, axis, keepdims, tf.reduce_min, tf.reduce_all, float("inf"))


@keras_op
def nanprod(x, axis=None, keepdims=False):
    """Product over ``axis`` treating NaNs as 1."""
    x = convert_to_tensor(x)
    if x.dtype.is_floating:
        x = tf.where(tf.math.is_nan(x), tf.ones((), x.dtype), x)
    return tf.reduce_prod(tf.cast(x, _WIDER.get(x.dtype.name, x.dtype.name)), axis=axis, keepdims=keepdims)


@keras_op
def nanvar(x, axis=None, keepdims=False):
    """Variance over ``axis`` of the non-NaN elements."""
    x = convert_to_tensor(x)
    x = tf.cast(x, result_type(x.dtype.name, float))
    mean = nanmean.eager(x, axis=axis, keepdims=True)
    valid = tf.logical_not(tf.math.is_nan(x))
    centered = tf.math.square(tf.where(valid, x - mean, tf.zeros_like(x)))
    count = tf.reduce_sum(tf.cast(valid, centered.dtype), axis=axis, keepdims=keepdims)
    return tf.reduce_sum(centered, axis=axis, keepdims=keepdims) / count


@keras_op
def nanstd(x, axis=None, keepdims=False):
    """Standard deviation over ``axis`` of the non-NaN elements."""
    return tf.sqrt(nanvar.eager(x, axis=axis, keepdims=keepdims))


def _nan_arg(x, axis, keepdims, arg, fill):
    x = convert_to_tensor(x)
    if not x.dtype.is_floating:
        return arg.eager(x, axis=axis, keepdims=keepdims)
    nan = tf.math.is_nan(x)
    index = arg.eager(tf.where(nan, tf.constant(fill, dtype=x.dtype), x), axis=axis, keepdims=keepdims)
    return tf.where(tf.reduce_all(nan, axis=axis, keepdims=keepdims), tf.constant(-1, "int32"), index)


@keras_op
def nanargmax(x, axis=None, keepdims=False):
    """Index of the largest non-NaN element along ``axis`` (-1 where all are NaN)."""
    return _nan_arg(x, axis, keepdims, argmax, float("-inf"))


@keras_op
def nanargmin(x, axis=None, keepdims=False):
    """Index of the smallest non-NaN element along ``axis`` (-1 where all are NaN)."""
    return _nan_arg(x, axis, keepdims, argmin, float("inf"))


@keras_op
def nancumsum(x, axis=None, dtype=None):
    """Running sum treating NaNs as 0."""
    return cumsum.eager(nan_to_num.eager(x), axis=axis, dtype=dtype)


@keras_op
def nancumprod(x, axis=None, dtype=None):
    """Running product treating NaNs as 1."""
    x = convert_to_tensor(x)
    if x.dtype.is_floating:
        x = tf.where(tf.math.is_nan(x), tf.ones((), x.dtype), x)
    return cumprod.eager(x, axis=axis, dtype=dtype)


# -- quantiles -------------------------------------------------------------------------------------------------------
@keras_op
def quantile(x, q, axis=None, method="linear", keepdims=False):
    """The ``q``-th quantiles (``q`` in [0, 1], a scalar or 1-D) over ``axis``; ``method`` one of "linear",
    "lower", "higher", "nearest", "midpoint".  Slices holding a NaN give NaN.  Quantiles lead the result's
    axes when ``q`` is 1-D."""
    x = convert_to_tensor(x)
    x = tf.cast(x, result_type(x.dtype.name, float))
    q = tf.cast(convert_to_tensor(q), "float64")
    ndim = x.shape.rank
    axes = None if axis is None else sorted(canonicalize_axis(a, ndim) for a in axis_tuple(axis))
    if axes is None:
        flat = tf.reshape(x, [-1])
    else:
        others = [d for d in range(ndim) if d not in axes]
        flat = tf.reshape(tf.transpose(x, others + axes), [x.shape[d] for d in others] + [-1])
    ordered = tf.sort(flat, axis=-1)
    count = flat.shape[-1]
    position = (count - 1) * q

    def gather(index):
        return tf.gather(ordered, tf.clip_by_value(tf.cast(index, "int32"), 0, count - 1), axis=-1)

    if method == "lower":
        out = gather(tf.math.floor(position))
    elif method == "higher":
        out = gather(tf.math.ceil(position))
    elif method == "nearest":
        out = gather(tf.math.round(position))
    elif method == "midpoint":
        out = 0.5 * (gather(tf.math.floor(position)) + gather(tf.math.ceil(position)))
    elif method == "linear":
        upper = tf.clip_by_value(tf.cast(tf.math.ceil(position), "int32"), 0, count - 1)
        lower = tf.maximum(upper - 1, 0)
        upper = tf.minimum(lower + 1, count - 1)
        fraction = tf.cast(tf.cast(upper, "float64") - position, flat.dtype)
        out = tf.gather(ordered, upper, axis=-1) * (1 - fraction) + tf.gather(ordered, lower, axis=-1) * fraction
    else:
        raise ValueError(f"Invalid `method`: {method}. Expected one of 'linear', 'lower', 'higher', 'nearest', "
                         "'midpoint'.")
    has_nan = tf.reduce_any(tf.math.is_nan(x), axis=axes)
    has_nan = tf.reshape(has_nan, tf.concat([tf.shape(has_nan), tf.ones([q.shape.rank], "int32")], 0))
    out = tf.where(has_nan, tf.constant(float("nan"), out.dtype), out)
    if keepdims:
        for d in (range(ndim) if axes is None else axes):
            out = tf.expand_dims(out, d if axes is not None else 0)
    if q.shape.rank and out.shape.rank > 1:
        out = tf.transpose(out, [out.shape.rank - 1, *range(out.shape.rank - 1)])
    return out


@keras_op
def percentile(x, q, axis=None, method="linear", keepdims=False):
    """``quantile`` with ``q`` in percent."""
    return quantile.eager(x, convert_to_tensor(q, dtype=config.floatx()) / 100.0, axis=axis, method=method,
                          keepdims=keepdims)


@keras_op
def median(x, axis=None, keepdims=False):
    """The median over ``axis`` (the linear 0.5 quantile)."""
    return quantile.eager(x, 0.5, axis=axis, keepdims=keepdims)
