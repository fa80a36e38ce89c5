"""keras.constraints: projections applied to weights after each optimizer update."""

import inspect

import vfw.tensorflow as tf
from vfw.frontends.tensorflow.keras.src.backend import config
from vfw.frontends.tensorflow.keras.src.engine.naming import to_snake_case
from vfw.frontends.tensorflow.keras.src.ops._common import convert_to_tensor
from vfw.frontends.tensorflow.keras.src.utils.serialization import deserialize_keras_object, serialize_keras_object


class Constraint:
    """Base class: ``constraint(w)`` returns the projected weight (``w`` itself for the base class)."""

    def __call__(self, w):
        return w

    def get_config(self):
        """The constructor arguments."""
        return {}

    @classmethod
    def from_config(cls, config):
        """A constraint from ``get_config()``'s dict."""
        return cls(**config)


def _norms(w, axis):
    return tf.sqrt(tf.reduce_sum(tf.square(w), axis=axis, keepdims=True))


class MaxNorm(Constraint):
    """Scale the slices of ``w`` along ``axis`` whose L2 norm exceeds ``max_value`` down to it."""

    def __init__(self, max_value=2, axis=0):
        self.max_value = max_value
        self.axis = axis

    def __call__(self, w):
        w = convert_to_tensor(w)
        norms = _norms(w, self.axis)
        desired = tf.clip_by_value(norms, 0, self.max_value)
        return tf.cast(w, norms.dtype) * (desired / (config.epsilon() + norms))

    def get_config(self):
        return {"max_value": self.max_value, "axis": self.axis}


class NonNeg(Constraint):
    """Set negative weights to 0."""

    def __call__(self, w):
        w = convert_to_tensor(w)
        return tf.maximum(w, tf.zeros((), w.dtype))


class UnitNorm(Constraint):
    """Scale the slices of ``w`` along ``axis`` to unit L2 norm."""

    def __init__(self, axis=0):
        self.axis = axis

    def __call__(self, w):
        w = convert_to_tensor(w)
        norms = _norms(w, self.axis)
        return tf.cast(w, norms.dtype) / (config.epsilon() + norms)

    def get_config(self):
        return {"axis": self.axis}


class MinMaxNorm(Constraint):
    """Move the L2 norms of the slices along ``axis`` towards ``[min_value, max_value]`` (fully at ``rate`` 1)."""

    def __init__(self, min_value=0.0, max_value=1.0, rate=1.0, axis=0):
        self.min_value = min_value
        self.max_value = max_value
        self.rate = rate
        self.axis = axis

    def __call__(self, w):
        w = convert_to_tensor(w)
        norms = _norms(w, self.axis)
        desired = self.rate * tf.clip_by_value(norms, self.min_value, self.max_value) + (1 - self.rate) * norms
        return tf.cast(w, norms.dtype) * (desired / (config.epsilon() + norms))

    def get_config(self):
        return {"min_value": self.min_value, "max_value": self.max_value, "rate": self.rate, "axis": self.axis}


_CLASSES = (Constraint, MaxNorm, MinMaxNorm, NonNeg, UnitNorm)
ALL_OBJECTS_DICT = {cls.__name__: cls for cls in _CLASSES}
ALL_OBJECTS_DICT.update({to_snake_case(cls.__name__): cls for cls in _CLASSES})
max_norm, min_max_norm, non_neg, unit_norm = MaxNorm, MinMaxNorm, NonNeg, UnitNorm

API = {"constraints": ["Constraint", "MaxNorm", "MinMaxNorm", "NonNeg", "UnitNorm", "deserialize", "get",
                       "max_norm", "min_max_norm", "non_neg", "serialize", "unit_norm"]}


def serialize(constraint):
    """The constraint's config dict."""
    return serialize_keras_object(constraint)


def deserialize(config, custom_objects=None):
    """The constraint a config (or name) describes."""
    return deserialize_keras_object(config, module_objects=ALL_OBJECTS_DICT, custom_objects=custom_objects)


def get(identifier):
    """A constraint from a name ("max_norm"), config, class or callable (None gives None)."""
    if identifier is None:
        return None
    if isinstance(identifier, dict):
        obj = deserialize(identifier)
    elif isinstance(identifier, str):
        obj = ALL_OBJECTS_DICT.get(identifier)
    else:
        obj = identifier
    if callable(obj):
        return obj() if inspect.isclass(obj) else obj
    raise ValueError(f"Could not interpret constraint identifier: {identifier}")
