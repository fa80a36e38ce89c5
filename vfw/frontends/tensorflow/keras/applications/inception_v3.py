"""keras.applications.inception_v3: InceptionV3."""

from vfw.frontends.tensorflow.keras.src.applications.inception_v3 import (
    InceptionV3,
    decode_predictions,
    preprocess_input,
)

__all__ = ["InceptionV3", "decode_predictions", "preprocess_input"]
