"""tf.math elementwise functions (unary and binary) against real TF: dtype support and errors, values at
special points, Python-value conversion, broadcasting, and GradientTape gradients (TF's conventions at kinks)."""

import numpy as np
import pytest

from compat_tests.tensorflow.harness import arrays, check, check_grad

DTYPES = ["float16", "bfloat16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "uint16",
          "uint32", "uint64", "bool"]
SPECIAL = np.array([0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.0, np.inf, -np.inf, np.nan], np.float32)

UNARY = ["abs", "acos", "acosh", "asin", "asinh", "atan", "atanh", "ceil", "cos", "cosh", "digamma", "erf", "erfc",
         "erfinv", "exp", "expm1", "floor", "is_finite", "is_inf", "is_nan", "lgamma", "log", "log1p", "log_sigmoid",
         "negative", "reciprocal", "reciprocal_no_nan", "rint", "round", "rsqrt", "sigmoid", "sign", "sin", "sinh",
         "softplus", "softsign", "sqrt", "square", "tan", "tanh", "ndtri", "erfcinv", "logical_not", "real", "imag",
         "conj", "angle"]
BINARY = ["add", "subtract", "multiply", "divide", "truediv", "floordiv", "floormod", "mod", "pow", "maximum",
          "minimum", "squared_difference", "divide_no_nan", "multiply_no_nan", "xlogy", "xdivy", "xlog1py", "atan2",
          "equal", "not_equal", "less", "less_equal", "greater", "greater_equal", "logical_and", "logical_or",
          "logical_xor"]
TOP_LEVEL = ["truncatediv", "truncatemod", "realdiv"]
BITWISE = ["bitwise_and", "bitwise_or", "bitwise_xor", "left_shift", "right_shift"]


def _typed(dtype, values=(1, 0, 2, 1)):
    return np.array(values).astype(dtype) if dtype != "bool" else np.array(values).astype(bool)


def _cast_const(tf, values, dtype):
    return tf.cast(tf.constant(values), dtype) if dtype == "bfloat16" else tf.constant(values, dtype)


def _binary_fn(tf, name):
    """The binary function ``name`` of library ``tf`` (tf.math, tf.bitwise or the top level)."""
    if name in BITWISE:
        return getattr(tf.bitwise, name)
    if name in TOP_LEVEL:
        return getattr(tf, name)
    return getattr(tf.math, name)


# -- dtype support -------------------------------------------------------------------------------
@pytest.mark.parametrize("name", UNARY)
@pytest.mark.parametrize("dtype", DTYPES)
def test_unary_dtypes(name, dtype):
    check(lambda tf: getattr(tf.math, name)(_cast_const(tf, [1.0, 0.0, 2.0, 0.5] if dtype in ("float16", "bfloat16",
                                                                                              "float32", "float64")
                                                         else [1, 0, 2, 1], dtype)))


@pytest.mark.parametrize("name", BINARY + TOP_LEVEL + BITWISE)
@pytest.mark.parametrize("dtype", DTYPES)
def test_binary_dtypes(name, dtype):
    values = [1, 2, 1, 3] if dtype != "bool" else [True, False, True, True]
    check(lambda tf: _binary_fn(tf, name)(_cast_const(tf, values, dtype), _cast_const(tf, [1, 1, 2, 3], dtype)
                                      if dtype != "bool" else tf.constant([True, True, False, True])))


