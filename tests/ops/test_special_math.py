"""Special math ops (none is in ONNX, so the oracles are numpy, Python's math module and mpmath)."""

import math

import ml_dtypes
import numpy as np
import pytest

from tests.ops.oracle import assert_same, rand
from vfw.core import run
from vfw.core.errors import DTypeError, OpAttributeError, ShapeError
from vfw.core.registry import TensorInfo, get_schema

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")
LOW_PRECISION = [np.float16, ml_dtypes.bfloat16, np.float32]
EULER = 0.57721566490153286061
UFUNCS = {"Log1p": np.log1p, "Expm1": np.expm1, "Log2": np.log2, "Log10": np.log10, "Trunc": np.trunc}
BINARY = {"Atan2": np.arctan2, "Hypot": np.hypot, "Copysign": np.copysign, "FloorDiv": np.floor_divide}


def _grid(low, high, n=801):
    """Points of [low, high] that stay clear of the integers (the poles of the gamma family)."""
    x = np.linspace(low, high, n)
    return x[np.abs(x - np.round(x)) > 1e-6]


# -- numpy-backed ops ---------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.float16, ml_dtypes.bfloat16, np.float32, np.float64])
@pytest.mark.parametrize("op", sorted(UFUNCS))
@pytest.mark.parametrize("shape", [(), (0,), (7,), (2, 3, 4)])
def test_unary_ufunc_ops(op, dtype, shape):
    low = {"Trunc": -5.0, "Expm1": -3.0}.get(op, 0.01)  # the logarithms stay in their domain
    x = rand(shape, np.float64, low, 5.0).astype(dtype)
    assert_same(run(op, x), np.asarray(UFUNCS[op](x)))


def test_log_bases_are_exact_at_powers():
    x = 2.0 ** np.arange(-30, 31)
    for dtype in (np.float32, np.float64):
        np.testing.assert_array_equal(run("Log2", x.astype(dtype)), np.arange(-30, 31))
    np.testing.assert_array_equal(run("Log10", 10.0 ** np.arange(-5, 6)), np.arange(-5, 6))


def test_log1p_expm1_keep_small_arguments():
    x = np.array([1e-20, -1e-12, 3e-8])
    np.testing.assert_allclose(run("Log1p", x), x - x * x / 2, rtol=1e-15)
    np.testing.assert_allclose(run("Expm1", x), x + x * x / 2, rtol=1e-15)


@pytest.mark.parametrize("op", sorted(BINARY))
@pytest.mark.parametrize("shapes", [((3, 4), (3, 4)), ((2, 1, 4), (3, 1)), ((), (5,)), ((0, 2), (1, 2))])
@pytest.mark.parametrize("dtype", [np.float16, ml_dtypes.bfloat16, np.float32, np.float64])
def test_binary_ops_broadcast(op, shapes, dtype):
    a = rand(shapes[0], np.float64, -4, 4, seed=1).astype(dtype)
    b = rand(shapes[1], np.float64, -4, 4, seed=2).astype(dtype)
    assert_same(run(op, a, b), np.asarray(BINARY[op](a, b)))


def test_copysign_reads_the_sign_bit():
    a = np.array([1.0, 2.0, -3.0, 4.0, 0.0])
    b = np.array([-0.0, 0.0, np.inf, -np.nan, -1.0])
    out = run("Copysign", a, b)
    np.testing.assert_array_equal(out, [-1.0, 2.0, 3.0, -4.0, -0.0])
    assert np.signbit(out[4])


def test_atan2_quadrants_and_signed_zeros():
    a = np.array([0.0, -0.0, 1.0, -1.0, 0.0, -0.0])
    b = np.array([1.0, 1.0, 0.0, 0.0, -1.0, -1.0])
    np.testing.assert_array_equal(run("Atan2", a, b), [0.0, -0.0, math.pi / 2, -math.pi / 2, math.pi, -math.pi])


def test_hypot_does_not_overflow():
    np.testing.assert_allclose(run("Hypot", np.array([3e200]), np.array([4e200])), [5e200], rtol=1e-15)


