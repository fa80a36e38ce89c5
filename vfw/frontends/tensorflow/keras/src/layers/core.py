"""Core layers: Dense, EinsumDense, Embedding, Identity, Lambda, Masking (and InputLayer from the engine).

Weights, names and defaults are Keras 3's (``kernel`` glorot_uniform, ``bias`` zeros, ``embeddings``
uniform in [-0.05, 0.05]); computation goes through vfw.tensorflow ops.  LoRA (``lora_rank``): the
kernel becomes ``kernel + (lora_alpha / lora_rank) * lora_kernel_a @ lora_kernel_b`` with the
original kernel frozen.
"""

import inspect
import re
import types

import vfw.frontends.tensorflow as tf
from vfw.frontends.tensorflow import nest
from vfw.frontends.tensorflow.keras.src import activations, constraints, initializers, regularizers
from vfw.frontends.tensorflow.keras.src.engine.input_layer import InputLayer  # noqa: F401  (keras.layers.InputLayer)
from vfw.frontends.tensorflow.keras.src.engine.input_spec import InputSpec
from vfw.frontends.tensorflow.keras.src.engine.keras_tensor import KerasTensor
from vfw.frontends.tensorflow.keras.src.engine.layer import Layer, map_shapes
from vfw.frontends.tensorflow.keras.src.engine.layer_call import set_keras_mask
from vfw.frontends.tensorflow.keras.src.engine.operation import infer_output_spec
from vfw.frontends.tensorflow.keras.src.layers import quantization
from vfw.frontends.tensorflow.keras.src.utils import serialization


def _keras_ops():
    """``keras.ops`` (imported on use: the layer modules load while the keras package does)."""
    from vfw.frontends.tensorflow.keras import ops

    return ops


def _check_positive_int(name, value):
    if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
        raise ValueError(f"`{name}` must be a positive integer. Received: {name}={value} (of type "
                         f"{type(value).__name__}).")


class _LoraKernel:
    """What Dense and EinsumDense share: the optional LoRA factors added to the kernel."""

    def _init_lora(self, lora_rank, lora_alpha):
        self.lora_rank = lora_rank
        self.lora_alpha = lora_alpha if lora_alpha is not None else lora_rank
        self.lora_enabled = False

    @property
    def kernel(self):
        """The kernel (with the LoRA update when enabled)."""
        if not self.built:
            raise AttributeError("You must build the layer before accessing `kernel`.")
        if not self.lora_enabled:
            return self._kernel
        update = tf.matmul(self.lora_kernel_a._as_tensor(), self.lora_kernel_b._as_tensor())
        return tf.cast(self._kernel._as_tensor() + (self.lora_alpha / self.lora_rank) * update, self.compute_dtype)

    def enable_lora(self, rank, lora_alpha=None, a_initializer="he_uniform", b_initializer="zeros"):
        """Freeze the kernel and train two rank-``rank`` factors added to it."""
        if self.kernel_constraint:
            raise ValueError("Lora is incompatible with kernel constraints. In order to enable lora on this layer, "
                             "remove the `kernel_constraint` argument.")
        if not self.built:
            raise ValueError("Cannot enable lora on a layer that isn't yet built.")
        if self.lora_enabled:
            raise ValueError("lora is already enabled. This can only be done once per layer.")
        self._tracker.unlock()
        shape = tuple(self._kernel.shape)
        self.lora_kernel_a = self.add_weight(name="lora_kernel_a", shape=shape[:-1] + (rank,),
                                             initializer=initializers.get(a_initializer), dtype="float32",
                                             regularizer=self.kernel_regularizer)
        self.lora_kernel_b = self.add_weight(name="lora_kernel_b", shape=(rank, shape[-1]),
                                             initializer=initializers.get(b_initializer), dtype="float32",
                                             regularizer=self.kernel_regularizer)
        self._kernel.trainable = False
        self._tracker.lock()
        self.lora_enabled = True
        self.lora_rank = rank
        self.lora_alpha = lora_alpha if lora_alpha is not None else rank

    def _lora_config(self):
        return {"lora_rank": self.lora_rank, "lora_alpha": self.lora_alpha} if self.lora_rank else {}

    # Saving, as Keras: exactly the kernel (LoRA update merged in) and the bias, whatever other variables a
    # subclass adds; loading writes the merged kernel back and restarts the LoRA factors from zero.
    def _values_to_save(self):
        if not self.built:
            return []
        if getattr(self, "_is_quantized", False):
            return quantization.saved_variables(self)
        return [self.kernel] + ([] if self.bias is None else [self.bias])

    def _variables_to_load(self):
        if not self.built:
            return []
        if getattr(self, "_is_quantized", False):
            return quantization.saved_variables(self)
        return [self._kernel] + ([] if self.bias is None else [self.bias])

    def load_own_variables(self, store):
        if not self.lora_enabled:
            self._check_load_own_variables(store)
        self._assign_loaded_variables(store)
        if self.lora_enabled:
            for factor in (self.lora_kernel_a, self.lora_kernel_b):
                factor.assign(tf.zeros(factor.shape, factor.dtype))

    def _output(self, x):
        if self.bias is not None:
            bias = tf.convert_to_tensor(self.bias)
            # ops.add: Keras' promotion, and its bias_add (TF's bfloat16 bias gradient)
            x = x + bias if x.dtype == bias.dtype and x.dtype != tf.bfloat16 else _keras_ops().add(x, bias)
        if self.activation is not None:
            x = self.activation(x)
        return x


