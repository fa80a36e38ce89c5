"""tf.keras.backend's legacy Keras 2 functions, part 1: elementwise math, reductions, shapes, variables,
values and random tensors (the layer-level ones are in ``backend_nn``).

TF 2.21 serves these in ``tf.keras.backend`` (Keras' ``keras.src.legacy.backend``); plain Keras 3's
``keras.backend`` lacks them, but vfw serves one module for both.  Each maps to the vfw.tensorflow op
Keras' legacy backend calls, so results, dtypes and gradients are TF's.  vfw has no ``tf.SparseTensor``:
``is_sparse`` is always False and ``to_dense`` returns its argument.  The random functions take an
op-level ``seed`` (drawn from numpy's global RNG when None, as Keras does).
"""

import builtins
import math as _math

import numpy as np

import vfw.frontends.tensorflow as tf
from vfw.frontends.tensorflow.keras.src.backend.config import floatx

_ELEMENTWISE = ["abs", "cos", "exp", "log", "round", "sign", "sin", "square", "tanh", "sigmoid", "softplus",
                "softsign", "equal", "not_equal", "greater", "greater_equal", "less", "less_equal", "maximum",
                "minimum", "pow"]
API = {"backend": _ELEMENTWISE + [
    "all", "any", "argmax", "argmin", "max", "min", "sum", "prod", "mean", "std", "var", "cumsum", "cumprod",
    "sqrt", "clip", "cast", "cast_to_floatx", "dtype", "ndim", "int_shape", "shape", "count_params", "is_sparse",
    "to_dense", "reshape", "flatten", "batch_flatten", "expand_dims", "squeeze", "stack", "concatenate", "tile",
    "repeat", "repeat_elements", "reverse", "transpose", "permute_dimensions", "gather", "one_hot", "arange",
    "constant", "variable", "zeros", "ones", "eye", "zeros_like", "ones_like", "get_value", "batch_get_value",
    "set_value", "batch_set_value", "eval", "update", "update_add", "update_sub", "moving_average_update",
    "stop_gradient", "random_uniform", "random_normal", "truncated_normal", "random_bernoulli",
    "random_uniform_variable", "random_normal_variable", "name_scope",
]}

# -- elementwise: the tf op of the same meaning (abs, round, pow, all, any, max, min, sum, eval shadow Python
#    builtins here on purpose: they are Keras' public names; the module uses `builtins.` where it needs them) ------
abs = tf.abs
cos = tf.cos
exp = tf.exp
log = tf.math.log
round = tf.round
sign = tf.sign
sin = tf.sin
square = tf.square
tanh = tf.tanh
sigmoid = tf.sigmoid
softplus = tf.math.softplus
softsign = tf.math.softsign
equal = tf.equal
not_equal = tf.not_equal
greater = tf.greater
greater_equal = tf.greater_equal
less = tf.less
less_equal = tf.less_equal
maximum = tf.maximum
minimum = tf.minimum
pow = tf.pow
name_scope = tf.name_scope


def sqrt(x):
    """Square root of ``x`` clipped at 0 first (negative inputs give 0, not NaN)."""
    return tf.sqrt(tf.maximum(x, tf.convert_to_tensor(0.0, x.dtype)))


def clip(x, min_value, max_value):
    """``x`` clipped to ``[min_value, max_value]`` (None: unbounded; a numeric max below the min becomes the min)."""
    if isinstance(min_value, (int, float)) and isinstance(max_value, (int, float)) and max_value < min_value:
        max_value = min_value
    min_value = -np.inf if min_value is None else min_value
    max_value = np.inf if max_value is None else max_value
    return tf.clip_by_value(x, min_value, max_value)


# -- reductions -----------------------------------------------------------------------------------------------------
def all(x, axis=None, keepdims=False):
    """Logical AND of ``x`` (cast to bool) over ``axis``."""
    return tf.reduce_all(tf.cast(x, tf.bool), axis, keepdims)


