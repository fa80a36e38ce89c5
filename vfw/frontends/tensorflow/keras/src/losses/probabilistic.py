"""Probabilistic loss functions: crossentropies (plain and focal), KL divergence, Poisson, generalized CE.

Each returns per-sample losses (the class axis reduced) computed with vfw.tensorflow ops in the
order Keras' TensorFlow backend uses, so values agree to float round-off. The elementwise
crossentropies are ``keras.ops``': probabilities are clipped to ``[epsilon, 1 - epsilon]`` before
logarithms, and an output that a Keras softmax or sigmoid produced is replaced by the logits it
kept (``_keras_logits``).
"""

import vfw.tensorflow as tf
from vfw.frontends._warnings import warn_for_user
from vfw.frontends.tensorflow.keras.src.engine import layer_call
from vfw.frontends.tensorflow.keras.src.losses import conventions
from vfw.frontends.tensorflow.keras.src.ops import nn as ops_nn


def _prediction_and_target(y_true, y_pred):
    """``y_pred`` as a tensor and ``y_true`` cast to its dtype."""
    y_pred = conventions.convert(y_pred)
    return conventions.convert(y_true, conventions.dtype_name(y_pred)), y_pred


def _clip_probabilities(output):
    eps = conventions.epsilon()
    return tf.clip_by_value(output, eps, 1.0 - eps)


def _smooth_binary_labels(y_true, label_smoothing):
    return y_true * (1.0 - label_smoothing) + 0.5 * label_smoothing


def _smooth_categorical_labels(y_true, label_smoothing, dtype):
    num_classes = tf.cast(tf.shape(y_true)[-1], dtype)
    return y_true * (1.0 - label_smoothing) + (label_smoothing / num_classes)


def _check_int_axis(axis):
    if isinstance(axis, bool):
        raise ValueError(f"`axis` must be of type `int`. Received: axis={axis} of type {type(axis)}")


def _warn_single_class(fn_name, y_pred):
    if y_pred.shape[-1] == 1:
        warn_for_user(f"In loss {fn_name}, expected y_pred.shape to be (batch_size, num_classes) with num_classes > 1. "
                      f"Received: y_pred.shape={y_pred.shape}. Consider using 'binary_crossentropy' if you only have "
                      "2 classes.", SyntaxWarning)


def binary_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0.0, axis=-1):
    """Binary crossentropy averaged over ``axis``.

    Parameters
    ----------
    y_true : tensor-like
        Labels in [0, 1], shape as ``y_pred``.
    y_pred : tensor-like
        Probabilities, or logits when ``from_logits``.
    label_smoothing : float
        Labels move towards 0.5 by this fraction.
    axis : int
        The axis averaged over.

    Returns
    -------
    Tensor
        ``y_pred``'s shape without ``axis``.
    """
    y_true, y_pred = _prediction_and_target(y_true, y_pred)
    if label_smoothing:
        y_true = _smooth_binary_labels(y_true, label_smoothing)
    return tf.reduce_mean(ops_nn.binary_crossentropy(y_true, y_pred, from_logits=from_logits), axis=axis)


def binary_focal_crossentropy(y_true, y_pred, apply_class_balancing=False, alpha=0.25, gamma=2.0, from_logits=False,
                              label_smoothing=0.0, axis=-1):
    """Binary crossentropy scaled by ``(1 - p_t) ** gamma`` (and by ``alpha``/``1 - alpha`` when balancing),
    averaged over ``axis``."""
    y_true, y_pred = _prediction_and_target(y_true, y_pred)
    if label_smoothing:
        y_true = _smooth_binary_labels(y_true, label_smoothing)
    if from_logits:
        # The sigmoid keeps its logits on its output: the crossentropy below works from them.
        y_pred = ops_nn.sigmoid(y_pred)
    bce = ops_nn.binary_crossentropy(y_true, y_pred, from_logits=False)
    p_t = y_true * y_pred + (1 - y_true) * (1 - y_pred)
    focal_bce = tf.pow(1.0 - p_t, gamma) * bce
    if apply_class_balancing:
        focal_bce = (y_true * alpha + (1 - y_true) * (1 - alpha)) * focal_bce
    return tf.reduce_mean(focal_bce, axis=axis)


