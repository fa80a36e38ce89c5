"""keras.activations: the activation functions layers take by name (``Dense(4, activation="relu")``).

``get`` maps a name (or None: ``linear``), a config or a callable to the function; ``serialize``
gives a built-in function's name (``"relu"``; ``swish`` is ``"silu"``) and other objects' configs.
"""

import types

import vfw.tensorflow as tf
from vfw.frontends.tensorflow.keras.src import ops
from vfw.frontends.tensorflow.keras.src.ops._common import convert_to_tensor, keras_op
from vfw.frontends.tensorflow.keras.src.utils import object_registration
from vfw.frontends.tensorflow.keras.src.utils.serialization import deserialize_keras_object, serialize_keras_object


@keras_op
def relu(x, negative_slope=0.0, max_value=None, threshold=0.0):
    """Rectified linear unit with options: ``max(x, 0)`` by default.

    Parameters
    ----------
    x : tensor
    negative_slope : float
        Slope below the threshold (0: flat).
    max_value : float, optional
        Upper bound of the output.
    threshold : float
        Values at or below it become 0 (or follow ``negative_slope``).
    """
    x = convert_to_tensor(x)
    if negative_slope != 0.0:
        if max_value is None and threshold == 0:
            return tf.nn.leaky_relu(x, alpha=negative_slope)
        negative_part = tf.nn.relu(-x + threshold) if threshold != 0 else tf.nn.relu(-x)
    clip_max = max_value is not None
    if threshold != 0:
        x = tf.where(x > tf.cast(threshold, x.dtype), x, tf.zeros_like(x))
    elif max_value == 6:
        x = tf.nn.relu6(x)
        clip_max = False
    else:
        x = tf.nn.relu(x)
    if clip_max:
        x = tf.clip_by_value(x, tf.cast(0.0, x.dtype), tf.cast(max_value, x.dtype))
    if negative_slope != 0.0:
        x -= negative_slope * negative_part
    return x


def leaky_relu(x, negative_slope=0.2):
    """``x`` for positive ``x``, ``negative_slope * x`` otherwise."""
    return ops.leaky_relu(x, negative_slope=negative_slope)


def relu6(x):
    """``min(max(x, 0), 6)``."""
    return ops.relu6(x)


def softmax(x, axis=-1):
    """``exp(x) / sum(exp(x))`` along ``axis`` (the output remembers ``x`` as its logits)."""
    return ops.softmax(x, axis=axis)


def elu(x, alpha=1.0):
    """``x`` for positive ``x``, ``alpha * (exp(x) - 1)`` otherwise."""
    return ops.elu(x, alpha=alpha)


def selu(x):
    """Scaled exponential linear unit (``1.0507 * elu(x, 1.6733)``)."""
    return ops.selu(x)


def softplus(x):
    """``log(1 + exp(x))``."""
    return ops.softplus(x)


def softsign(x):
    """``x / (1 + |x|)``."""
    return ops.softsign(x)


def soft_shrink(x, threshold=0.5):
    """``x`` moved ``threshold`` towards 0, 0 within ``[-threshold, threshold]``."""
    return ops.soft_shrink(x, threshold=threshold)


def sparse_plus(x):
    """0 below -1, ``x`` above 1, ``(x + 1)**2 / 4`` between."""
    return ops.sparse_plus(x)


def silu(x):
    """``x * sigmoid(x)`` (also called swish)."""
    return ops.silu(x)


swish = silu


def squareplus(x, b=4):
    """``(x + sqrt(x**2 + b)) / 2``."""
    return ops.squareplus(x, b=b)


def gelu(x, approximate=False):
    """Gaussian error linear unit (exact unless ``approximate``: note keras.ops.gelu's default differs)."""
    return ops.gelu(x, approximate=approximate)


def celu(x, alpha=1.0):
    """``max(x, 0) + alpha * expm1(min(x, 0) / alpha)``."""
    return ops.celu(x, alpha=alpha)


def glu(x, axis=-1):
    """``a * sigmoid(b)`` of the two halves of ``x`` along ``axis``."""
    return ops.glu(x, axis=axis)


def tanh(x):
    """Hyperbolic tangent."""
    return ops.tanh(x)


