"""Shape ops (vfw.core.ops.shape and shape_layout) against the ONNX reference evaluator."""

import numpy as np
import pytest

from tests.ops.oracle import assert_same, check_op, rand
from vfw.core import (
    DTypeError,
    OpAttributeError,
    OpInputError,
    ShapeError,
    TensorInfo,
    get_schema,
    run,
)
from vfw.core import dtypes as dt

ALL_DTYPES = [np.float32, np.float64, np.float16, dt.bfloat16, np.int8, np.int16, np.int32, np.int64,
              np.uint8, np.uint16, np.uint32, np.uint64, np.bool_]
INT_MAX, INT_MIN = np.iinfo(np.int64).max, np.iinfo(np.int64).min


def i64(*values):
    return np.array(values, dtype=np.int64)


def arange(shape, dtype=np.float32):
    return np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape).astype(dtype)


def infer(op, attrs, infos):
    schema = get_schema(op)
    return schema.infer(schema.bind_attrs(attrs), infos)


def check_infer(op, inputs, attrs=None, value_inputs=()):
    """Inference with every value input known equals the real outputs' shapes and dtypes."""
    attrs = attrs or {}
    outputs = run(op, *inputs, **attrs)
    outputs = list(outputs) if isinstance(outputs, tuple) else [outputs]
    infos = [None if x is None else TensorInfo(x.shape, x.dtype, x if i in value_inputs else None)
             for i, x in enumerate(inputs)]
    assert infer(op, attrs, infos) == [TensorInfo(y.shape, y.dtype) for y in outputs]


# -- every op, every dtype ----------------------------------------------------------------------------------
DTYPE_CASES = [
    ("Identity", lambda x: [x], {}),
    ("Reshape", lambda x: [x, i64(4, -1)], {}),
    ("Transpose", lambda x: [x], {"perm": (1, 0, 2)}),
    ("Squeeze", lambda x: [x[:, :1], i64(1)], {}),
    ("Unsqueeze", lambda x: [x, i64(0, -1)], {}),
    ("Flatten", lambda x: [x], {"axis": 2}),
    ("Concat", lambda x: [x, x[:1]], {"axis": 0}),
    ("Split", lambda x: [x, i64(1, 2)], {"axis": 1}),
    ("Slice", lambda x: [x, i64(-1, 0), i64(INT_MIN, 2), i64(2, 0), i64(-2, 1)], {}),
    ("Expand", lambda x: [x[:, :1], i64(2, 1, 3, 1)], {}),
    ("Tile", lambda x: [x, i64(2, 1, 2)], {}),
    ("Pad", lambda x: [x, i64(1, 0, 2, 0, 3, 1)], {"mode": "constant"}),
    ("Pad", lambda x: [x, i64(1, 0, 2, 0, 3, 1)], {"mode": "edge"}),
    ("Pad", lambda x: [x, i64(1, 2, 0, 1, 0, 1)], {"mode": "reflect"}),
    ("Pad", lambda x: [x, i64(3, 0, 2, 1, 5, 0)], {"mode": "wrap"}),
    ("DepthToSpace", lambda x: [x.reshape(1, 4, 2, 3)], {"blocksize": 2}),
    ("SpaceToDepth", lambda x: [x.reshape(1, 1, 4, 6)], {"blocksize": 2, "mode": "CRD"}),
    ("Trilu", lambda x: [x, i64(1)], {}),
    ("Trilu", lambda x: [x], {"upper": 0}),
]


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("op,make,attrs", DTYPE_CASES, ids=[f"{c[0]}{i}" for i, c in enumerate(DTYPE_CASES)])
def test_all_dtypes(op, make, attrs, dtype):
    check_op(op, make(rand((2, 3, 4), dtype, seed=3)), attrs)


def test_strings():
    words = np.array([["a", "bb", "c"], ["d", "e", "ff"]], dtype=object)
    for op, inputs, attrs in [("Reshape", [words, i64(3, -1)], {}), ("Transpose", [words], {}),
                              ("Concat", [words, words], {"axis": 1}), ("Slice", [words, i64(1), i64(3), i64(1)], {}),
                              ("Tile", [words, i64(1, 2)], {}), ("Pad", [words, i64(1, 0, 0, 1)], {"mode": "edge"})]:
        check_op(op, inputs, attrs)
    # The reference pads strings with the integer 0 and leaves Trilu zeros as 0; ONNX says "empty string".
    padded = run("Pad", words, i64(0, 1, 0, 0))
    assert padded.tolist() == [["", "a", "bb", "c"], ["", "d", "e", "ff"]]
    assert run("Trilu", words).tolist() == [["a", "bb", "c"], ["", "e", "ff"]]


# -- Identity / Reshape -------------------------------------------------------------------------------------
def test_identity_aliases_and_out():
    x = rand((2, 3))
    assert run("Identity", x) is x
    out = np.empty_like(x)
    assert run("Identity", x, out=out) is out
    assert_same(out, x)
    check_op("Identity", [rand((0, 2))])
    check_op("Identity", [np.float16(1.5) * np.ones((), np.float16)])


RESHAPES = [
    ((2, 3, 4), (4, -1), 0), ((2, 3, 4), (0, -1), 0), ((2, 3, 4), (0, 0, 4), 0), ((2, 3, 4), (-1,), 0),
    ((2, 3, 4), (2, 0, 2, 2), 0), ((2, 3, 4), (-1, 0, 2), 0), ((1,), (), 0), ((), (1,), 0), ((), (-1,), 0),
    ((), (1, 1, 1), 0), ((0, 4), (-1, 4), 0), ((0, 4), (4, 0), 1), ((2, 0, 3), (0, 0, 5), 0),
    ((2, 0, 3), (0, 0, 5), 1), ((3, 4), (3, 4), 1), ((3, 4), (2, -1), 1), ((1, 6), (1, 0), 0),
]


