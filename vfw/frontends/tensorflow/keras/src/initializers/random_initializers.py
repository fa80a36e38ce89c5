"""Random initializers: RandomNormal/Uniform, TruncatedNormal, VarianceScaling and its named cases
(Glorot, He, LeCun), Orthogonal.

An initializer made with ``seed=None`` takes a seed from Python's ``random`` when it is created
(so ``keras.utils.set_random_seed`` makes it reproducible) and, like one given an int, draws the
same values at every call.  Given a ``SeedGenerator`` it draws new values at every call.
"""

import math

import vfw.tensorflow as tf
from vfw.frontends.tensorflow.keras.src import random
from vfw.frontends.tensorflow.keras.src.initializers.base import Initializer
from vfw.frontends.tensorflow.keras.src.utils.serialization import deserialize_keras_object, serialize_keras_object

# Standard deviation of a standard normal truncated to [-2, 2]: VarianceScaling divides by it so
# its truncated draws have the variance asked for.
_TRUNCATED_STDDEV = 0.87962566103423978


class RandomInitializer(Initializer):
    """Base of the random initializers: keeps the ``seed`` (int, SeedGenerator, or one drawn now)."""

    def __init__(self, seed=None):
        self._init_seed = seed
        if seed is None:
            seed = random.make_default_seed()
        elif isinstance(seed, dict):
            seed = deserialize_keras_object(seed)
        elif not isinstance(seed, (int, random.SeedGenerator)):
            raise ValueError("`seed` argument should be an instance of `keras.random.SeedGenerator()` or an integer. "
                             f"Received: seed={seed}")
        self.seed = seed

    def get_config(self):
        return {"seed": serialize_keras_object(self._init_seed)}


class RandomNormal(RandomInitializer):
    """Normal values of ``mean`` and ``stddev``."""

    def __init__(self, mean=0.0, stddev=0.05, seed=None):
        self.mean = mean
        self.stddev = stddev
        super().__init__(seed=seed)

    def __call__(self, shape, dtype=None):
        return random.normal(shape, mean=self.mean, stddev=self.stddev, seed=self.seed, dtype=dtype)

    def get_config(self):
        return {**super().get_config(), "mean": self.mean, "stddev": self.stddev}


class TruncatedNormal(RandomInitializer):
    """Normal values of ``mean`` and ``stddev``, redrawn when beyond two standard deviations."""

    def __init__(self, mean=0.0, stddev=0.05, seed=None):
        self.mean = mean
        self.stddev = stddev
        super().__init__(seed=seed)

    def __call__(self, shape, dtype=None):
        return random.truncated_normal(shape, mean=self.mean, stddev=self.stddev, seed=self.seed, dtype=dtype)

    def get_config(self):
        return {**super().get_config(), "mean": self.mean, "stddev": self.stddev}


class RandomUniform(RandomInitializer):
    """Uniform values in ``[minval, maxval)``."""

    def __init__(self, minval=-0.05, maxval=0.05, seed=None):
        self.minval = minval
        self.maxval = maxval
        super().__init__(seed=seed)

    def __call__(self, shape, dtype=None):
        return random.uniform(shape, minval=self.minval, maxval=self.maxval, seed=self.seed, dtype=dtype)

    def get_config(self):
        return {**super().get_config(), "minval": self.minval, "maxval": self.maxval}


def compute_fans(shape, input_axes=None, output_axes=None):
    """``(fan_in, fan_out)`` of a kernel ``shape``.

    Kernels are ``(..., in, out)`` (spatial dims first multiply both fans); 1-D shapes have both
    fans equal to their size, scalars 1.  ``input_axes``/``output_axes`` (both given) name the axes
    whose sizes multiply into each fan instead.
    """
    shape = tuple(shape)
    if input_axes is not None and output_axes is not None:
        return int(math.prod(shape[a] for a in input_axes)), int(math.prod(shape[a] for a in output_axes))
    if not shape:
        return 1, 1
    if len(shape) == 1:
        return int(shape[0]), int(shape[0])
    receptive_field = math.prod(shape[:-2])
    return int(shape[-2] * receptive_field), int(shape[-1] * receptive_field)


