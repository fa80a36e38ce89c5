"""keras.random: Keras 3's random draws on TensorFlow, the same numbers as Keras.

Every draw is a TF *stateless* op (``tf.random.stateless_*``, which vfw reproduces bit for bit)
at a seed pair that ``draw_seed`` makes from the ``seed`` argument:

- an int ``s``: ``[s, 0]`` every time (the same values on every call);
- a ``SeedGenerator``: its state ``[seed, counter]``, then the counter moves on by one;
- None: the global SeedGenerator (made on first use with a seed from Python's ``random``, and
  forgotten by ``keras.utils.set_random_seed`` / ``clear_session``), whose state moves on by
  ``state = (state + 1) * 5387 % 933199``.

The int64 pair is folded into int32 (``floormod(seed, 2**31 - 2)``) before the op, as Keras does.
"""

import random as python_random

import numpy as np

import vfw.tensorflow as tf
from vfw.frontends.tensorflow.keras.src import backend
from vfw.frontends.tensorflow.keras.src.backend import global_state
from vfw.frontends.tensorflow.keras.src.engine import naming
from vfw.frontends.tensorflow.keras.src.engine.variables import Variable

API = {"random": ["SeedGenerator", "beta", "binomial", "categorical", "dropout", "gamma", "normal", "randint",
                  "shuffle", "truncated_normal", "uniform"]}

GLOBAL_SEED_GENERATOR = "global_seed_generator"
_SEED_DTYPE = "int64"  # TF backend's random_seed_dtype()
_INT32_MAX = 2 ** 31 - 1


def make_default_seed():
    """A fresh seed from Python's ``random`` (reproducible after ``keras.utils.set_random_seed``)."""
    return python_random.randint(1, int(1e9))


class SeedGenerator:
    """A random state ``[seed, counter]`` that random ops given it as ``seed`` move on at each draw.

    Parameters
    ----------
    seed : int, optional
        Initial seed (None: one drawn from Python's ``random``).
    name : str, optional
        Defaults to a unique "seed_generator" name.

    Attributes
    ----------
    state : Variable
        int64 ``[seed, counter]``, not trainable.
    """

    _keras_tracked_as = "seed_generators"  # layers list its state among their variables

    def __init__(self, seed=None, name=None, **kwargs):
        kwargs.pop("backend", None)
        if kwargs:
            raise ValueError(f"Unrecognized keyword arguments: {kwargs}")
        self.name = naming.auto_name(type(self).__name__) if name is None else name
        self._initial_seed = seed
        if seed is None:
            seed = make_default_seed()
        if not isinstance(seed, int):
            raise ValueError(f"Argument `seed` must be an integer. Received: seed={seed}")
        with naming.name_scope(self.name, caller=self):
            self.state = Variable(np.array([seed, 0]), dtype=_SEED_DTYPE, trainable=False, aggregation="none",
                                  name="seed_generator_state")

    def next(self, ordered=True):
        """The current state (a copy), moving the state on: counter + 1, or, unordered, Keras' scramble."""
        current = tf.identity(self.state)
        if ordered:
            self.state.assign(current + np.array([0, 1], dtype=_SEED_DTYPE))
        else:
            self.state.assign((current + 1) * 5387 % 933199)
        return current

    def get_config(self):
        """``{"seed": <seed given>, "name": name}``."""
        return {"seed": self._initial_seed, "name": self.name}

    @classmethod
    def from_config(cls, config):
        """A SeedGenerator from ``get_config``'s dict."""
        return cls(**config)


def global_seed_generator():
    """The session's global SeedGenerator (made on first use), behind ops called with ``seed=None``."""
    generator = global_state.get_global_attribute(GLOBAL_SEED_GENERATOR)
    if generator is None:
        generator = SeedGenerator()
        global_state.set_global_attribute(GLOBAL_SEED_GENERATOR, generator)
    return generator


def draw_seed(seed):
    """The int64 seed pair of a draw for ``seed`` (int, SeedGenerator or None; see the module doc)."""
    if isinstance(seed, SeedGenerator):
        return seed.next()
    if isinstance(seed, int):
        return tf.constant([int(seed), 0], dtype=_SEED_DTYPE)
    if seed is None:
        return global_seed_generator().next(ordered=False)
    raise ValueError(f"Argument `seed` must be either an integer or an instance of `SeedGenerator`. Received: "
                     f"seed={seed} (of type {type(seed)})")


def _op_seed(seed):
    """The int32 seed pair a stateless TF op draws at for ``seed``."""
    return tf.cast(tf.math.floormod(draw_seed(seed), _INT32_MAX - 1), "int32")


def normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None):
    """Normal values of ``shape`` (``tf.random.stateless_normal``).

    Parameters
    ----------
    shape : tuple of int
    mean, stddev : float
    dtype : str, optional
        A float type; ``floatx()`` by default.
    seed : int, SeedGenerator or None

    Returns
    -------
    Tensor
    """
    dtype = dtype or backend.floatx()
    return tf.random.stateless_normal(shape, mean=mean, stddev=stddev, dtype=dtype, seed=_op_seed(seed))


