"""EfficientNetV2 B0 ... B3, S, M, L (Tan & Le, "EfficientNetV2: Smaller Models and Faster Training", 2021).

Like EfficientNet, but the early stages use fused MBConv blocks (one regular convolution instead of the
1x1 expansion + depthwise pair, no squeeze-and-excitation), and the stem and stride-2 blocks pad "same".
With ``include_preprocessing`` the model takes [0, 255] pixels: the B variants rescale to [0, 1] and
normalize by ImageNet's statistics, S / M / L rescale to [-1, 1].
"""

import math

from vfw.frontends.tensorflow.keras.src import initializers
from vfw.frontends.tensorflow.keras.src.applications import imagenet_utils, model_assembly
from vfw.frontends.tensorflow.keras.src.applications.efficientnet import (
    conv_kernel_initializer,
    dense_kernel_initializer,
    residual,
    round_filters,
    squeeze_excite,
)
from vfw.frontends.tensorflow.keras.src.layers import (
    activations,
    convolutional,
    convolutional_depthwise,
    normalization,
    preprocessing,
)

_DROP_CONNECT_RATE = 0.2
_TOP_DROPOUT = 0.2
_BN_MOMENTUM = 0.9
_IMAGENET_MEAN_RGB = (0.485, 0.456, 0.406)
_IMAGENET_STDDEV_RGB = (0.229, 0.224, 0.225)
_WEIGHTS_MESSAGE = model_assembly.WEIGHTS_MESSAGE + "Received: weights={weights}"
_CLASSES_MESSAGE = 'If using `weights="imagenet"` with `include_top` as true, `classes` should be 1000'
_WEIGHTS_BASE = model_assembly.WEIGHTS_ROOT + "efficientnet_v2/"
# md5 digests of the ImageNet weight files (with the top, without it) per variant, as keras.utils.get_file checks.
_WEIGHTS_HASHES = {"b0": ("21ecbf6da12460d5c40bb2f29ceb2188", "893217f2bb855e2983157299931e43ff"),
                   "b1": ("069f0534ff22adf035c89e2d9547a9dc", "0e80663031ca32d657f9caa404b6ec37"),
                   "b2": ("424e49f28180edbde1e94797771950a7", "1dfe2e7a5d45b6632553a8961ea609eb"),
                   "b3": ("1f1fc43bd98a6e4fd8fdfd551e02c7a0", "f6abf7b5849ac99a89b50dd3fd532856"),
                   "s": ("e1d88a8495beba45748fedd0cecbe016", "af0682fb74e8c54910f2d4393339c070"),
                   "m": ("a3bf6aa3276309f4fc6a34aa114c95cd", "1b8dc055df72dde80d614482840fe342"),
                   "l": ("27e6d408b53c7ebc868fefa357689935", "b0b66b5c863aef5b46e8608fe1711615")}

# Stages: (kernel, repeats, input filters, output filters, expansion ratio, squeeze-excite ratio, stride, fused)
_B_STAGES = (
    (3, 1, 32, 16, 1, 0, 1, True),
    (3, 2, 16, 32, 4, 0, 2, True),
    (3, 2, 32, 48, 4, 0, 2, True),
    (3, 3, 48, 96, 4, 0.25, 2, False),
    (3, 5, 96, 112, 6, 0.25, 1, False),
    (3, 8, 112, 192, 6, 0.25, 2, False),
)
_S_STAGES = (
    (3, 2, 24, 24, 1, 0, 1, True),
    (3, 4, 24, 48, 4, 0, 2, True),
    (3, 4, 48, 64, 4, 0, 2, True),
    (3, 6, 64, 128, 4, 0.25, 2, False),
    (3, 9, 128, 160, 6, 0.25, 1, False),
    (3, 15, 160, 256, 6, 0.25, 2, False),
)
_M_STAGES = (
    (3, 3, 24, 24, 1, 0, 1, True),
    (3, 5, 24, 48, 4, 0, 2, True),
    (3, 5, 48, 80, 4, 0, 2, True),
    (3, 7, 80, 160, 4, 0.25, 2, False),
    (3, 14, 160, 176, 6, 0.25, 1, False),
    (3, 18, 176, 304, 6, 0.25, 2, False),
    (3, 5, 304, 512, 6, 0.25, 1, False),
)
_L_STAGES = (
    (3, 4, 32, 32, 1, 0, 1, True),
    (3, 7, 32, 64, 4, 0, 2, True),
    (3, 7, 64, 96, 4, 0, 2, True),
    (3, 10, 96, 192, 4, 0.25, 2, False),
    (3, 19, 192, 224, 6, 0.25, 1, False),
    (3, 25, 224, 384, 6, 0.25, 2, False),
    (3, 7, 384, 640, 6, 0.25, 1, False),
)

