"""QuantizeLinear / DequantizeLinear against ONNX's reference evaluator."""

import numpy as np
import pytest

from tests.ops.oracle import check_op, rand
from vfw.core import DTypeError, ShapeError, run

F32, F16 = np.dtype(np.float32), np.dtype(np.float16)
QUANT = [np.dtype(t) for t in (np.int8, np.uint8, np.int16, np.uint16)]


@pytest.mark.parametrize("dtype", QUANT)
def test_quantize_per_tensor(dtype):
    x = rand((3, 4), low=-300, high=300, seed=1)
    x[0, :3] = [0.5, 1.5, -2.5]  # halves round to even
    zp = np.asarray(3 if dtype.kind == "i" else 128, dtype)
    check_op("QuantizeLinear", [x, np.asarray(2.0, F32), zp])
    check_op("QuantizeLinear", [x, np.asarray([0.7], F32), np.asarray([7], dtype)])


def test_quantize_default_uint8_and_output_dtype():
    x = rand((5,), low=-10, high=300, seed=2)
    check_op("QuantizeLinear", [x, np.asarray(1.5, F32)])
    check_op("QuantizeLinear", [x, np.asarray(1.5, F32)], {"output_dtype": np.int16})


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_quantize_per_axis(axis):
    x = rand((2, 3, 4), low=-50, high=50, seed=3)
    n = x.shape[axis]
    scale = rand((n,), low=0.5, high=2, seed=4)
    check_op("QuantizeLinear", [x, scale, rand((n,), np.int8, low=-5, high=5, seed=5)], {"axis": axis})


@pytest.mark.parametrize("block", [2, 3])
def test_quantize_blocked(block):
    x = rand((2, 5, 3), low=-50, high=50, seed=6)
    blocks = -(-5 // block)
    scale = rand((2, blocks, 3), low=0.5, high=2, seed=7)
    zp = rand((2, blocks, 3), np.uint8, low=0, high=20, seed=8)
    check_op("QuantizeLinear", [x, scale, zp], {"axis": 1, "block_size": block})
    check_op("DequantizeLinear", [rand((2, 5, 3), np.uint8, low=0, high=255, seed=9), scale, zp],
             {"axis": 1, "block_size": block})


def test_quantize_float16_and_int32_inputs():
    check_op("QuantizeLinear", [rand((6,), F16, low=-100, high=100, seed=9), np.asarray(0.5, F16),
                                np.asarray(1, np.int8)])
    check_op("QuantizeLinear", [np.arange(-6, 6, dtype=np.int32), np.asarray(2, np.int32), np.asarray(0, np.int8)])


@pytest.mark.parametrize("dtype", QUANT + [np.dtype(np.int32)])
def test_dequantize(dtype):
    x = rand((3, 4), dtype, low=-100, high=200, seed=10)
    check_op("DequantizeLinear", [x, np.asarray(0.25, F32)])
    if dtype != np.int32:
        check_op("DequantizeLinear", [x, np.asarray(0.25, F32), np.asarray(2, dtype)])
        check_op("DequantizeLinear", [x, rand((4,), low=0.1, high=1, seed=11), rand((4,), dtype, low=0, high=9)],
                 {"axis": 1})


def test_dequantize_output_dtype():
    x = rand((4,), np.uint8, low=0, high=255, seed=12)
    check_op("DequantizeLinear", [x, np.asarray(0.5, F32), np.asarray(7, np.uint8)], {"output_dtype": F16},
             rtol=1e-3)


def test_errors():
    x = rand((2, 3))
    with pytest.raises(ShapeError, match="per-axis y_scale"):
        run("QuantizeLinear", x, rand((2,)), axis=1)
    with pytest.raises(DTypeError, match="output_dtype"):
        run("QuantizeLinear", x, np.asarray(1.0, F32), np.asarray(0, np.int8), output_dtype=np.uint8)
    with pytest.raises(ShapeError, match="blocked"):
        run("DequantizeLinear", np.zeros((2, 4), np.int8), np.ones((2, 3), F32), axis=1, block_size=2)
