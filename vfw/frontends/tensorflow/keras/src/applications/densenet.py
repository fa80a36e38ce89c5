"""DenseNet121 / 169 / 201 (Huang et al., "Densely Connected Convolutional Networks", 2017).

Each dense block stacks BN-ReLU-Conv1x1(4k)-BN-ReLU-Conv3x3(k) units (growth rate k = 32) whose
output is concatenated to their input; transition blocks halve the channels (1x1 conv) and the
resolution (2x2 average pooling). Layer names follow Keras: ``conv2_block1_0_bn``, ``pool2_conv``...
"""

from vfw.frontends.tensorflow.keras.src.applications import imagenet_utils, model_assembly
from vfw.frontends.tensorflow.keras.src.layers import activations, convolutional, merging, normalization, reshaping
from vfw.frontends.tensorflow.keras.src.layers import pooling as pooling_layers

GROWTH_RATE = 32
_BN_EPSILON = 1.001e-5
_WEIGHTS_BASE = model_assembly.WEIGHTS_ROOT + "densenet/"
# md5 digests of the ImageNet weight files (with the top, without it) per variant, as keras.utils.get_file checks.
_WEIGHTS_HASHES = {"densenet121": ("9d60b8095a5708f2dcce2bca79d332c7", "30ee3e1110167f948a6b9946edeeb738"),
                   "densenet169": ("d699b8f76981ab1b30698df4c175e90b", "b8c4d4c20dd625c148057b9ff1c1176b"),
                   "densenet201": ("1ceb130c1ea1b78c3bf6114dbdfd8807", "c13680b51ded0fb44dff2d8f86ac8bb1")}


def _bn_relu(x, prefix):
    """BatchNormalization ``<prefix>bn`` then ReLU ``<prefix>relu``."""
    x = normalization.BatchNormalization(axis=model_assembly.channel_axis(), epsilon=_BN_EPSILON, name=prefix + "bn")(x)
    return activations.Activation("relu", name=prefix + "relu")(x)


def _conv_unit(x, name):
    """One BN-ReLU-Conv1x1-BN-ReLU-Conv3x3 unit, its ``growth_rate`` new maps concatenated to ``x``."""
    y = _bn_relu(x, name + "_0_")
    y = convolutional.Conv2D(4 * GROWTH_RATE, 1, use_bias=False, name=name + "_1_conv")(y)
    y = _bn_relu(y, name + "_1_")
    y = convolutional.Conv2D(GROWTH_RATE, 3, padding="same", use_bias=False, name=name + "_2_conv")(y)
    return merging.Concatenate(axis=model_assembly.channel_axis(), name=name + "_concat")([x, y])


def _transition(x, name):
    """BN-ReLU-Conv1x1 halving the channels, then 2x2 average pooling."""
    channels = x.shape[model_assembly.channel_axis()]
    x = _bn_relu(x, name + "_")
    x = convolutional.Conv2D(int(channels * 0.5), 1, use_bias=False, name=name + "_conv")(x)
    return pooling_layers.AveragePooling2D(2, strides=2, name=name + "_pool")(x)


def _densenet(blocks, variant, include_top, weights, input_tensor, input_shape, pooling, classes,
              classifier_activation, name):
    """The DenseNet with ``blocks[i]`` conv units in dense block ``i``; ``variant`` names its ImageNet weights."""
    img_input = model_assembly.checked_image_input(weights, include_top, classes, input_tensor, input_shape,
                                                   default_size=224, min_size=32)

    x = reshaping.ZeroPadding2D(padding=((3, 3), (3, 3)))(img_input)
    x = convolutional.Conv2D(64, 7, strides=2, use_bias=False, name="conv1_conv")(x)
    x = _bn_relu(x, "conv1_")
    x = reshaping.ZeroPadding2D(padding=((1, 1), (1, 1)))(x)
    x = pooling_layers.MaxPooling2D(3, strides=2, name="pool1")(x)
    for stage, units in enumerate(blocks, start=2):
        for unit in range(1, units + 1):
            x = _conv_unit(x, f"conv{stage}_block{unit}")
        if stage < 5:
            x = _transition(x, f"pool{stage}")
    x = _bn_relu(x, "")
    x = model_assembly.classification_head(x, include_top, pooling, classes, classifier_activation, weights)
    url = f"{_WEIGHTS_BASE}{variant}_weights_tf_dim_ordering_tf_kernels{'' if include_top else '_notop'}.h5"
    return model_assembly.finish_model(img_input, input_tensor, x, name, weights, url,
                                       _WEIGHTS_HASHES[variant][0 if include_top else 1])


_ARGUMENTS_DOC = """
    Parameters
    ----------
    include_top : bool
        Whether to end with the global average pooling and the ``predictions`` Dense layer.
    weights : None, "imagenet" or str
        Random initialization, ImageNet weights (downloaded) or the path of a weights file.
    input_tensor : KerasTensor, optional
        Image tensor to build the model on.
    input_shape : tuple, optional
        Image shape without the batch (default ``(224, 224, 3)``; at least 32x32 without the top).
    pooling : {None, "avg", "max"}
        Feature pooling when ``include_top`` is False.
    classes : int
        Number of classes of the top.
    classifier_activation : str or callable or None
        Activation of the ``predictions`` layer.
    name : str
        The model's name.

    Returns
    -------
    keras.Model
"""


def DenseNet121(include_top=True, weights="imagenet", input_tensor=None, input_shape=None, pooling=None,
                classes=1000, classifier_activation="softmax", name="densenet121"):
    return _densenet([6, 12, 24, 16], "densenet121", include_top, weights, input_tensor, input_shape, pooling,
                     classes, classifier_activation, name)


def DenseNet169(include_top=True, weights="imagenet", input_tensor=None, input_shape=None, pooling=None,
                classes=1000, classifier_activation="softmax", name="densenet169"):
    return _densenet([6, 12, 32, 32], "densenet169", include_top, weights, input_tensor, input_shape, pooling,
                     classes, classifier_activation, name)


def DenseNet201(include_top=True, weights="imagenet", input_tensor=None, input_shape=None, pooling=None,
                classes=1000, classifier_activation="softmax", name="densenet201"):
    return _densenet([6, 12, 48, 32], "densenet201", include_top, weights, input_tensor, input_shape, pooling,
                     classes, classifier_activation, name)


for _model_function, _depth in ((DenseNet121, 121), (DenseNet169, 169), (DenseNet201, 201)):
    _model_function.__doc__ = f"DenseNet-{_depth} (ImageNet input 224x224x3).\n" + _ARGUMENTS_DOC


preprocess_input, decode_predictions = imagenet_utils.family_functions(__name__, "torch")
