"""Thresholded confusion-matrix counts, the state behind Precision, Recall, AUC and the TP/FP/TN/FN metrics.

``update_confusion_matrix_variables`` adds one batch's (weighted) counts of true/false
positives/negatives at every threshold to state variables: a prediction is positive at threshold
``t`` when it is greater than ``t``; a label is positive when non-zero. Two ways, as in Keras:

- thresholds evenly spread over [0, 1] (three or more, e.g. AUC's): each prediction falls in a
  bucket ``ceil(p * (n - 1)) - 1`` and the counts above each threshold are reversed cumulative sums
  of per-bucket sums (O(n + batch));
- any other thresholds: every prediction is compared with every threshold.
"""

import numpy as np

import vfw.tensorflow as tf
from vfw.frontends.tensorflow.keras.src.losses import conventions
from vfw.frontends.tensorflow.keras.src.losses.loss import squeeze_or_expand_to_same_rank

# The threshold Precision and Recall use with ``top_k`` (every kept prediction is positive).
NEG_INF = -1e10
TRUE_POSITIVES, FALSE_POSITIVES, TRUE_NEGATIVES, FALSE_NEGATIVES = "tp", "fp", "tn", "fn"


def as_list(value):
    """``value`` itself when a list, else ``[value]`` (Keras' ``to_list``)."""
    return value if isinstance(value, list) else [value]


def parse_init_thresholds(thresholds, default_threshold=0.5):
    """A metric's ``thresholds`` argument as a list (``[default_threshold]`` when None), each checked in [0, 1]."""
    if thresholds is None:
        return [default_threshold]
    thresholds = as_list(thresholds)
    invalid = [t for t in thresholds if t is None or t < 0 or t > 1]
    if invalid:
        raise ValueError(f"Threshold values must be in [0, 1]. Received: {invalid}")
    return thresholds


def is_evenly_distributed_thresholds(thresholds):
    """Whether ``thresholds`` (three or more) are ``0, 1/(n-1), ..., 1`` (to within epsilon)."""
    count = len(thresholds)
    if count < 3:
        return False
    even = np.arange(count, dtype=np.float32) / (count - 1)
    return bool(np.allclose(thresholds, even, atol=conventions.epsilon()))


def _keep_top_k(y_pred, k):
    """``y_pred`` with all but the ``k`` largest entries of each row set to NEG_INF."""
    _, top_indices = tf.math.top_k(y_pred, k)
    in_top = tf.reduce_sum(tf.one_hot(top_indices, y_pred.shape[-1], dtype=y_pred.dtype), axis=-2)
    return y_pred * in_top + NEG_INF * (1 - in_top)


def update_confusion_matrix_variables(variables_to_update, y_true, y_pred, thresholds, top_k=None, class_id=None,
                                      sample_weight=None, multi_label=False, label_weights=None,
                                      thresholds_distributed_evenly=False):
    """Add one batch's confusion counts at each threshold to the given state variables.

    Parameters
    ----------
    variables_to_update : dict
        ``{TRUE_POSITIVES | FALSE_POSITIVES | TRUE_NEGATIVES | FALSE_NEGATIVES: variable}``; each
        variable has shape ``(num_thresholds,)`` (``(num_thresholds, num_labels)`` with ``multi_label``).
    y_true, y_pred : tensor-like
        Labels (non-zero is positive) and predictions in [0, 1], of one shape.
    thresholds : list of float
    top_k : int, optional
        Only each row's ``top_k`` largest predictions may count as positive.
    class_id : int, optional
        Count only this class (last axis).
    sample_weight : tensor-like, optional
        Broadcast against the predictions.
    multi_label : bool
        Keep the counts of each label (last axis) apart instead of pooling every entry.
    label_weights : tensor-like, optional
        Per-label weights (pooled counts only).
    thresholds_distributed_evenly : bool
        Use the bucket algorithm (the thresholds are ``0, 1/(n-1), ..., 1``, possibly widened by epsilon).
    """
    if multi_label and label_weights is not None:
        raise ValueError("`label_weights` for multilabel data should be handled outside of "
                         "`update_confusion_matrix_variables` when `multi_label` is True.")
    dtype = next(iter(variables_to_update.values())).dtype
    y_true = tf.cast(conventions.convert(y_true), dtype)
    y_pred = tf.cast(conventions.convert(y_pred), dtype)
    y_pred, y_true = squeeze_or_expand_to_same_rank(y_pred, y_true)
    if sample_weight is not None:
        sample_weight = tf.expand_dims(tf.cast(conventions.convert(sample_weight), dtype), axis=-1)
        _, sample_weight = squeeze_or_expand_to_same_rank(y_true, sample_weight, expand_rank_1=False)
    if top_k is not None:
        y_pred = _keep_top_k(y_pred, top_k)
    if class_id is not None:
        if len(y_pred.shape) == 1:
            raise ValueError("When class_id is provided, y_pred must be a 2D array with shape (num_samples, "
                             f"num_classes), found shape: {y_pred.shape}")
        y_true = y_true[..., class_id, None]
        y_pred = y_pred[..., class_id, None]
    if label_weights is not None:
        label_weights = tf.broadcast_to(tf.expand_dims(conventions.convert(label_weights, dtype), 0), tf.shape(y_pred))
    if sample_weight is not None:
        sample_weight = tf.broadcast_to(sample_weight, tf.shape(y_pred))
    if thresholds_distributed_evenly:
        counts = _bucketed_counts(y_true, y_pred, len(thresholds), sample_weight, label_weights, multi_label,
                                  widened=thresholds[0] < 0.0 or thresholds[-1] > 1.0)
    else:
        counts = _compared_counts(y_true, y_pred, conventions.convert(thresholds, dtype), sample_weight,
                                  label_weights, multi_label)
    for kind, variable in variables_to_update.items():
        variable.assign(variable + counts(kind))


