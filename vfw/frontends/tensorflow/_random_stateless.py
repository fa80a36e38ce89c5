"""tf.random's stateless ops: the same seed gives the same values, TF's numbers included.

A seed is a pair of integers (a shape-[2] int32/int64 tensor or sequence).  TF scrambles it into
a Philox key and counter (``_philox.key_counter_of_seed``) and draws from the stream there, with
the same distributions as the stateful ops (``_philox``, ``_random_samplers``).  Keras'
initializers and dropout draw this way (``stateless_uniform(shape, seed=[a, b])``).

``split`` and ``fold_in`` make new seeds from a seed (full-range integers drawn with it).
Only the Philox algorithm exists on TF's CPU: ``alg`` may be ``"philox"``, ``"auto_select"``
(their enum values 1 and 3, or ``tf.random.Algorithm`` members); ``"threefry"`` fails as in TF.
"""

import numpy as np

from vfw.frontends.tensorflow import _dtypes, errors
from vfw.frontends.tensorflow import _philox as philox
from vfw.frontends.tensorflow import _random_samplers as samplers
from vfw.frontends.tensorflow._dispatch import call, convert_to_tensor, host, kernel_type_name, op_error
from vfw.frontends.tensorflow._op_support import INDEX_DTYPES
from vfw.frontends.tensorflow._random_common import (
    DrawShape,
    accepted_dtype,
    algorithm_of,
    broadcast_shape,
    float_dtype,
    scaled,
    shape_dims,
    shape_tensor,
    size_of,
    stretched,
)
from vfw.frontends.tensorflow._random_ops import (
    categorical_arguments,
    check_categorical,
    check_poisson_dtypes,
    gamma_floor,
    gamma_result,
    integer_range,
    masked,
)

_UNIFORM_DTYPES = (_dtypes.float16, _dtypes.bfloat16, _dtypes.float32, _dtypes.float64, _dtypes.int32, _dtypes.int64,
                   _dtypes.uint32, _dtypes.uint64)
_THREEFRY = 2


def seed_tensor(seed, tf_op):
    """A stateless op's ``seed`` as an int32/int64 tensor of shape [2], with TF's errors."""
    if isinstance(seed, (np.ndarray, np.generic)) and seed.dtype.kind in "iu" and seed.dtype not in INDEX_DTYPES:
        seed = np.asarray(seed).astype(np.int64)  # other integer arrays are taken by value
    t = convert_to_tensor(seed)
    if t.array.dtype not in INDEX_DTYPES:
        raise op_error(f"Value for attr 'Tseed' of {kernel_type_name(t.dtype)} is not in the list of allowed values: "
                       "int32, int64", tf_op)
    if t.array.shape != (2,):
        raise op_error(f"seed must have shape [2], not [{','.join(map(str, t.array.shape))}]", tf_op)
    return t


def _key_counter(seed_array):
    """The Philox key and counter of a seed array (int32 seeds sign-extended, as TF's kernels)."""
    return philox.key_counter_of_seed(int(seed_array[0]), int(seed_array[1]))


def _seed_and_alg(seed, alg, tf_op):
    """The seed tensor of a V2 stateless op (through StatelessRandomGetKeyCounter), after checking ``alg``."""
    if algorithm_of(alg) == _THREEFRY:
        raise op_error("counter must be a vector with length at least 2; got shape: [1]. (Note that batched counters "
                       "are not supported yet.)", tf_op)
    return seed_tensor(seed, "StatelessRandomGetKeyCounter")


def _stateless(seed, sample, *inputs):
    """``sample(key, counter, *arrays)`` drawn at the stream of the seed tensor ``seed``."""
    return host(lambda s, *arrays: sample(*_key_counter(s), *arrays), seed, *inputs)


def _elementwise(shape, seed, alg, sample):
    """A tensor of the dims of DrawShape ``shape`` of ``sample(key, counter, size)`` at the stream of ``seed``."""
    seed = _seed_and_alg(seed, alg, shape.tf_op)
    return _stateless_elements(shape.checked(), seed, sample)


