"""NASNetMobile / NASNetLarge (Zoph et al., "Learning Transferable Architectures for Scalable Image
Recognition", 2018).

A stem convolution, two reduction cells, then three groups of ``num_blocks`` normal cells separated by
reduction cells. Every cell combines the current input ``ip`` with the previous cell's input ``p`` (first
adjusted to the same grid and width) through pairs of separable convolutions and poolings added together,
and concatenates the results.
"""

from vfw.frontends.tensorflow.keras.src.applications import imagenet_utils, model_assembly
from vfw.frontends.tensorflow.keras.src.layers import (
    activations,
    convolutional,
    convolutional_depthwise,
    core,
    merging,
    normalization,
    reshaping,
)
from vfw.frontends.tensorflow.keras.src.layers import pooling as pooling_layers

_WEIGHTS_BASE = model_assembly.WEIGHTS_ROOT + "nasnet/"
# Per variant: the names the weight files (with the top, without it) are cached under, and their md5 digests.
_WEIGHTS_FILES = {"NASNet-mobile": (("nasnet_mobile.h5", "020fb642bf7360b370c678b08e0adf61"),
                                    ("nasnet_mobile_no_top.h5", "1ed92395b5b598bdda52abe5c0dbfd63")),
                  "NASNet-large": (("nasnet_large.h5", "11577c9a518f0070763c2b964a382f17"),
                                   ("nasnet_large_no_top.h5", "d81d89dc07e6e56530c4e77faddd61b5"))}
_CHANNEL_AXIS = -1  # NASNet is channels_last only.
_BN_MOMENTUM = 0.9997
_BN_EPSILON = 1e-3


def _batch_norm(x, name=None):
    return normalization.BatchNormalization(axis=_CHANNEL_AXIS, momentum=_BN_MOMENTUM, epsilon=_BN_EPSILON,
                                            name=name)(x)


def _conv_1x1(x, filters, name):
    return convolutional.Conv2D(filters, (1, 1), padding="same", use_bias=False, kernel_initializer="he_normal",
                                name=name)(x)


def _relu(x, name=None):
    return activations.Activation("relu", name=name)(x)


def _add(inputs, name=None):
    return merging.Add(name=name)(inputs)


def _separable_block(x, filters, kernel_size=3, strides=1, block_id=None):
    """ReLU, SeparableConv2D (stride-2: after a ZeroPadding2D, "valid"), BN, ReLU, SeparableConv2D, BN."""
    kernel_size = (kernel_size, kernel_size)
    x = _relu(x)
    padding = "same"
    if strides == 2:
        x = reshaping.ZeroPadding2D(imagenet_utils.correct_pad(x, kernel_size),
                                    name=f"separable_conv_1_pad_{block_id}")(x)
        padding = "valid"
    x = convolutional_depthwise.SeparableConv2D(filters, kernel_size, strides=(strides, strides), padding=padding,
                                                use_bias=False, name=f"separable_conv_1_{block_id}")(x)
    x = _batch_norm(x, f"separable_conv_1_bn_{block_id}")
    x = _relu(x)
    x = convolutional_depthwise.SeparableConv2D(filters, kernel_size, padding="same", use_bias=False,
                                                name=f"separable_conv_2_{block_id}")(x)
    return _batch_norm(x, f"separable_conv_2_bn_{block_id}")