def tanh_shrink(x):
    """``x - tanh(x)``."""
    return ops.tanh_shrink(x)


def hard_tanh(x):
    """``x`` clipped to [-1, 1]."""
    return ops.hard_tanh(x)


def hard_shrink(x, threshold=0.5):
    """``x`` where ``|x| > threshold``, else 0."""
    return ops.hard_shrink(x, threshold=threshold)


def threshold(x, threshold, default_value):
    """``x`` where ``x > threshold``, else ``default_value``."""
    return ops.threshold(x, threshold, default_value)


def sigmoid(x):
    """``1 / (1 + exp(-x))`` (the output remembers ``x`` as its logits)."""
    return ops.sigmoid(x)


def exponential(x):
    """``exp(x)``."""
    return ops.exp(x)


def hard_sigmoid(x):
    """``relu6(x + 3) / 6``."""
    return ops.hard_sigmoid(x)


def log_sigmoid(x):
    """``log(sigmoid(x))``."""
    return ops.log_sigmoid(x)


def sparse_sigmoid(x):
    """0 below -1, 1 above 1, ``(x + 1) / 2`` between."""
    return ops.sparse_sigmoid(x)


def hard_silu(x):
    """``x * hard_sigmoid(x)`` (also called hard swish)."""
    return ops.hard_silu(convert_to_tensor(x))


hard_swish = hard_silu


def linear(x):
    """The identity: ``x`` unchanged."""
    return x


@keras_op
def mish(x):
    """``x * tanh(softplus(x))``."""
    x = convert_to_tensor(x)
    return x * tf.math.tanh(tf.math.softplus(x))


def log_softmax(x, axis=-1):
    """``x - logsumexp(x)`` along ``axis``."""
    return ops.log_softmax(x, axis=axis)


def sparsemax(x, axis=-1):
    """The projection of ``x`` onto the probability simplex along ``axis``."""
    return ops.sparsemax(convert_to_tensor(x), axis)


_FUNCTIONS = (relu, leaky_relu, relu6, softmax, celu, elu, selu, softplus, softsign, squareplus, soft_shrink,
              sparse_plus, silu, gelu, glu, tanh, tanh_shrink, threshold, sigmoid, sparse_sigmoid, exponential,
              hard_sigmoid, hard_silu, hard_tanh, hard_shrink, linear, mish, log_softmax, log_sigmoid, sparsemax)
ALL_OBJECTS_DICT = {fn.__name__: fn for fn in _FUNCTIONS}
ALL_OBJECTS_DICT.update({"swish": silu, "hard_swish": hard_silu})

API = {"activations": sorted([*ALL_OBJECTS_DICT, "deserialize", "get", "serialize"])}


def serialize(activation):
    """A built-in activation function's name (``"relu"``), or the config of other objects.

    Raises
    ------
    ValueError
        For functions that are neither built in nor registered.
    """
    config = serialize_keras_object(activation)
    if not isinstance(config, dict) or "config" not in config:
        raise ValueError(f"Unknown activation function '{activation}' cannot be serialized due to invalid function "
                         "name. Make sure to use an activation name that matches the references defined in "
                         "activations.py or use `@keras.saving.register_keras_serializable()`to register any custom "
                         f"activations. config={config}")
    if not isinstance(activation, types.FunctionType):
        return config
    if isinstance(config["config"], str) and config["config"] not in ALL_OBJECTS_DICT:
        config["config"] = object_registration.get_registered_name(activation)
        return config
    return config["config"]


def deserialize(config, custom_objects=None):
    """The activation a name or config describes."""
    return deserialize_keras_object(config, module_objects=ALL_OBJECTS_DICT, custom_objects=custom_objects)


def get(identifier):
    """The activation function for a name, config or callable (None gives ``linear``).

    Raises
    ------
    ValueError
        For an identifier that names no activation.
    """
    if identifier is None:
        return linear
    if isinstance(identifier, dict):
        obj = deserialize_keras_object(identifier)
    elif isinstance(identifier, str):
        obj = ALL_OBJECTS_DICT.get(identifier)
    else:
        obj = identifier
    if callable(obj):
        return obj
    raise ValueError(f"Could not interpret activation function identifier: {identifier}")
