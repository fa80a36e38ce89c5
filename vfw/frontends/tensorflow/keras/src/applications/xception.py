"""Xception (Chollet, "Xception: Deep Learning with Depthwise Separable Convolutions", 2017).

Entry flow (two convolutions, three downsampling blocks of separable convolutions with 1x1 strided
shortcuts), middle flow (eight residual blocks of three separable convolutions), exit flow.
"""

from vfw.frontends.tensorflow.keras.src.applications import imagenet_utils, model_assembly
from vfw.frontends.tensorflow.keras.src.layers import (
    activations,
    convolutional,
    convolutional_depthwise,
    merging,
    normalization,
)
from vfw.frontends.tensorflow.keras.src.layers import pooling as pooling_layers

_WEIGHTS_MESSAGE = model_assembly.WEIGHTS_MESSAGE.replace("`imagenet`", "'imagenet'")
_CLASSES_MESSAGE = ("If using `weights='imagenet'` with `include_top=True`, `classes` should be 1000.  "
                    "Received classes={classes}")
_WEIGHTS_BASE = model_assembly.WEIGHTS_ROOT + "xception/"
# md5 digests of the ImageNet weight files (with the top, without it), as keras.utils.get_file checks.
_WEIGHTS_HASHES = ("0a58e3b7378bc2990ea3b43d5981f1f6", "b0042744bf5b25fce3cb969f33bebb97")


def _channel_axis():
    # Xception's BatchNormalization layers record the axis as -1 under channels_last.
    return -1 if model_assembly.channel_axis() == 3 else 1


def _batch_norm(x, name=None):
    return normalization.BatchNormalization(axis=_channel_axis(), name=name)(x)


def _separable(x, filters, name, activate_first=True):
    """[ReLU ``<name>_act``] + SeparableConv2D 3x3 ``<name>`` + BatchNormalization ``<name>_bn``."""
    if activate_first:
        x = activations.Activation("relu", name=name + "_act")(x)
    x = convolutional_depthwise.SeparableConv2D(filters, (3, 3), padding="same", use_bias=False, name=name)(x)
    return _batch_norm(x, name + "_bn")


def _downsampling_block(x, filters, block, activate_first=True):
    """Two separable convolutions and a stride-2 max pooling, plus a 1x1 stride-2 convolution shortcut."""
    shortcut = convolutional.Conv2D(filters[1], (1, 1), strides=(2, 2), padding="same", use_bias=False)(x)
    shortcut = _batch_norm(shortcut)
    x = _separable(x, filters[0], f"block{block}_sepconv1", activate_first)
    x = _separable(x, filters[1], f"block{block}_sepconv2")
    x = pooling_layers.MaxPooling2D((3, 3), strides=(2, 2), padding="same", name=f"block{block}_pool")(x)
    return merging.Add()([x, shortcut])


def Xception(include_top=True, weights="imagenet", input_tensor=None, input_shape=None, pooling=None, classes=1000,
             classifier_activation="softmax", name="xception"):
    """Xception (ImageNet input 299x299x3, at least 71x71).

    Parameters
    ----------
    include_top : bool
        Whether to end with the global average pooling and the ``predictions`` Dense layer.
    weights : None, "imagenet" or str
        Random initialization, ImageNet weights (downloaded) or the path of a weights file.
    input_tensor : KerasTensor, optional
    input_shape : tuple, optional
    pooling : {None, "avg", "max"}
        Feature pooling when ``include_top`` is False.
    classes : int
    classifier_activation : str or callable or None
    name : str

    Returns
    -------
    keras.Model
    """
    img_input = model_assembly.checked_image_input(weights, include_top, classes, input_tensor, input_shape,
                                                   default_size=299, min_size=71,
                                                   weights_message=_WEIGHTS_MESSAGE, classes_message=_CLASSES_MESSAGE)
    x = img_input
    for index, (filters, strides) in enumerate(((32, 2), (64, 1)), start=1):
        x = convolutional.Conv2D(filters, (3, 3), strides=strides, use_bias=False, name=f"block1_conv{index}")(x)
        x = _batch_norm(x, f"block1_conv{index}_bn")
        x = activations.Activation("relu", name=f"block1_conv{index}_act")(x)

    x = _downsampling_block(x, (128, 128), 2, activate_first=False)
    x = _downsampling_block(x, (256, 256), 3)
    x = _downsampling_block(x, (728, 728), 4)
    for block in range(5, 13):
        shortcut = x
        for index in range(1, 4):
            x = _separable(x, 728, f"block{block}_sepconv{index}")
        x = merging.Add()([x, shortcut])
    x = _downsampling_block(x, (728, 1024), 13)

    for index, filters in enumerate((1536, 2048), start=1):
        x = convolutional_depthwise.SeparableConv2D(filters, (3, 3), padding="same", use_bias=False,
                                          name=f"block14_sepconv{index}")(x)
        x = _batch_norm(x, f"block14_sepconv{index}_bn")
        x = activations.Activation("relu", name=f"block14_sepconv{index}_act")(x)

    x = model_assembly.classification_head(x, include_top, pooling, classes, classifier_activation, weights,
                                           feature_pool_names=(None, None))
    url = f"{_WEIGHTS_BASE}xception_weights_tf_dim_ordering_tf_kernels{'' if include_top else '_notop'}.h5"
    return model_assembly.finish_model(img_input, input_tensor, x, name, weights, url,
                                       _WEIGHTS_HASHES[0 if include_top else 1])


preprocess_input, decode_predictions = imagenet_utils.family_functions(__name__, "tf")
