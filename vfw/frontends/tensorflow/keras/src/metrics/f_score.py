"""``FBetaScore`` and ``F1Score``: the F-beta score of multi-class/multi-label predictions, per class or averaged."""

import vfw.tensorflow as tf
from vfw.frontends.tensorflow.keras.src.initializers import Zeros
from vfw.frontends.tensorflow.keras.src.losses import conventions
from vfw.frontends.tensorflow.keras.src.metrics.metric import Metric

_AVERAGES = (None, "micro", "macro", "weighted")


class FBetaScore(Metric):
    """F-beta score ``(1 + beta^2) P R / (beta^2 P + R)`` of 2-D ``(batch, classes)`` predictions.

    Parameters
    ----------
    average : {None, "micro", "macro", "weighted"}
        None: one score per class; "micro": from counts pooled over classes; "macro": the mean of
        the class scores; "weighted": their mean weighted by each class's (weighted) support.
    beta : float
        Weight of recall relative to precision (> 0).
    threshold : float, optional
        In (0, 1]: predictions above it are positive. None: each row's largest prediction(s) is.
    """

    _direction = "up"

    def __init__(self, average=None, beta=1.0, threshold=None, name="fbeta_score", dtype=None):
        super().__init__(name=name, dtype=dtype)
        if average not in _AVERAGES:
            raise ValueError("Invalid `average` argument value. Expected one of: {None, 'micro', 'macro', "
                             f"'weighted'}}. Received: average={average}")
        if not isinstance(beta, float):
            raise ValueError(f"Invalid `beta` argument value. It should be a Python float. Received: beta={beta} of "
                             f"type '{type(beta)}'")
        if beta <= 0.0:
            raise ValueError(f"Invalid `beta` argument value. It should be > 0. Received: beta={beta}")
        if threshold is not None:
            if not isinstance(threshold, float):
                raise ValueError("Invalid `threshold` argument value. It should be a Python float. Received: "
                                 f"threshold={threshold} of type '{type(threshold)}'")
            if threshold > 1.0 or threshold <= 0.0:
                raise ValueError("Invalid `threshold` argument value. It should verify 0 < threshold <= 1. "
                                 f"Received: threshold={threshold}")
        self.average = average
        self.beta = beta
        self.threshold = threshold
        # Counts per class, except micro averaging which pools them.
        self.axis = None if average == "micro" else 0
        self._built = False

    def _build(self, y_true_shape, y_pred_shape):
        if len(y_pred_shape) != 2 or len(y_true_shape) != 2:
            raise ValueError("FBetaScore expects 2D inputs with shape (batch_size, output_dim). Received input "
                             f"shapes: y_pred.shape={y_pred_shape} and y_true.shape={y_true_shape}.")
        if y_pred_shape[-1] is None or y_true_shape[-1] is None:
            raise ValueError("FBetaScore expects 2D inputs with shape (batch_size, output_dim), with output_dim fully "
                             f"defined (not None). Received input shapes: y_pred.shape={y_pred_shape} and "
                             f"y_true.shape={y_true_shape}.")
        state_shape = () if self.average == "micro" else (y_pred_shape[-1],)
        for name in ("true_positives", "false_positives", "false_negatives", "intermediate_weights"):
            setattr(self, name, self.add_variable(name=name, shape=state_shape, initializer=Zeros(), dtype=self.dtype))
        self._built = True

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_true = conventions.convert(y_true, self.dtype)
        y_pred = conventions.convert(y_pred, self.dtype)
        if not self._built:
            self._build(y_true.shape, y_pred.shape)
        if self.threshold is None:
            row_max = tf.reduce_max(y_pred, axis=-1, keepdims=True)
            # A row of zeros has no predicted class (|x| > 1e-9 rather than x != 0).
            y_pred = tf.logical_and(y_pred >= row_max, tf.abs(y_pred) > 1e-9)
        else:
            y_pred = y_pred > self.threshold
        y_pred = tf.cast(y_pred, self.dtype)
        if sample_weight is not None:
            sample_weight = tf.expand_dims(conventions.convert(sample_weight, self.dtype), 1)

        def weighted_sum(values):
            if sample_weight is not None:
                values = values * sample_weight
            return tf.reduce_sum(values, axis=self.axis)

        self.true_positives.assign(self.true_positives + weighted_sum(y_pred * y_true))
        self.false_positives.assign(self.false_positives + weighted_sum(y_pred * (1 - y_true)))
        self.false_negatives.assign(self.false_negatives + weighted_sum((1 - y_pred) * y_true))
        self.intermediate_weights.assign(self.intermediate_weights + weighted_sum(y_true))

    def result(self):
        eps = conventions.epsilon()
        tp = tf.convert_to_tensor(self.true_positives)
        precision = tf.divide(tp, tp + self.false_positives + eps)
        recall = tf.divide(tp, tp + self.false_negatives + eps)
        beta_squared = self.beta ** 2
        f_score = tf.divide(precision * recall, (beta_squared * precision) + recall + eps) * (1 + beta_squared)
        if self.average == "weighted":
            weights = tf.divide(self.intermediate_weights, tf.reduce_sum(self.intermediate_weights) + eps)
            return tf.reduce_sum(f_score * weights)
        if self.average is not None:
            return tf.reduce_mean(f_score)
        return f_score

    def get_config(self):
        return {**super().get_config(), "average": self.average, "beta": self.beta, "threshold": self.threshold}


class F1Score(FBetaScore):
    """F1 score: ``FBetaScore`` with ``beta=1``."""

    def __init__(self, average=None, threshold=None, name="f1_score", dtype=None):
        super().__init__(average=average, beta=1.0, threshold=threshold, name=name, dtype=dtype)

    def get_config(self):
        config = super().get_config()
        del config["beta"]
        return config