@pytest.mark.parametrize("name", ["invert"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_invert_dtypes(name, dtype):
    check(lambda tf: tf.bitwise.invert(_cast_const(tf, [1, 0, 200, 7] if dtype != "bool" else [True, False], dtype)))


# -- values --------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", [n for n in UNARY if n != "logical_not"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_unary_special_values(name, dtype):
    check(lambda tf, x: getattr(tf.math, name)(x), SPECIAL.astype(dtype), rtol=2e-5)


@pytest.mark.parametrize("name", [n for n in UNARY if n not in ("logical_not", "is_nan", "is_inf", "is_finite")])
def test_unary_random_values_and_gradients(name):
    low, high = {"acosh": (1.0, 3.0), "erfinv": (-0.99, 0.99), "ndtri": (0.01, 0.99), "erfcinv": (0.01, 1.99),
                 "atanh": (-0.99, 0.99), "asin": (-0.99, 0.99), "acos": (-0.99, 0.99), "log": (0.1, 3.0),
                 "sqrt": (0.1, 3.0), "rsqrt": (0.1, 3.0), "lgamma": (0.2, 3.0), "digamma": (0.2, 3.0),
                 "log1p": (-0.9, 3.0)}.get(name, (-2.0, 2.0))
    x = arrays((3, 4), dtype="float64", low=low, high=high, seed=1)
    check_grad(lambda tf, x: getattr(tf.math, name)(x), x)
    check_grad(lambda tf, x: getattr(tf.math, name)(x), x.astype(np.float32), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name", ["abs", "sqrt", "rsqrt", "reciprocal", "log", "sign", "floor", "round", "rint",
                                  "digamma", "lgamma", "softplus", "log_sigmoid", "square", "reciprocal_no_nan"])
def test_unary_gradients_at_special_points(name):
    check_grad(lambda tf, x: getattr(tf.math, name)(x), np.array([0.0, 1.5, -2.5, 2.0, -0.0], np.float32))


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "int32", "int64", "uint8", "int8"])
def test_round_and_sign(dtype):
    values = np.array([0.5, 1.5, 2.5, -0.5, -1.5, 2.4, -3.6]) if "float" in dtype else np.array([3, 0, 7, 1])
    check(lambda tf, x: [tf.math.round(x), tf.round(x)], values.astype(dtype))
    if dtype not in ("uint8",):
        check(lambda tf, x: tf.math.sign(x), values.astype(dtype))


def test_unary_python_values():
    check(lambda tf: [tf.math.sqrt(2.0), tf.math.abs(-3), tf.math.square([1, 2]), tf.math.exp([[0.0, 1.0]])])
    for value in (2, [1, 2], None, "a", True):
        check(lambda tf, value=value: tf.math.sqrt(value))
        check(lambda tf, value=value: tf.math.abs(value))
    check(lambda tf: tf.math.logical_not(1))
    check(lambda tf: tf.math.logical_not(tf.constant([1])))
    check(lambda tf: tf.math.logical_not([True, False]))


# -- binary values -------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["floordiv", "floormod", "truncatediv", "truncatemod"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64", "int8", "uint8", "uint32"])
def test_division_signs(name, dtype):
    x = np.array([7, -7, 7, -7, 0, 5, -6]).astype(dtype) if dtype[0] != "u" else np.array([7, 9, 0, 5, 6], dtype)
    y = np.array([2, 2, -2, -2, 3, 5, 4]).astype(dtype) if dtype[0] != "u" else np.array([2, 4, 3, 5, 4], dtype)
    check(lambda tf, x, y: _binary_fn(tf, name)(x, y), x, y)


@pytest.mark.parametrize("name", ["floordiv", "floormod", "truncatediv", "truncatemod", "divide", "realdiv",
                                  "divide_no_nan", "xdivy"])
@pytest.mark.parametrize("dtype", ["float32", "int32", "int64", "uint8"])
def test_division_by_zero(name, dtype):
    x = np.array([1, 0, 3]).astype(dtype)
    y = np.array([0, 0, 2]).astype(dtype)
    check(lambda tf, x, y: _binary_fn(tf, name)(x, y), x, y)


