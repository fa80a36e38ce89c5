"""Confusion-matrix metrics: TP/FP/TN/FN counts, Precision, Recall, and the X-at-Y metrics.

Their state is a vector of counts per threshold (see ``confusion_utils``); a metric with a single
threshold reports a scalar.
"""

import vfw.tensorflow as tf
from vfw.frontends.tensorflow.keras.src.initializers import Zeros
from vfw.frontends.tensorflow.keras.src.metrics import confusion_utils as utils
from vfw.frontends.tensorflow.keras.src.metrics.metric import Metric

_COUNT_NAMES = {utils.TRUE_POSITIVES: "true_positives", utils.FALSE_POSITIVES: "false_positives",
                utils.TRUE_NEGATIVES: "true_negatives", utils.FALSE_NEGATIVES: "false_negatives"}


class _ThresholdedMetric(Metric):
    """A metric counting some confusion-matrix cells at ``self.thresholds``.

    Subclasses list the cells in ``_counted`` (each becomes a variable named like ``true_positives``)
    and set ``thresholds``, ``_thresholds_distributed_evenly``, ``class_id`` and ``top_k``
    before calling ``_add_count_variables``.
    """

    _counted = ()
    class_id = None
    top_k = None

    def _add_count_variables(self):
        for kind in self._counted:
            setattr(self, _COUNT_NAMES[kind], self.add_variable(shape=(len(self.thresholds),), initializer=Zeros(),
                                                                  name=_COUNT_NAMES[kind]))

    def update_state(self, y_true, y_pred, sample_weight=None):
        """Add the batch's (weighted) counts at each threshold."""
        utils.update_confusion_matrix_variables(
            {kind: getattr(self, _COUNT_NAMES[kind]) for kind in self._counted}, y_true, y_pred,
            thresholds=self.thresholds, thresholds_distributed_evenly=self._thresholds_distributed_evenly,
            top_k=self.top_k, class_id=self.class_id, sample_weight=sample_weight)

    def reset_state(self):
        for kind in self._counted:
            getattr(self, _COUNT_NAMES[kind]).assign(tf.zeros((len(self.thresholds),)))

    def _per_threshold(self, values):
        """``values`` (one per threshold), or its only entry when there is one threshold."""
        return values[0] if len(self.thresholds) == 1 else values


class _ConfusionMatrixConditionCount(_ThresholdedMetric):
    """The (weighted) number of one kind of confusion-matrix entries at each threshold."""

    def __init__(self, confusion_matrix_cond, thresholds=None, name=None, dtype=None):
        super().__init__(name=name, dtype=dtype)
        self._confusion_matrix_cond = confusion_matrix_cond
        self.init_thresholds = thresholds
        self.thresholds = utils.parse_init_thresholds(thresholds, default_threshold=0.5)
        self._thresholds_distributed_evenly = utils.is_evenly_distributed_thresholds(self.thresholds)
        self.accumulator = self.add_variable(shape=(len(self.thresholds),), initializer=Zeros(), name="accumulator")

    def update_state(self, y_true, y_pred, sample_weight=None):
        """Add the batch's (weighted) count at each threshold."""
        utils.update_confusion_matrix_variables(
            {self._confusion_matrix_cond: self.accumulator}, y_true, y_pred, thresholds=self.thresholds,
            thresholds_distributed_evenly=self._thresholds_distributed_evenly, sample_weight=sample_weight)

    def reset_state(self):
        self.accumulator.assign(tf.zeros(self.accumulator.shape))

    def result(self):
        # As in Keras, several thresholds give the state variable itself (it changes with later updates).
        return self._per_threshold(self.accumulator)

    def get_config(self):
        return {**super().get_config(), "thresholds": self.init_thresholds}


class TruePositives(_ConfusionMatrixConditionCount):
    """The (weighted) number of true positives (prediction above a threshold, label non-zero)."""

    def __init__(self, thresholds=None, name=None, dtype=None):
        super().__init__(utils.TRUE_POSITIVES, thresholds=thresholds, name=name, dtype=dtype)


