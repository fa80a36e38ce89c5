"""The built-in loss classes: ``LossFunctionWrapper`` around the loss functions, one subclass per loss.

Every built-in class has Keras' constructor signature (argument order and defaults) and
``get_config`` keys; like Keras, a few configs omit an argument (Huber's ``delta``,
CosineSimilarity's ``axis``), so ``from_config`` restores the default there.
"""

import vfw.tensorflow as tf
from vfw.frontends.tensorflow.keras.src.losses import probabilistic, regression, segmentation, sequence
from vfw.frontends.tensorflow.keras.src.losses.loss import Loss, squeeze_or_expand_to_same_rank
from vfw.frontends.tensorflow.keras.src.utils import serialization

_DEFAULT_REDUCTION = "sum_over_batch_size"


class LossFunctionWrapper(Loss):
    """A ``Loss`` computing ``fn(y_true, y_pred, **kwargs)`` after aligning the ranks of ``y_true`` and ``y_pred``.

    Parameters
    ----------
    fn : callable
        ``fn(y_true, y_pred, **kwargs)`` returning per-sample losses.
    reduction, name, dtype
        As for ``Loss``.
    **kwargs
        Extra keyword arguments for ``fn`` (saved in the config).
    """

    def __init__(self, fn, reduction=_DEFAULT_REDUCTION, name=None, dtype=None, **kwargs):
        super().__init__(name=name, reduction=reduction, dtype=dtype)
        self.fn = fn
        self._fn_kwargs = kwargs

    def call(self, y_true, y_pred):
        """``fn``'s per-sample losses, ``y_true``/``y_pred`` first brought to one rank (leaf by leaf)."""
        if tf.nest.is_nested(y_true) or tf.nest.is_nested(y_pred):
            tf.nest.assert_same_structure(y_true, y_pred)
            pairs = [squeeze_or_expand_to_same_rank(t, p) for t, p in zip(tf.nest.flatten(y_true),
                                                                            tf.nest.flatten(y_pred))]
            y_true = tf.nest.pack_sequence_as(y_true, [t for t, _ in pairs])
            y_pred = tf.nest.pack_sequence_as(y_pred, [p for _, p in pairs])
        else:
            y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
        return self.fn(y_true, y_pred, **self._fn_kwargs)

    def get_config(self):
        """``Loss``'s config with the serialized ``fn`` and its keyword arguments."""
        config = super().get_config()
        config["fn"] = serialization.serialize_keras_object(self.fn)
        config.update(serialization.serialize_keras_object(self._fn_kwargs))
        return config

    @classmethod
    def from_config(cls, config):
        """A wrapper rebuilt from ``get_config()`` (the function deserialized first)."""
        if "fn" in config:
            config = serialization.deserialize_keras_object(config)
        return cls(**config)

    def __repr__(self):
        return f"<LossFunctionWrapper({self.fn}, kwargs={self._fn_kwargs})>"


class _BuiltinLoss(LossFunctionWrapper):
    """A built-in loss: its config is ``Loss``'s plus the ``fn`` keyword arguments named in ``_config_keys``
    (also kept as attributes)."""

    _config_keys = ()

    def __init__(self, fn, reduction, name, dtype, **kwargs):
        super().__init__(fn, reduction=reduction, name=name, dtype=dtype, **kwargs)
        for key in self._config_keys:
            setattr(self, key, kwargs[key])

    def get_config(self):
        config = Loss.get_config(self)
        config.update({key: getattr(self, key) for key in self._config_keys})
        return config


class MeanSquaredError(_BuiltinLoss):
    """Mean of squared errors over the last axis: ``mean(square(y_true - y_pred))``."""

    def __init__(self, reduction=_DEFAULT_REDUCTION, name="mean_squared_error", dtype=None):
        super().__init__(regression.mean_squared_error, reduction, name, dtype)


class MeanAbsoluteError(_BuiltinLoss):
    """Mean of absolute errors over the last axis."""

    def __init__(self, reduction=_DEFAULT_REDUCTION, name="mean_absolute_error", dtype=None):
        super().__init__(regression.mean_absolute_error, reduction, name, dtype)


