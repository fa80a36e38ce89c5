"""InceptionV3 (Szegedy et al., "Rethinking the Inception Architecture for Computer Vision", 2016).

A convolutional stem, then Inception modules ``mixed0`` ... ``mixed10``: parallel branches (1x1, factorized
5x5 / 7x7 / 3x3 convolutions, pooling) concatenated along the channels. Convolutions are Conv2D (no bias) +
BatchNormalization (no scale) + ReLU, auto-named as in Keras (``conv2d_5``, ``batch_normalization_5``...).
"""

from vfw.frontends.tensorflow.keras.src.applications import imagenet_utils, model_assembly
from vfw.frontends.tensorflow.keras.src.layers import activations, convolutional, merging, normalization
from vfw.frontends.tensorflow.keras.src.layers import pooling as pooling_layers

_WEIGHTS_MESSAGE = model_assembly.WEIGHTS_MESSAGE[:-1] + "; Received: weights={weights}"
_WEIGHTS_BASE = model_assembly.WEIGHTS_ROOT + "inception_v3/"
# md5 digests of the ImageNet weight files (with the top, without it), as keras.utils.get_file checks.
_WEIGHTS_HASHES = ("9a0d58056eeedaa3f26cb7ebd46da564", "bcbd6486424b2319ff4ef7d526e38f63")


def conv_bn(x, filters, rows, cols, strides=1, padding="same", name=None):
    """Conv2D(rows x cols, no bias) + BatchNormalization(scale=False) + ReLU (``name``, ``name_conv``/``_bn``)."""
    x = convolutional.Conv2D(filters, (rows, cols), strides=strides, padding=padding, use_bias=False,
                             name=None if name is None else name + "_conv")(x)
    x = normalization.BatchNormalization(axis=model_assembly.channel_axis(), scale=False,
                                         name=None if name is None else name + "_bn")(x)
    return activations.Activation("relu", name=name)(x)


def _chain(x, specs):
    """Successive :func:`conv_bn` calls, each spec ``(filters, rows, cols[, strides, padding])``."""
    for spec in specs:
        x = conv_bn(x, *spec)
    return x


def _average_pool_branch(x, filters):
    x = pooling_layers.AveragePooling2D((3, 3), strides=(1, 1), padding="same")(x)
    return conv_bn(x, filters, 1, 1)


def _concat(branches, name=None):
    return merging.Concatenate(axis=model_assembly.channel_axis(), name=name)(branches)


def _module_35(x, pool_filters, name):
    """1x1 | 1x1-5x5 | 1x1-3x3-3x3 | avgpool-1x1 (35x35 grid in the paper)."""
    branch1x1 = conv_bn(x, 64, 1, 1)
    branch5x5 = _chain(x, [(48, 1, 1), (64, 5, 5)])
    branch3x3dbl = _chain(x, [(64, 1, 1), (96, 3, 3), (96, 3, 3)])
    return _concat([branch1x1, branch5x5, branch3x3dbl, _average_pool_branch(x, pool_filters)], name)


def _module_17(x, filters_7x7, name):
    """1x1 | 1x1-1x7-7x1 | 1x1-7x1-1x7-7x1-1x7 | avgpool-1x1 (17x17 grid)."""
    f = filters_7x7
    branch1x1 = conv_bn(x, 192, 1, 1)
    branch7x7 = _chain(x, [(f, 1, 1), (f, 1, 7), (192, 7, 1)])
    branch7x7dbl = _chain(x, [(f, 1, 1), (f, 7, 1), (f, 1, 7), (f, 7, 1), (192, 1, 7)])
    return _concat([branch1x1, branch7x7, branch7x7dbl, _average_pool_branch(x, 192)], name)


def _module_8(x, index, name):
    """1x1 | 1x1-(1x3, 3x1) | 1x1-3x3-(1x3, 3x1) | avgpool-1x1 (8x8 grid, expanded filter banks)."""
    branch1x1 = conv_bn(x, 320, 1, 1)
    branch3x3 = conv_bn(x, 384, 1, 1)
    branch3x3 = _concat([conv_bn(branch3x3, 384, 1, 3), conv_bn(branch3x3, 384, 3, 1)], f"mixed9_{index}")
    branch3x3dbl = _chain(x, [(448, 1, 1), (384, 3, 3)])
    branch3x3dbl = _concat([conv_bn(branch3x3dbl, 384, 1, 3), conv_bn(branch3x3dbl, 384, 3, 1)])
    return _concat([branch1x1, branch3x3, branch3x3dbl, _average_pool_branch(x, 192)], name)


def _reduction(x, conv_branch, tower, name):
    """Grid reduction: two stride-2 convolution branches and a stride-2 max pooling, concatenated."""
    branch = _chain(x, conv_branch)
    tower = _chain(x, tower)
    pooled = pooling_layers.MaxPooling2D((3, 3), strides=(2, 2))(x)
    return _concat([branch, tower, pooled], name)


def InceptionV3(include_top=True, weights="imagenet", input_tensor=None, input_shape=None, pooling=None,
                classes=1000, classifier_activation="softmax", name="inception_v3"):
    """Inception-v3 (ImageNet input 299x299x3, at least 75x75).

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
                                                   default_size=299, min_size=75,
                                                   weights_message=_WEIGHTS_MESSAGE,
                                                   classes_message=model_assembly.CLASSES_RECEIVED_MESSAGE)
    x = _chain(img_input, [(32, 3, 3, 2, "valid"), (32, 3, 3, 1, "valid"), (64, 3, 3)])
    x = pooling_layers.MaxPooling2D((3, 3), strides=(2, 2))(x)
    x = _chain(x, [(80, 1, 1, 1, "valid"), (192, 3, 3, 1, "valid")])
    x = pooling_layers.MaxPooling2D((3, 3), strides=(2, 2))(x)

    x = _module_35(x, 32, "mixed0")
    x = _module_35(x, 64, "mixed1")
    x = _module_35(x, 64, "mixed2")
    x = _reduction(x, [(384, 3, 3, 2, "valid")], [(64, 1, 1), (96, 3, 3), (96, 3, 3, 2, "valid")], "mixed3")
    for index, filters_7x7 in enumerate((128, 160, 160, 192)):
        x = _module_17(x, filters_7x7, f"mixed{4 + index}")
    x = _reduction(x, [(192, 1, 1), (320, 3, 3, 2, "valid")],
                   [(192, 1, 1), (192, 1, 7), (192, 7, 1), (192, 3, 3, 2, "valid")], "mixed8")
    for index in range(2):
        x = _module_8(x, index, f"mixed{9 + index}")

    x = model_assembly.classification_head(x, include_top, pooling, classes, classifier_activation, weights,
                                           feature_pool_names=(None, None))
    url = f"{_WEIGHTS_BASE}inception_v3_weights_tf_dim_ordering_tf_kernels{'' if include_top else '_notop'}.h5"
    return model_assembly.finish_model(img_input, input_tensor, x, name, weights, url,
                                       _WEIGHTS_HASHES[0 if include_top else 1])


preprocess_input, decode_predictions = imagenet_utils.family_functions(__name__, "tf")
