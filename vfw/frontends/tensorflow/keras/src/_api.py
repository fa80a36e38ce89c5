"""Which implementation modules feed which public Keras namespace.

Every module below defines ``API = {"layers": [...], "keras": [...], ...}``: the public names it
gives each namespace (``"keras"`` is the top level). Namespace packages call :func:`names`.
"""

import importlib

MODULES = [
    "engine.variables", "engine.layer", "engine.input_layer", "engine.keras_tensor", "engine.model",
    "engine.sequential", "layers.core", "layers.activations", "layers.convolutional", "layers.pooling",
    "layers.normalization", "layers.regularization", "layers.reshaping", "layers.merging", "layers.rnn",
    "layers.attention", "layers.preprocessing", "losses", "metrics", "optimizers", "callbacks",
    "initializers", "regularizers", "constraints", "activations", "random", "utils", "backend", "config",
    "saving.api", "saving.serialization", "ops",
]


def names(namespace):
    """``{name: object}`` of every public name the implementation modules give ``namespace``."""
    found = {}
    for module_name in MODULES:
        module = importlib.import_module(f"vfw.frontends.tensorflow.keras.src.{module_name}")
        for name in module.API.get(namespace, ()):
            found[name] = getattr(module, name)
    return found
