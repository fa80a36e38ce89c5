"""keras.losses: loss classes and functions, ``get``, ``serialize``, ``deserialize``.

Modules: ``loss`` (the ``Loss`` base class and the weighting/masking/reduction of per-sample
losses), ``probabilistic``/``regression``/``segmentation``/``sequence`` (the loss functions),
``losses`` (the classes), ``conventions`` (the Keras backend conventions they share with metrics).
"""

import inspect

from vfw.frontends.tensorflow.keras.src.losses.loss import Loss
from vfw.frontends.tensorflow.keras.src.losses.losses import (
    CTC,
    BinaryCrossentropy,
    BinaryFocalCrossentropy,
    CategoricalCrossentropy,
    CategoricalFocalCrossentropy,
    CategoricalGeneralizedCrossEntropy,
    CategoricalHinge,
    Circle,
    CosineSimilarity,
    Dice,
    Hinge,
    Huber,
    KLDivergence,
    LogCosh,
    LossFunctionWrapper,
    MeanAbsoluteError,
    MeanAbsolutePercentageError,
    MeanSquaredError,
    MeanSquaredLogarithmicError,
    Poisson,
    SparseCategoricalCrossentropy,
    SquaredHinge,
    Tversky,
)
from vfw.frontends.tensorflow.keras.src.losses.probabilistic import (
    binary_crossentropy,
    binary_focal_crossentropy,
    categorical_crossentropy,
    categorical_focal_crossentropy,
    categorical_generalized_cross_entropy,
    kl_divergence,
    poisson,
    sparse_categorical_crossentropy,
)
from vfw.frontends.tensorflow.keras.src.losses.regression import (
    categorical_hinge,
    cosine_similarity,
    hinge,
    huber,
    log_cosh,
    mean_absolute_error,
    mean_absolute_percentage_error,
    mean_squared_error,
    mean_squared_logarithmic_error,
    squared_hinge,
)
from vfw.frontends.tensorflow.keras.src.losses.segmentation import circle, dice, tversky
from vfw.frontends.tensorflow.keras.src.losses.sequence import ctc
from vfw.frontends.tensorflow.keras.src.utils import serialization

_CLASSES = (
    Loss, LossFunctionWrapper, KLDivergence, Poisson, BinaryCrossentropy, BinaryFocalCrossentropy,
    CategoricalCrossentropy, CategoricalFocalCrossentropy, SparseCategoricalCrossentropy, MeanSquaredError,
    MeanAbsoluteError, MeanAbsolutePercentageError, MeanSquaredLogarithmicError, CosineSimilarity, LogCosh, Huber,
    Hinge, SquaredHinge, CategoricalHinge, Dice, Tversky, Circle, CTC,
)
_FUNCTIONS = (
    kl_divergence, poisson, binary_crossentropy, binary_focal_crossentropy, categorical_crossentropy,
    categorical_focal_crossentropy, sparse_categorical_crossentropy, mean_squared_error, mean_absolute_error,
    mean_absolute_percentage_error, mean_squared_logarithmic_error, cosine_similarity, log_cosh, huber, hinge,
    squared_hinge, categorical_hinge, dice, tversky, circle, ctc,
)
# Public, but (as in Keras 3.15.1) unknown to ``get``/``deserialize``.
_NOT_RESOLVED_BY_NAME = (CategoricalGeneralizedCrossEntropy, categorical_generalized_cross_entropy)
# Every loss object by name, and the short aliases Keras accepts.
ALL_OBJECTS = frozenset(_CLASSES + _FUNCTIONS)
ALL_OBJECTS_DICT = {obj.__name__: obj for obj in ALL_OBJECTS}
ALL_OBJECTS_DICT.update({alias: fn for fn, aliases in (
    (binary_crossentropy, ("bce", "BCE")), (kl_divergence, ("kld", "KLD")), (mean_absolute_error, ("mae", "MAE")),
    (mean_squared_error, ("mse", "MSE")), (mean_absolute_percentage_error, ("mape", "MAPE")),
    (mean_squared_logarithmic_error, ("msle", "MSLE"))) for alias in aliases})


def serialize(loss):
    """A loss function or ``Loss`` object as Keras' config dict."""
    return serialization.serialize_keras_object(loss)


def deserialize(name, custom_objects=None):
    """The loss function or ``Loss`` object a config (or a name) describes."""
    return serialization.deserialize_keras_object(name, module_objects=ALL_OBJECTS_DICT,
                                                  custom_objects=custom_objects)


def get(identifier):
    """A loss from an identifier: None, a name (``"mse"``, ``"CategoricalCrossentropy"``...), a config dict,
    a ``Loss`` class (instantiated with its defaults) or a callable (returned as is).

    Raises
    ------
    ValueError
        ``Could not interpret loss identifier: ...`` for anything else.
    """
    if identifier is None:
        return None
    if isinstance(identifier, dict):
        obj = deserialize(identifier)
    elif isinstance(identifier, str):
        obj = ALL_OBJECTS_DICT.get(identifier)
    else:
        obj = identifier
    if not callable(obj):
        raise ValueError(f"Could not interpret loss identifier: {identifier}")
    return obj() if inspect.isclass(obj) else obj


# LossFunctionWrapper is not public in Keras (configs still name it).
API = {
    "losses": [obj.__name__ for obj in _CLASSES + _FUNCTIONS + _NOT_RESOLVED_BY_NAME if obj is not LossFunctionWrapper]
    + ["get", "serialize", "deserialize"],
    "keras": ["Loss"],
}
