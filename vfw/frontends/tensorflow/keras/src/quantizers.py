"""Keras' quantizers (``keras.quantizers``): abs-max int8 quantization, float8 scaling, int4 packing, configs.

- ``abs_max_quantize(x, axis)``: ``scale = 127 / (max|x| + epsilon)`` along ``axis`` (kept), values
  ``clip(round_half_even(x * scale))`` cast to int8; ``to_numpy=True`` computes on the host with numpy
  (what ``layer.quantize`` uses for weights), otherwise with vfw.tensorflow ops (differentiable path).
- ``pack_int4`` / ``unpack_int4``: two signed 4-bit values per int8 byte along ``axis`` (element ``2i`` in
  the low nibble, ``2i + 1`` in the high one).
- ``QuantizationConfig`` and the int8/int4/float8 configs give ``layer.quantize`` its weight and input
  quantizers.
"""

import inspect

import numpy as np

import vfw.frontends.tensorflow as tf
from vfw.frontends.tensorflow.keras.src.backend.config import epsilon as _epsilon
from vfw.frontends.tensorflow.keras.src.backend.dtypes import standardize_dtype

_FLOAT8_MAX = {"float8_e4m3fn": 448.0, "float8_e5m2": 57344.0}
_DEFAULT_EPSILON = _epsilon()  # Keras binds the default at import, as here


class Quantizer:
    """The base quantizer: ``quantizer(x)`` returns ``x`` unchanged; subclasses quantize."""

    def __init__(self, output_dtype="int8"):
        self.output_dtype = output_dtype

    def __call__(self, x):
        return x

    @classmethod
    def from_config(cls, config):
        """The quantizer ``config`` describes."""
        return cls(**config)

    def get_config(self):
        raise NotImplementedError(f"{self} does not implement get_config()")


def _numpy_axis(axis):
    return tuple(axis) if isinstance(axis, (list, tuple)) else axis


def abs_max_quantize(inputs, axis, value_range=(-127, 127), dtype="int8", epsilon=_DEFAULT_EPSILON, to_numpy=False):
    """Quantize ``inputs`` with the absolute-maximum scheme along ``axis``.

    Parameters
    ----------
    inputs : tensor-like
    axis : int or tuple of int
        Axes reduced to compute each scale (kept with size 1).
    value_range : (int, int)
        The clipping range of the quantized values.
    dtype : str
        The quantized dtype.
    epsilon : float
        Added to the maximum to avoid dividing by zero.
    to_numpy : bool
        Compute with numpy on the host.

    Returns
    -------
    (quantized, scale) : tf.Tensor, tf.Tensor
        ``quantized`` of ``dtype``, ``scale`` in the input's dtype (``x ~ quantized / scale``).
    """
    if to_numpy:
        source_dtype = standardize_dtype(inputs.dtype)
        values = inputs.numpy() if hasattr(inputs, "numpy") else np.asarray(inputs)
        scale = np.divide(value_range[1], np.add(np.max(np.abs(values), axis=_numpy_axis(axis), keepdims=True),
                                                 epsilon))
        quantized = np.clip(np.round(values * scale), value_range[0], value_range[1]).astype(dtype)
        return tf.convert_to_tensor(quantized), tf.convert_to_tensor(scale.astype(source_dtype))
    inputs = tf.convert_to_tensor(inputs)
    peak = tf.reduce_max(tf.abs(inputs), axis=axis, keepdims=True)
    scale = tf.cast(value_range[1] / (peak + tf.cast(epsilon, peak.dtype)), inputs.dtype)
    quantized = tf.clip_by_value(tf.round(inputs * scale), float(value_range[0]), float(value_range[1]))
    return tf.cast(quantized, dtype), scale


class AbsMaxQuantizer(Quantizer):
    """Abs-max quantization (``abs_max_quantize``) as a reusable, serializable object.

    Parameters
    ----------
    axis : int or tuple of int, optional
        Deprecated default axis (``__call__`` takes one; -1 when neither is given).
    value_range : (int, int)
    epsilon : float
    output_dtype : str
    """

    def __init__(self, axis=None, value_range=(-127, 127), epsilon=_DEFAULT_EPSILON, output_dtype="int8"):
        super().__init__(output_dtype=output_dtype)
        self.axis = None if axis is None else ((axis,) if isinstance(axis, int) else tuple(axis))
        self.value_range = value_range
        self.epsilon = epsilon
        if output_dtype == "int8" and (value_range[0] < -128 or value_range[1] > 127):
            raise ValueError("Quantizer with output_dtype='int8' requires value_range to be within the interval "
                             f"[-128, 127]. Received: value_range={value_range}")

    def __call__(self, x, axis=None, to_numpy=False):
        """``(quantized, scale)`` of ``x`` along ``axis`` (default: the constructor's, else -1)."""
        axis = self.axis if axis is None else axis
        return abs_max_quantize(x, -1 if axis is None else axis, self.value_range, self.output_dtype, self.epsilon,
                                to_numpy)

    def get_config(self):
        config = {"value_range": self.value_range, "epsilon": self.epsilon, "output_dtype": self.output_dtype}
        if self.axis is not None:
            config["axis"] = self.axis
        return config


