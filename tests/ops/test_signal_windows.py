"""Window ops: HannWindow/HammingWindow/BlackmanWindow against ONNX's reference; CosineSumWindow,
BartlettWindow and KaiserWindow against numpy's windows."""

import numpy as np
import pytest

from tests.ops.oracle import assert_same, check_op
from vfw.core import run
from vfw.core.errors import OpAttributeError, OpInputError
from vfw.core.registry import TensorInfo, get_schema

ONNX_WINDOWS = ["HannWindow", "HammingWindow", "BlackmanWindow"]
SYMMETRIC = {"BartlettWindow": ({}, np.bartlett), "KaiserWindow": ({"beta": 5.0}, lambda n: np.kaiser(n, 5.0)),
             "CosineSumWindow": ({"coefficients": [0.54, 0.46]}, np.hamming)}


@pytest.mark.parametrize("op", ONNX_WINDOWS)
@pytest.mark.parametrize("periodic", [0, 1])
@pytest.mark.parametrize("size", [0, 2, 5, 10])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_onnx_windows(op, periodic, size, dtype):
    check_op(op, [np.array(size, np.int64)], {"periodic": periodic, "output_datatype": dtype}, rtol=1e-6,
             atol=1e-7)


@pytest.mark.parametrize("op", ONNX_WINDOWS)
def test_onnx_windows_defaults_and_int32_size(op):
    check_op(op, [np.array(7, np.int32)])


@pytest.mark.parametrize("op", sorted(SYMMETRIC))
@pytest.mark.parametrize("size", [0, 2, 3, 8, 33])
def test_symmetric_windows_against_numpy(op, size):
    attrs, numpy_window = SYMMETRIC[op]
    got = run(op, np.array(size), periodic=0, output_datatype=np.float64, **attrs)
    assert_same(got, numpy_window(size).astype(np.float64), rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("op", sorted(SYMMETRIC) + ONNX_WINDOWS)
def test_periodic_is_the_longer_symmetric_window_truncated(op):
    attrs = SYMMETRIC.get(op, ({}, None))[0]
    periodic = run(op, np.array(9), periodic=1, output_datatype=np.float64, **attrs)
    symmetric = run(op, np.array(10), periodic=0, output_datatype=np.float64, **attrs)
    np.testing.assert_allclose(periodic, symmetric[:-1], rtol=1e-14, atol=1e-15)


def test_symmetric_window_of_one_sample_is_one_and_hamming_is_a_cosine_sum():
    for op in ONNX_WINDOWS + ["BartlettWindow"]:
        np.testing.assert_array_equal(run(op, np.array(1), periodic=0), np.ones(1, np.float32))
    onnx_hamming = run("HammingWindow", np.array(6), output_datatype=np.float64)
    as_sum = run("CosineSumWindow", np.array(6), coefficients=[25 / 46, 21 / 46], output_datatype=np.float64)
    np.testing.assert_allclose(onnx_hamming, as_sum, rtol=1e-15)


def test_kaiser_large_beta_does_not_overflow():
    # I0(800) overflows float64; the ratio of scaled values stays finite (peak 1)
    got = run("KaiserWindow", np.array(7), periodic=0, beta=800.0, output_datatype=np.float64)
    assert np.all(np.isfinite(got)) and got[3] == 1.0
    np.testing.assert_allclose(run("KaiserWindow", np.array(7), periodic=0, beta=-5.0, output_datatype=np.float64),
                               np.kaiser(7, 5.0), rtol=1e-13)


def test_errors_and_inference():
    with pytest.raises(OpInputError, match="size must be >= 0"):
        run("HannWindow", np.array(-1))
    with pytest.raises(OpInputError, match="scalar"):
        run("HannWindow", np.array([3, 4]))
    with pytest.raises(OpAttributeError):
        run("CosineSumWindow", np.array(3), coefficients=[])
    schema = get_schema("KaiserWindow")
    attrs = schema.bind_attrs({"output_datatype": np.float64})
    assert schema.infer(attrs, [TensorInfo((), np.int64, value=np.array(6))]) == [TensorInfo((6,), np.float64)]
    assert schema.infer(attrs, [TensorInfo((), np.int64)]) == [TensorInfo((None,), np.float64)]


@pytest.mark.parametrize("op", ONNX_WINDOWS)
@pytest.mark.parametrize("periodic", [0, 1])
def test_onnx_export_runs_in_onnxruntime(op, periodic):
    from tests.onnx.export_helpers import export_engine, op_types, run_model
    from vfw.core import execute

    model = export_engine(lambda size: execute(op, size, periodic=periodic, output_datatype=np.float64),
                          [np.array(8, np.int64)])
    assert op_types(model) == [op]
    (got,) = run_model(model, [np.array(8, np.int64)])
    # onnxruntime evaluates the windows' cosines in float32 whatever the output type
    assert_same(got, run(op, np.array(8), periodic=periodic, output_datatype=np.float64), rtol=1e-6, atol=1e-7)