def _stateless_elements(shape, seed, sample):
    """A tensor of the dims of DrawShape ``shape`` of ``sample(key, counter, size)`` at the stream of ``seed`` (at
    each run of a traced graph, for that run's dims)."""
    def draw(dims, s):
        return sample(*_key_counter(s), size_of(dims)).reshape(dims)
    return shape.host(draw, seed)


# -- uniform, normal, truncated normal -----------------------------------------------------------------------------
def stateless_uniform(shape, seed, minval=0, maxval=None, dtype=_dtypes.float32, name=None, alg="auto_select"):
    """Uniform values in ``[minval, maxval)``, determined by ``seed``.

    Parameters
    ----------
    shape : sequence of int, TensorShape or 1-D integer tensor
    seed : shape-[2] int32/int64 tensor or pair of ints
    minval, maxval : scalar or tensor
        Float range (``maxval`` defaults to 1); for integer dtypes both given (a range, 0-D) or
        both None (the full range of the dtype; uint32/uint64 only this way).
    dtype : DType
        float16, bfloat16, float32, float64, int32, int64, uint32 or uint64.
    alg : str, int or Algorithm

    Returns
    -------
    Tensor
    """
    dtype = accepted_dtype(dtype, _UNIFORM_DTYPES)
    if dtype.is_integer:
        if (minval is None) != (maxval is None):
            raise ValueError(f"For integer `dtype` argument {dtype!r}, argument `minval` and `maxval` must be both "
                             f"None or not None. Got `minval`={minval} and `maxval`={maxval}.")
        if minval is not None and dtype.is_unsigned:
            raise ValueError(f"Argument `dtype` got invalid value {dtype!r} when argument `minval` is not None. Please "
                             "don't use unsigned integers in this case.")
    elif maxval is None:
        maxval = 1
    np_dtype = dtype.np
    if dtype.is_integer and minval is None:
        return _elementwise(DrawShape(shape, "StatelessRandomUniformFullIntV2"), seed, alg,
                            lambda key, counter, size: philox.uniform_full_ints(key, counter, size, np_dtype))
    minval = convert_to_tensor(minval, dtype)
    maxval = convert_to_tensor(maxval, dtype)
    if dtype.is_integer:
        shape = DrawShape(shape, "StatelessRandomUniformIntV2")
        seed = _seed_and_alg(seed, alg, "StatelessRandomUniformIntV2")
        shape.checked()
        low, high = integer_range(minval, maxval, "StatelessRandomUniformIntV2")
        return _stateless_elements(shape, seed, lambda key, counter, size: philox.uniform_ints(
            key, counter, size, np_dtype, low, high))
    rnd = _elementwise(DrawShape(shape, "StatelessRandomUniformV2"), seed, alg,
                       lambda key, counter, size: philox.uniform(key, counter, size, np_dtype))
    return stretched(rnd, minval, maxval)


def _scaled_normal(tf_op, sample, shape, seed, mean, stddev, dtype, alg):
    """``z * stddev + mean`` for standard draws ``z = sample(...)`` at the stream of ``seed``."""
    dtype = _dtypes.as_dtype(dtype)
    shape = DrawShape(shape, tf_op)
    mean = convert_to_tensor(mean, dtype)
    stddev = convert_to_tensor(stddev, dtype)
    float_dtype(dtype, tf_op)
    z = _elementwise(shape, seed, alg, lambda key, counter, size: sample(key, counter, size, dtype.np))
    return scaled(z, stddev, mean)


def stateless_normal(shape, seed, mean=0.0, stddev=1.0, dtype=_dtypes.float32, name=None, alg="auto_select"):
    """Normal values with ``mean`` and ``stddev``, determined by ``seed``.

    Parameters
    ----------
    shape : sequence of int, TensorShape or 1-D integer tensor
    seed : shape-[2] int32/int64 tensor or pair of ints
    mean, stddev : scalar or tensor broadcastable to ``shape``
    dtype : DType
        A float type.
    alg : str, int or Algorithm

    Returns
    -------
    Tensor
    """
    return _scaled_normal("StatelessRandomNormalV2", philox.normal, shape, seed, mean, stddev, dtype, alg)


