"""keras.applications.nasnet: NASNetMobile and NASNetLarge."""

from vfw.frontends.tensorflow.keras.src.applications.nasnet import (
    NASNetLarge,
    NASNetMobile,
    decode_predictions,
    preprocess_input,
)

__all__ = ["NASNetLarge", "NASNetMobile", "decode_predictions", "preprocess_input"]
