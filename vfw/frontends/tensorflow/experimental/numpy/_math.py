"""tf.experimental.numpy elementwise math: NumPy-promoted operands handed to vfw.tensorflow's ops.

Float-only functions (sqrt, exp, trig...) cast non-float input to the default float type (float64, or
float32 with prefer_float32) as TF NumPy does; bool addition/multiplication are logical or/and.
"""

import numpy as np

from vfw.frontends import tensorflow as tf
from vfw.frontends.tensorflow.experimental.numpy._promotion import (
    DEFAULT_FLOAT,
    asarray,
    cast,
    promote,
    promote_to_float,
)

_BOOL = np.dtype(np.bool_)


def _unary(tf_fn, name, to_float=False, doc=None):
    def fn(x):
        t = asarray(x)
        if to_float and t.array.dtype.kind not in "fc":
            t = cast(t, DEFAULT_FLOAT)
        return tf_fn(t)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc or f"``tnp.{name}``: elementwise, NumPy dtype rules."
    return fn


def _binary(tf_fn, name, to_float=False, bool_fn=None):
    def fn(x1, x2):
        a, b = (promote_to_float if to_float else promote)(x1, x2)
        if bool_fn is not None and a.array.dtype == _BOOL:
            return bool_fn(a, b)
        return tf_fn(a, b)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``tnp.{name}``: elementwise on operands promoted with NumPy's rules."
    return fn


def _logical(tf_fn, name):
    def fn(x1, x2):
        return tf_fn(cast(asarray(x1), _BOOL), cast(asarray(x2), _BOOL))

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``tnp.{name}``: elementwise on the truth values of the operands."
    return fn


def _sinc_kernel(t):
    scaled = t * np.pi
    safe = tf.where(tf.equal(t, 0), tf.ones_like(t), scaled)
    return tf.where(tf.equal(t, 0), tf.ones_like(t), tf.sin(safe) / safe)


def _fix_kernel(t):
    return tf.where(t < 0, tf.math.ceil(t), tf.math.floor(t))


def _exp2_kernel(t):
    return tf.pow(tf.constant(2, t.dtype), t)


def _cbrt_kernel(t):
    magnitude = tf.pow(tf.abs(t), tf.constant(1 / 3, t.dtype))
    return tf.where(t < 0, -magnitude, magnitude)


def _log_base(base):
    def kernel(t):
        # As TF NumPy: divided by log(base) as a float64 array, so float16/32 results become float64.
        return true_divide(tf.math.log(t), np.log(base))

    return kernel


def _scaled(factor):
    def kernel(t):
        return t * tf.constant(factor, t.dtype)

    return kernel




_FLOAT_UNARY = {
    "sqrt": tf.math.sqrt, "exp": tf.math.exp, "expm1": tf.math.expm1, "log": tf.math.log, "log1p": tf.math.log1p,
    "log2": _log_base(2.0), "log10": _log_base(10.0), "exp2": _exp2_kernel, "cbrt": _cbrt_kernel,
    "sin": tf.math.sin, "cos": tf.math.cos, "tan": tf.math.tan, "arcsin": tf.math.asin, "arccos": tf.math.acos,
    "arctan": tf.math.atan, "sinh": tf.math.sinh, "cosh": tf.math.cosh, "tanh": tf.math.tanh,
    "arcsinh": tf.math.asinh, "arccosh": tf.math.acosh, "arctanh": tf.math.atanh,
    "floor": tf.math.floor, "ceil": tf.math.ceil, "fix": _fix_kernel, "sinc": _sinc_kernel,
    "deg2rad": _scaled(np.pi / 180),
}
# TF NumPy does not promote these: reciprocal of integers fails as tf.math.reciprocal does.
_UNARY = {"abs": tf.math.abs, "absolute": tf.math.abs, "fabs": tf.math.abs, "reciprocal": tf.math.reciprocal,
          "negative": tf.math.negative, "square": tf.math.square,
          "positive": tf.identity, "conj": tf.math.conj, "conjugate": tf.math.conj,
          "bitwise_not": tf.bitwise.invert}
