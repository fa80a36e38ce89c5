"""Means of the probabilistic and hinge losses as metrics (crossentropies, KL divergence, Poisson, hinges)."""

from vfw.frontends.tensorflow.keras.src.losses.probabilistic import (
    binary_crossentropy,
    categorical_crossentropy,
    kl_divergence,
    poisson,
    sparse_categorical_crossentropy,
)
from vfw.frontends.tensorflow.keras.src.losses.regression import categorical_hinge, hinge, squared_hinge
from vfw.frontends.tensorflow.keras.src.metrics.reduction import BuiltinMeanMetric


class KLDivergence(BuiltinMeanMetric):
    """Mean Kullback-Leibler divergence of ``y_pred`` from ``y_true``."""

    def __init__(self, name="kl_divergence", dtype=None):
        super().__init__(kl_divergence, name, dtype)


class Poisson(BuiltinMeanMetric):
    """Mean Poisson loss."""

    def __init__(self, name="poisson", dtype=None):
        super().__init__(poisson, name, dtype)


class BinaryCrossentropy(BuiltinMeanMetric):
    """Mean binary crossentropy (``from_logits``, ``label_smoothing``)."""

    _direction = "down"
    _config_keys = ("from_logits", "label_smoothing")

    def __init__(self, name="binary_crossentropy", dtype=None, from_logits=False, label_smoothing=0):
        super().__init__(binary_crossentropy, name, dtype, from_logits=from_logits, label_smoothing=label_smoothing)


class CategoricalCrossentropy(BuiltinMeanMetric):
    """Mean categorical crossentropy (``from_logits``, ``label_smoothing``, class ``axis``)."""

    _direction = "down"
    _config_keys = ("from_logits", "label_smoothing", "axis")

    def __init__(self, name="categorical_crossentropy", dtype=None, from_logits=False, label_smoothing=0, axis=-1):
        super().__init__(categorical_crossentropy, name, dtype, from_logits=from_logits,
                         label_smoothing=label_smoothing, axis=axis)


class SparseCategoricalCrossentropy(BuiltinMeanMetric):
    """Mean sparse categorical crossentropy (``from_logits``, ``ignore_class``, ``axis``)."""

    _direction = "down"
    _config_keys = ("from_logits", "ignore_class", "axis")

    def __init__(self, name="sparse_categorical_crossentropy", dtype=None, from_logits=False, ignore_class=None,
                 axis=-1):
        super().__init__(sparse_categorical_crossentropy, name, dtype, from_logits=from_logits,
                         ignore_class=ignore_class, axis=axis)


class Hinge(BuiltinMeanMetric):
    """Mean hinge loss."""

    _direction = "down"

    def __init__(self, name="hinge", dtype=None):
        super().__init__(hinge, name, dtype)


class SquaredHinge(BuiltinMeanMetric):
    """Mean squared hinge loss."""

    _direction = "down"

    def __init__(self, name="squared_hinge", dtype=None):
        super().__init__(squared_hinge, name, dtype)


class CategoricalHinge(BuiltinMeanMetric):
    """Mean categorical hinge loss."""

    _direction = "down"

    def __init__(self, name="categorical_hinge", dtype=None):
        super().__init__(categorical_hinge, name, dtype)
