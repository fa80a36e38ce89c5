"""keras.ops numpy functions of integer arithmetic and float representation (``gcd``, ``lcm``, ``ldexp``,
``nextafter``, ``view``, ``isreal``), indexing (``get_item``) and ``vectorize``."""

import functools
import re

import numpy as np

import vfw.tensorflow as tf
from vfw.frontends.tensorflow.keras.src.backend.dtypes import INT_TYPES, result_type
from vfw.frontends.tensorflow.keras.src.ops._common import cast_to, convert_to_tensor, keras_op

_UNSIGNED = ("uint8", "uint16", "uint32", "uint64")


# -- integer arithmetic ----------------------------------------------------------------------------------------------
def _integer_pair(x1, x2, name):
    """``x1``, ``x2`` as tensors of their promoted integer dtype, broadcast together (absolute values unless
    unsigned); TypeError for non-integers."""
    x1, x2 = tf.convert_to_tensor(x1), tf.convert_to_tensor(x2)
    dtype = result_type(x1.dtype.name, x2.dtype.name)
    if dtype not in INT_TYPES:
        raise TypeError(f"Arguments to {name} must be integers. Received: x1.dtype={x1.dtype.name}, "
                        f"x2.dtype={x2.dtype.name}")
    x1, x2 = cast_to(x1, dtype), cast_to(x2, dtype)
    shape = tf.broadcast_static_shape(x1.shape, x2.shape)
    x1, x2 = tf.broadcast_to(x1, shape), tf.broadcast_to(x2, shape)
    if dtype not in _UNSIGNED:
        x1, x2 = tf.abs(x1), tf.abs(x2)
    return x1, x2


def _euclid(a, b):
    """Elementwise greatest common divisor of non-negative ``a`` and ``b`` (Euclid's algorithm, all elements
    stepping together until every remainder is 0)."""
    def step(a, b):
        nonzero = tf.not_equal(b, 0)
        return tf.where(nonzero, b, a), tf.where(nonzero, tf.math.floormod(a, tf.where(nonzero, b, tf.ones_like(b))),
                                                 tf.zeros_like(b))

    a, _ = tf.while_loop(lambda a, b: tf.reduce_any(tf.not_equal(b, 0)), step, [a, b])
    return a


@keras_op
def gcd(x1, x2):
    """The elementwise greatest common divisor of integer tensors (non-negative)."""
    return _euclid(*_integer_pair(x1, x2, "gcd"))


@keras_op
def lcm(x1, x2):
    """The elementwise least common multiple of integer tensors (non-negative; 0 where either is 0)."""
    x1, x2 = _integer_pair(x1, x2, "lcm")
    divisor = _euclid(x1, x2)
    zero = tf.equal(divisor, 0)
    product = x1 * tf.math.floordiv(x2, tf.where(zero, tf.ones_like(divisor), divisor))
    return tf.where(zero, tf.zeros_like(product), product)


# -- float representation ----------------------------------------------------------------------------------------------
@keras_op
def ldexp(x1, x2):
    """``x1 * 2 ** x2`` for integer ``x2``, in the float promotion of both (zeros and infinities of ``x1``
    unchanged)."""
    x1, x2 = convert_to_tensor(x1), convert_to_tensor(x2)
    dtype = result_type(x1.dtype.name, x2.dtype.name, float)
    if x2.dtype.name not in INT_TYPES:
        raise TypeError(f"ldexp exponent must be an integer type. Received: x2 dtype={x2.dtype}")
    x1 = cast_to(x1, dtype)
    scaled = x1 * tf.pow(tf.constant(2.0, dtype), tf.cast(x2, dtype))
    return tf.where(tf.math.is_inf(x1) | tf.equal(x1, 0), x1, scaled)


@keras_op
def nextafter(x1, x2):
    """The next float64 after ``x1`` towards ``x2``, cast to the float promotion of both."""
    x1, x2 = convert_to_tensor(x1), convert_to_tensor(x2)
    dtype = result_type(x1.dtype.name, x2.dtype.name, float)
    return cast_to(tf.math.nextafter(tf.cast(x1, "float64"), tf.cast(x2, "float64")), dtype)