@pytest.mark.parametrize("shape,target,allowzero", RESHAPES)
def test_reshape(shape, target, allowzero):
    x = rand(shape)
    (y,) = check_op("Reshape", [x, i64(*target)], {"allowzero": allowzero})
    assert np.shares_memory(y, x) or x.size == 0
    check_infer("Reshape", [x, i64(*target)], {"allowzero": allowzero}, value_inputs=(1,))


def test_reshape_out_and_infer_unknown():
    x = arange((2, 6))
    out = np.empty((3, 4), np.float32)
    assert run("Reshape", x, i64(3, 4), out=out) is out
    assert_same(out, x.reshape(3, 4))
    f32 = np.dtype(np.float32)
    # shape value unknown: only the output rank is known
    assert infer("Reshape", {}, [TensorInfo((2, 6), f32), TensorInfo((3,), np.int64)]) == [TensorInfo((None,) * 3, f32)]
    # data dims partly unknown: copied 0-dims follow them, -1 becomes unknown
    known = TensorInfo((2,), np.int64, i64(0, -1))
    assert infer("Reshape", {}, [TensorInfo((None, 6), f32), known]) == [TensorInfo((None, None), f32)]
    assert infer("Reshape", {}, [TensorInfo((5, None), f32), known]) == [TensorInfo((5, None), f32)]
    assert infer("Reshape", {}, [TensorInfo(None, f32), TensorInfo((2,), np.int64, i64(3, 0))]) == \
        [TensorInfo((3, None), f32)]


@pytest.mark.parametrize("shape,target,allowzero,error,match", [
    ((2, 3), (4, 2), 0, ShapeError, r"Reshape: .*shape \(2, 3\) \(6 elements\) into shape \(4, 2\) \(8 elements\)"),
    ((2, 3), (4, -1), 0, ShapeError, r"Reshape: .*\(2, 3\).*\(4, -1\)"),
    ((2, 3), (-1, -1), 0, OpInputError, "Reshape: .*more than one -1"),
    ((2, 3), (-2, 3), 0, OpInputError, "Reshape: .*invalid dim -2"),
    ((0, 3), (0, -1), 1, OpInputError, "Reshape: .*both 0 and -1"),
    ((3, 4), (0, 2, 0), 0, OpInputError, "Reshape: .*copies dim 2"),
    ((0, 3), (0, -1), 0, ShapeError, "Reshape: .*no integer solution"),
])
def test_reshape_errors(shape, target, allowzero, error, match):
    with pytest.raises(error, match=match):
        run("Reshape", rand(shape), i64(*target), allowzero=allowzero)


def test_reshape_bad_inputs():
    with pytest.raises(ShapeError, match="Reshape: input 'shape' must be 1-D"):
        run("Reshape", rand((2, 3)), i64(6).reshape(1, 1))
    with pytest.raises(DTypeError, match="Reshape: input 'shape'"):
        run("Reshape", rand((2, 3)), np.array([6], np.int32))
    with pytest.raises(OpAttributeError, match="Reshape: attribute 'allowzero'"):
        run("Reshape", rand((2, 3)), i64(6), allowzero=2)


# -- Transpose ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("shape,perm", [
    ((2, 3, 4), None), ((2, 3, 4), (1, 0, 2)), ((2, 3, 4), (2, 0, 1)), ((5,), None), ((5,), (0,)), ((), None),
    ((0, 3), (1, 0)), ((2, 3, 4, 5), (3, 1, 0, 2)), ((2, 1, 3), (0, 2, 1)),
])
def test_transpose(shape, perm):
    x = rand(shape)
    (y,) = check_op("Transpose", [x], {"perm": perm})
    assert np.shares_memory(y, x) or x.size == 0
    check_infer("Transpose", [x], {"perm": perm})
    out = np.empty(y.shape, y.dtype)
    assert run("Transpose", x, perm=perm, out=out) is out
    assert_same(out, y)


def test_transpose_errors():
    with pytest.raises(OpAttributeError, match="Transpose: attribute 'perm'.*permutation"):
        run("Transpose", rand((2, 3)), perm=(0, 0))
    with pytest.raises(OpAttributeError, match="Transpose: attribute 'perm'"):
        run("Transpose", rand((2, 3)), perm=(-1, 0))
    with pytest.raises(ShapeError, match=r"Transpose: perm=\(1, 0\).*shape \(2, 3, 4\)"):
        run("Transpose", rand((2, 3, 4)), perm=(1, 0))
    with pytest.raises(ShapeError, match="Transpose"):
        infer("Transpose", {"perm": (1, 0)}, [TensorInfo((2, 3, 4), np.float32)])


# -- Squeeze / Unsqueeze / Flatten --------------------------------------------------------------------------
@pytest.mark.parametrize("shape,axes", [
    ((1, 3, 1, 2), None), ((1, 3, 1, 2), (0,)), ((1, 3, 1, 2), (-2, 0)), ((1,), (0,)), ((1, 1), None),
    ((0, 1), (1,)), ((0, 1), None), ((2, 3), ()), ((2, 3), None), ((), None),
])
def test_squeeze(shape, axes):
    x = rand(shape, np.float16)
    inputs = [x] if axes is None else [x, i64(*axes)]
    (y,) = check_op("Squeeze", inputs)
    assert np.shares_memory(y, x) or x.size == 0
    check_infer("Squeeze", inputs, value_inputs=(1,))