@pytest.mark.parametrize("name", ["floordiv", "floormod", "truncatediv", "truncatemod", "divide", "divide_no_nan",
                                  "xdivy", "multiply_no_nan", "xlogy", "xlog1py", "pow", "maximum", "minimum", "atan2",
                                  "squared_difference"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_float_binary_special_values(name, dtype):
    x = np.array([5.0, -5.0, 5.0, -5.0, 0.0, 1.0, 3.0, -3.0, np.inf, np.nan, 1.0, 1e-30, -0.0], dtype)
    y = np.array([3.0, 3.0, -3.0, -3.0, 0.0, 0.0, np.inf, np.inf, 2.0, 1.0, 0.1, 1.0, 0.0], dtype)
    check(lambda tf, x, y: _binary_fn(tf, name)(x, y), x, y)
    check(lambda tf, x, y: _binary_fn(tf, name)(x, y), y, x)


def test_pow_integers():
    check(lambda tf: tf.pow(tf.constant([3, -2, 0, 1]), tf.constant([2, 3, 0, 5])))
    check(lambda tf: tf.pow(tf.constant([3], tf.int8), tf.constant([7], tf.int8)))
    check(lambda tf: tf.pow(tf.constant([3], tf.int16), tf.constant([20], tf.int16)))
    check(lambda tf: tf.pow(tf.constant([3]), tf.constant([40])))
    check(lambda tf: tf.pow(tf.constant([2, 2]), tf.constant([-1, 2])))
    check(lambda tf: tf.pow(tf.constant([2.0, 2.0]), -1))
    check(lambda tf: tf.pow(2, tf.constant([1, 2])))


def test_shifts():
    check(lambda tf: tf.bitwise.left_shift(tf.constant([1, 1, 1, -1, 5]), tf.constant([3, 31, 33, 1, -1])))
    check(lambda tf: tf.bitwise.right_shift(tf.constant([8, -8, 8, -8, 5]), tf.constant([3, 1, 33, 40, -1])))
    check(lambda tf: tf.bitwise.left_shift(tf.constant([1, 200], tf.uint8), tf.constant([3, 9], tf.uint8)))
    check(lambda tf: tf.bitwise.right_shift(tf.constant([8, 200], tf.uint8), tf.constant([3, 9], tf.uint8)))
    check(lambda tf: tf.bitwise.invert(1))


@pytest.mark.parametrize("name", BINARY + TOP_LEVEL)
def test_broadcasting_and_shape_errors(name):
    a, b, c = arrays((2, 1, 3), (4, 1), (2,), low=0.5, high=2.0)
    check(lambda tf, a, b: _binary_fn(tf, name)(a > 1 if "logical" in name else a, b > 1 if "logical" in name else b),
          a, b)
    check(lambda tf, a, c: _binary_fn(tf, name)(a > 1 if "logical" in name else a, c > 1 if "logical" in name else c),
          a, c)


@pytest.mark.parametrize("name", BINARY + TOP_LEVEL + BITWISE)
@pytest.mark.parametrize("operands", [
    (lambda tf: tf.constant([1, 2]), lambda tf: 1.5),
    (lambda tf: 1.5, lambda tf: tf.constant([1, 2])),
    (lambda tf: tf.constant([1.0, 2.0]), lambda tf: 2),
    (lambda tf: 2, lambda tf: tf.constant([1.0, 2.0])),
    (lambda tf: tf.constant([1, 2]), lambda tf: tf.constant([1.0, 2.0])),
    (lambda tf: tf.constant([1, 2]), lambda tf: np.array([1.5, 2.0])),
    (lambda tf: np.array([1.5, 2.0]), lambda tf: tf.constant([1, 2])),
    (lambda tf: 1, lambda tf: 2.5),
    (lambda tf: 2.5, lambda tf: 1),
    (lambda tf: [1, 2], lambda tf: [3, 4]),
    (lambda tf: tf.constant([1, 2]), lambda tf: None),
    (lambda tf: tf.constant([True, False]), lambda tf: True),
    (lambda tf: tf.constant([1, 2]), lambda tf: 2 ** 33),
])
def test_python_operand_conversion(name, operands):
    check(lambda tf: _binary_fn(tf, name)(operands[0](tf), operands[1](tf)))


# -- gradients -----------------------------------------------------------------------------------
GRAD_BINARY = ["add", "subtract", "multiply", "divide", "truediv", "floormod", "pow", "maximum", "minimum",
               "squared_difference", "divide_no_nan", "multiply_no_nan", "xlogy", "xdivy", "xlog1py", "atan2",
               "floordiv", "truncatediv", "realdiv"]


@pytest.mark.parametrize("name", GRAD_BINARY)
def test_binary_gradients_broadcast(name):
    a, b = arrays((2, 3), (3,), low=0.5, high=2.5, seed=3)
    check_grad(lambda tf, a, b: _binary_fn(tf, name)(a, b), a, b)
    check_grad(lambda tf, a, b: _binary_fn(tf, name)(a, b), a.astype(np.float64), b[None].astype(np.float64))


@pytest.mark.parametrize("name", GRAD_BINARY)
def test_binary_gradients_at_special_points(name):
    x = np.array([0.0, 1.5, -2.5, 2.0, 0.0, 1.0, -1.0], np.float32)
    y = np.array([0.0, 2.0, 2.0, 2.0, 2.0, 1.0, -1.0], np.float32)
    check_grad(lambda tf, x, y: _binary_fn(tf, name)(x, y), x, y)


def test_truncatemod_has_no_gradient():
    def case(tf, x, y):
        with tf.GradientTape() as tape:
            tape.watch(x)
            z = tf.truncatemod(x, y)
        return tape.gradient(z, x)  # TF: LookupError (no gradient registered)
    check(case, *arrays((3,), (3,), low=1.0, high=2.0))


def test_gradient_of_integer_inputs_is_none():
    def case(tf):
        x = tf.constant([1.0, 2.0])
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.math.floordiv(x, 2.0) + tf.round(x) + tf.floor(x)
        return tape.gradient(y, x)
    check(case)


@pytest.mark.parametrize("case", [
    lambda tf, i, f: tf.add_n([i]), lambda tf, i, f: tf.add_n([i, [3, 4]]), lambda tf, i, f: tf.add_n([[3, 4], i]),
    lambda tf, i, f: tf.add_n(i), lambda tf, i, f: tf.add_n([1, 2]), lambda tf, i, f: tf.add_n([]),
    lambda tf, i, f: tf.add_n([i, f]), lambda tf, i, f: tf.add_n([i, tf.constant([1])]),
    lambda tf, i, f: tf.add_n([i > 0, i > 0]), lambda tf, i, f: tf.math.accumulate_n([i, i]),
    lambda tf, i, f: tf.math.accumulate_n([i, i], shape=[3]),
    lambda tf, i, f: tf.math.accumulate_n([i, i], tensor_dtype=tf.float32),
])
def test_add_n_and_friends(case):
    check(case, arrays((2,), dtype="int32"), arrays((2,), seed=1))


def test_add_n_gradients():
    check_grad(lambda tf, a, b, c: tf.add_n([a, b, c]), *arrays((2, 3), (2, 3), (2, 3)))


@pytest.mark.parametrize("case", [
    lambda tf, f, i: tf.math.scalar_mul(2, f), lambda tf, f, i: tf.math.scalar_mul(2.5, i),
    lambda tf, f, i: tf.math.scalar_mul(tf.constant(0.5), i), lambda tf, f, i: tf.math.scalar_mul([2.0], f),
    lambda tf, f, i: tf.math.scalar_mul(2, [1.0, 2.0]), lambda tf, f, i: tf.scalar_mul(3, i),
])
def test_scalar_mul(case):
    check(case, arrays((2,)), arrays((2,), dtype="int32"))


def test_scalar_mul_gradients():
    f = arrays((2,))
    check_grad(lambda tf, s, f: tf.math.scalar_mul(s, f), np.array(1.5, np.float32), f)


def test_namespaces():
    from compat_tests.tensorflow.harness import real, vtf

    names = UNARY + BINARY + ["accumulate_n", "add_n", "scalar_mul"]
    for name in names:
        assert hasattr(vtf.math, name), name
    for name in dir(real):
        if name in names + TOP_LEVEL and not name.startswith("_"):
            assert hasattr(vtf, name), name
    for name in BITWISE + ["invert"]:
        assert hasattr(vtf.bitwise, name), name