_BINARY = {"add": (tf.math.add, tf.math.logical_or), "subtract": (tf.math.subtract, None),
           "multiply": (tf.math.multiply, tf.math.logical_and), "maximum": (tf.math.maximum, tf.math.logical_or),
           "minimum": (tf.math.minimum, tf.math.logical_and), "remainder": (tf.math.floormod, None),
           "mod": (tf.math.floormod, None), "floor_divide": (tf.math.floordiv, None),
           "bitwise_and": (tf.bitwise.bitwise_and, tf.math.logical_and),
           "bitwise_or": (tf.bitwise.bitwise_or, tf.math.logical_or),
           "bitwise_xor": (tf.bitwise.bitwise_xor, tf.math.logical_xor),
           "equal": (tf.math.equal, None), "not_equal": (tf.math.not_equal, None), "less": (tf.math.less, None),
           "less_equal": (tf.math.less_equal, None), "greater": (tf.math.greater, None),
           "greater_equal": (tf.math.greater_equal, None), "power": (tf.math.pow, None),
           # As TF NumPy, these keep integer operands integer (atan2 then refuses them, as tf.math.atan2).
           "float_power": (tf.math.pow, None), "arctan2": (tf.math.atan2, None)}
_FLOAT_BINARY = {"nextafter": tf.math.nextafter}

FUNCTIONS = {}
for _name, _kernel in _FLOAT_UNARY.items():
    FUNCTIONS[_name] = _unary(_kernel, _name, to_float=True)
for _name, _kernel in _UNARY.items():
    FUNCTIONS[_name] = _unary(_kernel, _name)
for _name, (_kernel, _bool_kernel) in _BINARY.items():
    FUNCTIONS[_name] = _binary(_kernel, _name, bool_fn=_bool_kernel)
for _name, _kernel in _FLOAT_BINARY.items():
    FUNCTIONS[_name] = _binary(_kernel, _name, to_float=True)
for _name, _kernel in {"logical_and": tf.math.logical_and, "logical_or": tf.math.logical_or,
                       "logical_xor": tf.math.logical_xor}.items():
    FUNCTIONS[_name] = _logical(_kernel, _name)
FUNCTIONS["logical_not"] = _unary(lambda t: tf.math.logical_not(cast(t, _BOOL)), "logical_not")


_rad2deg_of_array = _unary(_scaled(180 / np.pi), "rad2deg", to_float=True)


def rad2deg(x):
    """``tnp.rad2deg``: radians to degrees (a Python scalar gives a Python scalar, as in TF NumPy)."""
    if isinstance(x, (int, float)) and not isinstance(x, bool):
        return x * (180 / np.pi)
    return _rad2deg_of_array(x)


def true_divide(x1, x2):
    """``tnp.true_divide`` / ``tnp.divide``: float division (integers as ``tf.math.truediv`` converts them)."""
    a, b = promote(x1, x2)
    if a.array.dtype == _BOOL:
        a, b = cast(a, DEFAULT_FLOAT), cast(b, DEFAULT_FLOAT)
    return tf.math.truediv(a, b)


def divmod(x1, x2):  # noqa: A001 (NumPy's name)
    """``tnp.divmod``: ``(floor_divide(x1, x2), remainder(x1, x2))``."""
    return FUNCTIONS["floor_divide"](x1, x2), FUNCTIONS["remainder"](x1, x2)


def _strong_floats(x1, x2):
    """Operands converted to arrays first (a Python float becomes float64), then promoted to a float type."""
    return promote_to_float(asarray(x1), asarray(x2))


def hypot(x1, x2):
    """``tnp.hypot``: ``sqrt(square(x1) + square(x2))`` in TF NumPy's order (so bools fail in square)."""
    return FUNCTIONS["sqrt"](FUNCTIONS["add"](FUNCTIONS["square"](x1), FUNCTIONS["square"](x2)))


def logaddexp(x1, x2):
    """``tnp.logaddexp``: ``log(exp(x1) + exp(x2))`` without overflow."""
    a, b = promote_to_float(x1, x2)
    larger = tf.math.maximum(a, b)
    return larger + tf.math.log1p(tf.math.exp(-tf.math.abs(a - b)))


def logaddexp2(x1, x2):
    """``tnp.logaddexp2``: ``log2(2**x1 + 2**x2)`` without overflow."""
    a, b = _strong_floats(x1, x2)
    log2 = tf.constant(np.log(2.0), a.dtype)
    return logaddexp(a * log2, b * log2) / log2