class FalsePositives(_ConfusionMatrixConditionCount):
    """The (weighted) number of false positives (prediction above a threshold, label zero)."""

    def __init__(self, thresholds=None, name=None, dtype=None):
        super().__init__(utils.FALSE_POSITIVES, thresholds=thresholds, name=name, dtype=dtype)


class TrueNegatives(_ConfusionMatrixConditionCount):
    """The (weighted) number of true negatives (prediction at or below a threshold, label zero)."""

    def __init__(self, thresholds=None, name=None, dtype=None):
        super().__init__(utils.TRUE_NEGATIVES, thresholds=thresholds, name=name, dtype=dtype)


class FalseNegatives(_ConfusionMatrixConditionCount):
    """The (weighted) number of false negatives (prediction at or below a threshold, label non-zero)."""

    def __init__(self, thresholds=None, name=None, dtype=None):
        super().__init__(utils.FALSE_NEGATIVES, thresholds=thresholds, name=name, dtype=dtype)


class _PrecisionOrRecall(_ThresholdedMetric):
    """``TP / (TP + other)`` at each threshold, optionally for the ``top_k`` predictions or one ``class_id``."""

    _direction = "up"

    def __init__(self, thresholds=None, top_k=None, class_id=None, name=None, dtype=None):
        super().__init__(name=name, dtype=dtype)
        self.init_thresholds = thresholds
        self.top_k = top_k
        self.class_id = class_id
        # With top_k every kept prediction counts as positive.
        default_threshold = 0.5 if top_k is None else utils.NEG_INF
        self.thresholds = utils.parse_init_thresholds(thresholds, default_threshold=default_threshold)
        self._thresholds_distributed_evenly = utils.is_evenly_distributed_thresholds(self.thresholds)
        self._add_count_variables()

    def result(self):
        other = getattr(self, _COUNT_NAMES[self._counted[1]])
        return self._per_threshold(tf.math.divide_no_nan(tf.convert_to_tensor(self.true_positives),
                                                          self.true_positives + other))

    def get_config(self):
        return {**super().get_config(), "thresholds": self.init_thresholds, "top_k": self.top_k,
                "class_id": self.class_id}


class Precision(_PrecisionOrRecall):
    """``TP / (TP + FP)``: how many predicted positives are positive.

    Parameters
    ----------
    thresholds : float or list of float, optional
        In [0, 1]; 0.5 by default (or every kept prediction with ``top_k``). A list gives one value each.
    top_k : int, optional
        Only each row's ``top_k`` largest predictions count as predicted positives.
    class_id : int, optional
        Only this class (last axis) counts.
    """

    _counted = (utils.TRUE_POSITIVES, utils.FALSE_POSITIVES)


class Recall(_PrecisionOrRecall):
    """``TP / (TP + FN)``: how many positives are predicted positive (arguments as ``Precision``)."""

    _counted = (utils.TRUE_POSITIVES, utils.FALSE_NEGATIVES)