def compute_float8_scale(amax, scale, dtype_max, margin=0):
    """The new float8 scaling factor from the running ``amax`` (the old ``scale`` where amax is 0 or not finite)."""
    amax = tf.convert_to_tensor(amax)
    inverse = 1.0 / tf.convert_to_tensor(scale, amax.dtype)
    factor = tf.convert_to_tensor(dtype_max, amax.dtype) / amax / (2.0 ** margin)
    factor = tf.where(amax > 0.0, factor, inverse)
    factor = tf.where(tf.math.is_finite(amax), factor, inverse)
    return 1.0 / factor


def compute_float8_amax_history(x, amax_history):
    """``amax_history`` rolled by one with ``max|x|`` written in front."""
    amax_history = tf.convert_to_tensor(amax_history)
    newest = tf.reshape(tf.cast(tf.reduce_max(tf.abs(x)), amax_history.dtype), [1])
    return tf.concat([newest, amax_history[2:], amax_history[:1]], axis=0) if amax_history.shape[0] > 1 else newest


def quantize_and_dequantize(inputs, scale, quantized_dtype, compute_dtype):
    """``inputs`` divided by ``scale``, clipped to ``quantized_dtype``'s range, rounded to it and scaled back."""
    if quantized_dtype not in _FLOAT8_MAX:
        raise ValueError(f"quantize_and_dequantize expects float8_e4m3fn or float8_e5m2. Received: {quantized_dtype}")
    raise NotImplementedError("quantize_and_dequantize: vfw.tensorflow has no float8 dtypes yet, so float8 "
                              "rounding is not available.")


def _packing_axis(ndim, axis):
    return axis % ndim


def pack_int4(arr, axis=0, dtype="int8"):
    """Pack signed int4 values (int8 in [-8, 7]) two per byte along ``axis``.

    Returns
    -------
    (packed, packed_shape, original_length) : tf.Tensor, tuple, int
        ``packed`` has ``ceil(length / 2)`` entries along ``axis``.
    """
    if dtype not in ("int8", "uint8"):
        raise ValueError(f"Unsupported dtype '{dtype}'. Expected 'int8' or 'uint8'.")
    values = np.asarray(arr.numpy() if hasattr(arr, "numpy") else arr)
    if values.dtype != np.int8:
        raise TypeError(f"Expected int8 tensor for packing, got {values.dtype}")
    axis = _packing_axis(values.ndim, axis)
    length = values.shape[axis]
    if length % 2:
        padding = [(0, 0)] * values.ndim
        padding[axis] = (0, 1)
        values = np.pad(values, padding)
    nibbles = values.astype(np.uint8) & 0x0F
    low = np.take(nibbles, np.arange(0, values.shape[axis], 2), axis=axis)
    high = np.take(nibbles, np.arange(1, values.shape[axis], 2), axis=axis)
    packed = (low | (high << 4)).astype(dtype)
    return tf.convert_to_tensor(packed), packed.shape, length


def unpack_int4(packed, orig_len, axis=0, dtype="int8"):
    """The int8 values ``pack_int4`` packed (``orig_len`` of them along ``axis``)."""
    values = np.asarray(packed.numpy() if hasattr(packed, "numpy") else packed).astype(np.uint8)
    axis = _packing_axis(values.ndim, axis)
    low = (values & 0x0F).astype(np.int8)
    high = (values >> 4).astype(np.int8)
    if dtype == "int8":  # sign-extend each nibble
        low = np.where(low > 7, low - 16, low).astype(np.int8)
        high = np.where(high > 7, high - 16, high).astype(np.int8)
    both = np.stack([low, high], axis=axis + 1)
    shape = list(values.shape)
    shape[axis] *= 2
    unpacked = both.reshape(shape)
    unpacked = np.take(unpacked, np.arange(orig_len), axis=axis).astype(dtype)
    return tf.convert_to_tensor(unpacked)