def test_squeeze_errors_and_infer():
    with pytest.raises(ShapeError, match=r"Squeeze: cannot squeeze axis 1 of data shape \(1, 3\).*size is 3"):
        run("Squeeze", rand((1, 3)), i64(1))
    with pytest.raises(ShapeError, match="Squeeze: axes=.*out of range"):
        run("Squeeze", rand((1, 3)), i64(2))
    with pytest.raises(ShapeError, match="Squeeze: .*repeats"):
        run("Squeeze", rand((1, 3)), i64(0, -2))
    f16 = np.dtype(np.float16)
    assert infer("Squeeze", {}, [TensorInfo((1, None), f16)]) == [TensorInfo(None, f16)]
    assert infer("Squeeze", {}, [TensorInfo((1, None), f16), TensorInfo((1,), np.int64, i64(0))]) == \
        [TensorInfo((None,), f16)]
    assert infer("Squeeze", {}, [TensorInfo((1, 4, 1), f16), TensorInfo((2,), np.int64)]) == \
        [TensorInfo((None,), f16)]


@pytest.mark.parametrize("shape,axes", [
    ((3, 4), (0,)), ((3, 4), (-1,)), ((3, 4), (0, 3)), ((3, 4), (3, 0)), ((), (0,)), ((), (0, -1)),
    ((2, 0), (1,)), ((3, 4), (1, -2)), ((3, 4), ()), ((2,), (-4, 1, -1)),
])
def test_unsqueeze(shape, axes):
    x = rand(shape, np.int32)
    (y,) = check_op("Unsqueeze", [x, i64(*axes)])
    assert np.shares_memory(y, x) or x.size == 0
    check_infer("Unsqueeze", [x, i64(*axes)], value_inputs=(1,))


def test_unsqueeze_errors():
    with pytest.raises(ShapeError, match="Unsqueeze: .*repeats"):
        run("Unsqueeze", rand((2, 3)), i64(0, -4))
    with pytest.raises(ShapeError, match="Unsqueeze: axes=4 is out of range"):
        run("Unsqueeze", rand((2, 3)), i64(4))
    assert infer("Unsqueeze", {}, [TensorInfo((2, 3), np.int8), TensorInfo((2,), np.int64)]) == \
        [TensorInfo((None,) * 4, np.int8)]


@pytest.mark.parametrize("shape,axis", [((2, 3, 4), a) for a in range(-3, 4)] + [
    ((), 0), ((0, 3), 1), ((2, 0, 3), 2), ((2, 0, 3), 0), ((5,), 1), ((5,), -1),
])
def test_flatten(shape, axis):
    x = rand(shape, np.uint8)
    if x.size:
        (y,) = check_op("Flatten", [x], {"axis": axis})
    else:  # the reference evaluator reshapes to (rows, -1), which numpy rejects for empty data
        y = run("Flatten", x, axis=axis)
        axis = axis % max(x.ndim, 1) if axis < x.ndim else axis
        assert_same(y, x.reshape(int(np.prod(shape[:axis])), int(np.prod(shape[axis:]))))
    assert np.shares_memory(y, x) or x.size == 0
    check_infer("Flatten", [x], {"axis": axis})


def test_flatten_errors_and_infer():
    with pytest.raises(ShapeError, match=r"Flatten: axis=4 is out of range for data of shape \(2, 3, 4\)"):
        run("Flatten", rand((2, 3, 4)), axis=4)
    with pytest.raises(ShapeError, match="Flatten: axis=-4"):
        run("Flatten", rand((2, 3, 4)), axis=-4)
    assert infer("Flatten", {"axis": 1}, [TensorInfo((None, 3, 4), np.float32)]) == \
        [TensorInfo((None, 12), np.float32)]


# -- Concat / Split -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("shapes,axis", [
    ([(2, 3), (4, 3)], 0), ([(2, 3), (2, 1), (2, 0)], 1), ([(2, 3), (2, 5)], -1), ([(0, 3), (2, 3)], 0),
    ([(0, 3)], 0), ([(3,)], 0), ([(1, 2, 3)] * 4, 1), ([(2, 0), (2, 0)], 1), ([(0,), (4,), (0,)], -1),
])
def test_concat(shapes, axis):
    inputs = [rand(s, np.int64, seed=i) for i, s in enumerate(shapes)]
    (y,) = check_op("Concat", inputs, {"axis": axis})
    assert not any(np.shares_memory(y, x) for x in inputs)
    check_infer("Concat", inputs, {"axis": axis})
    out = np.empty(y.shape, y.dtype)
    assert run("Concat", *inputs, axis=axis, out=out) is out
    assert_same(out, y)


def test_concat_errors_and_infer():
    with pytest.raises(ShapeError, match=r"Concat: .*same rank, got shapes \(2, 3\), \(3,\)"):
        run("Concat", rand((2, 3)), rand((3,)), axis=0)
    with pytest.raises(ShapeError, match=r"Concat: .*every dim but axis 0, got shapes \(2, 3\), \(2, 4\)"):
        run("Concat", rand((2, 3)), rand((2, 4)), axis=0)
    with pytest.raises(ShapeError, match="Concat: inputs must have rank >= 1"):
        run("Concat", rand(()), rand(()), axis=0)
    with pytest.raises(ShapeError, match="Concat: axis=2 is out of range"):
        run("Concat", rand((2, 3)), rand((2, 3)), axis=2)
    with pytest.raises(OpAttributeError, match="Concat: missing required attribute 'axis'"):
        run("Concat", rand((2, 3)))
    with pytest.raises(DTypeError, match="Concat: .*same dtype"):
        run("Concat", rand((2, 3)), rand((2, 3), np.float64), axis=0)
    f = np.dtype(np.float32)
    assert infer("Concat", {"axis": 1}, [TensorInfo((None, 2), f), TensorInfo((3, None), f)]) == \
        [TensorInfo((3, None), f)]
    assert infer("Concat", {"axis": 0}, [TensorInfo(None, f), TensorInfo((3, 4), f)]) == [TensorInfo((None, None), f)]


