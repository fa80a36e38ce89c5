"""keras.applications.imagenet_utils: ImageNet preprocessing and prediction decoding."""

from vfw.frontends.tensorflow.keras.src.applications.imagenet_utils import decode_predictions, preprocess_input

__all__ = ["decode_predictions", "preprocess_input"]
