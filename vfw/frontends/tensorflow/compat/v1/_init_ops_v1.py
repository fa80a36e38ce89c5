"""TF 1's random initializers (``tf.compat.v1.random_normal_initializer``, ``glorot_uniform_initializer``...).

Unlike TF 2's classes they take a ``dtype`` (floating) at construction and draw with the stateful random ops
and their op ``seed`` (``tf.random.normal(shape, mean, stddev, dtype, seed=seed)``), so a seeded initializer
gives TF's numbers for the same global seed and a new draw at each call, as TF 1's do.
"""

import math

from vfw.frontends.tensorflow import _dtypes
from vfw.frontends.tensorflow._random_ops import normal, truncated_normal, uniform

# The standard deviation of a unit normal truncated at two standard deviations: dividing by it makes the
# truncated draw's variance the requested one (TF's constant).
_TRUNCATED_STDDEV = .87962566103423978


def _floating(dtype):
    dtype = _dtypes.as_dtype(dtype)
    if not dtype.is_floating:
        raise ValueError(f"Argument `dtype` is expected to be floating point. Received: {dtype!r}.")
    return dtype


class _InitializerV1:
    """Base: ``initializer(shape, dtype=None, partition_info=None)`` draws a tensor of ``shape``."""

    def __init__(self, seed, dtype):
        self.seed = seed
        self.dtype = _floating(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        if partition_info is not None:
            raise NotImplementedError(f"{type(self).__name__}: partitioned variables (partition_info) are TF 1 "
                                      "graph-mode features vfw does not provide")
        return self._draw(shape, self.dtype if dtype is None else _dtypes.as_dtype(dtype))

    def get_config(self):
        """dict: the constructor arguments (``dtype`` by name)."""
        return {**self._config(), "seed": self.seed, "dtype": self.dtype.name}

    @classmethod
    def from_config(cls, config):
        """An initializer made from ``get_config()``'s dict."""
        return cls(**config)


class RandomNormal(_InitializerV1):
    """``tf.compat.v1.random_normal_initializer``: normal draws of mean ``mean`` and deviation ``stddev``."""

    def __init__(self, mean=0.0, stddev=1.0, seed=None, dtype=_dtypes.float32):
        super().__init__(seed, dtype)
        self.mean, self.stddev = mean, stddev

    def _draw(self, shape, dtype):
        return normal(shape, self.mean, self.stddev, dtype, seed=self.seed)

    def _config(self):
        return {"mean": self.mean, "stddev": self.stddev}


class TruncatedNormal(RandomNormal):
    """``tf.compat.v1.truncated_normal_initializer``: normal draws redrawn beyond two deviations."""

    def _draw(self, shape, dtype):
        return truncated_normal(shape, self.mean, self.stddev, dtype, seed=self.seed)


class RandomUniform(_InitializerV1):
    """``tf.compat.v1.random_uniform_initializer``: uniform draws in ``[minval, maxval)`` (maxval None: 1)."""

    def __init__(self, minval=.0, maxval=None, seed=None, dtype=_dtypes.float32):
        super().__init__(seed, dtype)
        self.minval, self.maxval = minval, maxval

    def _draw(self, shape, dtype):
        return uniform(shape, self.minval, self.maxval, dtype, seed=self.seed)

    def _config(self):
        return {"minval": self.minval, "maxval": self.maxval}


def _fans(shape):
    """(fan_in, fan_out) of a weight shape: the last two dims times the receptive field of the others."""
    shape = [int(d) for d in shape]
    if not shape:
        return 1, 1
    if len(shape) == 1:
        return shape[0], shape[0]
    receptive_field = math.prod(shape[:-2])
    return shape[-2] * receptive_field, shape[-1] * receptive_field


class VarianceScaling(_InitializerV1):
    """``tf.compat.v1.variance_scaling_initializer``: draws of variance ``scale / n``.

    ``n`` is the fan in, the fan out or their mean (``mode``); ``distribution`` "truncated_normal" (or "normal")
    draws a normal truncated at two deviations, "untruncated_normal" a normal, "uniform" a uniform in
    ``[-sqrt(3 * scale / n), sqrt(3 * scale / n))``.
    """

    _DISTRIBUTIONS = ("normal", "uniform", "truncated_normal", "untruncated_normal")

    def __init__(self, scale=1.0, mode="fan_in", distribution="truncated_normal", seed=None, dtype=_dtypes.float32):
        if scale <= 0.:
            raise ValueError(f"Argument `scale` must be a positive float. Received: {scale}")
        if mode not in ("fan_in", "fan_out", "fan_avg"):
            raise ValueError(f"Argument `mode` should be one of ('fan_in', 'fan_out', 'fan_avg'). Received: {mode}")
        distribution = distribution.lower()
        if distribution not in self._DISTRIBUTIONS:
            raise ValueError("Argument `distribution` should be one of ('normal', uniform', 'truncated_normal', "
                             f"'untruncated_normal'). Received: {distribution}")
        super().__init__(seed, dtype)
        self.scale, self.mode, self.distribution = scale, mode, distribution

    def _draw(self, shape, dtype):
        fan_in, fan_out = _fans(shape)
        n = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2.}[self.mode]
        scale = self.scale / max(1., n)
        if self.distribution in ("normal", "truncated_normal"):
            return truncated_normal(shape, 0.0, math.sqrt(scale) / _TRUNCATED_STDDEV, dtype, seed=self.seed)
        if self.distribution == "untruncated_normal":
            return normal(shape, 0.0, math.sqrt(scale), dtype, seed=self.seed)
        limit = math.sqrt(3.0 * scale)
        return uniform(shape, -limit, limit, dtype, seed=self.seed)

    def _config(self):
        return {"scale": self.scale, "mode": self.mode, "distribution": self.distribution}


class GlorotUniform(VarianceScaling):
    """``tf.compat.v1.glorot_uniform_initializer``: uniform draws of variance ``2 / (fan_in + fan_out)``."""

    def __init__(self, seed=None, dtype=_dtypes.float32):
        super().__init__(1.0, "fan_avg", "uniform", seed, dtype)

    def _config(self):
        return {}


class GlorotNormal(VarianceScaling):
    """``tf.compat.v1.glorot_normal_initializer``: truncated normal draws of variance ``2 / (fan_in + fan_out)``."""

    def __init__(self, seed=None, dtype=_dtypes.float32):
        super().__init__(1.0, "fan_avg", "truncated_normal", seed, dtype)

    def _config(self):
        return {}