@pytest.mark.parametrize("shape,axis,split,num_outputs", [
    ((6,), 0, (2, 4), None), ((6,), 0, None, 3), ((7,), 0, None, 3), ((5, 4), 1, (1, 0, 3), None),
    ((2, 8), -1, None, 4), ((6, 3), 0, (6,), None), ((2, 6), 1, None, 4), ((0, 3), 0, None, 2),
    ((3, 2), -2, None, 1), ((2, 9, 2), 1, (2, 3, 4), None), ((2, 2), 1, None, 3),
])
def test_split(shape, axis, split, num_outputs):
    x = rand(shape, np.float64)
    inputs = [x] if split is None else [x, i64(*split)]
    attrs = {"axis": axis, "num_outputs": num_outputs}
    ys = check_op("Split", inputs, attrs)
    assert len(ys) == (num_outputs or len(split))
    assert all(np.shares_memory(y, x) for y in ys if y.size)
    check_infer("Split", inputs, attrs, value_inputs=(1,))


def test_split_errors_and_infer():
    with pytest.raises(ShapeError, match=r"Split: split sizes \(2, 3\) sum to 5, but the split axis has size 6"):
        run("Split", rand((6,)), i64(2, 3))
    with pytest.raises(OpInputError, match="Split: split sizes .* must be >= 0"):
        run("Split", rand((6,)), i64(7, -1))
    with pytest.raises(OpAttributeError, match="Split: give either"):
        run("Split", rand((6,)), i64(3, 3), num_outputs=2)
    with pytest.raises(OpAttributeError, match="Split: needs"):
        run("Split", rand((6,)))
    with pytest.raises(OpAttributeError, match="Split: attribute 'num_outputs'"):
        run("Split", rand((6,)), num_outputs=0)
    # 5 into 4 chunks of ceil(5/4) = 2 leaves -1 for the last: ONNX's "last chunk smaller" cannot hold
    # (onnxruntime rejects it too; the reference evaluator returns sizes 2, 2, 1, 0).
    with pytest.raises(ShapeError, match="Split: an axis of size 5 cannot be split into num_outputs=4"):
        run("Split", rand((5,)), num_outputs=4)
    with pytest.raises(ShapeError, match="Split: input must have rank >= 1"):
        run("Split", rand(()), num_outputs=1)
    with pytest.raises(ShapeError, match="Split: axis=1 is out of range"):
        run("Split", rand((4,)), num_outputs=2, axis=1)
    f = np.dtype(np.float32)
    assert infer("Split", {"num_outputs": 3, "axis": 1}, [TensorInfo((2, None), f)]) == [TensorInfo((2, None), f)] * 3
    assert infer("Split", {"axis": 0}, [TensorInfo((4, 2), f), TensorInfo((2,), np.int64)]) == \
        [TensorInfo((None, 2), f)] * 2
    assert infer("Split", {"axis": 0}, [TensorInfo((4, 2), f), TensorInfo(None, np.int64)]) == []
    assert infer("Split", {"num_outputs": 2}, [TensorInfo(None, f)]) == [TensorInfo(None, f)] * 2


# -- Slice --------------------------------------------------------------------------------------------------
SLICES = [  # (starts, ends, axes, steps) on data of shape (5, 6)
    ((1,), (3,), None, None), ((1, 0), (3, 6), (0, 1), (1, 2)), ((-1,), (-1000,), (1,), (-1,)),
    ((4,), (1,), None, (-2,)), ((0,), (INT_MAX,), (1,), None), ((-1,), (INT_MIN,), (0,), (-1,)),
    ((INT_MAX,), (INT_MIN,), (1,), (-1,)), ((-100,), (100,), None, None), ((10,), (20,), None, None),
    ((3,), (1,), None, None), ((0,), (6,), (-1,), (10,)), ((5,), (-1,), (1,), (-3,)),
    ((INT_MIN,), (INT_MAX,), (-2,), None), ((-1,), (INT_MAX,), (1,), None), ((4,), (-1,), (1,), (-1,)),
    ((4,), (-7,), (1,), (-1,)), ((0, 0), (-1, -1), None, None), ((2, 5), (0, 0), (1, 0), (-1, -2)),
    ((6,), (0,), (1,), (-1,)), ((-7,), (6,), (1,), (INT_MAX,)), ((3,), (INT_MIN,), (0,), (INT_MIN,)),
    ((), (), None, None), ((1, 1), (4, 5), (-1, -2), (2, 3)),
]


@pytest.mark.parametrize("starts,ends,axes,steps,index_dtype", [
    case + (dtype,) for case in SLICES for dtype in (np.int64, np.int32)
    if dtype == np.int64 or all(abs(v) < 2**31 for v in case[0] + case[1] + (case[3] or ()))])
def test_slice(starts, ends, axes, steps, index_dtype):
    x = arange((5, 6))
    as_index = [None if v is None else np.array(v, index_dtype).reshape(-1) for v in (starts, ends, axes, steps)]
    inputs = [x] + as_index
    while inputs[-1] is None:
        inputs.pop()
    (y,) = check_op("Slice", inputs)
    assert np.shares_memory(y, x) or y.size == 0
    check_infer("Slice", inputs, value_inputs=(1, 2, 3, 4))


