"""MobileNetV2 (Sandler et al., 2018, "MobileNetV2: Inverted Residuals and Linear Bottlenecks").

A 3x3 stride-2 stem, 17 inverted-residual blocks (1x1 expansion + ReLU6, 3x3 depthwise + ReLU6, linear 1x1
projection, residual add when shapes allow), a 1x1 conv to 1280 features, then the classifier or pooling.
Layer names follow Keras' (``block_13_expand_relu``, ``block_16_project``...), which feature-extraction code
looks up with ``get_layer``.
"""

from vfw.frontends._warnings import warn_for_user
from vfw.frontends.tensorflow.keras import backend, layers
from vfw.frontends.tensorflow.keras.src.applications import imagenet_utils, model_assembly
from vfw.frontends.tensorflow.keras.src.applications import shared_a as shared

_WEIGHTS_BASE = model_assembly.WEIGHTS_ROOT + "mobilenet_v2/mobilenet_v2_weights_tf_dim_ordering_tf_kernels_"

_IMAGENET_ALPHAS = (0.35, 0.50, 0.75, 1.0, 1.3, 1.4)
_IMAGENET_SIZES = (96, 128, 160, 192, 224)
# Blocks after the first: (expansion factor, output channels before alpha, stride), one row per block.
_BLOCKS = [(6, 24, 2), (6, 24, 1),
           (6, 32, 2), (6, 32, 1), (6, 32, 1),
           (6, 64, 2), (6, 64, 1), (6, 64, 1), (6, 64, 1),
           (6, 96, 1), (6, 96, 1), (6, 96, 1),
           (6, 160, 2), (6, 160, 1), (6, 160, 1),
           (6, 320, 1)]
_BN = {"epsilon": 1e-3, "momentum": 0.999}


