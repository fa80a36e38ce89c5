"""keras.applications.resnet."""

from vfw.frontends.tensorflow.keras.src.applications.resnet import (
    ResNet50,
    ResNet101,
    ResNet152,
    decode_predictions,
    preprocess_input,
)

__all__ = ["ResNet101", "ResNet152", "ResNet50", "decode_predictions", "preprocess_input"]
