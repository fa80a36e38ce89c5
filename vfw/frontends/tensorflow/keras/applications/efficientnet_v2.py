"""keras.applications.efficientnet_v2: EfficientNetV2B0 ... B3, S, M, L."""

from vfw.frontends.tensorflow.keras.src.applications.efficientnet_v2 import (
    EfficientNetV2B0,
    EfficientNetV2B1,
    EfficientNetV2B2,
    EfficientNetV2B3,
    EfficientNetV2L,
    EfficientNetV2M,
    EfficientNetV2S,
    decode_predictions,
    preprocess_input,
)

__all__ = ["EfficientNetV2B0", "EfficientNetV2B1", "EfficientNetV2B2", "EfficientNetV2B3", "EfficientNetV2L",
           "EfficientNetV2M", "EfficientNetV2S", "decode_predictions", "preprocess_input"]
