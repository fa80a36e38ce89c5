"""keras.applications.resnet50."""

from vfw.frontends.tensorflow.keras.src.applications.resnet import ResNet50, decode_predictions, preprocess_input

__all__ = ["ResNet50", "decode_predictions", "preprocess_input"]