@pytest.mark.parametrize("shape,starts,ends,axes,steps", [
    ((0, 3), (0,), (5,), (0,), None), ((0, 3), (-1,), (INT_MIN,), (0,), (-1,)),
    ((2, 3, 4), (1, 0), (4, 1), (2, 0), None),
    ((2, 3, 4), (-2,), (INT_MIN,), (-1,), (-1,)), ((7,), (1,), (6,), None, (2,)), ((1,), (0,), (1,), None, (-1,)),
])
def test_slice_more_shapes(shape, starts, ends, axes, steps):
    inputs = [rand(shape, np.bool_), i64(*starts), i64(*ends), None if axes is None else i64(*axes),
              None if steps is None else i64(*steps)]
    check_op("Slice", inputs)
    check_infer("Slice", inputs, value_inputs=(1, 2, 3, 4))


def spec_slice(x, starts, ends, axes, steps):
    """Slice written straight from the ONNX spec text with index lists (independent of the kernel)."""
    index = [np.arange(d) for d in x.shape]
    for axis, start, end, step in zip(axes, starts, ends, steps):
        dim = x.shape[axis]
        start, end = start + dim if start < 0 else start, end + dim if end < 0 else end
        if step > 0:
            start, end = min(max(start, 0), dim), min(max(end, 0), dim)
        else:
            start, end = min(max(start, 0), dim - 1), min(max(end, -1), dim - 1)
        index[axis] = np.array(range(start, end, step), dtype=np.int64)
    return x[np.ix_(*index)]


def test_slice_random():
    # Random starts/ends/steps (sentinels, out-of-range and negative values) on every dim size 0..7.
    rng = np.random.default_rng(7)
    choices = [INT_MIN, INT_MAX, -100, -9, -8, -7, -3, -1, 0, 1, 2, 5, 7, 8, 100]
    for _ in range(150):
        x = arange((int(rng.integers(0, 8)), int(rng.integers(0, 8))))
        axes = [int(a) for a in rng.permutation(2)[:int(rng.integers(1, 3))]]
        starts, ends = ([int(v) for v in rng.choice(choices, len(axes))] for _ in range(2))
        steps = [int(v) for v in rng.choice([INT_MIN, -5, -2, -1, 1, 2, 3, 9, INT_MAX], len(axes))]
        inputs = [x, i64(*starts), i64(*ends), i64(*axes), i64(*steps)]
        assert_same(run("Slice", *inputs), spec_slice(x, starts, ends, axes, steps))
        check_infer("Slice", inputs, value_inputs=(1, 2, 3, 4))
        # The reference evaluator slices numpy-style, so a start below -dim with a negative step gives it
        # an empty result where the spec clamps the start to 0 (see test_slice_negative_step_clamps_start).
        if not any(st < 0 and s < -x.shape[a] for s, a, st in zip(starts, axes, steps)):
            check_op("Slice", inputs)


@pytest.mark.parametrize("dim,start,end,step,expected", [
    (6, -8, -8, -2, [0]), (4, -100, -8, INT_MIN, [0]), (4, -100, -8, -1, [0]), (3, -8, -7, -2, [0]),
    (6, -7, INT_MIN, -1, [0]), (5, INT_MIN, INT_MIN, -3, [0]),
])
def test_slice_negative_step_clamps_start(dim, start, end, step, expected):
    # ONNX: with a negative step the (dim-adjusted) start is clamped to [0, dim - 1], so a start below -dim
    # still selects element 0.  onnxruntime agrees; the reference evaluator returns [] (numpy slicing).
    y = run("Slice", np.arange(dim, dtype=np.float32), i64(start), i64(end), i64(0), i64(step))
    assert_same(y, np.array(expected, np.float32))


def test_slice_errors_out_and_infer():
    x = arange((5, 6))
    with pytest.raises(OpInputError, match=r"Slice: steps \(0,\) must not contain 0"):
        run("Slice", x, i64(0), i64(2), i64(0), i64(0))
    with pytest.raises(ShapeError, match="Slice: starts .* and ends .* must have the same length"):
        run("Slice", x, i64(0, 1), i64(2))
    with pytest.raises(ShapeError, match="Slice: .*repeats an axis"):
        run("Slice", x, i64(0, 1), i64(2, 3), i64(1, -1))
    with pytest.raises(ShapeError, match=r"Slice: 3 starts given for data of shape \(5, 6\)"):
        run("Slice", x, i64(0, 0, 0), i64(1, 1, 1))
    with pytest.raises(ShapeError, match="Slice: axes=2 is out of range"):
        run("Slice", x, i64(0), i64(1), i64(2))
    with pytest.raises(ShapeError, match="Slice: input 'starts' must be 1-D"):
        run("Slice", x, i64(0).reshape(1, 1), i64(1))
    with pytest.raises(DTypeError, match="Slice: inputs 'starts' .* and 'ends'"):
        run("Slice", x, i64(0), np.array([1], np.int32))
    out = np.empty((2, 3), np.float32)
    assert run("Slice", x, i64(1, 0), i64(3, 6), i64(0, 1), i64(1, 2), out=out) is out
    assert_same(out, x[1:3, ::2])
    f, idx = np.dtype(np.float32), TensorInfo((1,), np.int64)
    assert infer("Slice", {}, [TensorInfo((5, 6, 7), f), idx, idx, TensorInfo((1,), np.int64, i64(-1))]) == \
        [TensorInfo((5, 6, None), f)]
    assert infer("Slice", {}, [TensorInfo((5, 6, 7), f), idx, idx]) == [TensorInfo((None, 6, 7), f)]
    assert infer("Slice", {}, [TensorInfo((5, 6), f), idx, idx, idx]) == [TensorInfo((None, None), f)]
    known = [TensorInfo((1,), np.int64, i64(v)) for v in (1, INT_MAX)]
    assert infer("Slice", {}, [TensorInfo((None, 6), f), *known]) == [TensorInfo((None, 6), f)]


