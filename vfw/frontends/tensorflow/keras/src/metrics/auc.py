"""``keras.metrics.AUC``: area under the ROC or precision-recall curve, from thresholded confusion counts.

The curve is sampled at ``num_thresholds`` thresholds (0 - eps, evenly spread values, 1 + eps by
default) and integrated with a Riemann sum (``interpolation``: trapezoids; ``minoring``/
``majoring``: the lower/upper step). The PR curve with interpolation uses the Davis & Goadrich
interpolation of precision between thresholds.
"""

import numpy as np

import vfw.tensorflow as tf
from vfw.frontends.tensorflow.keras.src.initializers import Zeros
from vfw.frontends.tensorflow.keras.src.losses import conventions
from vfw.frontends.tensorflow.keras.src.metrics import confusion_utils as utils
from vfw.frontends.tensorflow.keras.src.metrics.metric import Metric

_CURVES = {"roc": "ROC", "ROC": "ROC", "pr": "PR", "PR": "PR", "prgain": "PRGAIN", "PRGAIN": "PRGAIN"}
_SUMMATIONS = {"interpolation": "interpolation", "Interpolation": "interpolation", "majoring": "majoring",
               "Majoring": "majoring", "minoring": "minoring", "Minoring": "minoring"}


def _curve_name(curve):
    name = getattr(curve, "value", curve)  # Keras' AUCCurve enum members carry the name as value
    if name not in _CURVES:
        raise ValueError(f'Invalid AUC curve value: "{curve}". Expected values are ["PR", "ROC", "PRGAIN"]')
    return _CURVES[name]


def _summation_name(summation_method):
    name = getattr(summation_method, "value", summation_method)
    if name not in _SUMMATIONS:
        raise ValueError(f'Invalid AUC summation method value: "{summation_method}". Expected values are '
                         '["interpolation", "majoring", "minoring"]')
    return _SUMMATIONS[name]


