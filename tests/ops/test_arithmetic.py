import ml_dtypes
import numpy as np
import pytest

from tests.ops.oracle import assert_same, check_op, rand
from vfw.core import run
from vfw.core.errors import DTypeError, OpAttributeError, OpInputError, ShapeError
from vfw.core.registry import TensorInfo, get_schema, make_op

SHAPES = [((3, 4), (3, 4)), ((2, 3, 4), (4,)), ((5, 1, 3), (1, 4, 1)), ((), (2, 2)), ((0, 3), (1, 3)), ((), ())]
FLOATS = [np.float16, np.float32, np.float64]
SIGNED_INTS = [np.int8, np.int16, np.int32, np.int64]
UNSIGNED_INTS = [np.uint8, np.uint16, np.uint32, np.uint64]
INTS = SIGNED_INTS + UNSIGNED_INTS
SPECIAL = np.array([0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, -2.5, 2.5, 7.25, -1e30, np.inf, -np.inf, np.nan])
bf16 = ml_dtypes.bfloat16
# The reference evaluator's numpy warns on IEEE inf/nan results; they are expected here.
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")


def _tol(dtype):
    return {"rtol": 2e-3, "atol": 1e-3} if np.dtype(dtype) == np.float16 else {}


# -- Add Sub Mul Div --------------------------------------------------------------------------

@pytest.mark.parametrize("op", ["Add", "Sub", "Mul", "Div"])
@pytest.mark.parametrize("dtype", FLOATS + [np.int8, np.int32, np.int64, np.uint8, np.uint64])
@pytest.mark.parametrize("shapes", SHAPES)
def test_binary_matches_onnx(op, dtype, shapes):
    a, b = rand(shapes[0], dtype, seed=1), rand(shapes[1], dtype, seed=2)
    if op == "Div" and np.dtype(dtype).kind == "f":
        b = np.where(b == 0, 1, b).astype(dtype)
    check_op(op, [a, b], **_tol(dtype))


def test_zero_d_results_are_arrays():
    for op in ["Add", "Div", "Pow", "Mod", "BitwiseAnd", "Neg", "Abs"]:
        n = 1 if op in ("Neg", "Abs") else 2
        got = run(op, *[np.array(5, np.int32)] * n)
        assert type(got) is np.ndarray and got.shape == () and got.dtype == np.int32, op


@pytest.mark.parametrize("dtype", SIGNED_INTS)
def test_div_int_truncates_toward_zero(dtype):
    lo = np.iinfo(dtype).min
    a = np.array([7, -7, 7, -7, 0, 6, -6, 1, -1, lo, lo, 5, -5, 0], dtype)
    b = np.array([2, 2, -2, -2, 3, 3, -3, 3, 3, -1, 1, 0, 0, 0], dtype)
    expected = np.array([3, -3, -3, 3, 0, 2, 2, 0, 0, lo, lo, 0, 0, 0], dtype)  # x / 0 -> 0, MIN / -1 wraps
    assert_same(run("Div", a, b), expected)
    check_op("Div", [a, b])


@pytest.mark.parametrize("dtype", UNSIGNED_INTS)
def test_div_unsigned_and_by_zero(dtype):
    a = np.array([7, 0, 255, 9], dtype)
    b = np.array([2, 3, 0, 9], dtype)
    assert_same(run("Div", a, b), np.array([3, 0, 0, 1], dtype))


@pytest.mark.parametrize("dtype", FLOATS)
def test_div_float_special_values(dtype):
    a = np.tile(SPECIAL, (len(SPECIAL), 1)).astype(dtype)
    check_op("Div", [a, a.T.copy()], **_tol(dtype))


def test_div_out_argument():
    a, b = np.array([[7, -7], [3, -9]], np.int32), np.array([2, -4], np.int32)
    out = np.empty((2, 2), np.int32)
    assert make_op("Div")(a, b, out=out) is out
    assert_same(out, np.array([[3, 1], [1, 2]], np.int32))


# -- Mod --------------------------------------------------------------------------------------

@pytest.mark.parametrize("fmod", [0, 1])
@pytest.mark.parametrize("dtype", INTS)
def test_mod_int(fmod, dtype):
    a = rand((4, 6), dtype, -20, 20, seed=3)
    b = rand((6,), dtype, -5, 5, seed=4)
    b[0] = 0  # modulo by zero: 0, not a crash
    check_op("Mod", [a, b], {"fmod": fmod})
    check_op("Mod", [rand((2, 0), dtype), rand((1, 1), dtype, 1, 3)], {"fmod": fmod})


