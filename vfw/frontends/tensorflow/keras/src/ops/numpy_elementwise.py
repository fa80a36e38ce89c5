"""keras.ops elementwise math: arithmetic, comparisons, logic, and unary functions, with Keras' dtypes.

- Arithmetic (``add``, ``multiply``, ``maximum``...) promotes with Python scalars as weak types
  (``int8 tensor + 1`` is int8); ``divide``/``true_divide`` always give a float.
- Comparisons and the other binary functions convert scalars as TF does, then promote.
- Transcendental functions of an integer tensor give a float: int64 -> ``floatx()``, smaller ints
  ``result_type(dtype, float)``; ``exp``/``expm1``/``exp2``/``fabs`` send every int and bool to
  ``floatx()``.
"""

import math

import vfw.tensorflow as tf
from vfw.frontends.tensorflow.keras.src.backend import config
from vfw.frontends.tensorflow.keras.src.backend.dtypes import result_type
from vfw.frontends.tensorflow.keras.src.ops._common import (
    convert_to_tensor,
    float_of,
    keras_op,
    operand,
    promoted,
    promoted_tensors,
    to_floatx_if_integer,
)

_SMALL_INTS = ("bool", "int8", "int16", "int32", "uint8", "uint16", "uint32")


def _float_unary(name, tf_function, summary):
    """A keras op applying ``tf_function`` to ``float_of(x)``."""

    def function(x):
        return tf_function(float_of(x))

    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"{summary}, elementwise (integer inputs give floats)."
    return keras_op(function)


def _floatx_unary(name, tf_function, summary):
    """A keras op applying ``tf_function`` to ``x`` with ints and bools cast to ``floatx()``."""

    def function(x):
        return tf_function(to_floatx_if_integer(x))

    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"{summary}, elementwise (integer and bool inputs give floatx)."
    return keras_op(function)


arccos = _float_unary("arccos", tf.math.acos, "Inverse cosine")
arccosh = _float_unary("arccosh", tf.math.acosh, "Inverse hyperbolic cosine")
arcsin = _float_unary("arcsin", tf.math.asin, "Inverse sine")
arcsinh = _float_unary("arcsinh", tf.math.asinh, "Inverse hyperbolic sine")
arctan = _float_unary("arctan", tf.math.atan, "Inverse tangent")
arctanh = _float_unary("arctanh", tf.math.atanh, "Inverse hyperbolic tangent")
ceil = _float_unary("ceil", tf.math.ceil, "Ceiling")
cos = _float_unary("cos", tf.math.cos, "Cosine")
cosh = _float_unary("cosh", tf.math.cosh, "Hyperbolic cosine")
floor = _float_unary("floor", tf.math.floor, "Floor")
log = _float_unary("log", tf.math.log, "Natural logarithm")
log1p = _float_unary("log1p", tf.math.log1p, "``log(1 + x)``")
log2 = _float_unary("log2", lambda x: tf.math.log(x) / tf.math.log(tf.constant(2, x.dtype)), "Base-2 logarithm")
log10 = _float_unary("log10", lambda x: tf.math.log(x) / tf.math.log(tf.constant(10, x.dtype)), "Base-10 logarithm")
sin = _float_unary("sin", tf.math.sin, "Sine")
sinh = _float_unary("sinh", tf.math.sinh, "Hyperbolic sine")
sqrt = _float_unary("sqrt", tf.math.sqrt, "Square root")
tan = _float_unary("tan", tf.math.tan, "Tangent")
tanh = _float_unary("tanh", tf.math.tanh, "Hyperbolic tangent")
exp = _floatx_unary("exp", tf.math.exp, "Exponential")
expm1 = _floatx_unary("expm1", tf.math.expm1, "``exp(x) - 1``")
exp2 = _floatx_unary("exp2", lambda x: tf.math.pow(tf.constant(2.0, x.dtype), x), "``2 ** x``")
fabs = _floatx_unary("fabs", tf.math.abs, "Absolute value")


@keras_op
def absolute(x):
    """Absolute value, elementwise (unsigned and bool inputs are returned unchanged)."""
    x = convert_to_tensor(x)
    if "uint" in x.dtype.name or x.dtype.name == "bool":
        return x
    return tf.math.abs(x)


abs = absolute  # noqa: A001  (keras.ops.abs)


@keras_op
def negative(x):
    """``-x``, elementwise."""
    return tf.negative(convert_to_tensor(x))


@keras_op
def square(x):
    """``x * x``, elementwise (bools as int32)."""
    x = convert_to_tensor(x)
    return tf.math.square(tf.cast(x, "int32") if x.dtype.name == "bool" else x)


