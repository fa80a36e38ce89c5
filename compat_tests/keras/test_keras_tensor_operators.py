"""KerasTensor operators (``a + b``, ``a < b``, ``~a``...) promote dtypes as keras.ops does, against Keras 3.15.1.

The symbolic result dtype/shape of every operator over pairs of input dtypes must be Keras'; the
functional model built from it must compute Keras' values and dtype.
"""

import itertools
import operator

import numpy as np
import pytest

from compat_tests.keras.core_harness import same

DTYPES = ["bool", "int8", "uint8", "int32", "int64", "float16", "bfloat16", "float32", "float64"]

BINARY = {
    "add": operator.add, "sub": operator.sub, "mul": operator.mul, "truediv": operator.truediv,
    "floordiv": operator.floordiv, "mod": operator.mod, "pow": operator.pow, "lt": operator.lt,
    "le": operator.le, "gt": operator.gt, "ge": operator.ge, "ne": operator.ne, "and": operator.and_,
    "or": operator.or_, "xor": operator.xor, "matmul": operator.matmul,
}
WITH_SCALARS = {
    "radd_int": lambda a: 2 + a, "rsub_float": lambda a: 2.5 - a, "mul_float": lambda a: a * 1.5,
    "rtruediv_int": lambda a: 3 / a, "pow_int": lambda a: a ** 2, "neg": operator.neg, "abs": abs,
    "invert": operator.invert, "round": round,
}


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_operator_specs(name):
    def fn(lib):
        specs = []
        for d1, d2 in itertools.product(DTYPES, DTYPES):
            out = BINARY[name](lib.keras.Input((3, 3), dtype=d1), lib.keras.Input((1, 3), dtype=d2))
            specs.append((d1, d2, out.dtype, tuple(out.shape)))
        return specs

    same(fn)


@pytest.mark.parametrize("name", sorted(WITH_SCALARS))
def test_unary_and_scalar_operator_specs(name):
    def fn(lib):
        specs = []
        for dtype in DTYPES:
            try:
                out = WITH_SCALARS[name](lib.keras.Input((2,), dtype=dtype))
                specs.append((dtype, out.dtype, tuple(out.shape)))
            except Exception as e:  # both must refuse the same operands the same way
                specs.append((dtype, type(e).__name__))
        return specs

    same(fn)


def test_broadcast_failure_is_value_error():
    def fn(lib):
        return lib.keras.Input((3,)) + lib.keras.Input((4,))

    ours = same(fn)
    assert ours[1] == "ValueError"


MIXED = [("float32", "float64"), ("int32", "float32"), ("int8", "uint8"), ("float16", "int64"),
         ("bool", "float32"), ("int32", "int64")]


@pytest.mark.parametrize("d1,d2", MIXED)
def test_mixed_dtype_functional_model_runs(d1, d2):
    rng = np.random.default_rng(1)
    x1 = (rng.uniform(1, 5, size=(4, 3))).astype(d1)
    x2 = (rng.uniform(1, 5, size=(4, 3))).astype(d2)

    def fn(lib):
        a, b = lib.keras.Input((3,), dtype=d1), lib.keras.Input((3,), dtype=d2)
        outputs = [a + b, a - b, a * b, a / b, b ** 2, -(a + b), a < b, a != b]
        model = lib.keras.Model([a, b], outputs)
        return [o.dtype for o in outputs], model([x1, x2])

    same(fn)


def test_integer_floordiv_and_mod_model():
    x1 = np.array([[7, -7, 9], [4, 5, -6]], dtype="int8")
    x2 = np.array([[2, 3, -4], [3, 3, 4]], dtype="int8")

    def fn(lib):
        a, b = lib.keras.Input((3,), dtype="int8"), lib.keras.Input((3,), dtype="int8")
        model = lib.keras.Model([a, b], [a // b, a % b, 7 // b, a % 4])
        return model([x1, x2])

    same(fn)


def test_model_operator_config_roundtrip_with_promotion():
    x1 = np.arange(6, dtype="float32").reshape(2, 3)
    x2 = np.arange(6, dtype="float64").reshape(2, 3)

    def fn(lib):
        a, b = lib.keras.Input((3,), dtype="float32"), lib.keras.Input((3,), dtype="float64")
        model = lib.keras.Model([a, b], a * b + 1)
        rebuilt = lib.keras.Model.from_config(model.get_config())
        return model([x1, x2]), rebuilt([x1, x2])

    same(fn)
