"""VGG16 and VGG19 (Simonyan & Zisserman, 2014, "Very Deep Convolutional Networks for Large-Scale Image
Recognition"): five blocks of 3x3 ReLU convolutions, each closed by a 2x2 max pool, then two 4096-unit
fully connected layers and the classifier.
"""

from vfw.frontends.tensorflow.keras import backend, layers
from vfw.frontends.tensorflow.keras.src.applications import imagenet_utils, model_assembly, shared_a

_BLOCK_WIDTHS = (64, 128, 256, 512, 512)
# md5 digests of the ImageNet weight files (with the top, without it), as keras.utils.get_file checks.
_WEIGHTS_HASHES = {16: ("64373286793e3c8b2b4e3219cbf3544b", "6d6bbae143d832006294945121d1f1fc"),
                   19: ("cbe5617147190e668d6c5d5026f83318", "253f8cb515780f3b799900260a226db6")}
# Convolutions per block.
_DEPTHS = {16: (2, 2, 3, 3, 3), 19: (2, 2, 4, 4, 4)}


def _vgg(depth):
    def model_function(include_top=True, weights="imagenet", input_tensor=None, input_shape=None, pooling=None,
                       classes=1000, classifier_activation="softmax", name=f"vgg{depth}"):
        model_assembly.check_weights_argument(weights, include_top, classes)
        input_shape = imagenet_utils.obtain_input_shape(input_shape, 224, 32, backend.image_data_format(),
                                                        include_top, weights)
        img_input = model_assembly.image_input(input_tensor, input_shape)
        x = img_input
        for block, (convolutions, filters) in enumerate(zip(_DEPTHS[depth], _BLOCK_WIDTHS), start=1):
            for index in range(1, convolutions + 1):
                x = layers.Conv2D(filters, 3, activation="relu", padding="same", name=f"block{block}_conv{index}")(x)
            x = layers.MaxPooling2D(2, strides=2, name=f"block{block}_pool")(x)
        if include_top:
            x = layers.Flatten(name="flatten")(x)
            x = layers.Dense(4096, activation="relu", name="fc1")(x)
            x = layers.Dense(4096, activation="relu", name="fc2")(x)
            imagenet_utils.validate_activation(classifier_activation, weights)
            x = layers.Dense(classes, activation=classifier_activation, name="predictions")(x)
        else:
            x = shared_a.feature_pooling(x, pooling)
        url = (f"{model_assembly.WEIGHTS_ROOT}vgg{depth}/vgg{depth}_weights_tf_dim_ordering_tf_kernels"
               f"{'' if include_top else '_notop'}.h5")
        file_hash = _WEIGHTS_HASHES[depth][0 if include_top else 1]
        return model_assembly.finish_model(img_input, input_tensor, x, name, weights, url, file_hash)

    model_function.__name__ = model_function.__qualname__ = f"VGG{depth}"
    model_function.__doc__ = f"""The VGG{depth} model (``keras.applications.VGG{depth}``).

    Parameters
    ----------
    include_top : bool
        End with ``flatten``, ``fc1``, ``fc2`` and the ``predictions`` Dense layer.
    weights : None, "imagenet" or str
        Random initialisation, ImageNet (downloaded with ``keras.utils.get_file``) or a weights file path.
    input_tensor : KerasTensor, optional
    input_shape : tuple, optional
        At least 32x32; default 224x224x3 with ``include_top``.
    pooling : None, "avg" or "max"
    classes : int
    classifier_activation : str or callable or None
    name : str

    Returns
    -------
    keras.Model
    """
    return model_function


VGG16 = _vgg(16)
VGG19 = _vgg(19)


preprocess_input, decode_predictions = imagenet_utils.family_functions(__name__, "caffe")
