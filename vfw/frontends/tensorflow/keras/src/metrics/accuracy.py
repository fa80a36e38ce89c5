"""Accuracy metrics: exact match, binary (thresholded), categorical, sparse categorical and top-k.

The functions return one 0./1. match per sample (in ``floatx()``); the classes average them
with ``MeanMetricWrapper``. Class predictions use Keras' argmax (``keras.ops.argmax``: int32
indices, ``-0.0`` ranks below ``0.0``).
"""

import vfw.tensorflow as tf
from vfw.frontends.tensorflow.keras.src.backend import dtypes as backend_dtypes
from vfw.frontends.tensorflow.keras.src.losses import conventions
from vfw.frontends.tensorflow.keras.src.losses.loss import squeeze_or_expand_to_same_rank
from vfw.frontends.tensorflow.keras.src.metrics.reduction import BuiltinMeanMetric
from vfw.frontends.tensorflow.keras.src.ops.numpy_reduce import argmax


def _matches(y_true, y_pred):
    """0./1. (``floatx()``) where ``y_true == y_pred``."""
    return tf.cast(tf.equal(y_true, y_pred), conventions.floatx())


def accuracy(y_true, y_pred):
    """1. where ``y_pred`` equals ``y_true`` exactly, else 0. (element by element)."""
    y_pred = conventions.convert(y_pred)
    y_true = conventions.convert(y_true, conventions.dtype_name(y_pred))
    y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
    return _matches(y_true, y_pred)


def binary_accuracy(y_true, y_pred, threshold=0.5):
    """1. where ``(y_pred > threshold)`` equals the 0/1 label ``y_true``, else 0. (element by element)."""
    y_pred, y_true = conventions.convert(y_pred), conventions.convert(y_true)
    threshold = conventions.convert(threshold)
    y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
    compare_dtype = backend_dtypes.result_type(conventions.dtype_name(y_pred), conventions.dtype_name(threshold))
    above = tf.greater(tf.cast(y_pred, compare_dtype), tf.cast(threshold, compare_dtype))
    return _matches(y_true, tf.cast(above, y_true.dtype))


def _class_matches(y_true, y_pred, squeeze_only_unit):
    """Matches of class labels ``y_true`` (float, one axis less than ``y_pred`` or a trailing 1) and argmax(y_pred)."""
    original_shape = y_true.shape
    reshape_matches = len(y_true.shape) == len(y_pred.shape) and (not squeeze_only_unit or y_true.shape[-1] == 1)
    if reshape_matches:
        y_true = tf.squeeze(y_true, -1)
    predicted = tf.cast(argmax(y_pred, axis=-1), y_true.dtype)
    matches = _matches(y_true, predicted)
    return tf.reshape(matches, original_shape) if reshape_matches else matches


def categorical_accuracy(y_true, y_pred):
    """1. where the argmax of ``y_pred`` is the argmax of the one-hot ``y_true``, else 0. (one per sample)."""
    labels = argmax(y_true, axis=-1)
    y_pred = conventions.convert(y_pred)
    return _class_matches(tf.cast(labels, y_pred.dtype), y_pred, squeeze_only_unit=False)


def sparse_categorical_accuracy(y_true, y_pred):
    """1. where the argmax of ``y_pred`` is the integer label ``y_true``, else 0. (one per sample)."""
    y_pred = conventions.convert(y_pred)
    y_true = conventions.convert(y_true, conventions.dtype_name(y_pred))
    matches = _class_matches(y_true, y_pred, squeeze_only_unit=True)
    if len(matches.shape) > 1 and matches.shape[-1] == 1:
        matches = tf.squeeze(matches, -1)
    return matches


def _top_k_matches(labels, y_pred, k, from_sorted_ids=False):
    """Whether each integer label is among the top ``k`` predictions (rows of ``y_pred``); ``labels``' shape."""
    original_shape = labels.shape
    if len(y_pred.shape) > 2:
        y_pred = tf.reshape(y_pred, [-1, y_pred.shape[-1]])
    if len(labels.shape) > 1:
        labels = tf.reshape(labels, [-1])
    if from_sorted_ids:
        # The first k ids are the top k; ``any`` counts a label listed twice once.
        found = tf.reduce_any(tf.equal(tf.expand_dims(labels, axis=1), y_pred[:, :k]), axis=1)
    else:
        found = tf.math.in_top_k(labels, y_pred, k)
    return tf.reshape(tf.cast(found, conventions.floatx()), original_shape)


def top_k_categorical_accuracy(y_true, y_pred, k=5):
    """1. where the argmax of the one-hot ``y_true`` is among the ``k`` largest ``y_pred``, else 0."""
    y_pred = conventions.convert(y_pred)
    labels = argmax(conventions.convert(y_true, conventions.dtype_name(y_pred)), axis=-1)
    return _top_k_matches(labels, y_pred, k)


def sparse_top_k_categorical_accuracy(y_true, y_pred, k=5, from_sorted_ids=False):
    """1. where the integer label ``y_true`` is among the ``k`` largest ``y_pred``, else 0.

    With ``from_sorted_ids``, ``y_pred`` holds class ids sorted by score and the first ``k`` count.
    """
    y_pred = conventions.convert(y_pred)
    labels = conventions.convert(y_true, conventions.dtype_name(y_pred) if from_sorted_ids else "int32")
    return _top_k_matches(labels, y_pred, k, from_sorted_ids)


class Accuracy(BuiltinMeanMetric):
    """How often predictions equal labels exactly."""

    _direction = "up"

    def __init__(self, name="accuracy", dtype=None):
        super().__init__(accuracy, name, dtype)


class BinaryAccuracy(BuiltinMeanMetric):
    """How often ``y_pred > threshold`` matches the 0/1 labels."""

    _direction = "up"
    _config_keys = ("threshold",)

    def __init__(self, name="binary_accuracy", dtype=None, threshold=0.5):
        super().__init__(binary_accuracy, name, dtype, threshold=threshold)


class CategoricalAccuracy(BuiltinMeanMetric):
    """How often the predicted class (argmax) matches the one-hot label."""

    _direction = "up"

    def __init__(self, name="categorical_accuracy", dtype=None):
        super().__init__(categorical_accuracy, name, dtype)


class SparseCategoricalAccuracy(BuiltinMeanMetric):
    """How often the predicted class (argmax) matches the integer label."""

    _direction = "up"

    def __init__(self, name="sparse_categorical_accuracy", dtype=None):
        super().__init__(sparse_categorical_accuracy, name, dtype)


class TopKCategoricalAccuracy(BuiltinMeanMetric):
    """How often the one-hot label is among the ``k`` highest predictions."""

    _direction = "up"
    _config_keys = ("k",)

    def __init__(self, k=5, name="top_k_categorical_accuracy", dtype=None):
        super().__init__(top_k_categorical_accuracy, name, dtype, k=k)


class SparseTopKCategoricalAccuracy(BuiltinMeanMetric):
    """How often the integer label is among the ``k`` highest predictions (or the first ``k`` sorted ids)."""

    _direction = "up"
    _config_keys = ("k",)

    def __init__(self, k=5, name="sparse_top_k_categorical_accuracy", dtype=None, from_sorted_ids=False):
        super().__init__(sparse_top_k_categorical_accuracy, name, dtype, k=k, from_sorted_ids=from_sorted_ids)
        self.from_sorted_ids = from_sorted_ids

    def get_config(self):
        config = super().get_config()
        if self.from_sorted_ids:
            config["from_sorted_ids"] = True
        return config
