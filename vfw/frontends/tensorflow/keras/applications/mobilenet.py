"""keras.applications.mobilenet."""

from vfw.frontends.tensorflow.keras.src.applications.mobilenet import MobileNet, decode_predictions, preprocess_input

__all__ = ["MobileNet", "decode_predictions", "preprocess_input"]
