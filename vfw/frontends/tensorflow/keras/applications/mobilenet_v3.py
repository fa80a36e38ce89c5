"""keras.applications.mobilenet_v3 (the model functions are at ``keras.applications`` only, as in Keras)."""

from vfw.frontends.tensorflow.keras.src.applications.mobilenet_v3 import decode_predictions, preprocess_input

__all__ = ["decode_predictions", "preprocess_input"]
