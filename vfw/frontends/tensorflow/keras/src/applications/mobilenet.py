"""MobileNet v1 (Howard et al., 2017, "MobileNets: Efficient Convolutional Neural Networks for Mobile Vision
Applications"): a 3x3 stride-2 stem and 13 depthwise-separable blocks (3x3 depthwise + BN + ReLU6, 1x1
pointwise + BN + ReLU6), then a 1x1-convolution classifier.
"""

from vfw.frontends.tensorflow.keras import backend, layers
from vfw.frontends.tensorflow.keras.src.applications import imagenet_utils, model_assembly, shared_a
from vfw.frontends.tensorflow.keras.src.applications.mobilenet_v2 import default_size_and_shape

_WEIGHTS_BASE = model_assembly.WEIGHTS_ROOT + "mobilenet/"
# Each ImageNet alpha as the weight files spell it (its two significant digits).
_IMAGENET_ALPHAS = {0.25: "2_5", 0.50: "5_0", 0.75: "7_5", 1.0: "1_0"}
_IMAGENET_SIZES = (128, 160, 192, 224)
# (pointwise filters before alpha, depthwise stride) of blocks 1..13.
_BLOCKS = [(64, 1), (128, 2), (128, 1), (256, 2), (256, 1), (512, 2),
           (512, 1), (512, 1), (512, 1), (512, 1), (512, 1), (1024, 2), (1024, 1)]


def _separable_block(x, filters, alpha, depth_multiplier, stride, block_id, channel_axis):
    if stride != 1:
        x = layers.ZeroPadding2D(((0, 1), (0, 1)), name=f"conv_pad_{block_id}")(x)
    x = layers.DepthwiseConv2D(3, padding="same" if stride == 1 else "valid", depth_multiplier=depth_multiplier,
                               strides=stride, use_bias=False, name=f"conv_dw_{block_id}")(x)
    x = layers.BatchNormalization(axis=channel_axis, name=f"conv_dw_{block_id}_bn")(x)
    x = layers.ReLU(6.0, name=f"conv_dw_{block_id}_relu")(x)
    x = layers.Conv2D(int(filters * alpha), 1, padding="same", use_bias=False, name=f"conv_pw_{block_id}")(x)
    x = layers.BatchNormalization(axis=channel_axis, name=f"conv_pw_{block_id}_bn")(x)
    return layers.ReLU(6.0, name=f"conv_pw_{block_id}_relu")(x)


def MobileNet(input_shape=None, alpha=1.0, depth_multiplier=1, dropout=1e-3, include_top=True, weights="imagenet",
              input_tensor=None, pooling=None, classes=1000, classifier_activation="softmax", name=None):
    """The MobileNet model (``keras.applications.MobileNet``).

    Parameters
    ----------
    input_shape : tuple, optional
        ``(rows, cols, 3)``; at least 32x32. Default 224x224 with ``include_top``.
    alpha : float
        Width multiplier of the pointwise convolutions (ImageNet weights: 0.25, 0.5, 0.75, 1.0).
    depth_multiplier : int
        Resolution multiplier of the depthwise convolutions (ImageNet weights: 1).
    dropout : float
        Dropout rate before the classifier.
    include_top : bool
        End with pooling, dropout, the ``conv_preds`` 1x1 convolution and ``predictions``.
    weights : None, "imagenet" or str
        Random initialisation, ImageNet (downloaded with ``keras.utils.get_file``) or a weights file path.
    input_tensor : KerasTensor, optional
    pooling : None, "avg" or "max"
        Global pooling of the features when ``include_top`` is False.
    classes : int
    classifier_activation : str or callable or None
    name : str, optional
        Default ``mobilenet_{alpha:.2f}_{rows}``.

    Returns
    -------
    keras.Model
    """
    model_assembly.check_weights_argument(weights, include_top, classes)
    input_shape, rows = default_size_and_shape(input_shape, None, include_top, weights, sizes=_IMAGENET_SIZES)
    if weights == "imagenet":
        if depth_multiplier != 1:
            raise ValueError("If imagenet weights are being loaded, depth multiplier must be 1.  Received "
                             f"depth_multiplier={depth_multiplier}")
        if alpha not in _IMAGENET_ALPHAS:
            raise ValueError("If imagenet weights are being loaded, alpha can be one of`0.25`, `0.50`, `0.75` or "
                             f"`1.0` only.  Received alpha={alpha}")
    img_input = model_assembly.image_input(input_tensor, input_shape)
    channel_axis = 1 if backend.image_data_format() == "channels_first" else -1

    x = layers.Conv2D(int(32 * alpha), 3, strides=2, padding="same", use_bias=False, name="conv1")(img_input)
    x = layers.BatchNormalization(axis=channel_axis, name="conv1_bn")(x)
    x = layers.ReLU(6.0, name="conv1_relu")(x)
    for block_id, (filters, stride) in enumerate(_BLOCKS, start=1):
        x = _separable_block(x, filters, alpha, depth_multiplier, stride, block_id, channel_axis)
    if include_top:
        x = layers.GlobalAveragePooling2D(keepdims=True)(x)
        x = layers.Dropout(dropout, name="dropout")(x)
        x = layers.Conv2D(classes, 1, padding="same", name="conv_preds")(x)
        x = layers.Reshape((classes,), name="reshape_2")(x)
        imagenet_utils.validate_activation(classifier_activation, weights)
        x = layers.Activation(classifier_activation, name="predictions")(x)
    else:
        x = shared_a.feature_pooling(x, pooling)
    url = None
    if weights == "imagenet":
        url = f"{_WEIGHTS_BASE}mobilenet_{_IMAGENET_ALPHAS[alpha]}_{rows}_tf{'' if include_top else '_no_top'}.h5"
    return model_assembly.finish_model(img_input, input_tensor, x, name or f"mobilenet_{alpha:0.2f}_{rows}", weights,
                                       url)


preprocess_input, decode_predictions = imagenet_utils.family_functions(__name__, "tf")
