import numpy as np
import onnx
import pytest

from tests.ops.oracle import assert_same, check_op, rand
from vfw.core import dtypes as dt
from vfw.core import get_schema, run
from vfw.core.errors import DTypeError, OpAttributeError, ShapeError
from vfw.core.registry import TensorInfo

# The reference evaluator's own float warnings on inf/nan inputs are noise here.
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning:onnx")

SHAPES = [((3, 4), (3, 4)), ((2, 3, 4), (4,)), ((5, 1, 3), (1, 4, 1)), ((), (2, 2)), ((0, 3), (1, 3)), ((), ())]
COMPARISONS = ["Equal", "Less", "LessOrEqual", "Greater", "GreaterOrEqual"]
NUMERIC = [np.float16, np.float32, np.float64, dt.bfloat16, np.int8, np.int16, np.int32, np.int64,
           np.uint8, np.uint16, np.uint32, np.uint64]


def arr(shape, dtype, low=-3, high=3, seed=0):
    return np.asarray(rand(shape, dtype, low, high, seed))


def pair(shapes, dtype):
    # A narrow value range so that equal elements (ties) occur.
    return [arr(shapes[0], dtype, seed=1), arr(shapes[1], dtype, seed=2)]


# --- comparisons and logic -------------------------------------------------------------------

@pytest.mark.parametrize("shapes", SHAPES)
@pytest.mark.parametrize("op", COMPARISONS)
def test_comparisons_broadcast(op, shapes):
    check_op(op, pair(shapes, np.float32))


@pytest.mark.parametrize("dtype", NUMERIC)
@pytest.mark.parametrize("op", COMPARISONS)
def test_comparisons_dtypes(op, dtype):
    check_op(op, pair(((4, 5), (5,)), dtype))


def test_equal_bool_and_string():
    check_op("Equal", pair(((3, 4), (4,)), np.bool_))
    a = np.array(["a", "bc", ""], dtype=object)
    check_op("Equal", [a, np.array(["a", "b", ""], dtype=object)])


@pytest.mark.parametrize("op", COMPARISONS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
def test_comparisons_nan_inf(op, dtype):
    v = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0], dtype)
    check_op(op, [v[:, None], v[None, :]])


@pytest.mark.parametrize("shapes", SHAPES)
@pytest.mark.parametrize("op", ["And", "Or", "Xor"])
def test_logic_broadcast(op, shapes):
    check_op(op, pair(shapes, np.bool_))


@pytest.mark.parametrize("shape", [(), (5,), (2, 3), (0, 4)])
def test_not(shape):
    check_op("Not", [arr(shape, np.bool_)])


@pytest.mark.parametrize("op", COMPARISONS + ["And", "Or", "Xor", "Not"])
def test_bool_ops_out(op):
    dtype = np.bool_ if op in ("And", "Or", "Xor", "Not") else np.int32
    inputs = [arr((3, 4), dtype, seed=1)] + ([] if op == "Not" else [arr((4,), dtype, seed=2)])
    expected = run(op, *inputs)
    buf = np.zeros((3, 4), bool)
    assert run(op, *inputs, out=buf) is buf
    assert_same(buf, expected)


# --- Where -----------------------------------------------------------------------------------

WHERE_SHAPES = [((3, 4), (3, 4), (3, 4)), ((3, 1), (1, 4), (4,)), ((2, 3, 4), (), (3, 1)), ((), (2, 2), ()),
                ((0, 2), (2,), (1, 2)), ((), (), ())]


@pytest.mark.parametrize("shapes", WHERE_SHAPES)
def test_where_broadcast(shapes):
    cond = arr(shapes[0], np.bool_)
    check_op("Where", [cond, arr(shapes[1], np.float32, seed=1), arr(shapes[2], np.float32, seed=2)])


@pytest.mark.parametrize("dtype", NUMERIC + [np.bool_])
def test_where_dtypes(dtype):
    check_op("Where", [arr((3, 4), np.bool_), arr((3, 4), dtype, seed=1), arr((4,), dtype, seed=2)])


def test_where_strings_and_nan():
    check_op("Where", [np.array([True, False, True]), np.array(["a", "b", "c"], dtype=object),
                       np.array(["x", "y", "z"], dtype=object)])
    check_op("Where", [np.array([True, False]), np.array([np.nan, 1.0]), np.array([2.0, np.inf])])


# --- Cast ------------------------------------------------------------------------------------

CAST_TYPES = [np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64,
              np.float16, dt.bfloat16, np.float32, np.float64]


