"""keras.ops.nn: activations, softmax, one-hot encodings, crossentropies, moments, normalization.

``softmax`` and ``sigmoid`` outputs carry their input as ``_keras_logits``: the crossentropies
given such an output compute from the logits (``from_logits=True``), as Keras does on TensorFlow.
"""

import vfw.tensorflow as tf
from vfw.frontends._warnings import warn_for_user
from vfw.frontends.tensorflow.keras.src.backend import config
from vfw.frontends.tensorflow.keras.src.backend.dtypes import standardize_dtype
from vfw.frontends.tensorflow.keras.src.ops._common import convert_to_tensor, keras_op


def _unary(name, tf_function, summary):
    """A keras op applying ``tf_function`` to ``x`` converted to a tensor."""

    def function(x):
        return tf_function(convert_to_tensor(x))

    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"{summary}, elementwise."
    return keras_op(function)


relu = _unary("relu", tf.nn.relu, "``max(x, 0)``")
relu6 = _unary("relu6", tf.nn.relu6, "``min(max(x, 0), 6)``")
selu = _unary("selu", tf.nn.selu, "Scaled exponential linear unit")
softplus = _unary("softplus", tf.math.softplus, "``log(1 + exp(x))``")
softsign = _unary("softsign", tf.nn.softsign, "``x / (1 + |x|)``")
silu = _unary("silu", tf.nn.silu, "``x * sigmoid(x)``")
swish = silu
log_sigmoid = _unary("log_sigmoid", tf.math.log_sigmoid, "``log(sigmoid(x))``")
tanh_shrink = _unary("tanh_shrink", lambda x: x - tf.math.tanh(x), "``x - tanh(x)``")
hard_tanh = _unary("hard_tanh", lambda x: tf.clip_by_value(x, -1.0, 1.0), "``x`` clipped to [-1, 1]")


@keras_op
def sigmoid(x):
    """``1 / (1 + exp(-x))``, elementwise (the output remembers ``x`` as its logits)."""
    x = convert_to_tensor(x)
    output = tf.nn.sigmoid(x)
    output._keras_logits = x
    return output


@keras_op
def hard_sigmoid(x):
    """``relu6(x + 3) / 6``, elementwise."""
    x = convert_to_tensor(x)
    return tf.nn.relu6(x + tf.constant(3.0, x.dtype)) / tf.constant(6.0, x.dtype)


@keras_op
def hard_silu(x):
    """``x * hard_sigmoid(x)``, elementwise."""
    x = convert_to_tensor(x)
    return x * hard_sigmoid.eager(x)


hard_swish = hard_silu


@keras_op
def sparse_sigmoid(x):
    """0 below -1, 1 above 1, ``(x + 1) / 2`` between."""
    x = convert_to_tensor(x)
    return tf.where(x <= -1, tf.constant(0.0, x.dtype), tf.where(x >= 1, tf.constant(1.0, x.dtype), 0.5 * (x + 1)))


@keras_op
def sparse_plus(x):
    """0 below -1, ``x`` above 1, ``(x + 1)**2 / 4`` between."""
    x = convert_to_tensor(x)
    return tf.where(x <= -1, tf.zeros_like(x), tf.where(x < 1, 1 / 4 * tf.pow(x + 1, 2), x))


@keras_op
def squareplus(x, b=4):
    """``(x + sqrt(x**2 + b)) / 2``, elementwise."""
    x = convert_to_tensor(x)
    return (x + tf.sqrt(tf.square(x) + convert_to_tensor(b, x.dtype))) / 2


@keras_op
def leaky_relu(x, negative_slope=0.2):
    """``x`` for positive ``x``, ``negative_slope * x`` otherwise."""
    return tf.nn.leaky_relu(convert_to_tensor(x), alpha=negative_slope)


@keras_op
def elu(x, alpha=1.0):
    """``x`` for positive ``x``, ``alpha * (exp(x) - 1)`` otherwise."""
    x = convert_to_tensor(x)
    out = tf.nn.elu(x)
    return out if alpha == 1 else tf.where(x > 0, out, alpha * out)


@keras_op
def celu(x, alpha=1.0):
    """``max(x, 0) + alpha * expm1(min(x, 0) / alpha)``, elementwise."""
    x = convert_to_tensor(x)
    return tf.maximum(x, 0.0) + alpha * tf.math.expm1(tf.minimum(x, 0.0) / alpha)


