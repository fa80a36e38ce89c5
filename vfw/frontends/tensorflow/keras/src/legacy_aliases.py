"""tf.keras' short aliases of the regression and probabilistic losses (``MSE``, ``mae``, ``kld``, ``logcosh``...)
and its legacy ``Reduction`` constants.

TF 2.21's ``tf.keras`` (Keras 3 through ``keras._tf_keras``) keeps these in ``losses`` and
``metrics``; they are the same functions as the long names.
"""

from vfw.frontends.tensorflow.keras.src.losses import (
    kl_divergence,
    log_cosh,
    mean_absolute_error,
    mean_absolute_percentage_error,
    mean_squared_error,
    mean_squared_logarithmic_error,
)

MSE = mse = mean_squared_error
MAE = mae = mean_absolute_error
MAPE = mape = mean_absolute_percentage_error
MSLE = msle = mean_squared_logarithmic_error
KLD = kld = kullback_leibler_divergence = kl_divergence
logcosh = log_cosh


class Reduction:
    """The loss reduction names of tf.keras' legacy API (Keras 3 losses take them as ``reduction=`` strings)."""

    AUTO = "auto"
    NONE = "none"
    SUM = "sum"
    SUM_OVER_BATCH_SIZE = "sum_over_batch_size"

    @classmethod
    def all(cls):
        """tuple of str: every reduction name."""
        return (cls.AUTO, cls.NONE, cls.SUM, cls.SUM_OVER_BATCH_SIZE)

    @classmethod
    def validate(cls, key):
        """Raise ValueError unless ``key`` is a reduction name."""
        if key not in cls.all():
            raise ValueError(f'Invalid Reduction Key: {key}. Expected keys are "{cls.all()}"')


_ALIASES = ["MSE", "MAE", "MAPE", "MSLE", "KLD", "mse", "mae", "mape", "msle", "kld", "logcosh",
            "kullback_leibler_divergence"]
API = {"losses": _ALIASES + ["Reduction"], "metrics": _ALIASES}
