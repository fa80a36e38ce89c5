"""Normalization layers: BatchNormalization, LayerNormalization, GroupNormalization, RMSNormalization,
UnitNormalization.

Weights are Keras': ``gamma`` (ones) and ``beta`` (zeros) for the learned scale and offset (not
autocast: half-precision layers keep and apply them in float32), BatchNormalization's
``moving_mean`` (zeros) and ``moving_variance`` (ones), non-trainable, updated in training calls as
``moving * momentum + batch * (1 - momentum)`` through Keras variables' ``assign`` (graph state
updates under tf.function, nothing during shape inference).  Statistics are computed in at least
float32 with ``tf.nn.moments``, in Keras' formulas, so values and gradients are TF's.
"""

import vfw.frontends.tensorflow as tf
from vfw.frontends._warnings import warn_for_user
from vfw.frontends.tensorflow.keras.src import backend, constraints, initializers, regularizers
from vfw.frontends.tensorflow.keras.src.engine.input_spec import InputSpec
from vfw.frontends.tensorflow.keras.src.engine.layer import Layer

_RMS_SCALING_WARNING = ("You passed `rms_scaling=True`, which is deprecated. This argument incorrectly scales the "
                        "input by the variance, not the root mean square. To correctly use RMS Normalization, please "
                        "use ")


def _stats_dtype(dtype):
    """The dtype Keras computes statistics in: float64 stays, anything narrower becomes float32."""
    return backend.result_type(tf.as_dtype(dtype).name, "float32")


def _check_axes_in_bounds(axis, input_shape):
    """Keras' ``compute_output_shape`` check of ``axis`` (an int or list) against ``input_shape``."""
    for a in ([axis] if isinstance(axis, int) else axis):
        if a >= len(input_shape) or a < -len(input_shape):
            raise ValueError(f"Axis {a} is out of bounds for input shape {input_shape}. Received: axis={axis}")


class _ScaleAndOffset:
    """What the normalization layers with a learned ``gamma`` (scale) and ``beta`` (center) share."""

    def _init_scale_and_offset(self, center, scale, beta_initializer, gamma_initializer, beta_regularizer,
                               gamma_regularizer, beta_constraint, gamma_constraint):
        self.center = center
        self.scale = scale
        self.beta_initializer = initializers.get(beta_initializer)
        self.gamma_initializer = initializers.get(gamma_initializer)
        self.beta_regularizer = regularizers.get(beta_regularizer)
        self.gamma_regularizer = regularizers.get(gamma_regularizer)
        self.beta_constraint = constraints.get(beta_constraint)
        self.gamma_constraint = constraints.get(gamma_constraint)

    def _add_gamma(self, shape):
        return self.add_weight(shape=shape, name="gamma", initializer=self.gamma_initializer,
                               regularizer=self.gamma_regularizer, constraint=self.gamma_constraint, trainable=True,
                               autocast=False)

    def _add_beta(self, shape):
        return self.add_weight(shape=shape, name="beta", initializer=self.beta_initializer,
                               regularizer=self.beta_regularizer, constraint=self.beta_constraint, trainable=True,
                               autocast=False)

    def _scale_and_offset_config(self, after_scale=(), after_initializers=()):
        """The config entries of ``center``, ``scale`` and the gamma/beta arguments, in Keras' order (with the
        layer's own entries inserted where its Keras config has them)."""
        return {
            "center": self.center, "scale": self.scale, **dict(after_scale),
            "beta_initializer": initializers.serialize(self.beta_initializer),
            "gamma_initializer": initializers.serialize(self.gamma_initializer), **dict(after_initializers),
            "beta_regularizer": regularizers.serialize(self.beta_regularizer),
            "gamma_regularizer": regularizers.serialize(self.gamma_regularizer),
            "beta_constraint": constraints.serialize(self.beta_constraint),
            "gamma_constraint": constraints.serialize(self.gamma_constraint),
        }


def _normalize(x, mean, variance, epsilon, gamma=None, beta=None):
    """``x * inv + (beta - mean * inv)`` with ``inv = gamma / sqrt(variance + epsilon)`` (Keras' formula)."""
    inv = tf.math.rsqrt(variance + epsilon)
    if gamma is not None:
        inv = inv * gamma
    shift = -mean * inv
    if beta is not None:
        shift = shift + beta
    return x * inv + shift