@keras_op
def gelu(x, approximate=True):
    """Gaussian error linear unit (tanh approximation unless ``approximate=False``)."""
    return tf.nn.gelu(convert_to_tensor(x), approximate=approximate)


@keras_op
def glu(x, axis=-1):
    """``a * sigmoid(b)`` of the two halves ``a``, ``b`` of ``x`` along ``axis``."""
    x = convert_to_tensor(x)
    if x.shape[axis] % 2 != 0:
        raise ValueError(f"axis size must be divisible by 2. Received: x.shape={x.shape} with axis={axis}")
    first, second = tf.split(x, 2, axis=axis)
    return first * tf.sigmoid(second)


@keras_op
def soft_shrink(x, threshold=0.5):
    """``x`` moved ``threshold`` towards 0, 0 within ``[-threshold, threshold]``."""
    x = convert_to_tensor(x)
    return tf.where(x > threshold, x - threshold, tf.where(x < -threshold, x + threshold, tf.zeros_like(x)))


@keras_op
def hard_shrink(x, threshold=0.5):
    """``x`` where ``|x| > threshold``, else 0."""
    x = convert_to_tensor(x)
    return tf.where(tf.abs(x) > threshold, x, tf.zeros_like(x))


@keras_op
def threshold(x, threshold, default_value):
    """``x`` where ``x > threshold``, else ``default_value``."""
    x = convert_to_tensor(x)
    return tf.where(x > threshold, x, default_value)


def _over_axes(x, axis, function):
    """``function(x, axis=-1)`` over the axes ``axis`` flattened into one (a tuple of axes)."""
    kept = [a for a in range(len(x.shape)) if a not in axis]
    moved = tf.transpose(x, [*kept, *axis])
    out = function(tf.reshape(moved, [*[x.shape[a] for a in kept], -1]), axis=-1)
    order = [*kept, *axis]
    return tf.transpose(tf.reshape(out, moved.shape), sorted(range(len(order)), key=order.__getitem__))


def _warn_size_one(x, axis):
    if isinstance(axis, int) and -x.ndim <= axis < x.ndim and x.shape[axis] == 1:
        warn_for_user(f"You are using a softmax over axis {axis} of a tensor of shape {x.shape}. This axis has size 1. "
                      "The softmax operation will always return the value 1, which is likely not what you intended. "
                      "Did you mean to use a sigmoid instead?")


@keras_op
def softmax(x, axis=-1):
    """``exp(x) / sum(exp(x))`` along ``axis`` (an int, a tuple of axes, or None: all axes).

    The output remembers ``x`` as its logits.
    """
    x = convert_to_tensor(x)
    _warn_size_one(x, axis)
    if isinstance(axis, tuple):
        output = _over_axes(x, axis, tf.nn.softmax)
    elif axis is None:
        output = tf.reshape(tf.nn.softmax(tf.reshape(x, [-1]), axis=-1), tf.shape(x))
    else:
        output = tf.nn.softmax(x, axis=axis)
    output._keras_logits = x
    return output


@keras_op
def log_softmax(x, axis=-1):
    """``x - logsumexp(x)`` along ``axis`` (an int, a tuple of axes, or None: all axes)."""
    x = convert_to_tensor(x)
    if isinstance(axis, tuple):
        return _over_axes(x, axis, tf.nn.log_softmax)
    if axis is None:
        return tf.reshape(tf.nn.log_softmax(tf.reshape(x, [-1]), axis=-1), tf.shape(x))
    return tf.nn.log_softmax(x, axis=axis)


@keras_op
def sparsemax(x, axis=-1):
    """The Euclidean projection of ``x`` onto the probability simplex along ``axis`` (sparse outputs)."""
    logits = convert_to_tensor(x)
    ordered = tf.sort(logits, direction="DESCENDING", axis=axis)
    cumulative = tf.cumsum(ordered, axis=axis)
    ranks_shape = [1] * len(logits.shape)
    ranks_shape[axis] = -1
    ranks = tf.reshape(tf.range(1, logits.shape[axis] + 1, dtype=logits.dtype), ranks_shape)
    support = ordered - (cumulative - 1) / ranks > 0
    count = tf.reduce_sum(tf.cast(support, logits.dtype), axis=axis, keepdims=True)
    tau = (tf.reduce_sum(tf.where(support, cumulative, 0.0), axis=axis, keepdims=True) - 1) / count
    return tf.maximum(logits - tau, 0.0)


