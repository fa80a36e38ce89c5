"""keras.ops numpy functions of signal processing and polynomials: window functions (the engine's window ops,
``vfw/core/ops/signal_windows.py``), the Bessel function ``i0`` (``tf.math.bessel_i0``: the engine's BesselI0),
``correlate``, ``corrcoef``, ``trapezoid``, ``vander``, ``kron`` and ``geomspace``."""

import numpy as np

import vfw.tensorflow as tf
from vfw.frontends.tensorflow._dispatch import call
from vfw.frontends.tensorflow.keras.src.backend import config
from vfw.frontends.tensorflow.keras.src.backend.dtypes import result_type
from vfw.frontends.tensorflow.keras.src.ops._common import canonicalize_axis, cast_to, convert_to_tensor, keras_op
from vfw.frontends.tensorflow.keras.src.ops.numpy_extra import logspace


# -- windows ---------------------------------------------------------------------------------------------------------
def _window(x, op_type, **attrs):
    """The symmetric window (engine op ``op_type`` with ``attrs``) of ``x`` points (a Python or tensor scalar), in
    floatx; ``[1.]`` for one point and empty for fewer, as numpy."""
    length = int(convert_to_tensor(x).numpy())
    dtype = config.floatx()
    if length <= 1:
        return tf.ones([max(length, 0)], dtype)
    return call(op_type, np.asarray(length, np.int64), periodic=0, output_datatype=np.dtype(dtype), **attrs)


@keras_op
def bartlett(x):
    """The Bartlett (triangular) window of ``x`` points, in floatx."""
    return _window(x, "BartlettWindow")


@keras_op
def blackman(x):
    """The Blackman window of ``x`` points, in floatx."""
    return _window(x, "BlackmanWindow")


@keras_op
def hamming(x):
    """The (symmetric) Hamming window ``0.54 - 0.46 cos(2 pi n / (x - 1))`` of ``x`` points, in floatx."""
    return _window(x, "CosineSumWindow", coefficients=(0.54, 0.46))


@keras_op
def hanning(x):
    """The (symmetric) Hann window of ``x`` points, in floatx."""
    return _window(x, "HannWindow")


@keras_op
def kaiser(x, beta):
    """The Kaiser window of ``x`` points with shape parameter ``beta`` (a concrete number), in floatx:
    ``i0(beta * sqrt(1 - (2 n / (x - 1) - 1) ** 2)) / i0(beta)``."""
    return _window(x, "KaiserWindow", beta=float(convert_to_tensor(beta).numpy()))


@keras_op
def i0(x):
    """The modified Bessel function of the first kind of order 0 (int64 and float64 give float64, 16-bit floats
    stay, others give floatx)."""
    x = convert_to_tensor(x)
    dtype = x.dtype.name
    if dtype in ("int64", "float64"):
        dtype = "float64"
    elif dtype not in ("bfloat16", "float16"):
        dtype = config.floatx()
    return tf.math.bessel_i0(cast_to(x, dtype))


# -- correlation, integration, polynomials ---------------------------------------------------------------------------
def _correlation_dtype(x1, x2):
    """Keras' compute dtype of ``correlate``: int64 -> float64, 16/64-bit floats kept, others float32."""
    dtype = result_type(x1.dtype.name, x2.dtype.name)
    if dtype == "int64":
        return "float64"
    return dtype if dtype in ("bfloat16", "float16", "float64") else "float32"


@keras_op
def correlate(x1, x2, mode="valid"):
    """Cross-correlation of two 1-D sequences: ``out[k] = sum_n x1[n + k] * x2[n]`` over the offsets ``mode``
    keeps ("valid": full overlap, "same": ``max(len)`` centred outputs, "full": any overlap)."""
    x1, x2 = convert_to_tensor(x1), convert_to_tensor(x2)
    if mode not in ("valid", "same", "full"):
        raise ValueError(f"Invalid mode: '{mode}'. Mode must be one of: 'full', 'same', 'valid'.")
    dtype = _correlation_dtype(x1, x2)
    x1, x2 = cast_to(x1, dtype), cast_to(x2, dtype)
    n, m = x1.shape[0], x2.shape[0]
    if mode != "valid":
        x1 = tf.pad(x1, [[m - 1, m - 1]])
    full = tf.reshape(tf.nn.conv1d(tf.reshape(x1, [1, -1, 1]), tf.reshape(x2, [m, 1, 1]), 1, "VALID"), [-1])
    if mode == "same":
        start = (n + m - 1 - max(n, m)) // 2
        return full[start:start + max(n, m)]
    return full


