"""keras (Keras 3 over vfw.tensorflow): ``tf.keras`` and, through vfw's import hook, ``keras``.

The public namespaces (``keras.layers``, ``keras.losses``...) are packages gathering the
implementation modules under ``keras.src`` (see ``src/_api.py``).
"""

from vfw.frontends.tensorflow import _type_names
from vfw.frontends.tensorflow.keras import (  # noqa: F401
    activations,
    applications,
    backend,
    callbacks,
    config,
    constraints,
    datasets,
    distillation,
    dtype_policies,
    export,
    initializers,
    layers,
    losses,
    metrics,
    mixed_precision,
    models,
    ops,
    optimizers,
    preprocessing,
    quantizers,
    random,
    regularizers,
    saving,
    tree,
    utils,
)
from vfw.frontends.tensorflow.keras.src import _api

__version__ = "3.15.1"


def version():
    """The Keras version vfw follows."""
    return __version__


globals().update(_api.names("keras"))
_type_names.install()  # Keras' names for the classes (``type(layer)`` prints as under Keras)
