"""ResNet50/101/152 (He et al., 2015, "Deep Residual Learning for Image Recognition") and the builder shared
with ResNetV2 (``resnet_v2``).

Stem: 7x7 stride-2 conv, 3x3 stride-2 max pool; then four stages (``conv2``..``conv5``) of bottleneck blocks
(1x1 reduce, 3x3, 1x1 expand to 4x the stage width), then the classifier or pooling.
"""

from vfw.frontends.tensorflow.keras import backend, layers
from vfw.frontends.tensorflow.keras.src.applications import imagenet_utils, model_assembly

# Blocks per stage (conv2, conv3, conv4, conv5) of each depth.
STAGE_DEPTHS = {50: (3, 4, 6, 3), 101: (3, 4, 23, 3), 152: (3, 8, 36, 3)}
STAGE_WIDTHS = (64, 128, 256, 512)
BN_EPSILON = 1.001e-5
_WEIGHTS_BASE = model_assembly.WEIGHTS_ROOT + "resnet/"
# md5 digests of the ImageNet weight files (with the top, without it) per model, as keras.utils.get_file checks.
_WEIGHTS_HASHES = {
    "resnet50": ("2cb95161c43110f7111970584f804107", "4d473c1dd8becc155b73f8504c6f6626"),
    "resnet101": ("f1aeb4b969a6efcfb50fad2f0c20cfc5", "88cf7a10940856eca736dc7b7e228a21"),
    "resnet152": ("100835be76be38e30d865e96f2aaae62", "ee4c566cf9a93f14d82f913c2dc6dd0c"),
    "resnet50v2": ("3ef43a0b657b3be2300d5770ece849e0", "fac2f116257151a9d068a22e544a4917"),
    "resnet101v2": ("6343647c601c52e1368623803854d971", "c0ed64b8031c3730f411d2eb4eea35b5"),
    "resnet152v2": ("a49b44d1979771252814e80f8ec446f9", "ed17cf2e0169df9d443503ef94b23b33"),
}


def channel_axis():
    """The channel axis of 4D feature maps under the current image data format."""
    return 1 if backend.image_data_format() == "channels_first" else 3


def _bottleneck(x, filters, stride, projection, name):
    """A post-activation bottleneck block: ``relu(shortcut + bn(conv(relu(bn(conv(relu(bn(conv(x)))))))))``."""
    axis = channel_axis()
    if projection:
        shortcut = layers.Conv2D(4 * filters, 1, strides=stride, name=name + "_0_conv")(x)
        shortcut = layers.BatchNormalization(axis=axis, epsilon=BN_EPSILON, name=name + "_0_bn")(shortcut)
    else:
        shortcut = x
    x = layers.Conv2D(filters, 1, strides=stride, name=name + "_1_conv")(x)
    x = layers.BatchNormalization(axis=axis, epsilon=BN_EPSILON, name=name + "_1_bn")(x)
    x = layers.Activation("relu", name=name + "_1_relu")(x)
    x = layers.Conv2D(filters, 3, padding="same", name=name + "_2_conv")(x)
    x = layers.BatchNormalization(axis=axis, epsilon=BN_EPSILON, name=name + "_2_bn")(x)
    x = layers.Activation("relu", name=name + "_2_relu")(x)
    x = layers.Conv2D(4 * filters, 1, name=name + "_3_conv")(x)
    x = layers.BatchNormalization(axis=axis, epsilon=BN_EPSILON, name=name + "_3_bn")(x)
    x = layers.Add(name=name + "_add")([shortcut, x])
    return layers.Activation("relu", name=name + "_out")(x)


def _stages_v1(depth):
    def stages(x):
        for stage, (blocks, filters) in enumerate(zip(STAGE_DEPTHS[depth], STAGE_WIDTHS), start=2):
            for block in range(1, blocks + 1):
                stride = 2 if block == 1 and stage > 2 else 1
                x = _bottleneck(x, filters, stride, block == 1, f"conv{stage}_block{block}")
        return x
    return stages


def build_resnet(stages, preact, use_bias, model_name, include_top, weights, input_tensor, input_shape, pooling,
                 classes, classifier_activation, name):
    """A ResNet or ResNetV2 model: stem, ``stages(x)``, [post-activation], classifier or pooling.

    Parameters
    ----------
    stages : callable
        Builds the residual stages on the stem's output.
    preact : bool
        ResNetV2: no BN/ReLU in the stem, a final ``post_bn``/``post_relu`` instead.
    use_bias : bool
        Whether the stem convolution has a bias.
    model_name : str
        Default model name ("resnet50", "resnet50v2"...), which also names its ImageNet weight files.
    Others as :func:`ResNet50`.
    """
    model_assembly.check_weights_argument(weights, include_top, classes)
    input_shape = imagenet_utils.obtain_input_shape(input_shape, 224, 32, backend.image_data_format(),
                                                    include_top, weights)
    img_input = model_assembly.image_input(input_tensor, input_shape)
    axis = channel_axis()
    x = layers.ZeroPadding2D(((3, 3), (3, 3)), name="conv1_pad")(img_input)
    x = layers.Conv2D(64, 7, strides=2, use_bias=use_bias, name="conv1_conv")(x)
    if not preact:
        x = layers.BatchNormalization(axis=axis, epsilon=BN_EPSILON, name="conv1_bn")(x)
        x = layers.Activation("relu", name="conv1_relu")(x)
    x = layers.ZeroPadding2D(((1, 1), (1, 1)), name="pool1_pad")(x)
    x = layers.MaxPooling2D(3, strides=2, name="pool1_pool")(x)
    x = stages(x)
    if preact:
        x = layers.BatchNormalization(axis=axis, epsilon=BN_EPSILON, name="post_bn")(x)
        x = layers.Activation("relu", name="post_relu")(x)
    x = model_assembly.classification_head(x, include_top, pooling, classes, classifier_activation, weights)
    url = f"{_WEIGHTS_BASE}{model_name}_weights_tf_dim_ordering_tf_kernels{'' if include_top else '_notop'}.h5"
    file_hash = _WEIGHTS_HASHES[model_name][0 if include_top else 1]
    return model_assembly.finish_model(img_input, input_tensor, x, name or model_name, weights, url, file_hash)


def _resnet_v1(depth):
    def model_function(include_top=True, weights="imagenet", input_tensor=None, input_shape=None, pooling=None,
                       classes=1000, classifier_activation="softmax", name=f"resnet{depth}"):
        return build_resnet(_stages_v1(depth), False, True, f"resnet{depth}", include_top, weights, input_tensor,
                            input_shape, pooling, classes, classifier_activation, name)
    model_function.__name__ = model_function.__qualname__ = f"ResNet{depth}"
    model_function.__doc__ = f"""The ResNet{depth} model (``keras.applications.ResNet{depth}``).

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
        Global pooling of the features when ``include_top`` is False.
    classes : int
    classifier_activation : str or callable or None
    name : str

    Returns
    -------
    keras.Model
    """
    return model_function


ResNet50 = _resnet_v1(50)
ResNet101 = _resnet_v1(101)
ResNet152 = _resnet_v1(152)


preprocess_input, decode_predictions = imagenet_utils.family_functions(__name__, "caffe")
