import math

import numpy as np
import pytest

from tests.ops.oracle import assert_same, check_op, onnx_run, rand, vfw_run
from tests.ops.test_math import _ulp_errors
from vfw.core import dtypes as dt
from vfw.core import get_schema, run
from vfw.core.errors import DTypeError, OpAttributeError, ShapeError
from vfw.core.registry import TensorInfo

# The reference evaluator's own float warnings on inf/nan inputs are noise here.
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning:onnx")

SHAPES = [(), (7,), (3, 4), (2, 3, 5), (0, 3)]
LOW = [np.float16, dt.bfloat16]

UNARY = [
    ("Relu", {}),
    ("LeakyRelu", {}),
    ("LeakyRelu", {"alpha": 0.3}),
    ("LeakyRelu", {"alpha": 2.5}),
    ("LeakyRelu", {"alpha": -0.5}),
    ("LeakyRelu", {"alpha": 0.0}),
    ("Elu", {}),
    ("Elu", {"alpha": 0.5}),
    ("Selu", {}),
    ("Selu", {"alpha": 2.0, "gamma": 0.5}),
    ("Celu", {}),
    ("Celu", {"alpha": 2.0}),
    ("Celu", {"alpha": -1.5}),
    ("Gelu", {}),
    ("Gelu", {"approximate": "tanh"}),
    ("Sigmoid", {}),
    ("HardSigmoid", {}),
    ("HardSigmoid", {"alpha": 0.5, "beta": 0.1}),
    ("HardSwish", {}),
    ("Softplus", {}),
    ("Softsign", {}),
    ("Mish", {}),
    ("ThresholdedRelu", {}),
    ("ThresholdedRelu", {"alpha": -0.5}),
    ("Shrink", {}),
    ("Shrink", {"lambd": 1.0, "bias": 0.25}),
    ("Shrink", {"lambd": -0.5, "bias": 1.0}),
]
IDS = [f"{op}-{'-'.join(f'{k}={v}' for k, v in a.items())}" for op, a in UNARY]


def with_dtypes(cases, ids, dtypes):
    """``(op, attrs, dtype)`` parameters for every case and dtype, less Shrink on bfloat16: ONNX's
    Shrink does not allow bfloat16 and neither does vfw (test_rejects_dtypes checks the DTypeError)."""
    return [pytest.param(op, attrs, dtype, id=f"{name}-{np.dtype(dtype).name}")
            for dtype in dtypes for (op, attrs), name in zip(cases, ids)
            if not (op == "Shrink" and dtype == dt.bfloat16)]


def arr(shape, dtype, low=-5, high=5, seed=0):
    return np.asarray(rand(shape, dtype, low, high, seed))


def check_low_precision(op, inputs, attrs=None, dtype=np.float16):
    """float16/bfloat16: vfw computes in float32 and rounds once, which is more accurate than the
    reference evaluator's half-precision arithmetic (e.g. its 1 + erf(x) cancels to 0 for x < -3).
    So the oracle runs on the float64 values and its result, rounded to ``dtype``, must agree with
    ours to one unit in the last place."""
    ours = vfw_run(op, inputs, attrs)[0]
    wide = [x.astype(np.float64) if x.dtype == dtype else x for x in inputs]
    ref = onnx_run(op, wide, attrs)[0].astype(dtype)
    ulp = 2.0**-10 if dtype == np.float16 else 2.0**-7
    assert_same(ours, ref, rtol=ulp, atol=1e-7, what=f"{op} {np.dtype(dtype).name}")


# --- elementwise, against the oracle --------------------------------------------------------

@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(("op", "attrs"), UNARY, ids=IDS)
def test_unary_matches_onnx(op, attrs, dtype, shape):
    x = arr(shape, dtype, seed=len(shape))
    if op == "Softsign" and shape == ():
        # The reference evaluator's Softsign fails on 0-d input (an in-place divide into a scalar).
        assert_same(run(op, x), np.asarray(x / (1 + abs(x)), dtype))
        return
    check_op(op, [x], attrs)