# -- Expand / Tile ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("shape,target", [
    ((3, 1), (2, 1, 4)), ((3, 1), (4,)), ((1,), (3,)), ((), (2, 3)), ((2, 3), (1,)), ((2, 3), ()),
    ((1, 3), (0, 3)), ((2, 1, 3), (2, 5, 1)), ((1, 1), (1, 1, 1)), ((0, 1), (1, 4)),
])
def test_expand(shape, target):
    x = rand(shape, np.int16)
    (y,) = check_op("Expand", [x, i64(*target)])
    assert np.shares_memory(y, x) or y.size == 0
    check_infer("Expand", [x, i64(*target)], value_inputs=(1,))
    out = np.empty(y.shape, y.dtype)
    assert run("Expand", x, i64(*target), out=out) is out
    assert_same(out, y)


def test_expand_errors_and_infer():
    with pytest.raises(ShapeError, match=r"Expand: input of shape \(3,\) cannot be broadcast to shape \(4,\)"):
        run("Expand", rand((3,)), i64(4))
    with pytest.raises(OpInputError, match="Expand: shape .* negative"):
        run("Expand", rand((3,)), i64(-1, 3))
    f = np.dtype(np.float32)
    assert infer("Expand", {}, [TensorInfo((None, 1), f), TensorInfo((3,), np.int64, i64(2, 1, 4))]) == \
        [TensorInfo((2, None, 4), f)]
    assert infer("Expand", {}, [TensorInfo((3, 1), f), TensorInfo((3,), np.int64)]) == [TensorInfo((None,) * 3, f)]


@pytest.mark.parametrize("shape,repeats", [
    ((2, 3), (1, 2)), ((2, 3), (0, 2)), ((), ()), ((3,), (4,)), ((2, 1, 3), (2, 3, 1)), ((0, 2), (3, 1)),
    ((2, 3), (1, 1)),
])
def test_tile(shape, repeats):
    x = rand(shape, np.uint16)
    (y,) = check_op("Tile", [x, i64(*repeats)])
    assert not np.shares_memory(y, x)
    y[...] = 0  # a fresh writable array
    check_infer("Tile", [x, i64(*repeats)], value_inputs=(1,))
    out = np.empty(y.shape, y.dtype)
    assert run("Tile", x, i64(*repeats), out=out) is out
    assert_same(out, np.tile(x, repeats))
    out = np.empty(y.shape[::-1], y.dtype).T  # a non-contiguous buffer
    assert run("Tile", x, i64(*repeats), out=out) is out
    assert_same(out, np.tile(x, repeats))


def test_tile_errors():
    with pytest.raises(ShapeError, match=r"Tile: repeats \(2,\) must have one entry per dim of input shape \(2, 3\)"):
        run("Tile", rand((2, 3)), i64(2))
    with pytest.raises(OpInputError, match="Tile: repeats .* must be >= 0"):
        run("Tile", rand((2, 3)), i64(2, -1))
    assert infer("Tile", {}, [TensorInfo((None, 3), np.float32), TensorInfo((2,), np.int64, i64(2, 2))]) == \
        [TensorInfo((None, 6), np.float32)]


# -- Pad ----------------------------------------------------------------------------------------------------
MODES = ["constant", "reflect", "edge", "wrap"]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("pads", [(1, 2, 0, 1), (0, 0, 0, 0), (2, 1, 2, 3), (0, 3, 0, 0), (2, 0, 0, 0)])
def test_pad(mode, pads):
    x = rand((3, 4), np.float64)
    (y,) = check_op("Pad", [x, i64(*pads)], {"mode": mode})
    assert not np.shares_memory(y, x)
    check_infer("Pad", [x, i64(*pads)], {"mode": mode}, value_inputs=(1, 3))


@pytest.mark.parametrize("shape,pads,axes,mode", [
    ((3, 4), (1, 2), (1,), "reflect"), ((3, 4), (1, 2, 0, 1), (-1, 0), "edge"), ((2, 3, 4), (1, 1), (-2,), "wrap"),
    ((2, 3, 4), (5, 7, 4, 9, 0, 2), None, "wrap"), ((5,), (4, 4), None, "reflect"), ((0, 3), (1, 0, 2, 1), None,
                                                                                   "constant"),
    ((2, 3, 4), (1, 0, 2, 2, 1, 0), None, "constant"), ((1, 1, 2, 2), (0, 0, 1, 1, 0, 0, 1, 1), None, "reflect"),
    ((2, 3), (), (), "edge"),
])
def test_pad_axes_and_shapes(shape, pads, axes, mode):
    x = rand(shape, np.int32)
    inputs = [x, i64(*pads), None] + ([] if axes is None else [np.array(axes, np.int32)])
    check_op("Pad", inputs, {"mode": mode})
    check_infer("Pad", inputs, {"mode": mode}, value_inputs=(1, 3))


@pytest.mark.parametrize("dtype,value", [(np.float32, 2.5), (np.float16, -1.0), (np.int8, 7), (np.bool_, True),
                                         (np.uint64, 9)])
