"""keras.metrics: metric classes and functions, ``get``, ``serialize``, ``deserialize``.

Modules: ``metric`` (the ``Metric`` base class), ``reduction`` (Sum, Mean, MeanMetricWrapper),
``accuracy``, ``regression``, ``probabilistic`` (loss means and hinges), ``confusion_utils`` and
``confusion`` (thresholded counts, Precision, Recall...), ``auc``, ``f_score``, ``iou``.

``keras.metrics.get("accuracy")`` gives the ``Accuracy`` metric; ``model.compile`` resolves
"accuracy"/"acc" against the loss itself (the trainer does that).
"""

import inspect

from vfw.frontends.tensorflow.keras.src.engine.naming import to_snake_case
from vfw.frontends.tensorflow.keras.src.losses.probabilistic import (
    binary_crossentropy,
    binary_focal_crossentropy,
    categorical_crossentropy,
    categorical_focal_crossentropy,
    kl_divergence,
    poisson,
    sparse_categorical_crossentropy,
)
from vfw.frontends.tensorflow.keras.src.losses.regression import (
    categorical_hinge,
    hinge,
    huber,
    log_cosh,
    mean_absolute_error,
    mean_absolute_percentage_error,
    mean_squared_error,
    mean_squared_logarithmic_error,
    squared_hinge,
)
from vfw.frontends.tensorflow.keras.src.metrics.accuracy import (
    Accuracy,
    BinaryAccuracy,
    CategoricalAccuracy,
    SparseCategoricalAccuracy,
    SparseTopKCategoricalAccuracy,
    TopKCategoricalAccuracy,
    binary_accuracy,
    categorical_accuracy,
    sparse_categorical_accuracy,
    sparse_top_k_categorical_accuracy,
    top_k_categorical_accuracy,
)
from vfw.frontends.tensorflow.keras.src.metrics.auc import AUC
from vfw.frontends.tensorflow.keras.src.metrics.confusion import (
    FalseNegatives,
    FalsePositives,
    Precision,
    PrecisionAtRecall,
    Recall,
    RecallAtPrecision,
    SensitivityAtSpecificity,
    SpecificityAtSensitivity,
    TrueNegatives,
    TruePositives,
)
from vfw.frontends.tensorflow.keras.src.metrics.f_score import F1Score, FBetaScore
from vfw.frontends.tensorflow.keras.src.metrics.iou import BinaryIoU, IoU, MeanIoU, OneHotIoU, OneHotMeanIoU
from vfw.frontends.tensorflow.keras.src.metrics.metric import Metric
from vfw.frontends.tensorflow.keras.src.metrics.probabilistic import (
    BinaryCrossentropy,
    CategoricalCrossentropy,
    CategoricalHinge,
    Hinge,
    KLDivergence,
    Poisson,
    SparseCategoricalCrossentropy,
    SquaredHinge,
)
from vfw.frontends.tensorflow.keras.src.metrics.reduction import Mean, MeanMetricWrapper, Sum
from vfw.frontends.tensorflow.keras.src.metrics.regression import (
    ConcordanceCorrelation,
    CosineSimilarity,
    LogCoshError,
    MeanAbsoluteError,
    MeanAbsolutePercentageError,
    MeanSquaredError,
    MeanSquaredLogarithmicError,
    PearsonCorrelation,
    R2Score,
    RootMeanSquaredError,
    concordance_correlation,
    pearson_correlation,
)
from vfw.frontends.tensorflow.keras.src.utils import serialization

_CLASSES = (
    Metric, Mean, Sum, MeanMetricWrapper, MeanSquaredError, RootMeanSquaredError, MeanAbsoluteError,
    MeanAbsolutePercentageError, MeanSquaredLogarithmicError, CosineSimilarity, LogCoshError, R2Score, AUC,
    FalseNegatives, FalsePositives, Precision, PrecisionAtRecall, Recall, RecallAtPrecision,
    SensitivityAtSpecificity, SpecificityAtSensitivity, TrueNegatives, TruePositives, ConcordanceCorrelation,
    PearsonCorrelation, Hinge, SquaredHinge, CategoricalHinge, KLDivergence, Poisson, BinaryCrossentropy,
    CategoricalCrossentropy, SparseCategoricalCrossentropy, Accuracy, BinaryAccuracy, CategoricalAccuracy,
    SparseCategoricalAccuracy, TopKCategoricalAccuracy, SparseTopKCategoricalAccuracy, F1Score, FBetaScore, IoU,
    BinaryIoU, MeanIoU, OneHotIoU, OneHotMeanIoU,
)
# The functions keras.metrics exposes (Keras' loss functions among them).
_FUNCTIONS = (
    binary_accuracy, binary_crossentropy, binary_focal_crossentropy, categorical_accuracy, categorical_crossentropy,
    categorical_focal_crossentropy, categorical_hinge, concordance_correlation, hinge, huber, kl_divergence,
    log_cosh, mean_absolute_error, mean_absolute_percentage_error, mean_squared_error,
    mean_squared_logarithmic_error, pearson_correlation, poisson, sparse_categorical_accuracy,
    sparse_categorical_crossentropy, sparse_top_k_categorical_accuracy, squared_hinge, top_k_categorical_accuracy,
)
# Names ``get``/``deserialize`` resolve: the class names, their snake_case forms, and short aliases.
ALL_OBJECTS = frozenset(_CLASSES)
ALL_OBJECTS_DICT = {cls.__name__: cls for cls in _CLASSES}
ALL_OBJECTS_DICT.update({to_snake_case(cls.__name__): cls for cls in _CLASSES})
ALL_OBJECTS_DICT.update({alias: cls for cls, aliases in (
    (BinaryCrossentropy, ("bce", "BCE")), (MeanSquaredError, ("mse", "MSE")), (MeanAbsoluteError, ("mae", "MAE")),
    (MeanAbsolutePercentageError, ("mape", "MAPE")), (MeanSquaredLogarithmicError, ("msle", "MSLE")))
    for alias in aliases})


def serialize(metric):
    """A metric function or ``Metric`` object as Keras' config dict."""
    return serialization.serialize_keras_object(metric)


def deserialize(config, custom_objects=None):
    """The metric function or ``Metric`` object a config (or a name) describes."""
    return serialization.deserialize_keras_object(config, module_objects=ALL_OBJECTS_DICT,
                                                  custom_objects=custom_objects)


def get(identifier):
    """A metric from an identifier: None, a name (``"mse"``, ``"auc"``, ``"Precision"``...), a config dict,
    a ``Metric`` class (instantiated with its defaults) or a callable (returned as is).

    Raises
    ------
    ValueError
        ``Could not interpret metric identifier: ...`` for anything else.
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
        raise ValueError(f"Could not interpret metric identifier: {identifier}")
    return obj() if inspect.isclass(obj) else obj


API = {
    "metrics": [cls.__name__ for cls in _CLASSES] + [fn.__name__ for fn in _FUNCTIONS]
    + ["get", "serialize", "deserialize"],
    "keras": ["Metric"],
}
