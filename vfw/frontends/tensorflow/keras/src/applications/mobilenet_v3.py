"""MobileNetV3Small and MobileNetV3Large (Howard et al., 2019, "Searching for MobileNetV3").

Inverted-residual blocks as MobileNetV2's, with 3x3 or 5x5 depthwise kernels, optional squeeze-and-excite
(gated by a hard sigmoid) and ReLU or hard-swish activations per block; ``minimalistic`` variants use 3x3
kernels, ReLU and no squeeze-and-excite. The ImageNet rescaling to [-1, 1] is part of the model
(``include_preprocessing``).
"""

from vfw.frontends._warnings import warn_for_user
from vfw.frontends.tensorflow.keras import backend, layers
from vfw.frontends.tensorflow.keras.src.applications import imagenet_utils, model_assembly
from vfw.frontends.tensorflow.keras.src.applications.mobilenet_v2 import make_divisible

_SE_RATIO = 0.25
_WEIGHTS_BASE = model_assembly.WEIGHTS_ROOT + "mobilenet_v3/weights_mobilenet_v3_"
# md5 digests of the ImageNet weight files (with the top, without it) per variant, as keras.utils.get_file checks.
_WEIGHTS_HASHES = {
    "large_224_0.75_float": ("765b44a33ad4005b3ac83185abf1d0eb", "40af19a13ebea4e2ee0c676887f69a2e"),
    "large_224_1.0_float": ("59e551e166be033d707958cf9e29a6a7", "07fb09a5933dd0c8eaafa16978110389"),
    "large_minimalistic_224_1.0_float": ("675e7b876c45c57e9e63e6d90a36599c", "ec5221f64a2f6d1ef965a614bdae7973"),
    "small_224_0.75_float": ("cb65d4e5be93758266aa0a7f2c6708b7", "ebdb5cc8e0b497cd13a7c275d475c819"),
    "small_224_1.0_float": ("8768d4c2e7dee89b9d02b2d03d65d862", "d3e8ec802a04aa4fc771ee12a9a9b836"),
    "small_minimalistic_224_1.0_float": ("99cd97fb2fcdad2bf028eb838de69e37", "cde8136e733e811080d9fcd8a252f7e4"),
}
_BN = {"epsilon": 1e-3, "momentum": 0.999}
# Per block: (expansion ratio, output filters before alpha, kernel, stride, squeeze-excite, hard-swish).
_SMALL_BLOCKS = [(1, 16, 3, 2, True, False), (72 / 16, 24, 3, 2, False, False), (88 / 24, 24, 3, 1, False, False),
                 (4, 40, 5, 2, True, True), (6, 40, 5, 1, True, True), (6, 40, 5, 1, True, True),
                 (3, 48, 5, 1, True, True), (3, 48, 5, 1, True, True), (6, 96, 5, 2, True, True),
                 (6, 96, 5, 1, True, True), (6, 96, 5, 1, True, True)]
_LARGE_BLOCKS = [(1, 16, 3, 1, False, False), (4, 24, 3, 2, False, False), (3, 24, 3, 1, False, False),
                 (3, 40, 5, 2, True, False), (3, 40, 5, 1, True, False), (3, 40, 5, 1, True, False),
                 (6, 80, 3, 2, False, True), (2.5, 80, 3, 1, False, True), (2.3, 80, 3, 1, False, True),
                 (2.3, 80, 3, 1, False, True), (6, 112, 3, 1, True, True), (6, 112, 3, 1, True, True),
                 (6, 160, 5, 2, True, True), (6, 160, 5, 1, True, True), (6, 160, 5, 1, True, True)]


def _activation(x, hard_swish):
    if hard_swish:
        return layers.Activation("hard_silu")(x)
    return layers.ReLU()(x)


def _hard_sigmoid(x):
    # relu6(x + 3) / 6, written with tensor operators as Keras' graph has it.
    return layers.ReLU(6.0)(x + 3.0) * (1.0 / 6.0)


