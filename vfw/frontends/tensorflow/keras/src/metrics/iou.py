"""Intersection-over-union metrics (semantic segmentation): IoU, MeanIoU, BinaryIoU, OneHotIoU, OneHotMeanIoU.

The state is a ``(num_classes, num_classes)`` confusion matrix (rows: labels, columns:
predictions), in an integer dtype by default. The IoU of class ``c`` is
``TP / (TP + FP + FN)``; the result averages it over the target classes that occurred.
"""

import vfw.tensorflow as tf
from vfw.frontends._warnings import warn_for_user
from vfw.frontends.tensorflow.keras.src.initializers import Zeros
from vfw.frontends.tensorflow.keras.src.losses import conventions
from vfw.frontends.tensorflow.keras.src.metrics.metric import Metric
from vfw.frontends.tensorflow.keras.src.ops.numpy_reduce import argmax


def confusion_matrix(labels, predictions, num_classes, weights=None, dtype="int32"):
    """The ``(num_classes, num_classes)`` matrix of (weighted) counts of each (label, prediction) pair."""
    labels = tf.cast(conventions.convert(labels, dtype), "int64")
    predictions = tf.cast(conventions.convert(predictions, dtype), "int64")
    values = tf.ones_like(predictions, dtype) if weights is None else conventions.convert(weights, dtype)
    return tf.scatter_nd(tf.stack([labels, predictions], axis=1), values, (int(num_classes), int(num_classes)))


class _IoUBase(Metric):
    """Accumulates the confusion matrix of class labels and predicted classes."""

    _direction = "up"

    def __init__(self, num_classes, name=None, dtype=None, ignore_class=None, sparse_y_true=True,
                 sparse_y_pred=True, axis=-1):
        super().__init__(name=name, dtype=dtype or "int")
        self.num_classes = num_classes
        self.ignore_class = ignore_class
        self.sparse_y_true = sparse_y_true
        self.sparse_y_pred = sparse_y_pred
        self.axis = axis
        self.total_cm = self.add_variable(name="total_confusion_matrix", shape=(num_classes, num_classes),
                                          initializer=Zeros(), dtype=self.dtype)

    def update_state(self, y_true, y_pred, sample_weight=None):
        """Add the batch's (weighted) label/prediction pairs; out-of-range and ignored labels are dropped."""
        if not self.sparse_y_true:
            y_true = argmax(y_true, axis=self.axis)
        if not self.sparse_y_pred:
            y_pred = argmax(y_pred, axis=self.axis)
        y_true = tf.reshape(conventions.convert(y_true, self.dtype), [-1])
        y_pred = tf.reshape(conventions.convert(y_pred, self.dtype), [-1])
        if sample_weight is None:
            sample_weight = 1
        elif "float" in str(getattr(sample_weight, "dtype", "")) and "int" in self.dtype:
            warn_for_user("You are passing weight as `float`, but dtype is `int`. This may result in an incorrect "
                          "weight due to type casting Consider using integer weights.")
        sample_weight = conventions.convert(sample_weight, self.dtype)
        if len(sample_weight.shape) > 1:
            sample_weight = tf.reshape(sample_weight, [-1])
        sample_weight = tf.broadcast_to(sample_weight, tf.shape(y_true))
        num_classes = tf.constant(self.num_classes, y_true.dtype)
        in_range = tf.logical_and(tf.logical_and(y_true >= 0, y_true < num_classes),
                                  tf.logical_and(y_pred >= 0, y_pred < num_classes))
        if self.ignore_class is not None:
            in_range = tf.logical_and(in_range, tf.not_equal(y_true, tf.cast(self.ignore_class, y_true.dtype)))
        zero = tf.zeros((), y_true.dtype)
        y_true = tf.where(in_range, y_true, zero)
        y_pred = tf.where(in_range, y_pred, zero)
        sample_weight = tf.where(in_range, sample_weight, tf.zeros((), sample_weight.dtype))
        batch_matrix = confusion_matrix(y_true, y_pred, self.num_classes, weights=sample_weight, dtype=self.dtype)
        return self.total_cm.assign(self.total_cm + batch_matrix)

    def reset_state(self):
        self.total_cm.assign(tf.zeros(self.total_cm.shape, dtype=self.total_cm.dtype))


