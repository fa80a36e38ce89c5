"""keras.applications.efficientnet: EfficientNetB0 ... B7."""

from vfw.frontends.tensorflow.keras.src.applications.efficientnet import (
    EfficientNetB0,
    EfficientNetB1,
    EfficientNetB2,
    EfficientNetB3,
    EfficientNetB4,
    EfficientNetB5,
    EfficientNetB6,
    EfficientNetB7,
    decode_predictions,
    preprocess_input,
)

__all__ = ["EfficientNetB0", "EfficientNetB1", "EfficientNetB2", "EfficientNetB3", "EfficientNetB4",
           "EfficientNetB5", "EfficientNetB6", "EfficientNetB7", "decode_predictions", "preprocess_input"]
