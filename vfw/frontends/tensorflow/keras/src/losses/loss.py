"""``keras.losses.Loss`` and how per-sample losses become one value (sample weights, masks, reductions).

A loss object's ``__call__`` converts ``y_true``/``y_pred`` to its dtype, computes per-sample
losses with ``call``, folds any Keras mask (``_keras_mask`` on ``y_pred`` or on the losses) into
the sample weights, and reduces:

- ``"sum_over_batch_size"`` (default) and ``"mean"``: sum of weighted losses / number of loss values
  (a mask re-weights the valid entries by total/valid, so this is the mean over valid entries);
- ``"mean_with_sample_weight"``: sum of weighted losses / sum of the weights;
- ``"sum"``: the sum; ``"none"`` or ``None``: the weighted losses themselves.
"""

import vfw.tensorflow as tf
from vfw.frontends.tensorflow.keras.src.engine import layer_call, naming
from vfw.frontends.tensorflow.keras.src.losses import conventions

_REDUCTIONS = ("sum_over_batch_size", "sum", None, "none", "mean", "mean_with_sample_weight")
# Reductions that divide the sum by the number of loss values.
_MEAN_REDUCTIONS = ("sum_over_batch_size", "mean", "mean_with_sample_weight")


class Loss:
    """Base class of Keras losses: subclasses implement ``call(y_true, y_pred)`` returning per-sample losses.

    Parameters
    ----------
    name : str, optional
        Defaults to the class name in snake case, made unique (``"loss"``, ``"loss_1"``...).
    reduction : str or None
        ``"sum_over_batch_size"`` (default), ``"sum"``, ``"mean"``, ``"mean_with_sample_weight"``,
        ``"none"`` or None (see the module docstring).
    dtype : str or dtype policy, optional
        The dtype inputs are converted to and losses computed in; ``keras.config.floatx()`` by default.
    """

    def __init__(self, name=None, reduction="sum_over_batch_size", dtype=None):
        self.name = name or naming.auto_name(type(self).__name__)
        self.reduction = standardize_reduction(reduction)
        self._dtype = conventions.compute_dtype(dtype)

    @property
    def dtype(self):
        """The dtype name losses are computed in."""
        return self._dtype

    def __call__(self, y_true, y_pred, sample_weight=None):
        """The reduced loss of ``y_pred`` against ``y_true`` (tensors, arrays or nested structures of them).

        ``sample_weight`` (optional) broadcasts against the per-sample losses after Keras' rank
        adjustment (a trailing dimension of 1 is squeezed or added).
        """
        in_mask = layer_call.get_keras_mask(y_pred)
        y_pred = tf.nest.map_structure(lambda x: conventions.convert(x, self.dtype), y_pred)
        y_true = tf.nest.map_structure(lambda x: conventions.convert(x, self.dtype), y_true)
        losses = self.call(y_true, y_pred)
        out_mask = layer_call.get_keras_mask(losses)
        if in_mask is not None and out_mask is not None:
            mask = tf.logical_and(in_mask, out_mask)
        else:
            mask = in_mask if in_mask is not None else out_mask
        return reduce_weighted_values(losses, sample_weight=sample_weight, mask=mask, reduction=self.reduction,
                                      dtype=self.dtype)

    def call(self, y_true, y_pred):
        """Per-sample losses (subclasses implement it)."""
        raise NotImplementedError

    def get_config(self):
        """The constructor arguments that rebuild this loss."""
        return {"name": self.name, "reduction": self.reduction}

    @classmethod
    def from_config(cls, config):
        """A loss built from ``get_config()``'s dict."""
        return cls(**config)

    def _obj_type(self):
        return "Loss"


def standardize_reduction(reduction):
    """``reduction`` itself when it is one Keras accepts, else Keras' ValueError."""
    if reduction not in _REDUCTIONS:
        raise ValueError(f"Invalid value for argument `reduction`. Expected one of {set(_REDUCTIONS)}. "
                         f"Received: reduction={reduction}")
    return reduction


def squeeze_or_expand_to_same_rank(x1, x2, expand_rank_1=True):
    """``(x1, x2)`` brought to the same rank when they differ by one trailing dimension of size 1.

    The higher-rank one loses that dimension, except that a rank-1 partner gains one instead
    (when ``expand_rank_1``): ``(4,)`` against ``(4, 1)`` gives two ``(4, 1)`` tensors.
    """
    rank1, rank2 = len(x1.shape), len(x2.shape)
    if rank1 == rank2 + 1 and x1.shape[-1] == 1:
        if rank2 == 1 and expand_rank_1:
            x2 = tf.expand_dims(x2, axis=-1)
        else:
            x1 = tf.squeeze(x1, axis=-1)
    if rank2 == rank1 + 1 and x2.shape[-1] == 1:
        if rank1 == 1 and expand_rank_1:
            x1 = tf.expand_dims(x1, axis=-1)
        else:
            x2 = tf.squeeze(x2, axis=-1)
    return x1, x2


def _count(values, dtype):
    """The number of entries of ``values`` as a scalar of ``dtype``."""
    return tf.cast(tf.size(values), dtype)


def reduce_values(values, sample_weight=None, reduction="sum_over_batch_size"):
    """``values`` (already weighted) reduced to a scalar as ``reduction`` says; scalars and empty vectors pass."""
    if reduction in (None, "none") or tuple(values.shape) in ((), (0,)):
        return values
    loss = tf.reduce_sum(values)
    if reduction in _MEAN_REDUCTIONS:
        if reduction == "mean_with_sample_weight" and sample_weight is not None:
            divisor = tf.cast(tf.reduce_sum(sample_weight), loss.dtype)
        else:
            divisor = _count(values, loss.dtype)
        loss = tf.math.divide_no_nan(loss, divisor)
    return loss


def reduce_weighted_values(values, sample_weight=None, mask=None, reduction="sum_over_batch_size", dtype=None):
    """Per-sample ``values`` weighted by ``sample_weight`` and ``mask`` (either may be None), then reduced."""
    reduction = standardize_reduction(reduction)
    values = conventions.convert(values, dtype)
    if sample_weight is not None:
        sample_weight = conventions.convert(sample_weight, dtype)
    if mask is not None:
        mask = conventions.convert(mask, dtype)
    sample_weight = apply_mask(sample_weight, mask, dtype=values.dtype, reduction=reduction)
    if sample_weight is not None:
        sample_weight = tf.cast(sample_weight, values.dtype)
        values, sample_weight = squeeze_or_expand_to_same_rank(values, sample_weight)
        values = values * sample_weight
    return reduce_values(values, sample_weight, reduction)


def apply_mask(sample_weight, mask, dtype, reduction):
    """``sample_weight`` with ``mask`` folded in (the mask alone when there are no weights).

    Under a mean reduction, valid entries weigh total/valid so that dividing by the total count
    later averages over the valid entries only.
    """
    if mask is None:
        return sample_weight
    if reduction in ("mean", "sum_over_batch_size"):
        valid = tf.reduce_sum(tf.cast(mask, dtype))
        valid_weight = tf.math.divide_no_nan(_count(mask, dtype), valid)
        float_mask = tf.where(tf.cast(mask, "bool"), valid_weight, tf.zeros((), dtype))
    else:
        float_mask = tf.cast(mask, dtype)
    if sample_weight is None:
        return float_mask
    sample_weight = tf.cast(sample_weight, dtype)
    float_mask, sample_weight = squeeze_or_expand_to_same_rank(float_mask, sample_weight)
    return sample_weight * float_mask