class VarianceScaling(RandomInitializer):
    """Draws of variance ``scale / n``, where ``n`` is the fan in, fan out or their mean (``mode``).

    Parameters
    ----------
    scale : float
        Positive.
    mode : {"fan_in", "fan_out", "fan_avg"}
    distribution : {"truncated_normal", "untruncated_normal", "uniform"}
        ("normal" means "truncated_normal").  Truncated normals are drawn with standard deviation
        ``sqrt(scale / n) / 0.8796...`` so that the truncated values have the variance asked for;
        uniforms are within ``+-sqrt(3 scale / n)``.
    seed : int, SeedGenerator or None
    input_axes, output_axes : sequence of int, optional
        The kernel axes of the fans (see ``compute_fans``).
    """

    def __init__(self, scale=1.0, mode="fan_in", distribution="truncated_normal", seed=None, input_axes=None,
                 output_axes=None):
        if scale <= 0.0:
            raise ValueError(f"Argument `scale` must be positive float. Received: scale={scale}")
        modes = {"fan_in", "fan_out", "fan_avg"}
        if mode not in modes:
            raise ValueError(f"Invalid `mode` argument: {mode}. Please use one of {modes}")
        distribution = distribution.lower()
        if distribution == "normal":
            distribution = "truncated_normal"
        distributions = {"uniform", "truncated_normal", "untruncated_normal"}
        if distribution not in distributions:
            raise ValueError(f"Invalid `distribution` argument: {distribution}.Please use one of {distributions}")
        self.scale = scale
        self.mode = mode
        self.distribution = distribution
        self.input_axes = input_axes
        self.output_axes = output_axes
        super().__init__(seed=seed)

    def __call__(self, shape, dtype=None):
        fan_in, fan_out = compute_fans(shape, input_axes=self.input_axes, output_axes=self.output_axes)
        fan = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2.0}[self.mode]
        scale = self.scale / max(1.0, fan)
        if self.distribution == "truncated_normal":
            stddev = math.sqrt(scale) / _TRUNCATED_STDDEV
            return random.truncated_normal(shape, mean=0.0, stddev=stddev, dtype=dtype, seed=self.seed)
        if self.distribution == "untruncated_normal":
            return random.normal(shape, mean=0.0, stddev=math.sqrt(scale), dtype=dtype, seed=self.seed)
        limit = math.sqrt(3.0 * scale)
        return random.uniform(shape, minval=-limit, maxval=limit, dtype=dtype, seed=self.seed)

    def get_config(self):
        return {**super().get_config(), "scale": self.scale, "mode": self.mode, "distribution": self.distribution,
                "input_axes": self.input_axes, "output_axes": self.output_axes}


class _NamedVarianceScaling(VarianceScaling):
    """A VarianceScaling of fixed ``(scale, mode, distribution)`` (``SETTINGS``): configs hold the seed and axes."""

    SETTINGS = (1.0, "fan_in", "truncated_normal")

    def __init__(self, seed=None, input_axes=None, output_axes=None):
        scale, mode, distribution = self.SETTINGS
        super().__init__(scale=scale, mode=mode, distribution=distribution, seed=seed, input_axes=input_axes,
                         output_axes=output_axes)

    def get_config(self):
        return {"seed": serialize_keras_object(self._init_seed), "input_axes": self.input_axes,
                "output_axes": self.output_axes}


class GlorotUniform(_NamedVarianceScaling):
    """Uniform within ``sqrt(6 / (fan_in + fan_out))``: VarianceScaling(1.0, "fan_avg", "uniform")."""

    SETTINGS = (1.0, "fan_avg", "uniform")


class GlorotNormal(_NamedVarianceScaling):
    """Truncated normal of variance ``2 / (fan_in + fan_out)``: VarianceScaling(1.0, "fan_avg", "truncated_normal")."""

    SETTINGS = (1.0, "fan_avg", "truncated_normal")


class LecunUniform(_NamedVarianceScaling):
    """Uniform within ``sqrt(3 / fan_in)``: VarianceScaling(1.0, "fan_in", "uniform")."""

    SETTINGS = (1.0, "fan_in", "uniform")


class LecunNormal(_NamedVarianceScaling):
    """Truncated normal of variance ``1 / fan_in``: VarianceScaling(1.0, "fan_in", "truncated_normal")."""

    SETTINGS = (1.0, "fan_in", "truncated_normal")


class HeUniform(_NamedVarianceScaling):
    """Uniform within ``sqrt(6 / fan_in)``: VarianceScaling(2.0, "fan_in", "uniform")."""

    SETTINGS = (2.0, "fan_in", "uniform")


class HeNormal(_NamedVarianceScaling):
    """Truncated normal of variance ``2 / fan_in``: VarianceScaling(2.0, "fan_in", "truncated_normal")."""

    SETTINGS = (2.0, "fan_in", "truncated_normal")


class Orthogonal(RandomInitializer):
    """``gain`` times a random orthogonal matrix (the Q of a normal matrix's QR, signs fixed by R's
    diagonal), reshaped: rows are all dims but the last."""

    def __init__(self, gain=1.0, seed=None):
        self.gain = gain
        super().__init__(seed=seed)

    def __call__(self, shape, dtype=None):
        if len(shape) < 2:
            raise ValueError(f"The tensor to initialize must be at least two-dimensional. Received: shape={shape} of "
                             f"rank {len(shape)}.")
        rows = math.prod(shape[:-1])
        cols = shape[-1]
        normal = random.normal((max(cols, rows), min(cols, rows)), seed=self.seed, dtype=dtype)
        q, r = tf.linalg.qr(normal)
        q = q * tf.sign(tf.linalg.diag_part(r))
        if rows < cols:
            q = tf.transpose(q)
        return self.gain * tf.reshape(q, shape)

    def get_config(self):
        return {**super().get_config(), "gain": self.gain}
