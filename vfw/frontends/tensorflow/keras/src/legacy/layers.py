"""tf.keras' legacy Keras 2 layers: ThresholdedReLU, RandomHeight, RandomWidth.

TF 2.21 serves them in ``tf.keras.layers`` (Keras' ``keras.src.legacy.layers``); plain Keras 3's
``keras.layers`` lacks them, but vfw serves one module for both, so ``keras.layers`` has them too.
RandomHeight/RandomWidth draw one resize factor per call through ``keras.random.uniform`` from a
``SeedGenerator`` of their own, as Keras does, so a seeded layer resizes like Keras'; ``training``
defaults to True (called directly they resize).
"""

import vfw.frontends.tensorflow as tf
from vfw.frontends.tensorflow.keras.src import random
from vfw.frontends.tensorflow.keras.src.engine.layer import Layer

API = {"layers": ["ThresholdedReLU", "RandomHeight", "RandomWidth"]}


class ThresholdedReLU(Layer):
    """``x`` where ``x > theta``, else 0.

    Parameters
    ----------
    theta : float
        The threshold, >= 0.
    """

    def __init__(self, theta=1.0, **kwargs):
        super().__init__(**kwargs)
        if theta is None:
            raise ValueError(f"Theta of a Thresholded ReLU layer cannot be None, expecting a float. Received: {theta}")
        if theta < 0:
            raise ValueError(f"The theta value of a Thresholded ReLU layer should be >=0. Received: {theta}")
        self.supports_masking = True
        self.theta = tf.convert_to_tensor(theta, dtype=self.compute_dtype)

    def call(self, inputs):
        return inputs * tf.cast(tf.greater(inputs, self.theta), self.compute_dtype)

    def get_config(self):
        return {**super().get_config(), "theta": float(self.theta)}

    def compute_output_shape(self, input_shape):
        return input_shape


class _RandomResize(Layer):
    """Resize one image axis (height: -3, width: -2, channels last) by a random factor in
    ``[1 + lower, 1 + upper)`` drawn once per call."""

    _axis = None
    _less_word = None  # Keras words the two layers' bound errors differently ("lesser"/"less").

    def __init__(self, factor, interpolation="bilinear", seed=None, **kwargs):
        super().__init__(**kwargs)
        self.seed_generator = random.SeedGenerator(seed)
        self.factor = factor
        if isinstance(factor, (tuple, list)):
            self._lower, self._upper = factor[0], factor[1]
        else:
            self._lower, self._upper = -factor, factor
        if self._upper < self._lower:
            raise ValueError(f"`factor` argument cannot have an upper bound {self._less_word} than the lower bound. "
                             f"Received: factor={factor}")
        if self._lower < -1.0 or self._upper < -1.0:
            raise ValueError(f"`factor` argument must have values larger than -1. Received: factor={factor}")
        self.interpolation = interpolation
        self.seed = seed

    def call(self, inputs, training=True):
        inputs = tf.convert_to_tensor(inputs, dtype=self.compute_dtype)
        if not training:
            return inputs
        size = tf.shape(inputs)
        scale = random.uniform(shape=[], minval=1.0 + self._lower, maxval=1.0 + self._upper, seed=self.seed_generator)
        # Keras scales the float32 size and truncates to int32.
        new_size = tf.cast(scale * tf.cast(size[self._axis], tf.float32), tf.int32)
        hw = [size[-3], size[-2]]
        hw[self._axis + 3] = new_size
        # tf.image.resize returns float32 whatever the input: back to the compute dtype.
        return tf.cast(tf.image.resize(images=inputs, size=tf.stack(hw), method=self.interpolation),
                       self.compute_dtype)

    def compute_output_shape(self, input_shape):
        shape = list(input_shape)
        shape[self._axis] = None
        return tuple(shape)

    def get_config(self):
        return {**super().get_config(), "factor": self.factor, "interpolation": self.interpolation, "seed": self.seed}


class RandomHeight(_RandomResize):
    """Resize images (..., height, width, channels) to a random height ``height * U(1 + lower, 1 + upper)``
    in training.

    Parameters
    ----------
    factor : float or (float, float)
        ``(lower, upper)``, or ``f`` for ``(-f, f)``; bounds >= -1.
    interpolation : str
        A ``tf.image.resize`` method ("bilinear", "nearest", "bicubic", "area", ...).
    seed : int, optional
    """

    _axis = -3
    _less_word = "lesser"


class RandomWidth(_RandomResize):
    """Resize images (..., height, width, channels) to a random width ``width * U(1 + lower, 1 + upper)``
    in training.  Parameters as :class:`RandomHeight`."""

    _axis = -2
    _less_word = "less"
