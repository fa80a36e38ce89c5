"""Regression metrics: means of the regression losses, RMSE, cosine similarity, correlations, R2 score."""

import vfw.tensorflow as tf
from vfw.frontends._warnings import warn_for_user
from vfw.frontends.tensorflow.keras.src.initializers import Zeros
from vfw.frontends.tensorflow.keras.src.losses import conventions
from vfw.frontends.tensorflow.keras.src.losses.loss import squeeze_or_expand_to_same_rank
from vfw.frontends.tensorflow.keras.src.losses.regression import (
    log_cosh,
    mean_absolute_error,
    mean_absolute_percentage_error,
    mean_squared_error,
    mean_squared_logarithmic_error,
)
from vfw.frontends.tensorflow.keras.src.metrics.metric import Metric
from vfw.frontends.tensorflow.keras.src.metrics.reduction import BuiltinMeanMetric, Mean
from vfw.frontends.tensorflow.keras.src.ops import nn as ops_nn


def _aligned(y_true, y_pred):
    y_pred = conventions.convert(y_pred)
    y_true = conventions.convert(y_true, conventions.dtype_name(y_pred))
    return squeeze_or_expand_to_same_rank(y_true, y_pred)


def cosine_similarity(y_true, y_pred, axis=-1):
    """Cosine similarity of ``y_true`` and ``y_pred`` along ``axis`` (1 for parallel vectors)."""
    y_true, y_pred = _aligned(y_true, y_pred)
    return tf.reduce_sum(ops_nn.normalize(y_true, axis=axis) * ops_nn.normalize(y_pred, axis=axis), axis=axis)


def pearson_correlation(y_true, y_pred, axis=-1):
    """Pearson correlation coefficient of ``y_true`` and ``y_pred`` along ``axis``."""
    y_true, y_pred = _aligned(y_true, y_pred)
    true_centered = y_true - tf.reduce_mean(y_true, axis=axis, keepdims=True)
    pred_centered = y_pred - tf.reduce_mean(y_pred, axis=axis, keepdims=True)
    true_centered = true_centered / tf.math.reduce_std(true_centered, axis=axis, keepdims=True)
    pred_centered = pred_centered / tf.math.reduce_std(pred_centered, axis=axis, keepdims=True)
    return tf.reduce_mean(true_centered * pred_centered, axis=axis)


def concordance_correlation(y_true, y_pred, axis=-1):
    """Lin's concordance correlation coefficient of ``y_true`` and ``y_pred`` along ``axis``."""
    y_true, y_pred = _aligned(y_true, y_pred)
    true_mean = tf.reduce_mean(y_true, axis=axis, keepdims=True)
    pred_mean = tf.reduce_mean(y_pred, axis=axis, keepdims=True)
    true_variance = tf.math.reduce_variance(y_true - true_mean, axis=axis, keepdims=True)
    pred_variance = tf.math.reduce_variance(y_pred - pred_mean, axis=axis, keepdims=True)
    # Keras centres y_true on y_pred's mean here; kept so values agree.
    covariance = (y_true - pred_mean) * (y_pred - pred_mean)
    norm = true_variance + pred_variance + tf.square(true_mean - pred_mean)
    return tf.reduce_mean(2 * covariance / (norm + conventions.epsilon()), axis=axis)


class MeanSquaredError(BuiltinMeanMetric):
    """Mean of the per-sample mean squared errors."""

    _direction = "down"

    def __init__(self, name="mean_squared_error", dtype=None):
        super().__init__(mean_squared_error, name, dtype)


class MeanAbsoluteError(BuiltinMeanMetric):
    """Mean of the per-sample mean absolute errors."""

    _direction = "down"

    def __init__(self, name="mean_absolute_error", dtype=None):
        super().__init__(mean_absolute_error, name, dtype)


class MeanAbsolutePercentageError(BuiltinMeanMetric):
    """Mean of the per-sample mean absolute percentage errors."""

    _direction = "down"

    def __init__(self, name="mean_absolute_percentage_error", dtype=None):
        super().__init__(mean_absolute_percentage_error, name, dtype)


class MeanSquaredLogarithmicError(BuiltinMeanMetric):
    """Mean of the per-sample mean squared logarithmic errors."""

    _direction = "down"

    def __init__(self, name="mean_squared_logarithmic_error", dtype=None):
        super().__init__(mean_squared_logarithmic_error, name, dtype)


class LogCoshError(BuiltinMeanMetric):
    """Mean of the per-sample mean ``log(cosh(error))``."""

    _direction = "down"

    def __init__(self, name="logcosh", dtype=None):
        super().__init__(log_cosh, name, dtype)


class CosineSimilarity(BuiltinMeanMetric):
    """Mean cosine similarity between labels and predictions along ``axis``."""

    _direction = "up"

    def __init__(self, name="cosine_similarity", dtype=None, axis=-1):
        super().__init__(cosine_similarity, name, dtype, axis=axis)


class PearsonCorrelation(BuiltinMeanMetric):
    """Mean Pearson correlation along ``axis``."""

    _direction = "up"
    _config_keys = ("axis",)

    def __init__(self, name="pearson_correlation", dtype=None, axis=-1):
        super().__init__(pearson_correlation, name, dtype, axis=axis)


class ConcordanceCorrelation(BuiltinMeanMetric):
    """Mean concordance correlation along ``axis``."""

    _direction = "up"
    _config_keys = ("axis",)

    def __init__(self, name="concordance_correlation", dtype=None, axis=-1):
        super().__init__(concordance_correlation, name, dtype, axis=axis)