class AUC(Metric):
    """Approximate area under the ROC (default) or PR curve.

    Parameters
    ----------
    num_thresholds : int
        Number of thresholds (> 1) when ``thresholds`` is not given.
    curve : {"ROC", "PR", "PRGAIN"}
    summation_method : {"interpolation", "minoring", "majoring"}
    thresholds : list of float, optional
        Explicit thresholds in [0, 1] (0 - eps and 1 + eps are added).
    multi_label : bool
        Keep one curve per label (last axis) and average their areas (``label_weights`` weigh them).
    num_labels : int, optional
        With ``multi_label``: create the state now rather than at the first update.
    label_weights : list of float, optional
        Per-label weights of the counts (single curve) or of the areas (``multi_label``).
    from_logits : bool
        Apply a sigmoid to predictions first.
    """

    _direction = "up"

    def __init__(self, num_thresholds=200, curve="ROC", summation_method="interpolation", name=None, dtype=None,
                 thresholds=None, multi_label=False, num_labels=None, label_weights=None, from_logits=False):
        self._init_from_thresholds = thresholds is not None
        if thresholds is not None:
            self.num_thresholds = len(thresholds) + 2
            thresholds = sorted(thresholds)
            self._thresholds_distributed_evenly = utils.is_evenly_distributed_thresholds(
                np.array([0.0] + thresholds + [1.0]))
        else:
            if num_thresholds <= 1:
                raise ValueError(f"Argument `num_thresholds` must be an integer > 1. Received: "
                                 f"num_thresholds={num_thresholds}")
            self.num_thresholds = num_thresholds
            thresholds = [(i + 1) * 1.0 / (num_thresholds - 1) for i in range(num_thresholds - 2)]
            self._thresholds_distributed_evenly = True
        # Predictions of exactly 0 and 1 fall strictly between the end thresholds.
        eps = conventions.epsilon()
        self._thresholds = np.array([0.0 - eps] + thresholds + [1.0 + eps])
        self.curve = _curve_name(curve)
        self.summation_method = _summation_name(summation_method)
        super().__init__(name=name, dtype=dtype)
        self.multi_label = multi_label
        self.num_labels = num_labels
        self.label_weights = None if label_weights is None else conventions.convert(label_weights, self.dtype)
        self._from_logits = from_logits
        self._built = False
        if multi_label:
            if num_labels:
                self._build([None, num_labels])
        elif num_labels:
            raise ValueError("`num_labels` is needed only when `multi_label` is True.")
        else:
            self._build(None)

    @property
    def thresholds(self):
        """The thresholds, end ones included."""
        return list(self._thresholds)

    def _build(self, shape):
        if self.multi_label:
            if len(shape) != 2:
                raise ValueError(f"`y_pred` must have rank 2 when `multi_label=True`. Found rank {len(shape)}. "
                                 f"Full shape received for `y_pred`: {shape}")
            self._num_labels = shape[1]
            state_shape = [self.num_thresholds, self._num_labels]
        else:
            state_shape = [self.num_thresholds]
        self._build_input_shape = shape
        for name in ("true_positives", "false_positives", "true_negatives", "false_negatives"):
            setattr(self, name, self.add_variable(shape=state_shape, initializer=Zeros(), name=name))
        self._built = True

    def update_state(self, y_true, y_pred, sample_weight=None):
        """Add the batch's confusion counts at every threshold."""
        y_pred = conventions.convert(y_pred)
        if not self._built:
            self._build(y_pred.shape)
        if self._from_logits:
            y_pred = tf.sigmoid(y_pred)
        utils.update_confusion_matrix_variables(
            {utils.TRUE_POSITIVES: self.true_positives, utils.TRUE_NEGATIVES: self.true_negatives,
             utils.FALSE_POSITIVES: self.false_positives, utils.FALSE_NEGATIVES: self.false_negatives},
            y_true, y_pred, self._thresholds, thresholds_distributed_evenly=self._thresholds_distributed_evenly,
            sample_weight=sample_weight, multi_label=self.multi_label,
            label_weights=None if self.multi_label else self.label_weights)

    def _combine_labels(self, areas):
        """The area: ``areas`` summed over thresholds, then averaged over labels when ``multi_label``."""
        if not self.multi_label:
            return tf.reduce_sum(areas)
        by_label = tf.reduce_sum(areas, axis=0)
        if self.label_weights is None:
            return tf.reduce_mean(by_label)
        return tf.math.divide_no_nan(tf.reduce_sum(by_label * self.label_weights), tf.reduce_sum(self.label_weights))

    def interpolate_pr_auc(self):
        """PR-AUC with precision interpolated between thresholds (Davis & Goadrich, 2006)."""
        tp = tf.convert_to_tensor(self.true_positives)
        positives = tp + self.false_positives
        lower, upper = slice(None, self.num_thresholds - 1), slice(1, None)
        tp_step = tp[lower] - tp[upper]
        positives_step = positives[lower] - positives[upper]
        precision_slope = tf.math.divide_no_nan(tp_step, tf.maximum(positives_step, 0))
        intercept = tp[upper] - precision_slope * positives[upper]
        both_positive = tf.logical_and(positives[lower] > 0, positives[upper] > 0)
        safe_ratio = tf.where(both_positive,
                              tf.math.divide_no_nan(positives[lower], tf.maximum(positives[upper], 0)),
                              tf.ones_like(positives[upper]))
        increments = tf.math.divide_no_nan(precision_slope * (tp_step + intercept * tf.math.log(safe_ratio)),
                                           tf.maximum(tp[upper] + self.false_negatives[upper], 0))
        return self._combine_labels(increments)

    def result(self):
        if self.curve == "PR" and self.summation_method == "interpolation":
            return self.interpolate_pr_auc()
        tp, fp = tf.convert_to_tensor(self.true_positives), tf.convert_to_tensor(self.false_positives)
        tn, fn = tf.convert_to_tensor(self.true_negatives), tf.convert_to_tensor(self.false_negatives)
        recall = tf.math.divide_no_nan(tp, tp + fn)
        if self.curve == "ROC":
            x, y = tf.math.divide_no_nan(fp, fp + tn), recall
        elif self.curve == "PR":
            x, y = recall, tf.math.divide_no_nan(tp, tp + fp)
        else:
            scaling = tf.math.divide_no_nan(tp + fn, tn + fp)
            recall_gain = 1.0 - scaling * tf.math.divide_no_nan(fn, tp)
            precision_gain = 1.0 - scaling * tf.math.divide_no_nan(fp, tp)
            no_tp = tf.equal(tp, 0.0)
            x = tf.maximum(tf.where(no_tp, tf.zeros_like(recall_gain), recall_gain), 0.0)
            y = tf.where(no_tp, tf.ones_like(precision_gain), precision_gain)
        lower, upper = y[:self.num_thresholds - 1], y[1:]
        if self.summation_method == "interpolation":
            heights = (lower + upper) / 2.0
        elif self.summation_method == "minoring":
            heights = tf.minimum(lower, upper)
        else:
            heights = tf.maximum(lower, upper)
        return self._combine_labels((x[:self.num_thresholds - 1] - x[1:]) * heights)

    def reset_state(self):
        if self._built:
            for variable in (self.true_positives, self.false_positives, self.true_negatives, self.false_negatives):
                variable.assign(tf.zeros(variable.shape))

    def get_config(self):
        config = {**super().get_config(), "num_thresholds": self.num_thresholds, "curve": self.curve,
                  "summation_method": self.summation_method, "multi_label": self.multi_label,
                  "num_labels": self.num_labels, "label_weights": self.label_weights,
                  "from_logits": self._from_logits}
        if self._init_from_thresholds:
            config["thresholds"] = self.thresholds[1:-1]
        return config
