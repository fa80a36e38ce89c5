"""Regularization layers: Dropout, SpatialDropout1D/2D/3D, GaussianNoise, GaussianDropout, AlphaDropout,
ActivityRegularization.

The random layers draw through ``keras.random`` with a ``SeedGenerator`` of their own (created
only when they can draw: ``rate``/``stddev`` > 0), so after ``keras.utils.set_random_seed`` they
draw Keras' numbers; they act only when called with ``training=True``.
"""

import math

import vfw.frontends.tensorflow as tf
from vfw.frontends.tensorflow.keras.src import backend, random, regularizers
from vfw.frontends.tensorflow.keras.src.engine.input_spec import InputSpec
from vfw.frontends.tensorflow.keras.src.engine.layer import Layer

# SELU's constants (AlphaDropout drops to SELU's negative saturation value).
_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def _check_fraction(name, value):
    if not 0 <= value <= 1:
        raise ValueError(f"Invalid value received for argument `{name}`. Expected a float value between 0 and 1. "
                         f"Received: {name}={value}")


def _standardize_noise_shape(noise_shape):
    """``noise_shape`` as a tuple of positive ints / None (Keras' checks and messages)."""
    if noise_shape is None:
        return None
    prefix = "Invalid value received for argument `noise_shape`."
    if isinstance(noise_shape, str):
        raise ValueError(f"{prefix} Expected a tuple or list of integers. Received: noise_shape={noise_shape}")
    try:
        noise_shape = tuple(noise_shape)
    except TypeError:
        raise ValueError(f"{prefix} Expected an iterable of integers (e.g., a tuple or list). Received: "
                         f"noise_shape={noise_shape}") from None
    for i, dim in enumerate(noise_shape):
        if dim is None:
            continue
        if not isinstance(dim, int):
            raise ValueError(f"{prefix} Expected all elements to be integers or None. Received element at index "
                             f"{i}: {dim} (type: {type(dim).__name__})")
        if dim <= 0:
            raise ValueError(f"{prefix} Expected all dimensions to be positive integers or None. Received "
                             f"negative or zero value at index {i}: {dim}")
    return noise_shape


class _RandomLayer(Layer):
    """A stateless layer that adds noise in training: a seed generator when its ``amount`` (rate or stddev)
    is positive, masks passed through, output shape = input shape."""

    def _init_noise(self, amount, seed):
        self.seed = seed
        if amount > 0:
            self.seed_generator = random.SeedGenerator(seed)
        self.supports_masking = True
        self._build_at_init()

    def compute_output_shape(self, input_shape):
        return input_shape


class Dropout(_RandomLayer):
    """Zeroes input units with probability ``rate`` in training, scaling the others by ``1 / (1 - rate)``.

    Parameters
    ----------
    rate : float
        In [0, 1].
    noise_shape : tuple, optional
        The shape of the kept/dropped mask (broadcast over the input; None entries take the input's size).
    seed : int, optional
    """

    def __init__(self, rate, noise_shape=None, seed=None, **kwargs):
        super().__init__(**kwargs)
        _check_fraction("rate", rate)
        self.rate = rate
        self.noise_shape = _standardize_noise_shape(noise_shape)
        self._init_noise(rate, seed)

    def call(self, inputs, training=False):
        if training and self.rate > 0:
            return random.dropout(inputs, self.rate, noise_shape=self._noise_shape(inputs), seed=self.seed_generator)
        return inputs

    def _noise_shape(self, inputs):
        return self.noise_shape

    def get_config(self):
        return {**super().get_config(), "rate": self.rate, "seed": self.seed, "noise_shape": self.noise_shape}


class _SpatialDropout(Dropout):
    """Dropout of whole feature maps: the mask has size 1 on the spatial axes."""

    _ndim = None

    def __init__(self, rate, data_format=None, seed=None, name=None, dtype=None):
        super().__init__(rate, seed=seed, name=name, dtype=dtype)
        self.data_format = backend.standardize_data_format(data_format)
        self.input_spec = InputSpec(ndim=self._ndim)

    def _noise_shape(self, inputs):
        shape = tf.shape(inputs)
        spatial = [1] * (self._ndim - 2)
        if self.data_format == "channels_first":
            return [shape[0], shape[1], *spatial]
        return [shape[0], *spatial, shape[self._ndim - 1]]

    def get_config(self):
        # Keras' spatial dropouts list these keys only (the dtype as the variable dtype's name).
        return {"rate": self.rate, "seed": self.seed, "name": self.name, "dtype": self.dtype,
                "data_format": self.data_format}


