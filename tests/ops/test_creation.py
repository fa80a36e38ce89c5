import ml_dtypes
import numpy as np
import pytest

from tests.ops.oracle import check_op, rand, vfw_run
from vfw.core import DTypeError, OpAttributeError, OpInputError, ShapeError, TensorInfo, get_schema, run

BF16 = np.dtype(ml_dtypes.bfloat16)
ALL_DTYPES = [np.float32, np.float16, np.float64, BF16, np.int8, np.int16, np.int32, np.int64, np.uint8,
              np.uint16, np.uint32, np.uint64, np.bool_]


def infer(op, infos, attrs=None):
    schema = get_schema(op)
    return schema.infer(schema.bind_attrs(attrs or {}), infos)


def scalar(value, dtype):
    return np.array(value, dtype=dtype)


# -- Shape / Size --------------------------------------------------------------------
@pytest.mark.parametrize("shape", [(), (0,), (3,), (2, 3, 4), (1, 0, 5, 2)])
@pytest.mark.parametrize("start,end", [(0, None), (1, None), (-1, None), (0, -1), (1, 2), (-10, 10), (2, 1), (5, None)])
def test_shape(shape, start, end):
    check_op("Shape", [rand(shape)], {"start": start, "end": end})


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_shape_size_dtypes(dtype):
    check_op("Shape", [rand((2, 3), dtype)])
    check_op("Size", [rand((2, 3), dtype)])


@pytest.mark.parametrize("shape", [(), (0,), (7,), (2, 3, 4), (3, 0)])
def test_size(shape):
    check_op("Size", [rand(shape)])


def test_shape_size_strings():
    data = np.array([["a", "b", "c"]], dtype=object)
    assert vfw_run("Shape", [data])[0].tolist() == [1, 3]
    assert vfw_run("Size", [data])[0].tolist() == 3


def test_shape_size_infer():
    f32, i64 = np.dtype(np.float32), np.dtype(np.int64)
    [info] = infer("Shape", [TensorInfo((2, 3, 4), f32)], {"start": 1})
    assert info == TensorInfo((2,), i64) and info.value.tolist() == [3, 4]
    [info] = infer("Shape", [TensorInfo((None, 3, 4), f32)], {"end": -1})
    assert info == TensorInfo((2,), i64) and info.value is None
    assert infer("Shape", [TensorInfo(None, f32)]) == [TensorInfo((None,), i64)]
    [info] = infer("Size", [TensorInfo((2, 3, 4), f32)])
    assert info == TensorInfo((), i64) and info.value == 24
    assert infer("Size", [TensorInfo((None, 3), f32)])[0].value is None


# -- Range ---------------------------------------------------------------------------
RANGES = [(3, 9, 3), (10, 4, -2), (0, 10, 1), (0, 10, 3), (5, 5, 1), (5, 1, 1), (1, 5, -1), (-7, 8, 4), (-3, -20, -5)]


@pytest.mark.parametrize("dtype", [np.int16, np.int32, np.int64, np.float32, np.float64, np.float16, BF16])
@pytest.mark.parametrize("start,limit,delta", RANGES)
def test_range(dtype, start, limit, delta):
    check_op("Range", [scalar(start, dtype), scalar(limit, dtype), scalar(delta, dtype)])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("start,limit,delta", [(0.1, 30, 0.1), (1.5, 9, 0.7), (-1, 1, 0.25), (2.5, -3.3, -0.45),
                                               (0, 1e-3, 1e-5), (1e6, 1e6 + 10, 0.5)])
def test_range_float(dtype, start, limit, delta):
    check_op("Range", [scalar(start, dtype), scalar(limit, dtype), scalar(delta, dtype)])


@pytest.mark.parametrize("dtype", [np.float16, BF16])
@pytest.mark.parametrize("stash_type", [1, 11])
@pytest.mark.parametrize("start,limit,delta", [(2040, 2060, 1), (250, 270, 1), (0.1, 3, 0.1), (-2, 2, 0.3)])
def test_range_stash_type(dtype, stash_type, start, limit, delta):
    check_op("Range", [scalar(start, dtype), scalar(limit, dtype), scalar(delta, dtype)], {"stash_type": stash_type})


