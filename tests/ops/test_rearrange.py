"""BitCast, ReverseSequence and TensorScatter against numpy and ONNX's reference evaluator."""

import numpy as np
import pytest

from tests.autograd.gradcheck import check_gradient
from tests.ops.oracle import assert_same, check_op, rand
from vfw.core import DTypeError, IndexOutOfRangeError, ShapeError, dtypes, run

PAIRS = [(np.float32, np.int32), (np.int32, np.uint32), (np.float64, np.int64), (np.float16, np.uint16),
         (np.uint8, np.int8), (np.int8, np.bool_), (dtypes.bfloat16, np.int16)]


@pytest.mark.parametrize("src,dst", PAIRS)
def test_bitcast_reinterprets_bytes(src, dst):
    x = rand((2, 3), np.float32, seed=1).astype(src) if np.dtype(src).kind != "b" else rand((2, 3), np.bool_)
    if np.dtype(src) == np.int8:
        x = np.array([[0, 1, 1], [0, 0, 1]], np.int8)
    assert_same(run("BitCast", x, to=np.dtype(dst)), x.view(np.dtype(dst)))


def test_bitcast_width_mismatch():
    with pytest.raises(DTypeError, match="differ in width"):
        run("BitCast", np.zeros(3, np.float32), to=np.dtype(np.int64))


@pytest.mark.parametrize("time_axis,batch_axis", [(0, 1), (1, 0)])
def test_reverse_sequence(time_axis, batch_axis):
    x = rand((4, 4, 2), seed=2)
    check_op("ReverseSequence", [x, np.array([4, 3, 0, 1], np.int64)],
             {"time_axis": time_axis, "batch_axis": batch_axis})
    check_op("ReverseSequence", [rand((3, 5), np.int64, seed=3), np.array([1, 2, 5], np.int64)],
             {"time_axis": 1, "batch_axis": 0})


def test_reverse_sequence_gradient():
    x = rand((3, 2, 2), np.float64, seed=4)
    check_gradient("ReverseSequence", [x, np.array([3, 1], np.int64)], {"time_axis": 0, "batch_axis": 1}, wrt=[0])


def test_reverse_sequence_errors():
    with pytest.raises(IndexOutOfRangeError, match="sequence_lens"):
        run("ReverseSequence", rand((3, 2)), np.array([4, 1], np.int64))
    with pytest.raises(ShapeError, match="batch_axis and time_axis"):
        run("ReverseSequence", rand((3, 2)), np.array([1, 1], np.int64), batch_axis=0, time_axis=0)


@pytest.mark.parametrize("mode", ["linear", "circular"])
@pytest.mark.parametrize("axis", [-2, 1, 2])
def test_tensor_scatter(mode, axis):
    past = rand((2, 3, 6, 4) if axis != 1 else (2, 6, 3, 4), seed=5)
    shape = list(past.shape)
    shape[axis] = 2
    update = rand(tuple(shape), seed=6)
    writes = np.array([1, 4] if mode == "linear" else [3, 5], np.int64)
    check_op("TensorScatter", [past, update, writes], {"mode": mode, "axis": axis})
    check_op("TensorScatter", [past, update], {"mode": mode, "axis": axis})


def test_tensor_scatter_overrun():
    with pytest.raises(IndexOutOfRangeError, match="overruns"):
        run("TensorScatter", rand((1, 4, 2)), rand((1, 3, 2)), np.array([2], np.int64), axis=1)