def any(x, axis=None, keepdims=False):
    """Logical OR of ``x`` (cast to bool) over ``axis``."""
    return tf.reduce_any(tf.cast(x, tf.bool), axis, keepdims)


def argmax(x, axis=-1):
    """Index (int64) of the largest value along ``axis``."""
    return tf.argmax(x, axis)


def argmin(x, axis=-1):
    """Index (int64) of the smallest value along ``axis``."""
    return tf.argmin(x, axis)


def max(x, axis=None, keepdims=False):
    """Largest value over ``axis``."""
    return tf.reduce_max(x, axis, keepdims)


def min(x, axis=None, keepdims=False):
    """Smallest value over ``axis``."""
    return tf.reduce_min(x, axis, keepdims)


def sum(x, axis=None, keepdims=False):
    """Sum over ``axis``."""
    return tf.reduce_sum(x, axis, keepdims)


def prod(x, axis=None, keepdims=False):
    """Product over ``axis``."""
    return tf.reduce_prod(x, axis, keepdims)


def _bool_as_floatx(x):
    return tf.cast(x, floatx()) if x.dtype == tf.bool else x


def mean(x, axis=None, keepdims=False):
    """Mean over ``axis`` (bool ``x`` counts as floatx 0/1)."""
    return tf.reduce_mean(_bool_as_floatx(x), axis, keepdims)


def std(x, axis=None, keepdims=False):
    """Standard deviation over ``axis`` (bool ``x`` counts as floatx 0/1)."""
    return tf.math.reduce_std(_bool_as_floatx(x), axis=axis, keepdims=keepdims)


def var(x, axis=None, keepdims=False):
    """Variance over ``axis`` (bool ``x`` counts as floatx 0/1)."""
    return tf.math.reduce_variance(_bool_as_floatx(x), axis=axis, keepdims=keepdims)


def cumsum(x, axis=0):
    """Running sum along ``axis``."""
    return tf.cumsum(x, axis=axis)


def cumprod(x, axis=0):
    """Running product along ``axis``."""
    return tf.math.cumprod(x, axis=axis)


# -- dtypes and shapes ----------------------------------------------------------------------------------------------
def cast(x, dtype):
    """``x`` as ``dtype``."""
    return tf.cast(x, dtype)


def cast_to_floatx(x):
    """A tensor or variable cast to floatx; anything else as a floatx numpy array."""
    if isinstance(x, (tf.Tensor, tf.Variable)):
        return tf.cast(x, dtype=floatx())
    return np.asarray(x, dtype=floatx())


def dtype(x):
    """The dtype name of ``x`` ("float32"...)."""
    return x.dtype.base_dtype.name


def ndim(x):
    """The rank of ``x`` (None when unknown)."""
    return x.shape.rank


def int_shape(x):
    """The static shape of ``x`` as a tuple of int/None (None when the rank is unknown)."""
    try:
        shape = x.shape
        return shape if isinstance(shape, tuple) else tuple(shape.as_list())
    except ValueError:
        return None


def shape(x):
    """The dynamic shape of ``x`` (an int32 tensor)."""
    return tf.shape(x)


def count_params(x):
    """The number of entries of ``x``."""
    return _math.prod(x.shape.as_list())


def is_sparse(tensor):
    """Whether ``tensor`` is a SparseTensor: always False (vfw has none)."""
    return False


def to_dense(tensor):
    """A SparseTensor made dense; vfw has none, so ``tensor`` itself."""
    return tensor


def reshape(x, shape):
    """``x`` reshaped."""
    return tf.reshape(x, shape)


def flatten(x):
    """``x`` as a vector."""
    return tf.reshape(x, [-1])


def batch_flatten(x):
    """``x`` as a matrix (first axis, all the others)."""
    return tf.reshape(x, tf.stack([-1, prod(tf.shape(x)[1:])]))


def expand_dims(x, axis=-1):
    """``x`` with a size-1 axis inserted at ``axis``."""
    return tf.expand_dims(x, axis)


def squeeze(x, axis):
    """``x`` without its size-1 axis ``axis``."""
    return tf.squeeze(x, [axis])