def _combined_weights(sample_weight, label_weights):
    """The product of the weights that are present (None when neither is)."""
    if sample_weight is None:
        return label_weights
    if label_weights is None:
        return sample_weight
    return sample_weight * label_weights


def _compared_counts(y_true, y_pred, thresholds, sample_weight, label_weights, multi_label):
    """``counts(kind)`` from comparing every prediction with every threshold (broadcast over a threshold axis)."""
    num_thresholds = thresholds.shape[0]
    if multi_label:
        entries_shape = [1] + y_pred.shape.as_list()  # (1, batch, labels)
        thresholds = tf.reshape(thresholds, [num_thresholds, 1, 1])
    else:
        entries_shape = [1, -1]  # every entry pooled
        thresholds = tf.reshape(thresholds, [num_thresholds, 1])
    predicted_positive = tf.greater(tf.reshape(y_pred, entries_shape), thresholds)
    label_positive = tf.reshape(tf.cast(y_true, "bool"), entries_shape)
    weights = _combined_weights(sample_weight, None if multi_label else label_weights)
    if weights is not None:
        weights = tf.reshape(weights, entries_shape)
    conditions = {
        TRUE_POSITIVES: lambda: (label_positive, predicted_positive),
        FALSE_POSITIVES: lambda: (tf.logical_not(label_positive), predicted_positive),
        TRUE_NEGATIVES: lambda: (tf.logical_not(label_positive), tf.logical_not(predicted_positive)),
        FALSE_NEGATIVES: lambda: (label_positive, tf.logical_not(predicted_positive)),
    }

    def counts(kind):
        label_condition, prediction_condition = conditions[kind]()
        both = tf.logical_and(label_condition, prediction_condition)
        both = tf.broadcast_to(both, tf.shape(predicted_positive))
        if weights is None:
            hits = tf.cast(both, y_pred.dtype)
        else:
            hits = tf.where(both, tf.broadcast_to(weights, tf.shape(both)), tf.zeros((), y_pred.dtype))
        return tf.reduce_sum(hits, axis=1)

    return counts


def _bucketed_counts(y_true, y_pred, num_thresholds, sample_weight, label_weights, multi_label, widened):
    """``counts(kind)`` by the bucket algorithm for evenly spread thresholds (``widened``: the first is below 0)."""
    weights = _combined_weights(sample_weight, label_weights)
    y_pred = tf.clip_by_value(y_pred, 0.0, 1.0)
    y_true = tf.cast(tf.cast(y_true, "bool"), y_true.dtype)
    if not multi_label:
        y_true, y_pred = tf.reshape(y_true, [-1]), tf.reshape(y_pred, [-1])
        if weights is not None:
            weights = tf.reshape(weights, [-1])
    if weights is None:
        weights = tf.ones((), y_true.dtype)
    true_labels = y_true * weights
    false_labels = (1.0 - y_true) * weights
    buckets = tf.math.ceil(y_pred * (tf.cast(num_thresholds, y_pred.dtype) - 1)) - 1
    if widened:
        # The first threshold is just below 0: a prediction of exactly 0 is positive there.
        buckets = tf.nn.relu(buckets)
    buckets = tf.cast(buckets, "int32")
    if multi_label:
        num_labels = y_pred.shape[-1]
        # One segment range per label: label j's bucket b is segment j * num_thresholds + b (negative: dropped).
        offsets = tf.range(num_labels) * num_thresholds
        buckets = tf.where(buckets < 0, buckets, buckets + offsets)

    def above_thresholds(labels):
        """Sum of ``labels`` over the predictions above each threshold."""
        if not multi_label:
            per_bucket = tf.math.unsorted_segment_sum(labels, buckets, num_thresholds)
            return tf.reverse(tf.cumsum(tf.reverse(per_bucket, [0])), [0])
        per_bucket = tf.math.unsorted_segment_sum(labels, buckets, num_thresholds * num_labels)
        per_bucket = tf.reshape(per_bucket, [num_labels, num_thresholds])
        return tf.transpose(tf.reverse(tf.cumsum(tf.reverse(per_bucket, [0, 1]), axis=1), [0, 1]))

    cache = {}

    def counts(kind):
        if TRUE_POSITIVES not in cache:
            cache[TRUE_POSITIVES] = above_thresholds(true_labels)
            cache[FALSE_POSITIVES] = above_thresholds(false_labels)
        if kind in (TRUE_POSITIVES, FALSE_POSITIVES):
            return cache[kind]
        if kind == TRUE_NEGATIVES:
            total_false = tf.reduce_sum(false_labels, axis=0) if multi_label else tf.reduce_sum(false_labels)
            return total_false - cache[FALSE_POSITIVES]
        total_true = tf.reduce_sum(true_labels, axis=0) if multi_label else tf.reduce_sum(true_labels)
        return total_true - cache[TRUE_POSITIVES]

    return counts