@pytest.mark.parametrize(("op", "attrs", "dtype"), with_dtypes(UNARY, IDS, LOW))
def test_unary_half_precision(op, attrs, dtype):
    x = arr((6, 40), dtype, -7, 7, seed=3)
    if op == "Gelu" and not attrs:
        # Even in float64 the reference's 1 + erf(x / sqrt 2) cancels for x < -5 (-1.65e-7 instead of
        # -8.42e-8 at x = -5.54, below float16's 1e-7 atol only by luck): use math.erfc.
        assert_same(run(op, x), gelu_reference(x.astype(np.float64)).astype(dtype), rtol=0, atol=0)
        return
    check_low_precision(op, [x], attrs, dtype)


def gelu_reference(x):
    return np.array([0.5 * v * math.erfc(-v / math.sqrt(2)) for v in x.ravel()]).reshape(x.shape)


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.int64])
def test_relu_ints(dtype):
    check_op("Relu", [arr((4, 6), dtype, -100, 100)])
    x = np.array([np.iinfo(dtype).min, -1, 0, 1, np.iinfo(dtype).max], dtype)
    check_op("Relu", [x])


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64])
@pytest.mark.parametrize("attrs", [{}, {"lambd": 2.0, "bias": 1.0}, {"lambd": 1.5, "bias": 0.5},
                                   {"lambd": 0.0, "bias": 3.0}])
def test_shrink_ints(dtype, attrs):
    low = 0 if np.dtype(dtype).kind == "u" else -20
    # uint with a bias above the value wraps in both (e.g. 2 - 3 -> 255): ONNX leaves it undefined,
    # the oracle's float-then-cast and our modular arithmetic agree for these small values.
    check_op("Shrink", [arr((5, 8), dtype, low, 20, seed=1)], attrs)


def test_shrink_int64_is_exact_beyond_2_53():
    x = np.array([2**60 + 1, -(2**60) - 1, 1, 0], np.int64)
    y = run("Shrink", x, lambd=1.0, bias=1.0)
    np.testing.assert_array_equal(y, [2**60, -(2**60), 0, 0])


def test_shrink_uint_negative_bias_wraps_like_modular_arithmetic():
    x = np.array([0, 5, 255], np.uint8)
    np.testing.assert_array_equal(run("Shrink", x, lambd=1.0, bias=-2.0), [0, 7, 1])


# --- extremes -------------------------------------------------------------------------------

FINITE_EXTREMES = [-1e30, -100.0, -20.0, -3.5, -1.0, -0.0, 0.0, 0.5, 1.0, 20.0, 100.0, 1e30]
EXTREMES = FINITE_EXTREMES + [np.inf, -np.inf, np.nan]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(("op", "attrs"), UNARY, ids=IDS)
def test_unary_extremes(op, attrs, dtype):
    # Infinities included: the formulas' inf * 0 and inf / inf give nan where the function has a
    # finite limit (Mish, Gelu, HardSwish, LeakyRelu alpha=0 at -inf; Softsign at both), as here.
    check_op(op, [np.array(EXTREMES, dtype)], attrs)


# (-inf, +inf) -> expected: the functions' limits are finite where these are nan.
INF_CASES = [("Mish", {}, [np.nan, np.inf]), ("Gelu", {}, [np.nan, np.inf]),
             ("Gelu", {"approximate": "tanh"}, [np.nan, np.inf]), ("HardSwish", {}, [np.nan, np.inf]),
             ("LeakyRelu", {"alpha": 0.0}, [np.nan, np.inf]), ("Softsign", {}, [np.nan, np.nan])]


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16, dt.bfloat16])
@pytest.mark.parametrize(("op", "attrs", "expected"), INF_CASES, ids=[c[0] + str(i) for i, c in enumerate(INF_CASES)])
def test_infinities_follow_the_formula(op, attrs, expected, dtype):
    # Spelled out so that test_unary_extremes cannot pass on an oracle that changed its mind: IEEE
    # arithmetic on the ONNX formula (inf * 0, inf / inf), as the reference evaluator and PyTorch.
    y = run(op, np.array([-np.inf, np.inf], dtype), **attrs)
    np.testing.assert_array_equal(y.astype(np.float64), expected)


# Ops whose result never overflows for finite input (LeakyRelu alpha=2.5, Selu gamma > 1 and Celu
# alpha < 0 genuinely overflow at the largest floats).
OVERFLOWING = [("Selu", {}), ("Selu", {"alpha": 2.0, "gamma": 0.5}), ("LeakyRelu", {"alpha": 2.5}),
               ("Celu", {"alpha": -1.5})]