class SpatialDropout1D(_SpatialDropout):
    """Dropout of whole 1D feature maps of ``(batch, steps, channels)`` inputs (``rate``, ``seed``)."""

    _ndim = 3

    def __init__(self, rate, seed=None, name=None, dtype=None):
        super().__init__(rate, data_format="channels_last", seed=seed, name=name, dtype=dtype)

    def get_config(self):
        config = super().get_config()
        del config["data_format"]  # always channels last
        return config


class SpatialDropout2D(_SpatialDropout):
    """Dropout of whole 2D feature maps of 4D inputs (``rate``, ``data_format``, ``seed``)."""

    _ndim = 4


class SpatialDropout3D(_SpatialDropout):
    """Dropout of whole 3D feature maps of 5D inputs (``rate``, ``data_format``, ``seed``)."""

    _ndim = 5


class GaussianNoise(_RandomLayer):
    """Adds zero-mean normal noise of standard deviation ``stddev`` (in [0, 1]) in training."""

    def __init__(self, stddev, seed=None, **kwargs):
        super().__init__(**kwargs)
        _check_fraction("stddev", stddev)
        self.stddev = stddev
        self._init_noise(stddev, seed)

    def call(self, inputs, training=False):
        if training and self.stddev > 0:
            return inputs + random.normal(tf.shape(inputs), mean=0.0, stddev=self.stddev, dtype=self.compute_dtype,
                                          seed=self.seed_generator)
        return inputs

    def get_config(self):
        return {**super().get_config(), "stddev": self.stddev, "seed": self.seed}


class GaussianDropout(_RandomLayer):
    """Multiplies by normal noise of mean 1 and standard deviation ``sqrt(rate / (1 - rate))`` in training."""

    def __init__(self, rate, seed=None, **kwargs):
        super().__init__(**kwargs)
        _check_fraction("rate", rate)
        self.rate = rate
        self._init_noise(rate, seed)

    def call(self, inputs, training=False):
        if training and self.rate > 0:
            stddev = math.sqrt(self.rate / (1.0 - self.rate))
            return inputs * random.normal(tf.shape(inputs), mean=1.0, stddev=stddev, dtype=self.compute_dtype,
                                          seed=self.seed_generator)
        return inputs

    def get_config(self):
        return {**super().get_config(), "rate": self.rate, "seed": self.seed}


class AlphaDropout(_RandomLayer):
    """Dropout for SELU networks: dropped units take SELU's saturation value, then an affine map restores
    the input's mean and variance (``rate``, ``noise_shape``, ``seed``)."""

    def __init__(self, rate, noise_shape=None, seed=None, **kwargs):
        super().__init__(**kwargs)
        _check_fraction("rate", rate)
        self.rate = rate
        self.noise_shape = noise_shape
        self._init_noise(rate, seed)

    def call(self, inputs, training=False):
        if not (training and self.rate > 0):
            return inputs
        shape = tf.shape(inputs)
        if self.noise_shape is not None:
            shape = [shape[i] if d is None else d for i, d in enumerate(self.noise_shape)]
        kept = tf.cast(random.uniform(shape, seed=self.seed_generator) >= self.rate, inputs.dtype)
        saturation = -_SELU_ALPHA * _SELU_SCALE
        a = ((1 - self.rate) * (1 + self.rate * saturation ** 2)) ** -0.5
        b = -a * saturation * self.rate
        return a * (inputs * kept + saturation * (1 - kept)) + b

    def get_config(self):
        return {**super().get_config(), "rate": self.rate, "seed": self.seed, "noise_shape": self.noise_shape}


class ActivityRegularization(Layer):
    """Passes its input through, adding ``l1 * sum(|x|) + l2 * sum(x**2)`` to the layer's losses."""

    def __init__(self, l1=0.0, l2=0.0, **kwargs):
        super().__init__(activity_regularizer=regularizers.L1L2(l1=l1, l2=l2), **kwargs)
        self.supports_masking = True
        self.l1 = l1
        self.l2 = l2
        self._build_at_init()

    def call(self, inputs):
        return inputs

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        config = super().get_config()
        config.pop("activity_regularizer", None)
        return {**config, "l1": self.l1, "l2": self.l2}


API = {"layers": ["Dropout", "SpatialDropout1D", "SpatialDropout2D", "SpatialDropout3D", "GaussianNoise",
                  "GaussianDropout", "AlphaDropout", "ActivityRegularization"]}
