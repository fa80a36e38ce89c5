"""InceptionResNetV2 (Szegedy et al., "Inception-v4, Inception-ResNet and the Impact of Residual Connections
on Learning", 2017).

An Inception stem and ``mixed_5b``, then residual Inception blocks (10 ``block35``, ``mixed_6a``, 20
``block17``, ``mixed_7a``, 10 ``block8``) whose branch output is scaled before being added to the input
(:class:`CustomScaleLayer`), and a 1x1 ``conv_7b``.
"""

from vfw.frontends.tensorflow.keras.src.applications import imagenet_utils, model_assembly
from vfw.frontends.tensorflow.keras.src.engine.layer import Layer
from vfw.frontends.tensorflow.keras.src.layers import activations, convolutional, merging, normalization
from vfw.frontends.tensorflow.keras.src.layers import pooling as pooling_layers

_WEIGHTS_BASE = model_assembly.WEIGHTS_ROOT + "inception_resnet_v2/"
# md5 digests of the ImageNet weight files (with the top, without it), as keras.utils.get_file checks.
_WEIGHTS_HASHES = ("e693bd0210a403b3192acc6073ad2e96", "d19885ff4a710c122648d3b5c3b684e4")


class CustomScaleLayer(Layer):
    """``inputs[0] + scale * inputs[1]``: the residual connection of an Inception-ResNet block.

    Parameters
    ----------
    scale : float
    """

    def __init__(self, scale, **kwargs):
        super().__init__(**kwargs)
        self.scale = scale

    def call(self, inputs):
        return inputs[0] + inputs[1] * self.scale

    def get_config(self):
        config = super().get_config()
        config.update({"scale": self.scale})
        return config


def conv_bn(x, filters, kernel_size, strides=1, padding="same", activation="relu", use_bias=False, name=None):
    """Conv2D ``name``; without bias a BatchNormalization(scale=False) ``name_bn``; the ``name_ac`` activation."""
    x = convolutional.Conv2D(filters, kernel_size, strides=strides, padding=padding, use_bias=use_bias, name=name)(x)
    if not use_bias:
        x = normalization.BatchNormalization(axis=model_assembly.channel_axis(), scale=False,
                                             name=None if name is None else name + "_bn")(x)
    if activation is not None:
        x = activations.Activation(activation, name=None if name is None else name + "_ac")(x)
    return x


def _chain(x, specs):
    """Successive :func:`conv_bn` calls, each spec ``(filters, kernel_size[, strides, padding])``."""
    for spec in specs:
        x = conv_bn(x, *spec)
    return x


def _concat(branches, name):
    return merging.Concatenate(axis=model_assembly.channel_axis(), name=name)(branches)


# Branches of each residual block type, as :func:`_chain` specs.
_RESIDUAL_BRANCHES = {
    "block35": ([(32, 1)], [(32, 1), (32, 3)], [(32, 1), (48, 3), (64, 3)]),
    "block17": ([(192, 1)], [(128, 1), (160, (1, 7)), (192, (7, 1))]),
    "block8": ([(192, 1)], [(192, 1), (224, (1, 3)), (256, (3, 1))]),
}


def _residual_block(x, scale, block_type, index, activation="relu"):
    """Inception branches, concatenated, projected back by a 1x1 conv (with bias), scaled and added to ``x``."""
    name = f"{block_type}_{index}"
    mixed = _concat([_chain(x, branch) for branch in _RESIDUAL_BRANCHES[block_type]], name + "_mixed")
    up = conv_bn(mixed, x.shape[model_assembly.channel_axis()], 1, activation=None, use_bias=True,
                 name=name + "_conv")
    x = CustomScaleLayer(scale)([x, up])
    if activation is not None:
        x = activations.Activation(activation, name=name + "_ac")(x)
    return x


def _reduction(x, branches, name):
    """Stride-2 convolution branches and a stride-2 max pooling, concatenated."""
    outputs = [_chain(x, branch) for branch in branches]
    outputs.append(pooling_layers.MaxPooling2D(3, strides=2, padding="valid")(x))
    return _concat(outputs, name)


def InceptionResNetV2(include_top=True, weights="imagenet", input_tensor=None, input_shape=None, pooling=None,
                      classes=1000, classifier_activation="softmax", name="inception_resnet_v2"):
    """Inception-ResNet-v2 (ImageNet input 299x299x3, at least 75x75).

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
                                                   classes_message=model_assembly.CLASSES_RECEIVED_MESSAGE)
    x = _chain(img_input, [(32, 3, 2, "valid"), (32, 3, 1, "valid"), (64, 3)])
    x = pooling_layers.MaxPooling2D(3, strides=2)(x)
    x = _chain(x, [(80, 1, 1, "valid"), (192, 3, 1, "valid")])
    x = pooling_layers.MaxPooling2D(3, strides=2)(x)

    branches = [conv_bn(x, 96, 1), _chain(x, [(48, 1), (64, 5)]), _chain(x, [(64, 1), (96, 3), (96, 3)])]
    branches.append(conv_bn(pooling_layers.AveragePooling2D(3, strides=1, padding="same")(x), 64, 1))
    x = _concat(branches, "mixed_5b")
    for index in range(1, 11):
        x = _residual_block(x, 0.17, "block35", index)
    x = _reduction(x, [[(384, 3, 2, "valid")], [(256, 1), (256, 3), (384, 3, 2, "valid")]], "mixed_6a")
    for index in range(1, 21):
        x = _residual_block(x, 0.1, "block17", index)
    x = _reduction(x, [[(256, 1), (384, 3, 2, "valid")], [(256, 1), (288, 3, 2, "valid")],
                       [(256, 1), (288, 3), (320, 3, 2, "valid")]], "mixed_7a")
    for index in range(1, 10):
        x = _residual_block(x, 0.2, "block8", index)
    x = _residual_block(x, 1.0, "block8", 10, activation=None)
    x = conv_bn(x, 1536, 1, name="conv_7b")

    x = model_assembly.classification_head(x, include_top, pooling, classes, classifier_activation, weights,
                                           feature_pool_names=(None, None))
    url = (f"{_WEIGHTS_BASE}inception_resnet_v2_weights_tf_dim_ordering_tf_kernels"
           f"{'' if include_top else '_notop'}.h5")
    return model_assembly.finish_model(img_input, input_tensor, x, name, weights, url,
                                       _WEIGHTS_HASHES[0 if include_top else 1])


preprocess_input, decode_predictions = imagenet_utils.family_functions(__name__, "tf")