def test_mod_int_signs():
    a = np.array([7, -7, 7, -7, 0, 5], np.int32)
    b = np.array([3, 3, -3, -3, 3, 0], np.int32)
    assert_same(run("Mod", a, b), np.array([1, 2, -2, -1, 0, 0], np.int32))
    assert_same(run("Mod", a, b, fmod=1), np.array([1, -1, 1, -1, 0, 0], np.int32))


@pytest.mark.parametrize("fmod", [0, 1])
@pytest.mark.parametrize("dtype", FLOATS)
def test_mod_float(fmod, dtype):
    # ONNX opset 28 defines fmod=0 (result has the divisor's sign) for floats too.
    a = np.tile(SPECIAL, (len(SPECIAL), 1)).astype(dtype)
    check_op("Mod", [a, a.T.copy()], {"fmod": fmod}, **_tol(dtype))
    check_op("Mod", [rand((3, 4), dtype, seed=5), rand((4,), dtype, 0.5, 2, seed=6)], {"fmod": fmod}, **_tol(dtype))


def test_mod_float_signed_zero_and_inf():
    a = np.array([0.0, -0.0, 3.0, -3.0, 3.0, -3.0])
    b = np.array([-2.0, 2.0, np.inf, np.inf, -np.inf, -np.inf])
    got = run("Mod", a, b)
    np.testing.assert_array_equal(got, [-0.0, 0.0, 3.0, np.inf, -np.inf, -3.0])
    assert list(np.signbit(got[:2])) == [True, False]
    np.testing.assert_array_equal(run("Mod", a, b, fmod=1)[2:], [3.0, -3.0, 3.0, -3.0])


# -- Pow --------------------------------------------------------------------------------------

POW_TYPES = [(np.float32, np.float32), (np.float64, np.float64), (np.float16, np.float16),
             (np.float32, np.int64), (np.float32, np.float64), (np.float16, np.int32), (np.float64, np.uint8),
             (np.float32, np.float16), (np.int32, np.int32), (np.int64, np.int64), (np.int64, np.uint8),
             (np.int32, np.int8), (np.int32, np.float32), (np.int64, np.float64)]


@pytest.mark.parametrize("tx,ty", POW_TYPES)
@pytest.mark.parametrize("shapes", SHAPES[:5])
def test_pow_matches_onnx(tx, ty, shapes):
    x = rand(shapes[0], tx, 0.25 if np.dtype(tx).kind == "f" else 0, 3, seed=7)
    y = rand(shapes[1], ty, 0, 4, seed=8)
    check_op("Pow", [x, y], **_tol(tx))


@pytest.mark.parametrize("dtype", FLOATS)
def test_pow_float_special_values(dtype):
    x = np.tile(SPECIAL, (len(SPECIAL), 1)).astype(dtype)
    check_op("Pow", [x, x.T.copy()], **_tol(dtype))


def test_pow_int_negative_exponent():
    # The ONNX reference raises on integer ** negative integer (numpy refuses it);
    # expected values: the truncated 1 / x**-y (and 0 for 0 ** negative).
    x = np.array([2, 3, -2, 0, 1, -1, -1, 1, -3, 5], np.int32)
    y = np.array([3, -1, -1, -1, -5, -3, -4, -7, 2, 0], np.int32)
    assert_same(run("Pow", x, y), np.array([8, 0, 0, 0, 1, -1, 1, 1, 9, 1], np.int32))
    for ty in [np.int8, np.int64]:
        assert_same(run("Pow", x.astype(np.int64), y.astype(ty)), np.array([8, 0, 0, 0, 1, -1, 1, 1, 9, 1]))


def test_pow_int_huge_exponents_keep_parity():
    x = np.array([-1, -1, 1, 0, -1], np.int32)
    y = np.array([2**40, 2**40 + 1, 2**50, 2**45, -(2**40) - 1], np.int64)
    assert_same(run("Pow", x, y), np.array([1, -1, 1, 0, -1], np.int32))
    assert_same(run("Pow", x, np.array([2**63, 2**63 + 1, 3, 3, 5], np.uint64)), np.array([1, -1, 1, 0, -1], np.int32))


def test_pow_int_base_float_exponent_truncates():
    x = np.array([2, 3, 4, 10], np.int64)
    y = np.array([3.5, -1.0, 0.5, 2.0], np.float32)
    assert_same(run("Pow", x, y), np.array([11, 0, 2, 100], np.int64))