def stack(x, axis=0):
    """The tensors of the list ``x`` stacked along a new axis."""
    return tf.stack(x, axis=axis)


def concatenate(tensors, axis=-1):
    """The tensors joined along ``axis``."""
    if axis < 0:
        rank = ndim(tensors[0])
        axis = axis % rank if rank else 0
    return tf.concat(tensors, axis)


def tile(x, n):
    """``x`` repeated ``n`` times (an int: a 1-D ``x``) along each axis."""
    return tf.tile(x, [n] if isinstance(n, int) else n)


def repeat(x, n):
    """A matrix (batch, dim) repeated to (batch, n, dim)."""
    if ndim(x) != 2:
        raise ValueError(f"Expected input `x` to have rank 2. Received: rank(x)={ndim(x)}")
    return tf.tile(tf.expand_dims(x, 1), tf.stack([1, n, 1]))


def repeat_elements(x, rep, axis):
    """Each slice of ``x`` along ``axis`` repeated ``rep`` times in a row (as ``np.repeat``)."""
    size = x.shape.as_list()[axis]
    return concatenate([piece for piece in tf.split(x, size, axis=axis) for _ in range(rep)], axis)


def reverse(x, axes):
    """``x`` reversed along ``axes`` (an int or a list)."""
    return tf.reverse(x, [axes] if isinstance(axes, int) else axes)


def transpose(x):
    """``x`` with its axes reversed."""
    return tf.transpose(x)


def permute_dimensions(x, pattern):
    """``x`` with its axes permuted by ``pattern``."""
    return tf.transpose(x, perm=pattern)


def gather(reference, indices):
    """Rows ``indices`` of ``reference``."""
    return tf.gather(reference, indices)


def one_hot(indices, num_classes):
    """One-hot float32 encoding of int ``indices`` on a new last axis."""
    return tf.one_hot(indices, depth=num_classes, axis=-1)


# -- creation and variables -----------------------------------------------------------------------------------------
def arange(start, stop=None, step=1, dtype="int32"):
    """``tf.range(start, stop, step)`` (a negative ``start`` alone counts from 0), cast to ``dtype``."""
    if stop is None and start < 0:
        start = 0
    result = tf.range(start, limit=stop, delta=step, name="arange")
    return result if dtype == "int32" else tf.cast(result, dtype)


def constant(value, dtype=None, shape=None, name=None):
    """A constant tensor (floatx by default)."""
    return tf.constant(value, dtype=dtype or floatx(), shape=shape, name=name)


def variable(value, dtype=None, name=None, constraint=None):
    """A ``tf.Variable`` holding ``value`` (floatx by default)."""
    if hasattr(value, "tocoo"):
        raise NotImplementedError("keras.backend.variable: scipy sparse values need tf.SparseTensor, which vfw "
                                  "does not have.")
    return tf.Variable(value, dtype=tf.as_dtype(dtype or floatx()), name=name, constraint=constraint)


def _filled(fill, shape, dtype, name):
    """A variable of ``fill``ed ``shape`` (a tensor when a dimension is 0, as Keras)."""
    dtype = dtype or floatx()
    with tf.init_scope():
        value = fill(shape=shape, dtype=tf.as_dtype(dtype), name=name)
        if builtins.all(value.shape.as_list()):
            return variable(value, dtype=dtype, name=name)
        return value


def zeros(shape, dtype=None, name=None):
    """A zero-filled variable (floatx by default)."""
    return _filled(tf.zeros, shape, dtype, name)


def ones(shape, dtype=None, name=None):
    """A one-filled variable (floatx by default)."""
    return _filled(tf.ones, shape, dtype, name)


def eye(size, dtype=None, name=None):
    """An identity-matrix variable (floatx by default)."""
    dtype = dtype or floatx()
    return variable(tf.eye(size, dtype=tf.as_dtype(dtype)), dtype, name)


def zeros_like(x, dtype=None, name=None):
    """Zeros of ``x``'s shape (and dtype unless given)."""
    return tf.zeros_like(x, dtype=dtype, name=name)


