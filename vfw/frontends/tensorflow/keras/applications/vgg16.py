"""keras.applications.vgg16."""

from vfw.frontends.tensorflow.keras.src.applications.vgg import VGG16, decode_predictions, preprocess_input

__all__ = ["VGG16", "decode_predictions", "preprocess_input"]