class MeanAbsolutePercentageError(_BuiltinLoss):
    """``100 * mean(abs((y_true - y_pred) / y_true))`` over the last axis (``|y_true|`` floored at epsilon)."""

    def __init__(self, reduction=_DEFAULT_REDUCTION, name="mean_absolute_percentage_error", dtype=None):
        super().__init__(regression.mean_absolute_percentage_error, reduction, name, dtype)


class MeanSquaredLogarithmicError(_BuiltinLoss):
    """Mean of squared differences of ``log(x + 1)`` over the last axis."""

    def __init__(self, reduction=_DEFAULT_REDUCTION, name="mean_squared_logarithmic_error", dtype=None):
        super().__init__(regression.mean_squared_logarithmic_error, reduction, name, dtype)


class CosineSimilarity(_BuiltinLoss):
    """Negated cosine similarity along ``axis``."""

    def __init__(self, axis=-1, reduction=_DEFAULT_REDUCTION, name="cosine_similarity", dtype=None):
        super().__init__(regression.cosine_similarity, reduction, name, dtype, axis=axis)


class Huber(_BuiltinLoss):
    """Huber loss with threshold ``delta`` (quadratic below, linear above)."""

    def __init__(self, delta=1.0, reduction=_DEFAULT_REDUCTION, name="huber_loss", dtype=None):
        super().__init__(regression.huber, reduction, name, dtype, delta=delta)


class LogCosh(_BuiltinLoss):
    """Mean of ``log(cosh(y_pred - y_true))`` over the last axis."""

    def __init__(self, reduction=_DEFAULT_REDUCTION, name="log_cosh", dtype=None):
        super().__init__(regression.log_cosh, reduction, name, dtype)


class Hinge(_BuiltinLoss):
    """Hinge loss (labels -1/1, or 0/1 mapped to them)."""

    def __init__(self, reduction=_DEFAULT_REDUCTION, name="hinge", dtype=None):
        super().__init__(regression.hinge, reduction, name, dtype)


class SquaredHinge(_BuiltinLoss):
    """Squared hinge loss (labels -1/1, or 0/1 mapped to them)."""

    def __init__(self, reduction=_DEFAULT_REDUCTION, name="squared_hinge", dtype=None):
        super().__init__(regression.squared_hinge, reduction, name, dtype)


class CategoricalHinge(_BuiltinLoss):
    """Categorical hinge loss of one-hot labels."""

    def __init__(self, reduction=_DEFAULT_REDUCTION, name="categorical_hinge", dtype=None):
        super().__init__(regression.categorical_hinge, reduction, name, dtype)


class KLDivergence(_BuiltinLoss):
    """Kullback-Leibler divergence of ``y_pred`` from ``y_true`` over the last axis."""

    def __init__(self, reduction=_DEFAULT_REDUCTION, name="kl_divergence", dtype=None):
        super().__init__(probabilistic.kl_divergence, reduction, name, dtype)


class Poisson(_BuiltinLoss):
    """Poisson loss over the last axis."""

    def __init__(self, reduction=_DEFAULT_REDUCTION, name="poisson", dtype=None):
        super().__init__(probabilistic.poisson, reduction, name, dtype)


class BinaryCrossentropy(_BuiltinLoss):
    """Binary crossentropy (``from_logits``, ``label_smoothing`` towards 0.5, mean over ``axis``)."""

    _config_keys = ("from_logits", "label_smoothing", "axis")

    def __init__(self, from_logits=False, label_smoothing=0.0, axis=-1, reduction=_DEFAULT_REDUCTION,
                 name="binary_crossentropy", dtype=None):
        super().__init__(probabilistic.binary_crossentropy, reduction, name, dtype, from_logits=from_logits,
                         label_smoothing=label_smoothing, axis=axis)


class BinaryFocalCrossentropy(_BuiltinLoss):
    """Binary focal crossentropy (``gamma`` focusing, optional ``alpha`` class balancing)."""

    _config_keys = ("from_logits", "label_smoothing", "axis", "apply_class_balancing", "alpha", "gamma")

    def __init__(self, apply_class_balancing=False, alpha=0.25, gamma=2.0, from_logits=False, label_smoothing=0.0,
                 axis=-1, reduction=_DEFAULT_REDUCTION, name="binary_focal_crossentropy", dtype=None):
        super().__init__(probabilistic.binary_focal_crossentropy, reduction, name, dtype,
                         apply_class_balancing=apply_class_balancing, alpha=alpha, gamma=gamma,
                         from_logits=from_logits, label_smoothing=label_smoothing, axis=axis)