# -- encodings ------------------------------------------------------------------------------------------------------
@keras_op
def one_hot(x, num_classes, axis=-1, dtype=None, sparse=False):
    """One-hot vectors of the integer labels ``x`` (``floatx()`` unless ``dtype``; -1 and out-of-range
    labels give all zeros), the class axis at ``axis``."""
    if sparse:
        raise ValueError("vfw has no sparse tensors: `sparse=True` is not supported.")
    dtype = standardize_dtype(dtype) if dtype is not None else config.floatx()
    x = convert_to_tensor(x, dtype="int64")
    on_off = (True, False) if dtype == "bool" else (None, None)
    return tf.one_hot(x, num_classes, on_value=on_off[0], off_value=on_off[1], axis=axis, dtype=dtype)


@keras_op
def multi_hot(inputs, num_classes=None, axis=-1, dtype=None, sparse=False, **kwargs):
    """Multi-hot vectors: 1 at every class a row of ``inputs`` names."""
    if num_classes is None and "num_tokens" in kwargs:
        num_classes = kwargs.pop("num_tokens")
    if num_classes is None:
        raise ValueError("Argument `num_classes` must be specified.")
    dtype = standardize_dtype(dtype)
    inputs = convert_to_tensor(inputs)
    reduction_axis = 1 if len(inputs.shape) > 1 else 0
    encoded = one_hot.eager(inputs, num_classes, axis=axis, dtype=dtype, sparse=sparse)
    if dtype == "bool":
        return tf.reduce_any(encoded, axis=reduction_axis)
    return tf.reduce_max(encoded, axis=reduction_axis)


# -- losses ----------------------------------------------------------------------------------------------------------
def _logits_of(output, from_logits, activation, function):
    """``(output, from_logits)``, switched to the logits when ``output`` came from ``activation``."""
    logits = getattr(output, "_keras_logits", None)
    if logits is None:
        return output, from_logits
    if from_logits:
        warn_for_user(f'"`{function}` received `from_logits=True`, but the `output` argument was produced by a '
                      f"{activation} activation and thus does not represent logits. Was this intended?")
    return logits, True


def _check_same_shape(target, output):
    if len(target.shape) != len(output.shape):
        raise ValueError("Arguments `target` and `output` must have the same rank (ndim). Received: "
                         f"target.shape={target.shape}, output.shape={output.shape}")
    for a, b in zip(target.shape, output.shape):
        if a is not None and b is not None and a != b:
            raise ValueError("Arguments `target` and `output` must have the same shape. Received: "
                             f"target.shape={target.shape}, output.shape={output.shape}")


@keras_op
def binary_crossentropy(target, output, from_logits=False):
    """Elementwise binary crossentropy of probabilities (clipped to ``[eps, 1 - eps]``) or logits."""
    target, output = tf.convert_to_tensor(target), tf.convert_to_tensor(output)
    _check_same_shape(target, output)
    output, from_logits = _logits_of(output, from_logits, "Sigmoid", "binary_crossentropy")
    if from_logits:
        return tf.nn.sigmoid_cross_entropy_with_logits(labels=target, logits=output)
    output = tf.clip_by_value(output, config.epsilon(), 1.0 - config.epsilon())
    bce = target * tf.math.log(output)
    bce += (1 - target) * tf.math.log(1 - output)
    return -bce


@keras_op
def categorical_crossentropy(target, output, from_logits=False, axis=-1):
    """Crossentropy of one-hot (or soft) ``target`` and class probabilities/logits along ``axis``."""
    target, output = tf.convert_to_tensor(target), tf.convert_to_tensor(output)
    if len(target.shape) < 1:
        raise ValueError("Arguments `target` and `output` must be at least rank 1. Received: "
                         f"target.shape={target.shape}, output.shape={output.shape}")
    _check_same_shape(target, output)
    output, from_logits = _logits_of(output, from_logits, "Softmax", "categorical_crossentropy")
    if from_logits:
        return tf.nn.softmax_cross_entropy_with_logits(labels=target, logits=output, axis=axis)
    output = output / tf.reduce_sum(output, axis, keepdims=True)
    output = tf.clip_by_value(output, config.epsilon(), 1.0 - config.epsilon())
    return -tf.reduce_sum(target * tf.math.log(output), axis)