class Dense(_LoraKernel, Layer):
    """A densely connected layer: ``activation(inputs @ kernel + bias)`` over the last axis.

    Parameters
    ----------
    units : int
    activation : str or callable, optional
    use_bias : bool
    kernel_initializer, bias_initializer : str or Initializer
    kernel_regularizer, bias_regularizer, activity_regularizer : optional
    kernel_constraint, bias_constraint : optional
    lora_rank, lora_alpha : int, optional
    """

    def __init__(self, units, activation=None, use_bias=True, kernel_initializer="glorot_uniform",
                 bias_initializer="zeros", kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, lora_rank=None, lora_alpha=None,
                 quantization_config=None, **kwargs):
        if not isinstance(units, int) or units <= 0:
            raise ValueError(f"Received an invalid value for `units`, expected a positive integer. Received: "
                             f"units={units}")
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        self.units = units
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.bias_constraint = constraints.get(bias_constraint)
        self._init_lora(lora_rank, lora_alpha)
        self.quantization_config = quantization_config
        self.input_spec = InputSpec(min_ndim=2)
        self.supports_masking = True

    def build(self, input_shape):
        if self.quantization_mode:  # a quantized layer being loaded: int8 kernel and scale, filled by loading
            quantization.quantized_build(self, (input_shape[-1], self.units), config=self.quantization_config)
        else:
            self._kernel = self.add_weight(name="kernel", shape=(input_shape[-1], self.units),
                                           initializer=self.kernel_initializer, regularizer=self.kernel_regularizer,
                                           constraint=self.kernel_constraint)
        if self.use_bias:
            self.bias = self.add_weight(name="bias", shape=(self.units,), initializer=self.bias_initializer,
                                        regularizer=self.bias_regularizer, constraint=self.bias_constraint)
        else:
            self.bias = None
        self.input_spec = InputSpec(min_ndim=2, axes={-1: input_shape[-1]})
        self.built = True
        if self.lora_rank:
            self.enable_lora(self.lora_rank)

    def call(self, inputs, training=None):
        if self.quantization_mode:
            return self._output(quantization.dense_int8_call(self, inputs))
        kernel = tf.convert_to_tensor(self.kernel)
        if inputs.dtype == kernel.dtype and inputs.shape.rank == 2:
            return self._output(tf.matmul(inputs, kernel))
        return self._output(_keras_ops().matmul(inputs, kernel))  # Keras' broadcasting and dtype promotion

    def compute_output_shape(self, input_shape):
        return tuple(input_shape[:-1]) + (self.units,)

    def get_config(self):
        config = {
            "units": self.units, "activation": activations.serialize(self.activation), "use_bias": self.use_bias,
            "kernel_initializer": initializers.serialize(self.kernel_initializer),
            "bias_initializer": initializers.serialize(self.bias_initializer),
            "kernel_regularizer": regularizers.serialize(self.kernel_regularizer),
            "bias_regularizer": regularizers.serialize(self.bias_regularizer),
            "kernel_constraint": constraints.serialize(self.kernel_constraint),
            "bias_constraint": constraints.serialize(self.bias_constraint),
            "quantization_config": serialization.serialize_keras_object(self.quantization_config),
        }
        return {**super().get_config(), **config, **self._lora_config()}


