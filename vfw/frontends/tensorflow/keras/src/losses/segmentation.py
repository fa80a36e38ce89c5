"""Overlap losses for segmentation (Dice, Tversky) and the Circle loss for embeddings.

Dice and Tversky sum over ``axis`` (every axis by default, giving one scalar for the batch).
"""

import vfw.tensorflow as tf
from vfw.frontends.tensorflow.keras.src.engine import layer_call
from vfw.frontends.tensorflow.keras.src.losses import conventions


def _prediction_and_target(y_true, y_pred):
    y_pred = conventions.convert(y_pred)
    return conventions.convert(y_true, conventions.dtype_name(y_pred)), y_pred


def dice(y_true, y_pred, axis=None):
    """``1 - 2 |y_true * y_pred| / (|y_true| + |y_pred| + eps)``, sums over ``axis`` (None: all axes)."""
    y_true, y_pred = _prediction_and_target(y_true, y_pred)
    intersection = tf.reduce_sum(y_true * y_pred, axis=axis)
    union = tf.reduce_sum(y_true, axis=axis) + tf.reduce_sum(y_pred, axis=axis) + conventions.epsilon()
    return 1 - tf.divide(2.0 * intersection, union)


def tversky(y_true, y_pred, alpha=0.5, beta=0.5, axis=None):
    """``1 - TP / (TP + alpha FP + beta FN + eps)`` with soft counts summed over ``axis`` (None: all axes)."""
    y_true, y_pred = _prediction_and_target(y_true, y_pred)
    true_positives = tf.reduce_sum(y_true * y_pred, axis=axis)
    false_positives = tf.reduce_sum((1 - y_pred) * y_true, axis=axis)
    false_negatives = tf.reduce_sum(y_pred * (1 - y_true), axis=axis)
    denominator = true_positives + false_positives * alpha + false_negatives * beta + conventions.epsilon()
    return 1 - tf.divide(true_positives, denominator)


def _positive_negative_masks(query_labels, key_labels, remove_diagonal):
    """Boolean ``(positive, negative)`` pair masks: same label / different label (self-pairs dropped from positives)."""
    if len(query_labels.shape) == 1:
        query_labels = tf.reshape(query_labels, (-1, 1))
    if len(key_labels.shape) == 1:
        key_labels = tf.reshape(key_labels, (-1, 1))
    positive = tf.equal(query_labels, tf.transpose(key_labels))
    negative = tf.logical_not(positive)
    if remove_diagonal:
        off_diagonal = tf.logical_not(tf.cast(tf.eye(tf.size(query_labels), tf.size(key_labels)), "bool"))
        positive = tf.logical_and(positive, off_diagonal)
    return positive, negative


def circle(y_true, y_pred, ref_labels=None, ref_embeddings=None, remove_diagonal=True, gamma=80, margin=0.4):
    """Circle loss of L2-normalised embeddings ``y_pred`` with integer labels ``y_true``, one value per sample.

    Pairs are formed against ``ref_embeddings``/``ref_labels`` (default: the batch itself). Samples
    without any positive or negative pair get 0 and are masked out (``_keras_mask``).
    """
    y_pred = conventions.convert(y_pred)
    y_true = tf.cast(conventions.convert(y_true), "int32")
    ref_embeddings = y_pred if ref_embeddings is None else conventions.convert(ref_embeddings)
    ref_labels = y_true if ref_labels is None else tf.cast(conventions.convert(ref_labels), "int32")
    distances = tf.maximum(1 - tf.matmul(y_pred, tf.transpose(ref_embeddings)), 0.0)
    positive, negative = _positive_negative_masks(y_true, ref_labels, remove_diagonal)
    positive_weights = tf.maximum((margin + distances) * tf.cast(positive, distances.dtype), 0.0)
    negative_weights = tf.maximum((1 + margin - distances) * tf.cast(negative, distances.dtype), 0.0)
    positive_terms = -1 * gamma * positive_weights * (margin - distances)
    negative_terms = gamma * negative_weights * ((1 - margin) - distances)
    minus_inf = tf.constant(float("-inf"), distances.dtype)
    positive_loss = tf.reduce_logsumexp(tf.where(positive, positive_terms, minus_inf), axis=1)
    negative_loss = tf.reduce_logsumexp(tf.where(negative, negative_terms, minus_inf), axis=1)
    losses = tf.nn.softplus(positive_loss + negative_loss)
    layer_call.set_keras_mask(losses, losses > 0)
    return losses