@keras_op
def sign(x):
    """-1, 0 or 1 by the sign of each element (in ``x``'s dtype)."""
    x = convert_to_tensor(x)
    dtype = x.dtype.name
    if dtype in ("uint8", "uint16", "uint32"):
        return tf.cast(tf.math.sign(tf.cast(x, "int32")), dtype)
    return tf.math.sign(x)


@keras_op
def reciprocal(x):
    """``1 / x``, elementwise."""
    return tf.math.reciprocal(convert_to_tensor(x))


@keras_op
def round(x, decimals=0):  # noqa: A001  (keras.ops.round)
    """Round half to even, to ``decimals`` decimal places (negative: tens, hundreds...)."""
    x = convert_to_tensor(x)
    if decimals == 0:
        return tf.math.round(x)
    dtype = x.dtype
    if dtype.is_integer:
        if decimals > 0:
            return x
        factor = tf.cast(math.pow(10, decimals), config.floatx())
        x = tf.cast(x, config.floatx())
    else:
        factor = tf.cast(math.pow(10, decimals), dtype)
    return tf.cast(tf.math.round(x * factor) / factor, dtype)


@keras_op
def trunc(x):
    """Round towards zero (integer and bool inputs unchanged)."""
    x = convert_to_tensor(x)
    if x.dtype.name == "bool" or "int" in x.dtype.name:
        return x
    return tf.where(x < 0, tf.math.ceil(x), tf.math.floor(x))


@keras_op
def cbrt(x):
    """Cube root (int64 gives float64, other ints floatx)."""
    x = convert_to_tensor(x)
    if x.dtype.name == "int64":
        x = tf.cast(x, "float64")
    elif x.dtype.name not in ("bfloat16", "float16", "float64"):
        x = tf.cast(x, config.floatx())
    return tf.math.sign(x) * tf.math.pow(tf.math.abs(x), 1.0 / 3.0)


def _angle_float(x, bool_to_float=True):
    """The float type deg2rad/rad2deg/hypot/heaviside compute ``x`` in: small ints (and bools, unless
    ``bool_to_float`` is False) -> floatx, int64 -> float64."""
    dtype = x.dtype.name
    if dtype in _SMALL_INTS and (bool_to_float or dtype != "bool"):
        return config.floatx()
    return "float64" if dtype == "int64" else dtype


@keras_op
def deg2rad(x):
    """Degrees to radians."""
    x = convert_to_tensor(x)
    dtype = _angle_float(x)
    x = tf.cast(x, dtype)
    return x * (tf.constant(math.pi, dtype=dtype) / tf.constant(180.0, dtype=dtype))


@keras_op
def rad2deg(x):
    """Radians to degrees."""
    x = convert_to_tensor(x)
    dtype = _angle_float(x)
    x = tf.cast(x, dtype)
    return x * (tf.constant(180.0, dtype=dtype) / tf.constant(math.pi, dtype=dtype))


# -- arithmetic ------------------------------------------------------------------------------------------------------
def _arithmetic(name, tf_function, summary, extra=()):
    """A keras op applying ``tf_function`` to its two operands promoted with weak scalar types."""

    def function(x1, x2):
        return tf_function(*promoted(operand(x1), operand(x2), extra=extra))

    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"{summary}, elementwise with broadcasting (Keras' dtype promotion)."
    return keras_op(function)


def _add(x1, x2):
    """``x1 + x2``, through ``tf.nn.bias_add`` where ``x2`` squeezes to a vector as long as ``x1``'s last or second
    axis (``x1`` of rank 2 or more), as Keras' TF backend does: ``x2``'s size-1 dims are dropped then ((4, 3) +
    (1, 1, 3) is (4, 3)), a bias along axis 1 adds channels-first, and a bfloat16 bias gets TF's BiasAdd gradient.
    ``x1`` and ``x2`` come promoted to tensors of one dtype."""
    vector = [d for d in x2.shape.as_list() if d is None or d > 1]
    dims = x1.shape.as_list() if x1.shape.rank is not None else None
    if len(vector) == 1 and vector[0] is not None and dims is not None and len(dims) > 1 \
            and vector[0] in {dims[1], dims[-1]}:
        data_format = "NHWC" if dims[-1] == vector[0] else "NCHW"
        return tf.nn.bias_add(x1, tf.squeeze(x2) if x2.shape.rank > 1 else x2, data_format=data_format)
    return tf.math.add(x1, x2)