# variant: (stages, width coefficient, depth coefficient, default resolution)
VARIANTS = {
    "b0": (_B_STAGES, 1.0, 1.0, 224),
    "b1": (_B_STAGES, 1.0, 1.1, 240),
    "b2": (_B_STAGES, 1.1, 1.2, 260),
    "b3": (_B_STAGES, 1.2, 1.4, 300),
    "s": (_S_STAGES, 1.0, 1.0, 384),
    "m": (_M_STAGES, 1.0, 1.0, 480),
    "l": (_L_STAGES, 1.0, 1.0, 480),
}


def _round_filters(filters, width_coefficient):
    # Unlike EfficientNet, no bump when rounding loses more than 10%.
    return round_filters(filters, width_coefficient, min_ratio=0)


def _batch_norm(x, name):
    return normalization.BatchNormalization(axis=model_assembly.channel_axis(), momentum=_BN_MOMENTUM, name=name)(x)


def _conv_bn(x, filters, kernel_size, strides, name, activation_name=None):
    """Conv2D (no bias, "same") ``<name>_conv`` + BatchNormalization ``<name>_bn`` [+ swish ``activation_name``]."""
    x = convolutional.Conv2D(filters, kernel_size, strides=strides, padding="same", use_bias=False,
                             kernel_initializer=conv_kernel_initializer(), name=name + "_conv")(x)
    x = _batch_norm(x, name + "_bn")
    if activation_name:
        x = activations.Activation("swish", name=activation_name)(x)
    return x


def _block(inputs, filters_in, filters_out, kernel_size, strides, expand_ratio, se_ratio, fused, drop_rate, prefix):
    """A fused or regular MBConv block; the residual (with stochastic depth) when shape is kept."""
    filters = filters_in * expand_ratio
    x = inputs
    if fused:
        if expand_ratio != 1:
            x = _conv_bn(x, filters, kernel_size, strides, prefix + "expand", prefix + "expand_activation")
            x = _conv_bn(x, filters_out, 1, 1, prefix + "project")
        else:
            x = _conv_bn(x, filters_out, kernel_size, strides, prefix + "project", prefix + "project_activation")
    else:
        if expand_ratio != 1:
            x = _conv_bn(x, filters, 1, 1, prefix + "expand", prefix + "expand_activation")
        x = convolutional_depthwise.DepthwiseConv2D(kernel_size, strides=strides, padding="same", use_bias=False,
                                                    depthwise_initializer=conv_kernel_initializer(),
                                                    name=prefix + "dwconv2")(x)
        x = _batch_norm(x, prefix + "bn")
        x = activations.Activation("swish", name=prefix + "activation")(x)
        if 0 < se_ratio <= 1:
            x = squeeze_excite(x, filters, max(1, int(filters_in * se_ratio)), prefix)
        x = _conv_bn(x, filters_out, 1, 1, prefix + "project")
    if strides == 1 and filters_in == filters_out:
        x = residual(x, inputs, drop_rate, prefix)
    return x


