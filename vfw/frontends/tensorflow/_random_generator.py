"""tf.random.Generator: a random stream whose state is a variable, drawing TF's numbers.

A Philox generator's state is an int64 variable ``[c0, c1, key]``: the 128-bit counter
``c0 + 2**64 c1`` and the 64-bit key.  A draw of ``n`` values reads the Philox stream at the
counter and moves the counter ``256 n`` blocks on (binomial draws move it as TF's binomial kernel
reserves).  ``from_seed`` puts an integer seed into the state in 64-bit chunks, low chunk first; a
sequence seed is left-padded with zeros.  Draws are computed from the state read as a tensor and
the new state is assigned back, so a generator used inside a traced graph moves on at every run.
ThreeFry generators can be made and reset, but drawing from them fails, as on TF's CPU.
"""

import secrets

import numpy as np

from vfw.frontends.tensorflow import _dtypes, errors
from vfw.frontends.tensorflow import _philox as philox
from vfw.frontends.tensorflow._dispatch import convert_to_tensor, op_error, wrap
from vfw.frontends.tensorflow._random_common import (
    Algorithm,
    DrawShape,
    algorithm_of,
    broadcast_shape,
    float_dtype,
    scaled,
    shape_dims,
    shape_tensor,
    size_of,
    stretched,
)
from vfw.frontends.tensorflow._random_ops import integer_range
from vfw.frontends.tensorflow._random_stateless import binomial_sampler
from vfw.frontends.tensorflow._variables import Variable

_MASK64 = (1 << 64) - 1
_STATE_SIZES = {Algorithm.PHILOX.value: 3, Algorithm.THREEFRY.value: 2}
_UNIFORM_INT_DTYPES = (_dtypes.int32, _dtypes.int64, _dtypes.uint32, _dtypes.uint64)
_NO_SHAPE = DrawShape([], "RngReadAndSkip").checked()  # draws whose size does not come from a shape argument


def _state_size(alg):
    """The state length of algorithm ``alg`` (auto-selection is Philox)."""
    return _STATE_SIZES[Algorithm.PHILOX.value if alg == Algorithm.AUTO_SELECT.value else alg]


def _as_int64(value):
    """An integer as int64 (values from 2**63 up wrap around, as TF stores unsigned seeds)."""
    value = int(value) & _MASK64
    return value - (1 << 64) if value >= 1 << 63 else value


def create_rng_state(seed, alg):
    """The state (int64 tensor) a generator of algorithm ``alg`` seeded with ``seed`` starts from.

    Parameters
    ----------
    seed : int or array-like
        An int is cut into 64-bit chunks, lowest first; other values are flattened, cut to the
        state size and left-padded with zeros.
    alg : str, int or Algorithm

    Returns
    -------
    Tensor
    """
    size = _state_size(algorithm_of(alg))
    if isinstance(seed, (int, np.integer)):
        chunks = []
        seed = int(seed)
        for _ in range(size):
            chunks.append(_as_int64(seed))
            seed >>= 64
        return wrap(np.array(chunks, np.int64))
    values = [_as_int64(v) for v in np.asarray(seed).reshape(-1)[:size]]  # flattened; floats truncated
    return wrap(np.array([0] * (size - len(values)) + values, np.int64))


