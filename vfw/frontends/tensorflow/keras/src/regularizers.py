"""keras.regularizers: weight penalties added to a model's loss (L1, L2, L1L2, OrthogonalRegularizer)."""

import inspect
import math

import vfw.tensorflow as tf
from vfw.frontends.tensorflow.keras.src.engine.naming import to_snake_case
from vfw.frontends.tensorflow.keras.src.ops._common import convert_to_tensor
from vfw.frontends.tensorflow.keras.src.utils.numerical import normalize
from vfw.frontends.tensorflow.keras.src.utils.serialization import deserialize_keras_object, serialize_keras_object


def validate_float_arg(value, name):
    """``value`` as a float, ValueError unless it is a finite non-negative number."""
    if not isinstance(value, (float, int)) or math.isinf(value) or math.isnan(value) or value < 0:
        raise ValueError(f"Invalid value for argument {name}: expected a non-negative float.Received: {name}={value}")
    return float(value)


class Regularizer:
    """Base class: ``regularizer(weights)`` returns the penalty (0 for the base class)."""

    def __call__(self, x):
        return 0.0

    @classmethod
    def from_config(cls, config):
        """A regularizer from ``get_config()``'s dict."""
        return cls(**config)

    def get_config(self):
        """The constructor arguments (subclasses implement it)."""
        raise NotImplementedError(f"{self} does not implement get_config()")


def _sum_abs(x):
    return tf.reduce_sum(tf.abs(x))


def _sum_squares(x):
    return tf.reduce_sum(tf.square(x))


class L1L2(Regularizer):
    """``l1 * sum(|x|) + l2 * sum(x**2)``."""

    def __init__(self, l1=0.0, l2=0.0):
        self.l1 = validate_float_arg(0.0 if l1 is None else l1, name="l1")
        self.l2 = validate_float_arg(0.0 if l2 is None else l2, name="l2")

    def __call__(self, x):
        x = convert_to_tensor(x)
        penalty = tf.constant(0.0, dtype=x.dtype)
        if self.l1 != 0.0:
            penalty += tf.cast(self.l1, x.dtype) * _sum_abs(x)
        if self.l2 != 0.0:
            penalty += tf.cast(self.l2, x.dtype) * _sum_squares(x)
        return penalty

    def get_config(self):
        return {"l1": self.l1, "l2": self.l2}


class L1(Regularizer):
    """``l1 * sum(|x|)``."""

    def __init__(self, l1=0.01):
        self.l1 = tf.constant(validate_float_arg(0.01 if l1 is None else l1, name="l1"))

    def __call__(self, x):
        x = convert_to_tensor(x)
        return tf.cast(self.l1, x.dtype) * _sum_abs(x)

    def get_config(self):
        return {"l1": float(self.l1)}


class L2(Regularizer):
    """``l2 * sum(x**2)``."""

    def __init__(self, l2=0.01):
        self.l2 = validate_float_arg(0.01 if l2 is None else l2, name="l2")

    def __call__(self, x):
        x = convert_to_tensor(x)
        return tf.cast(self.l2, x.dtype) * _sum_squares(x)

    def get_config(self):
        return {"l2": self.l2}


class OrthogonalRegularizer(Regularizer):
    """``factor`` times the mean absolute cosine similarity between the rows (or columns) of a 2-D weight."""

    def __init__(self, factor=0.01, mode="rows"):
        validate_float_arg(factor, name="factor")
        self.factor = tf.constant(factor)
        if mode not in ("rows", "columns"):
            raise ValueError('Invalid value for argument `mode`. Expected one of {"rows", "columns"}. Received: '
                             f"mode={mode}")
        self.mode = mode

    def __call__(self, inputs):
        if len(inputs.shape) != 2:
            raise ValueError(f"Inputs to OrthogonalRegularizer must have rank 2. Received: inputs.shape={inputs.shape}")
        # keras.utils.normalize: numpy inputs take its numpy path (columns of a numpy array fail there, as in Keras)
        if self.mode == "rows":
            inputs = normalize(inputs, axis=1)
            product = tf.matmul(inputs, tf.transpose(inputs))
            size = inputs.shape[0]
        else:
            inputs = normalize(inputs, axis=0)
            product = tf.matmul(tf.transpose(inputs), inputs)
            size = inputs.shape[1]
        off_diagonal = product * (1.0 - tf.eye(size, dtype=inputs.dtype))
        pairs = size * (size - 1.0) / 2.0
        return self.factor * 0.5 * tf.reduce_sum(tf.abs(off_diagonal)) / pairs

    def get_config(self):
        return {"factor": float(self.factor), "mode": self.mode}


_CLASSES = (Regularizer, L1, L2, L1L2, OrthogonalRegularizer)
ALL_OBJECTS_DICT = {cls.__name__: cls for cls in _CLASSES}
ALL_OBJECTS_DICT.update({to_snake_case(cls.__name__): cls for cls in _CLASSES})
l1, l2, l1_l2, orthogonal_regularizer = L1, L2, L1L2, OrthogonalRegularizer

API = {"regularizers": ["L1", "L1L2", "L2", "OrthogonalRegularizer", "Regularizer", "deserialize", "get", "l1",
                        "l1_l2", "l2", "orthogonal_regularizer", "serialize"],
       "keras": ["Regularizer"]}


def serialize(regularizer):
    """The regularizer's config dict."""
    return serialize_keras_object(regularizer)


def deserialize(config, custom_objects=None):
    """The regularizer a config (or name) describes."""
    return deserialize_keras_object(config, module_objects=ALL_OBJECTS_DICT, custom_objects=custom_objects)


def get(identifier):
    """A regularizer from a name ("l2"), config, class or callable (None gives None)."""
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
    raise ValueError(f"Could not interpret regularizer identifier: {identifier}")
