"""ResNet50V2/101V2/152V2 (He et al., 2016, "Identity Mappings in Deep Residual Networks").

Pre-activation bottleneck blocks (BN + ReLU before each convolution); a stage downsamples in its LAST block
(stride-2 3x3 conv, 1x1 max-pool shortcut), and a final ``post_bn``/``post_relu`` precedes the classifier.
"""

from vfw.frontends.tensorflow.keras import layers
from vfw.frontends.tensorflow.keras.src.applications import imagenet_utils
from vfw.frontends.tensorflow.keras.src.applications.resnet import (
    BN_EPSILON,
    STAGE_DEPTHS,
    STAGE_WIDTHS,
    build_resnet,
    channel_axis,
)


def _preact_bottleneck(x, filters, stride, projection, name):
    axis = channel_axis()
    preact = layers.BatchNormalization(axis=axis, epsilon=BN_EPSILON, name=name + "_preact_bn")(x)
    preact = layers.Activation("relu", name=name + "_preact_relu")(preact)
    if projection:
        shortcut = layers.Conv2D(4 * filters, 1, strides=stride, name=name + "_0_conv")(preact)
    elif stride > 1:
        shortcut = layers.MaxPooling2D(1, strides=stride)(x)
    else:
        shortcut = x
    x = layers.Conv2D(filters, 1, use_bias=False, name=name + "_1_conv")(preact)
    x = layers.BatchNormalization(axis=axis, epsilon=BN_EPSILON, name=name + "_1_bn")(x)
    x = layers.Activation("relu", name=name + "_1_relu")(x)
    x = layers.ZeroPadding2D(((1, 1), (1, 1)), name=name + "_2_pad")(x)
    x = layers.Conv2D(filters, 3, strides=stride, use_bias=False, name=name + "_2_conv")(x)
    x = layers.BatchNormalization(axis=axis, epsilon=BN_EPSILON, name=name + "_2_bn")(x)
    x = layers.Activation("relu", name=name + "_2_relu")(x)
    x = layers.Conv2D(4 * filters, 1, name=name + "_3_conv")(x)
    return layers.Add(name=name + "_out")([shortcut, x])


def _stages_v2(depth):
    def stages(x):
        for stage, (blocks, filters) in enumerate(zip(STAGE_DEPTHS[depth], STAGE_WIDTHS), start=2):
            for block in range(1, blocks + 1):
                stride = 2 if block == blocks and stage < 5 else 1
                x = _preact_bottleneck(x, filters, stride, block == 1, f"conv{stage}_block{block}")
        return x
    return stages


def _resnet_v2(depth):
    def model_function(include_top=True, weights="imagenet", input_tensor=None, input_shape=None, pooling=None,
                       classes=1000, classifier_activation="softmax", name=f"resnet{depth}v2"):
        return build_resnet(_stages_v2(depth), True, True, f"resnet{depth}v2", include_top, weights, input_tensor,
                            input_shape, pooling, classes, classifier_activation, name)
    model_function.__name__ = model_function.__qualname__ = f"ResNet{depth}V2"
    model_function.__doc__ = f"""The ResNet{depth}V2 model (``keras.applications.ResNet{depth}V2``).

    Parameters
    ----------
    include_top : bool
        End with ``avg_pool`` and the ``predictions`` Dense layer.
    weights : None, "imagenet" or str
        Random initialisation, ImageNet (downloaded with ``keras.utils.get_file``) or a weights file path.
    input_tensor : KerasTensor, optional
    input_shape : tuple, optional
        At least 32x32; default 224x224x3 with ``include_top``.
    pooling : None, "avg" or "max"
    classes : int
    classifier_activation : str or callable or None
    name : str

    Returns
    -------
    keras.Model
    """
    return model_function


ResNet50V2 = _resnet_v2(50)
ResNet101V2 = _resnet_v2(101)
ResNet152V2 = _resnet_v2(152)


preprocess_input, decode_predictions = imagenet_utils.family_functions(__name__, "tf")