def test_pow_out_argument_mixed_types():
    out = np.empty(3, np.float32)
    assert make_op("Pow")(np.array([2, 3, 4], np.float32), np.array([2, 0, -1], np.int64), out=out) is out
    assert_same(out, np.array([4, 1, 0.25], np.float32))


# -- unary ------------------------------------------------------------------------------------

UNARY_TYPES = {
    "Neg": FLOATS + SIGNED_INTS, "Abs": FLOATS + INTS, "Sign": FLOATS + INTS,
    "Reciprocal": FLOATS, "Floor": FLOATS, "Ceil": FLOATS, "Round": FLOATS, "BitwiseNot": INTS,
}


@pytest.mark.parametrize("op,dtype", [(op, d) for op, ds in UNARY_TYPES.items() for d in ds])
def test_unary_matches_onnx(op, dtype):
    for i, shape in enumerate([(3, 4), (2, 3, 4), (), (0, 2)]):
        x = rand(shape, dtype, -5, 5, seed=i)
        if np.dtype(dtype).kind == "f":
            x = (x * 2).round().astype(dtype) / 2 if i == 0 else x  # exact halves for Round
        check_op(op, [x], **_tol(dtype))
    if np.dtype(dtype).kind == "f":
        check_op(op, [SPECIAL.astype(dtype)], **_tol(dtype))
    else:
        info = np.iinfo(dtype)
        check_op(op, [np.array([info.min, info.max, 0, 1, info.min + 1], dtype)])  # Abs/Neg of MIN wrap


def test_round_half_to_even():
    x = np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.49999997, 2.3, -0.0], np.float32)
    got = run("Round", x)
    np.testing.assert_array_equal(got, [0, 2, 2, -0.0, -2, -2, 0, 2, -0.0])
    assert np.signbit(got[3]) and np.signbit(got[-1])


@pytest.mark.parametrize("op", ["Neg", "Abs", "Sign", "Reciprocal", "Floor", "Ceil", "Round"])
def test_unary_bfloat16(op):
    x = SPECIAL.astype(bf16)
    got = run(op, x)
    assert got.dtype == bf16
    ref = run(op, x.astype(np.float32)).astype(bf16)
    np.testing.assert_array_equal(got.astype(np.float32), ref.astype(np.float32))


# -- variadic ---------------------------------------------------------------------------------

VARIADIC_SHAPES = [[(3, 4)], [(3, 4), (3, 4)], [(2, 1, 4), (3, 1), (4,)], [(), (2, 2), (1, 2), ()], [(0, 2), (2,)]]


@pytest.mark.parametrize("op,dtypes", [("Min", FLOATS + INTS), ("Max", FLOATS + [np.int8, np.int64, np.uint8]),
                                       ("Sum", FLOATS)])
@pytest.mark.parametrize("shapes", VARIADIC_SHAPES)
def test_variadic_matches_onnx(op, dtypes, shapes):
    for dtype in dtypes:
        xs = [rand(s, dtype, seed=i) for i, s in enumerate(shapes)]
        check_op(op, xs, **_tol(dtype))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shapes", VARIADIC_SHAPES)
def test_mean(dtype, shapes):
    xs = [rand(s, dtype, seed=i) for i, s in enumerate(shapes)]
    got = run("Mean", *xs)
    # The ONNX reference Mean accumulates into its first input, so it fails whenever that
    # input is smaller than the broadcast result: compare with numpy there.
    expected = (sum(x.astype(np.float64) for x in xs) / len(xs)).astype(dtype)
    assert_same(got, np.broadcast_to(expected, got.shape).copy(), **_tol(dtype))
    if all(s == shapes[0] for s in shapes):
        check_op("Mean", xs, **_tol(dtype))


@pytest.mark.parametrize("op", ["Min", "Max", "Sum", "Mean"])
def test_variadic_nan_propagates(op):
    a = np.array([1.0, np.nan, 3.0, np.nan, -np.inf])
    b = np.array([np.nan, 2.0, 1.0, np.nan, np.inf])
    if op != "Mean":  # the reference Mean is checked in test_mean
        check_op(op, [a, b])
    got = run(op, a, b, np.array(0.0))
    np.testing.assert_array_equal(np.isnan(got), [True, True, False, True, op in ("Sum", "Mean")])


def test_variadic_out_argument_and_no_aliasing():
    a, b, c = np.ones((2, 1), np.float32), np.arange(3, dtype=np.float32), np.full((1, 3), 2, np.float32)
    out = np.empty((2, 3), np.float32)
    assert make_op("Sum")(a, b, c, out=out) is out
    assert_same(out, a + b + c)
    single = run("Max", a)
    assert single is not a and np.shares_memory(single, a) is False
    assert_same(make_op("Mean")(a, b, c, out=np.empty((2, 3), np.float32)), (a + b + c) / 3)