@keras_op
def view(x, dtype=None):
    """``x``'s bytes reinterpreted as ``dtype``: the last axis shrinks or grows by the ratio of the item sizes."""
    x = convert_to_tensor(x)
    new = tf.as_dtype(dtype) if dtype is not None else x.dtype
    old_size, new_size = x.dtype.size, new.size
    shape = x.shape.as_list()
    last = shape[-1] if shape else -1
    if (last == -1 and old_size != new_size) or (last * old_size) % new_size:
        raise ValueError(f"Cannot view array of shape {x.shape} and dtype {x.dtype} as dtype {new} because the "
                         "total number of bytes is not divisible by the new itemsize.")
    if old_size == new_size:
        return tf.bitcast(x, new)
    if old_size > new_size:
        return tf.reshape(tf.bitcast(x, new), shape[:-1] + [last * (old_size // new_size)])
    ratio = new_size // old_size
    return tf.bitcast(tf.reshape(x, shape[:-1] + [last // ratio, ratio]), new)


@keras_op
def isreal(x):
    """Whether each element has a zero imaginary part (True everywhere for real dtypes), with ``x``'s shape."""
    x = convert_to_tensor(x)
    if x.dtype.is_complex:
        return tf.equal(tf.math.imag(x), 0)
    return tf.ones_like(x, dtype="bool")


@keras_op
def get_item(x, key):
    """``x[key]``, indexed as ``x`` itself indexes (Keras converts nothing: a numpy array gives numpy values)."""
    return x[key]


# -- vectorize ---------------------------------------------------------------------------------------------------------
_CORE_DIMS = re.compile(r"\(([^()]*)\)")


def _parse_signature(signature):
    """A gufunc signature ``"(m,n),(n)->(m)"`` as lists of core dimension names of the inputs and outputs."""
    inputs, _, outputs = signature.replace(" ", "").partition("->")
    if not outputs:
        raise ValueError(f"Not a valid gufunc signature: {signature}")

    def groups(text):
        return [[d for d in group.split(",") if d] for group in _CORE_DIMS.findall(text)]

    return groups(inputs), groups(outputs)


def vectorize(pyfunc, *, excluded=None, signature=None):
    """``pyfunc`` (of scalars, or of the core dimensions of ``signature``) mapped over the broadcast leading
    axes of its tensor arguments; arguments at the positions or names in ``excluded`` pass through unchanged.

    (Real Keras' TensorFlow backend raises ValueError whenever an axis must be mapped; vfw maps it, as
    ``numpy.vectorize`` and Keras' JAX backend do.)
    """
    excluded = set(excluded or ())

    @functools.wraps(pyfunc)
    def wrapped(*args, **kwargs):
        mapped = [i for i, a in enumerate(args) if i not in excluded and a is not None]
        fixed_kwargs = {k: v for k, v in kwargs.items() if k in excluded}
        mapped_kwargs = {k: convert_to_tensor(v) for k, v in kwargs.items() if k not in excluded}
        tensors = [convert_to_tensor(args[i]) for i in mapped]
        core = _parse_signature(signature)[0] if signature else [[]] * len(tensors)
        if len(core) != len(tensors):
            raise TypeError(f"wrong number of positional arguments: expected {len(core)}, got {len(tensors)}")
        loop_shapes = [t.shape.as_list()[:t.shape.rank - len(dims)] for t, dims in zip(tensors, core)]
        loop_shapes += [v.shape.as_list() for v in mapped_kwargs.values()]
        batch = list(np.broadcast_shapes(*map(tuple, loop_shapes))) if loop_shapes else []
        if not batch:
            call_args = list(args)
            for position, value in zip(mapped, tensors):
                call_args[position] = value
            return pyfunc(*call_args, **mapped_kwargs, **fixed_kwargs)
        count = int(np.prod(batch))

        def flat(t, dims):
            core_shape = t.shape.as_list()[t.shape.rank - len(dims):]
            return tf.reshape(tf.broadcast_to(t, batch + core_shape), [count] + core_shape)

        flat_args = [flat(t, dims) for t, dims in zip(tensors, core)]
        flat_kwargs = {k: flat(v, []) for k, v in mapped_kwargs.items()}

        def one(i):
            call_args = list(args)
            for position, value in zip(mapped, flat_args):
                call_args[position] = value[i]
            return pyfunc(*call_args, **{k: v[i] for k, v in flat_kwargs.items()}, **fixed_kwargs)

        outputs = [one(i) for i in range(count)]

        def gather(parts):
            stacked = tf.stack([convert_to_tensor(p) for p in parts])
            return tf.reshape(stacked, batch + stacked.shape.as_list()[1:])

        if isinstance(outputs[0], tuple):
            return tuple(gather(parts) for parts in zip(*outputs))
        return gather(outputs)

    return wrapped