def _squeeze_excite(inputs, channels, prefix):
    x = layers.GlobalAveragePooling2D(keepdims=True, name=prefix + "squeeze_excite_avg_pool")(inputs)
    x = layers.Conv2D(make_divisible(channels * _SE_RATIO, 8), 1, padding="same",
                      name=prefix + "squeeze_excite_conv")(x)
    x = layers.ReLU(name=prefix + "squeeze_excite_relu")(x)
    x = layers.Conv2D(channels, 1, padding="same", name=prefix + "squeeze_excite_conv_1")(x)
    x = _hard_sigmoid(x)
    return layers.Multiply(name=prefix + "squeeze_excite_mul")([inputs, x])


def _block(x, expansion, filters, kernel, stride, squeeze_excite, hard_swish, block_id, channel_axis):
    shortcut = x
    in_channels = x.shape[channel_axis]
    prefix = f"expanded_conv_{block_id}_" if block_id else "expanded_conv_"
    channels = in_channels
    if block_id:
        channels = make_divisible(in_channels * expansion, 8)
        x = layers.Conv2D(channels, 1, padding="same", use_bias=False, name=prefix + "expand")(x)
        x = layers.BatchNormalization(axis=channel_axis, name=prefix + "expand_bn", **_BN)(x)
        x = _activation(x, hard_swish)
    if stride == 2:
        x = layers.ZeroPadding2D(imagenet_utils.correct_pad(x, kernel), name=prefix + "depthwise_pad")(x)
    x = layers.DepthwiseConv2D(kernel, strides=stride, padding="same" if stride == 1 else "valid", use_bias=False,
                               name=prefix + "depthwise")(x)
    x = layers.BatchNormalization(axis=channel_axis, name=prefix + "depthwise_bn", **_BN)(x)
    x = _activation(x, hard_swish)
    if squeeze_excite:
        x = _squeeze_excite(x, channels, prefix)
    x = layers.Conv2D(filters, 1, padding="same", use_bias=False, name=prefix + "project")(x)
    x = layers.BatchNormalization(axis=channel_axis, name=prefix + "project_bn", **_BN)(x)
    if stride == 1 and in_channels == filters:
        x = layers.Add(name=prefix + "add")([shortcut, x])
    return x


def _resolve_input_shape(input_shape, input_tensor, channels_first):
    """MobileNetV3's own input checks (no ``obtain_input_shape``: any size from 32x32, static or not)."""
    col_axis = 2 if channels_first else 1
    if input_shape is not None and input_tensor is not None:
        if input_shape[col_axis] != input_tensor.shape[col_axis + 1]:
            raise ValueError(f"input_shape[{col_axis}] must equal input_tensor.shape[{col_axis + 1}].  Received "
                             f"input_shape={input_shape}, input_tensor.shape={tuple(input_tensor.shape)}")
    if input_shape is None and input_tensor is not None:
        input_shape = tuple(input_tensor.shape[1:])
    if input_shape is None:
        return (3, None, None) if channels_first else (None, None, 3)
    if len(input_shape) == 3:
        spatial = input_shape[1:] if channels_first else input_shape[:2]
        if any(side is not None and side < 32 for side in spatial):
            raise ValueError(f"Input size must be at least 32x32; Received `input_shape={input_shape}`")
    return input_shape