@keras_op
def sparse_categorical_crossentropy(target, output, from_logits=False, axis=-1):
    """Crossentropy of integer class ``target`` and class probabilities/logits on the last axis."""
    if axis != -1 and axis != len(output.shape) - 1:
        raise ValueError(f"Only axis=-1 is currently supported. Received: axis={axis}")
    output, from_logits = _logits_of(output, from_logits, "Softmax", "sparse_categorical_crossentropy")
    target = tf.cast(tf.convert_to_tensor(target), "int64")
    output = tf.convert_to_tensor(output)
    if len(target.shape) == len(output.shape) and target.shape[-1] == 1:
        target = tf.squeeze(target, axis=-1)
    if len(output.shape) < 1:
        raise ValueError(f"Argument `output` must be at least rank 1. Received: output.shape={output.shape}")
    if len(target.shape) != len(output.shape[:-1]):
        raise ValueError("Argument `output` must have rank (ndim) `target.ndim - 1`. Received: "
                         f"target.shape={target.shape}, output.shape={output.shape}")
    for a, b in zip(target.shape, output.shape[:-1]):
        if a is not None and b is not None and a != b:
            raise ValueError("Arguments `target` and `output` must have the same shape up until the last dimension: "
                             f"target.shape={target.shape}, output.shape={output.shape}")
    if not from_logits:
        output = tf.math.log(tf.clip_by_value(output, config.epsilon(), 1 - config.epsilon()))
    return tf.nn.sparse_softmax_cross_entropy_with_logits(labels=target, logits=output)


# -- statistics and normalization -----------------------------------------------------------------------------------
@keras_op
def moments(x, axes, keepdims=False, synchronized=False):
    """``(mean, variance)`` of ``x`` over ``axes`` (float16/bfloat16 computed in float32)."""
    x = convert_to_tensor(x)
    dtype = x.dtype.name
    low_precision = dtype in ("float16", "bfloat16")
    if low_precision:
        x = tf.cast(x, "float32")
    mean, variance = tf.nn.moments(x, axes, keepdims=keepdims)
    if low_precision:
        limit = 65504.0  # float16's largest finite value
        mean = tf.cast(tf.clip_by_value(mean, -limit, limit), dtype)
        variance = tf.cast(tf.clip_by_value(variance, -limit, limit), dtype)
    return mean, variance


@keras_op
def batch_normalization(x, mean, variance, axis, offset=None, scale=None, epsilon=0.001):
    """``(x - mean) / sqrt(variance + epsilon) * scale + offset``, the statistics along ``axis``."""
    if axis != -1:
        shape = [1] * len(x.shape)
        shape[axis] = mean.shape[0]
        mean, variance = tf.reshape(mean, shape), tf.reshape(variance, shape)
        offset = None if offset is None else tf.reshape(offset, shape)
        scale = None if scale is None else tf.reshape(scale, shape)
    return tf.nn.batch_normalization(x, mean, variance, offset, scale, epsilon)


@keras_op
def normalize(x, axis=-1, order=2, epsilon=None):
    """``x`` divided by its ``order``-norm along ``axis`` (at least ``epsilon``)."""
    from vfw.frontends.tensorflow.keras.src.ops.linalg import norm

    if not isinstance(order, int) or not order >= 1:
        raise ValueError(f"Argument `order` must be an int >= 1. Received: order={order}")
    x = convert_to_tensor(x)
    if not x.shape.rank:
        x = tf.expand_dims(x, 0)
    epsilon = config.epsilon() if epsilon is None else epsilon
    if order == 2:
        inverse_norm = tf.math.rsqrt(tf.reduce_sum(tf.square(x), axis=axis, keepdims=True))
        return x * tf.minimum(inverse_norm, 1.0 / epsilon)
    return x / tf.maximum(norm.eager(x, ord=order, axis=axis, keepdims=True), epsilon)


@keras_op
def psnr(x1, x2, max_val):
    """Peak signal-to-noise ratio (dB) of ``x1`` against ``x2``."""
    x1, x2 = convert_to_tensor(x1), convert_to_tensor(x2)
    if x1.shape != x2.shape:
        raise ValueError(f"Input shapes {x1.shape} and {x2.shape} must match for PSNR calculation. ")
    max_val = convert_to_tensor(max_val, dtype=x2.dtype)
    mse = tf.reduce_mean(tf.square(x1 - x2))
    ten = tf.constant(10.0, mse.dtype)
    return 20 * (tf.math.log(max_val) / tf.math.log(ten)) - 10 * (tf.math.log(mse) / tf.math.log(ten))


