"""Running sums and means: ``Sum``, ``Mean`` and ``MeanMetricWrapper`` (the mean of a per-sample function).

Values are first reduced to one per sample (``reduce_to_samplewise_values``): sample weights are
brought to the values' rank as losses do, values are reduced over the axes the weights lack and
multiplied by the weights, then reduced over every axis but the first. A Keras mask on the values
(or on ``y_pred`` for the wrapper) joins the sample weights.
"""

import vfw.tensorflow as tf
from vfw.frontends.tensorflow.keras.src import losses
from vfw.frontends.tensorflow.keras.src.engine import layer_call
from vfw.frontends.tensorflow.keras.src.initializers import Zeros
from vfw.frontends.tensorflow.keras.src.losses import conventions
from vfw.frontends.tensorflow.keras.src.losses.loss import apply_mask, squeeze_or_expand_to_same_rank
from vfw.frontends.tensorflow.keras.src.metrics.metric import Metric
from vfw.frontends.tensorflow.keras.src.utils import serialization


def reduce_to_samplewise_values(values, sample_weight, reduce_fn, dtype):
    """``(values, sample_weight)``: the weighted values reduced to one per sample, and the matching weights.

    Parameters
    ----------
    values : tensor-like
    sample_weight : tensor-like or None
    reduce_fn : callable
        ``reduce_fn(x, axis=[...])``: ``tf.reduce_sum`` or ``tf.reduce_mean``.
    dtype : str or None
        The dtype of the results (None: ``floatx()``).
    """
    dtype = dtype or conventions.floatx()
    mask = layer_call.get_keras_mask(values)
    values = tf.cast(conventions.convert(values), dtype)
    if sample_weight is not None:
        sample_weight = conventions.convert(sample_weight, dtype)
        if mask is not None:
            sample_weight = apply_mask(sample_weight, mask, dtype=dtype, reduction="sum")
        values, sample_weight = squeeze_or_expand_to_same_rank(values, sample_weight)
        weight_rank, values_rank = len(sample_weight.shape), len(values.shape)
        if values_rank > weight_rank:
            values = reduce_fn(values, axis=list(range(weight_rank, values_rank)))
        # Broadcasting here changes nothing in the product but counts each weight once per value.
        sample_weight = tf.broadcast_to(sample_weight, tf.shape(values))
        values = values * sample_weight
        if weight_rank > 1:
            sample_weight = reduce_fn(sample_weight, axis=list(range(1, weight_rank)))
    values_rank = len(values.shape)
    if values_rank > 1:
        values = reduce_fn(values, axis=list(range(1, values_rank)))
    return values, sample_weight


class Sum(Metric):
    """The running (weighted) sum of the values passed to ``update_state(values, sample_weight=None)``."""

    def __init__(self, name="sum", dtype=None):
        super().__init__(name=name, dtype=dtype)
        self.total = self.add_variable(shape=(), initializer=Zeros(), dtype=self.dtype, name="total")

    def update_state(self, values, sample_weight=None):
        values, _ = reduce_to_samplewise_values(values, sample_weight, reduce_fn=tf.reduce_sum, dtype=self.dtype)
        self.total.assign_add(tf.reduce_sum(values))

    def reset_state(self):
        self.total.assign(0)

    def result(self):
        return tf.cast(self.total, self.dtype)


class Mean(Metric):
    """The running (weighted) mean of the values passed to ``update_state(values, sample_weight=None)``.

    Each sample counts once (its values are averaged first); with weights, the mean is
    ``sum(weight * value) / sum(weight)``.
    """

    def __init__(self, name="mean", dtype=None):
        super().__init__(name=name, dtype=dtype)
        self.total = self.add_variable(shape=(), initializer=Zeros(), dtype=self.dtype, name="total")
        self.count = self.add_variable(shape=(), initializer=Zeros(), dtype=self.dtype, name="count")

    def update_state(self, values, sample_weight=None):
        values, sample_weight = reduce_to_samplewise_values(values, sample_weight, reduce_fn=tf.reduce_mean,
                                                            dtype=self.dtype)
        self.total.assign_add(tf.reduce_sum(values))
        if sample_weight is not None:
            num_samples = tf.reduce_sum(sample_weight)
        elif len(values.shape) >= 1:
            num_samples = tf.shape(values)[0]
        else:
            num_samples = 1
        self.count.assign_add(tf.cast(num_samples, self.dtype))

    def reset_state(self):
        self.total.assign(0)
        self.count.assign(0)

    def result(self):
        return tf.math.divide_no_nan(tf.convert_to_tensor(self.total), tf.cast(self.count, self.dtype))


class MeanMetricWrapper(Mean):
    """The running mean of ``fn(y_true, y_pred, **kwargs)``: ``update_state(y_true, y_pred, sample_weight=None)``.

    Parameters
    ----------
    fn : callable
        Per-sample values (a Keras loss function, an accuracy function...).
    name, dtype
        As for ``Metric``.
    **kwargs
        Extra keyword arguments for ``fn`` (saved in the config).
    """

    def __init__(self, fn, name=None, dtype=None, **kwargs):
        super().__init__(name=name, dtype=dtype)
        self._fn = fn
        self._fn_kwargs = kwargs
        # A wrapped Keras loss is a metric to minimise.
        if fn in losses.ALL_OBJECTS or type(fn) in losses.ALL_OBJECTS:
            self._direction = "down"

    def update_state(self, y_true, y_pred, sample_weight=None):
        mask = layer_call.get_keras_mask(y_pred)
        values = self._fn(y_true, y_pred, **self._fn_kwargs)
        sample_weight = apply_mask(sample_weight, mask, dtype=self.dtype, reduction="sum")
        return super().update_state(values, sample_weight=sample_weight)

    def get_config(self):
        config = {**super().get_config(), "fn": serialization.serialize_keras_object(self._fn)}
        config.update(serialization.serialize_keras_object(self._fn_kwargs))
        return config

    @classmethod
    def from_config(cls, config):
        if "fn" in config:
            config = serialization.deserialize_keras_object(config)
        return cls(**config)


class BuiltinMeanMetric(MeanMetricWrapper):
    """A built-in mean metric: its config is ``Metric``'s plus the attributes named in ``_config_keys``.

    ``_direction`` tells callbacks whether the metric improves going ``"up"`` or ``"down"``.
    """

    _config_keys = ()

    def __init__(self, fn, name, dtype, **kwargs):
        super().__init__(fn, name=name, dtype=dtype, **kwargs)
        for key in self._config_keys:
            setattr(self, key, kwargs[key])

    def get_config(self):
        config = Metric.get_config(self)
        config.update({key: getattr(self, key) for key in self._config_keys})
        return config