def _mobilenet_v3(size, blocks, last_point_channels, input_shape, alpha, minimalistic, include_top, weights,
                  input_tensor, classes, pooling, dropout_rate, classifier_activation, include_preprocessing, name):
    model_assembly.check_weights_argument(weights, include_top, classes)
    channels_first = backend.image_data_format() == "channels_first"
    input_shape = _resolve_input_shape(input_shape, input_tensor, channels_first)
    if weights == "imagenet" and (alpha not in (0.75, 1.0) or (minimalistic and alpha != 1.0)):
        raise ValueError("If imagenet weights are being loaded, alpha can be one of `0.75`, `1.0` for non "
                         "minimalistic or `1.0` for minimalistic only.")
    if weights == "imagenet":
        rows, cols = input_shape[1:] if channels_first else input_shape[:2]
        if rows != cols or rows != 224:
            warn_for_user("`input_shape` is undefined or non-square, or `rows` is not 224. Weights for input shape "
                          "(224, 224) will be loaded as the default.")
    img_input = model_assembly.image_input(input_tensor, input_shape)
    channel_axis = 1 if channels_first else -1

    x = img_input
    if include_preprocessing:
        x = layers.Rescaling(scale=1.0 / 127.5, offset=-1.0)(x)
    x = layers.Conv2D(16, 3, strides=2, padding="same", use_bias=False, name="conv")(x)
    x = layers.BatchNormalization(axis=channel_axis, name="conv_bn", **_BN)(x)
    x = _activation(x, not minimalistic)
    for block_id, (expansion, filters, kernel, stride, squeeze_excite, hard_swish) in enumerate(blocks):
        if minimalistic:
            kernel, squeeze_excite, hard_swish = 3, False, False
        x = _block(x, expansion, make_divisible(filters * alpha, 8), kernel, stride, squeeze_excite, hard_swish,
                   block_id, channel_axis)
    last_conv_channels = make_divisible(x.shape[channel_axis] * 6, 8)
    if alpha > 1.0:
        last_point_channels = make_divisible(last_point_channels * alpha, 8)
    x = layers.Conv2D(last_conv_channels, 1, padding="same", use_bias=False, name="conv_1")(x)
    x = layers.BatchNormalization(axis=channel_axis, name="conv_1_bn", **_BN)(x)
    x = _activation(x, not minimalistic)
    if include_top:
        x = layers.GlobalAveragePooling2D(keepdims=True)(x)
        x = layers.Conv2D(last_point_channels, 1, padding="same", name="conv_2")(x)
        x = _activation(x, not minimalistic)
        if dropout_rate > 0:
            x = layers.Dropout(dropout_rate)(x)
        x = layers.Conv2D(classes, 1, padding="same", name="logits")(x)
        x = layers.Flatten()(x)
        imagenet_utils.validate_activation(classifier_activation, weights)
        x = layers.Activation(classifier_activation, name="predictions")(x)
    else:
        x = model_assembly.classification_head(x, False, pooling, classes, classifier_activation, weights)
    variant = f"{size}{'_minimalistic' if minimalistic else ''}_224_{alpha}_float"
    url = f"{_WEIGHTS_BASE}{variant}{'' if include_top else '_no_top_v2'}.h5"
    file_hash = _WEIGHTS_HASHES[variant][0 if include_top else 1] if weights == "imagenet" else None
    return model_assembly.finish_model(img_input, input_tensor, x, name, weights, url, file_hash)


def _variant(size, blocks, last_point_channels, function_name):
    def model_function(input_shape=None, alpha=1.0, minimalistic=False, include_top=True, weights="imagenet",
                       input_tensor=None, classes=1000, pooling=None, dropout_rate=0.2,
                       classifier_activation="softmax", include_preprocessing=True, name=function_name):
        return _mobilenet_v3(size, blocks, last_point_channels, input_shape, alpha, minimalistic, include_top, weights,
                             input_tensor, classes, pooling, dropout_rate, classifier_activation,
                             include_preprocessing, name)
    model_function.__name__ = model_function.__qualname__ = function_name
    model_function.__doc__ = f"""The {function_name} model (``keras.applications.{function_name}``).

    Parameters
    ----------
    input_shape : tuple, optional
        Default ``(None, None, 3)``; sides of at least 32 when known.
    alpha : float
        Width multiplier of the block filters (ImageNet weights: 0.75, 1.0; minimalistic 1.0).
    minimalistic : bool
        3x3 kernels, ReLU, no squeeze-and-excite.
    include_top : bool
        End with pooling, ``conv_2``, dropout, the ``logits`` 1x1 convolution and ``predictions``.
    weights : None, "imagenet" or str
        Random initialisation, ImageNet (downloaded with ``keras.utils.get_file``) or a weights file path.
    input_tensor : KerasTensor, optional
    classes : int
    pooling : None, "avg" or "max"
        Global pooling (``avg_pool`` / ``max_pool``) when ``include_top`` is False.
    dropout_rate : float
        Dropout before the logits (none when 0).
    classifier_activation : str or callable or None
    include_preprocessing : bool
        Start with a Rescaling layer mapping [0, 255] to [-1, 1].
    name : str

    Returns
    -------
    keras.Model
    """
    return model_function


MobileNetV3Small = _variant("small", _SMALL_BLOCKS, 1024, "MobileNetV3Small")
MobileNetV3Large = _variant("large", _LARGE_BLOCKS, 1280, "MobileNetV3Large")


preprocess_input, decode_predictions = imagenet_utils.family_functions(__name__, None)