def test_range_int_extremes():
    # exact integer lengths and values where a float computation would round
    big = np.iinfo(np.int64).max
    out = run("Range", scalar(big - 10, np.int64), scalar(big, np.int64), scalar(3, np.int64))
    assert out.tolist() == [big - 10, big - 7, big - 4, big - 1]
    out = run("Range", scalar(-30000, np.int16), scalar(30000, np.int16), scalar(20000, np.int16))
    assert out.dtype == np.int16 and out.tolist() == [-30000, -10000, 10000]


def test_range_bad_input():
    with pytest.raises(OpInputError, match="Range: delta must not be 0"):
        run("Range", scalar(0, np.int32), scalar(5, np.int32), scalar(0, np.int32))
    with pytest.raises(OpInputError, match="Range: delta must not be 0"):
        run("Range", scalar(0, np.float32), scalar(5, np.float32), scalar(0, np.float32))
    with pytest.raises(OpInputError, match="Range: the number of elements is not finite"):
        run("Range", scalar(0, np.float32), scalar(np.inf, np.float32), scalar(1, np.float32))
    with pytest.raises(ShapeError, match="Range: input 'limit' must be a scalar"):
        run("Range", scalar(0, np.int64), np.array([5]), scalar(1, np.int64))
    with pytest.raises(DTypeError, match="Range: inputs 'start' .* and 'limit'"):
        run("Range", scalar(0, np.int64), scalar(5, np.int32), scalar(1, np.int64))
    with pytest.raises(OpAttributeError, match="Range: attribute 'stash_type'"):
        run("Range", scalar(0, np.float16), scalar(5, np.float16), scalar(1, np.float16), stash_type=0)


def test_range_infer():
    i32 = np.dtype(np.int32)
    start, limit, delta = scalar(10, i32), scalar(4, i32), scalar(-2, i32)
    infos = [TensorInfo((), i32, v) for v in (start, limit, delta)]
    assert infer("Range", infos) == [TensorInfo((3,), i32)]
    infos[1] = TensorInfo((), i32)
    assert infer("Range", infos) == [TensorInfo((None,), i32)]


# -- ConstantOfShape -----------------------------------------------------------------
@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("shape", [[2, 3], [4], [], [0, 5], [1, 1, 2, 1]])
def test_constant_of_shape(dtype, shape):
    value = np.array([1], dtype=dtype) if dtype == np.bool_ else np.array([-3 if np.dtype(dtype).kind in "fi" else 7],
                                                                           dtype=dtype)
    check_op("ConstantOfShape", [np.array(shape, np.int64)], {"value": value})


def test_constant_of_shape_default():
    check_op("ConstantOfShape", [np.array([3, 2], np.int64)])
    out = run("ConstantOfShape", np.array([2], np.int64))
    assert out.dtype == np.float32 and out.tolist() == [0.0, 0.0]


def test_constant_of_shape_out():
    buf = np.empty((2, 2), np.int32)
    assert run("ConstantOfShape", np.array([2, 2], np.int64), value=np.array([5], np.int32), out=buf) is buf
    assert buf.tolist() == [[5, 5], [5, 5]]


def test_constant_of_shape_bad_input():
    with pytest.raises(OpInputError, match=r"ConstantOfShape: shape \(2, -1\) has negative dims"):
        run("ConstantOfShape", np.array([2, -1], np.int64))
    with pytest.raises(ShapeError, match="ConstantOfShape: input must be a 1-D shape"):
        run("ConstantOfShape", np.array([[2]], np.int64))
    with pytest.raises(OpAttributeError, match="ConstantOfShape: attribute 'value'.*exactly one element"):
        run("ConstantOfShape", np.array([2], np.int64), value=np.array([1.0, 2.0]))
    with pytest.raises(DTypeError, match="ConstantOfShape: input 'input' has dtype int32"):
        run("ConstantOfShape", np.array([2], np.int32))


