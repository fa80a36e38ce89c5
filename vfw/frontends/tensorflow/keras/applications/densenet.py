"""keras.applications.densenet: DenseNet121 / 169 / 201."""

from vfw.frontends.tensorflow.keras.src.applications.densenet import (
    DenseNet121,
    DenseNet169,
    DenseNet201,
    decode_predictions,
    preprocess_input,
)

__all__ = ["DenseNet121", "DenseNet169", "DenseNet201", "decode_predictions", "preprocess_input"]
