"""What the MobileNet and VGG families share beyond ``model_assembly``: their auto-named global pooling and
classifier ends."""

from vfw.frontends.tensorflow.keras import layers
from vfw.frontends.tensorflow.keras.src.applications import imagenet_utils


def feature_pooling(x, pooling):
    """``x`` globally pooled as ``pooling`` asks ("avg", "max"; anything else leaves it), auto-named layers."""
    if pooling == "avg":
        return layers.GlobalAveragePooling2D()(x)
    if pooling == "max":
        return layers.GlobalMaxPooling2D()(x)
    return x


def auto_named_top_or_pooling(x, include_top, pooling, classes, classifier_activation, weights):
    """An auto-named GlobalAveragePooling2D + the ``predictions`` Dense layer, or :func:`feature_pooling`."""
    if not include_top:
        return feature_pooling(x, pooling)
    x = layers.GlobalAveragePooling2D()(x)
    imagenet_utils.validate_activation(classifier_activation, weights)
    return layers.Dense(classes, activation=classifier_activation, name="predictions")(x)

