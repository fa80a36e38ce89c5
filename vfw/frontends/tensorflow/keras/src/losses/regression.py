"""Regression and hinge loss functions (per-sample values: the last axis averaged or summed).

The regression functions first bring ``y_true`` and ``y_pred`` to one rank the way Keras does
(a trailing dimension of 1 is dropped or added); the hinge functions map 0/1 labels to -1/1.
"""

import vfw.tensorflow as tf
from vfw.frontends.tensorflow.keras.src.losses import conventions
from vfw.frontends.tensorflow.keras.src.losses.loss import squeeze_or_expand_to_same_rank
from vfw.frontends.tensorflow.keras.src.ops import nn as ops_nn
from vfw.frontends.tensorflow.keras.src.ops.numpy_elementwise import absolute, maximum
from vfw.frontends.tensorflow.keras.src.ops.numpy_reduce import mean


def _aligned(y_true, y_pred):
    """``(y_true, y_pred)`` as tensors of ``y_pred``'s dtype and one rank."""
    y_pred = conventions.convert(y_pred)
    y_true = conventions.convert(y_true, conventions.dtype_name(y_pred))
    return squeeze_or_expand_to_same_rank(y_true, y_pred)


def _epsilon_like(x):
    return conventions.convert(conventions.epsilon(), conventions.dtype_name(x))


def mean_squared_error(y_true, y_pred):
    """``mean(square(y_true - y_pred), axis=-1)``."""
    y_true, y_pred = _aligned(y_true, y_pred)
    return mean(tf.square(y_true - y_pred), axis=-1)  # (Keras' mean: integer inputs give float32)


def mean_absolute_error(y_true, y_pred):
    """``mean(abs(y_true - y_pred), axis=-1)``."""
    y_true, y_pred = _aligned(y_true, y_pred)
    return mean(absolute(y_true - y_pred), axis=-1)  # (Keras' abs: unsigned values pass unchanged)


def mean_absolute_percentage_error(y_true, y_pred):
    """``100 * mean(abs((y_true - y_pred) / max(abs(y_true), eps)), axis=-1)``."""
    y_true, y_pred = _aligned(y_true, y_pred)
    ratio = tf.abs((y_true - y_pred) / tf.maximum(tf.abs(y_true), _epsilon_like(y_pred)))
    return 100.0 * tf.reduce_mean(ratio, axis=-1)


def mean_squared_logarithmic_error(y_true, y_pred):
    """``mean(square(log(max(y_pred, eps) + 1) - log(max(y_true, eps) + 1)), axis=-1)``."""
    y_true, y_pred = _aligned(y_true, y_pred)
    # Keras makes epsilon a float32 tensor first; its maximum with the inputs promotes (integers to float32).
    eps = tf.constant(conventions.epsilon(), "float32")
    first_log = tf.math.log(maximum(y_pred, eps) + 1.0)
    second_log = tf.math.log(maximum(y_true, eps) + 1.0)
    return tf.reduce_mean(tf.square(first_log - second_log), axis=-1)


def cosine_similarity(y_true, y_pred, axis=-1):
    """Negated cosine similarity along ``axis`` (-1 for parallel vectors, as a loss to minimise)."""
    y_true, y_pred = _aligned(y_true, y_pred)
    return -tf.reduce_sum(ops_nn.normalize(y_true, axis=axis) * ops_nn.normalize(y_pred, axis=axis), axis=axis)


def huber(y_true, y_pred, delta=1.0):
    """Huber loss: ``0.5 e^2`` where ``|e| <= delta``, else ``delta |e| - 0.5 delta^2``; mean over the last axis."""
    y_true, y_pred = _aligned(y_true, y_pred)
    delta = conventions.convert(delta, conventions.dtype_name(y_pred))
    error = tf.subtract(y_pred, y_true)
    abs_error = tf.abs(error)
    half = conventions.convert(0.5, conventions.dtype_name(abs_error))
    return tf.reduce_mean(tf.where(abs_error <= delta, half * tf.square(error),
                                   delta * abs_error - half * tf.square(delta)), axis=-1)


def log_cosh(y_true, y_pred):
    """``mean(log(cosh(y_pred - y_true)), axis=-1)``, computed stably as ``x + softplus(-2x) - log 2``."""
    y_true, y_pred = _aligned(y_true, y_pred)
    log2 = tf.cast(tf.math.log(tf.constant(2.0)), y_pred.dtype)
    x = y_pred - y_true
    return tf.reduce_mean(x + tf.nn.softplus(x * -2.0) - log2, axis=-1)


def _hinge_labels(y_true):
    """``y_true`` mapped from {0, 1} to {-1, 1} when every label is 0 or 1; other labels pass unchanged."""
    is_binary = tf.reduce_all(tf.logical_or(tf.equal(y_true, 0), tf.equal(y_true, 1)))
    return tf.cond(is_binary, lambda: 2.0 * y_true - 1.0, lambda: y_true)


def _hinge_margins(y_true, y_pred):
    y_pred = conventions.convert(y_pred)
    y_true = _hinge_labels(conventions.convert(y_true, conventions.dtype_name(y_pred)))
    return tf.maximum(1.0 - y_true * y_pred, 0.0)


def hinge(y_true, y_pred):
    """``mean(max(1 - y_true * y_pred, 0), axis=-1)`` with labels in {-1, 1} (0/1 labels are mapped)."""
    return tf.reduce_mean(_hinge_margins(y_true, y_pred), axis=-1)


def squared_hinge(y_true, y_pred):
    """``mean(square(max(1 - y_true * y_pred, 0)), axis=-1)`` with labels in {-1, 1} (0/1 labels are mapped)."""
    return tf.reduce_mean(tf.square(_hinge_margins(y_true, y_pred)), axis=-1)


def categorical_hinge(y_true, y_pred):
    """``max(max((1 - y_true) * y_pred) - sum(y_true * y_pred) + 1, 0)`` over the last axis (one-hot labels)."""
    y_pred = conventions.convert(y_pred)
    y_true = conventions.convert(y_true, conventions.dtype_name(y_pred))
    positive = tf.reduce_sum(y_true * y_pred, axis=-1)
    negative = tf.reduce_max((1.0 - y_true) * y_pred, axis=-1)
    return tf.maximum(negative - positive + 1.0, tf.zeros((), y_pred.dtype))
