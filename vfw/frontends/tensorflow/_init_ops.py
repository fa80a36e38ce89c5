"""TF 2's initializer classes at the top level: tf.zeros_initializer, tf.ones_initializer,
tf.constant_initializer, tf.random_normal_initializer, tf.random_uniform_initializer.

Called with a shape (and dtype) they return a tensor. A seeded random initializer draws TF's
stateless numbers for seed ``[seed, 0]`` (the same tensor at every call, as in TF); an unseeded
one draws from the global stateful stream (``tf.random.set_seed``).
"""

from vfw.frontends.tensorflow import _dtypes
from vfw.frontends.tensorflow._random_ops import normal, uniform
from vfw.frontends.tensorflow._random_stateless import stateless_normal, stateless_uniform


def _tf():
    """The vfw.tensorflow package (its creation functions; imported when first called, after the package)."""
    import vfw.frontends.tensorflow as tf
    return tf


class Initializer:
    """Base class: ``initializer(shape, dtype=tf.float32)`` returns a tensor; configs round-trip."""

    def __call__(self, shape, dtype=_dtypes.float32, **kwargs):
        raise NotImplementedError("Initializer subclasses implement __call__")

    def get_config(self):
        """dict: the constructor arguments."""
        return {}

    @classmethod
    def from_config(cls, config):
        """An initializer made from ``get_config()``'s dict."""
        config = dict(config)
        config.pop("dtype", None)
        return cls(**config)


def _check_partition(kwargs):
    unknown = set(kwargs) - {"partition_shape", "partition_offset"}
    if unknown:
        raise TypeError(f"Keyword argument should be one of ['partition_shape', 'partition_offset']. Received: "
                        f"{sorted(unknown)[0]}")


def _floating(dtype):
    dtype = _dtypes.as_dtype(dtype)
    if not dtype.is_floating:
        raise ValueError(f"Expected floating point type, got {dtype!r}.")
    return dtype


def _numeric_or_bool(dtype):
    dtype = _dtypes.as_dtype(dtype)
    if not (dtype.is_floating or dtype.is_integer or dtype.is_bool or dtype.is_complex):
        raise ValueError(f"Expected numeric or boolean dtype, got {dtype!r}.")
    return dtype


class Zeros(Initializer):
    """Zeros of the requested shape and dtype."""

    def __call__(self, shape, dtype=_dtypes.float32, **kwargs):
        _check_partition(kwargs)
        return _tf().zeros(shape, _numeric_or_bool(dtype))


class Ones(Initializer):
    """Ones of the requested shape and dtype."""

    def __call__(self, shape, dtype=_dtypes.float32, **kwargs):
        _check_partition(kwargs)
        return _tf().ones(shape, _numeric_or_bool(dtype))


class Constant(Initializer):
    """A constant ``value`` (a scalar broadcast, or one element per element of the shape).

    Parameters
    ----------
    value : Python number, list or numpy array
    support_partition : bool
        Accepted for compatibility.
    """

    def __init__(self, value=0, support_partition=False):
        self.value = value
        self.support_partition = support_partition

    def __call__(self, shape, dtype=None, **kwargs):
        _check_partition(kwargs)
        return _tf().constant(self.value, dtype=None if dtype is None else _dtypes.as_dtype(dtype), shape=shape)

    def get_config(self):
        return {"value": self.value}


class RandomNormal(Initializer):
    """Normal samples of mean ``mean`` and standard deviation ``stddev``.

    Parameters
    ----------
    mean, stddev : float
    seed : int, optional
        Seeded: TF's stateless draws for seed ``[seed, 0]`` (the same values at every call).
    """

    def __init__(self, mean=0.0, stddev=0.05, seed=None):
        self.mean = mean
        self.stddev = stddev
        self.seed = seed

    def __call__(self, shape, dtype=_dtypes.float32, **kwargs):
        _check_partition(kwargs)
        dtype = _floating(dtype)
        if self.seed is None:
            return normal(shape, self.mean, self.stddev, dtype)
        return stateless_normal(shape, [self.seed, 0], self.mean, self.stddev, dtype)

    def get_config(self):
        return {"mean": self.mean, "stddev": self.stddev, "seed": self.seed}


class RandomUniform(Initializer):
    """Uniform samples in ``[minval, maxval)`` (floats or integers).

    Parameters
    ----------
    minval, maxval : number
    seed : int, optional
        Seeded: TF's stateless draws for seed ``[seed, 0]``.
    """

    def __init__(self, minval=-0.05, maxval=0.05, seed=None):
        self.minval = minval
        self.maxval = maxval
        self.seed = seed

    def __call__(self, shape, dtype=_dtypes.float32, **kwargs):
        _check_partition(kwargs)
        dtype = _dtypes.as_dtype(dtype)
        if not (dtype.is_floating or dtype.is_integer):
            raise ValueError(f"Invalid dtype {dtype!r}")
        if self.seed is None:
            return uniform(shape, self.minval, self.maxval, dtype)
        return stateless_uniform(shape, [self.seed, 0], self.minval, self.maxval, dtype)

    def get_config(self):
        return {"minval": self.minval, "maxval": self.maxval, "seed": self.seed}


zeros_initializer = Zeros
ones_initializer = Ones
constant_initializer = Constant
random_normal_initializer = RandomNormal
random_uniform_initializer = RandomUniform

NAMESPACES = {"tf": ["zeros_initializer", "ones_initializer", "constant_initializer", "random_normal_initializer",
                     "random_uniform_initializer"]}
TENSOR_METHODS = {}