def categorical_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0.0, axis=-1):
    """Categorical crossentropy of one-hot (or soft) labels, summed over the class ``axis``.

    Parameters
    ----------
    y_true : tensor-like
        Class probabilities, shape as ``y_pred``.
    y_pred : tensor-like
        Probabilities (renormalised to sum to 1), or logits when ``from_logits``.
    label_smoothing : float
        Labels move towards ``1 / num_classes`` by this fraction.
    axis : int
        The class axis.
    """
    _check_int_axis(axis)
    y_true, y_pred = _prediction_and_target(y_true, y_pred)
    _warn_single_class("categorical_crossentropy", y_pred)
    if label_smoothing:
        y_true = _smooth_categorical_labels(y_true, label_smoothing, y_pred.dtype)
    return ops_nn.categorical_crossentropy(y_true, y_pred, from_logits=from_logits, axis=axis)


def categorical_focal_crossentropy(y_true, y_pred, alpha=0.25, gamma=2.0, from_logits=False, label_smoothing=0.0,
                                   axis=-1):
    """Categorical crossentropy with each class term scaled by ``alpha * (1 - p) ** gamma``, summed over ``axis``."""
    _check_int_axis(axis)
    y_true, y_pred = _prediction_and_target(y_true, y_pred)
    _warn_single_class("categorical_focal_crossentropy", y_pred)
    if label_smoothing:
        y_true = _smooth_categorical_labels(y_true, label_smoothing, y_pred.dtype)
    if from_logits:
        y_pred = ops_nn.softmax(y_pred, axis=axis)
    output = _clip_probabilities(y_pred / tf.reduce_sum(y_pred, axis=axis, keepdims=True))
    cce = -y_true * tf.math.log(output)
    weighting = tf.pow(1.0 - output, gamma) * alpha
    return tf.reduce_sum(weighting * cce, axis=axis)


def sparse_categorical_crossentropy(y_true, y_pred, from_logits=False, ignore_class=None, axis=-1):
    """Categorical crossentropy of integer labels (``y_true`` has ``y_pred``'s shape without the class axis).

    ``ignore_class``: entries with this label contribute 0 and are masked out of mean reductions
    (the mask is attached to the result as ``_keras_mask``).
    """
    y_true, y_pred = conventions.convert(y_true), conventions.convert(y_pred)
    if len(y_true.shape) == len(y_pred.shape) and y_true.shape[axis] == 1:
        y_true = tf.squeeze(y_true, axis=axis)
    if ignore_class is not None:
        class_axis = axis % len(y_pred.shape)
        loss_shape = [dim for i, dim in enumerate(y_pred.shape) if i != class_axis]
        valid = tf.not_equal(y_true, tf.cast(ignore_class, y_true.dtype))
        y_true = tf.where(valid, y_true, tf.zeros((), y_true.dtype))
        y_pred = tf.where(tf.expand_dims(valid, axis), y_pred, tf.zeros((), y_pred.dtype))
    losses = ops_nn.sparse_categorical_crossentropy(y_true, y_pred, from_logits=from_logits, axis=axis)
    if ignore_class is not None:
        valid = tf.reshape(valid, loss_shape)
        losses = tf.where(valid, losses, tf.zeros((), losses.dtype))
        layer_call.set_keras_mask(losses, valid)
    return losses


def kl_divergence(y_true, y_pred):
    """Kullback-Leibler divergence ``sum(y_true * log(y_true / y_pred))`` over the last axis (both clipped to
    [eps, 1])."""
    y_true, y_pred = _prediction_and_target(y_true, y_pred)
    eps = conventions.epsilon()
    y_true = tf.clip_by_value(y_true, eps, 1)
    y_pred = tf.clip_by_value(y_pred, eps, 1)
    return tf.reduce_sum(y_true * tf.math.log(y_true / y_pred), axis=-1)


def poisson(y_true, y_pred):
    """Poisson loss ``mean(y_pred - y_true * log(y_pred + eps))`` over the last axis."""
    y_true, y_pred = _prediction_and_target(y_true, y_pred)
    eps = conventions.convert(conventions.epsilon(), conventions.dtype_name(y_pred))
    return tf.reduce_mean(y_pred - y_true * tf.math.log(y_pred + eps), axis=-1)


def categorical_generalized_cross_entropy(y_true, y_pred, q):
    """Generalized crossentropy ``(1 - p ** q) / q`` of the probability ``p`` given to each integer label."""
    y_pred = conventions.convert(y_pred)
    labels = tf.cast(conventions.convert(y_true), "int64")
    one_hot = tf.cast(tf.one_hot(labels, y_pred.shape[-1]), y_pred.dtype)
    p = tf.reduce_sum(y_pred * one_hot, axis=-1)
    return (1 - tf.pow(p, q)) / q