add = _arithmetic("add", _add, "``x1 + x2``")
subtract = _arithmetic("subtract", tf.math.subtract, "``x1 - x2``")
multiply = _arithmetic("multiply", tf.math.multiply, "``x1 * x2``")
maximum = _arithmetic("maximum", tf.math.maximum, "The larger of ``x1`` and ``x2``")
minimum = _arithmetic("minimum", tf.math.minimum, "The smaller of ``x1`` and ``x2``")
floor_divide = _arithmetic("floor_divide", tf.math.floordiv, "``x1 // x2``")
divide = _arithmetic("divide", tf.math.divide, "``x1 / x2`` (always a float)", extra=(float,))
true_divide = _arithmetic("true_divide", tf.math.divide, "``x1 / x2`` (always a float)", extra=(float,))
divide_no_nan = _arithmetic("divide_no_nan", tf.math.divide_no_nan, "``x1 / x2``, 0 where ``x2`` is 0",
                            extra=(float,))


@keras_op
def power(x1, x2):
    """``x1 ** x2``, elementwise (unsigned results computed in int32)."""
    x1, x2 = operand(x1), operand(x2)
    dtype = result_type(*(type(x) if isinstance(x, (int, float)) else x.dtype.name for x in (x1, x2)))
    if "uint" in dtype:
        return tf.cast(tf.math.pow(convert_to_tensor(x1, "int32"), convert_to_tensor(x2, "int32")), dtype)
    return tf.math.pow(convert_to_tensor(x1, dtype), convert_to_tensor(x2, dtype))


# -- other binary functions -------------------------------------------------------------------------------------------
def _binary(name, tf_function, summary):
    """A keras op applying ``tf_function`` to its operands converted to tensors, then promoted."""

    def function(x1, x2):
        return tf_function(*promoted_tensors(x1, x2))

    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"{summary}, elementwise with broadcasting."
    return keras_op(function)


equal = _binary("equal", tf.math.equal, "``x1 == x2``")
not_equal = _binary("not_equal", tf.math.not_equal, "``x1 != x2``")
greater = _binary("greater", tf.math.greater, "``x1 > x2``")
greater_equal = _binary("greater_equal", tf.math.greater_equal, "``x1 >= x2``")
less = _binary("less", tf.math.less, "``x1 < x2``")
less_equal = _binary("less_equal", tf.math.less_equal, "``x1 <= x2``")


@keras_op
def mod(x1, x2):
    """``x1 % x2`` with the sign of ``x2`` (bools as int32)."""
    x1, x2 = promoted_tensors(x1, x2)
    if x1.dtype.name == "bool":
        x1, x2 = tf.cast(x1, "int32"), tf.cast(x2, "int32")
    return tf.math.floormod(x1, x2)


@keras_op
def fmod(x1, x2):
    """Remainder of ``x1 / x2`` with the sign of ``x1`` (C's fmod)."""
    x1, x2 = promoted_tensors(x1, x2)
    dtype = "int32" if x1.dtype.name == "bool" else x1.dtype.name
    compute = "int32" if dtype in ("uint8", "uint16", "uint32") else dtype
    x1, x2 = tf.cast(x1, compute), tf.cast(x2, compute)
    return tf.cast(tf.math.sign(x1) * tf.math.floormod(tf.math.abs(x1), tf.math.abs(x2)), dtype)


@keras_op
def arctan2(x1, x2):
    """The angle of the point ``(x2, x1)``, elementwise."""
    x1, x2 = promoted_tensors(x1, x2, extra=(float,))
    return tf.math.atan2(x1, x2)


@keras_op
def logaddexp(x1, x2):
    """``log(exp(x1) + exp(x2))``, computed stably."""
    x1, x2 = promoted_tensors(x1, x2, extra=(float,))
    delta = x1 - x2
    return tf.where(tf.math.is_nan(delta), x1 + x2,
                    tf.math.maximum(x1, x2) + tf.math.log1p(tf.math.exp(-tf.math.abs(delta))))


@keras_op
def hypot(x1, x2):
    """``sqrt(x1**2 + x2**2)``, computed without overflow."""
    x1, x2 = promoted_tensors(x1, x2)
    dtype = _angle_float(x1, bool_to_float=False)
    x1, x2 = tf.math.abs(tf.cast(x1, dtype)), tf.math.abs(tf.cast(x2, dtype))
    largest = tf.math.maximum(x1, x2)
    ratio = tf.math.divide_no_nan(tf.math.minimum(x1, x2), largest)
    return largest * tf.math.sqrt(1.0 + tf.math.square(ratio))


