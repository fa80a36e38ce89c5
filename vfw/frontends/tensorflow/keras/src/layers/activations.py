"""Activation layers: Activation, ReLU, LeakyReLU, PReLU, ELU, Softmax.

All pass masks through; Softmax also takes a mask (masked positions get probability 0).  PReLU
learns ``alpha`` (zeros by default) of the input's non-batch shape, with size 1 along ``shared_axes``.
"""

import vfw.frontends.tensorflow as tf
from vfw.frontends._warnings import warn_for_user
from vfw.frontends.tensorflow.keras.src import activations, constraints, initializers, ops, regularizers
from vfw.frontends.tensorflow.keras.src.engine.input_spec import InputSpec
from vfw.frontends.tensorflow.keras.src.engine.layer import Layer


class _Elementwise(Layer):
    """A stateless layer applied elementwise (output shape = input shape; masks pass through)."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.supports_masking = True
        self._build_at_init()

    def compute_output_shape(self, input_shape):
        return input_shape


class Activation(_Elementwise):
    """Applies an activation function (a name such as ``"relu"``, or a callable)."""

    def __init__(self, activation, **kwargs):
        super().__init__(**kwargs)
        self.activation = activations.get(activation)

    def call(self, inputs):
        return self.activation(inputs)

    def get_config(self):
        return {**super().get_config(), "activation": activations.serialize(self.activation)}


class ReLU(_Elementwise):
    """Rectified linear unit: ``x`` above ``threshold`` (capped at ``max_value``), ``negative_slope * (x -
    threshold)`` below.

    Parameters
    ----------
    max_value : float, optional
        >= 0.
    negative_slope : float
        >= 0.
    threshold : float
        >= 0.
    """

    def __init__(self, max_value=None, negative_slope=0.0, threshold=0.0, **kwargs):
        super().__init__(**kwargs)
        if max_value is not None and max_value < 0.0:
            raise ValueError(f"max_value of a ReLU layer cannot be a negative value. Received: max_value={max_value}")
        if negative_slope is None or negative_slope < 0.0:
            raise ValueError(f"negative_slope of a ReLU layer cannot be None or a negative value. Received: "
                             f"negative_slope={negative_slope}")
        if threshold is None or threshold < 0.0:
            raise ValueError(f"threshold of a ReLU layer cannot be None or a negative value. Received: "
                             f"threshold={threshold}")
        self.max_value = max_value
        self.negative_slope = negative_slope
        self.threshold = threshold

    def call(self, inputs):
        return activations.relu(inputs, negative_slope=self.negative_slope, max_value=self.max_value,
                                threshold=self.threshold)

    def get_config(self):
        return {**super().get_config(), "max_value": self.max_value, "negative_slope": self.negative_slope,
                "threshold": self.threshold}


class LeakyReLU(_Elementwise):
    """``x`` for positive ``x``, ``negative_slope * x`` otherwise (``alpha`` is the deprecated name)."""

    def __init__(self, negative_slope=0.3, **kwargs):
        if "alpha" in kwargs:
            negative_slope = kwargs.pop("alpha")
            warn_for_user("Argument `alpha` is deprecated. Use `negative_slope` instead.")
        super().__init__(**kwargs)
        if negative_slope is None or negative_slope < 0:
            raise ValueError(f"The negative_slope value of a Leaky ReLU layer cannot be None or negative value. "
                             f"Expected a float. Received: negative_slope={negative_slope}")
        self.negative_slope = negative_slope

    def call(self, inputs):
        return activations.leaky_relu(inputs, negative_slope=self.negative_slope)

    def get_config(self):
        return {**super().get_config(), "negative_slope": self.negative_slope}


class ELU(_Elementwise):
    """Exponential linear unit: ``x`` for positive ``x``, ``alpha * (exp(x) - 1)`` otherwise."""

    def __init__(self, alpha=1.0, **kwargs):
        super().__init__(**kwargs)
        self.alpha = alpha

    def call(self, inputs):
        return activations.elu(inputs, alpha=self.alpha)


class PReLU(Layer):
    """Parametric ReLU: ``relu(x) - alpha * relu(-x)`` with a learned ``alpha``.

    Parameters
    ----------
    alpha_initializer : default ``"Zeros"``
    alpha_regularizer, alpha_constraint : optional
    shared_axes : int or list of int, optional
        Input axes (1-based, the batch is 0) along which one alpha is shared.
    """

    def __init__(self, alpha_initializer="Zeros", alpha_regularizer=None, alpha_constraint=None, shared_axes=None,
                 **kwargs):
        super().__init__(**kwargs)
        self.supports_masking = True
        self.alpha_initializer = initializers.get(alpha_initializer)
        self.alpha_regularizer = regularizers.get(alpha_regularizer)
        self.alpha_constraint = constraints.get(alpha_constraint)
        if shared_axes is None:
            self.shared_axes = None
        elif not isinstance(shared_axes, (list, tuple)):
            self.shared_axes = [shared_axes]
        else:
            self.shared_axes = list(shared_axes)

    def build(self, input_shape):
        shape = list(input_shape[1:])
        for axis in self.shared_axes or ():
            shape[axis - 1] = 1
        self.alpha = self.add_weight(shape=shape, name="alpha", initializer=self.alpha_initializer,
                                     regularizer=self.alpha_regularizer, constraint=self.alpha_constraint)
        axes = {i: input_shape[i] for i in range(1, len(input_shape))
                if self.shared_axes and i not in self.shared_axes}
        self.input_spec = InputSpec(ndim=len(input_shape), axes=axes)

    def call(self, inputs):
        alpha = tf.convert_to_tensor(self.alpha)
        return activations.relu(inputs) - alpha * activations.relu(-inputs)

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        return {**super().get_config(), "alpha_initializer": initializers.serialize(self.alpha_initializer),
                "alpha_regularizer": regularizers.serialize(self.alpha_regularizer),
                "alpha_constraint": constraints.serialize(self.alpha_constraint), "shared_axes": self.shared_axes}


def _large_negative(dtype):
    """What masked logits become: a number whose exp is 0 in ``dtype``."""
    return -30000.0 if dtype == "float16" else -1e9


class Softmax(_Elementwise):
    """Softmax over ``axis`` (an int, or several axes); a mask (1/True: keep) zeroes masked positions.

    Parameters
    ----------
    axis : int or tuple of int
    """

    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        self.axis = axis

    def call(self, inputs, mask=None):
        if mask is not None:
            mask = self._checked_mask(inputs, mask)
            inputs = tf.where(mask, inputs, tf.cast(_large_negative(inputs.dtype.name), inputs.dtype))
        if isinstance(self.axis, (tuple, list)) and len(self.axis) > 1:
            outputs = ops.exp(inputs - ops.logsumexp(inputs, axis=self.axis, keepdims=True))
        else:
            axis = self.axis[0] if isinstance(self.axis, (tuple, list)) else self.axis
            outputs = activations.softmax(inputs, axis=axis)
        if mask is not None:
            outputs = tf.where(mask, outputs, tf.zeros_like(outputs))
        return outputs

    @staticmethod
    def _checked_mask(inputs, mask):
        """``mask`` as a bool tensor after Keras' broadcast checks (non-bool masks: ``> 0.5``)."""
        if len(mask.shape) > len(inputs.shape):
            raise ValueError(f"The `mask` must be broadcastable to `inputs` and must not have more dimensions. "
                             f"Received: inputs.shape={inputs.shape}, mask.shape={mask.shape}")
        for mask_dim, input_dim in zip(mask.shape[::-1], inputs.shape[::-1]):
            if mask_dim is not None and input_dim is not None and mask_dim not in (1, input_dim):
                raise ValueError(f"The `mask` must be broadcastable to `inputs`. Each mask dimension must be 1 or "
                                 f"match the corresponding input dimension. Received: inputs.shape={inputs.shape}, "
                                 f"mask.shape={mask.shape}")
        mask = tf.convert_to_tensor(mask)
        if mask.dtype != tf.bool:
            mask = mask > tf.cast(0.5, mask.dtype)
        return mask

    def get_config(self):
        return {**super().get_config(), "axis": self.axis}


API = {"layers": ["Activation", "ReLU", "LeakyReLU", "PReLU", "ELU", "Softmax"]}
