"""keras.applications.xception: Xception."""

from vfw.frontends.tensorflow.keras.src.applications.xception import Xception, decode_predictions, preprocess_input

__all__ = ["Xception", "decode_predictions", "preprocess_input"]