class CategoricalCrossentropy(_BuiltinLoss):
    """Categorical crossentropy of one-hot labels (``from_logits``, ``label_smoothing``, class ``axis``)."""

    _config_keys = ("from_logits", "label_smoothing", "axis")

    def __init__(self, from_logits=False, label_smoothing=0.0, axis=-1, reduction=_DEFAULT_REDUCTION,
                 name="categorical_crossentropy", dtype=None):
        super().__init__(probabilistic.categorical_crossentropy, reduction, name, dtype, from_logits=from_logits,
                         label_smoothing=label_smoothing, axis=axis)


class CategoricalFocalCrossentropy(_BuiltinLoss):
    """Categorical focal crossentropy (``alpha`` weight, ``gamma`` focusing)."""

    _config_keys = ("from_logits", "label_smoothing", "axis", "alpha", "gamma")

    def __init__(self, alpha=0.25, gamma=2.0, from_logits=False, label_smoothing=0.0, axis=-1,
                 reduction=_DEFAULT_REDUCTION, name="categorical_focal_crossentropy", dtype=None):
        super().__init__(probabilistic.categorical_focal_crossentropy, reduction, name, dtype, alpha=alpha,
                         gamma=gamma, from_logits=from_logits, label_smoothing=label_smoothing, axis=axis)


class SparseCategoricalCrossentropy(_BuiltinLoss):
    """Categorical crossentropy of integer labels (``from_logits``, ``ignore_class`` masked out)."""

    _config_keys = ("from_logits", "ignore_class")

    def __init__(self, from_logits=False, ignore_class=None, reduction=_DEFAULT_REDUCTION, axis=-1,
                 name="sparse_categorical_crossentropy", dtype=None):
        super().__init__(probabilistic.sparse_categorical_crossentropy, reduction, name, dtype,
                         from_logits=from_logits, ignore_class=ignore_class, axis=axis)


class CategoricalGeneralizedCrossEntropy(_BuiltinLoss):
    """Generalized crossentropy ``(1 - p ** q) / q`` of integer labels, ``q`` in (0, 1)."""

    _config_keys = ("q",)

    def __init__(self, q=0.5, reduction=_DEFAULT_REDUCTION, name="categorical_generalized_cross_entropy",
                 dtype=None):
        if not 0 < q < 1:
            raise ValueError("q must be in the interval (0, 1)")
        super().__init__(probabilistic.categorical_generalized_cross_entropy, reduction, name, dtype, q=q)


class CTC(_BuiltinLoss):
    """CTC loss of integer label sequences (0 pads and is the blank) under per-step class scores."""

    def __init__(self, reduction=_DEFAULT_REDUCTION, name="ctc", dtype=None):
        super().__init__(sequence.ctc, reduction, name, dtype)


class Dice(_BuiltinLoss):
    """Dice loss, sums over ``axis`` (None: the whole batch gives one value)."""

    _config_keys = ("axis",)

    def __init__(self, reduction=_DEFAULT_REDUCTION, name="dice", axis=None, dtype=None):
        super().__init__(segmentation.dice, reduction, name, dtype, axis=axis)


class Tversky(_BuiltinLoss):
    """Tversky loss (``alpha`` weighs false positives, ``beta`` false negatives)."""

    _config_keys = ("alpha", "beta", "axis")

    def __init__(self, alpha=0.5, beta=0.5, reduction=_DEFAULT_REDUCTION, name="tversky", axis=None, dtype=None):
        super().__init__(segmentation.tversky, reduction, name, dtype, alpha=alpha, beta=beta, axis=axis)


class Circle(_BuiltinLoss):
    """Circle loss of embeddings with integer labels (``gamma`` scale, ``margin``)."""

    _config_keys = ("gamma", "margin", "remove_diagonal")

    def __init__(self, gamma=80.0, margin=0.4, remove_diagonal=True, reduction=_DEFAULT_REDUCTION, name="circle",
                 dtype=None):
        super().__init__(segmentation.circle, reduction, name, dtype, gamma=gamma, margin=margin,
                         remove_diagonal=remove_diagonal)