def stateless_truncated_normal(shape, seed, mean=0.0, stddev=1.0, dtype=_dtypes.float32, name=None,
                               alg="auto_select"):
    """Normal values within two standard deviations of ``mean``, determined by ``seed``.

    Parameters are those of ``stateless_normal``.
    """
    return _scaled_normal("StatelessTruncatedNormalV2", philox.truncated_normal, shape, seed, mean, stddev, dtype,
                          alg)


# -- categorical, shuffle ------------------------------------------------------------------------------------------
def stateless_categorical(logits, num_samples, seed, dtype=_dtypes.int64, name=None):
    """Class indices drawn from the rows of ``logits``, determined by ``seed``.

    Parameters
    ----------
    logits : 2-D float tensor ``[batch, classes]``
    num_samples : int
    seed : shape-[2] int32/int64 tensor or pair of ints
    dtype : DType
        int64 or int32.

    Returns
    -------
    Tensor
        ``[batch, num_samples]`` indices.
    """
    logits, count, out_dtype = categorical_arguments(logits, num_samples, dtype, "StatelessMultinomial")
    seed = seed_tensor(seed, "StatelessMultinomial")
    count = check_categorical(logits, count, "StatelessMultinomial")
    return _stateless(seed, lambda key, counter, x: samplers.categorical(key, counter, x, count, out_dtype), logits)


def stateless_shuffle(value, seed, alg="auto_select", name=None):
    """``value`` with its first dimension permuted, determined by ``seed`` (``tf.random.experimental``)."""
    value = convert_to_tensor(value)
    seed = _seed_and_alg(seed, alg, "StatelessShuffle")
    if value.array.ndim == 0:
        return value
    return _stateless(seed, lambda key, counter, x: x[samplers.permutation(key, counter, x.shape[0])], value)


def stateless_dropout(x, rate, seed, rng_alg=None, noise_shape=None, name=None):
    """``tf.nn.dropout`` whose mask is determined by ``seed`` (``tf.nn.experimental``; Keras' dropout)."""
    return masked(x, rate, noise_shape, lambda shape, dtype: stateless_uniform(shape, seed, dtype=dtype, alg=rng_alg),
                  lambda: None)


# -- gamma, poisson, binomial --------------------------------------------------------------------------------------
def _per_parameter_shape(dims, params, tf_op):
    """Check that ``dims`` ends with the parameters' broadcast shape ``params``; the leading dims."""
    if len(dims) < len(params) or tuple(dims[len(dims) - len(params):]) != tuple(params):
        raise op_error("Shape passed in must end with broadcasted shape.", tf_op)
    return tuple(dims[:len(dims) - len(params)])


def stateless_gamma(shape, seed, alpha, beta=None, dtype=_dtypes.float32, name=None):
    """Gamma values of concentration ``alpha`` and rate ``beta``, determined by ``seed``.

    Parameters
    ----------
    shape : sequence of int or 1-D integer tensor
        The output shape; it ends with the broadcast shape of ``alpha`` and ``beta``.
    seed : shape-[2] int32/int64 tensor or pair of ints
    alpha, beta : float or tensor
        ``beta`` (rate) defaults to 1; the result is differentiable in both.
    dtype : DType
        float16, float32 or float64.

    Returns
    -------
    Tensor
    """
    shape = convert_to_tensor(shape, dtype_hint=_dtypes.int32).array
    alpha = convert_to_tensor(alpha, dtype)
    beta = convert_to_tensor(beta if beta is not None else 1, dtype)
    params = broadcast_shape(alpha, beta, "BroadcastArgs")
    seed = seed_tensor(seed, "StatelessRandomGetKeyCounter")
    dims = shape_dims(shape, "StatelessRandomGammaV3")
    if alpha.dtype not in (_dtypes.float16, _dtypes.float32, _dtypes.float64):
        raise op_error(f"Value for attr 'dtype' of {kernel_type_name(alpha.dtype)} is not in the list of allowed "
                       "values: half, float, double", "StatelessRandomGammaV3")
    tiny = gamma_floor(alpha)
    lead = _per_parameter_shape(dims, params, "StatelessRandomGammaV3")
    samples = _stateless(seed, lambda key, counter, a: samplers.gamma(key, counter, lead, np.broadcast_to(a, params)),
                         alpha)
    return gamma_result(samples, alpha, beta, params, tiny)