class Generator:
    """A random number generator with its state in a ``tf.Variable`` (TF's ``tf.random.Generator``).

    Parameters
    ----------
    copy_from : Generator, optional
        A generator whose state and algorithm the new one copies.
    state : int64 tensor or sequence, optional
        The state (``[counter low, counter high, key]`` for Philox); with ``alg``.
    alg : str, int or Algorithm, optional
    """

    def __init__(self, copy_from=None, state=None, alg=None):
        if copy_from is not None:
            assert state is None and alg is None, "When `copy_from` is given, `state` and `alg` must be None"
            state, alg = copy_from.state.numpy(), copy_from.algorithm
        else:
            assert state is not None and alg is not None, "`state` and `alg` must be given without `copy_from`"
        self._alg = algorithm_of(alg)
        state = convert_to_tensor(state, _dtypes.int64) if not hasattr(state, "array") else state
        size = _state_size(self._alg)
        if state.array.shape != (size,):
            raise ValueError(f"Shapes {tuple(state.array.shape)!r} and [{size}] are incompatible")
        self._state_var = Variable(state.array.astype(np.int64), trainable=False, name="StateVar")

    # -- construction ----------------------------------------------------------------------------------------------
    @classmethod
    def from_state(cls, state, alg):
        """A generator from a state and an algorithm."""
        return cls(state=state, alg=alg)

    @classmethod
    def from_seed(cls, seed, alg=None):
        """A generator whose state comes from ``seed`` (see ``create_rng_state``); Philox by default."""
        alg = Algorithm.PHILOX.value if alg is None else algorithm_of(alg)
        return cls(state=create_rng_state(seed, alg), alg=alg)

    @classmethod
    def from_non_deterministic_state(cls, alg=None):
        """A generator seeded from the operating system's entropy."""
        alg = Algorithm.PHILOX.value if alg is None else algorithm_of(alg)
        return cls(state=[_as_int64(secrets.randbits(64)) for _ in range(_state_size(alg))], alg=alg)

    @classmethod
    def from_key_counter(cls, key, counter, alg):
        """A generator from a key (an int) and a counter (a pair of ints for Philox)."""
        return cls(state=_key_counter_state(key, counter, algorithm_of(alg)), alg=alg)

    def reset(self, state):
        """Set the state."""
        self._state_var.assign(convert_to_tensor(state, _dtypes.int64), read_value=False)

    def reset_from_seed(self, seed):
        """Set the state from a seed, as ``from_seed``."""
        self.reset(create_rng_state(seed, self._alg))

    def reset_from_key_counter(self, key, counter):
        """Set the state from a key and a counter, as ``from_key_counter``."""
        self.reset(_key_counter_state(key, counter, self._alg))

    # -- state ---------------------------------------------------------------------------------------------------
    @property
    def state(self):
        """Variable: the int64 state."""
        return self._state_var

    @property
    def algorithm(self):
        """int: the algorithm's enum value (1 Philox, 2 ThreeFry)."""
        return self._alg

    @property
    def key(self):
        """Tensor: the key part of the state (its last element)."""
        return wrap(self._state_var.numpy()[-1])

    def skip(self, delta):
        """Move the stream on as ``delta`` draws would; returns the state before."""
        delta = int(convert_to_tensor(delta, _dtypes.int64).array)
        return self._draw(delta * philox.RESERVED_PER_OUTPUT, lambda key, counter, state: state)

    def _draw(self, reserve, sample, *inputs):
        """``sample(key, counter, state, *arrays)`` at the current state, which moves ``reserve`` blocks on."""
        return self._draw_shaped(_NO_SHAPE, lambda dims: reserve, lambda dims, *args: sample(*args), *inputs)

    def _draw_shaped(self, shape, reserve, sample, *inputs):
        """``sample(dims, key, counter, state, *arrays)`` at the current state, which moves ``reserve(dims)`` blocks
        on, for the dims of DrawShape ``shape`` (those of each run of a traced graph)."""
        if self._alg == Algorithm.THREEFRY.value:
            raise op_error("Non-XLA devices don't support the ThreeFry algorithm.", "RngReadAndSkip",
                           errors.UnimplementedError)

        def draw(dims, state, *arrays):
            counter = int(state[0]) & _MASK64 | (int(state[1]) & _MASK64) << 64
            key = int(state[2]) & _MASK64
            moved = philox.advance(counter, reserve(dims))
            new_state = np.array([_as_int64(moved), _as_int64(moved >> 64), state[2]], np.int64)
            return sample(dims, key, counter, state, *arrays), new_state

        values, new_state = shape.host(draw, self._state_var.read_value(), *inputs)
        self._state_var.assign(new_state, read_value=False)
        return values

    def _elementwise(self, shape, sample, tf_op):
        """A ``shape`` tensor of ``sample(key, counter, size)``."""
        return self._draw_elements(DrawShape(shape, tf_op).checked(), sample)

    def _draw_elements(self, shape, sample):
        """A tensor of the dims of DrawShape ``shape`` of ``sample(key, counter, size)``."""
        return self._draw_shaped(shape, lambda dims: size_of(dims) * philox.RESERVED_PER_OUTPUT,
                                 lambda dims, key, counter, state: sample(key, counter, size_of(dims)).reshape(dims))

    # -- distributions ---------------------------------------------------------------------------------------------
    def normal(self, shape, mean=0.0, stddev=1.0, dtype=_dtypes.float32, name=None):
        """Normal values with ``mean`` and ``stddev`` (see ``tf.random.normal``)."""
        return self._scaled_normal("StatelessRandomNormalV2", philox.normal, shape, mean, stddev, dtype)

    def truncated_normal(self, shape, mean=0.0, stddev=1.0, dtype=_dtypes.float32, name=None):
        """Normal values within two standard deviations of ``mean`` (see ``tf.random.truncated_normal``)."""
        return self._scaled_normal("StatelessTruncatedNormalV2", philox.truncated_normal, shape, mean, stddev, dtype)

    def _scaled_normal(self, tf_op, sample, shape, mean, stddev, dtype):
        dtype = _dtypes.as_dtype(dtype)
        mean = convert_to_tensor(mean, dtype)
        stddev = convert_to_tensor(stddev, dtype)
        float_dtype(dtype, tf_op)
        z = self._elementwise(shape, lambda key, counter, size: sample(key, counter, size, dtype.np), tf_op)
        return scaled(z, stddev, mean)

    def uniform(self, shape, minval=0, maxval=None, dtype=_dtypes.float32, name=None):
        """Uniform values in ``[minval, maxval)``; integers need ``maxval`` (or both bounds None: full range)."""
        dtype = _dtypes.as_dtype(dtype)
        if dtype.is_integer:
            if (minval is None) != (maxval is None):
                raise ValueError(f"For integer dtype {dtype!r}, minval and maxval must be both `None` or both "
                                 f"non-`None`; got minval={minval} and maxval={maxval}")
        elif maxval is None:
            maxval = 1
        if dtype.is_integer and minval is None:
            return self.uniform_full_int(shape, dtype)
        minval = convert_to_tensor(minval, dtype)
        maxval = convert_to_tensor(maxval, dtype)
        if not dtype.is_integer:
            float_dtype(dtype, "StatelessRandomUniformV2")
            rnd = self._elementwise(shape, lambda key, counter, size: philox.uniform(key, counter, size, dtype.np),
                                    "StatelessRandomUniformV2")
            return stretched(rnd, minval, maxval)
        tf_op = "StatelessRandomUniformIntV2"
        shape = DrawShape(shape, tf_op).checked()
        _check_int_dtype(dtype, tf_op)
        if dtype.is_unsigned:
            raise op_error(f"Could not find device for node: {{{{node {tf_op}}}}} = {tf_op}"
                           f"[dtype=DT_{dtype.name.upper()}]", tf_op, errors.NotFoundError)
        low, high = integer_range(minval, maxval, tf_op)
        return self._draw_elements(shape, lambda key, counter, size: philox.uniform_ints(
            key, counter, size, dtype.np, low, high))

    def uniform_full_int(self, shape, dtype=_dtypes.uint64, name=None):
        """Integers over the whole range of ``dtype`` (int32, int64, uint32 or uint64)."""
        dtype = _dtypes.as_dtype(dtype)
        _check_int_dtype(dtype, "StatelessRandomUniformFullIntV2")
        return self._elementwise(shape, lambda key, counter, size: philox.uniform_full_ints(key, counter, size,
                                                                                            dtype.np),
                                 "StatelessRandomUniformFullIntV2")

    def binomial(self, shape, counts, probs, dtype=_dtypes.int32, name=None):
        """Binomial counts of ``counts`` trials with success probability ``probs`` (float tensors of one dtype;
        ``shape`` ends with their broadcast shape)."""
        counts = convert_to_tensor(counts)
        probs = convert_to_tensor(probs)
        shape = shape_tensor(shape)
        tf_op = "StatefulRandomBinomial"
        sample = binomial_sampler(shape, counts, probs, dtype, tf_op, probs_input=4)
        if counts.array.dtype.kind != "f":
            raise op_error(f"No OpKernel was registered to support Op '{tf_op}' with these attrs: "
                           f"[T=DT_{counts.dtype.name.upper()}]", tf_op)
        batches = size_of(broadcast_shape(counts, probs, tf_op))
        per_batch = size_of(shape_dims(shape, tf_op)) // batches if batches else 0
        # TF's kernel reserves 200 blocks per (up to) four samples of each parameter, in units of 256.
        reserve = batches * 2 * 100 * (per_batch + 3) // 4 * philox.RESERVED_PER_OUTPUT
        return self._draw(reserve, lambda key, counter, state, c, p: sample(key, counter, c, p), counts, probs)

    # -- seeds and new generators ----------------------------------------------------------------------------------
    def make_seeds(self, count=1):
        """``count`` seeds for stateless ops: a ``[2, count]`` int64 tensor (drawn keys over zeros)."""
        keys = self.uniform_full_int([count], _dtypes.int64)
        return wrap(np.stack([keys.array, np.zeros_like(keys.array)]))

    def split(self, count=1):
        """``count`` new generators with keys drawn from this one (and zero counters)."""
        keys = self.uniform_full_int([count], _dtypes.int64).array
        size = _state_size(self._alg)
        return [Generator(state=[0] * (size - 1) + [int(k)], alg=self._alg) for k in keys]


