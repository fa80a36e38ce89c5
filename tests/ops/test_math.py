import math

import ml_dtypes
import numpy as np
import pytest

from tests.ops.oracle import assert_same, check_op, rand
from vfw.core import run
from vfw.core.errors import DTypeError, OpAttributeError
from vfw.core.ops._special import erf, erfc
from vfw.core.registry import TensorInfo, get_schema, make_op

FLOATS = [np.float16, np.float32, np.float64]
# The reference evaluator's numpy warns on IEEE inf/nan results; they are expected here.
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")
SPECIAL = np.array([0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, 1e-30, -1e30, np.inf, -np.inf, np.nan])


# -- erf / erfc (vfw.core.ops._special) -----------------------------------------------------

def _erf_grid():
    return np.concatenate([
        np.linspace(-7.0, 7.0, 28001),
        np.linspace(-30.0, 30.0, 601),
        np.geomspace(1e-300, 1.0, 400), -np.geomspace(1e-300, 1.0, 400),
        [0.46875, -0.46875, np.nextafter(0.46875, 1), 4.0, np.nextafter(4.0, 5), 5.9, 6.0, 26.5, 27.0, 1e10, 1e300],
    ])


def test_erf_matches_math_erf_float64():
    x = _erf_grid()
    ref = np.array([math.erf(t) for t in x])
    got = erf(x)
    assert got.dtype == np.float64 and got.shape == x.shape
    rel = np.abs(got - ref) / np.maximum(np.abs(ref), np.finfo(np.float64).tiny)
    assert rel.max() < 2e-15, (rel.max(), x[rel.argmax()])


def test_erf_small_arrays_take_the_same_values():
    # Small arrays evaluate the rational functions by powers and a matrix product, large ones by Horner.
    x = _erf_grid()
    chunks = np.concatenate([erf(x[i:i + 300]) for i in range(0, len(x), 300)])
    np.testing.assert_allclose(chunks, erf(x), rtol=1e-15, atol=0)
    chunks = np.concatenate([erfc(x[i:i + 300]) for i in range(0, len(x), 300)])
    np.testing.assert_allclose(chunks, erfc(x), rtol=2e-15, atol=0)


def test_erfc_matches_math_erfc_float64():
    x = _erf_grid()
    ref = np.array([math.erfc(t) for t in x])
    got = erfc(x)
    normal = ref > 1e-300  # below that math.erfc and we both lose bits in subnormals
    rel = np.abs(got - ref)[normal] / ref[normal]
    assert rel.max() < 2e-15, (rel.max(), x[normal][rel.argmax()])
    np.testing.assert_array_equal(got[x >= 27.3], 0.0)


def test_erf_special_values():
    x = np.array([0.0, -0.0, np.inf, -np.inf, np.nan])
    got = erf(x)
    np.testing.assert_array_equal(got, [0.0, -0.0, 1.0, -1.0, np.nan])
    assert np.signbit(got[1]) and not np.signbit(got[0])
    np.testing.assert_array_equal(erfc(x), [1.0, 1.0, 0.0, 2.0, np.nan])


@pytest.mark.parametrize("dtype", [np.float16, ml_dtypes.bfloat16])
def test_erf_half_dtypes_round_the_exact_value(dtype):
    x = _erf_grid().astype(dtype)
    got = erf(x)
    assert got.dtype == np.dtype(dtype) and got.shape == x.shape
    expected = np.array([math.erf(float(t)) for t in x.astype(np.float64)]).astype(dtype)
    np.testing.assert_array_equal(got.astype(np.float64), expected.astype(np.float64))


def _ulp_errors(got, exact, dtype):
    """|got - exact| in units of the last place of ``dtype`` at ``exact`` (the lower binade's unit
    where ``exact`` lies just below a power of two)."""
    nearest = np.abs(exact).astype(dtype)
    below = np.nextafter(nearest, np.zeros((), dtype))
    unit = np.where(nearest.astype(np.float64) > np.abs(exact), np.spacing(below), np.spacing(nearest))
    return np.abs(got.astype(np.float64) - exact) / unit.astype(np.float64)


def _float32_grid(step):
    """Every ``step``-th float32 from the smallest subnormal to 11 (past which erfc is 0), both signs."""
    positive = np.arange(1, np.float32(11.0).view(np.uint32), step, dtype=np.uint32).view(np.float32)
    return np.concatenate([positive, -positive, _erf_grid().astype(np.float32)])


@pytest.mark.parametrize(("fn", "exact_fn"), [(erf, math.erf), (erfc, math.erfc)], ids=["erf", "erfc"])
def test_float32_results_within_one_ulp_of_math(fn, exact_fn):
    # float32 inputs take the float32-precision approximation; its results are faithfully rounded.
    x = _float32_grid(4099)
    got = fn(x)
    assert got.dtype == np.float32 and got.shape == x.shape
    exact = np.frompyfunc(exact_fn, 1, 1)(x.astype(np.float64)).astype(np.float64)
    errors = _ulp_errors(got, exact, np.float32)
    assert errors.max() < 1.0, (errors.max(), x[errors.argmax()])


@pytest.mark.parametrize("dtype", [np.float16, ml_dtypes.bfloat16])
@pytest.mark.parametrize(("fn", "exact_fn"), [(erf, math.erf), (erfc, math.erfc)], ids=["erf", "erfc"])
def test_every_half_value_within_one_ulp_of_math(fn, exact_fn, dtype):
    x = np.arange(1 << 16, dtype=np.uint16).view(dtype)
    got = fn(x)
    exact = np.frompyfunc(exact_fn, 1, 1)(x.astype(np.float64)).astype(np.float64)
    finite = np.isfinite(exact)
    errors = _ulp_errors(got[finite], exact[finite], dtype)
    assert errors.max() < 1.0, (errors.max(), x[finite][errors.argmax()])
    np.testing.assert_array_equal(np.isnan(got.astype(np.float64)), ~finite)