class EinsumDense(_LoraKernel, Layer):
    """A dense layer given by an einsum equation (``"ab,bc->ac"``, ``"...b,bc->...c"``, ``"abc,cd->abd"``).

    Parameters
    ----------
    equation : str
        ``input,kernel->output``; ``...`` may stand for leading (or trailing) input dims.
    output_shape : int or tuple
        The output shape without the batch dim (None for dims taken from the input).
    activation : optional
    bias_axes : str, optional
        Output letters that get a bias.
    kernel_initializer, bias_initializer, kernel_regularizer, bias_regularizer, kernel_constraint,
    bias_constraint, lora_rank, lora_alpha : optional
    """

    def __init__(self, equation, output_shape, activation=None, bias_axes=None, kernel_initializer="glorot_uniform",
                 bias_initializer="zeros", kernel_regularizer=None, bias_regularizer=None, kernel_constraint=None,
                 bias_constraint=None, lora_rank=None, lora_alpha=None, gptq_unpacked_column_size=None,
                 quantization_config=None, **kwargs):
        super().__init__(**kwargs)
        self.equation = equation
        self.partial_output_shape = (output_shape,) if isinstance(output_shape, int) else tuple(output_shape)
        self.bias_axes = bias_axes
        self.activation = activations.get(activation)
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.bias_constraint = constraints.get(bias_constraint)
        self._init_lora(lora_rank, lora_alpha)
        self.gptq_unpacked_column_size = gptq_unpacked_column_size
        self.quantization_config = quantization_config

    def build(self, input_shape):
        kernel_shape, bias_shape, _, input_axes, output_axes = analyze_einsum(
            self.equation, self.bias_axes, input_shape, self.partial_output_shape)
        self.input_spec = InputSpec(ndim=len(input_shape))
        kernel_initializer = self.kernel_initializer
        if hasattr(kernel_initializer, "input_axes") and (kernel_initializer.input_axes is None
                                                          or kernel_initializer.output_axes is None):
            config = kernel_initializer.get_config()  # fans from the einsum axes, same seed
            config.update(seed=kernel_initializer.seed, input_axes=input_axes, output_axes=output_axes)
            kernel_initializer = type(kernel_initializer).from_config(config)
        self._kernel = self.add_weight(name="kernel", shape=tuple(kernel_shape), initializer=kernel_initializer,
                                       regularizer=self.kernel_regularizer, constraint=self.kernel_constraint,
                                       dtype=self.dtype, trainable=True)
        if bias_shape is not None:
            self.bias = self.add_weight(name="bias", shape=tuple(bias_shape), initializer=self.bias_initializer,
                                        regularizer=self.bias_regularizer, constraint=self.bias_constraint,
                                        dtype=self.dtype, trainable=True)
        else:
            self.bias = None
        self.built = True
        if self.lora_rank:
            self.enable_lora(self.lora_rank, lora_alpha=self.lora_alpha)

    def compute_output_shape(self, input_shape):
        return tuple(analyze_einsum(self.equation, self.bias_axes, input_shape, self.partial_output_shape)[2])

    def call(self, inputs, training=None):
        kernel = tf.convert_to_tensor(self.kernel)
        if inputs.dtype == kernel.dtype:
            return self._output(tf.einsum(self.equation, inputs, kernel))
        return self._output(_keras_ops().einsum(self.equation, inputs, kernel))  # Keras' dtype promotion

    def get_config(self):
        config = {
            "output_shape": self.partial_output_shape, "equation": self.equation,
            "activation": activations.serialize(self.activation), "bias_axes": self.bias_axes,
            "kernel_initializer": initializers.serialize(self.kernel_initializer),
            "bias_initializer": initializers.serialize(self.bias_initializer),
            "kernel_regularizer": regularizers.serialize(self.kernel_regularizer),
            "bias_regularizer": regularizers.serialize(self.bias_regularizer),
            "activity_regularizer": regularizers.serialize(self.activity_regularizer),
            "kernel_constraint": constraints.serialize(self.kernel_constraint),
            "bias_constraint": constraints.serialize(self.bias_constraint),
            "quantization_config": serialization.serialize_keras_object(self.quantization_config),
        }
        config.update(self._lora_config())
        if self.gptq_unpacked_column_size:
            config["gptq_unpacked_column_size"] = self.gptq_unpacked_column_size
        return {**super().get_config(), **config}