def _read(variable, dtype, shape=None):
    """A Keras variable's value cast to ``dtype`` (reshaped to ``shape`` when given)."""
    value = tf.cast(variable, dtype)
    return value if shape is None else tf.reshape(value, shape)


class BatchNormalization(_ScaleAndOffset, Layer):
    """Normalizes with the batch's statistics in training and the moving statistics in inference.

    Parameters
    ----------
    axis : int
        The feature axis (default -1).
    momentum : float
        Of the moving statistics (default 0.99).
    epsilon : float
        Added to the variance (default 1e-3).
    center, scale : bool
        Whether to learn ``beta`` / ``gamma``.
    beta_initializer, gamma_initializer, moving_mean_initializer, moving_variance_initializer
    beta_regularizer, gamma_regularizer, beta_constraint, gamma_constraint : optional
    renorm : bool
        Batch renormalization (moving ``moving_stddev``, ``renorm_mean``, ``renorm_stddev`` too).
    renorm_clipping : dict, optional
        ``rmax``, ``rmin``, ``dmax`` bounds of the renorm corrections.
    renorm_momentum : float
    synchronized : bool
        Statistics as ``E[x**2] - E[x]**2`` (what TF's cross-replica path computes on one replica).

    Notes
    -----
    ``call(inputs, training=None, mask=None)``: batch statistics only when ``training`` is true and
    the layer is trainable; a mask (one dim less than the inputs) weights the statistics.
    """

    def __init__(self, axis=-1, momentum=0.99, epsilon=1e-3, center=True, scale=True, beta_initializer="zeros",
                 gamma_initializer="ones", moving_mean_initializer="zeros", moving_variance_initializer="ones",
                 beta_regularizer=None, gamma_regularizer=None, beta_constraint=None, gamma_constraint=None,
                 renorm=False, renorm_clipping=None, renorm_momentum=0.99, synchronized=False, **kwargs):
        super().__init__(**kwargs)
        self.axis = int(axis)
        self.synchronized = synchronized
        self.momentum = float(momentum)
        self.epsilon = float(epsilon)
        self._init_scale_and_offset(center, scale, beta_initializer, gamma_initializer, beta_regularizer,
                                    gamma_regularizer, beta_constraint, gamma_constraint)
        self.moving_mean_initializer = initializers.get(moving_mean_initializer)
        self.moving_variance_initializer = initializers.get(moving_variance_initializer)
        self.supports_masking = True
        self.renorm = renorm
        if renorm:
            renorm_clipping = renorm_clipping or {}
            _check_renorm_clipping(renorm_clipping)
        self.renorm_clipping = renorm_clipping
        self.renorm_momentum = renorm_momentum
        self.gamma = None
        self.beta = None
        self.moving_mean = None
        self.moving_variance = None
        self._reduction_axes = None

    def build(self, input_shape):
        shape = (input_shape[self.axis],)
        if self.scale:
            self.gamma = self._add_gamma(shape)
        if self.center:
            self.beta = self._add_beta(shape)
        self.moving_mean = self._add_statistic("moving_mean", shape, self.moving_mean_initializer)
        self.moving_variance = self._add_statistic("moving_variance", shape, self.moving_variance_initializer)
        if self.renorm:
            stddev_initializer = _SqrtInitializer(self.moving_variance_initializer)
            self.moving_stddev = self._add_statistic("moving_stddev", shape, stddev_initializer)
            self.renorm_mean = self._add_statistic("renorm_mean", shape, _fresh(self.moving_mean_initializer))
            self.renorm_stddev = self._add_statistic("renorm_stddev", shape, stddev_initializer)
        self.input_spec = InputSpec(ndim=len(input_shape), axes={self.axis: input_shape[self.axis]})
        self._reduction_axes = [a for a in range(len(input_shape)) if a != self.axis % len(input_shape)]

    def _add_statistic(self, name, shape, initializer):
        return self.add_weight(shape=shape, name=name, initializer=initializer, trainable=False, autocast=False)

    def compute_output_shape(self, input_shape):
        _check_axes_in_bounds(self.axis, input_shape)
        return input_shape

    def call(self, inputs, training=None, mask=None):
        if mask is not None and len(mask.shape) != len(inputs.shape) - 1:
            raise ValueError(f"The mask provided should be one dimension less than the inputs. Received: "
                             f"mask.shape={mask.shape}, inputs.shape={inputs.shape}")
        inputs = tf.cast(inputs, _stats_dtype(inputs.dtype))  # half precision overflows in the statistics
        dtype = inputs.dtype
        moving_mean = _read(self.moving_mean, dtype)
        moving_variance = _read(self.moving_variance, dtype)
        gamma = _read(self.gamma, dtype) if self.scale else None
        beta = _read(self.beta, dtype) if self.center else None
        if training and self.trainable:
            mean, variance = self._moments(inputs, mask)
            if self.renorm:
                r, d = self._renorm_corrections(mean, variance)
                gamma, beta = _compose_renorm(r, d, gamma, beta, dtype)
                self._update_renorm_statistics(mean, variance)
            else:
                self.moving_mean.assign(moving_mean * self.momentum + mean * (1.0 - self.momentum))
                self.moving_variance.assign(moving_variance * self.momentum + variance * (1.0 - self.momentum))
        else:
            mean, variance = moving_mean, moving_variance
        if self.axis != -1:  # the statistics broadcast along the feature axis
            shape = [1] * len(inputs.shape)
            shape[self.axis] = mean.shape[0]
            mean, variance = tf.reshape(mean, shape), tf.reshape(variance, shape)
            gamma = None if gamma is None else tf.reshape(gamma, shape)
            beta = None if beta is None else tf.reshape(beta, shape)
        outputs = tf.nn.batch_normalization(inputs, mean, variance, beta, gamma, self.epsilon)
        return tf.cast(outputs, self.compute_dtype)

    def _moments(self, inputs, mask):
        axes = self._reduction_axes
        if mask is None:
            if not self.synchronized:
                return tf.nn.moments(inputs, axes=axes)
            mean = tf.reduce_mean(inputs, axis=axes)
            mean_of_squares = tf.reduce_mean(tf.square(inputs), axis=axes)
            return mean, tf.maximum(mean_of_squares - tf.square(mean), 0.0)
        weights = tf.broadcast_to(tf.expand_dims(tf.cast(mask, "bool"), -1), tf.shape(inputs))
        zeros = tf.zeros_like(inputs)
        count = tf.reduce_sum(tf.cast(weights, inputs.dtype), axes, keepdims=True) + backend.epsilon()
        mean = tf.reduce_sum(tf.where(weights, inputs, zeros), axes, keepdims=True) / count
        deviations = tf.where(weights, inputs - mean, zeros)
        variance = tf.reduce_sum(tf.square(deviations), axes, keepdims=True) / count
        return tf.squeeze(mean), tf.squeeze(variance)

    def _renorm_corrections(self, mean, variance):
        """Batch renormalization's ``(r, d)``: the batch stddev and mean relative to the renorm moving ones."""
        stddev = tf.sqrt(variance + self.epsilon)
        renorm_mean = _read(self.renorm_mean, mean.dtype)
        renorm_stddev = tf.maximum(_read(self.renorm_stddev, mean.dtype),
                                   tf.sqrt(tf.cast(self.epsilon, mean.dtype)))
        r = stddev / renorm_stddev
        d = (mean - renorm_mean) / renorm_stddev
        clipping = self.renorm_clipping
        if clipping.get("rmin") is not None:
            r = tf.maximum(r, clipping["rmin"])
        if clipping.get("rmax") is not None:
            r = tf.minimum(r, clipping["rmax"])
        if clipping.get("dmax") is not None:
            d = tf.clip_by_value(d, -clipping["dmax"], clipping["dmax"])
        return r, d

    def _update_renorm_statistics(self, mean, variance):
        stddev = tf.sqrt(variance + self.epsilon)
        renorm_mean = _read(self.renorm_mean, mean.dtype)
        renorm_stddev = _read(self.renorm_stddev, mean.dtype)
        self.renorm_mean.assign(renorm_mean * self.renorm_momentum + mean * (1.0 - self.renorm_momentum))
        self.renorm_stddev.assign(renorm_stddev * self.renorm_momentum + stddev * (1.0 - self.renorm_momentum))
        moving_mean = _read(self.moving_mean, mean.dtype)
        moving_stddev = _read(self.moving_stddev, mean.dtype)
        self.moving_mean.assign(moving_mean * self.momentum + mean * (1.0 - self.momentum))
        new_stddev = moving_stddev * self.momentum + stddev * (1.0 - self.momentum)
        self.moving_stddev.assign(new_stddev)
        self.moving_variance.assign(tf.nn.relu(new_stddev * new_stddev - self.epsilon))  # rounding may go below 0

    def get_config(self):
        moving_initializers = {
            "moving_mean_initializer": initializers.serialize(self.moving_mean_initializer),
            "moving_variance_initializer": initializers.serialize(self.moving_variance_initializer)}
        return {**super().get_config(), "axis": self.axis, "momentum": self.momentum, "epsilon": self.epsilon,
                **self._scale_and_offset_config(after_initializers=moving_initializers),
                "synchronized": self.synchronized, "renorm": self.renorm, "renorm_clipping": self.renorm_clipping,
                "renorm_momentum": self.renorm_momentum}