def test_float32_special_values():
    x = np.array([0.0, -0.0, 1e-45, -1e-45, 3e38, -3e38, np.inf, -np.inf, np.nan], np.float32)
    np.testing.assert_array_equal(erf(x), np.array([0.0, -0.0, 1e-45, -1e-45, 1, -1, 1, -1, np.nan], np.float32))
    assert np.signbit(erf(x)[1])
    np.testing.assert_array_equal(erfc(x), np.array([1, 1, 1, 1, 0, 2, 0, 2, np.nan], np.float32))


def test_erf_shapes_and_scalars():
    assert erf(np.zeros((0, 3))).shape == (0, 3)
    out = erf(np.array(0.5))
    assert isinstance(out, np.ndarray) and out.shape == () and out == math.erf(0.5)
    x = rand((2, 3, 4), np.float64, -5, 5)
    np.testing.assert_allclose(erf(x), np.vectorize(math.erf)(x), rtol=2e-15, atol=0)


# -- the ops ---------------------------------------------------------------------------------

UNARY = ["Exp", "Log", "Sqrt", "Sin", "Cos", "Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh", "Tanh",
         "Asinh", "Acosh", "Atanh", "Erf"]
SHAPES = [(3, 4), (2, 3, 4), (), (0, 5), (7,)]


@pytest.mark.parametrize("op", UNARY)
@pytest.mark.parametrize("dtype", FLOATS)
def test_unary_matches_onnx(op, dtype):
    # Acosh's domain is [1, inf): shift the draw there for most values.
    low, high = (0.5, 4) if op == "Acosh" else (-3, 3)
    for i, shape in enumerate(SHAPES):
        x = rand(shape, dtype, low, high, seed=i)
        rtol = 1e-3 if dtype == np.float16 else 1e-5
        check_op(op, [x], rtol=rtol, atol=1e-3 if dtype == np.float16 else 1e-6)


@pytest.mark.parametrize("op", UNARY)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_unary_special_values(op, dtype):
    check_op(op, [SPECIAL.astype(dtype)])


@pytest.mark.parametrize("op", ["Exp", "Sqrt", "Tanh", "Erf", "Sin"])
def test_unary_bfloat16(op):
    x = rand((4, 5), np.float32, seed=3).astype(ml_dtypes.bfloat16)
    got = run(op, x)
    assert got.dtype == ml_dtypes.bfloat16
    # Expected: the float64 result rounded to bfloat16 (numpy/ml_dtypes compute in float32).
    ref = run(op, x.astype(np.float64)).astype(ml_dtypes.bfloat16)
    np.testing.assert_allclose(got.astype(np.float64), ref.astype(np.float64), rtol=8e-3)


def test_erf_op_float16_exact_rounding():
    x = np.linspace(-4, 4, 513).astype(np.float16)
    expected = np.array([math.erf(float(t)) for t in x]).astype(np.float16)
    assert_same(run("Erf", x), expected, rtol=0, atol=0)


@pytest.mark.parametrize("op", ["Exp", "Erf", "Sqrt"])
def test_unary_out_argument(op):
    x = rand((3, 4), np.float32, 0, 2)
    out = np.empty_like(x)
    got = make_op(op)(x, out=out)
    assert got is out
    assert_same(out, run(op, x))


@pytest.mark.parametrize("dtype", FLOATS)
def test_isnan_matches_onnx(dtype):
    check_op("IsNaN", [SPECIAL.astype(dtype)])
    check_op("IsNaN", [rand((2, 0, 3), dtype)])


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("neg", [0, 1])
@pytest.mark.parametrize("pos", [0, 1])
def test_isinf_matches_onnx(dtype, neg, pos):
    x = np.tile(SPECIAL.astype(dtype), (2, 1))
    check_op("IsInf", [x], {"detect_negative": neg, "detect_positive": pos})


def test_isnan_isinf_bfloat16():
    x = SPECIAL.astype(ml_dtypes.bfloat16)
    assert_same(run("IsNaN", x), np.isnan(SPECIAL))
    assert_same(run("IsInf", x, detect_positive=0), SPECIAL == -np.inf)


def test_bad_inputs_raise():
    with pytest.raises(DTypeError, match="Exp"):
        run("Exp", np.arange(3, dtype=np.int32))
    with pytest.raises(DTypeError, match="Erf"):
        run("Erf", np.arange(3, dtype=np.int64))
    with pytest.raises(DTypeError, match="IsNaN"):
        run("IsNaN", np.arange(3))
    with pytest.raises(OpAttributeError, match="IsInf"):
        run("IsInf", np.zeros(3), detect_negative=2)


@pytest.mark.parametrize("op,attrs,dtype,out_dtype", [
    ("Exp", {}, np.float32, np.float32), ("Erf", {}, np.float16, np.float16),
    ("IsNaN", {}, np.float64, np.bool_), ("IsInf", {"detect_negative": 0}, np.float32, np.bool_),
])
def test_infer_matches_kernel(op, attrs, dtype, out_dtype):
    schema = get_schema(op)
    x = rand((2, 3), dtype)
    real = run(op, x, **attrs)
    (info,) = schema.infer(schema.bind_attrs(attrs), [TensorInfo(x.shape, x.dtype)])
    assert info == TensorInfo(real.shape, real.dtype) == TensorInfo((2, 3), out_dtype)
    (info,) = schema.infer(schema.bind_attrs(attrs), [TensorInfo((None, 3), x.dtype)])
    assert info == TensorInfo((None, 3), out_dtype)