def test_variadic_bfloat16():
    xs = [rand((2, 3), np.float32, seed=i).astype(bf16) for i in range(3)]
    for op in ["Min", "Max", "Sum", "Mean"]:
        got = run(op, *xs)
        assert got.dtype == bf16, op
    np.testing.assert_array_equal(run("Max", *xs), np.maximum(np.maximum(xs[0], xs[1]), xs[2]))


# -- Clip -------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", FLOATS + INTS)
def test_clip_matches_onnx(dtype):
    x = rand((3, 4), dtype, seed=9) if np.dtype(dtype).kind != "f" else SPECIAL.astype(dtype)
    lo, hi = np.array(-1, dtype) if np.dtype(dtype).kind != "u" else np.array(1, dtype), np.array(2, dtype)
    check_op("Clip", [x, lo, hi])
    check_op("Clip", [x, lo])
    check_op("Clip", [x, None, hi])
    check_op("Clip", [x])
    check_op("Clip", [x, hi, lo])  # min > max: everything becomes max
    check_op("Clip", [x, lo.reshape(1), hi.reshape(1)])
    check_op("Clip", [np.zeros((0, 2), dtype), lo, hi])


def test_clip_scalar_input_and_out():
    assert_same(run("Clip", np.array(5.0), np.array([0.0]), np.array(1.0)), np.array(1.0))
    x = np.array([-3, 0, 9], np.int32)
    out = np.empty(3, np.int32)
    assert make_op("Clip")(x, np.array(-1, np.int32), np.array(4, np.int32), out=out) is out
    assert_same(out, np.array([-1, 0, 4], np.int32))
    copy = run("Clip", x)
    assert copy is not x and not np.shares_memory(copy, x)
    assert run("Clip", SPECIAL.astype(bf16), np.array(0, bf16), np.array(1, bf16)).dtype == bf16


@pytest.mark.parametrize("dtype", FLOATS + INTS + [bf16])
def test_clip_large_inputs_match_maximum_then_minimum(dtype):
    # From a few thousand elements Clip runs numpy's one-pass clip loop; same bits as max then min.
    rng = np.random.default_rng(4)
    with np.errstate(invalid="ignore"):  # nan and inf cast to integers: any value serves
        x = np.concatenate([SPECIAL, rng.standard_normal(3000) * 5]).astype(dtype)
    for lo, hi in ((1, 3), (3, 1)):  # min > max: everything becomes max
        lo, hi = np.array(lo, dtype), np.array(hi, dtype)
        expected = np.minimum(np.maximum(x, lo), hi)
        for out in (None, np.empty_like(x)):
            got = make_op("Clip")(x, lo, hi, out=out)
            assert got.dtype == x.dtype and (out is None or got is out)
            np.testing.assert_array_equal(got.view(np.uint8), expected.view(np.uint8))


def test_clip_rejects_non_scalar_bounds():
    with pytest.raises(ShapeError, match="Clip.*'min'.*float32\\[2\\]"):
        run("Clip", np.zeros(3, np.float32), np.zeros(2, np.float32))
    with pytest.raises(ShapeError, match="Clip.*'max'"):
        run("Clip", np.zeros(3, np.float32), None, np.zeros((0,), np.float32))


# -- BitShift and bitwise ---------------------------------------------------------------------

@pytest.mark.parametrize("direction", ["LEFT", "RIGHT"])
@pytest.mark.parametrize("dtype", INTS)
def test_bitshift(direction, dtype):
    bits = np.dtype(dtype).itemsize * 8
    info = np.iinfo(dtype)
    x = np.array([1, 5, info.max, info.min, 0, 3, -8 if info.min else 8, info.max], dtype)
    y = np.array([1, 2, 1, 1, 3, bits, bits - 1, bits + 3], dtype)
    check_op("BitShift", [x, y], {"direction": direction})
    check_op("BitShift", [rand((2, 3), dtype, 0, 50, seed=1), rand((3,), dtype, 0, 3, seed=2)],
             {"direction": direction})


def test_bitshift_signed_semantics():
    # ONNX opset 28: arithmetic right shift; negative or too-large shifts give the sign fill.
    x = np.array([-8, 8, -1, 1, -5, 5, 64], np.int8)
    y = np.array([1, 1, 10, -1, -3, 8, 1], np.int8)
    assert_same(run("BitShift", x, y, direction="RIGHT"), np.array([-4, 4, -1, 0, -1, 0, 32], np.int8))
    assert_same(run("BitShift", x, y, direction="LEFT"), np.array([-16, 16, 0, 0, 0, 0, -128], np.int8))


