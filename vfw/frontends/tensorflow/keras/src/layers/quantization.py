"""int8 post-training quantization of Dense and Embedding (``layer.quantize("int8")``, ``model.quantize``).

As Keras 3: the float weight is replaced by an int8 variable of the same name and shape plus a float
scale (``kernel_scale`` per output unit for Dense, ``embeddings_scale`` per row for Embedding), both
non-trainable, and the layer's policy becomes ``QuantizedDTypePolicy("int8", <old policy>)``.

- Dense: inputs are abs-max quantized per row (``Int8QuantizationConfig.activation_quantizer``), the
  int8 product is computed exactly in int32, cast to the compute dtype and divided by
  ``kernel_scale * inputs_scale``; the input gradient uses the dequantized kernel (Keras' custom gradient),
  the bias stays trainable.
- Embedding: looked-up rows are divided by their scales.

vfw implements the "int8" mode only; "int4", "float8", "gptq" and "awq" raise NotImplementedError
naming the layer (Keras' ``model.quantize`` turns that into a warning per layer).
"""

import re
import warnings

import vfw.frontends.tensorflow as tf
from vfw.frontends.tensorflow.keras.src import quantizers
from vfw.frontends.tensorflow.keras.src.engine import dtype_policy as policies
from vfw.frontends.tensorflow.keras.src.engine.dtype_policy_quantized import QUANTIZATION_MODES


def resolve_config(mode, config):
    """``(mode, config)`` from either (a mode string gets its default config), with Keras' errors."""
    if isinstance(config, str):
        mode, config = config, None
    if mode is not None and mode not in QUANTIZATION_MODES:
        raise ValueError(f"Invalid quantization mode. Expected one of {QUANTIZATION_MODES}. Received: mode={mode}")
    if config is None:
        defaults = {"int8": quantizers.Int8QuantizationConfig, "int4": quantizers.Int4QuantizationConfig,
                    "float8": quantizers.Float8QuantizationConfig}
        if mode in ("gptq", "awq"):
            raise ValueError(f"For {mode.upper()}, you must pass a `{mode.upper()}Config` object in the `config` "
                             "argument.")
        if mode is None:
            raise ValueError("You must provide either `mode` or `config` to `quantize`.")
        return mode, defaults[mode]()
    if not isinstance(config, quantizers.QuantizationConfig):
        raise ValueError(f"Argument `config` must be an instance of `QuantizationConfig`. Received: config={config} "
                         f"(of type {type(config)})")
    if mode is not None and config.mode != mode:
        raise ValueError(f"Contradictory arguments: mode={mode} but config.mode={config.mode}")
    return config.mode, config


def _check_quantize_args(layer, mode):
    if not layer.built:
        raise ValueError(f"Cannot quantize a layer that isn't yet built. Layer '{layer.name}' (of type "
                         f"'{type(layer).__name__}') is not built yet.")
    if getattr(layer, "_is_quantized", False):
        raise ValueError(f"Layer '{layer.name}' is already quantized with dtype_policy='{layer.dtype_policy.name}'. "
                         f"Received: mode={mode}")
    if mode == "int8" and layer.compute_dtype == "float16":
        raise ValueError(f"Quantization mode='{mode}' doesn't work well with compute_dtype='float16'. Consider "
                         "loading model/layer with another dtype policy such as 'mixed_bfloat16' or "
                         "'mixed_float16' before calling `quantize()`.")


def _not_implemented(layer, what="quantize"):
    return NotImplementedError(f"Layer {type(layer).__name__} does not have a `{what}` method implemented.")


# -- per-layer descriptions: the float weight's attribute and name, the scale's name and quantized axis --------
class _Spec:
    def __init__(self, attribute, name, scale_name, axis):
        self.attribute, self.name, self.scale_name, self.axis = attribute, name, scale_name, axis


def _spec(layer):
    from vfw.frontends.tensorflow.keras.src.layers.core import Dense, Embedding

    if type(layer) is Dense:
        return _Spec("_kernel", "kernel", "kernel_scale", 0)
    if type(layer) is Embedding:
        return _Spec("_embeddings", "embeddings", "embeddings_scale", -1)
    return None


def quantized_build(layer, weight_shape, mode=None, config=None):
    """Create ``layer``'s int8 weight and scale (zeros and ones) in place of its float weight."""
    mode = mode or layer.quantization_mode
    if mode != "int8":
        raise NotImplementedError(f"vfw quantizes layers to 'int8' only. Layer '{layer.name}' received mode={mode}")
    if isinstance(config, dict):  # a loaded layer's serialized config
        config = layer.quantization_config = quantizers.deserialize(config)
    spec = _spec(layer)
    if spec.name == "kernel":
        layer.inputs_quantizer = quantizers.QuantizationConfig.activation_quantizer_or_default(
            config, quantizers.AbsMaxQuantizer())
    setattr(layer, spec.attribute, layer.add_weight(name=spec.name, shape=weight_shape, initializer="zeros",
                                                    dtype="int8", trainable=False))
    scale_shape = (weight_shape[1],) if spec.axis == 0 else (weight_shape[0],)
    setattr(layer, spec.scale_name, layer.add_weight(name=spec.scale_name, shape=scale_shape, initializer="ones",
                                                     trainable=False))
    layer._is_quantized = True