def analyze_einsum(equation, bias_axes, input_shape, output_shape):
    """``(kernel_shape, bias_shape, full_output_shape, input_axes, output_axes)`` of an EinsumDense equation.

    ``input_axes``/``output_axes``: the kernel axes matched with input/output letters (the fans).
    """
    plain = equation.replace("...", "0")
    for pattern, left_elided in ((r"([a-zA-Z]+),([a-zA-Z]+)->([a-zA-Z]+)", False),
                                 (r"0([a-zA-Z]+),([a-zA-Z]+)->0([a-zA-Z]+)", True),
                                 (r"([a-zA-Z]{2,})0,([a-zA-Z]+)->([a-zA-Z]+)0", False)):
        match = re.match(pattern, plain)
        if match:
            return _einsum_shapes(*match.groups(), bias_axes, tuple(input_shape), output_shape, left_elided)
    raise ValueError(f"Invalid einsum equation '{equation}'. Equations must be in the form [X],[Y]->[Z], "
                     "...[X],[Y]->...[Z], or [X]...,[Y]->[Z]....")


def _einsum_shapes(input_spec, weight_spec, output_spec, bias_axes, input_shape, output_shape, left_elided):
    elided = len(input_shape) - len(input_spec)
    full = [input_shape[0]] + ([output_shape] if isinstance(output_shape, int) else list(output_shape))
    if elided > 0 and left_elided:
        for i in range(1, elided):
            full.insert(1, input_shape[i])
    elif elided > 0:
        full.extend(input_shape[len(input_shape) - elided:])
    if left_elided:
        input_index = {d: i + elided - len(input_shape) for i, d in enumerate(input_spec)}
        output_index = {d: i + elided for i, d in enumerate(output_spec)}
    else:
        input_index = {d: i for i, d in enumerate(input_spec)}
        output_index = {d: i for i, d in enumerate(output_spec)}
    for d in input_spec:
        if d in output_index and full[output_index[d]] is not None and full[output_index[d]] != \
                input_shape[input_index[d]]:
            raise ValueError(f"Input shape and output shape do not match at shared dimension '{d}'. Input shape is "
                             f"{input_shape[input_index[d]]}, and output shape is {full[output_index[d]]}.")
    for d in output_spec:
        if d not in input_spec and d not in weight_spec:
            raise ValueError(f"Dimension '{d}' was specified in the output '{output_spec}' but has no corresponding "
                             f"dim in the input spec '{input_spec}' or weight spec '{output_spec}'")
    kernel_shape, input_axes, output_axes = [], [], []
    for i, d in enumerate(weight_spec):
        if d in output_index:
            kernel_shape.append(full[output_index[d]])
            output_axes.append(i)
        elif d in input_index:
            kernel_shape.append(input_shape[input_index[d]])
            input_axes.append(i)
        else:
            raise ValueError(f"Weight dimension '{d}' did not have a match in either the input spec '{input_spec}' "
                             f"or the output spec '{output_spec}'. For this layer, the weight must be fully "
                             "specified.")
    bias_shape = None
    if bias_axes is not None:
        offset = elided if left_elided else 0
        sizes = {d: full[i + offset] for i, d in enumerate(output_spec)}
        for d in bias_axes:
            if d not in output_spec:
                raise ValueError(f"Bias dimension '{d}' was requested, but is not part of the output spec "
                                 f"'{output_spec}'")
        first = min(output_spec.find(d) for d in bias_axes)
        bias_shape = [sizes[d] if d in bias_axes else 1 for d in output_spec[first:]]
        if not left_elided:
            bias_shape += [1] * elided
    return kernel_shape, bias_shape, full, input_axes, output_axes