def stateless_poisson(shape, seed, lam, dtype=_dtypes.int32, name=None):
    """Poisson counts of rate ``lam``, determined by ``seed``.

    Parameters
    ----------
    shape : sequence of int or 1-D integer tensor
        The output shape; it ends with ``lam``'s shape.
    seed : shape-[2] int32/int64 tensor or pair of ints
    lam : float or tensor
    dtype : DType
        float16, float32, float64, int32 or int64.

    Returns
    -------
    Tensor
    """
    shape = shape_tensor(shape)
    lam = convert_to_tensor(lam)
    out = _dtypes.as_dtype(dtype)
    seed = seed_tensor(seed, "StatelessRandomPoisson")
    dims = shape_dims(shape, "StatelessRandomPoisson")
    check_poisson_dtypes(lam, out, "StatelessRandomPoisson")
    lead = _per_parameter_shape(dims, lam.array.shape, "StatelessRandomPoisson")
    return _stateless(seed, lambda key, counter, rate: samplers.poisson(key, counter, lead, rate, out.np), lam)


def stateless_binomial(shape, seed, counts, probs, output_dtype=_dtypes.int32, name=None):
    """Binomial counts of ``counts`` trials with success probability ``probs``, determined by ``seed``.

    Parameters
    ----------
    shape : sequence of int or 1-D integer tensor
        The output shape; it ends with the broadcast shape of ``counts`` and ``probs``.
    seed : shape-[2] int32/int64 tensor or pair of ints
    counts, probs : float or tensor (one dtype: float16, float32, float64, int32 or int64)
    output_dtype : DType
        float16, float32, float64, int32 or int64.

    Returns
    -------
    Tensor
    """
    shape = shape_tensor(shape)
    probs = convert_to_tensor(probs, dtype_hint=_dtypes.float32)
    counts = convert_to_tensor(counts, dtype_hint=probs.dtype)
    seed = seed_tensor(seed, "StatelessRandomBinomial")
    sample = binomial_sampler(shape, counts, probs, output_dtype, "StatelessRandomBinomial", probs_input=3)
    return _stateless(seed, sample, counts, probs)


def binomial_sampler(shape, counts, probs, output_dtype, tf_op, probs_input):
    """The binomial sampler ``sample(key, counter, counts, probs)`` of op ``tf_op``, after its checks
    (``probs_input``: the position of ``probs`` among the op's inputs, for the dtype mismatch message)."""
    out = _dtypes.as_dtype(output_dtype)
    dims = shape_dims(shape, tf_op)
    if counts.array.dtype != probs.array.dtype:
        raise op_error(f"cannot compute {tf_op} as input #{probs_input}(zero-based) was expected to be a "
                       f"{kernel_type_name(counts.dtype)} tensor but is a {kernel_type_name(probs.dtype)} tensor",
                       tf_op)
    for dtype, attr in ((counts.dtype, "T"), (out, "dtype")):
        if dtype not in (_dtypes.float16, _dtypes.float32, _dtypes.float64, _dtypes.int32, _dtypes.int64):
            raise op_error(f"Value for attr '{attr}' of {kernel_type_name(dtype)} is not in the list of allowed "
                           "values: half, float, double, int32, int64", tf_op)
    params = broadcast_shape(counts, probs, tf_op)
    _per_parameter_shape(dims, params, tf_op)

    def sample(key, counter, c, p):
        return samplers.binomial(key, counter, dims, np.broadcast_to(c, params), np.broadcast_to(p, params), out.np)

    return sample