def _check_int_dtype(dtype, tf_op):
    if dtype not in _UNIFORM_INT_DTYPES:
        raise op_error(f"Value for attr 'dtype' of {dtype.name} is not in the list of allowed values: int32, int64, "
                       "uint32, uint64", tf_op)


def _key_counter_state(key, counter, alg):
    """The state of a key and a counter: the counter's elements, then the key."""
    counter = np.asarray(counter)
    size = _state_size(alg) - 1
    if counter.shape != (size,):
        raise ValueError(f"Shapes {counter.shape} and [{size}] are incompatible")
    key = np.asarray(key)
    if key.shape != ():
        raise ValueError(f"Shapes {key.shape} and [] are incompatible")
    return [_as_int64(c) for c in counter] + [_as_int64(key)]


class _GlobalGenerator:
    """The generator ``tf.random.get_global_generator`` returns (made on first use)."""

    generator = None


def get_global_generator():
    """The global generator (seeded non-deterministically on first use)."""
    if _GlobalGenerator.generator is None:
        _GlobalGenerator.generator = Generator.from_non_deterministic_state()
    return _GlobalGenerator.generator


def set_global_generator(generator):
    """Replace the global generator."""
    _GlobalGenerator.generator = generator


NAMESPACES = {"random": ["Algorithm", "Generator", "create_rng_state", "get_global_generator", "set_global_generator"],
              "random.experimental": ["Algorithm", "Generator", "create_rng_state", "get_global_generator",
                                      "set_global_generator"]}
TENSOR_METHODS = {}