class SensitivitySpecificityBase(_ThresholdedMetric):
    """Base of the X-at-Y metrics: all four counts at ``num_thresholds`` thresholds evenly spread over [0, 1];
    the result is the best X over the thresholds where Y meets ``value``."""

    _direction = "up"
    _counted = (utils.TRUE_POSITIVES, utils.FALSE_POSITIVES, utils.TRUE_NEGATIVES, utils.FALSE_NEGATIVES)

    def __init__(self, value, num_thresholds=200, class_id=None, name=None, dtype=None):
        super().__init__(name=name, dtype=dtype)
        if num_thresholds <= 0:
            raise ValueError("Argument `num_thresholds` must be an integer > 0. "
                             f"Received: num_thresholds={num_thresholds}")
        self.value = value
        self.class_id = class_id
        if num_thresholds == 1:
            self.thresholds = [0.5]
            self._thresholds_distributed_evenly = False
        else:
            inner = [(i + 1) * 1.0 / (num_thresholds - 1) for i in range(num_thresholds - 2)]
            self.thresholds = [0.0] + inner + [1.0]
            self._thresholds_distributed_evenly = True
        self._add_count_variables()

    def get_config(self):
        return {**super().get_config(), "class_id": self.class_id}

    def _rates(self):
        """``{name: rate per threshold}`` for sensitivity (= recall), specificity and precision."""
        tp, fp = tf.convert_to_tensor(self.true_positives), tf.convert_to_tensor(self.false_positives)
        tn, fn = tf.convert_to_tensor(self.true_negatives), tf.convert_to_tensor(self.false_negatives)
        return {"sensitivity": tf.math.divide_no_nan(tp, tp + fn), "specificity": tf.math.divide_no_nan(tn, tn + fp),
                "precision": tf.math.divide_no_nan(tp, tp + fp)}

    def _best(self, maximised, constrained):
        """The largest ``maximised`` rate over the thresholds where the ``constrained`` rate is >= ``value``
        (0 if none)."""
        rates = self._rates()
        feasible = tf.greater_equal(rates[constrained], self.value)
        candidates = tf.where(feasible, rates[maximised], tf.zeros((), rates[maximised].dtype))
        return tf.maximum(tf.reduce_max(candidates), 0.0)


def _check_rate(name, value):
    if value < 0 or value > 1:
        raise ValueError(f"Argument `{name}` must be in the range [0, 1]. Received: {name}={value}")


class SensitivityAtSpecificity(SensitivitySpecificityBase):
    """The best sensitivity (recall) at a specificity of at least ``specificity``."""

    def __init__(self, specificity, num_thresholds=200, class_id=None, name=None, dtype=None):
        _check_rate("specificity", specificity)
        self.specificity = specificity
        self.num_thresholds = num_thresholds
        super().__init__(specificity, num_thresholds=num_thresholds, class_id=class_id, name=name, dtype=dtype)

    def result(self):
        return self._best("sensitivity", "specificity")

    def get_config(self):
        return {**super().get_config(), "num_thresholds": self.num_thresholds, "specificity": self.specificity}


class SpecificityAtSensitivity(SensitivitySpecificityBase):
    """The best specificity at a sensitivity (recall) of at least ``sensitivity``."""

    def __init__(self, sensitivity, num_thresholds=200, class_id=None, name=None, dtype=None):
        _check_rate("sensitivity", sensitivity)
        self.sensitivity = sensitivity
        self.num_thresholds = num_thresholds
        super().__init__(sensitivity, num_thresholds=num_thresholds, class_id=class_id, name=name, dtype=dtype)

    def result(self):
        return self._best("specificity", "sensitivity")

    def get_config(self):
        return {**super().get_config(), "num_thresholds": self.num_thresholds, "sensitivity": self.sensitivity}


class PrecisionAtRecall(SensitivitySpecificityBase):
    """The best precision at a recall of at least ``recall``."""

    def __init__(self, recall, num_thresholds=200, class_id=None, name=None, dtype=None):
        _check_rate("recall", recall)
        self.recall = recall
        self.num_thresholds = num_thresholds
        super().__init__(recall, num_thresholds=num_thresholds, class_id=class_id, name=name, dtype=dtype)

    def result(self):
        return self._best("precision", "sensitivity")

    def get_config(self):
        return {**super().get_config(), "num_thresholds": self.num_thresholds, "recall": self.recall}


class RecallAtPrecision(SensitivitySpecificityBase):
    """The best recall at a precision of at least ``precision``."""

    def __init__(self, precision, num_thresholds=200, class_id=None, name=None, dtype=None):
        _check_rate("precision", precision)
        self.precision = precision
        self.num_thresholds = num_thresholds
        super().__init__(precision, num_thresholds=num_thresholds, class_id=class_id, name=name, dtype=dtype)

    def result(self):
        return self._best("sensitivity", "precision")

    def get_config(self):
        return {**super().get_config(), "num_thresholds": self.num_thresholds, "precision": self.precision}
