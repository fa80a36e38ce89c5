"""What the MobileNet, ResNet and VGG families share beyond ``model_assembly``: their auto-named global
pooling / classifier ends, and the model's completion (refusing Keras' legacy ImageNet ``.h5`` weights)."""

from vfw.frontends.tensorflow.keras import layers
from vfw.frontends.tensorflow.keras.src.applications import imagenet_utils, model_assembly


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


def finish(img_input, input_tensor, outputs, name, weights):
    """The model from ``img_input`` (or ``input_tensor``'s sources) to ``outputs``, with its file weights loaded.

    Raises
    ------
    ValueError
        ``weights="imagenet"``: Keras ships those as legacy ``.h5`` files, which vfw cannot read.
    """
    if weights == "imagenet":
        raise ValueError(f"vfw cannot load the ImageNet weights of `{name}`: Keras distributes them as legacy `.h5` "
                         "files, which vfw does not read. Pass `weights=None`, or `weights=<path>` to a "
                         "`.weights.h5` file saved from this architecture (`model.save_weights(...)`).")
    return model_assembly.finish_model(img_input, input_tensor, outputs, name, weights, None)