class Embedding(Layer):
    """Turns integer indices into dense vectors (rows of ``embeddings``).

    Parameters
    ----------
    input_dim : int
        The vocabulary size.
    output_dim : int
    embeddings_initializer : default ``"uniform"``
    embeddings_regularizer, embeddings_constraint : optional
    mask_zero : bool
        Whether index 0 is padding (the output mask is ``inputs != 0``).
    weights : array, optional
        Initial embeddings.
    """

    def __init__(self, input_dim, output_dim, embeddings_initializer="uniform", embeddings_regularizer=None,
                 embeddings_constraint=None, mask_zero=False, weights=None, lora_rank=None, lora_alpha=None,
                 quantization_config=None, **kwargs):
        _check_positive_int("input_dim", input_dim)
        _check_positive_int("output_dim", output_dim)
        kwargs.pop("input_length", None)
        super().__init__(**kwargs)
        self.input_dim = input_dim
        self.output_dim = output_dim
        self.embeddings_initializer = initializers.get(embeddings_initializer)
        self.embeddings_regularizer = regularizers.get(embeddings_regularizer)
        self.embeddings_constraint = constraints.get(embeddings_constraint)
        self.mask_zero = mask_zero
        self.supports_masking = mask_zero
        self.autocast = False
        self.lora_rank = lora_rank
        self.lora_alpha = lora_alpha if lora_alpha is not None else lora_rank
        self.lora_enabled = False
        self.quantization_config = quantization_config
        if weights is not None:
            self.build()
            self.set_weights(weights if isinstance(weights, list) and len(weights) == 1 else [weights])

    def build(self, input_shape=None):
        if self.built:
            return
        if self.quantization_mode:  # a quantized layer being loaded: int8 embeddings and scale
            quantization.quantized_build(self, (self.input_dim, self.output_dim), config=self.quantization_config)
        else:
            self._embeddings = self.add_weight(shape=(self.input_dim, self.output_dim),
                                               initializer=self.embeddings_initializer, name="embeddings",
                                               regularizer=self.embeddings_regularizer,
                                               constraint=self.embeddings_constraint, trainable=True)
        self.built = True

    @property
    def embeddings(self):
        """The embeddings variable."""
        if not self.built:
            raise AttributeError("You must build the layer before accessing `embeddings`.")
        return self._embeddings

    def _values_to_save(self):  # Keras saves only the embeddings, whatever variables a subclass adds
        if getattr(self, "_is_quantized", False):
            return quantization.saved_variables(self)
        return [self._embeddings] if self.built else []

    _variables_to_load = _values_to_save

    def call(self, inputs):
        if self.quantization_mode:
            return quantization.embedding_int8_call(self, inputs)
        if inputs.dtype.name not in ("int32", "int64"):
            inputs = tf.cast(inputs, "int32")
        return tf.cast(tf.gather(self.embeddings, inputs, axis=0), self.compute_dtype)

    def compute_mask(self, inputs, mask=None):
        if not self.mask_zero:
            return None
        return _keras_ops().not_equal(inputs, 0)  # keras.ops: on KerasTensors the mask joins the graph

    def compute_output_shape(self, input_shape):
        return (*input_shape, self.output_dim)

    def get_config(self):
        config = {
            "input_dim": self.input_dim, "output_dim": self.output_dim,
            "embeddings_initializer": initializers.serialize(self.embeddings_initializer),
            "embeddings_regularizer": regularizers.serialize(self.embeddings_regularizer),
            "activity_regularizer": regularizers.serialize(self.activity_regularizer),
            "embeddings_constraint": constraints.serialize(self.embeddings_constraint),
            "mask_zero": self.mask_zero,
            "quantization_config": serialization.serialize_keras_object(self.quantization_config),
        }
        if self.lora_rank:
            config.update(lora_rank=self.lora_rank, lora_alpha=self.lora_alpha)
        return {**super().get_config(), **config}