# -- quantization configs ---------------------------------------------------------------------------------
class QuantizationConfig:
    """Which quantizers ``layer.quantize`` uses for weights and activations (None: the layer's default).

    Parameters
    ----------
    weight_quantizer, activation_quantizer : Quantizer or config dict, optional
    """

    def __init__(self, weight_quantizer=None, activation_quantizer=None):
        self.weight_quantizer = get(weight_quantizer) if isinstance(weight_quantizer, dict) else weight_quantizer
        self.activation_quantizer = (get(activation_quantizer) if isinstance(activation_quantizer, dict)
                                     else activation_quantizer)

    @property
    def mode(self):
        raise NotImplementedError("Subclasses must implement this property. Do not instantiate QuantizationConfig "
                                  "directly.")

    def get_config(self):
        return {"weight_quantizer": serialize(self.weight_quantizer) if self.weight_quantizer else None,
                "activation_quantizer": serialize(self.activation_quantizer) if self.activation_quantizer else None}

    @classmethod
    def from_config(cls, config):
        return cls(**config)

    @staticmethod
    def weight_quantizer_or_default(config, default):
        """``config``'s weight quantizer, or ``default`` when it sets none."""
        return config.weight_quantizer if config is not None and config.weight_quantizer is not None else default

    @staticmethod
    def activation_quantizer_or_default(config, default):
        """``config``'s activation quantizer (None allowed: no input quantization), or ``default`` without config."""
        return config.activation_quantizer if config is not None else default


class Int8QuantizationConfig(QuantizationConfig):
    """int8 weights; inputs quantized per row with ``AbsMaxQuantizer`` unless ``activation_quantizer=None``."""

    def __init__(self, weight_quantizer=None, activation_quantizer="default"):
        if activation_quantizer == "default":
            activation_quantizer = AbsMaxQuantizer()
        super().__init__(weight_quantizer, activation_quantizer)
        if self.weight_quantizer is not None and getattr(self.weight_quantizer, "output_dtype", "int8") != "int8":
            raise ValueError("Int8QuantizationConfig requires a weight_quantizer with output_dtype='int8'. "
                             f"Received: output_dtype={self.weight_quantizer.output_dtype}")

    @property
    def mode(self):
        return "int8"


class Int4QuantizationConfig(QuantizationConfig):
    """int4 weights (``block_size`` values per scale; -1 or None: one scale per output channel)."""

    def __init__(self, weight_quantizer=None, activation_quantizer="default", block_size=128):
        if activation_quantizer == "default":
            activation_quantizer = None
        super().__init__(weight_quantizer, activation_quantizer)
        if block_size is not None and block_size != -1 and (not isinstance(block_size, int) or block_size <= 0):
            raise ValueError(f"block_size must be None, -1 (per-channel), or a positive integer. Received: "
                             f"block_size={block_size}")
        self.block_size = block_size

    @property
    def mode(self):
        return "int4"

    def get_config(self):
        return {**super().get_config(), "block_size": self.block_size}


class Float8QuantizationConfig(QuantizationConfig):
    """float8 training (delayed scaling): no weight or activation quantizer objects."""

    def __init__(self):
        super().__init__(None, None)

    @property
    def mode(self):
        return "float8"

    def get_config(self):
        return {}


_QUANTIZER_CLASSES = (Quantizer, AbsMaxQuantizer, QuantizationConfig, Int8QuantizationConfig,
                      Int4QuantizationConfig, Float8QuantizationConfig)


def _snake_case(name):
    import re

    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


_BY_NAME = {**{c.__name__: c for c in _QUANTIZER_CLASSES}, **{_snake_case(c.__name__): c for c in _QUANTIZER_CLASSES}}


def serialize(quantizer):
    """A quantizer's (or config's) serialized form."""
    from vfw.frontends.tensorflow.keras.src.utils.serialization import serialize_keras_object

    return serialize_keras_object(quantizer)


def deserialize(config, custom_objects=None):
    """The quantizer (or config) a serialized form describes."""
    from vfw.frontends.tensorflow.keras.src.utils.serialization import deserialize_keras_object

    return deserialize_keras_object(config, module_objects=_BY_NAME, custom_objects=custom_objects)


def get(identifier, **kwargs):
    """A quantizer from None, a config dict, a class name (``"abs_max_quantizer"``) or an object."""
    if identifier is None:
        return None
    if isinstance(identifier, dict):
        found = deserialize(identifier)
    elif isinstance(identifier, str):
        found = _BY_NAME.get(identifier)
    else:
        found = identifier
    if not callable(found):
        raise ValueError(f"Could not interpret quantizer identifier: {identifier}")
    return found(kwargs) if inspect.isclass(found) else found


API = {"keras": ["Quantizer"],
       "quantizers": ["Quantizer", "AbsMaxQuantizer", "abs_max_quantize", "compute_float8_scale",
                      "compute_float8_amax_history", "quantize_and_dequantize", "pack_int4", "unpack_int4",
                      "QuantizationConfig", "Int8QuantizationConfig", "Int4QuantizationConfig",
                      "Float8QuantizationConfig", "get", "serialize", "deserialize"]}
