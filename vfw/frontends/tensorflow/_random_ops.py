"""tf.random's stateful ops (uniform, normal, truncated_normal, categorical, shuffle, gamma, poisson), set_seed,
and tf.nn.dropout, drawing TF's own numbers.

How TF seeds a stateful op (reproduced here): ``tf.random.set_seed(g)`` sets the global seed and
starts a Python ``random.Random(g)``.  An op called with ``seed=s`` runs a kernel with attributes
``(g, s)`` (each reduced modulo 2**31 - 1; ``g`` is 87654321 when no global seed is set); an op
called without a seed after ``set_seed`` gets ``s`` from that ``random.Random`` (a new value per
call); with neither seed the kernel seeds itself at random.  ``(0, 0)`` becomes ``(0, 2**31 - 1)``.
Eager kernels are cached by op and type attributes, so calls with the same op seed continue one
stream; ``set_seed`` clears the cache.  A kernel's generator is Philox with key ``seed`` and counter
``seed2 << 64``, and each call reserves 256 blocks per output element (categorical and shuffle
reserve what their kernels do).  Under a graph trace each op has a kernel of its own.
"""

import numbers
import random as _pyrandom

import numpy as np

from vfw.core import autograd
from vfw.frontends.tensorflow import _dtypes, errors
from vfw.frontends.tensorflow import _philox as philox
from vfw.frontends.tensorflow import _random_samplers as samplers
from vfw.frontends.tensorflow._dispatch import (
    call,
    convert_to_tensor,
    host,
    is_tensor_like,
    kernel_type_name,
    op_error,
    recording,
    wrap,
)
from vfw.frontends.tensorflow._random_common import (
    DrawShape,
    Stream,
    accepted_dtype,
    broadcast_shape,
    float_dtype,
    scaled,
    shape_dims,
    shape_tensor,
    size_of,
    stretched,
    tracing,
)
from vfw.frontends.tensorflow._shape import TensorShape
from vfw.frontends.tensorflow._traced_shapes import pinned, pinned_to

_MAXINT32 = 2 ** 31 - 1
_DEFAULT_GRAPH_SEED = 87654321
_UNIFORM_DTYPES = (_dtypes.float16, _dtypes.bfloat16, _dtypes.float32, _dtypes.float64, _dtypes.int32, _dtypes.int64)
_POISSON_DTYPES = (_dtypes.float16, _dtypes.float32, _dtypes.float64, _dtypes.int32, _dtypes.int64)
_GAMMA_DTYPES = (np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64))


class _SeedState:
    """The global seed, the Python generator of op seeds, and the eager kernels' streams."""

    def __init__(self):
        self.global_seed = None
        self.op_seeds = None
        self.kernels = {}


_state = _SeedState()


def set_seed(seed):
    """Set the global random seed: ops without an op seed get reproducible seeds from it.

    Parameters
    ----------
    seed : int or None
        None forgets the global seed (ops without an op seed become non-deterministic).
    """
    _state.global_seed = seed
    _state.op_seeds = None if seed is None else _pyrandom.Random(seed)
    _state.kernels.clear()  # kernels restart their streams, as TF clears its kernel cache


def get_seed(op_seed):
    """The ``(seed, seed2)`` attributes of a stateful op called with ``op_seed`` (see the module doc).

    ``(0, 0)`` (a randomly seeded kernel) when neither seed is set.
    """
    if _state.global_seed is not None:
        if op_seed is None:
            op_seed = _state.op_seeds.randint(0, _MAXINT32)
        seeds = (_state.global_seed % _MAXINT32, op_seed % _MAXINT32)
    elif op_seed is not None:
        seeds = (_DEFAULT_GRAPH_SEED, op_seed % _MAXINT32)
    else:
        return 0, 0
    return (0, _MAXINT32) if seeds == (0, 0) else seeds


def _kernel(seeds, *op_key):
    """The stream of the kernel of op ``op_key`` (op name and type attributes) with attributes ``seeds``."""
    if tracing():
        return Stream.of_seeds(*seeds)
    key = op_key + seeds
    found = _state.kernels.get(key)
    if found is None:
        found = _state.kernels[key] = Stream.of_seeds(*seeds)
    return found


def _draw(stream, reserve, sample, *inputs):
    """A tensor ``sample(key, counter, *arrays)`` drawn from ``stream``, which moves ``reserve`` blocks on."""
    return host(lambda *arrays: sample(stream.key, stream.reserve(reserve), *arrays), *inputs)