def _check_renorm_clipping(clipping):
    keys = ["rmax", "rmin", "dmax"]
    if set(clipping) - set(keys):
        raise ValueError(f"Received invalid keys for `renorm_clipping` argument: {clipping}. Supported values: "
                         f"{keys}.")
    rmax, rmin, dmax = clipping.get("rmax"), clipping.get("rmin"), clipping.get("dmax")
    if rmax is not None and rmin is not None and rmax < rmin:
        raise ValueError("rmax should be greater than rmin in the `renorm_clipping` argument. Received: "
                         "rmax={rmax}, rmin={rmin}.")  # sic: Keras does not format this message
    if dmax is not None and dmax < 0:
        raise ValueError("dmax should be non-negative in the `renorm_clipping` argument. Received: dmax={dmax}.")


def _compose_renorm(r, d, gamma, beta, dtype):
    """The scale and offset that apply ``(x * r + d) * gamma + beta`` (r, d without gradients)."""
    r, d = tf.stop_gradient(r), tf.stop_gradient(d)
    if gamma is not None:
        scale, offset = r * gamma, d * gamma
    else:
        scale, offset = tf.cast(r, dtype), tf.cast(d, dtype)
    if beta is not None:
        offset = offset + beta
    return scale, offset


def _fresh(initializer):
    """A new initializer of the same config (Keras clones the renorm initializers: same draws, own seed state)."""
    if isinstance(initializer, initializers.Initializer):
        return type(initializer).from_config(initializer.get_config())
    return initializer


