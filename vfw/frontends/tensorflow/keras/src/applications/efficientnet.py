"""EfficientNetB0 ... B7 (Tan & Le, "EfficientNet: Rethinking Model Scaling for CNNs", 2019).

A stem convolution, seven stages of MBConv blocks (1x1 expansion, depthwise conv, squeeze-and-excitation,
1x1 projection, a residual connection with stochastic depth) and a 1x1 top convolution; the variants
scale width, depth and resolution by compound coefficients. The input pipeline (scaling to [0, 1] and a
per-channel Normalization) is part of the model, so ``preprocess_input`` is the identity.
"""

import math

from vfw.frontends.tensorflow.keras.src import initializers
from vfw.frontends.tensorflow.keras.src.applications import imagenet_utils, model_assembly
from vfw.frontends.tensorflow.keras.src.layers import (
    activations,
    convolutional,
    convolutional_depthwise,
    merging,
    normalization,
    pooling,
    preprocessing,
    regularization,
    reshaping,
)

# (kernel size, repeats, input filters, output filters, expansion ratio, stride) of B0's seven stages;
# every block has squeeze-and-excitation with ratio 0.25.
_B0_STAGES = (
    (3, 1, 32, 16, 1, 1),
    (3, 2, 16, 24, 6, 2),
    (5, 2, 24, 40, 6, 2),
    (3, 3, 40, 80, 6, 2),
    (5, 3, 80, 112, 6, 1),
    (5, 4, 112, 192, 6, 2),
    (3, 1, 192, 320, 6, 1),
)
_SE_RATIO = 0.25
_DEPTH_DIVISOR = 8
_DROP_CONNECT_RATE = 0.2
# ImageNet's RGB standard deviations (the Normalization layer holds the variances when weights are loaded).
_IMAGENET_STDDEV_RGB = (0.229, 0.224, 0.225)
_CLASSES_MESSAGE = 'If using `weights="imagenet"` with `include_top` as true, `classes` should be 1000'
_WEIGHTS_BASE = "https://storage.googleapis.com/keras-applications/"
# md5 digests of the ImageNet weight files (with the top, without it) per variant, as keras.utils.get_file checks.
_WEIGHTS_HASHES = {"b0": ("902e53a9f72be733fc0bcb005b3ebbac", "50bc09e76180e00e4465e1a485ddc09d"),
                   "b1": ("1d254153d4ab51201f1646940f018540", "74c4e6b3e1f6a1eea24c589628592432"),
                   "b2": ("b15cce36ff4dcbd00b6dd88e7857a6ad", "111f8e2ac8aa800a7a99e3239f7bfb39"),
                   "b3": ("ffd1fdc53d0ce67064dc6a9c7960ede0", "af6d107764bb5b1abb91932881670226"),
                   "b4": ("18c95ad55216b8f92d7e70b3a046e2fc", "ebc24e6d6c33eaebbd558eafbeedf1ba"),
                   "b5": ("ace28f2a6363774853a83a0b21b9421a", "38879255a25d3c92d5e44e04ae6cec6f"),
                   "b6": ("165f6e37dce68623721b423839de8be5", "9ecce42647a20130c1f39a5d4cb75743"),
                   "b7": ("8c03f828fec3ef71311cd463b6759d99", "cbcfe4450ddf6f3ad90b1b398090fe4a")}

# variant: (width coefficient, depth coefficient, default resolution, top dropout rate)
VARIANTS = {
    "b0": (1.0, 1.0, 224, 0.2),
    "b1": (1.0, 1.1, 240, 0.2),
    "b2": (1.1, 1.2, 260, 0.3),
    "b3": (1.2, 1.4, 300, 0.3),
    "b4": (1.4, 1.8, 380, 0.4),
    "b5": (1.6, 2.2, 456, 0.4),
    "b6": (1.8, 2.6, 528, 0.5),
    "b7": (2.0, 3.1, 600, 0.5),
}


def conv_kernel_initializer():
    """He-style truncated normal over the fan-out (the convolutions' initializer)."""
    return initializers.VarianceScaling(scale=2.0, mode="fan_out", distribution="truncated_normal")


def dense_kernel_initializer():
    """Uniform with variance 1/(3 fan-out) (the classifier's initializer)."""
    return initializers.VarianceScaling(scale=1.0 / 3.0, mode="fan_out", distribution="uniform")