BOUNDED = [case for case in UNARY if case not in OVERFLOWING]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(("op", "attrs"), BOUNDED, ids=[f"{op}{i}" for i, (op, _) in enumerate(BOUNDED)])
def test_no_floating_point_exceptions(op, attrs, dtype):
    # No overflow, division by zero or invalid operation happens inside the kernels for finite
    # inputs (vfw filters its RuntimeWarnings; errstate="raise" sees through that). Infinite inputs
    # may raise "invalid": the formulas' inf * 0 and inf / inf are nan (test_unary_extremes).
    info = np.finfo(dtype)
    x = np.array(FINITE_EXTREMES + [info.max, -info.max, info.tiny, -info.smallest_subnormal], dtype)
    with np.errstate(over="raise", divide="raise", invalid="raise"):
        y = vfw_run(op, [x], attrs)[0]
    assert np.isfinite(y).all()
    with np.errstate(over="raise", divide="raise"):
        vfw_run(op, [np.array([np.inf, -np.inf, np.nan], dtype)], attrs)


@pytest.mark.parametrize("dtype", LOW)
def test_sigmoid_softplus_half_extremes(dtype):
    x = np.array([-1e4, -60, -20, 0, 20, 60, 1e4, np.inf, -np.inf], np.float32).astype(dtype)
    with np.errstate(over="raise", divide="raise"):
        s = run("Sigmoid", x)
        p = run("Softplus", x)
    assert s.dtype == dtype and p.dtype == dtype
    np.testing.assert_array_equal(s.astype(np.float32)[[0, 3, 6, 7, 8]], [0, 0.5, 1, 1, 0])
    np.testing.assert_array_equal(p.astype(np.float32)[[0, 6, 7, 8]], [0, x[6].astype(np.float32), np.inf, 0])


def test_sigmoid_left_tail_keeps_relative_precision():
    x = np.array([-30.0, -80.0, -700.0])
    np.testing.assert_allclose(run("Sigmoid", x), np.exp(x) / (1 + np.exp(x)), rtol=1e-14)


def test_gelu_exact_left_tail_against_erfc():
    # 0.5 * x * (1 + erf(x / sqrt 2)) cancels for x << 0; compare with math.erfc in float64.
    # rtol: erfc(y) has condition number ~2y**2 (1400 at x = -37), so rounding x / sqrt(2) alone
    # moves the result by ~1.4e-13 relative.
    x = np.array([-5.0, -10.0, -20.0, -37.0, 0.3, 3.0])
    np.testing.assert_allclose(run("Gelu", x), gelu_reference(x), rtol=1e-12)


# --- PRelu ----------------------------------------------------------------------------------

PRELU_SHAPES = [((3, 4), (4,)), ((2, 3, 4), (3, 1)), ((2, 3, 4), (1,)), ((2, 3, 4), ()), ((2, 3, 4), (2, 3, 4)),
                ((5,), (5,)), ((0, 3), (3,)), ((), ())]


@pytest.mark.parametrize("shapes", PRELU_SHAPES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64, np.uint32, np.uint64])
def test_prelu_matches_onnx(shapes, dtype):
    low = 0 if np.dtype(dtype).kind == "u" else -5
    check_op("PRelu", [arr(shapes[0], dtype, low, 5, seed=1), arr(shapes[1], dtype, -3, 3, seed=2)])


@pytest.mark.parametrize("dtype", LOW)
def test_prelu_half(dtype):
    check_low_precision("PRelu", [arr((3, 8), dtype, seed=1), arr((8,), dtype, seed=2)], dtype=dtype)


@pytest.mark.parametrize(("xs", "ss"), [((3, 5), (4,)), ((1, 4), (3, 1)), ((4,), (1, 4)), ((2, 3), (2, 1, 3))])
def test_prelu_rejects_non_unidirectional_slope(xs, ss):
    with pytest.raises(ShapeError, match="PRelu.*unidirectional"):
        run("PRelu", np.ones(xs, np.float32), np.ones(ss, np.float32))
    with pytest.raises(ShapeError, match="PRelu"):
        get_schema("PRelu").infer({}, [TensorInfo(xs, np.float32), TensorInfo(ss, np.float32)])


