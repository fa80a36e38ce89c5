"""keras.applications.vgg19."""

from vfw.frontends.tensorflow.keras.src.applications.vgg import VGG19, decode_predictions, preprocess_input

__all__ = ["VGG19", "decode_predictions", "preprocess_input"]