class RootMeanSquaredError(Mean):
    """Square root of the (weighted) mean of squared errors over every update."""

    _direction = "down"

    def __init__(self, name="root_mean_squared_error", dtype=None):
        super().__init__(name, dtype=dtype)

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_true = conventions.convert(y_true, self.dtype)
        y_pred = conventions.convert(y_pred, self.dtype)
        y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
        return super().update_state(tf.square(y_pred - y_true), sample_weight=sample_weight)

    def result(self):
        return tf.sqrt(super().result())


_CLASS_AGGREGATIONS = (None, "uniform_average", "variance_weighted_average")


class R2Score(Metric):
    """Coefficient of determination of 2-D ``(batch, outputs)`` predictions, accumulated over updates.

    Parameters
    ----------
    class_aggregation : {"uniform_average", "variance_weighted_average", None}
        How the per-output scores combine (None: one score per output).
    num_regressors : int
        For the adjusted R2 score (0: plain R2).
    """

    _direction = "up"

    def __init__(self, class_aggregation="uniform_average", num_regressors=0, name="r2_score", dtype=None):
        super().__init__(name=name, dtype=dtype)
        if class_aggregation not in _CLASS_AGGREGATIONS:
            raise ValueError("Invalid value for argument `class_aggregation`. Expected one of "
                             f"{_CLASS_AGGREGATIONS}. Received: class_aggregation={class_aggregation}")
        if num_regressors < 0:
            raise ValueError("Invalid value for argument `num_regressors`. Expected a value >= 0. "
                             f"Received: num_regressors={num_regressors}")
        self.class_aggregation = class_aggregation
        self.num_regressors = num_regressors
        self.num_samples = self.add_variable(shape=(), initializer=Zeros(), name="num_samples")
        self._built = False

    def _build(self, y_true_shape, y_pred_shape):
        if len(y_pred_shape) != 2 or len(y_true_shape) != 2:
            raise ValueError("R2Score expects 2D inputs with shape (batch_size, output_dim). Received input shapes: "
                             f"y_pred.shape={y_pred_shape} and y_true.shape={y_true_shape}.")
        if y_pred_shape[-1] is None or y_true_shape[-1] is None:
            raise ValueError("R2Score expects 2D inputs with shape (batch_size, output_dim), with output_dim fully "
                             f"defined (not None). Received input shapes: y_pred.shape={y_pred_shape} and "
                             f"y_true.shape={y_true_shape}.")
        num_outputs = y_pred_shape[-1]
        self.squared_sum = self.add_variable(name="squared_sum", shape=[num_outputs], initializer=Zeros())
        self.sum = self.add_variable(name="sum", shape=[num_outputs], initializer=Zeros())
        self.total_mse = self.add_variable(name="residual", shape=[num_outputs], initializer=Zeros())
        self.count = self.add_variable(name="count", shape=[num_outputs], initializer=Zeros())
        self._built = True

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_true = conventions.convert(y_true, self.dtype)
        y_pred = conventions.convert(y_pred, self.dtype)
        y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
        if not self._built:
            self._build(y_true.shape, y_pred.shape)
        sample_weight = conventions.convert(1 if sample_weight is None else sample_weight, self.dtype)
        if len(sample_weight.shape) == 1:
            sample_weight = tf.expand_dims(sample_weight, axis=1)
        sample_weight = tf.cast(tf.broadcast_to(sample_weight, tf.shape(y_true)), y_true.dtype)
        weighted_y_true = y_true * sample_weight
        self.sum.assign(self.sum + tf.reduce_sum(weighted_y_true, axis=0))
        self.squared_sum.assign(self.squared_sum + tf.reduce_sum(y_true * weighted_y_true, axis=0))
        self.total_mse.assign(self.total_mse + tf.reduce_sum((y_true - y_pred) ** 2 * sample_weight, axis=0))
        self.count.assign(self.count + tf.reduce_sum(sample_weight, axis=0))
        self.num_samples.assign(self.num_samples + tf.cast(tf.size(y_true), self.num_samples.dtype))

    def result(self):
        mean = self.sum / self.count
        total = self.squared_sum - self.sum * mean
        raw_scores = 1 - (self.total_mse / total)
        raw_scores = tf.where(tf.math.is_inf(raw_scores), tf.zeros((), raw_scores.dtype), raw_scores)
        if self.class_aggregation == "uniform_average":
            score = tf.reduce_mean(raw_scores)
        elif self.class_aggregation == "variance_weighted_average":
            score = tf.reduce_sum(total * raw_scores) / tf.reduce_sum(total)
        else:
            score = raw_scores
        if self.num_regressors == 0:
            return score
        num_samples = float(self.num_samples.numpy())
        if self.num_regressors > num_samples - 1:
            warn_for_user("More independent predictors than datapoints in adjusted R2 score. Falling back to "
                          "standard R2 score.")
        elif self.num_regressors == num_samples - 1:
            warn_for_user("Division by zero in Adjusted R2 score. Falling back to standard R2 score.")
        else:
            n = tf.cast(self.num_samples, "float32")
            p = tf.constant(float(self.num_regressors), "float32")
            score = 1.0 - tf.multiply(1.0 - score, n - 1.0) / ((n - p) - 1.0)
        return score

    def get_config(self):
        return {**super().get_config(), "class_aggregation": self.class_aggregation,
                "num_regressors": self.num_regressors}
