"""keras.ops reductions and scans: sum, mean, prod, max/min, var/std, all/any, argmax/argmin, cumsum...

Integer and bool inputs follow Keras: ``sum``/``prod`` widen small ints (to int32 / uint32),
``mean``/``var`` give floats, ``max``/``min`` of bools are ``any``/``all``.
"""

import numpy as np

import vfw.tensorflow as tf
from vfw.frontends.tensorflow.keras.src.backend.dtypes import result_type
from vfw.frontends.tensorflow.keras.src.ops._common import axis_tuple, convert_to_tensor, keras_op, to_floatx_if_integer

_WIDER = {"bool": "int32", "int8": "int32", "int16": "int32", "uint8": "uint32", "uint16": "uint32"}


@keras_op
def sum(x, axis=None, keepdims=False):  # noqa: A001  (keras.ops.sum)
    """Sum over ``axis`` (all axes when None); bool/int8/int16 sum as int32, uint8/uint16 as uint32."""
    x = convert_to_tensor(x)
    dtype = _WIDER.get(x.dtype.name, x.dtype.name)
    return tf.reduce_sum(tf.cast(x, dtype), axis=axis, keepdims=keepdims)


@keras_op
def prod(x, axis=None, keepdims=False, dtype=None):
    """Product over ``axis``; small ints widen as in ``sum`` unless ``dtype`` is given."""
    x = convert_to_tensor(x)
    if dtype is None:
        x = tf.cast(x, _WIDER.get(x.dtype.name, x.dtype.name))
    return tf.reduce_prod(x, axis=axis, keepdims=keepdims)


@keras_op
def mean(x, axis=None, keepdims=False):
    """Mean over ``axis``, computed in at least float32 (ints and bools give floats)."""
    x = convert_to_tensor(x)
    dtype = x.dtype.name
    compute = result_type(dtype, "float32")
    out = tf.reduce_mean(tf.cast(x, compute), axis=axis, keepdims=keepdims)
    return tf.cast(out, compute if ("int" in dtype or dtype == "bool") else dtype)


@keras_op
def var(x, axis=None, keepdims=False):
    """Population variance over ``axis`` (computed in at least float32)."""
    x = convert_to_tensor(x)
    compute = result_type(x.dtype.name, "float32")
    out = tf.math.reduce_variance(tf.cast(x, compute), axis=axis, keepdims=keepdims)
    return tf.cast(out, result_type(x.dtype.name, float))


@keras_op
def std(x, axis=None, keepdims=False):
    """Population standard deviation over ``axis`` (ints and bools as floatx)."""
    return tf.math.reduce_std(to_floatx_if_integer(x), axis=axis, keepdims=keepdims)


def _check_not_empty(x, what):
    if int(np.prod(x.shape)) == 0:
        raise tf.errors.InvalidArgumentError(None, None, f"Cannot compute the {what} of an empty tensor.")


@keras_op
def max(x, axis=None, keepdims=False, initial=None):  # noqa: A001  (keras.ops.max)
    """Maximum over ``axis`` (at least ``initial`` when given; ``any`` for bools)."""
    return _extremum(x, axis, keepdims, initial, "max")


@keras_op
def min(x, axis=None, keepdims=False, initial=None):  # noqa: A001  (keras.ops.min)
    """Minimum over ``axis`` (at most ``initial`` when given; ``all`` for bools)."""
    return _extremum(x, axis, keepdims, initial, "min")


def _extremum(x, axis, keepdims, initial, what):
    x = convert_to_tensor(x)
    is_bool = x.dtype.name == "bool"
    if is_bool:
        reduce = tf.reduce_any if what == "max" else tf.reduce_all
    else:
        reduce = tf.reduce_max if what == "max" else tf.reduce_min
    combine = tf.math.maximum if what == "max" else tf.math.minimum
    if initial is None:
        _check_not_empty(x, what)
        return reduce(x, axis=axis, keepdims=keepdims)
    out = reduce(x, axis=axis, keepdims=keepdims)
    if is_bool:
        return tf.cast(combine(tf.cast(out, "int32"), tf.cast(initial, "int32")), "bool")
    return combine(out, initial)