def stateless_parameterized_truncated_normal(shape, seed, means=0.0, stddevs=1.0, minvals=-2.0, maxvals=2.0,
                                             name=None):
    """Normal values of ``means`` and ``stddevs`` truncated to ``[minvals, maxvals]``, determined by ``seed``.

    Parameters
    ----------
    shape : sequence of int or 1-D integer tensor
        The output shape; it ends with the parameters' broadcast shape.
    seed : shape-[2] int32/int64 tensor or pair of ints
    means, stddevs, minvals, maxvals : float or tensor
        One float dtype (float16, float32 or float64); ``stddevs > 0``, ``minvals < maxvals`` and at
        least one bound finite.

    Returns
    -------
    Tensor
    """
    tf_op = "StatelessParameterizedTruncatedNormal"
    shape = shape_tensor(shape)
    params = [convert_to_tensor(p) for p in (means, stddevs, minvals, maxvals)]
    seed = seed_tensor(seed, tf_op)
    for i, p in enumerate(params[1:], 3):
        if p.array.dtype != params[0].array.dtype:
            raise op_error(f"cannot compute {tf_op} as input #{i}(zero-based) was expected to be a "
                           f"{kernel_type_name(params[0].dtype)} tensor but is a {kernel_type_name(p.dtype)} tensor",
                           tf_op)
    if params[0].dtype not in (_dtypes.float16, _dtypes.float32, _dtypes.float64):
        raise op_error(f"Value for attr 'dtype' of {kernel_type_name(params[0].dtype)} is not in the list of allowed "
                       "values: half, float, double", tf_op)
    dims = shape_dims(shape, tf_op)
    try:
        broadcast = np.broadcast_shapes(*(p.array.shape for p in params))
    except ValueError:
        broadcast = None
    if broadcast is None or len(broadcast) > len(dims) or tuple(dims[len(dims) - len(broadcast):]) != broadcast:
        raise op_error("Shape passed in must end with broadcasted shape.", tf_op)
    lead = dims[:len(dims) - len(broadcast)]

    def sample(key, counter, *arrays):
        mean, stddev, low, high = np.broadcast_arrays(*arrays)
        if size_of(dims):
            _check_truncation(mean, stddev, low, high, tf_op)
        return samplers.parameterized_truncated_normal(key, counter, lead, mean, stddev, low, high)

    return _stateless(seed, sample, *params)


def _check_truncation(mean, stddev, low, high, tf_op):
    """TF's errors for parameters its truncated-normal kernel refuses (or never finishes sampling with)."""
    if not np.all((stddev > 0) & (low < high) & (np.isfinite(low) | np.isfinite(high))):
        raise op_error("Invalid parameters", tf_op)
    if np.isnan(mean).any():
        raise op_error("TruncatedNormal exponential distribution rejection sampler failed to accept a sample.", tf_op,
                       errors.InternalError)


# -- seeds from seeds ----------------------------------------------------------------------------------------------
def split(seed, num=2, alg="auto_select"):
    """``num`` new seeds (a ``[num, 2]`` tensor of ``seed``'s dtype) drawn from ``seed``."""
    seed = convert_to_tensor(seed)
    return stateless_uniform([num, 2], seed, minval=None, maxval=None, dtype=seed.dtype, alg=alg)


def fold_in(seed, data, alg="auto_select"):
    """A new seed combining ``seed`` with the integer scalar ``data``: ``[draw from seed, data]`` in ``data``'s
    dtype."""
    data = convert_to_tensor(data)
    first = stateless_uniform([], seed, minval=None, maxval=None, dtype=data.dtype, alg=alg)
    if data.array.ndim:
        raise op_error(f"Shapes of all inputs must match: values[0].shape = [] != values[1].shape = "
                       f"[{','.join(map(str, data.array.shape))}]", "Pack")
    vector = np.array([1], np.int64)
    return call("Concat", *(call("Reshape", t, vector, tf_op="Pack") for t in (first, data)), axis=0, tf_op="Pack")


stateless_split = split
stateless_fold_in = fold_in

NAMESPACES = {"random": ["stateless_uniform", "stateless_normal", "stateless_truncated_normal", "stateless_categorical",
                         "stateless_gamma", "stateless_poisson", "stateless_binomial",
                         "stateless_parameterized_truncated_normal", "split", "fold_in"],
              "random.experimental": ["stateless_split", "stateless_fold_in", "stateless_shuffle"],
              "nn.experimental": ["stateless_dropout"]}
TENSOR_METHODS = {}