class _SqrtInitializer:
    """The square root of another initializer's values (renorm's stddevs start at sqrt(variance))."""

    def __init__(self, initializer):
        self.initializer = initializer

    def __call__(self, shape, dtype=None):
        return tf.sqrt(_fresh(self.initializer)(shape, dtype=dtype))


def _standardize_axis(axis, error_type, message):
    if isinstance(axis, (list, tuple)):
        return list(axis)
    if isinstance(axis, int):
        return axis
    raise error_type(message)


def _feature_shape(layer, input_shape):
    """The shape of weights over the normalized axes; ``layer.axis`` becomes a sorted list (as in Keras)."""
    if isinstance(layer.axis, (list, tuple)):
        layer.axis = sorted(layer.axis)
        return tuple(input_shape[a] for a in layer.axis)
    shape = (input_shape[layer.axis],)
    layer.axis = [layer.axis]
    return shape


def _broadcastable(value, x, axes):
    """A weight over ``axes`` reshaped to broadcast against ``x`` (unchanged when ``axes`` is the last one)."""
    rank = len(x.shape)
    if value is None or len(value.shape) == rank or axes == [rank - 1] or axes == [-1]:
        return value
    shape = [1] * rank
    for a in axes:
        shape[a] = x.shape[a]
    return tf.reshape(value, shape)


