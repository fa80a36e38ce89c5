"""DFT, STFT and MelWeightMatrix against ONNX's reference evaluator."""

import numpy as np
import pytest

from tests.ops.oracle import check_op, rand
from vfw.core import ShapeError, run

F32, F64 = np.dtype(np.float32), np.dtype(np.float64)


@pytest.mark.parametrize("inverse,onesided", [(0, 0), (1, 0), (0, 1)])
@pytest.mark.parametrize("axis", [1, 2, -2])
@pytest.mark.parametrize("length", [None, 5, 12])
def test_dft_real_and_complex(inverse, onesided, axis, length):
    for last in ([1, 2] if not onesided else [1]):
        x = rand((2, 8, 6, last), seed=axis + 7 * last)
        inputs = [x, None if length is None else np.array(length, np.int64), np.array(axis, np.int64)]
        check_op("DFT", inputs, {"inverse": inverse, "onesided": onesided}, rtol=1e-4, atol=1e-4)


def test_irfft_and_double():
    x = rand((3, 5, 2), F64, seed=1)
    check_op("DFT", [x, None, np.array(1, np.int64)], {"inverse": 1, "onesided": 1}, rtol=1e-10, atol=1e-10)
    check_op("DFT", [x, np.array(6, np.int64), np.array(1, np.int64)], {"inverse": 1, "onesided": 1},
             rtol=1e-10, atol=1e-10)


def test_dft_errors():
    with pytest.raises(ShapeError, match="axis"):
        run("DFT", rand((2, 3, 1)), None, np.array(2, np.int64))
    with pytest.raises(ShapeError, match="real input"):
        run("DFT", rand((2, 3, 2)), onesided=1)


@pytest.mark.parametrize("onesided", [0, 1])
@pytest.mark.parametrize("window", [False, True])
def test_stft(onesided, window):
    signal = rand((2, 40, 1), seed=3)
    inputs = [signal, np.array(6, np.int64), rand((16,), seed=4) if window else None, np.array(16, np.int64)]
    check_op("STFT", inputs, {"onesided": onesided}, rtol=1e-4, atol=1e-4)
    if not onesided:
        check_op("STFT", [rand((1, 30, 2), seed=5), np.array(5, np.int64), None, np.array(8, np.int64)],
                 {"onesided": 0}, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("bins,length,rate,low,high", [(8, 64, 16000, 0.0, 8000.0), (5, 256, 8000, 100.0, 3000.0),
                                                       (20, 512, 22050, 30.0, 11000.0)])
def test_mel_weight_matrix(bins, length, rate, low, high):
    check_op("MelWeightMatrix", [np.array(bins, np.int64), np.array(length, np.int64), np.array(rate, np.int64),
                                 np.array(low, F32), np.array(high, F32)])
    check_op("MelWeightMatrix", [np.array(bins, np.int32), np.array(length, np.int32), np.array(rate, np.int32),
                                 np.array(low, F32), np.array(high, F32)], {"output_datatype": F64})