amax = max
amin = min


@keras_op
def ptp(x, axis=None, keepdims=False):
    """Range (max - min) over ``axis``."""
    x = convert_to_tensor(x)
    return tf.reduce_max(x, axis=axis, keepdims=keepdims) - tf.reduce_min(x, axis=axis, keepdims=keepdims)


@keras_op
def all(x, axis=None, keepdims=False):  # noqa: A001  (keras.ops.all)
    """Whether every element along ``axis`` is true (nonzero)."""
    return tf.reduce_all(tf.cast(x, "bool"), axis=axis, keepdims=keepdims)


@keras_op
def any(x, axis=None, keepdims=False):  # noqa: A001  (keras.ops.any)
    """Whether some element along ``axis`` is true (nonzero)."""
    return tf.reduce_any(tf.cast(x, "bool"), axis=axis, keepdims=keepdims)


@keras_op
def count_nonzero(x, axis=None):
    """The number of nonzero elements along ``axis`` (int32)."""
    return tf.math.count_nonzero(x, axis=axis, dtype="int32")


def _arg_extremum(x, axis, keepdims, tf_arg):
    """Index of the first extremum (float ``-0.0`` counts below ``+0.0``), int32."""
    x = convert_to_tensor(x)
    source = x
    if "float" in x.dtype.name and x.shape.rank:
        x = tf.cast(x, result_type(x.dtype.name, "float32"))
        negative_zero = tf.math.logical_and(tf.math.equal(x, 0.0), tf.math.less(1.0 / x, 0.0))
        x = tf.where(negative_zero, tf.constant(-np.finfo(x.dtype.name).tiny, x.dtype), x)
    flat = tf.reshape(x, [-1]) if axis is None else x
    out = tf_arg(flat, axis=0 if axis is None else axis, output_type="int32")
    if keepdims:
        shape = [1] * source.shape.rank if axis is None else [
            1 if i in [a % source.shape.rank for a in axis_tuple(axis)] else d for i, d in enumerate(source.shape)]
        out = tf.reshape(out, shape)
    return out


@keras_op
def argmax(x, axis=None, keepdims=False):
    """Index of the largest element along ``axis`` (of the flattened tensor when None), int32."""
    return _arg_extremum(x, axis, keepdims, tf.math.argmax)


@keras_op
def argmin(x, axis=None, keepdims=False):
    """Index of the smallest element along ``axis`` (of the flattened tensor when None), int32."""
    return _arg_extremum(x, axis, keepdims, tf.math.argmin)


def _scan(x, axis, dtype, tf_scan):
    x = convert_to_tensor(x, dtype=dtype)
    if x.dtype.name == "bool":
        x = tf.cast(x, "int32")
    if axis is None:
        return tf_scan(tf.reshape(x, [-1]), axis=0)
    return tf_scan(x, axis=axis)


@keras_op
def cumsum(x, axis=None, dtype=None):
    """Running sum along ``axis`` (of the flattened tensor when None)."""
    return _scan(x, axis, dtype, tf.math.cumsum)


@keras_op
def cumprod(x, axis=None, dtype=None):
    """Running product along ``axis`` (of the flattened tensor when None)."""
    return _scan(x, axis, dtype, tf.math.cumprod)


@keras_op
def average(x, axis=None, weights=None):
    """Mean over ``axis`` weighted by ``weights`` (shaped like ``x``, or 1-D along ``axis``)."""
    x = convert_to_tensor(x)
    if weights is None:
        return tf.reduce_mean(tf.cast(x, result_type(x.dtype.name, float)), axis=axis)
    weights = convert_to_tensor(weights)
    dtype = result_type(x.dtype.name, weights.dtype.name, float)
    x, weights = tf.cast(x, dtype), tf.cast(weights, dtype)
    if axis is None or len(x.shape) == len(weights.shape):
        return tf.reduce_sum(x * weights, axis=axis) / tf.reduce_sum(weights, axis=axis)
    return tf.tensordot(x, weights, [[axis], [0]]) / tf.reduce_sum(weights)