def _elementwise(seed, tf_op, shape, dtype, sample):
    """A ``shape`` tensor of ``sample(key, counter, size, numpy dtype)`` from stateful kernel ``tf_op``."""
    shape = DrawShape(shape, tf_op)
    seeds = get_seed(seed)
    float_dtype(dtype, tf_op)
    stream = _kernel(seeds, tf_op, dtype.name, shape.checked().array.dtype.name)
    return _draw_elements(stream, shape, lambda key, counter, size: sample(key, counter, size, dtype.np))


def _draw_elements(stream, shape, sample):
    """A tensor of the dims of DrawShape ``shape`` of ``sample(key, counter, size)`` drawn from ``stream``, which
    moves on by ``size`` outputs (at each run of a traced graph, for that run's dims)."""
    def draw(dims):
        size = size_of(dims)
        return sample(stream.key, stream.reserve(size * philox.RESERVED_PER_OUTPUT), size).reshape(dims)
    return shape.host(draw)


# -- uniform, normal, truncated normal -----------------------------------------------------------------------------
def uniform(shape, minval=0, maxval=None, dtype=_dtypes.float32, seed=None, name=None):
    """Uniform values in ``[minval, maxval)``.

    Parameters
    ----------
    shape : sequence of int, TensorShape or 1-D integer tensor
    minval, maxval : scalar or tensor
        The range; ``maxval`` defaults to 1 for floats and is required for integers (which must be
        0-D, with ``minval < maxval``).
    dtype : DType
        float16, bfloat16, float32, float64, int32 or int64.
    seed : int, optional
        Op seed (with the global seed, see ``set_seed``).

    Returns
    -------
    Tensor
    """
    dtype = accepted_dtype(dtype, _UNIFORM_DTYPES)
    if maxval is None:
        if dtype.is_integer:
            raise ValueError(f"Must specify maxval for integer dtype {dtype!r}")
        maxval = 1
    minval_is_zero = isinstance(minval, int) and minval == 0
    maxval_is_one = isinstance(maxval, int) and maxval == 1
    if not minval_is_zero or not maxval_is_one or dtype.is_integer:
        minval = convert_to_tensor(minval, dtype)
        maxval = convert_to_tensor(maxval, dtype)
    if dtype.is_integer:
        shape = DrawShape(shape, "RandomUniformInt")
        seeds = get_seed(seed)
        shape.checked()
        low, high = integer_range(minval, maxval, "RandomUniformInt")
        stream = _kernel(seeds, "RandomUniformInt", dtype.name, shape.array.dtype.name)
        return _draw_elements(stream, shape,
                              lambda key, counter, size: philox.uniform_ints(key, counter, size, dtype.np, low, high))
    result = _elementwise(seed, "RandomUniform", shape, dtype, philox.uniform)
    if minval_is_zero:
        return result if maxval_is_one else call("Mul", result, maxval, tf_op="Mul")
    return stretched(result, minval, maxval)


def integer_range(minval, maxval, tf_op):
    """``(low, high)`` of 0-D integer tensors with ``low < high``, else TF's InvalidArgumentError."""
    for bound, what in ((minval, "minval"), (maxval, "maxval")):
        if bound.array.ndim:
            raise op_error(f"{what} must be 0-D, got shape {list(bound.array.shape)}", tf_op)
    low, high = int(minval.array), int(maxval.array)
    if low >= high:
        raise op_error(f"Need minval < maxval, got {low} >= {high}", tf_op)
    pinned_to((minval, maxval), lambda a, b: (int(a), int(b)), (low, high), "[minval, maxval]", tf_op)
    return low, high


def _scaled_normal(tf_op, sample, shape, mean, stddev, dtype, seed):
    """``z * stddev + mean`` for standard draws ``z = sample(...)`` of the stateful kernel ``tf_op``."""
    dtype = _dtypes.as_dtype(dtype)
    mean = convert_to_tensor(mean, dtype)
    stddev = convert_to_tensor(stddev, dtype)
    z = _elementwise(seed, tf_op, shape, dtype, sample)
    return scaled(z, stddev, mean)


