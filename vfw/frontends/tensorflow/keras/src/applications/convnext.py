"""ConvNeXtTiny / Small / Base / Large / XLarge (Liu et al., "A ConvNet for the 2020s", 2022).

A patchify stem (4x4 stride-4 conv + LayerNormalization), four stages of ConvNeXt blocks (7x7 depthwise
conv, LayerNormalization, an inverted MLP with GELU, LayerScale, residual) separated by downsampling
(LayerNormalization + 2x2 stride-2 conv). The stem and the downsamplings are Sequential sub-models, and
every layer name starts with the model's name (``convnext_tiny_stage_0_block_0_depthwise_conv``...).
"""

from vfw.frontends.tensorflow.keras.src import initializers
from vfw.frontends.tensorflow.keras.src.applications import imagenet_utils, model_assembly
from vfw.frontends.tensorflow.keras.src.engine.layer import Layer
from vfw.frontends.tensorflow.keras.src.engine.sequential import Sequential
from vfw.frontends.tensorflow.keras.src.layers import activations, convolutional, core, normalization, preprocessing
from vfw.frontends.tensorflow.keras.src.layers import pooling as pooling_layers

_WEIGHTS_BASE = model_assembly.WEIGHTS_ROOT + "convnext/"
# sha256 digests of the ImageNet weight files (with the top, without it) per variant, as keras.utils.get_file checks.
_WEIGHTS_HASHES = {
    "convnext_tiny": ("8ae6e78ce2933352b1ef4008e6dd2f17bc40771563877d156bc6426c7cf503ff",
                      "d547c096cabd03329d7be5562c5e14798aa39ed24b474157cef5e85ab9e49ef1"),
    "convnext_small": ("ce1277d8f1ee5a0ef0e171469089c18f5233860ceaf9b168049cb9263fd7483c",
                       "6fc8009faa2f00c1c1dfce59feea9b0745eb260a7dd11bee65c8e20843da6eab"),
    "convnext_base": ("52cbb006d3dadd03f6e095a8ca1aca47aecdd75acb4bc74bce1f5c695d0086e6",
                      "40a20c5548a5e9202f69735ecc06c990e6b7c9d2de39f0361e27baeb24cb7c45"),
    "convnext_large": ("070c5ed9ed289581e477741d3b34beffa920db8cf590899d6d2c67fba2a198a6",
                       "96f02b6f0753d4f543261bc9d09bed650f24dd6bc02ddde3066135b63d23a1cd"),
    "convnext_xlarge": ("c1f5ccab661354fc3a79a10fa99af82f0fbf10ec65cb894a3ae0815f17a889ee",
                        "de3f8a54174130e0cecdc71583354753d557fcf1f4487331558e2a16ba0cfe05"),
}
_LAYER_SCALE_INIT = 1e-6
_EPSILON = 1e-6
# ImageNet's RGB mean and std in [0, 1]; the pre-stem Normalization works on [0, 255] pixels.
_IMAGENET_MEAN_RGB = (0.485, 0.456, 0.406)
_IMAGENET_STD_RGB = (0.229, 0.224, 0.225)

# variant: (blocks per stage, channels per stage)
VARIANTS = {
    "convnext_tiny": ((3, 3, 9, 3), (96, 192, 384, 768)),
    "convnext_small": ((3, 3, 27, 3), (96, 192, 384, 768)),
    "convnext_base": ((3, 3, 27, 3), (128, 256, 512, 1024)),
    "convnext_large": ((3, 3, 27, 3), (192, 384, 768, 1536)),
    "convnext_xlarge": ((3, 3, 27, 3), (256, 512, 1024, 2048)),
}


class LayerScale(Layer):
    """Multiplies its input by a learned per-channel vector initialized to ``init_values`` (CaiT's LayerScale).

    Parameters
    ----------
    init_values : float
    projection_dim : int
        Number of channels (the last axis).
    """

    def __init__(self, init_values, projection_dim, **kwargs):
        super().__init__(**kwargs)
        self.init_values = init_values
        self.projection_dim = projection_dim

    def build(self, input_shape):
        self.gamma = self.add_weight(shape=(self.projection_dim,),
                                     initializer=initializers.Constant(self.init_values), name="variable")

    def call(self, x):
        return x * self.gamma

    def get_config(self):
        config = super().get_config()
        config.update({"init_values": self.init_values, "projection_dim": self.projection_dim})
        return config


def _layer_norm(name=None):
    return normalization.LayerNormalization(epsilon=_EPSILON, name=name)


def _block(inputs, channels, prefix):
    """One ConvNeXt block (its stochastic depth rate is 0 in the released models: an identity Activation)."""
    x = convolutional.Conv2D(channels, 7, padding="same", groups=channels, name=prefix + "_depthwise_conv")(inputs)
    x = _layer_norm(prefix + "_layernorm")(x)
    x = core.Dense(4 * channels, name=prefix + "_pointwise_conv_1")(x)
    x = activations.Activation("gelu", name=prefix + "_gelu")(x)
    x = core.Dense(channels, name=prefix + "_pointwise_conv_2")(x)
    x = LayerScale(_LAYER_SCALE_INIT, channels, name=prefix + "_layer_scale")(x)
    x = activations.Activation("linear", name=prefix + "_identity")(x)
    # An operator, not an Add layer: Keras records it as an operation outside `model.layers`.
    return inputs + x