class Identity(Layer):
    """Returns its input unchanged (masks pass through)."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.supports_masking = True
        self._build_at_init()

    def call(self, inputs):
        return inputs

    def compute_output_shape(self, input_shape):
        return input_shape

    def compute_output_spec(self, inputs):
        return nest.map_structure(lambda x: KerasTensor(x.shape, dtype=x.dtype, sparse=x.sparse), inputs)


class Masking(Layer):
    """Masks the timesteps whose features all equal ``mask_value`` (output zero there; mask ``False``)."""

    def __init__(self, mask_value=0.0, **kwargs):
        super().__init__(**kwargs)
        if isinstance(mask_value, dict) and mask_value.get("config", None):
            mask_value = serialization.deserialize_keras_object(mask_value)
        self.mask_value = mask_value
        self.supports_masking = True
        self._build_at_init()

    def compute_mask(self, inputs, mask=None):
        ops = _keras_ops()  # on KerasTensors the mask joins the graph
        return ops.any(ops.not_equal(inputs, self.mask_value), axis=-1)

    def call(self, inputs):
        keep = tf.reduce_any(tf.not_equal(inputs, self.mask_value), axis=-1, keepdims=True)
        outputs = tf.where(keep, inputs, tf.zeros_like(inputs))
        set_keras_mask(outputs, tf.squeeze(keep, axis=-1))
        return outputs

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        return {**super().get_config(), "mask_value": self.mask_value}


class Lambda(Layer):
    """Wraps a function as a layer: ``Lambda(lambda x: x * 2)``.

    Parameters
    ----------
    function : callable
        Called with the input (and ``mask``/``training`` when it takes them) plus ``arguments``.
    output_shape : tuple or callable, optional
        The output shape without the batch dim, or ``input_shape -> output_shape``; inferred by a
        probe run when None.
    mask : callable or tensor, optional
    arguments : dict, optional
        Extra keyword arguments of ``function``.

    Notes
    -----
    A config with a Python lambda stores its bytecode; loading it again (``from_config``) is
    refused unless safe mode is off (``safe_mode=False``, ``keras.config.enable_unsafe_deserialization()``).
    """

    def __init__(self, function, output_shape=None, mask=None, arguments=None, **kwargs):
        super().__init__(**kwargs)
        self.arguments = arguments or {}
        self.function = function
        self.supports_masking = mask is not None
        self.mask = mask
        self._output_shape = output_shape
        parameters = inspect.getfullargspec(function).args
        self._fn_expects_training_arg = "training" in parameters
        self._fn_expects_mask_arg = "mask" in parameters

    def compute_output_shape(self, input_shape):
        if self._output_shape is None:
            try:
                inputs = map_shapes(lambda s: KerasTensor(s, dtype=self.compute_dtype), input_shape)
                return nest.map_structure(lambda x: x.shape, infer_output_spec(self.call, inputs))
            except Exception:
                raise NotImplementedError("We could not automatically infer the shape of the Lambda's output. Please "
                                          "specify the `output_shape` argument for this Lambda layer.") from None
        if callable(self._output_shape):
            return self._output_shape(input_shape)
        batch_size = nest.flatten(input_shape)[0] if isinstance(input_shape, (tuple, list)) else None
        return map_shapes(lambda shape: (batch_size,) + tuple(shape), self._output_shape)

    def call(self, inputs, mask=None, training=None):
        kwargs = dict(self.arguments)
        if self._fn_expects_mask_arg:
            kwargs["mask"] = mask
        if self._fn_expects_training_arg:
            kwargs["training"] = training
        return self.function(inputs, **kwargs)

    def compute_mask(self, inputs, mask=None):
        if callable(self.mask):
            return self.mask(inputs, mask)
        return self.mask

    def get_config(self):
        config = {"function": _function_config(self.function)}
        if self._output_shape is not None:
            config["output_shape"] = (_function_config(self._output_shape) if callable(self._output_shape)
                                      else self._output_shape)
        if self.mask is not None:
            config["mask"] = (_function_config(self.mask) if callable(self.mask)
                              else serialization.serialize_keras_object(self.mask))
        config["arguments"] = serialization.serialize_keras_object(self.arguments)
        return {**super().get_config(), **config}

    @classmethod
    def from_config(cls, config, custom_objects=None, safe_mode=None):
        """Rebuild the layer; a Python lambda in the config needs safe mode off (else ValueError)."""
        if safe_mode is None:
            safe_mode = serialization.in_safe_mode()
        safe_mode = safe_mode is not False
        config = dict(config)
        for key in ("function", "output_shape"):
            if key not in config:
                continue
            value = config[key]
            if isinstance(value, dict) and value.get("class_name") == "__lambda__":
                if safe_mode:
                    raise ValueError(
                        "Requested the deserialization of a `Lambda` layer whose `function` is a Python lambda. This "
                        "carries a potential risk of arbitrary code execution and thus it is disallowed by default. "
                        "If you trust the source of the artifact, you can override this error by passing "
                        "`safe_mode=False` to the loading function, or calling "
                        "`keras.config.enable_unsafe_deserialization().")
                inner = value["config"]
                config[key] = serialization.func_load(inner["code"], defaults=inner["defaults"],
                                                      closure=inner["closure"])
            else:
                value = serialization.deserialize_keras_object(value, custom_objects=custom_objects)
                if key == "output_shape" and isinstance(value, list) and all(
                        isinstance(d, (int, type(None))) for d in value):
                    value = tuple(value)
                config[key] = value
        if "arguments" in config:
            config["arguments"] = serialization.deserialize_keras_object(config["arguments"],
                                                                         custom_objects=custom_objects)
        return cls(**config)


def _function_config(fn):
    if isinstance(fn, types.LambdaType) and fn.__name__ == "<lambda>":
        code, defaults, closure = serialization.func_dump(fn)
        return {"class_name": "__lambda__", "config": {"code": code, "defaults": defaults, "closure": closure}}
    if callable(fn):
        return serialization.serialize_keras_object(fn)
    raise ValueError(f"Invalid input type for serialization. Received: {fn} of type {type(fn)}.")


API = {"layers": ["Dense", "EinsumDense", "Embedding", "Identity", "Lambda", "Masking"]}