def normal(shape, mean=0.0, stddev=1.0, dtype=_dtypes.float32, seed=None, name=None):
    """Normal values with ``mean`` and ``stddev`` (Box-Muller over Philox, as TF).

    Parameters
    ----------
    shape : sequence of int, TensorShape or 1-D integer tensor
    mean, stddev : scalar or tensor broadcastable to ``shape``
    dtype : DType
        A float type.
    seed : int, optional

    Returns
    -------
    Tensor
    """
    return _scaled_normal("RandomStandardNormal", philox.normal, shape, mean, stddev, dtype, seed)


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=_dtypes.float32, seed=None, name=None):
    """Normal values with ``mean`` and ``stddev``, redrawn until within two standard deviations.

    Parameters are those of ``normal``.
    """
    return _scaled_normal("TruncatedNormal", philox.truncated_normal, shape, mean, stddev, dtype, seed)


# -- categorical, shuffle ------------------------------------------------------------------------------------------
def categorical_arguments(logits, num_samples, dtype, tf_op):
    """``logits`` (a 2-D float tensor), ``num_samples`` (an int tensor) and the output numpy dtype, with TF's
    checks."""
    logits = convert_to_tensor(logits)
    dtype = _dtypes.as_dtype(dtype) if dtype else _dtypes.int64
    if dtype not in (_dtypes.int32, _dtypes.int64):
        raise ValueError(f"Argument `dtype` got invalid value {dtype!r}. Accepted dtypes are (tf.int32, tf.int64).")
    count = convert_to_tensor(num_samples, _dtypes.int32)
    return logits, count, dtype.np


def check_categorical(logits, count, tf_op):
    """Raise the errors of TF's multinomial kernel; the number of samples (the tensor ``count``) as an int."""
    if logits.array.dtype.kind != "f":
        raise op_error(f"Could not find device for node: {{{{node {tf_op}}}}} = {tf_op}"
                       f"[T=DT_{kernel_type_name(logits.dtype).upper()}]", tf_op, errors.NotFoundError)
    if logits.array.ndim != 2:
        raise op_error(f"logits should be a matrix, got shape [{','.join(map(str, logits.array.shape))}]", tf_op)
    given = count
    if given.array.ndim:
        raise op_error(f"num_samples should be a scalar, got shape [{','.join(map(str, given.array.shape))}]", tf_op)
    count = int(given.array)
    if count < 0:
        raise op_error(f"num_samples should be non-negative, got {count}", tf_op)
    pinned(given, (count,), "num_samples", tf_op)
    if logits.array.shape[0] and not logits.array.shape[1]:
        raise op_error("num_classes should be positive, got 0", tf_op)
    return count