def _convnext(variant, include_top, include_preprocessing, weights, input_tensor, input_shape, pooling, classes,
              classifier_activation, name):
    depths, channels = VARIANTS[variant]
    img_input = model_assembly.checked_image_input(weights, include_top, classes, input_tensor, input_shape,
                                                   default_size=224, min_size=32,
                                                   classes_message=model_assembly.CLASSES_RECEIVED_MESSAGE)
    x = img_input
    if include_preprocessing:
        x = preprocessing.Normalization(axis=-1, mean=[m * 255 for m in _IMAGENET_MEAN_RGB],
                                        variance=[(s * 255) ** 2 for s in _IMAGENET_STD_RGB],
                                        name=name + "_prestem_normalization")(x)
    x = Sequential([convolutional.Conv2D(channels[0], 4, strides=4, name=name + "_stem_conv"),
                    _layer_norm(name + "_stem_layernorm")], name=name + "_stem")(x)
    for stage, (depth, width) in enumerate(zip(depths, channels)):
        if stage > 0:
            x = Sequential([_layer_norm(f"{name}_downsampling_layernorm_{stage - 1}"),
                            convolutional.Conv2D(width, 2, strides=2, name=f"{name}_downsampling_conv_{stage - 1}")],
                           name=f"{name}_downsampling_block_{stage - 1}")(x)
        for block in range(depth):
            x = _block(x, width, f"{name}_stage_{stage}_block_{block}")

    if include_top:
        x = pooling_layers.GlobalAveragePooling2D(name=name + "_head_gap")(x)
        x = _layer_norm(name + "_head_layernorm")(x)
        imagenet_utils.validate_activation(classifier_activation, weights)
        x = core.Dense(classes, activation=classifier_activation, name=name + "_head_dense")(x)
    else:
        # The pooled (or not) features are layer-normalized too, as in Keras.
        x = model_assembly.classification_head(x, False, pooling, classes, classifier_activation, weights,
                                               feature_pool_names=(None, None))
        x = _layer_norm()(x)
    if weights == "imagenet" and variant not in name:
        raise ValueError(f'Model name "{name}" does not match weights variant "{variant}". When using imagenet '
                         'weights, model name must contain the weights variant (e.g., '
                         f'"convnext_{variant.split("convnext_")[-1]}").')
    # Keras names the file after the model's name (a renamed model asks for a file of its new name).
    url = f"{_WEIGHTS_BASE}{name}{'' if include_top else '_notop'}.h5"
    return model_assembly.finish_model(img_input, input_tensor, x, name, weights, url,
                                       _WEIGHTS_HASHES[variant][0 if include_top else 1])


_ARGUMENTS_DOC = """
    Parameters
    ----------
    include_top : bool
        Whether to end with ``<name>_head_gap``, ``_head_layernorm`` and the ``_head_dense`` classifier.
    include_preprocessing : bool
        Whether the model starts with a Normalization by ImageNet's statistics (inputs in [0, 255]).
    weights : None, "imagenet" or str
        Random initialization, ImageNet weights (downloaded) or the path of a weights file.
    input_tensor : KerasTensor, optional
    input_shape : tuple, optional
    pooling : {None, "avg", "max"}
        Feature pooling when ``include_top`` is False (followed by a LayerNormalization).
    classes : int
    classifier_activation : str or callable or None
    name : str
        The model's name, also the prefix of its layer names.

    Returns
    -------
    keras.Model
"""


def _variant_function(variant, function_name):
    def model_function(include_top=True, include_preprocessing=True, weights="imagenet", input_tensor=None,
                       input_shape=None, pooling=None, classes=1000, classifier_activation="softmax", name=variant):
        return _convnext(variant, include_top, include_preprocessing, weights, input_tensor, input_shape, pooling,
                         classes, classifier_activation, name)

    model_function.__name__ = model_function.__qualname__ = function_name
    model_function.__doc__ = f"{function_name} (ImageNet input 224x224x3).\n" + _ARGUMENTS_DOC
    return model_function


ConvNeXtTiny = _variant_function("convnext_tiny", "ConvNeXtTiny")
ConvNeXtSmall = _variant_function("convnext_small", "ConvNeXtSmall")
ConvNeXtBase = _variant_function("convnext_base", "ConvNeXtBase")
ConvNeXtLarge = _variant_function("convnext_large", "ConvNeXtLarge")
ConvNeXtXLarge = _variant_function("convnext_xlarge", "ConvNeXtXLarge")


preprocess_input, decode_predictions = imagenet_utils.family_functions(__name__, None)