# --- softmax family -------------------------------------------------------------------------

AXES_CASES = [((7,), -1), ((7,), 0), ((3, 4), 0), ((3, 4), 1), ((3, 4), -2), ((2, 3, 4), 1), ((2, 3, 4), -1),
              ((2, 3, 4), 0), ((2, 1, 4), 1)]


@pytest.mark.parametrize(("shape", "axis"), AXES_CASES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("op", ["Softmax", "LogSoftmax", "Hardmax"])
def test_softmax_family_matches_onnx(op, dtype, shape, axis):
    check_op(op, [arr(shape, dtype, -10, 10, seed=sum(shape))], {"axis": axis})


@pytest.mark.parametrize(("shape", "axis"), [((4, 33), -1), ((3, 1000), 1), ((2, 3, 40), -1), ((300, 7), -1),
                                             ((5, 1), -1)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("op", ["Softmax", "LogSoftmax"])
def test_softmax_family_last_axis_widths(op, dtype, shape, axis):
    # Short rows reduce a transposed copy, sums along the last axis are matrix-vector products.
    check_op(op, [arr(shape, dtype, -10, 10, seed=shape[-1])], {"axis": axis})
    strided = arr(shape[:-1] + (2 * shape[-1],), dtype, -10, 10)[..., ::2]  # a non-contiguous input
    check_op(op, [strided], {"axis": axis})


@pytest.mark.parametrize("dtype", LOW)
@pytest.mark.parametrize("op", ["Softmax", "LogSoftmax", "Hardmax"])
def test_softmax_family_half(op, dtype):
    check_low_precision(op, [arr((4, 3, 9), dtype, -10, 10)], {"axis": 1}, dtype)
    check_low_precision(op, [arr((4, 3, 9), dtype, -10, 10)], {}, dtype)


def test_softmax_default_axis_is_last():
    x = arr((2, 3, 4), np.float32)
    np.testing.assert_allclose(run("Softmax", x).sum(-1), 1, rtol=1e-6)


EXTREME_ROWS = np.array([[1e30, 1e30, -1e30], [-np.inf, 0, 1], [-np.inf] * 3, [1, np.inf, 2], [np.nan, 1, 2],
                         [3, 3, 1], [1000, -1000, 999], [-1e-45, 0, 1e-45]], np.float32)


@pytest.mark.parametrize("op", ["Softmax", "Hardmax"])
def test_softmax_family_extremes(op):
    # Large values, masking -inf, all -inf, +inf and nan rows, ties: as the reference.
    x = EXTREME_ROWS
    check_op(op, [x], {"axis": -1})
    check_op(op, [x.T.copy()], {"axis": 0})
    check_op(op, [x.astype(np.float64)], {"axis": 1})


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_log_softmax_extremes(dtype):
    # The reference takes log(softmax), which gives -inf where softmax underflows (-2e30 - log 2
    # for the 1e30, 1e30, -1e30 row); x - max - log(sum(exp(x - max))) in float64 instead.
    x = EXTREME_ROWS.astype(dtype)
    with np.errstate(all="ignore"):
        w = x.astype(np.float64) - x.max(axis=1, keepdims=True)
        expected = (w - np.log(np.exp(w).sum(axis=1, keepdims=True))).astype(dtype)
    assert_same(run("LogSoftmax", x, axis=1), expected)
    assert_same(run("LogSoftmax", x.T.copy(), axis=0), expected.T)


def test_hardmax_marks_first_maximum():
    x = np.array([[2, 5, 5, 1], [7, 7, 7, 7], [-np.inf, -np.inf, -np.inf, -np.inf], [0, np.nan, 9, np.nan]],
                 np.float32)
    np.testing.assert_array_equal(run("Hardmax", x), [[0, 1, 0, 0], [1, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0]])


@pytest.mark.parametrize("op", ["Softmax", "LogSoftmax", "Hardmax"])
@pytest.mark.parametrize(("shape", "axis"), [((0, 3), 0), ((0, 3), 1), ((2, 0), 1), ((2, 0, 4), -1)])
def test_softmax_family_empty(op, shape, axis):
    y = run(op, np.zeros(shape, np.float32), axis=axis)
    assert y.shape == shape and y.dtype == np.float32


@pytest.mark.parametrize("op", ["Softmax", "LogSoftmax", "Hardmax"])
def test_softmax_family_bad_axis(op):
    with pytest.raises(ShapeError, match=f"{op}: axis=2"):
        run(op, np.zeros((2, 3), np.float32), axis=2)
    with pytest.raises(ShapeError, match=f"{op}: axis=-3"):
        run(op, np.zeros((2, 3), np.float32), axis=-3)
    with pytest.raises(ShapeError, match=f"{op}: .*rank >= 1"):
        run(op, np.zeros((), np.float32), axis=0)
    with pytest.raises(ShapeError, match=f"{op}: axis=5"):
        get_schema(op).infer({"axis": 5}, [TensorInfo((2, 3), np.float32)])


# --- out=, inference, errors ----------------------------------------------------------------

OUT_CASES = UNARY + [("Softmax", {"axis": 0}), ("LogSoftmax", {}), ("Hardmax", {"axis": 0})]
OUT_IDS = [c[0] + str(i) for i, c in enumerate(OUT_CASES)]


@pytest.mark.parametrize(("op", "attrs", "dtype"), with_dtypes(OUT_CASES, OUT_IDS, [np.float32] + LOW))
def test_out_buffer_and_aliasing(op, attrs, dtype):
    x = arr((3, 5), dtype, seed=4)
    expected = run(op, x, **attrs)
    buf = np.full_like(x, 7)
    y = run(op, x, out=buf, **attrs)
    assert_same(y, expected)
    # out may alias the input (an in-place executor step)
    xc = x.copy()
    assert_same(run(op, xc, out=xc, **attrs), expected)


@pytest.mark.parametrize(("op", "attrs", "dtype"), with_dtypes(OUT_CASES, OUT_IDS, [np.float32, dt.bfloat16]))
def test_infer_matches_kernel(op, attrs, dtype):
    schema = get_schema(op)
    x = arr((2, 3, 4), dtype)
    y = run(op, x, **attrs)
    assert schema.infer(schema.bind_attrs(attrs), [TensorInfo(x.shape, x.dtype)]) == [TensorInfo(y.shape, y.dtype)]


def test_prelu_infer():
    schema = get_schema("PRelu")
    y = run("PRelu", arr((2, 3, 4), np.float32), arr((3, 1), np.float32))
    infos = [TensorInfo((2, 3, 4), np.float32), TensorInfo((3, 1), np.float32)]
    assert schema.infer({}, infos) == [TensorInfo(y.shape, y.dtype)]
    assert schema.infer({}, [TensorInfo((None, 3), np.float32), TensorInfo((5,), np.float32)])[0].shape == (None, 3)


@pytest.mark.parametrize(("op", "dtype"), [("Relu", np.uint8), ("Relu", np.bool_), ("Sigmoid", np.int32),
                                           ("Softmax", np.int64), ("Shrink", dt.bfloat16), ("Gelu", np.bool_)])
def test_rejects_dtypes(op, dtype):
    with pytest.raises(DTypeError, match=op):
        run(op, np.zeros((2, 2), dtype))


def test_prelu_rejects_mixed_dtypes():
    with pytest.raises(DTypeError, match="PRelu"):
        run("PRelu", np.zeros(3, np.float32), np.zeros(3, np.float64))


@pytest.mark.parametrize(("op", "attrs"), [("Gelu", {"approximate": "erf"}), ("Celu", {"alpha": 0.0}),
                                           ("LeakyRelu", {"alpha": "big"}), ("Softmax", {"axis": 1.5}),
                                           ("Elu", {"beta": 1.0})])
def test_rejects_attributes(op, attrs):
    with pytest.raises(OpAttributeError, match=op):
        run(op, np.zeros(3, np.float32), **attrs)


def test_gelu_exact_float32_within_one_ulp():
    # float32 takes erfc's float32-precision path; the gate and the product are formed in float64.
    positive = np.arange(np.float32(1e-30).view(np.uint32), np.float32(15.0).view(np.uint32), 3001,
                         dtype=np.uint32).view(np.float32)
    x = np.concatenate([positive, -positive])
    got = run("Gelu", x)
    assert got.dtype == np.float32
    errors = _ulp_errors(got, gelu_reference(x.astype(np.float64)), np.float32)
    assert errors.max() < 1.0, (errors.max(), x[errors.argmax()])