def cast_source(dtype):
    """Values every target type holds after truncation (0..100, fractions, negatives where signed)."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return np.array([True, False, True])
    if dtype.kind == "u":
        return np.array([0, 1, 7, 100, 127], dtype)
    if dtype.kind == "i":
        return np.array([-100, -1, 0, 1, 127], dtype)
    return np.array([-100.75, -2.5, -0.5, -0.0, 0.0, 0.25, 1.5, 2.9, 99.99, 127.0], dtype)


@pytest.mark.parametrize("to", CAST_TYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("src", CAST_TYPES, ids=lambda d: np.dtype(d).name)
def test_cast_matrix(src, to):
    x = cast_source(src)
    if np.dtype(to).kind == "u" and np.dtype(src).kind in "if":
        x = abs(x)  # negative to unsigned is undefined for floats; keep every case defined
    check_op("Cast", [x.reshape(2, -1) if x.size % 2 == 0 else x], {"to": np.dtype(to)})


def test_cast_special_values():
    f = np.array([np.nan, np.inf, -np.inf, -0.0, 1e-30, 7e4, -7e4], np.float64)
    for to in (np.bool_, np.float16, np.float32, dt.bfloat16):
        check_op("Cast", [f], {"to": np.dtype(to)})
    # fixed point wraps: 200 (int16) -> -56 (int8), -1 -> 255 (uint8), 2**40 + 3 -> 3 (int32)
    np.testing.assert_array_equal(run("Cast", np.array([200, -1], np.int16), to=np.int8), [-56, -1])
    np.testing.assert_array_equal(run("Cast", np.array([-1, 256], np.int32), to=np.uint8), [255, 0])
    np.testing.assert_array_equal(run("Cast", np.array([2**40 + 3], np.int64), to=np.int32), [3])
    # float to int truncates toward zero
    np.testing.assert_array_equal(run("Cast", np.array([-2.7, 2.7], np.float32), to=np.int64), [-2, 2])
    # int to float16 beyond its range is +inf
    np.testing.assert_array_equal(run("Cast", np.array([70000, -70000], np.int32), to=np.float16), [np.inf, -np.inf])


@pytest.mark.parametrize("to", [np.float16, "float16", onnx.TensorProto.FLOAT16, np.dtype(np.float16)])
def test_cast_to_spellings(to):
    y = run("Cast", np.array([1.5, 2.5]), to=to)
    assert y.dtype == np.float16


@pytest.mark.parametrize("saturate", [0, 1])
@pytest.mark.parametrize("round_mode", ["up", "down", "nearest"])
def test_cast_accepts_float8_attributes(saturate, round_mode):
    check_op("Cast", [np.array([1.7, -3.2], np.float32)], {"to": np.dtype(np.int32), "saturate": saturate,
                                                           "round_mode": round_mode})


@pytest.mark.parametrize("shape", [(), (0,), (2, 3, 4)])
def test_cast_shapes_and_out(shape):
    x = arr(shape, np.float64, -50, 50)
    check_op("Cast", [x], {"to": np.dtype(np.int16)})
    buf = np.empty(shape, np.int16)
    assert run("Cast", x, to=np.int16, out=buf) is buf
    assert_same(buf, x.astype(np.int16))


def test_cast_same_type_copies():
    x = np.arange(4.0)
    y = run("Cast", x, to=np.float64)
    assert y is not x and not np.shares_memory(x, y)


@pytest.mark.parametrize(("src", "target"), [(np.float32, np.int64), (np.int32, np.float16), (np.float64, np.bool_),
                                             (np.bool_, dt.bfloat16), (dt.bfloat16, np.float32), (np.uint8, np.int8)])
def test_cast_like(src, target):
    x = cast_source(src)
    check_op("CastLike", [x, np.zeros((2, 2), target)])
    check_op("CastLike", [x, np.zeros((2, 2), target)], {"saturate": 0})


# --- inference -------------------------------------------------------------------------------

@pytest.mark.parametrize(("op", "inputs", "attrs"), [
    ("Less", [arr((5, 1, 3), np.float32), arr((4, 1), np.float32)], {}),
    ("Equal", [arr((2, 3), np.bool_), arr((), np.bool_)], {}),
    ("Xor", [arr((2, 1), np.bool_), arr((1, 3), np.bool_)], {}),
    ("Not", [arr((2, 3), np.bool_)], {}),
    ("Where", [arr((3, 1), np.bool_), arr((4,), np.int64), arr((1, 1, 4), np.int64)], {}),
    ("Cast", [arr((2, 3), np.float32)], {"to": np.uint8}),
    ("Cast", [arr((2, 3), np.int8)], {"to": 16}),
    ("CastLike", [arr((2, 3), np.float32), arr((7,), np.bool_)], {}),
])
def test_infer_matches_kernel(op, inputs, attrs):
    schema = get_schema(op)
    y = run(op, *inputs, **attrs)
    infos = [TensorInfo(x.shape, x.dtype) for x in inputs]
    assert schema.infer(schema.bind_attrs(attrs), infos) == [TensorInfo(y.shape, y.dtype)]


def test_infer_unknown_dims():
    info = get_schema("Greater").infer({}, [TensorInfo((None, 3), np.int32), TensorInfo((4, 1), np.int32)])[0]
    assert info.shape == (4, 3) and info.dtype == np.bool_
    info = get_schema("Where").infer({}, [TensorInfo(None, np.bool_), TensorInfo((2,), np.float16),
                                          TensorInfo((2,), np.float16)])[0]
    assert info.shape is None and info.dtype == np.float16


# --- errors ----------------------------------------------------------------------------------

@pytest.mark.parametrize("op", COMPARISONS + ["And", "Or", "Xor"])
def test_bad_broadcast(op):
    dtype = np.bool_ if op in ("And", "Or", "Xor") else np.float32
    with pytest.raises(ShapeError, match=op):
        run(op, np.zeros((2, 3), dtype), np.zeros((4,), dtype))
    with pytest.raises(ShapeError, match=op):
        get_schema(op).infer({}, [TensorInfo((2, 3), dtype), TensorInfo((4,), dtype)])


def test_where_errors():
    with pytest.raises(ShapeError, match="Where"):
        run("Where", np.ones((2, 3), bool), np.zeros((4,), np.float32), np.zeros((2, 3), np.float32))
    with pytest.raises(ShapeError, match="Where"):
        get_schema("Where").infer({}, [TensorInfo((2, 3), bool), TensorInfo((4,), np.float32),
                                       TensorInfo((1,), np.float32)])
    with pytest.raises(DTypeError, match="Where.*condition"):
        run("Where", np.ones(3, np.int32), np.zeros(3, np.float32), np.zeros(3, np.float32))
    with pytest.raises(DTypeError, match="Where"):
        run("Where", np.ones(3, bool), np.zeros(3, np.float32), np.zeros(3, np.float64))


@pytest.mark.parametrize(("op", "dtypes"), [("Less", (np.bool_, np.bool_)), ("Greater", (np.float32, np.float64)),
                                            ("Equal", (np.int32, np.int64)), ("And", (np.int32, np.int32)),
                                            ("Not", (np.float32,))])
def test_dtype_errors(op, dtypes):
    with pytest.raises(DTypeError, match=op):
        run(op, *[np.zeros(3, d) for d in dtypes])


@pytest.mark.parametrize(("attrs", "match"), [({}, "missing required attribute 'to'"),
                                              ({"to": "string"}, "'to'"), ({"to": 99}, "'to'"),
                                              ({"to": np.float32, "saturate": 2}, "saturate"),
                                              ({"to": np.float32, "round_mode": "zero"}, "round_mode")])
def test_cast_attribute_errors(attrs, match):
    with pytest.raises(OpAttributeError, match=f"Cast.*{match}"):
        run("Cast", np.zeros(3, np.float32), **attrs)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16, np.int8, np.int64, np.bool_])
@pytest.mark.parametrize("shapes", [((80, 90), (80, 90), (80, 90)), ((80, 1), (1, 90), ()), ((90,), (80, 90), (80, 1))])
def test_where_large_inputs_take_the_branch_free_path(dtype, shapes):
    # Above a few thousand elements Where selects with bit masks instead of np.where.
    rng = np.random.default_rng(3)
    cond = rng.random(shapes[0]) < 0.5
    x = (rng.standard_normal(shapes[1]) * 50).astype(dtype)
    y = (rng.standard_normal(shapes[2]) * 50).astype(dtype)
    check_op("Where", [cond, x, y])


def test_where_large_keeps_nan_inf_and_signed_zero_bits():
    x = np.tile(np.array([np.nan, -0.0, np.inf, -np.inf, 1.5], np.float32), 2000)
    cond = np.arange(x.size) % 3 != 0
    y = np.full((), -0.0, np.float32)
    got = run("Where", cond, x, y)
    np.testing.assert_array_equal(got.view(np.uint32), np.where(cond, x, y).view(np.uint32))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16, dt.bfloat16, np.int8, np.uint16, np.int64,
                                   np.bool_])
@pytest.mark.parametrize("zero_side", ["x", "y"])
@pytest.mark.parametrize("size", [511, 512, 4097])
def test_where_against_a_zero_scalar_is_bit_exact(dtype, zero_side, size):
    # A zero (all bits 0) on one side is a mask and one AND; -0.0 is not such a zero.
    rng = np.random.default_rng(size)
    cond = rng.random((size,)) < 0.5
    with np.errstate(invalid="ignore"):  # nan and inf cast to the integer types: any value serves
        values = np.concatenate([[np.nan, -0.0, np.inf], rng.standard_normal(size - 3) * 50]).astype(dtype)
    for zero in (np.zeros((), dtype), np.full((1, 1), -0.0, dtype)):
        args = (values, zero) if zero_side == "y" else (zero, values)
        got = run("Where", cond, *args)
        expected = np.where(cond, *args)
        assert got.dtype == np.dtype(dtype) and got.shape == expected.shape
        np.testing.assert_array_equal(got.view(np.uint8), expected.view(np.uint8))


def test_where_large_strings_and_scalar_branches():
    cond = np.arange(3000) % 4 == 0
    words = np.array(["a", "bc"] * 1500, dtype=object)
    assert list(run("Where", cond, words, np.array("z", dtype=object))) == list(np.where(cond, words, "z"))
    got = run("Where", cond, np.float32(1.5), np.float32(-2.0))
    np.testing.assert_array_equal(got, np.where(cond, np.float32(1.5), np.float32(-2.0)))