def test_constant_of_shape_infer():
    i64, i8 = np.dtype(np.int64), np.dtype(np.int8)
    value = np.array([1], np.int8)
    assert infer("ConstantOfShape", [TensorInfo((2,), i64, np.array([3, 4]))], {"value": value}) == [
        TensorInfo((3, 4), i8)]
    assert infer("ConstantOfShape", [TensorInfo((3,), i64)]) == [TensorInfo((None, None, None), np.float32)]
    assert infer("ConstantOfShape", [TensorInfo((None,), i64)]) == [TensorInfo(None, np.float32)]


# -- EyeLike -------------------------------------------------------------------------
@pytest.mark.parametrize("shape", [(3, 3), (2, 5), (5, 2), (0, 3), (1, 1)])
@pytest.mark.parametrize("k", [0, 1, -1, 3, -4, 10])
def test_eye_like(shape, k):
    check_op("EyeLike", [rand(shape)], {"k": k})


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_eye_like_dtypes(dtype):
    check_op("EyeLike", [rand((3, 4), dtype)], {"k": 1})
    check_op("EyeLike", [rand((3, 4))], {"dtype": np.dtype(dtype), "k": -1})


def test_eye_like_bad_input():
    with pytest.raises(ShapeError, match=r"EyeLike: input must be 2-D, got shape \(2, 2, 2\)"):
        run("EyeLike", rand((2, 2, 2)))
    with pytest.raises(OpAttributeError, match="EyeLike: attribute 'dtype'"):
        run("EyeLike", rand((2, 2)), dtype="string")


def test_eye_like_infer():
    assert infer("EyeLike", [TensorInfo((None, 4), np.float32)], {"dtype": "int8"}) == [TensorInfo((None, 4), np.int8)]
    assert infer("EyeLike", [TensorInfo((3, 4), np.uint16)]) == [TensorInfo((3, 4), np.uint16)]


# -- Constant ------------------------------------------------------------------------
@pytest.mark.parametrize("attrs", [
    {"value_float": 2.5}, {"value_floats": [1.0, -2.5, 3.0]}, {"value_int": -7}, {"value_ints": [1, 2, 3]},
    {"value": np.arange(6, dtype=np.int32).reshape(2, 3)}, {"value": np.array(1.5, np.float64)},
    {"value": np.ones((2, 0), np.float32)},
] + [{"value": rand((2, 3), dtype)} for dtype in ALL_DTYPES])
def test_constant(attrs):
    check_op("Constant", [], attrs)


def test_constant_strings():
    # the reference returns numpy unicode arrays; vfw's string dtype is object
    assert run("Constant", value_string="abc").tolist() == "abc"
    out = run("Constant", value_strings=["a", "bc"])
    assert out.dtype == object and out.tolist() == ["a", "bc"]


def test_constant_empty_ints():
    # onnx.helper cannot build an empty ints attribute for the reference
    out = run("Constant", value_ints=[])
    assert out.dtype == np.int64 and out.shape == (0,)


def test_constant_returns_fresh_arrays():
    op_out = run("Constant", value_ints=[1, 2])
    op_out[0] = 99
    assert run("Constant", value_ints=[1, 2]).tolist() == [1, 2]


def test_constant_bad_attrs():
    with pytest.raises(OpAttributeError, match="Constant: exactly one of .* got none"):
        run("Constant")
    with pytest.raises(OpAttributeError, match="Constant: exactly one of .* got value_float, value_int"):
        run("Constant", value_float=1.0, value_int=1)
    with pytest.raises(OpAttributeError, match="Constant: unknown attribute 'sparse_value'"):
        run("Constant", sparse_value=np.zeros(2))


def test_constant_infer():
    [info] = infer("Constant", [], {"value_floats": [1.0, 2.0]})
    assert info == TensorInfo((2,), np.float32) and info.value.tolist() == [1.0, 2.0]
    assert infer("Constant", [], {"value": np.zeros((2, 3), np.uint8)}) == [TensorInfo((2, 3), np.uint8)]