def _input_pipeline(x, variant):
    if variant.startswith("b"):
        x = preprocessing.Rescaling(1.0 / 255.0)(x)
        return preprocessing.Normalization(axis=model_assembly.channel_axis(), mean=list(_IMAGENET_MEAN_RGB),
                                           variance=[std**2 for std in _IMAGENET_STDDEV_RGB])(x)
    return preprocessing.Rescaling(scale=1.0 / 128.0, offset=-1)(x)


def _efficientnet_v2(variant, include_top, weights, input_tensor, input_shape, pooling_mode, classes,
                     classifier_activation, include_preprocessing, name):
    stages, width, depth, default_size = VARIANTS[variant]
    img_input = model_assembly.checked_image_input(weights, include_top, classes, input_tensor, input_shape,
                                                   default_size=default_size, min_size=32,
                                                   weights_message=_WEIGHTS_MESSAGE, classes_message=_CLASSES_MESSAGE)
    x = _input_pipeline(img_input, variant) if include_preprocessing else img_input
    x = _conv_bn(x, _round_filters(stages[0][2], width), 3, 2, "stem", "stem_activation")

    stage_repeats = [int(math.ceil(depth * stage[1])) for stage in stages]
    total_blocks = float(sum(stage_repeats))
    block_index = 0
    for stage, (spec, repeats) in enumerate(zip(stages, stage_repeats), start=1):
        kernel_size, _, filters_in, filters_out, expand_ratio, se_ratio, strides, fused = spec
        filters_in, filters_out = _round_filters(filters_in, width), _round_filters(filters_out, width)
        for repeat in range(repeats):
            if repeat > 0:
                strides, filters_in = 1, filters_out
            x = _block(x, filters_in, filters_out, kernel_size, strides, expand_ratio, se_ratio, fused,
                       _DROP_CONNECT_RATE * block_index / total_blocks, f"block{stage}{chr(ord('a') + repeat)}_")
            block_index += 1

    x = _conv_bn(x, _round_filters(1280, width), 1, 1, "top", "top_activation")
    x = model_assembly.classification_head(x, include_top, pooling_mode, classes, classifier_activation, weights,
                                           dropout=_TOP_DROPOUT, dense_initializer=dense_kernel_initializer(),
                                           dense_bias_initializer=initializers.Constant(0.0))
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
    input_shape : tuple, optional
    pooling : {None, "avg", "max"}
        Feature pooling when ``include_top`` is False.
    classes : int
    classifier_activation : str or callable or None
    include_preprocessing : bool
        Whether the model rescales (and normalizes) its [0, 255] input itself.
    name : str

    Returns
    -------
    keras.Model
"""


def _variant_function(variant):
    default_size = VARIANTS[variant][3]

    def model_function(include_top=True, weights="imagenet", input_tensor=None, input_shape=None, pooling=None,
                       classes=1000, classifier_activation="softmax", include_preprocessing=True,
                       name=f"efficientnetv2-{variant}"):
        return _efficientnet_v2(variant, include_top, weights, input_tensor, input_shape, pooling, classes,
                                classifier_activation, include_preprocessing, name)

    model_function.__name__ = model_function.__qualname__ = f"EfficientNetV2{variant.upper()}"
    model_function.__doc__ = (f"EfficientNetV2-{variant.upper()} (ImageNet input {default_size}x{default_size}x3).\n"
                              + _ARGUMENTS_DOC)
    return model_function


EfficientNetV2B0 = _variant_function("b0")
EfficientNetV2B1 = _variant_function("b1")
EfficientNetV2B2 = _variant_function("b2")
EfficientNetV2B3 = _variant_function("b3")
EfficientNetV2S = _variant_function("s")
EfficientNetV2M = _variant_function("m")
EfficientNetV2L = _variant_function("l")


preprocess_input, decode_predictions = imagenet_utils.family_functions(__name__, None)