def test_pad_constant_value(dtype, value):
    x = rand((2, 3), dtype)
    check_op("Pad", [x, i64(1, 0, 2, 1), np.array(value, dtype)])
    check_op("Pad", [x, i64(0, 1), np.array([value], dtype), i64(1)])


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("pads", [(-1, 0, 0, -2), (-1, 1, 1, -1), (-2, -1, 2, 3), (0, -2, 1, 2), (-3, -4, 0, 0),
                                  (1, -1, -1, 1), (-1, 2, 0, 2)])
def test_pad_negative(mode, pads):
    # The reference evaluator cannot crop (it fails on negative pads), so this compares with numpy:
    # negative pads crop first, then the cropped data is padded (onnxruntime's order).
    x = rand((3, 4), np.float32)
    begins, ends = pads[:2], pads[2:]
    cropped = x[max(-begins[0], 0):3 - max(-ends[0], 0), max(-begins[1], 0):4 - max(-ends[1], 0)]
    widths = [(max(b, 0), max(e, 0)) for b, e in zip(begins, ends)]
    if mode == "reflect" and any(0 < w >= d for ws, d in zip(widths, cropped.shape) for w in ws):
        with pytest.raises(ShapeError, match="Pad: reflect pads .*after cropping"):
            run("Pad", x, i64(*pads), mode=mode)
        return
    y = run("Pad", x, i64(*pads), np.array(1.5, np.float32), mode=mode)
    extra = {"constant_values": 1.5} if mode == "constant" else {}
    assert_same(y, np.pad(cropped, widths, mode=mode, **extra))
    check_infer("Pad", [x, i64(*pads)], {"mode": mode}, value_inputs=(1,))


@pytest.mark.parametrize("mode", MODES)
def test_pad_random(mode):
    # Random begin/end pads (negative ones crop first) on random 3-D shapes, against numpy's np.pad.
    rng = np.random.default_rng(11)
    for _ in range(40):
        x = rand(tuple(int(d) for d in rng.integers(1, 6, 3)), np.float32, seed=int(rng.integers(100)))
        pads = rng.integers(-2, 5, 6)
        begins, ends = pads[:3], pads[3:]
        cropped = x[tuple(slice(max(-b, 0), d - max(-e, 0)) for b, e, d in zip(begins, ends, x.shape))]
        widths = [(max(int(b), 0), max(int(e), 0)) for b, e in zip(begins, ends)]
        valid = all(d > 0 or b + e == 0 for (b, e), d in zip(widths, cropped.shape)) and \
            min(x.shape[i] + min(begins[i], 0) + min(ends[i], 0) for i in range(3)) >= 0
        if mode == "reflect":
            valid = valid and all(max(w) < d or max(w) == 0 for w, d in zip(widths, cropped.shape))
        elif mode == "constant":
            valid = min(x.shape[i] + min(begins[i], 0) + min(ends[i], 0) for i in range(3)) >= 0
        if not valid:
            with pytest.raises(ShapeError, match="Pad: "):
                run("Pad", x, pads, mode=mode)
            continue
        assert_same(run("Pad", x, pads, mode=mode), np.pad(cropped, widths, mode=mode))
        if all(p >= 0 for p in pads) and (mode != "reflect"):
            check_op("Pad", [x, pads], {"mode": mode})


def test_pad_out():
    x = rand((3, 4))
    for mode in MODES:
        expected = run("Pad", x, i64(1, 2, 0, 1), mode=mode)
        out = np.empty(expected.shape, expected.dtype)
        assert run("Pad", x, i64(1, 2, 0, 1), mode=mode, out=out) is out
        assert_same(out, expected)


@pytest.mark.parametrize("shape,pads,mode,error,match", [
    ((3, 4), (3, 0, 0, 0), "reflect", ShapeError, r"Pad: reflect pads \(3, 0\) of axis 0 must be smaller than its "
                                                   "size 3"),
    ((3, 4), (0, 0, 0, 4), "reflect", ShapeError, "Pad: reflect pads .* axis 1 .* size 4"),
    ((1, 4), (1, 0, 0, 0), "reflect", ShapeError, "Pad: reflect pads"),
    ((3, 4), (-2, 0, 2, 0), "reflect", ShapeError, "Pad: reflect pads .* size 1 .after cropping"),
    ((3, 4), (-2, 0, -2, 0), "constant", ShapeError, r"Pad: pads \(-2, -2\) remove more than the 3 elements of axis 0"),
    ((3, 4), (1, 1), "constant", ShapeError, r"Pad: pads \(1, 1\) must have 4 entries"),
    ((0, 4), (1, 0, 0, 0), "edge", ShapeError, "Pad: mode 'edge' cannot pad axis 0, which is empty"),
    ((0, 4), (0, 0, 1, 0), "wrap", ShapeError, "Pad: mode 'wrap' cannot pad axis 0"),
])
def test_pad_errors(shape, pads, mode, error, match):
    with pytest.raises(error, match=match):
        run("Pad", rand(shape), i64(*pads), mode=mode)


def test_pad_bad_inputs_and_infer():
    with pytest.raises(OpInputError, match=r"Pad: constant_value must be a scalar, got shape \(2,\)"):
        run("Pad", rand((2,)), i64(1, 1), np.ones(2, np.float32))
    with pytest.raises(DTypeError, match="Pad: inputs 'data' .* and 'constant_value'"):
        run("Pad", rand((2,)), i64(1, 1), np.ones((), np.float64))
    with pytest.raises(OpAttributeError, match="Pad: attribute 'mode'"):
        run("Pad", rand((2,)), i64(1, 1), mode="symmetric")
    with pytest.raises(ShapeError, match="Pad: .*repeats an axis"):
        run("Pad", rand((2, 3)), i64(1, 1, 1, 1), None, i64(0, -2))
    f, p = np.dtype(np.float32), TensorInfo((4,), np.int64)
    assert infer("Pad", {}, [TensorInfo((2, 3), f), p]) == [TensorInfo((None, None), f)]
    assert infer("Pad", {}, [TensorInfo((2, 3), f), TensorInfo((2,), np.int64), None,
                             TensorInfo((1,), np.int64, i64(-1))]) == [TensorInfo((2, None), f)]
    assert infer("Pad", {}, [TensorInfo((None, 3), f), TensorInfo((4,), np.int64, i64(1, 1, 1, 1))]) == \
        [TensorInfo((None, 5), f)]