def ones_like(x, dtype=None, name=None):
    """Ones of ``x``'s shape (and dtype unless given)."""
    return tf.ones_like(x, dtype=dtype, name=name)


# -- values and updates ---------------------------------------------------------------------------------------------
def get_value(x):
    """The numpy value of a tensor or variable (anything else as is)."""
    return x.numpy() if tf.is_tensor(x) or isinstance(x, tf.Variable) else x


def eval(x):
    """The numpy value of ``x``."""
    return get_value(to_dense(x))


def batch_get_value(tensors):
    """The numpy values of a list of tensors."""
    return [x.numpy() for x in tensors]


def set_value(x, value):
    """Assign the numpy ``value`` (converted to ``x``'s dtype) to the variable ``x``."""
    x.assign(np.asarray(value, dtype=x.dtype.name))


def batch_set_value(tuples):
    """``set_value`` for each ``(variable, value)`` pair."""
    for x, value in tuples:
        set_value(x, value)


def update(x, new_x):
    """``x.assign(new_x)``."""
    return x.assign(new_x)


def update_add(x, increment):
    """``x.assign_add(increment)``."""
    return x.assign_add(increment)


def update_sub(x, decrement):
    """``x.assign_sub(decrement)``."""
    return x.assign_sub(decrement)


def moving_average_update(x, value, momentum):
    """``x = x * momentum + value * (1 - momentum)`` on the variable ``x`` (as ``x -= (x - value) * (1 - m)``)."""
    momentum = tf.cast(momentum, x.dtype)
    return x.assign_sub((x - tf.cast(value, x.dtype)) * (1 - momentum))


def stop_gradient(variables):
    """``tf.stop_gradient`` of a tensor, or (as Keras) a lazy ``map`` of it over a list."""
    if isinstance(variables, (list, tuple)):
        return map(tf.stop_gradient, variables)
    return tf.stop_gradient(variables)


# -- random ---------------------------------------------------------------------------------------------------------
def _seed(seed, high=10e6):
    # Keras draws an op seed from numpy's global RNG when none is given.
    return np.random.randint(high) if seed is None else seed


def random_uniform(shape, minval=0.0, maxval=1.0, dtype=None, seed=None):
    """Uniform values in ``[minval, maxval)`` (floatx by default)."""
    return tf.random.uniform(shape, minval=minval, maxval=maxval, dtype=dtype or floatx(), seed=_seed(seed))


def random_normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None):
    """Normal values (floatx by default)."""
    return tf.random.normal(shape, mean=mean, stddev=stddev, dtype=dtype or floatx(), seed=_seed(seed))


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None):
    """Normal values redrawn beyond two standard deviations (floatx by default)."""
    return tf.random.truncated_normal(shape, mean, stddev, dtype=dtype or floatx(), seed=_seed(seed))


def random_bernoulli(shape, p=0.0, dtype=None, seed=None):
    """1 with probability ``p`` (a uniform draw <= p), else 0 (floatx by default)."""
    dtype = dtype or floatx()
    draws = tf.random.uniform(shape, dtype=dtype, seed=_seed(seed))
    return tf.where(draws <= p, tf.ones(shape, dtype=dtype), tf.zeros(shape, dtype=dtype))


def random_uniform_variable(shape, low, high, dtype=None, name=None, seed=None):
    """A variable of uniform values in ``[low, high)`` (floatx by default)."""
    dtype = dtype or floatx()
    value = tf.random.uniform(shape, low, high, dtype=tf.as_dtype(dtype), seed=_seed(seed, 10e8))
    return variable(value, dtype=dtype, name=name)


def random_normal_variable(shape, mean, scale, dtype=None, name=None, seed=None):
    """A variable of normal values (floatx by default)."""
    dtype = dtype or floatx()
    value = tf.random.normal(shape, mean, scale, dtype=tf.as_dtype(dtype), seed=_seed(seed, 10e8))
    return variable(value, dtype=dtype, name=name)
