"""keras.applications.convnext: ConvNeXtTiny / Small / Base / Large / XLarge."""

from vfw.frontends.tensorflow.keras.src.applications.convnext import (
    ConvNeXtBase,
    ConvNeXtLarge,
    ConvNeXtSmall,
    ConvNeXtTiny,
    ConvNeXtXLarge,
    decode_predictions,
    preprocess_input,
)

__all__ = ["ConvNeXtBase", "ConvNeXtLarge", "ConvNeXtSmall", "ConvNeXtTiny", "ConvNeXtXLarge", "decode_predictions",
           "preprocess_input"]