def round_filters(filters, width_coefficient, divisor=_DEPTH_DIVISOR, min_ratio=0.9):
    """``filters * width_coefficient`` rounded to the nearest multiple of ``divisor`` (at least ``divisor``),
    one ``divisor`` more when that falls below ``min_ratio`` times it (EfficientNetV2 passes 0: no bump)."""
    filters *= width_coefficient
    rounded = max(divisor, int(filters + divisor / 2) // divisor * divisor)
    if rounded < min_ratio * filters:
        rounded += divisor
    return int(rounded)


def _batch_norm(x, name):
    return normalization.BatchNormalization(axis=model_assembly.channel_axis(), name=name)(x)


def squeeze_excite(x, filters, squeezed_filters, prefix, activation="swish"):
    """Global average pooling, a bottleneck of two 1x1 convs (``activation`` then sigmoid), channel rescaling."""
    shape = (1, 1, filters) if model_assembly.channel_axis() == 3 else (filters, 1, 1)
    se = pooling.GlobalAveragePooling2D(name=prefix + "se_squeeze")(x)
    se = reshaping.Reshape(shape, name=prefix + "se_reshape")(se)
    se = convolutional.Conv2D(squeezed_filters, 1, padding="same", activation=activation,
                              kernel_initializer=conv_kernel_initializer(), name=prefix + "se_reduce")(se)
    se = convolutional.Conv2D(filters, 1, padding="same", activation="sigmoid",
                              kernel_initializer=conv_kernel_initializer(), name=prefix + "se_expand")(se)
    return merging.Multiply(name=prefix + "se_excite")([x, se])


def residual(x, shortcut, drop_rate, prefix):
    """``x + shortcut``, ``x`` dropped per sample (stochastic depth) at ``drop_rate`` while training."""
    if drop_rate > 0:
        x = regularization.Dropout(drop_rate, noise_shape=(None, 1, 1, 1), name=prefix + "drop")(x)
    return merging.Add(name=prefix + "add")([x, shortcut])


def _mbconv(inputs, filters_in, filters_out, kernel_size, strides, expand_ratio, drop_rate, prefix):
    """One MBConv block (names ``<prefix>expand_conv``, ``dwconv``, ``se_*``, ``project_*``, ``drop``, ``add``)."""
    filters = filters_in * expand_ratio
    x = inputs
    if expand_ratio != 1:
        x = convolutional.Conv2D(filters, 1, padding="same", use_bias=False,
                                 kernel_initializer=conv_kernel_initializer(), name=prefix + "expand_conv")(x)
        x = _batch_norm(x, prefix + "expand_bn")
        x = activations.Activation("swish", name=prefix + "expand_activation")(x)
    padding = "same"
    if strides == 2:
        x = reshaping.ZeroPadding2D(imagenet_utils.correct_pad(x, kernel_size), name=prefix + "dwconv_pad")(x)
        padding = "valid"
    x = convolutional_depthwise.DepthwiseConv2D(kernel_size, strides=strides, padding=padding, use_bias=False,
                                                depthwise_initializer=conv_kernel_initializer(),
                                                name=prefix + "dwconv")(x)
    x = _batch_norm(x, prefix + "bn")
    x = activations.Activation("swish", name=prefix + "activation")(x)
    x = squeeze_excite(x, filters, max(1, int(filters_in * _SE_RATIO)), prefix)
    x = convolutional.Conv2D(filters_out, 1, padding="same", use_bias=False,
                             kernel_initializer=conv_kernel_initializer(), name=prefix + "project_conv")(x)
    x = _batch_norm(x, prefix + "project_bn")
    if strides == 1 and filters_in == filters_out:
        x = residual(x, inputs, drop_rate, prefix)
    return x


def input_pipeline(x, weights):
    """Rescaling to [0, 1] and the per-channel Normalization; ImageNet weights also divide by sqrt(std)
    (the released weights were trained that way)."""
    x = preprocessing.Rescaling(1.0 / 255.0)(x)
    x = preprocessing.Normalization(axis=model_assembly.channel_axis())(x)
    if weights == "imagenet":
        x = preprocessing.Rescaling([1.0 / math.sqrt(std) for std in _IMAGENET_STDDEV_RGB])(x)
    return x


def _efficientnet(variant, include_top, weights, input_tensor, input_shape, pooling_mode, classes,
                  classifier_activation, name):
    width, depth, default_size, dropout_rate = VARIANTS[variant]
    img_input = model_assembly.checked_image_input(weights, include_top, classes, input_tensor, input_shape,
                                                   default_size=default_size, min_size=32,
                                                   classes_message=_CLASSES_MESSAGE)
    x = input_pipeline(img_input, weights)
    x = reshaping.ZeroPadding2D(imagenet_utils.correct_pad(x, 3), name="stem_conv_pad")(x)
    x = convolutional.Conv2D(round_filters(32, width), 3, strides=2, padding="valid", use_bias=False,
                             kernel_initializer=conv_kernel_initializer(), name="stem_conv")(x)
    x = _batch_norm(x, "stem_bn")
    x = activations.Activation("swish", name="stem_activation")(x)

    stage_repeats = [int(math.ceil(depth * stage[1])) for stage in _B0_STAGES]
    total_blocks = float(sum(stage_repeats))
    block_index = 0
    for stage, ((kernel_size, _, filters_in, filters_out, expand_ratio, strides), repeats) in enumerate(
            zip(_B0_STAGES, stage_repeats), start=1):
        filters_in, filters_out = round_filters(filters_in, width), round_filters(filters_out, width)
        for repeat in range(repeats):
            if repeat > 0:
                strides, filters_in = 1, filters_out
            x = _mbconv(x, filters_in, filters_out, kernel_size, strides, expand_ratio,
                        _DROP_CONNECT_RATE * block_index / total_blocks, f"block{stage}{chr(ord('a') + repeat)}_")
            block_index += 1

    x = convolutional.Conv2D(round_filters(1280, width), 1, padding="same", use_bias=False,
                             kernel_initializer=conv_kernel_initializer(), name="top_conv")(x)
    x = _batch_norm(x, "top_bn")
    x = activations.Activation("swish", name="top_activation")(x)
    x = model_assembly.classification_head(x, include_top, pooling_mode, classes, classifier_activation, weights,
                                           dropout=dropout_rate, dense_initializer=dense_kernel_initializer())
    # Keras names the file after the model's name (a renamed model asks for a file of its new name).
    url = f"{_WEIGHTS_BASE}{name}{'' if include_top else '_notop'}.h5"
    return model_assembly.finish_model(img_input, input_tensor, x, name, weights, url,
                                       _WEIGHTS_HASHES[variant][0 if include_top else 1])


_ARGUMENTS_DOC = """
    Parameters
    ----------
    include_top : bool
        Whether to end with pooling, ``top_dropout`` and the ``predictions`` Dense layer.
    weights : None, "imagenet" or str
        Random initialization, ImageNet weights (downloaded) or the path of a weights file.
    input_tensor : KerasTensor, optional
        Image tensor to build the model on.
    input_shape : tuple, optional
        Image shape without the batch (pixels in [0, 255]).
    pooling : {None, "avg", "max"}
        Feature pooling when ``include_top`` is False.
    classes : int
    classifier_activation : str or callable or None
    name : str

    Returns
    -------
    keras.Model
"""


def _variant_function(variant):
    default_size = VARIANTS[variant][2]

    def model_function(include_top=True, weights="imagenet", input_tensor=None, input_shape=None, pooling=None,
                       classes=1000, classifier_activation="softmax", name=f"efficientnet{variant}"):
        return _efficientnet(variant, include_top, weights, input_tensor, input_shape, pooling, classes,
                             classifier_activation, name)

    model_function.__name__ = model_function.__qualname__ = f"EfficientNet{variant.upper()}"
    model_function.__doc__ = f"EfficientNet-{variant.upper()} (ImageNet input {default_size}x{default_size}x3).\n"
    model_function.__doc__ += _ARGUMENTS_DOC
    return model_function


EfficientNetB0 = _variant_function("b0")
EfficientNetB1 = _variant_function("b1")
EfficientNetB2 = _variant_function("b2")
EfficientNetB3 = _variant_function("b3")
EfficientNetB4 = _variant_function("b4")
EfficientNetB5 = _variant_function("b5")
EfficientNetB6 = _variant_function("b6")
EfficientNetB7 = _variant_function("b7")


preprocess_input, decode_predictions = imagenet_utils.family_functions(__name__, None)
