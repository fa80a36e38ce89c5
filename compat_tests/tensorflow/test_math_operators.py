"""tf.Tensor's Python operators against real TF: results and dtypes, how each operator converts the other
operand (forward and reflected), the errors bad operands raise, ``==``/``!=`` semantics, and gradients."""

import operator

import numpy as np
import pytest

from compat_tests.tensorflow.harness import arrays, check, check_grad

OPERATORS = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
             "//": operator.floordiv, "%": operator.mod, "**": operator.pow, "&": operator.and_,
             "|": operator.or_, "^": operator.xor, "<": operator.lt, "<=": operator.le, ">": operator.gt,
             ">=": operator.ge, "==": operator.eq, "!=": operator.ne, "@": operator.matmul}
LEFT = {"int32": lambda tf: tf.constant([1, 2]), "float32": lambda tf: tf.constant([1.0, 2.0]),
        "bool": lambda tf: tf.constant([True, False]), "int8": lambda tf: tf.constant([3, 4], tf.int8),
        "float64": lambda tf: tf.constant([1.5, -2.0], tf.float64)}
OTHERS = {"1.5": lambda tf: 1.5, "2": lambda tf: 2, "True": lambda tf: True, "'a'": lambda tf: "a",
          "None": lambda tf: None, "[1, 2]": lambda tf: [1, 2], "[1.0, 2.0]": lambda tf: [1.0, 2.0],
          "f64 array": lambda tf: np.array([1.0, 2.0]), "i64 array": lambda tf: np.array([1, 2]),
          "f32 scalar": lambda tf: np.float32(2), "int64 tensor": lambda tf: tf.constant([1, 2], tf.int64),
          "object": lambda tf: _OBJECT, "[1, 2, 3]": lambda tf: [1, 2, 3], "2 ** 40": lambda tf: 2 ** 40,
          "-1": lambda tf: -1, "0": lambda tf: 0}
_OBJECT = object()


@pytest.mark.parametrize("other", OTHERS)
@pytest.mark.parametrize("left", LEFT)
@pytest.mark.parametrize("symbol", OPERATORS)
def test_operator_conversions(symbol, left, other):
    fn = OPERATORS[symbol]
    check(lambda tf: fn(LEFT[left](tf), OTHERS[other](tf)))
    check(lambda tf: fn(OTHERS[other](tf), LEFT[left](tf)))


@pytest.mark.parametrize("symbol", OPERATORS)
@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64", "int8", "int16", "int32", "int64",
                                   "uint8", "uint16", "uint32", "uint64", "bool"])
def test_operator_dtypes(symbol, dtype):
    def case(tf):
        x = tf.cast(tf.constant([[3, 1], [2, 5]]), dtype)
        y = tf.cast(tf.constant([[1, 2], [1, 3]]), dtype)
        return OPERATORS[symbol](x, y)
    check(case)


@pytest.mark.parametrize("dtype", ["float32", "int32", "int64", "bool", "uint8", "float16"])
def test_unary_operators(dtype):
    def case(tf, which):
        x = tf.cast(tf.constant([-2, 0, 3]), dtype)
        return [lambda: -x, lambda: abs(x), lambda: ~x, lambda: +x if False else x][which]()
    for which in range(3):
        check(case, which)


def test_equality_semantics():
    check(lambda tf: tf.constant([1, 2]) == None)  # noqa: E711  (TF's tensor == None is False)
    check(lambda tf: tf.constant([1, 2]) != None)  # noqa: E711
    check(lambda tf: tf.constant([[1, 2]]) == tf.constant([1, 2, 3]))
    check(lambda tf: tf.constant([[1, 2]]) != tf.constant([1, 2, 3]))
    check(lambda tf: tf.constant([[1], [2]]) == tf.constant([1, 2, 3]))
    check(lambda tf: tf.constant(["a", "b"]) == "a")
    check(lambda tf: tf.constant(["a", "b"]) != tf.constant(["a", "c"]))
    check(lambda tf: np.array([1.0, 2.0]) == tf.constant([1.0, 2.0]))
    check(lambda tf: np.array([1.0, 2.0]) < tf.constant([1.5, 2.0]))


def test_legacy_methods():
    check(lambda tf: [tf.constant([5, 7]).__div__(2), tf.constant([5, 7]).__rdiv__(20),
                      tf.constant([5.0, 7.0]).__div__(2.0), tf.constant(1).__nonzero__()])


def test_unsupported_protocols():
    check(lambda tf: divmod(tf.constant([5]), 2))
    check(lambda tf: pow(tf.constant([5]), 2, 3))


def test_operator_results_and_broadcasting():
    a, b = arrays((2, 3), (3,), low=0.5, high=3.0)
    for fn in OPERATORS.values():
        if fn not in (operator.and_, operator.or_, operator.xor, operator.matmul):
            check(lambda tf, a, b, fn=fn: fn(a, b), a, b)
            check(lambda tf, a, b, fn=fn: fn(b, a), a, b)
    check(lambda tf, a, m: a @ m, a, arrays((3, 2), seed=1))
    check(lambda tf, a, b: a + arrays((4,)), a, b)


@pytest.mark.parametrize("symbol", ["+", "-", "*", "/", "**", "%", "//"])
def test_operator_gradients(symbol):
    a, b = arrays((2, 3), (3,), low=0.5, high=3.0)
    fn = OPERATORS[symbol]
    check_grad(lambda tf, a, b: fn(a, b), a, b)
    check_grad(lambda tf, a: fn(a, 2.0), a)
    check_grad(lambda tf, a: fn(2.0, a), a)


def test_matmul_operator_gradients():
    check_grad(lambda tf, a, b: a @ b, *arrays((2, 3), (3, 4)))
    check_grad(lambda tf, a: -abs(a) @ [[1.0], [2.0], [3.0]], arrays((2, 3)))