class LayerNormalization(_ScaleAndOffset, Layer):
    """Normalizes each example over ``axis`` (an int or list of ints; default -1).

    Parameters
    ----------
    axis : int or list of int
    epsilon : float
        Default 1e-3.
    center, scale : bool
    beta_initializer, gamma_initializer, beta_regularizer, gamma_regularizer, beta_constraint,
    gamma_constraint : optional
    rms_scaling : bool
        Deprecated (warns): divide by the standard deviation without centering, no ``beta``.
    """

    def __init__(self, axis=-1, epsilon=1e-3, center=True, scale=True, beta_initializer="zeros",
                 gamma_initializer="ones", beta_regularizer=None, gamma_regularizer=None, beta_constraint=None,
                 gamma_constraint=None, **kwargs):
        rms_scaling = kwargs.pop("rms_scaling", False)
        if rms_scaling:
            warn_for_user(_RMS_SCALING_WARNING + "`keras.layers.RMSNormalization` instead.")
        super().__init__(**kwargs)
        self.axis = _standardize_axis(axis, TypeError, "Expected an int or a list/tuple of ints for the argument "
                                                       f"'axis', but received: {axis!r}")
        self.epsilon = epsilon
        self.rms_scaling = rms_scaling
        self._init_scale_and_offset(center, scale, beta_initializer, gamma_initializer, beta_regularizer,
                                    gamma_regularizer, beta_constraint, gamma_constraint)
        self.supports_masking = True
        self.autocast = False

    def build(self, input_shape):
        shape = _feature_shape(self, input_shape)
        self.gamma = self._add_gamma(shape) if self.scale or self.rms_scaling else None
        self.beta = self._add_beta(shape) if self.center and not self.rms_scaling else None

    def call(self, inputs):
        original_dtype = inputs.dtype
        x = tf.cast(inputs, _stats_dtype(inputs.dtype))
        axes = sorted(self.axis)
        gamma = None if self.gamma is None else _broadcastable(tf.cast(self.gamma, x.dtype), x, axes)
        if self.rms_scaling:
            warn_for_user(_RMS_SCALING_WARNING + "`keras.ops.rms_normalization` / `keras.ops.nn.rms_normalization` "
                          "instead.")  # as Keras' op, at every call
            _, variance = tf.nn.moments(x, axes=axes, keepdims=True)
            outputs = x * tf.math.rsqrt(variance + self.epsilon)
            if gamma is not None:
                outputs = outputs * gamma
        else:
            beta = None if self.beta is None else _broadcastable(tf.cast(self.beta, x.dtype), x, axes)
            mean, variance = tf.nn.moments(x, axes=axes, keepdims=True)
            outputs = _normalize(x, mean, variance, self.epsilon, gamma, beta)
        return tf.cast(tf.cast(outputs, original_dtype), self.compute_dtype)

    def compute_output_shape(self, input_shape):
        _check_axes_in_bounds(self.axis, input_shape)
        return input_shape

    def get_config(self):
        return {**super().get_config(), "axis": self.axis, "epsilon": self.epsilon,
                **self._scale_and_offset_config(after_scale={"rms_scaling": self.rms_scaling})}