def uniform(shape, minval=0.0, maxval=1.0, dtype=None, seed=None):
    """Uniform values of ``shape`` in ``[minval, maxval)`` (a float ``dtype``; ``floatx()`` by default)."""
    if dtype and not backend.is_float_dtype(dtype):
        raise ValueError(f"`keras.random.uniform` requires a floating point `dtype`. Received: dtype={dtype} ")
    dtype = dtype or backend.floatx()
    return tf.random.stateless_uniform(shape, minval=tf.cast(minval, dtype), maxval=tf.cast(maxval, dtype),
                                       dtype=dtype, seed=_op_seed(seed))


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None):
    """Normal values of ``shape`` redrawn until within two standard deviations of ``mean``."""
    dtype = dtype or backend.floatx()
    return tf.random.stateless_truncated_normal(shape, mean=mean, stddev=stddev, dtype=dtype, seed=_op_seed(seed))


def randint(shape, minval, maxval, dtype="int32", seed=None):
    """Integers of ``shape`` in ``[minval, maxval)`` (drawn as int64 unless ``dtype`` is int32/int64)."""
    if dtype and not backend.is_int_dtype(dtype):
        raise ValueError(f"`keras.random.randint` requires an integer `dtype`. Received: dtype={dtype} ")
    drawn_dtype = dtype if backend.standardize_dtype(dtype) in ("int32", "int64") else "int64"
    values = tf.random.stateless_uniform(shape, minval=minval, maxval=maxval, dtype=drawn_dtype, seed=_op_seed(seed))
    return tf.cast(values, dtype)


def categorical(logits, num_samples, dtype="int32", seed=None):
    """``num_samples`` class indices per row of the 2-D ``logits`` ``[batch, classes]``."""
    if len(tf.convert_to_tensor(logits).shape) != 2:
        raise ValueError(f"`logits` should be a 2-D tensor with shape [batch_size, num_classes]. Received: "
                         f"logits={logits}")
    return tf.cast(tf.random.stateless_categorical(logits, num_samples, seed=_op_seed(seed)), dtype)


def dropout(inputs, rate, noise_shape=None, seed=None):
    """``inputs`` with elements zeroed with probability ``rate``, the others scaled by ``1 / (1 - rate)``.

    ``noise_shape`` entries that are None take ``inputs``' size.  Rate 0 returns ``inputs`` and
    rate 1 zeros, without drawing.
    """
    if rate == 1.0:
        return tf.zeros_like(inputs)
    if rate == 0.0:
        return inputs
    seed = _op_seed(seed)
    if noise_shape is not None:
        dims = tf.shape(inputs)
        noise_shape = [dims[i] if d is None else d for i, d in enumerate(noise_shape)]
    else:
        noise_shape = tf.shape(inputs)
    return tf.nn.experimental.stateless_dropout(inputs, rate=rate, noise_shape=noise_shape, seed=seed)


def shuffle(x, axis=0, seed=None):
    """``x`` with its slices along ``axis`` permuted (by the argsort of uniform keys)."""
    seed = _op_seed(seed)
    keys = tf.random.stateless_uniform([tf.shape(x)[axis]], seed=seed)
    return tf.gather(x, tf.argsort(keys), axis=axis)


def _drawn_dtype(dtype):
    """TF's gamma/binomial kernels have no bfloat16: those draw in float32 and cast."""
    dtype = dtype or backend.floatx()
    return dtype, ("float32" if backend.standardize_dtype(dtype) == "bfloat16" else dtype)


def gamma(shape, alpha, dtype=None, seed=None):
    """Gamma values of concentration ``alpha`` (rate 1)."""
    dtype, drawn = _drawn_dtype(dtype)
    return tf.cast(tf.random.stateless_gamma(shape, alpha=alpha, dtype=drawn, seed=_op_seed(seed)), dtype)


def binomial(shape, counts, probabilities, dtype=None, seed=None):
    """Binomial counts of ``counts`` trials of success probability ``probabilities``."""
    dtype, drawn = _drawn_dtype(dtype)
    values = tf.random.stateless_binomial(shape, seed=_op_seed(seed), counts=counts, probs=probabilities,
                                          output_dtype=drawn)
    return tf.cast(values, dtype)


def beta(shape, alpha, beta, dtype=None, seed=None):
    """Beta(alpha, beta) values, as ``X / (X + Y)`` of two gamma draws (seeds ``s`` and ``s + 12``)."""
    dtype, drawn = _drawn_dtype(dtype)
    seed_a = _op_seed(seed)
    seed_b = seed_a + 12
    alpha = tf.broadcast_to(tf.convert_to_tensor(alpha, dtype=drawn), shape)
    beta = tf.broadcast_to(tf.convert_to_tensor(beta, dtype=drawn), shape)
    gamma_a = tf.cast(tf.random.stateless_gamma(shape, seed=seed_a, alpha=alpha, dtype=drawn), dtype)
    gamma_b = tf.cast(tf.random.stateless_gamma(shape, seed=seed_b, alpha=beta, dtype=drawn), dtype)
    return gamma_a / (gamma_a + gamma_b)
