"""tf.experimental.numpy.random: NumPy-style samplers over tf.random's global-seed stream.

``seed`` is ``tf.random.set_seed``; draws are tf.random's stateful uniform/normal/poisson ops, so a
seeded program draws the same numbers as in TF. Floats are float64 (float32 with prefer_float32).
"""

import builtins

import numpy as np

from vfw.frontends import tensorflow as tf
from vfw.frontends.tensorflow import _dtypes
from vfw.frontends.tensorflow.experimental.numpy._promotion import DEFAULT_FLOAT, np_result_type, to_np_dtype


def _shape(size):
    if size is None:
        return []
    if isinstance(size, (builtins.int, np.integer)):
        return [builtins.int(size)]
    return [builtins.int(d) for d in size]


def _float_dtype():
    return _dtypes.as_dtype(DEFAULT_FLOAT)


def seed(s):
    """Set the global seed of the draws (``tf.random.set_seed``)."""
    try:
        s = builtins.int(s)
    except TypeError:
        raise ValueError(f"np.seed currently only support integer arguments, got {s!r}") from None
    tf.random.set_seed(s)


def uniform(low=0.0, high=1.0, size=None):
    """Samples from ``[low, high)`` (dtype promoted from ``low`` and ``high``, float at least)."""
    dtype = np_result_type(low, high, DEFAULT_FLOAT)
    return tf.random.uniform(_shape(size), minval=low, maxval=high, dtype=_dtypes.as_dtype(dtype))


def random(size=None):
    """Samples from ``[0, 1)``."""
    return uniform(0.0, 1.0, size)


def rand(*size):
    """Samples from ``[0, 1)`` of shape ``size``."""
    return uniform(0.0, 1.0, size)


def standard_normal(size=None):
    """Samples from the standard normal distribution."""
    return tf.random.normal(_shape(size), dtype=_float_dtype())


def randn(*args):
    """Samples from the standard normal distribution, of shape ``args``."""
    return standard_normal(args)


def randint(low, high=None, size=None, dtype=np.int64):
    """Integers from ``[low, high)`` (``[0, low)`` when ``high`` is None)."""
    np_dtype = to_np_dtype(dtype)
    if np_dtype.kind not in "iu":
        raise ValueError(f"Only integer types are supported, got {np_dtype}")
    if high is None:
        low, high = 0, low
    return tf.random.uniform(_shape(size), minval=low, maxval=high, dtype=_dtypes.as_dtype(np_dtype))


def poisson(lam=1.0, size=None):
    """Samples from the Poisson distribution of rate ``lam`` (int64)."""
    return tf.random.poisson(_shape(size), lam, dtype=tf.int64)