def make_divisible(value, divisor, min_value=None):
    """``value`` rounded to the nearest multiple of ``divisor`` (at least ``min_value``, default ``divisor``),
    never more than 10% below ``value`` (the channel rounding of the MobileNet papers)."""
    if min_value is None:
        min_value = divisor
    rounded = max(min_value, int(value + divisor / 2) // divisor * divisor)
    if rounded < 0.9 * value:
        rounded += divisor
    return rounded


def _inverted_residual(x, expansion, filters, alpha, stride, block_id, channel_axis):
    in_channels = x.shape[channel_axis]
    out_channels = make_divisible(int(filters * alpha), 8)
    prefix = f"block_{block_id}_" if block_id else "expanded_conv_"
    shortcut = x
    if block_id:
        x = layers.Conv2D(expansion * in_channels, 1, padding="same", use_bias=False, name=prefix + "expand")(x)
        x = layers.BatchNormalization(axis=channel_axis, name=prefix + "expand_BN", **_BN)(x)
        x = layers.ReLU(6.0, name=prefix + "expand_relu")(x)
    if stride == 2:
        x = layers.ZeroPadding2D(imagenet_utils.correct_pad(x, 3), name=prefix + "pad")(x)
    x = layers.DepthwiseConv2D(3, strides=stride, padding="same" if stride == 1 else "valid", use_bias=False,
                               name=prefix + "depthwise")(x)
    x = layers.BatchNormalization(axis=channel_axis, name=prefix + "depthwise_BN", **_BN)(x)
    x = layers.ReLU(6.0, name=prefix + "depthwise_relu")(x)
    x = layers.Conv2D(out_channels, 1, padding="same", use_bias=False, name=prefix + "project")(x)
    x = layers.BatchNormalization(axis=channel_axis, name=prefix + "project_BN", **_BN)(x)
    if stride == 1 and in_channels == out_channels:
        x = layers.Add(name=prefix + "add")([shortcut, x])
    return x


def default_size_and_shape(input_shape, input_tensor, include_top, weights, sizes=_IMAGENET_SIZES):
    """Keras' MobileNet input-shape resolution: ``(input_shape, rows)``.

    The default size is the square input's side when it is one of ``sizes`` (those of the ImageNet weights),
    else 224 (``rows`` too with ImageNet weights, with a warning); ``input_tensor`` (MobileNetV2 passes it,
    MobileNet does not) supplies the shape when ``input_shape`` is None and must agree with it otherwise.
    """
    data_format = backend.image_data_format()
    spatial = slice(1, 3) if data_format == "channels_first" else slice(0, 2)
    if input_shape is not None and input_tensor is not None:
        tensor_shape = tuple(input_tensor.shape[1:])
        col_axis = 2 if data_format == "channels_first" else 1
        if input_shape[col_axis] != tensor_shape[col_axis]:
            raise ValueError(f"input_tensor.shape[{col_axis + 1}] must equal input_shape[{col_axis}]; Received "
                             f"`input_tensor.shape={tuple(input_tensor.shape)}`, `input_shape={input_shape}`")
    known = input_shape
    if known is None and input_tensor is not None:
        known = tuple(input_tensor.shape[1:])
    default_size = 224
    if known is not None and len(known) == 3:
        rows, cols = known[spatial]
        if rows == cols and rows in sizes:
            default_size = rows
    input_shape = imagenet_utils.obtain_input_shape(input_shape, default_size, 32, data_format, include_top, weights)
    rows, cols = input_shape[spatial]
    if weights == "imagenet" and (rows != cols or rows not in sizes):
        # The weights file (and the model's name) then fall back to the 224x224 variant.
        warn_for_user(f"`input_shape` is undefined or non-square, or `rows` is not in {list(sizes)}. Weights for "
                      "input shape (224, 224) will be loaded as the default.")
        rows = 224
    return input_shape, rows


def MobileNetV2(input_shape=None, alpha=1.0, include_top=True, weights="imagenet", input_tensor=None, pooling=None,
                classes=1000, classifier_activation="softmax", name=None):
    """The MobileNetV2 model (``keras.applications.MobileNetV2``).

    Parameters
    ----------
    input_shape : tuple, optional
        ``(rows, cols, 3)`` (channels_last); at least 32x32. Default 224x224 with ``include_top``.
    alpha : float
        Width multiplier of every layer's channels (ImageNet weights exist for 0.35, 0.5, 0.75, 1.0, 1.3, 1.4).
    include_top : bool
        End with global average pooling and the ``predictions`` Dense layer.
    weights : None, "imagenet" or str
        Random initialisation, ImageNet (downloaded with ``keras.utils.get_file``) or a weights file path.
    input_tensor : KerasTensor, optional
        Build the model on this tensor (the model's inputs are the Inputs it comes from).
    pooling : None, "avg" or "max"
        Global pooling of the features when ``include_top`` is False.
    classes : int
    classifier_activation : str or callable or None
    name : str, optional
        Default ``mobilenetv2_{alpha:.2f}_{rows}``.

    Returns
    -------
    keras.Model
    """
    model_assembly.check_weights_argument(weights, include_top, classes)
    input_shape, rows = default_size_and_shape(input_shape, input_tensor, include_top, weights)
    if weights == "imagenet" and alpha not in _IMAGENET_ALPHAS:
        raise ValueError("If imagenet weights are being loaded, alpha must be one of `0.35`, `0.50`, `0.75`, "
                         f"`1.0`, `1.3` or `1.4` only; Received `alpha={alpha}`")
    img_input = model_assembly.image_input(input_tensor, input_shape)
    channel_axis = 1 if backend.image_data_format() == "channels_first" else -1

    x = layers.Conv2D(make_divisible(32 * alpha, 8), 3, strides=2, padding="same", use_bias=False,
                      name="Conv1")(img_input)
    x = layers.BatchNormalization(axis=channel_axis, name="bn_Conv1", **_BN)(x)
    x = layers.ReLU(6.0, name="Conv1_relu")(x)
    x = _inverted_residual(x, 1, 16, alpha, 1, 0, channel_axis)
    for block_id, (expansion, filters, stride) in enumerate(_BLOCKS, start=1):
        x = _inverted_residual(x, expansion, filters, alpha, stride, block_id, channel_axis)
    last_channels = make_divisible(1280 * alpha, 8) if alpha > 1.0 else 1280
    x = layers.Conv2D(last_channels, 1, use_bias=False, name="Conv_1")(x)
    x = layers.BatchNormalization(axis=channel_axis, name="Conv_1_bn", **_BN)(x)
    x = layers.ReLU(6.0, name="out_relu")(x)
    x = shared.auto_named_top_or_pooling(x, include_top, pooling, classes, classifier_activation, weights)
    url = f"{_WEIGHTS_BASE}{float(alpha)}_{rows}{'' if include_top else '_no_top'}.h5"
    return model_assembly.finish_model(img_input, input_tensor, x, name or f"mobilenetv2_{alpha:0.2f}_{rows}", weights,
                                       url)


preprocess_input, decode_predictions = imagenet_utils.family_functions(__name__, "tf")