def categorical(logits, num_samples, dtype=None, seed=None, name=None):
    """Class indices drawn from the categorical distributions of the rows of ``logits``.

    Parameters
    ----------
    logits : 2-D float tensor ``[batch, classes]``
        Unnormalized log-probabilities.
    num_samples : int
    dtype : DType, optional
        int64 (default) or int32.
    seed : int, optional

    Returns
    -------
    Tensor
        ``[batch, num_samples]`` indices.
    """
    logits, count, out_dtype = categorical_arguments(logits, num_samples, dtype, "Multinomial")
    seeds = get_seed(seed)
    count = check_categorical(logits, count, "Multinomial")
    stream = _kernel(seeds, "Multinomial", logits.dtype.name, out_dtype.name)
    reserve = logits.array.shape[0] * (-(-count // 4) * 4) * 2 * philox.RESERVED_PER_OUTPUT  # two words a draw
    return _draw(stream, reserve, lambda key, counter, x: samplers.categorical(key, counter, x, count, out_dtype),
                 logits)


def shuffle(value, seed=None, name=None):
    """``value`` with its first dimension randomly permuted (TF's Fisher-Yates over Philox).

    Parameters
    ----------
    value : tensor
        A scalar is returned as is.
    seed : int, optional

    Returns
    -------
    Tensor
    """
    value = convert_to_tensor(value)
    stream = _kernel(get_seed(seed), "RandomShuffle", value.dtype.name)
    if value.array.ndim == 0:
        return value

    def sample(x):
        n = x.shape[0]
        return x[samplers.permutation(stream.key, stream.reserve((n + 2) // 4), n)]

    return host(sample, value)


# -- gamma, poisson ------------------------------------------------------------------------------------------------
def gamma(shape, alpha, beta=None, dtype=_dtypes.float32, seed=None, name=None):
    """Gamma values of concentration ``alpha`` and rate ``beta``, shaped ``shape + broadcast(alpha, beta).shape``.

    Differentiable in ``alpha`` (TF's implicit reparameterization gradient) and ``beta``.

    Parameters
    ----------
    shape : sequence of int or 1-D integer tensor
        Samples per distribution.
    alpha : float or tensor
    beta : float or tensor, optional
        Rate (inverse scale); 1 when omitted.
    dtype : DType
        float16, float32 or float64.
    seed : int, optional

    Returns
    -------
    Tensor
    """
    shape = shape_tensor(shape)
    alpha = convert_to_tensor(alpha, dtype)
    beta = convert_to_tensor(beta if beta is not None else 1, dtype)
    params = broadcast_shape(alpha, beta, "BroadcastArgs")
    seeds = get_seed(seed)
    tiny = gamma_floor(alpha)
    dims = shape_dims(shape, "RandomGamma")
    stream = _kernel(seeds, "RandomGamma", shape.dtype.name, alpha.dtype.name)
    reserve = size_of(dims) * size_of(params) * philox.RESERVED_PER_OUTPUT
    samples = _draw(stream, reserve, lambda key, counter, a: samplers.gamma(key, counter, dims,
                                                                            np.broadcast_to(a, params)), alpha)
    return gamma_result(samples, alpha, beta, params, tiny)


def gamma_result(samples, alpha, beta, params, tiny):
    """Gamma(alpha, 1) ``samples`` (shaped ``lead + params``) divided by the rate ``beta``, floored at ``tiny``:
    differentiable in ``beta`` (engine ops) and in ``alpha`` (TF's implicit reparameterization gradient)."""
    if recording(alpha):
        samples = _differentiable_in_alpha(samples, alpha, params)
    return call("Max", tiny, call("Div", samples, beta, tf_op="RealDiv"), tf_op="Maximum")


def _differentiable_in_alpha(samples, alpha, params):
    """``samples`` with the gradient ``d samples / d alpha``, summed over the samples of each alpha."""
    own = alpha.array.shape
    offset = samples.array.ndim - len(own)  # the axes before alpha's own ones: summed away
    leading = np.arange(offset, dtype=np.int64)
    spread = [offset + i for i, (n, m) in enumerate(zip(params[len(params) - len(own):], own)) if m == 1 and n != 1]

    def forward(a):
        def backward(g):
            partial = host(lambda values, x: samplers.gamma_alpha_derivative(np.broadcast_to(values, params), x)
                            .astype(x.dtype), a, samples)
            grad = call("Mul", g, partial, tf_op="Mul")
            if spread:
                grad = call("ReduceSum", grad, np.array(spread, np.int64), keepdims=1, tf_op="Sum")
            return (call("ReduceSum", grad, leading, keepdims=0, tf_op="Sum") if leading.size else grad,)
        return wrap(samples.array), backward

    return autograd.custom_gradient(forward)(alpha)


def gamma_floor(alpha):
    """The smallest normal number of ``alpha``'s dtype, gamma samples' floor (ValueError, as numpy's ``finfo`` in
    TF, unless float16, float32 or float64)."""
    np_dtype = alpha.array.dtype
    if np_dtype not in _GAMMA_DTYPES:
        raise ValueError(f"data type {np_dtype.type} not inexact")
    return np.asarray(np.finfo(np_dtype).tiny, np_dtype)


def poisson(shape, lam, dtype=_dtypes.float32, seed=None, name=None):
    """Poisson counts of rate ``lam``, shaped ``shape + lam.shape``.

    Parameters
    ----------
    shape : sequence of int or 1-D integer tensor
    lam : float or tensor
        Rates (float16, float32, float64, int32 or int64).
    dtype : DType
        Output type (float16, float32, float64, int32 or int64).
    seed : int, optional

    Returns
    -------
    Tensor
    """
    shape = shape_tensor(shape)
    seeds = get_seed(seed)
    lam = convert_to_tensor(lam, dtype_hint=_dtypes.float64)
    out = _dtypes.as_dtype(dtype)
    dims = shape_dims(shape, "RandomPoissonV2")
    check_poisson_dtypes(lam, out, "RandomPoissonV2")
    stream = _kernel(seeds, "RandomPoissonV2", shape.dtype.name, lam.dtype.name, out.name)
    reserve = size_of(dims) * lam.array.size * philox.RESERVED_PER_OUTPUT
    return _draw(stream, reserve, lambda key, counter, rate: samplers.poisson(key, counter, dims, rate, out.np), lam)


def check_poisson_dtypes(lam, out, tf_op):
    """TF's InvalidArgumentError unless the rate and output dtypes have a Poisson kernel."""
    names = "half, float, double, int32, int64"
    for dtype, attr in ((lam.dtype, "R"), (out, "dtype")):
        if dtype not in _POISSON_DTYPES:
            raise op_error(f"Value for attr '{attr}' of {kernel_type_name(dtype)} is not in the list of allowed "
                           f"values: {names}", tf_op)


# -- dropout -------------------------------------------------------------------------------------------------------
def _noise_shape(x, noise_shape):
    """The shape of dropout's mask: ``x``'s, or ``noise_shape`` with None dims taken from ``x``."""
    if noise_shape is None:
        return x.array.shape
    if is_tensor_like(noise_shape):
        return noise_shape
    try:
        dims = TensorShape(noise_shape)
    except (TypeError, ValueError):  # a list holding tensors (Keras' [tf.shape(x)[0], 1, 1]): packed as given
        return noise_shape
    if dims.rank == x.array.ndim:
        return [x.array.shape[i] if d is None else d for i, d in enumerate(dims.as_list())]
    return dims


def dropout(x, rate, noise_shape=None, seed=None, name=None):
    """Zero elements of ``x`` with probability ``rate`` and scale the others by ``1 / (1 - rate)``.

    Parameters
    ----------
    x : float tensor
    rate : float in [0, 1) or scalar float tensor of ``x``'s dtype
    noise_shape : sequence of int, optional
        Shape of the keep/drop mask, broadcast against ``x`` (None dims take ``x``'s).
    seed : int, optional
        Op seed of the mask's uniform draw (a stateful RandomUniform, as in TF).

    Returns
    -------
    Tensor
        Shaped like ``x``.
    """
    return masked(x, rate, noise_shape, lambda shape, dtype: uniform(shape, seed=seed, dtype=dtype),
                  lambda: get_seed(seed))


def general_dropout(x, rate, uniform_sampler, noise_shape=None, name=None):
    """``dropout`` with the mask's uniform values from ``uniform_sampler(shape=..., dtype=...)``
    (``tf.nn.experimental``)."""
    return masked(x, rate, noise_shape, uniform_sampler, lambda: None)


def masked(x, rate, noise_shape, sampler, skipped):
    """Dropout of ``x`` with mask uniforms ``sampler(shape=, dtype=)``; ``skipped()`` runs instead at rate 0.

    The kept values are ``x * (1 / (1 - rate))`` for a Python rate, ``x / (1 - rate)`` for a tensor
    rate (TF's arithmetic); an element is kept where its uniform is ``>= rate``.
    """
    is_number = isinstance(rate, numbers.Real) and not is_tensor_like(rate)
    if is_number and not 0 <= rate < 1:
        raise ValueError(f"`rate` must be a scalar tensor or a float in the range [0, 1). Received: rate={rate}")
    x = convert_to_tensor(x)
    if not x.dtype.is_floating:
        raise ValueError(f"`x.dtype` must be a floating point tensor as `x` will be scaled. Received: "
                         f"x_dtype={x.dtype!r}")
    if is_number and rate == 0:
        skipped()  # a stateful draw skipped still takes its op seed, so later ops draw what they would have
        return x
    if is_number:
        kept = call("Mul", x, np.asarray(1 / (1 - rate), x.array.dtype), tf_op="Mul")
        threshold = np.asarray(rate, x.array.dtype)
    elif is_tensor_like(rate):
        threshold = convert_to_tensor(rate)
        if threshold.array.ndim:
            raise ValueError(f"Shape {TensorShape(threshold.array.shape)} must have rank 0")
        if threshold.dtype != x.dtype:
            raise ValueError(f"`x.dtype` must be compatible with `rate.dtype`. Received: x.dtype={x.dtype!r} and "
                             f"rate.dtype={threshold.dtype!r}")
        kept = call("Div", x, call("Sub", np.asarray(1, x.array.dtype), threshold, tf_op="Sub"), tf_op="RealDiv")
    else:
        raise ValueError(f"`rate` must be a scalar or scalar tensor. Received: rate={rate}")
    noise = sampler(shape=_noise_shape(x, noise_shape), dtype=x.dtype)
    keep = call("GreaterOrEqual", noise, threshold, tf_op="GreaterEqual")
    return call("Where", keep, kept, np.zeros((), x.array.dtype), tf_op="SelectV2")


NAMESPACES = {"random": ["set_seed", "uniform", "normal", "truncated_normal", "categorical", "shuffle", "gamma",
                         "poisson"],
              "nn": ["dropout"], "nn.experimental": ["general_dropout"]}
TENSOR_METHODS = {}
