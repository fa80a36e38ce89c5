"""keras.initializers: initial values of variables, by object, name, config or tensor.

``get("glorot_uniform")``, ``get("GlorotUniform")``, ``get({"class_name": ..., "config": ...})``,
``get(SomeClass)`` (instantiated), ``get(callable)`` and ``get(tensor)`` (an initializer returning
that value for its shape) give an initializer ``init(shape, dtype=None)``.
"""

import inspect

import numpy as np

import vfw.tensorflow as tf
from vfw.frontends.tensorflow.keras.src.backend import standardize_dtype
from vfw.frontends.tensorflow.keras.src.engine.naming import to_snake_case
from vfw.frontends.tensorflow.keras.src.initializers.base import Initializer
from vfw.frontends.tensorflow.keras.src.initializers.constant_initializers import STFT, Constant, Identity, Ones, Zeros
from vfw.frontends.tensorflow.keras.src.initializers.random_initializers import (
    GlorotNormal,
    GlorotUniform,
    HeNormal,
    HeUniform,
    LecunNormal,
    LecunUniform,
    Orthogonal,
    RandomInitializer,
    RandomNormal,
    RandomUniform,
    TruncatedNormal,
    VarianceScaling,
    compute_fans,
)
from vfw.frontends.tensorflow.keras.src.utils.serialization import deserialize_keras_object, serialize_keras_object

_CLASSES = (Initializer, Constant, Identity, Ones, STFT, Zeros, GlorotNormal, GlorotUniform, HeNormal, HeUniform,
            LecunNormal, LecunUniform, Orthogonal, RandomNormal, RandomUniform, TruncatedNormal, VarianceScaling)
# The names get()/deserialize() accept: class names, their snake_case forms, and Keras' aliases.
ALL_OBJECTS_DICT = {cls.__name__: cls for cls in _CLASSES}
ALL_OBJECTS_DICT.update({to_snake_case(cls.__name__): cls for cls in _CLASSES})
ALL_OBJECTS_DICT.update({"IdentityInitializer": Identity, "normal": RandomNormal, "one": Ones, "STFTInitializer": STFT,
                         "OrthogonalInitializer": Orthogonal, "uniform": RandomUniform, "zero": Zeros})

_PUBLIC_CLASSES = ["Constant", "GlorotNormal", "GlorotUniform", "HeNormal", "HeUniform", "Identity", "Initializer",
                   "LecunNormal", "LecunUniform", "Ones", "Orthogonal", "RandomNormal", "RandomUniform", "STFT",
                   "TruncatedNormal", "VarianceScaling", "Zeros"]
_ALIASES = {"IdentityInitializer": Identity, "OrthogonalInitializer": Orthogonal, "STFTInitializer": STFT}
_ALIASES.update({to_snake_case(name): ALL_OBJECTS_DICT[name] for name in _PUBLIC_CLASSES if name != "Initializer"})
globals().update(_ALIASES)

API = {"initializers": [*_PUBLIC_CLASSES, *_ALIASES, "deserialize", "get", "serialize"], "keras": ["Initializer"]}

__all__ = [*_PUBLIC_CLASSES, *_ALIASES, "RandomInitializer", "compute_fans", "deserialize", "get", "serialize"]


def serialize(initializer):
    """The initializer's config dict (``{"module", "class_name", "config", "registered_name"}``)."""
    return serialize_keras_object(initializer)


def deserialize(config, custom_objects=None):
    """The initializer a config (or name) describes."""
    return deserialize_keras_object(config, module_objects=ALL_OBJECTS_DICT, custom_objects=custom_objects)


def get(identifier):
    """An initializer from a name, config dict, class, callable, or tensor/array (None gives None).

    Raises
    ------
    ValueError
        For an identifier that names no initializer.
    """
    if identifier is None:
        return None
    if isinstance(identifier, dict):
        obj = deserialize(identifier)
    elif isinstance(identifier, str):
        obj = deserialize({"class_name": str(identifier), "config": {}})
    elif tf.is_tensor(identifier) or isinstance(identifier, (np.generic, np.ndarray)):
        obj = _fixed_value(identifier)
    else:
        obj = identifier
    if callable(obj):
        return obj() if inspect.isclass(obj) else obj
    raise ValueError(f"Could not interpret initializer identifier: {identifier}")


def _fixed_value(value):
    """An initializer returning ``value`` (cast to the requested dtype) for ``value``'s own shape."""

    def initialize_fn(shape, dtype=None):
        dtype = standardize_dtype(dtype)
        if tuple(tf.TensorShape(shape).as_list()) != tuple(value.shape):
            raise ValueError(f"Expected `shape` to be {value.shape} for direct tensor as initializer. Received "
                             f"shape={shape}")
        return tf.cast(value, dtype)

    return initialize_fn