class GroupNormalization(_ScaleAndOffset, Layer):
    """Normalizes over groups of channels (``groups``; -1: one channel per group) and the other axes.

    Parameters
    ----------
    groups : int
        Default 32; must divide the number of channels.
    axis : int
        The channel axis (default -1).
    epsilon : float
    center, scale : bool
    beta_initializer, gamma_initializer, beta_regularizer, gamma_regularizer, beta_constraint,
    gamma_constraint : optional
    """

    def __init__(self, groups=32, axis=-1, epsilon=1e-3, center=True, scale=True, beta_initializer="zeros",
                 gamma_initializer="ones", beta_regularizer=None, gamma_regularizer=None, beta_constraint=None,
                 gamma_constraint=None, **kwargs):
        if not isinstance(groups, int) or (groups <= 0 and groups != -1):
            raise ValueError("Received an invalid value for argument `groups`, expected a positive integer (or `-1` "
                             f"for instance normalization). Received: groups={groups}")
        super().__init__(**kwargs)
        self.supports_masking = True
        self.autocast = False
        self.groups = groups
        self.axis = axis
        self.epsilon = epsilon
        self._init_scale_and_offset(center, scale, beta_initializer, gamma_initializer, beta_regularizer,
                                    gamma_regularizer, beta_constraint, gamma_constraint)

    def build(self, input_shape):
        channels = input_shape[self.axis]
        if channels is None:
            raise ValueError(f"Axis {self.axis} of input tensor should have a defined dimension but the layer "
                             f"received an input with shape {input_shape}.")
        if self.groups == -1:
            self.groups = channels
        if channels < self.groups:
            raise ValueError(f"Number of groups ({self.groups}) cannot be more than the number of channels "
                             f"({channels}).")
        if channels % self.groups != 0:
            raise ValueError(f"Number of groups ({self.groups}) must be a multiple of the number of channels "
                             f"({channels}).")
        self.input_spec = InputSpec(ndim=len(input_shape), axes={self.axis: channels})
        self.gamma = self._add_gamma((channels,)) if self.scale else None
        self.beta = self._add_beta((channels,)) if self.center else None

    def call(self, inputs):
        shape = tf.shape(inputs)
        rank = len(inputs.shape)
        axis = self.axis % rank
        grouped_shape = [-1] + [shape[i] if d is None else d for i, d in enumerate(inputs.shape) if i > 0]
        grouped_shape[axis] = grouped_shape[axis] // self.groups
        grouped_shape.insert(axis, self.groups)
        grouped = tf.reshape(inputs, grouped_shape)
        x = tf.cast(grouped, _stats_dtype(inputs.dtype))
        reduction_axes = [a for a in range(1, rank + 1) if a != axis]  # all but the batch and group axes
        weight_shape = [1] * (rank + 1)
        weight_shape[axis] = self.groups
        weight_shape[axis + 1] = inputs.shape[axis] // self.groups
        mean, variance = tf.nn.moments(x, axes=reduction_axes, keepdims=True)
        gamma = _read(self.gamma, x.dtype, weight_shape) if self.scale else None
        beta = _read(self.beta, x.dtype, weight_shape) if self.center else None
        outputs = tf.cast(_normalize(x, mean, variance, self.epsilon, gamma, beta), inputs.dtype)
        return tf.cast(tf.reshape(outputs, shape), self.compute_dtype)

    def compute_output_shape(self, input_shape):
        _check_axes_in_bounds(self.axis, input_shape)
        return input_shape

    def get_config(self):
        return {**super().get_config(), "groups": self.groups, "axis": self.axis, "epsilon": self.epsilon,
                **self._scale_and_offset_config()}


class RMSNormalization(Layer):
    """Divides by the root mean square over ``axis`` and multiplies by a learned ``scale`` (ones).

    Parameters
    ----------
    axis : int or list of int
        Default -1.
    epsilon : float
        Default 1e-6.
    """

    def __init__(self, axis=-1, epsilon=1e-6, **kwargs):
        super().__init__(**kwargs)
        self.axis = axis
        self.epsilon = epsilon

    def build(self, input_shape):
        self.scale = self.add_weight(name="scale", shape=_feature_shape(self, input_shape), initializer="ones")
        self.built = True

    def call(self, x):
        original_dtype = x.dtype
        x = tf.cast(x, _stats_dtype(x.dtype))
        axes = sorted(self.axis)
        inverse_rms = tf.math.rsqrt(tf.reduce_mean(tf.square(x), axis=axes, keepdims=True) + self.epsilon)
        return tf.cast(x * inverse_rms * tf.cast(self.scale, x.dtype), original_dtype)

    def compute_output_shape(self, input_shape):
        _check_axes_in_bounds(self.axis, input_shape)
        return input_shape

    def get_config(self):
        return {**super().get_config(), "axis": self.axis, "epsilon": self.epsilon}


class UnitNormalization(Layer):
    """Scales each example to unit L2 norm over ``axis`` (an int or list of ints; default -1)."""

    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        self.axis = _standardize_axis(axis, TypeError, "Invalid value for `axis` argument: expected an int or a "
                                                       f"list/tuple of ints. Received: axis={axis}")
        self.supports_masking = True
        self._build_at_init()

    def call(self, inputs):
        inverse_norm = tf.math.rsqrt(tf.reduce_sum(tf.square(inputs), axis=self.axis, keepdims=True))
        return inputs * tf.minimum(inverse_norm, 1e12)  # the norm is at least epsilon = 1e-12

    def compute_output_shape(self, input_shape):
        for a in ([self.axis] if isinstance(self.axis, int) else self.axis):
            if a >= len(input_shape) or a < -len(input_shape):
                raise ValueError(f"Axis {self.axis} is out of bounds for input shape {input_shape}.")
        return input_shape

    def get_config(self):
        return {**super().get_config(), "axis": self.axis}


API = {"layers": ["BatchNormalization", "LayerNormalization", "GroupNormalization", "RMSNormalization",
                  "UnitNormalization"]}
