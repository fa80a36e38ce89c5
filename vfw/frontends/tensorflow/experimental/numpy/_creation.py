"""tf.experimental.numpy array creation: array/asarray, filled arrays, ranges, grids and triangular helpers."""

import builtins

import numpy as np

from vfw.frontends import tensorflow as tf
from vfw.frontends.tensorflow import _dtypes
from vfw.frontends.tensorflow.experimental.numpy._promotion import (
    DEFAULT_FLOAT,
    asarray,
    cast,
    np_result_type,
    to_np_dtype,
)
from vfw.frontends.tensorflow.experimental.numpy._shapes import take


def _tf_dtype(np_dtype):
    return _dtypes.as_dtype(np_dtype)


def _shape_list(shape):
    """A shape argument (int, sequence or tensor) as a list of Python ints."""
    if tf.is_tensor(shape):
        shape = shape.numpy().tolist()
    if isinstance(shape, (builtins.int, np.integer)):
        return [builtins.int(shape)]
    return [builtins.int(d) for d in shape]


def array(val, dtype=None, copy=True, ndmin=0):
    """``tnp.array``: a tensor of ``val`` (NumPy's dtype inference), with at least ``ndmin`` dimensions."""
    t = asarray(val, dtype)
    if copy and t is val:
        t = tf.identity(t)
    missing = ndmin - t.array.ndim
    if missing > 0:
        t = tf.reshape(t, [1] * missing + list(t.array.shape))
    return t


def asanyarray(a, dtype=None):
    """``tnp.asanyarray``: ``asarray`` (tensors have no subclasses to keep)."""
    return asarray(a, dtype)


def ascontiguousarray(a, dtype=None):
    """``tnp.ascontiguousarray``: ``array`` with at least one dimension."""
    return array(a, dtype, ndmin=1)


def copy(a):
    """``tnp.copy``: a new tensor with ``a``'s values."""
    return array(a, copy=True)


def _filled(shape, value, dtype):
    np_dtype = to_np_dtype(dtype)
    return tf.fill(_shape_list(shape), tf.constant(np.asarray(value, np_dtype)))


def zeros(shape, dtype=builtins.float):
    """``tnp.zeros``: zeros of ``shape`` (float64 by default)."""
    return _filled(shape, 0, dtype)


def ones(shape, dtype=builtins.float):
    """``tnp.ones``: ones of ``shape`` (float64 by default)."""
    return _filled(shape, 1, dtype)


def empty(shape, dtype=builtins.float):
    """``tnp.empty``: zeros of ``shape`` (TF NumPy fills its empty arrays)."""
    return _filled(shape, 0, dtype)


def full(shape, fill_value, dtype=None):
    """``tnp.full``: ``fill_value`` broadcast to ``shape`` (dtype inferred from ``fill_value``)."""
    value = asarray(fill_value, dtype)
    return tf.broadcast_to(value, _shape_list(shape))


def _like(a, dtype):
    t = asarray(a)
    return list(t.array.shape), (t.array.dtype if dtype is None else to_np_dtype(dtype))


def zeros_like(a, dtype=None):
    """``tnp.zeros_like``: zeros with ``a``'s shape and dtype (or ``dtype``)."""
    shape, np_dtype = _like(a, dtype)
    return _filled(shape, 0, np_dtype)


def ones_like(a, dtype=None):
    """``tnp.ones_like``: ones with ``a``'s shape and dtype (or ``dtype``)."""
    shape, np_dtype = _like(a, dtype)
    return _filled(shape, 1, np_dtype)


def empty_like(a, dtype=None):
    """``tnp.empty_like``: zeros with ``a``'s shape and dtype (or ``dtype``)."""
    return zeros_like(a, dtype)


def full_like(a, fill_value, dtype=None, order="K", subok=True, shape=None):
    """``tnp.full_like``: ``fill_value`` in ``a``'s shape (or ``shape``) and dtype (or ``dtype``)."""
    like_shape, np_dtype = _like(a, dtype)
    return full(like_shape if shape is None else shape, fill_value, np_dtype)


def arange(start, stop=None, step=1, dtype=None):
    """``tnp.arange``: evenly spaced values in ``[start, stop)``, with NumPy's dtype (int64/float64)."""
    if stop is None:
        start, stop = 0, start
    if step == 0:
        raise ValueError("step must be non-zero.")
    np_dtype = np_result_type(start, stop, step) if dtype is None else to_np_dtype(dtype)
    if np_dtype.kind in "iu" and not builtins.all(isinstance(v, (builtins.int, np.integer))
                                                   for v in (start, stop, step)):
        # Fractional bounds with an integer dtype: NumPy counts the elements in floats first.
        values = tf.range(builtins.float(start), builtins.float(stop), builtins.float(step), dtype=tf.float64)
        return cast(values, np_dtype)
    return tf.range(np.asarray(start, np_dtype), np.asarray(stop, np_dtype), np.asarray(step, np_dtype),
                    dtype=_tf_dtype(np_dtype))