@keras_op
def corrcoef(x):
    """Pearson correlation coefficients of the rows of ``x`` (variables in rows, observations in columns),
    clipped to [-1, 1]; ints and bool (except int64) compute in floatx."""
    x = convert_to_tensor(x)
    dtype = x.dtype.name
    if dtype in ("bool", "int8", "int16", "int32", "uint8", "uint16", "uint32"):
        dtype = config.floatx()
    x = cast_to(x, dtype)
    if x.shape.rank == 0:
        return tf.constant(float("nan"), config.floatx())
    centered = x - tf.reduce_mean(x, axis=-1, keepdims=True)
    samples = tf.cast(tf.shape(x)[-1], x.dtype)
    covariance = tf.matmul(centered, centered, transpose_b=True) / (samples - 1)
    deviation = tf.sqrt(tf.linalg.diag_part(covariance))
    return tf.clip_by_value(covariance / tf.tensordot(deviation, deviation, axes=0), -1.0, 1.0)


@keras_op
def trapezoid(y, x=None, dx=1.0, axis=-1):
    """The integral of ``y`` along ``axis`` by the trapezoidal rule, at sample points ``x`` (same shape as
    ``y`` or 1-D along ``axis``) or spacing ``dx``."""
    y = convert_to_tensor(y)
    dtype = result_type(y.dtype.name, float)
    y = cast_to(y, dtype)
    axis = canonicalize_axis(axis, y.shape.rank)
    rank = y.shape.rank

    def pieces(t, start, stop):
        index = [slice(None)] * t.shape.rank
        index[axis if t.shape.rank == rank else 0] = slice(start, stop)
        return t[tuple(index)]

    if x is None:
        spacing = tf.cast(dx, dtype)
    else:
        x = convert_to_tensor(x, dtype)
        spacing = pieces(x, 1, None) - pieces(x, None, -1)
        if x.shape.rank == 1 and rank > 1:
            spacing = tf.reshape(spacing, [-1 if d == axis else 1 for d in range(rank)])
    heights = 0.5 * (pieces(y, 1, None) + pieces(y, None, -1))
    return tf.reduce_sum(heights * spacing, axis=axis)


@keras_op
def vander(x, N=None, increasing=False):
    """The Vandermonde matrix of 1-D ``x``: columns ``x ** (N - 1) ... x ** 0`` (reversed if ``increasing``),
    in ``x``'s dtype."""
    x = convert_to_tensor(x)
    if x.shape.rank != 1:
        raise ValueError(f"`x` must be a 1-D tensor. Received: x.shape={x.shape}")
    count = x.shape[0] if N is None else int(N)
    powers = tf.range(count) if increasing else tf.range(count - 1, -1, -1)
    compute = result_type(x.dtype.name, "float32")
    table = tf.pow(tf.cast(x[:, None], compute), tf.cast(powers, compute))
    return cast_to(table, x.dtype.name)


@keras_op
def kron(x1, x2):
    """The Kronecker product of ``x1`` and ``x2`` (the lower-rank one gains leading unit axes)."""
    x1, x2 = convert_to_tensor(x1), convert_to_tensor(x2)
    dtype = result_type(x1.dtype.name, x2.dtype.name)
    x1, x2 = cast_to(x1, dtype), cast_to(x2, dtype)
    rank = max(x1.shape.rank, x2.shape.rank)
    shape1 = [1] * (rank - x1.shape.rank) + x1.shape.as_list()
    shape2 = [1] * (rank - x2.shape.rank) + x2.shape.as_list()
    # Interleave the axes: x1's axis i pairs with x2's axis i, x1's index varying slower.
    product = tf.reshape(x1, [d for s in shape1 for d in (s, 1)]) * tf.reshape(x2, [d for s in shape2 for d in (1, s)])
    return tf.reshape(product, [a * b for a, b in zip(shape1, shape2)])


@keras_op
def geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    """``num`` numbers spaced evenly on a log scale from ``start`` to ``stop`` (same sign), in ``dtype``
    (floatx by default)."""
    start, stop = convert_to_tensor(start), convert_to_tensor(stop)
    compute = dtype or config.floatx()
    log_start = tf.math.log(tf.cast(tf.abs(start), compute))
    log_stop = tf.math.log(tf.cast(tf.abs(stop), compute))
    log_ten = tf.math.log(tf.constant(10.0, log_start.dtype))
    out = logspace.eager(log_start / log_ten, log_stop / log_ten, num=num, endpoint=endpoint, base=10, dtype=dtype,
                         axis=axis)
    return out * tf.cast(tf.sign(tf.cast(start, log_start.dtype)), out.dtype)
