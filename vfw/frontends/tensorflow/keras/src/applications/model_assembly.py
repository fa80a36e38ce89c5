"""The parts every ``keras.applications`` model function shares: the argument checks, the input, the
classification head (or feature pooling), the Model and its pretrained weights.

A family module builds only its backbone between :func:`image_input` and :func:`classification_head`,
then calls :func:`finish_model`.
"""

import os

from vfw.frontends.tensorflow.keras.src.applications import imagenet_utils
from vfw.frontends.tensorflow.keras.src.backend import image_data_format
from vfw.frontends.tensorflow.keras.src.engine.functional import Functional
from vfw.frontends.tensorflow.keras.src.engine.input_layer import Input
from vfw.frontends.tensorflow.keras.src.engine.keras_tensor import is_keras_tensor
from vfw.frontends.tensorflow.keras.src.engine.operation_utils import get_source_inputs
from vfw.frontends.tensorflow.keras.src.layers import core, pooling, regularization

WEIGHTS_ROOT = "https://storage.googleapis.com/tensorflow/keras-applications/"


def channel_axis():
    """The channel axis of 4D image tensors under ``keras.backend.image_data_format()``."""
    return 3 if image_data_format() == "channels_last" else 1


# Keras' messages for a bad ``weights`` / ``classes``; families word them differently (``str.format`` fields
# ``weights`` and ``classes``), see each family's ``*_MESSAGE`` variants.
WEIGHTS_MESSAGE = ("The `weights` argument should be either `None` (random initialization), `imagenet` "
                   "(pre-training on ImageNet), or the path to the weights file to be loaded.")
CLASSES_MESSAGE = 'If using `weights` as `"imagenet"` with `include_top` as true, `classes` should be 1000'
CLASSES_RECEIVED_MESSAGE = ('If using `weights="imagenet"` with `include_top=True`, `classes` should be 1000. '
                            'Received classes={classes}')


def check_weights_argument(weights, include_top, classes, weights_message=WEIGHTS_MESSAGE,
                           classes_message=CLASSES_MESSAGE):
    """Keras' checks of ``weights`` (None, "imagenet" or an existing file) and of ``classes`` with ImageNet weights.

    Raises
    ------
    ValueError
        With ``weights_message`` / ``classes_message`` (formatted with ``weights`` and ``classes``).
    """
    if not (weights in {"imagenet", None} or os.path.exists(weights)):
        raise ValueError(weights_message.format(weights=weights, classes=classes))
    if weights == "imagenet" and include_top and classes != 1000:
        raise ValueError(classes_message.format(weights=weights, classes=classes))


def image_input(input_tensor, input_shape):
    """The model's image input: ``Input(shape=input_shape)``, or ``input_tensor`` when it is a KerasTensor
    (a backend tensor becomes an Input wrapping it, as Keras does)."""
    if input_tensor is None:
        return Input(shape=input_shape)
    if is_keras_tensor(input_tensor):
        return input_tensor
    return Input(tensor=input_tensor, shape=input_shape)


def checked_image_input(weights, include_top, classes, input_tensor, input_shape, default_size, min_size,
                        **messages):
    """The argument checks and the image input of a model function (``default_size``/``min_size``: the image
    side its ImageNet weights expect and the smallest it accepts; ``messages``: see :func:`check_weights_argument`)."""
    check_weights_argument(weights, include_top, classes, **messages)
    input_shape = imagenet_utils.obtain_input_shape(input_shape, default_size=default_size, min_size=min_size,
                                                    data_format=image_data_format(), require_flatten=include_top,
                                                    weights=weights)
    return image_input(input_tensor, input_shape)


def classification_head(x, include_top, pooling_mode, classes, classifier_activation, weights, dropout=None,
                        dense_initializer="glorot_uniform", dense_bias_initializer="zeros",
                        feature_pool_names=("avg_pool", "max_pool")):
    """``avg_pool`` [+ ``top_dropout``] + the ``predictions`` Dense layer, or the optional feature pooling.

    Parameters
    ----------
    x : KerasTensor
        The backbone's last feature map.
    include_top : bool
    pooling_mode : {None, "avg", "max"}
        Used when ``include_top`` is False (any other value leaves the feature map, as in Keras).
    classes : int
    classifier_activation : str or callable or None
    weights : None or str
        Passed to :func:`imagenet_utils.validate_activation`.
    dropout : float, optional
        Rate of a ``top_dropout`` Dropout between the pooling and the classifier (EfficientNets).
    dense_initializer, dense_bias_initializer : str or initializer
        The classifier's kernel and bias initializers.
    feature_pool_names : tuple of 2 (str or None)
        Names of the GlobalAveragePooling2D / GlobalMaxPooling2D layer for ``pooling="avg"`` / ``"max"``
        (None: auto-named, as in the Inception and Xception models).
    """
    if include_top:
        x = pooling.GlobalAveragePooling2D(name="avg_pool")(x)
        if dropout:
            x = regularization.Dropout(dropout, name="top_dropout")(x)
        imagenet_utils.validate_activation(classifier_activation, weights)
        return core.Dense(classes, activation=classifier_activation, kernel_initializer=dense_initializer,
                          bias_initializer=dense_bias_initializer, name="predictions")(x)
    if pooling_mode == "avg":
        return pooling.GlobalAveragePooling2D(name=feature_pool_names[0])(x)
    if pooling_mode == "max":
        return pooling.GlobalMaxPooling2D(name=feature_pool_names[1])(x)
    return x


def finish_model(img_input, input_tensor, outputs, name, weights, weights_url, file_hash=None, fname=None):
    """The Functional model from the image input to ``outputs``, with its pretrained or file weights loaded.

    Parameters
    ----------
    img_input : KerasTensor
        What :func:`image_input` returned.
    input_tensor : KerasTensor or None
        The user's ``input_tensor``: the model then starts from that tensor's own inputs.
    outputs : KerasTensor
    name : str
    weights : None, "imagenet" or str
    weights_url : str or None
        Where the ImageNet weights of this variant (with or without its top) are downloaded from.
    file_hash : str, optional
        The md5 or sha256 digest ``keras.utils.get_file`` checks the downloaded (or cached) file against.
    fname : str, optional
        The name the download is cached under (default: the last part of ``weights_url``).
    """
    inputs = get_source_inputs(input_tensor) if input_tensor is not None else img_input
    model = Functional(inputs, outputs, name=name)
    if weights == "imagenet":
        from vfw.frontends.tensorflow.keras.src.utils.file_utils import get_file

        weights = get_file(fname or weights_url.rsplit("/", 1)[-1], weights_url, cache_subdir="models",
                           file_hash=file_hash)
    if weights is not None:
        # legacy HDF5 files (the released ImageNet weights, Keras 2 saves) load layer by layer in order, as in Keras:
        # the layers Keras leaves unnamed (e.g. ConvNeXt's last LayerNormalization) carry counter names
        model.load_weights(weights)
    return model