def _float_bounds(start, stop):
    """``start`` and ``stop`` in their common type with a Python float (float32 with prefer_float32)."""
    common = np_result_type(start, stop, 0.0)
    return asarray(start, common), asarray(stop, common), common


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=builtins.float, axis=0):
    """``tnp.linspace``: ``num`` evenly spaced values from ``start`` to ``stop``.

    TF NumPy computes in the bounds' float type and, as TF does, ignores ``dtype``.
    """
    if num < 0:
        raise ValueError(f"Number of samples {num} must be non-negative.")
    start, stop, _ = _float_bounds(start, stop)
    divisions = num - 1 if endpoint else num
    grid = tf.linspace(start, stop, num if endpoint else num + 1, axis=axis)
    if not endpoint:
        grid = take(grid, tf.range(num), axis=axis)
    if not retstep:
        return grid
    step = (stop - start) / divisions if divisions > 0 else tf.fill(tf.shape(start), np.nan)
    return grid, cast(step, start.array.dtype)


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    """``tnp.logspace``: ``base ** linspace(start, stop, num)``."""
    exponents = linspace(start, stop, num, endpoint, axis=axis)
    result = tf.pow(cast(asarray(base), exponents.array.dtype), exponents)
    return result if dtype is None else cast(result, to_np_dtype(dtype))


def geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    """``tnp.geomspace``: ``num`` values in geometric progression from ``start`` to ``stop``."""
    start, stop, _ = _float_bounds(start, stop)
    exponents = linspace(tf.math.log(start), tf.math.log(stop), num, endpoint, axis=axis)
    result = tf.exp(exponents)
    return result if dtype is None else cast(result, to_np_dtype(dtype))


def eye(N, M=None, k=0, dtype=builtins.float):  # noqa: N803 (NumPy's argument names)
    """``tnp.eye``: an ``N x M`` matrix with ones on diagonal ``k``."""
    columns = N if M is None else M
    rows = tf.reshape(tf.range(N, dtype=tf.int64), [-1, 1])
    return cast(tf.equal(tf.range(columns, dtype=tf.int64), rows + k), to_np_dtype(dtype))


def identity(n, dtype=builtins.float):
    """``tnp.identity``: the ``n x n`` identity matrix."""
    return eye(n, dtype=dtype)


def tri(N, M=None, k=0, dtype=None):  # noqa: N803
    """``tnp.tri``: ones at and below diagonal ``k`` of an ``N x M`` matrix (float64 by default)."""
    columns = N if M is None else M
    rows = tf.reshape(tf.range(N, dtype=tf.int64), [-1, 1])
    lower = tf.range(columns, dtype=tf.int64) <= rows + k
    return cast(lower, DEFAULT_FLOAT if dtype is None else to_np_dtype(dtype))


def _triangle(m, k, keep_lower):
    m = asarray(m)
    shape = m.array.shape
    if len(shape) < 2:
        raise ValueError(f"Argument to {'tril' if keep_lower else 'triu'} should have rank >= 2, got {len(shape)}")
    keep = tri(shape[-2], shape[-1], k if keep_lower else k - 1, bool)
    keep = keep if keep_lower else tf.logical_not(keep)
    return tf.where(keep, m, tf.zeros_like(m))


def tril(m, k=0):
    """``tnp.tril``: ``m`` with the elements above diagonal ``k`` zeroed."""
    return _triangle(m, k, True)


def triu(m, k=0):
    """``tnp.triu``: ``m`` with the elements below diagonal ``k`` zeroed."""
    return _triangle(m, k, False)


def diag(v, k=0):
    """``tnp.diag``: the ``k``-th diagonal of a matrix, or a matrix with vector ``v`` on diagonal ``k``."""
    v = asarray(v)
    if v.array.ndim == 1:
        return tf.linalg.diag(v, k=k)
    if v.array.ndim == 2:
        return tf.linalg.diag_part(v, k=k)
    raise ValueError(f"Input to diag must be 1-d or 2-d, got rank {v.array.ndim}")


def diagflat(v, k=0):
    """``tnp.diagflat``: a matrix with the flattened ``v`` on diagonal ``k``."""
    return diag(tf.reshape(asarray(v), [-1]), k)


def diag_indices(n, ndim=2):
    """``tnp.diag_indices``: ``ndim`` copies of ``arange(n)`` (indices of the main diagonal)."""
    if n < 0:
        raise ValueError(f"n argument to diag_indices must be nonnegative, got {n}")
    index = tf.range(n, dtype=tf.int32)
    return (index,) * ndim


def meshgrid(*xi, **kwargs):
    """``tnp.meshgrid``: coordinate grids of the vectors ``xi`` (``indexing='xy'`` or ``'ij'``)."""
    indexing = kwargs.get("indexing", "xy")
    return tf.meshgrid(*[asarray(x) for x in xi], indexing=indexing)


def ix_(*args):
    """``tnp.ix_``: the 1-d ``args`` reshaped to broadcast against each other as an open mesh."""
    out = []
    for position, arg in enumerate(args):
        t = asarray(arg)
        if t.array.ndim != 1:
            raise ValueError(f"Arguments to ix_ must be 1-d, got shape {t.array.shape}")
        if t.array.dtype == np.bool_:
            t = tf.reshape(tf.where(t), [-1])
        shape = [1] * len(args)
        shape[position] = -1
        out.append(tf.reshape(t, shape))
    return out


def vander(x, N=None, increasing=False):  # noqa: N803
    """``tnp.vander``: the Vandermonde matrix of vector ``x`` with ``N`` columns."""
    x = asarray(x)
    if x.array.ndim != 1:
        raise ValueError(f"x must be a one-dimensional array, got rank {x.array.ndim}")
    columns = x.array.shape[0] if N is None else N
    powers = tf.range(columns, dtype=_tf_dtype(x.array.dtype))
    if not increasing:
        powers = tf.reverse(powers, [0])
    return tf.pow(tf.expand_dims(x, 1), powers)