@pytest.mark.parametrize("op", ["BitwiseAnd", "BitwiseOr", "BitwiseXor"])
@pytest.mark.parametrize("dtype", INTS)
def test_bitwise_binary(op, dtype):
    for i, (sa, sb) in enumerate(SHAPES[:5]):
        check_op(op, [rand(sa, dtype, -100, 100, seed=i), rand(sb, dtype, -100, 100, seed=i + 10)])


# -- errors and inference ---------------------------------------------------------------------

def test_bad_inputs_raise():
    f32, f64 = np.zeros(3, np.float32), np.zeros(3, np.float64)
    with pytest.raises(DTypeError, match="Div.*same dtype"):
        run("Div", f32, f64)
    with pytest.raises(DTypeError, match="Neg"):
        run("Neg", np.zeros(3, np.uint8))
    with pytest.raises(DTypeError, match="Reciprocal"):
        run("Reciprocal", np.zeros(3, np.int32))
    with pytest.raises(DTypeError, match="Pow.*'X'"):
        run("Pow", np.zeros(3, np.int8), np.zeros(3, np.int8))
    with pytest.raises(DTypeError, match="BitShift"):
        run("BitShift", f32, f32, direction="LEFT")
    with pytest.raises(DTypeError, match="Sum"):
        run("Sum", np.zeros(3, np.int32))
    with pytest.raises(DTypeError, match="Max"):
        run("Max", f32, f32, f64)
    with pytest.raises(ShapeError, match=r"Div\(A: float32\[2, 3\], B: float32\[4\]"):
        run("Div", np.zeros((2, 3), np.float32), np.zeros(4, np.float32))
    with pytest.raises(ShapeError, match=r"Sum: inputs float32\[3\], float32\[2, 3\], float32\[4\]"):
        run("Sum", f32, np.zeros((2, 3), np.float32), np.zeros(4, np.float32))
    with pytest.raises(ShapeError, match="Min"):
        make_op("Min")(f32, f32, np.zeros(2, np.float32), out=np.empty(3, np.float32))
    with pytest.raises(OpInputError, match="Mean"):
        run("Mean")
    with pytest.raises(OpAttributeError, match="Mod.*fmod"):
        run("Mod", f32, f32, fmod=2)
    with pytest.raises(OpAttributeError, match="BitShift.*direction"):
        run("BitShift", np.zeros(3, np.int8), np.zeros(3, np.int8), direction="UP")
    with pytest.raises(OpAttributeError, match="BitShift.*direction"):
        run("BitShift", np.zeros(3, np.int8), np.zeros(3, np.int8))


@pytest.mark.parametrize("op,attrs,infos,expected", [
    ("Div", {}, [((2, 3, 1), np.int32), ((4,), np.int32)], ((2, 3, 4), np.int32)),
    ("Pow", {}, [((3, 1), np.float16), ((1, 5), np.int64)], ((3, 5), np.float16)),
    ("Mod", {"fmod": 1}, [((2,), np.float32), ((), np.float32)], ((2,), np.float32)),
    ("Sum", {}, [((2, 1), np.float64), ((3,), np.float64), ((4, 1, 1), np.float64)], ((4, 2, 3), np.float64)),
    ("Max", {}, [((0, 3), np.uint8)], ((0, 3), np.uint8)),
    ("Clip", {}, [((2, 3), np.int8), None, ((), np.int8)], ((2, 3), np.int8)),
    ("Round", {}, [((5,), np.float32)], ((5,), np.float32)),
    ("BitShift", {"direction": "RIGHT"}, [((2, 2), np.uint16), ((2,), np.uint16)], ((2, 2), np.uint16)),
])
def test_infer_matches_kernel(op, attrs, infos, expected):
    schema = get_schema(op)
    arrays = [None if i is None else rand(i[0], i[1], 1, 3) for i in infos]
    real = run(op, *arrays, **attrs)
    tinfos = [None if i is None else TensorInfo(*i) for i in infos]
    (info,) = schema.infer(schema.bind_attrs(attrs), tinfos)
    assert info == TensorInfo(real.shape, real.dtype) == TensorInfo(*expected)


def test_infer_unknown_dims():
    (info,) = get_schema("Mean").infer({}, [TensorInfo((None, 3), np.float32), TensorInfo((2, 1), np.float32)])
    assert info == TensorInfo((2, 3), np.float32)