def quantize_layer(layer, mode=None, config=None, type_check=True):
    """``layer.quantize``: replace the float weight by int8 values and scales, switch the dtype policy."""
    mode, config = resolve_config(mode, config)
    _check_quantize_args(layer, mode)
    spec = _spec(layer)
    if spec is None and type_check:
        raise _not_implemented(layer)
    if mode != "int8":
        raise NotImplementedError(f"vfw quantizes layers to 'int8' only. Layer '{layer.name}' received mode={mode}")
    if getattr(layer, "lora_enabled", False):
        raise NotImplementedError(f"vfw does not quantize layers with LoRA enabled (layer '{layer.name}').")
    layer.quantization_config = config
    weight = getattr(layer, spec.attribute)
    quantizer = quantizers.QuantizationConfig.weight_quantizer_or_default(
        config, quantizers.AbsMaxQuantizer(axis=spec.axis))
    values, scale = quantizer(weight.value, to_numpy=True)
    shape = tuple(weight.shape)
    layer._tracker.unlock()
    try:
        delattr(layer, spec.attribute)
        quantized_build(layer, shape, mode, config)
    finally:
        layer._lock_state()
    getattr(layer, spec.attribute).assign(values)
    getattr(layer, spec.scale_name).assign(tf.squeeze(scale, axis=spec.axis))
    if layer.dtype_policy.quantization_mode is None:
        layer.dtype_policy = policies.get(f"{mode}_from_{layer.dtype_policy.name}")


def dense_int8_call(layer, inputs):
    """A quantized Dense's ``kernel`` product (before bias and activation)."""
    kernel = tf.convert_to_tensor(layer._kernel)
    kernel_scale = tf.convert_to_tensor(layer.kernel_scale)
    compute_dtype = layer.compute_dtype

    @tf.custom_gradient
    def matmul_int8(x):
        output_scale = kernel_scale
        if layer.inputs_quantizer:
            x, inputs_scale = layer.inputs_quantizer(x, axis=-1)
            output_scale = output_scale * inputs_scale
        # int8 x int8 products summed exactly in int32, as TF's quantized matmul
        product = _int32_matmul(tf.cast(x, "int32"), tf.cast(kernel, "int32"))
        result = tf.cast(product, compute_dtype) / output_scale

        def grad(upstream):
            float_kernel = tf.cast(kernel, compute_dtype) / kernel_scale
            return _float_matmul(upstream, tf.transpose(float_kernel))

        return result, grad

    return matmul_int8(inputs)


def _int32_matmul(x, kernel):
    if x.shape.rank == 2:
        return tf.matmul(x, kernel)
    return tf.tensordot(x, kernel, axes=1)


def _float_matmul(x, matrix):
    return tf.matmul(x, matrix) if x.shape.rank == 2 else tf.tensordot(x, matrix, axes=1)


def embedding_int8_call(layer, inputs):
    """A quantized Embedding's lookup: int8 rows divided by their scales."""
    if inputs.dtype.name not in ("int32", "int64"):
        inputs = tf.cast(inputs, "int32")
    rows = tf.gather(tf.convert_to_tensor(layer._embeddings), inputs)
    scales = tf.gather(tf.convert_to_tensor(layer.embeddings_scale), inputs)
    return tf.cast(rows, layer.compute_dtype) / tf.expand_dims(scales, -1)


def saved_variables(layer):
    """The variables a quantized layer saves, in Keras' order (weight, [bias], scale)."""
    spec = _spec(layer)
    bias = getattr(layer, "bias", None)
    return [getattr(layer, spec.attribute)] + ([] if bias is None else [bias]) + [getattr(layer, spec.scale_name)]


def _matches(layer, filters):
    if filters is None:
        return True
    if callable(filters):
        return filters(layer)
    patterns = [filters] if isinstance(filters, str) else list(filters)
    return any(re.search(pattern, layer.path or layer.name) for pattern in patterns)


def quantize_model(model, mode=None, config=None, filters=None, **kwargs):
    """``model.quantize``: quantize every leaf layer that supports it (others warn), optionally filtered.

    Parameters
    ----------
    mode : str, optional
        ``"int8"`` (other Keras modes raise/warn in vfw).
    config : QuantizationConfig, optional
    filters : str, list of str or callable, optional
        Regexes matched against layer paths, or a predicate: only matching layers are quantized.
    """
    type_check = kwargs.pop("type_check", True)
    if kwargs:
        raise ValueError(f"Unrecognized keyword arguments passed to {type(model).__name__}: {kwargs}")
    if filters is not None and not (isinstance(filters, (str, list, tuple)) or callable(filters)):
        raise ValueError("The `filters` argument must be a regex string, a list of regex strings, or a callable. "
                         f"Received: {type(filters)}")
    modified = False
    for layer in model._flatten_layers():
        if not _matches(layer, filters) or len(layer._flatten_layers()) != 1:
            continue
        try:
            layer.quantize(mode, type_check=type_check, config=config)
            modified = True
        except NotImplementedError as e:
            warnings.warn(str(e), stacklevel=2)
    if modified:
        for name in ("train_function", "test_function", "predict_function"):
            if hasattr(model, name):
                setattr(model, name, None)