# -- DepthToSpace / SpaceToDepth ----------------------------------------------------------------------------
@pytest.mark.parametrize("mode", ["DCR", "CRD"])
@pytest.mark.parametrize("shape,blocksize", [((1, 8, 2, 3), 2), ((2, 9, 1, 2), 3), ((1, 3, 2, 2), 1),
                                             ((2, 16, 3, 1), 2), ((0, 4, 2, 2), 2), ((1, 4, 0, 2), 2)])
def test_depth_to_space(shape, blocksize, mode):
    x = rand(shape, np.float32)
    (y,) = check_op("DepthToSpace", [x], {"blocksize": blocksize, "mode": mode})
    assert not np.shares_memory(y, x)
    check_infer("DepthToSpace", [x], {"blocksize": blocksize, "mode": mode})
    back = run("SpaceToDepth", y, blocksize=blocksize, mode=mode)  # the two are inverses
    assert_same(back, x)


@pytest.mark.parametrize("mode", ["DCR", "CRD"])
@pytest.mark.parametrize("shape,blocksize", [((1, 2, 4, 6), 2), ((2, 3, 6, 3), 3), ((1, 1, 2, 2), 1),
                                             ((1, 2, 0, 4), 2)])
def test_space_to_depth(shape, blocksize, mode):
    x = rand(shape, np.int64)
    (y,) = check_op("SpaceToDepth", [x], {"blocksize": blocksize, "mode": mode})
    assert not np.shares_memory(y, x)
    check_infer("SpaceToDepth", [x], {"blocksize": blocksize, "mode": mode})
    for out in (np.empty(y.shape, y.dtype), np.empty(y.shape[::-1], y.dtype).T):
        assert run("SpaceToDepth", x, blocksize=blocksize, mode=mode, out=out) is out
        assert_same(out, y)


def test_depth_space_errors():
    with pytest.raises(ShapeError, match=r"DepthToSpace: input must be 4-D \[N, C, H, W\], got shape \(8, 2, 2\)"):
        run("DepthToSpace", rand((8, 2, 2)), blocksize=2)
    with pytest.raises(ShapeError, match="DepthToSpace: channel count 6 is not divisible by 4"):
        run("DepthToSpace", rand((1, 6, 2, 2)), blocksize=2)
    with pytest.raises(ShapeError, match="SpaceToDepth: width 5 is not divisible by 2"):
        run("SpaceToDepth", rand((1, 1, 4, 5)), blocksize=2)
    with pytest.raises(OpAttributeError, match="SpaceToDepth: attribute 'blocksize'"):
        run("SpaceToDepth", rand((1, 1, 4, 4)), blocksize=0)
    with pytest.raises(OpAttributeError, match="DepthToSpace: missing required attribute 'blocksize'"):
        run("DepthToSpace", rand((1, 4, 4, 4)))
    with pytest.raises(OpAttributeError, match="DepthToSpace: attribute 'mode'"):
        run("DepthToSpace", rand((1, 4, 4, 4)), blocksize=2, mode="RCD")
    assert infer("DepthToSpace", {"blocksize": 2}, [TensorInfo((None, 8, None, 3), np.float32)]) == \
        [TensorInfo((None, 2, None, 6), np.float32)]


# -- Trilu --------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("upper", [0, 1])
@pytest.mark.parametrize("k", [None, 0, 1, -1, 3, -5, 10])
@pytest.mark.parametrize("shape", [(4, 5), (5, 4), (2, 3, 4, 4), (0, 3), (3, 0), (1, 1)])
def test_trilu(shape, k, upper):
    x = rand(shape, np.float32)
    inputs = [x] if k is None else [x, i64(k).reshape(())]
    check_op("Trilu", inputs, {"upper": upper})
    check_infer("Trilu", inputs, {"upper": upper})


def test_trilu_special_values_and_out():
    x = np.full((3, 3), np.inf, np.float32)
    x[0, 1] = np.nan
    y = run("Trilu", x, upper=0)
    assert_same(y, np.array([[np.inf, 0, 0], [np.inf, np.inf, 0], [np.inf] * 3], np.float32))  # no inf * 0 = nan
    out = np.full((3, 3), 7, np.float32)
    assert run("Trilu", x, i64(1).reshape(()), out=out) is out
    assert_same(out, np.array([[0, np.nan, np.inf], [0, 0, np.inf], [0, 0, 0]], np.float32))


def test_trilu_errors():
    with pytest.raises(ShapeError, match=r"Trilu: input must have rank >= 2, got shape \(3,\)"):
        run("Trilu", rand((3,)))
    with pytest.raises(OpInputError, match=r"Trilu: k must be a scalar, got shape \(2,\)"):
        run("Trilu", rand((3, 3)), i64(1, 2))
    with pytest.raises(OpAttributeError, match="Trilu: attribute 'upper'"):
        run("Trilu", rand((3, 3)), upper=2)
    with pytest.raises(ShapeError, match="Trilu: input must have rank >= 2"):
        infer("Trilu", {}, [TensorInfo((3,), np.float32)])