def heaviside(x1, x2):
    """``tnp.heaviside``: 0 where ``x1 < 0``, ``x2`` where ``x1 == 0``, 1 where ``x1 > 0``."""
    a, b = promote_to_float(x1, x2)
    b = b + tf.zeros_like(a)
    return tf.where(a < 0, tf.zeros_like(b), tf.where(a > 0, tf.ones_like(b), b))


def _integer_operands(x1, x2, name):
    a, b = promote(x1, x2)
    if a.array.dtype.kind not in "iu":
        raise ValueError(f"Arguments to {name} must be integers.")
    return a, b


def gcd(x1, x2):
    """``tnp.gcd``: greatest common divisor of integer ``x1`` and ``x2`` (the Euclidean algorithm)."""
    a, b = _integer_operands(x1, x2, "gcd")
    a, b = tf.abs(a), tf.abs(b)
    a, b = tf.broadcast_to(a, tf.broadcast_dynamic_shape(tf.shape(a), tf.shape(b))), b + tf.zeros_like(a)
    while bool(tf.reduce_any(tf.not_equal(b, 0))):
        nonzero = tf.not_equal(b, 0)
        safe = tf.where(nonzero, b, tf.ones_like(b))
        a, b = tf.where(nonzero, b, a), tf.where(nonzero, tf.math.floormod(a, safe), b)
    return a


def lcm(x1, x2):
    """``tnp.lcm``: least common multiple of integer ``x1`` and ``x2``."""
    a, b = _integer_operands(x1, x2, "lcm")
    divisor = gcd(a, b)
    safe = tf.where(tf.equal(divisor, 0), tf.ones_like(divisor), divisor)
    return tf.abs(a * tf.math.floordiv(b, safe))


def sign(x, out=None, where=None, **kwargs):
    """``tnp.sign``: -1, 0 or 1 by the sign of ``x``."""
    if out is not None or where is not None or kwargs:
        raise ValueError("tnp.sign does not support `out`, `where` or other NumPy keyword arguments.")
    return tf.math.sign(asarray(x))


def signbit(x):
    """``tnp.signbit``: True where the sign bit of ``x`` is set (negative numbers and -0.0)."""
    t = asarray(x)
    if t.array.dtype == _BOOL:
        return tf.zeros_like(t)
    # As TF NumPy: a comparison with zero, so -0.0 counts as positive.
    return t < 0


def clip(a, a_min, a_max):
    """``tnp.clip``: ``a`` limited to ``[a_min, a_max]`` (operands promoted with NumPy's rules)."""
    if a_min is None and a_max is None:
        raise ValueError("Not more than one of `a_min` and `a_max` may be `None`.")
    if a_min is None:
        return FUNCTIONS["minimum"](a, a_max)
    if a_max is None:
        return FUNCTIONS["maximum"](a, a_min)
    a, low, high = promote(a, a_min, a_max)
    return tf.math.minimum(tf.math.maximum(a, low), high)


def around(a, decimals=0):
    """``tnp.around`` / ``tnp.round``: round half to even at ``decimals`` digits (integers unchanged at 0)."""
    t = asarray(a)
    if t.array.dtype.kind in "iub" and decimals >= 0:
        return t
    work = t if t.array.dtype.kind in "fc" else cast(t, DEFAULT_FLOAT)
    if decimals == 0:
        return cast(tf.math.round(work), t.array.dtype) if t.array.dtype.kind in "iu" else tf.math.round(work)
    factor = tf.constant(10.0 ** decimals, work.dtype)
    rounded = tf.math.round(work * factor) / factor
    return cast(rounded, t.array.dtype) if t.array.dtype.kind in "iu" else rounded


def angle(z, deg=False):
    """``tnp.angle``: the argument of complex ``z`` (0 or pi for reals), in radians or degrees."""
    t = asarray(z)
    if t.array.dtype.kind != "c":
        t = cast(t, np.dtype(np.float32))  # TF NumPy gives float32 angles for every real dtype
        result = tf.where(t < 0, tf.constant(np.pi, t.dtype), tf.zeros_like(t))
    else:
        result = tf.math.angle(t)
    return result * tf.constant(180 / np.pi, result.dtype) if deg else result


def real(val):
    """``tnp.real``: the real part of ``val`` (``val`` itself when real)."""
    return tf.math.real(asarray(val))


def imag(val):
    """``tnp.imag``: the imaginary part of ``val`` (zeros when real)."""
    t = asarray(val)
    return tf.math.imag(t) if t.array.dtype.kind == "c" else tf.zeros_like(t)