def test_floor_div_is_python_floor_division():
    a = np.array([1.0, -1.0, 7.5, -7.5, 5.0, -5.0, 0.3, np.nan, np.inf])
    b = np.array([0.1, 0.1, 2.0, 2.0, 0.0, 0.0, 0.1, 1.0, 1.0])
    expected = [9.0, -10.0, 3.0, -4.0, np.inf, -np.inf, 2.0, np.nan, np.nan]
    np.testing.assert_array_equal(run("FloorDiv", a, b), expected)
    np.testing.assert_array_equal(run("FloorDiv", a[:4], b[:4]), [x // y for x, y in zip(a[:4], b[:4])])


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.int64, np.uint8])
def test_floor_div_integers(dtype):
    a = np.array([7, 7, 0, 5, 9], dtype) if dtype == np.uint8 else np.array([7, -7, 7, -7, 5], dtype)
    b = np.array([2, 2, 3, 0, 4], dtype) if dtype == np.uint8 else np.array([2, 2, -2, -2, 0], dtype)
    out = run("FloorDiv", a, b)
    assert out.dtype == np.dtype(dtype)
    expected = [x // y if y else 0 for x, y in zip(a.tolist(), b.tolist())]
    np.testing.assert_array_equal(out, expected)


# -- Erfc / Erfinv ------------------------------------------------------------------------------

def test_erfc_matches_math():
    x = np.linspace(-6, 26, 641)
    np.testing.assert_allclose(run("Erfc", x), [math.erfc(t) for t in x], rtol=1e-14, atol=0)


def test_erfinv_inverts_erf():
    y = np.concatenate([np.linspace(-0.999, 0.999, 999), 1 - np.geomspace(1e-15, 0.5, 100),
                        np.geomspace(1e-300, 0.5, 50)])
    x = run("Erfinv", y)
    back = np.array([math.erf(t) for t in x])
    np.testing.assert_allclose(back, y, rtol=2e-15, atol=0)
    tail = y > 0.5  # near 1 the residual erfc(x) = 1 - y keeps relative precision
    np.testing.assert_allclose([math.erfc(t) for t in x[tail]], 1 - y[tail], rtol=1e-13)


def test_erfinv_matches_mpmath():
    mpmath = pytest.importorskip("mpmath")
    y = np.concatenate([np.linspace(-0.99, 0.99, 199), [1e-200, -1e-9, 0.9999999]])
    expected = [float(mpmath.erfinv(t)) for t in y]
    np.testing.assert_allclose(run("Erfinv", y), expected, rtol=4e-15, atol=0)


def test_erfinv_edges():
    x = np.array([1.0, -1.0, 1.5, -2.0, np.nan, 0.0, -0.0])
    out = run("Erfinv", x)
    np.testing.assert_array_equal(out, [np.inf, -np.inf, np.nan, np.nan, np.nan, 0.0, -0.0])
    assert np.signbit(out[-1])


# -- gamma family -------------------------------------------------------------------------------

def test_lgamma_matches_math():
    x = np.concatenate([_grid(-30, 40, 2001), np.geomspace(1e-300, 1e300, 300), -np.geomspace(1e-8, 1e15, 100) - 0.25])
    expected = np.array([math.lgamma(t) for t in x])
    got = run("Lgamma", x)
    np.testing.assert_allclose(got, expected, rtol=1e-13, atol=1e-14)


def test_lgamma_poles_and_special_values():
    x = np.array([0.0, -0.0, -1.0, -7.0, -1e20, np.inf, -np.inf, np.nan, 1.0, 2.0])
    np.testing.assert_array_equal(run("Lgamma", x), [np.inf] * 7 + [np.nan, 0.0, 0.0])


def test_digamma_identities():
    np.testing.assert_allclose(run("Digamma", np.array([1.0, 0.5])), [-EULER, -EULER - 2 * math.log(2)], rtol=1e-15)
    x = np.concatenate([_grid(-20, 20, 801), np.geomspace(1e-3, 1e6, 100)])  # psi(x) + 1/x cancels below
    # psi(x + 1) = psi(x) + 1 / x and, for the reflection, psi(1 - x) - psi(x) = pi cot(pi x)
    np.testing.assert_allclose(run("Digamma", x + 1), run("Digamma", x) + 1 / x, rtol=1e-12, atol=1e-12)
    x = _grid(-20, 20, 801)  # (1 - x is an integer, a pole, for the large x above)
    np.testing.assert_allclose(run("Digamma", 1 - x) - run("Digamma", x), math.pi / np.tan(math.pi * x),
                               rtol=1e-10, atol=1e-10)


def test_digamma_poles():
    # PyTorch's values: -+inf at +-0 (the limit from the side of the sign), NaN at the negative integers.
    x = np.array([0.0, -0.0, -1.0, -5.0, np.inf, -np.inf, np.nan])
    np.testing.assert_array_equal(run("Digamma", x), [-np.inf, np.inf, np.nan, np.nan, np.inf, np.nan, np.nan])


@pytest.mark.parametrize("n", [0, 1, 2, 3, 4])
def test_polygamma_matches_mpmath(n):
    mpmath = pytest.importorskip("mpmath")
    x = np.concatenate([_grid(-6, 25, 157), [1e-5, 3e-3, 0.75, 150.5, 1e4]])
    expected = np.array([float(mpmath.polygamma(n, t)) for t in x])
    np.testing.assert_allclose(run("Polygamma", x, n=n), expected, rtol=1e-11 * (n + 1), atol=0)


def test_polygamma_known_values():
    zeta3 = 1.2020569031595942
    np.testing.assert_allclose(run("Polygamma", np.array([1.0, 0.5]), n=1), [math.pi ** 2 / 6, math.pi ** 2 / 2],
                               rtol=1e-15)
    np.testing.assert_allclose(run("Polygamma", np.array([1.0]), n=2), [-2 * zeta3], rtol=1e-14)
    np.testing.assert_array_equal(run("Polygamma", np.array([1.0, 0.5]), n=0), run("Digamma", np.array([1.0, 0.5])))


def test_polygamma_poles_take_the_right_limit():
    x = np.array([0.0, -0.0, -1.0, -3.0])
    np.testing.assert_array_equal(run("Polygamma", x, n=1), [np.inf] * 4)
    np.testing.assert_array_equal(run("Polygamma", x, n=2), [-np.inf] * 4)


@pytest.mark.parametrize("op,attrs,low,high", [
    ("Lgamma", {}, -4.0, 8.0), ("Digamma", {}, -4.0, 8.0), ("Polygamma", {"n": 1}, -4.0, 8.0),
    ("Erfinv", {}, -0.99, 0.99), ("Erfc", {}, -3.0, 3.0),
])
@pytest.mark.parametrize("dtype", LOW_PRECISION)
def test_low_precision_rounds_the_float64_result(op, attrs, low, high, dtype):
    x = _grid(low, high, 97).astype(dtype)
    got = run(op, x, **attrs)
    assert got.dtype == np.dtype(dtype)
    expected = run(op, x.astype(np.float64), **attrs).astype(dtype)
    np.testing.assert_array_equal(got.astype(np.float64), expected.astype(np.float64))


@pytest.mark.parametrize("op", ["Erfc", "Erfinv", "Lgamma", "Digamma", "Polygamma"])
def test_scalars_and_empty(op):
    out = run(op, np.array(0.25))
    assert isinstance(out, np.ndarray) and out.shape == () and out.dtype == np.float64
    assert out == run(op, np.array([0.25]))[0]
    assert run(op, np.zeros((0, 3), np.float32)).shape == (0, 3)


def test_out_buffer():
    x = np.array([0.5, 1.5, 2.5])
    out = np.empty(3)
    assert run("Lgamma", x, out=out) is out
    # lgamma(1.5) is near the zero between 1 and 2: the error is ~1e-15 absolute there.
    np.testing.assert_allclose(out, [math.lgamma(t) for t in x], rtol=1e-13, atol=1e-14)


# -- schemas and errors -------------------------------------------------------------------------

@pytest.mark.parametrize("op", sorted(UFUNCS) + ["Erfc", "Erfinv", "Lgamma", "Digamma", "Polygamma"])
def test_unary_inference(op):
    schema = get_schema(op)
    (info,) = schema.infer(schema.bind_attrs({}), [TensorInfo((2, None, 3), np.dtype(np.float16))])
    assert info.shape == (2, None, 3) and info.dtype == np.float16


@pytest.mark.parametrize("op", sorted(BINARY))
def test_binary_inference(op):
    schema = get_schema(op)
    a, b = rand((4, 1, 3), np.float32), rand((5, 1), np.float32)
    (info,) = schema.infer(schema.bind_attrs({}), [TensorInfo(a.shape, a.dtype), TensorInfo(b.shape, b.dtype)])
    out = run(op, a, b)
    assert info.shape == out.shape and info.dtype == out.dtype


@pytest.mark.parametrize("op", ["Log1p", "Lgamma", "Erfinv", "Trunc", "Polygamma"])
def test_integer_inputs_are_rejected(op):
    with pytest.raises(DTypeError, match=op):
        run(op, np.array([1, 2], np.int32))


def test_binary_errors():
    with pytest.raises(DTypeError, match="Atan2"):
        run("Atan2", np.ones(2, np.float32), np.ones(2, np.float64))
    with pytest.raises(DTypeError, match="Hypot"):
        run("Hypot", np.ones(2, np.int64), np.ones(2, np.int64))
    with pytest.raises(ShapeError, match="FloorDiv"):
        run("FloorDiv", np.ones((2, 3)), np.ones((4,)))


def test_polygamma_order_must_be_non_negative():
    with pytest.raises(OpAttributeError, match="Polygamma"):
        run("Polygamma", np.ones(2), n=-1)
