"""Which implementation modules feed which public Keras namespace.

Every module below defines ``API = {"layers": [...], "keras": [...], ...}``: the public names it
gives each namespace (``"keras"`` is the top level). Namespace packages call :func:`names`.
"""

import importlib

MODULES = [
    "engine.variables", "engine.layer", "engine.input_layer", "engine.keras_tensor", "engine.model",
    "engine.sequential", "engine.naming", "engine.dtype_policy", "engine.input_spec", "engine.operation",
    "engine.operation_utils", "engine.function",
    "layers.core", "layers.activations", "layers.convolutional", "layers.convolutional_depthwise", "layers.pooling",
    "layers.upsampling",
    "layers.normalization", "layers.regularization", "layers.reshaping", "layers.merging", "layers.rnn",
    "layers.rnn.conv_lstm",
    "layers.attention", "layers.multi_head_attention", "layers.grouped_query_attention",
    "layers.reversible_embedding", "layers.spectral_normalization",
    "layers.preprocessing", "layers.preprocessing_image", "layers.preprocessing_lookup",
    "layers.preprocessing_text", "layers.preprocessing_hashing",
    "layers.preprocessing_image_color",
    "layers.preprocessing_image_hsv", "layers.preprocessing_image_mix", "layers.preprocessing_image_blur",
    "layers.preprocessing_image_geometry",
    "layers.preprocessing_audio",
    "layers.preprocessing_pipeline", "layers.preprocessing_image_local",
    "losses", "metrics", "optimizers", "optimizers.schedules", "optimizers.multi_optimizer",
    "callbacks", "initializers", "regularizers", "constraints", "activations", "random", "utils", "backend", "config",
    "utils.feature_space", "utils.dataset_directory", "utils.dataset_split", "utils.audio_dataset",
    "saving.api", "ops", "ops.image", "ops.image_geometry", "ops.image_filters", "legacy_aliases",
    "legacy.image", "utils.model_visualization",
    "legacy.layers", "legacy.backend_math", "legacy.backend_nn", "legacy.backend_control",
    "tree", "utils.config",
    "engine.dtype_policy_quantized", "quantizers", "remat",
    "distillation.distillation_loss", "distillation.distiller", "export.archive", "export.tfsm_layer",
]


def names(namespace):
    """``{name: object}`` of every public name the implementation modules give ``namespace``."""
    found = {}
    for module_name in MODULES:
        module = importlib.import_module(f"vfw.frontends.tensorflow.keras.src.{module_name}")
        for name in module.API.get(namespace, ()):
            found[name] = getattr(module, name)
    return found