def _adjust(p, ip, filters, block_id):
    """The previous input ``p`` matched to ``ip``: halved grid (two offset stride-2 paths) or 1x1 projection."""
    if p is None:
        return ip
    if p.shape[-2] != ip.shape[-2]:
        p = _relu(p, f"adjust_relu_1_{block_id}")
        p1 = pooling_layers.AveragePooling2D((1, 1), strides=(2, 2), padding="valid",
                                             name=f"adjust_avg_pool_1_{block_id}")(p)
        p1 = _conv_1x1(p1, filters // 2, f"adjust_conv_1_{block_id}")
        # The second path samples the grid shifted by one pixel.
        p2 = reshaping.ZeroPadding2D(padding=((0, 1), (0, 1)))(p)
        p2 = reshaping.Cropping2D(cropping=((1, 0), (1, 0)))(p2)
        p2 = pooling_layers.AveragePooling2D((1, 1), strides=(2, 2), padding="valid",
                                             name=f"adjust_avg_pool_2_{block_id}")(p2)
        p2 = _conv_1x1(p2, filters // 2, f"adjust_conv_2_{block_id}")
        p = merging.Concatenate(axis=_CHANNEL_AXIS)([p1, p2])
        return _batch_norm(p, f"adjust_bn_{block_id}")
    if p.shape[_CHANNEL_AXIS] != filters:
        p = _relu(p)
        p = _conv_1x1(p, filters, f"adjust_conv_projection_{block_id}")
        return _batch_norm(p, f"adjust_bn_{block_id}")
    return p


def _cell_input(ip, kind, filters, block_id):
    """ReLU + 1x1 conv + BN of the cell input (``<kind>_conv_1_<id>``, ``<kind>_bn_1_<id>``)."""
    h = _conv_1x1(_relu(ip), filters, f"{kind}_conv_1_{block_id}")
    return _batch_norm(h, f"{kind}_bn_1_{block_id}")


def _normal_cell(ip, p, filters, block_id):
    """A normal cell (same grid); returns ``(output, ip)``."""
    p = _adjust(p, ip, filters, block_id)
    h = _cell_input(ip, "normal", filters, block_id)

    def average_pool(x, name):
        return pooling_layers.AveragePooling2D((3, 3), strides=(1, 1), padding="same", name=name)(x)

    x1 = _add([_separable_block(h, filters, 5, block_id=f"normal_left1_{block_id}"),
               _separable_block(p, filters, block_id=f"normal_right1_{block_id}")], f"normal_add_1_{block_id}")
    x2 = _add([_separable_block(p, filters, 5, block_id=f"normal_left2_{block_id}"),
               _separable_block(p, filters, 3, block_id=f"normal_right2_{block_id}")], f"normal_add_2_{block_id}")
    x3 = _add([average_pool(h, f"normal_left3_{block_id}"), p], f"normal_add_3_{block_id}")
    x4 = _add([average_pool(p, f"normal_left4_{block_id}"), average_pool(p, f"normal_right4_{block_id}")],
              f"normal_add_4_{block_id}")
    x5 = _add([_separable_block(h, filters, block_id=f"normal_left5_{block_id}"), h], f"normal_add_5_{block_id}")
    x = merging.Concatenate(axis=_CHANNEL_AXIS, name=f"normal_concat_{block_id}")([p, x1, x2, x3, x4, x5])
    return x, ip


def _reduction_cell(ip, p, filters, block_id):
    """A reduction cell (grid halved); returns ``(output, ip)``."""
    p = _adjust(p, ip, filters, block_id)
    h = _cell_input(ip, "reduction", filters, block_id)
    h3 = reshaping.ZeroPadding2D(imagenet_utils.correct_pad(h, 3), name=f"reduction_pad_1_{block_id}")(h)

    def pool(kind, x, name, strides=(2, 2), padding="valid"):
        return kind((3, 3), strides=strides, padding=padding, name=name)(x)

    x1 = _add([_separable_block(h, filters, 5, 2, f"reduction_left1_{block_id}"),
               _separable_block(p, filters, 7, 2, f"reduction_right1_{block_id}")], f"reduction_add_1_{block_id}")
    x2 = _add([pool(pooling_layers.MaxPooling2D, h3, f"reduction_left2_{block_id}"),
               _separable_block(p, filters, 7, 2, f"reduction_right2_{block_id}")], f"reduction_add_2_{block_id}")
    x3 = _add([pool(pooling_layers.AveragePooling2D, h3, f"reduction_left3_{block_id}"),
               _separable_block(p, filters, 5, 2, f"reduction_right3_{block_id}")], f"reduction_add3_{block_id}")
    x4 = _add([x2, pool(pooling_layers.AveragePooling2D, x1, f"reduction_left4_{block_id}", (1, 1), "same")])
    x5 = _add([_separable_block(x1, filters, 3, block_id=f"reduction_left4_{block_id}"),
               pool(pooling_layers.MaxPooling2D, h3, f"reduction_right5_{block_id}")], f"reduction_add4_{block_id}")
    x = merging.Concatenate(axis=_CHANNEL_AXIS, name=f"reduction_concat_{block_id}")([x2, x3, x4, x5])
    return x, ip


def _nasnet(input_shape, penultimate_filters, num_blocks, stem_filters, skip_reduction, default_size, weights_file,
            include_top, weights, input_tensor, pooling, classes, classifier_activation, name):
    if isinstance(input_shape, tuple) and None in input_shape and weights == "imagenet":
        raise ValueError("When specifying the input shape of a NASNet and loading `ImageNet` weights, the "
                         "input_shape argument must be static (no None entries). Got: `input_shape="
                         f"{input_shape}`.")
    img_input = model_assembly.checked_image_input(weights, include_top, classes, input_tensor, input_shape,
                                                   default_size=default_size, min_size=32)
    filter_multiplier = 2
    filters = penultimate_filters // 24

    x = convolutional.Conv2D(stem_filters, (3, 3), strides=(2, 2), padding="valid", use_bias=False,
                             kernel_initializer="he_normal", name="stem_conv1")(img_input)
    x = _batch_norm(x, "stem_bn1")
    x, p = _reduction_cell(x, None, filters // filter_multiplier**2, "stem_1")
    x, p = _reduction_cell(x, p, filters // filter_multiplier, "stem_2")
    for group in range(3):
        if group > 0:
            x, reduced_p = _reduction_cell(x, p, filters * filter_multiplier**group,
                                           f"reduce_{group * num_blocks}")
            if not skip_reduction:
                p = reduced_p
        for block in range(num_blocks):
            # Normal cells are numbered 0.. in the first group and after their reduction's number later.
            block_id = str(group * num_blocks + block + (1 if group else 0))
            x, p = _normal_cell(x, p, filters * filter_multiplier**group, block_id)
    x = _relu(x)

    if include_top:
        x = pooling_layers.GlobalAveragePooling2D()(x)
        imagenet_utils.validate_activation(classifier_activation, weights)
        x = core.Dense(classes, activation=classifier_activation, name="predictions")(x)
    else:
        x = model_assembly.classification_head(x, False, pooling, classes, classifier_activation, weights,
                                               feature_pool_names=(None, None))
    url = f"{_WEIGHTS_BASE}{weights_file}{'' if include_top else '-no-top'}.h5"
    cached_name, file_hash = _WEIGHTS_FILES[weights_file][0 if include_top else 1]
    return model_assembly.finish_model(img_input, input_tensor, x, name, weights, url, file_hash, cached_name)


_ARGUMENTS_DOC = """
    Parameters
    ----------
    input_shape : tuple, optional
    include_top : bool
        Whether to end with the global average pooling and the ``predictions`` Dense layer.
    weights : None, "imagenet" or str
        Random initialization, ImageNet weights (downloaded) or the path of a weights file.
    input_tensor : KerasTensor, optional
    pooling : {None, "avg", "max"}
        Feature pooling when ``include_top`` is False.
    classes : int
    classifier_activation : str or callable or None
    name : str

    Returns
    -------
    keras.Model
"""


def NASNetMobile(input_shape=None, include_top=True, weights="imagenet", input_tensor=None, pooling=None,
                 classes=1000, classifier_activation="softmax", name="nasnet_mobile"):
    # Keras' NASNetMobile takes 224x224 images when no shape is given, with or without its top.
    if input_shape is None:
        input_shape = (224, 224, 3)
    return _nasnet(input_shape, 1056, 4, 32, False, 224, "NASNet-mobile", include_top, weights, input_tensor,
                   pooling, classes, classifier_activation, name)


def NASNetLarge(input_shape=None, include_top=True, weights="imagenet", input_tensor=None, pooling=None,
                classes=1000, classifier_activation="softmax", name="nasnet_large"):
    return _nasnet(input_shape, 4032, 6, 96, True, 331, "NASNet-large", include_top, weights, input_tensor,
                   pooling, classes, classifier_activation, name)


NASNetMobile.__doc__ = "NASNet-A Mobile, 4 @ 1056 (ImageNet input 224x224x3).\n" + _ARGUMENTS_DOC
NASNetLarge.__doc__ = "NASNet-A Large, 6 @ 4032 (ImageNet input 331x331x3).\n" + _ARGUMENTS_DOC


preprocess_input, decode_predictions = imagenet_utils.family_functions(__name__, "tf")