class IoU(_IoUBase):
    """Mean IoU over ``target_class_ids`` (classes absent from labels and predictions are left out).

    Parameters
    ----------
    num_classes : int
    target_class_ids : list of int
        The classes whose IoU is averaged.
    ignore_class : int, optional
        Labels of this class are not counted.
    sparse_y_true, sparse_y_pred : bool
        Whether labels / predictions are class indices (else one score per class on ``axis``).
    axis : int
        The class axis of non-sparse inputs.
    """

    def __init__(self, num_classes, target_class_ids, name=None, dtype=None, ignore_class=None, sparse_y_true=True,
                 sparse_y_pred=True, axis=-1):
        super().__init__(name=name, num_classes=num_classes, ignore_class=ignore_class, sparse_y_true=sparse_y_true,
                         sparse_y_pred=sparse_y_pred, axis=axis, dtype=dtype)
        if max(target_class_ids) >= num_classes:
            raise ValueError(f"Target class id {max(target_class_ids)} is out of range, which is [0, {num_classes}).")
        self.target_class_ids = list(target_class_ids)

    def result(self):
        matrix = tf.convert_to_tensor(self.total_cm)
        predicted = tf.cast(tf.reduce_sum(matrix, axis=0), self.dtype)
        actual = tf.cast(tf.reduce_sum(matrix, axis=1), self.dtype)
        true_positives = tf.cast(tf.linalg.diag_part(matrix), self.dtype)
        union = predicted + actual - true_positives
        targets = tf.constant(self.target_class_ids, "int64")
        true_positives = tf.cast(tf.gather(true_positives, targets), "float32")
        union = tf.cast(tf.gather(union, targets), "float32")
        valid = tf.greater(union, 1e-9)
        iou = tf.where(valid, tf.divide(true_positives, union + conventions.epsilon()), tf.zeros((), "float32"))
        return tf.divide(tf.reduce_sum(iou, axis=self.axis), tf.reduce_sum(tf.cast(valid, "float32")) +
                         conventions.epsilon())

    def get_config(self):
        return {**super().get_config(), "num_classes": self.num_classes, "target_class_ids": self.target_class_ids,
                "ignore_class": self.ignore_class, "sparse_y_true": self.sparse_y_true,
                "sparse_y_pred": self.sparse_y_pred, "axis": self.axis}


class BinaryIoU(IoU):
    """IoU of binary labels with predictions thresholded at ``threshold`` (``>=``), over ``target_class_ids``."""

    def __init__(self, target_class_ids=(0, 1), threshold=0.5, name=None, dtype=None):
        super().__init__(num_classes=2, target_class_ids=target_class_ids, name=name, dtype=dtype)
        self.threshold = threshold

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_true = conventions.convert(y_true, self.dtype)
        y_pred = tf.cast(conventions.convert(y_pred, "float32") >= self.threshold, self.dtype)
        return super().update_state(y_true, y_pred, sample_weight)

    def get_config(self):
        return {"target_class_ids": self.target_class_ids, "threshold": self.threshold, "name": self.name,
                "dtype": self.dtype}


class MeanIoU(IoU):
    """IoU averaged over every class."""

    def __init__(self, num_classes, name=None, dtype=None, ignore_class=None, sparse_y_true=True, sparse_y_pred=True,
                 axis=-1):
        super().__init__(name=name, num_classes=num_classes, target_class_ids=list(range(num_classes)), axis=axis,
                         dtype=dtype, ignore_class=ignore_class, sparse_y_true=sparse_y_true,
                         sparse_y_pred=sparse_y_pred)

    def get_config(self):
        return {"num_classes": self.num_classes, "name": self.name, "dtype": self.dtype,
                "ignore_class": self.ignore_class, "sparse_y_true": self.sparse_y_true,
                "sparse_y_pred": self.sparse_y_pred, "axis": self.axis}


class OneHotIoU(IoU):
    """IoU over ``target_class_ids`` for one-hot labels (and scores per class unless ``sparse_y_pred``)."""

    def __init__(self, num_classes, target_class_ids, name=None, dtype=None, ignore_class=None, sparse_y_pred=False,
                 axis=-1):
        super().__init__(num_classes=num_classes, target_class_ids=target_class_ids, name=name, dtype=dtype,
                         ignore_class=ignore_class, sparse_y_true=False, sparse_y_pred=sparse_y_pred, axis=axis)

    def get_config(self):
        return {"num_classes": self.num_classes, "target_class_ids": self.target_class_ids, "name": self.name,
                "dtype": self.dtype, "ignore_class": self.ignore_class, "sparse_y_pred": self.sparse_y_pred,
                "axis": self.axis}


class OneHotMeanIoU(MeanIoU):
    """IoU averaged over every class, for one-hot labels (and scores per class unless ``sparse_y_pred``)."""

    def __init__(self, num_classes, name=None, dtype=None, ignore_class=None, sparse_y_pred=False, axis=-1):
        super().__init__(num_classes=num_classes, axis=axis, name=name, dtype=dtype, ignore_class=ignore_class,
                         sparse_y_true=False, sparse_y_pred=sparse_y_pred)

    def get_config(self):
        return {"num_classes": self.num_classes, "name": self.name, "dtype": self.dtype,
                "ignore_class": self.ignore_class, "sparse_y_pred": self.sparse_y_pred, "axis": self.axis}
