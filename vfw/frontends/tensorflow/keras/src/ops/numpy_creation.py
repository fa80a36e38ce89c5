"""keras.ops tensor creation: zeros, ones, full, arange, linspace, eye, tri... (``floatx()`` by default)."""

import numpy as np

import vfw.tensorflow as tf
from vfw.frontends.tensorflow._linalg_ops import band_offsets
from vfw.frontends.tensorflow.keras.src.backend import config
from vfw.frontends.tensorflow.keras.src.backend.dtypes import result_type, standardize_dtype
from vfw.frontends.tensorflow.keras.src.ops._common import convert_to_tensor, keras_op


def _dtype(dtype):
    return standardize_dtype(dtype or config.floatx())


@keras_op
def zeros(shape, dtype=None):
    """A tensor of zeros (``floatx()`` unless ``dtype``)."""
    return tf.zeros(shape, dtype=_dtype(dtype))


@keras_op
def ones(shape, dtype=None):
    """A tensor of ones (``floatx()`` unless ``dtype``)."""
    return tf.ones(shape, dtype=_dtype(dtype))


@keras_op
def empty(shape, dtype=None):
    """A tensor of ``shape`` (zeros: TF has no uninitialized memory)."""
    return tf.zeros(shape, dtype=_dtype(dtype))


@keras_op
def full(shape, fill_value, dtype=None):
    """A tensor of ``shape`` filled with ``fill_value`` (``floatx()`` unless ``dtype``)."""
    return tf.broadcast_to(convert_to_tensor(fill_value, _dtype(dtype)), shape)


@keras_op
def zeros_like(x, dtype=None):
    """Zeros shaped like ``x`` (its dtype unless ``dtype``)."""
    return tf.zeros_like(x, dtype=None if dtype is None else standardize_dtype(dtype))


@keras_op
def ones_like(x, dtype=None):
    """Ones shaped like ``x`` (its dtype unless ``dtype``)."""
    return tf.ones_like(x, dtype=None if dtype is None else standardize_dtype(dtype))


@keras_op
def empty_like(x, dtype=None):
    """A tensor shaped like ``x`` (zeros)."""
    return tf.zeros_like(x, dtype=None if dtype is None else standardize_dtype(dtype))


@keras_op
def full_like(x, fill_value, dtype=None):
    """``fill_value`` broadcast to ``x``'s shape (``x``'s dtype unless ``dtype``)."""
    x = convert_to_tensor(x)
    dtype = result_type(dtype or x.dtype.name)
    return tf.broadcast_to(convert_to_tensor(fill_value, dtype), tf.shape(x))


def _scalar_dtype(value):
    return getattr(value, "dtype", type(value))


@keras_op
def arange(start, stop=None, step=None, dtype=None):
    """Values from ``start`` (0 when only one bound is given) up to ``stop`` by ``step``.

    The dtype defaults to the promotion of the bounds' types (ints: int32, a float: floatx).
    """
    if dtype is None:
        dtype = result_type(*(_scalar_dtype(v) for v in (start, stop, step) if v is not None))
    dtype = standardize_dtype(dtype)
    step = 1 if step is None else step
    try:
        return tf.range(start, stop, delta=step, dtype=dtype)
    except tf.errors.NotFoundError:  # no CPU kernel for the dtype (int8, uint16...): Keras counts in float32
        return tf.cast(tf.range(start, stop, delta=step, dtype="float32"), dtype)


@keras_op
def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    """``num`` evenly spaced values from ``start`` to ``stop`` (excluded unless ``endpoint``).

    Returns ``(values, step)`` when ``retstep``.
    """
    if num < 0:
        raise ValueError(f"`num` must be a non-negative integer. Received: num={num}")
    if dtype is None:
        dtype = result_type(_scalar_dtype(start), _scalar_dtype(stop), float)
    else:
        dtype = standardize_dtype(dtype)
    start = convert_to_tensor(start, dtype=dtype)
    stop = convert_to_tensor(stop, dtype=dtype)
    step = convert_to_tensor(np.nan)
    if endpoint:
        values = tf.linspace(start, stop, num, axis=axis)
        if num > 1:
            step = (stop - start) / (tf.cast(num, dtype) - 1)
    else:
        if num > 0:
            step = (stop - start) / tf.cast(num, dtype)
        if num > 1:
            values = tf.linspace(start, stop - step, num, axis=axis)
        else:
            values = tf.linspace(start, stop, num, axis=axis)
    if "int" in dtype:
        values = tf.math.floor(values)
    values = tf.cast(values, dtype)
    return (values, step) if retstep else values


@keras_op
def eye(N, M=None, k=0, dtype=None):
    """An ``N x M`` matrix with ones on the ``k``-th diagonal."""
    dtype = _dtype(dtype)
    M = N if M is None else M
    if k == 0:
        return tf.eye(N, M, dtype=dtype)
    size = max(min(M - k, N + k), 0)
    return tf.pad(tf.eye(size, dtype=dtype), [[max(-k, 0), max(N - M + k, 0)], [max(k, 0), max(M - N - k, 0)]])


@keras_op
def identity(n, dtype=None):
    """The ``n x n`` identity matrix."""
    return eye.eager(n, n, dtype=dtype)


@keras_op
def tri(N, M=None, k=0, dtype=None):
    """An ``N x M`` matrix with ones at and below the ``k``-th diagonal."""
    M = N if M is None else M
    rows = np.arange(N)[:, None]
    cols = np.arange(M)[None, :]
    return tf.cast(tf.constant(cols <= rows + k), _dtype(dtype))


def _band(x, k, lower):
    x = convert_to_tensor(x)
    offset = band_offsets(x)  # column minus row (engine ops over each run's sizes while a graph is traced)
    if isinstance(offset, np.ndarray):
        keep = tf.constant(offset <= k if lower else offset >= k)
    else:
        keep = tf.less_equal(offset, k) if lower else tf.greater_equal(offset, k)
    if x.dtype == tf.bool:  # (a causal mask: onnxruntime has no bool Where)
        return tf.logical_and(keep, x)
    return tf.where(keep, x, tf.zeros_like(x))


@keras_op
def tril(x, k=0):
    """``x`` with the elements above the ``k``-th diagonal zeroed (over the last two axes)."""
    return _band(x, k, lower=True)


@keras_op
def triu(x, k=0):
    """``x`` with the elements below the ``k``-th diagonal zeroed (over the last two axes)."""
    return _band(x, k, lower=False)