@keras_op
def heaviside(x1, x2):
    """0 where ``x1 < 0``, 1 where ``x1 > 0``, ``x2`` where ``x1 == 0``."""
    x1, x2 = promoted_tensors(x1, x2)
    dtype = _angle_float(x1, bool_to_float=False)
    x1, x2 = tf.cast(x1, dtype), tf.cast(x2, dtype)
    return tf.where(x1 < 0, tf.zeros_like(x1), tf.where(x1 > 0, tf.ones_like(x1), x2))


@keras_op
def isclose(x1, x2, rtol=1e-05, atol=1e-08, equal_nan=False):
    """``|x1 - x2| <= atol + rtol * |x2|`` for floats (NaNs equal if ``equal_nan``), ``==`` otherwise."""
    x1, x2 = promoted_tensors(x1, x2)
    if "float" not in x1.dtype.name:
        return tf.math.equal(x1, x2)
    close = tf.math.abs(x1 - x2) <= atol + rtol * tf.math.abs(x2)
    if equal_nan:
        close = close | (tf.math.is_nan(x1) & tf.math.is_nan(x2))
    return close


@keras_op
def allclose(x1, x2, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Whether ``isclose`` holds everywhere (a bool tensor)."""
    return tf.reduce_all(isclose.eager(x1, x2, rtol=rtol, atol=atol, equal_nan=equal_nan))


# -- logic ------------------------------------------------------------------------------------------------------------
@keras_op
def logical_and(x1, x2):
    """``x1 and x2`` of the truth values, elementwise."""
    return tf.math.logical_and(tf.cast(x1, "bool"), tf.cast(x2, "bool"))


@keras_op
def logical_or(x1, x2):
    """``x1 or x2`` of the truth values, elementwise."""
    return tf.math.logical_or(tf.cast(x1, "bool"), tf.cast(x2, "bool"))


@keras_op
def logical_xor(x1, x2):
    """``x1 != x2`` of the truth values, elementwise."""
    return tf.math.logical_xor(tf.cast(x1, "bool"), tf.cast(x2, "bool"))


@keras_op
def logical_not(x):
    """``not x`` of the truth values, elementwise."""
    return tf.math.logical_not(tf.cast(x, "bool"))


def _float_test(name, tf_test, integer_answer, summary):
    """A keras op testing float elements with ``tf_test`` (integers: all ``integer_answer``)."""

    def function(x):
        x = convert_to_tensor(x)
        if not x.dtype.is_floating and not x.dtype.is_complex:
            return (tf.ones if integer_answer else tf.zeros)(tf.shape(x), "bool")
        return tf_test(x)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"Whether each element {summary}."
    return keras_op(function)


isnan = _float_test("isnan", tf.math.is_nan, False, "is NaN")
isinf = _float_test("isinf", tf.math.is_inf, False, "is infinite")
isfinite = _float_test("isfinite", tf.math.is_finite, True, "is finite")
isposinf = _float_test("isposinf", lambda x: tf.math.is_inf(x) & (x > 0), False, "is +inf")
isneginf = _float_test("isneginf", lambda x: tf.math.is_inf(x) & (x < 0), False, "is -inf")


@keras_op
def nan_to_num(x, nan=0.0, posinf=None, neginf=None):
    """``x`` with NaNs replaced by ``nan`` and infinities by ``posinf``/``neginf`` (default: the dtype's
    largest and smallest finite values)."""
    x = convert_to_tensor(x)
    dtype = x.dtype
    if not dtype.is_floating:
        return x
    x = tf.where(tf.math.is_nan(x), tf.constant(nan, dtype), x)
    x = tf.where(tf.math.is_inf(x) & (x > 0), tf.constant(dtype.max if posinf is None else posinf, dtype), x)
    return tf.where(tf.math.is_inf(x) & (x < 0), tf.constant(dtype.min if neginf is None else neginf, dtype), x)


@keras_op
def clip(x, x_min, x_max):
    """``x`` limited to ``[x_min, x_max]`` (bools as int32)."""
    x = convert_to_tensor(x)
    if x.dtype.name == "bool":
        x = tf.cast(x, "int32")
    return tf.clip_by_value(x, x_min, x_max)


@keras_op
def signbit(x):
    """Whether each element has its sign bit set (``-0.0`` included)."""
    x = convert_to_tensor(x)
    dtype = x.dtype.name
    if dtype == "bool":
        return tf.fill(tf.shape(x), False)
    if "int" in dtype:
        return x < 0
    return tf.math.less(tf.bitwise.bitwise_and(tf.bitcast(tf.cast(x, "float32"), "int32"),
                                               tf.constant(-2 ** 31, "int32")), 0)
