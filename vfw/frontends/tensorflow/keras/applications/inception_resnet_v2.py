"""keras.applications.inception_resnet_v2: InceptionResNetV2."""

from vfw.frontends.tensorflow.keras.src.applications.inception_resnet_v2 import (
    InceptionResNetV2,
    decode_predictions,
    preprocess_input,
)

__all__ = ["InceptionResNetV2", "decode_predictions", "preprocess_input"]
