"""RMSNormalization against ONNX's reference evaluator (numpy where the reference cannot answer)."""

import numpy as np
import pytest

from tests.ops.oracle import assert_same, check_op, rand
from vfw.core import OpAttributeError, ShapeError, TensorInfo, dtypes, get_schema, run

F16, F32, F64, BF16 = np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64), dtypes.bfloat16

CASES = [((4, 6), -1), ((2, 3, 5), -1), ((2, 3, 5), 1), ((2, 3, 4, 5), -2), ((7,), 0), ((3, 4), 0)]


def rms_numpy(x, scale, axis, eps):
    """The spec's formula in float64."""
    x = x.astype(F64)
    axes = tuple(range(axis % x.ndim, x.ndim))
    return x / np.sqrt(np.mean(x * x, axis=axes, keepdims=True) + eps) * scale.astype(F64)


@pytest.mark.parametrize("shape,axis", CASES)
@pytest.mark.parametrize("epsilon", [1e-5, 0.3])
def test_rms_norm(shape, axis, epsilon):
    x = rand(shape, seed=1)
    check_op("RMSNormalization", [x, rand(shape[axis % len(shape):], seed=2)], {"axis": axis, "epsilon": epsilon})


def test_rms_norm_broadcast_scale():
    x = rand((2, 3, 4), seed=1)
    check_op("RMSNormalization", [x, rand((1, 4), seed=2)], {"axis": 1})
    check_op("RMSNormalization", [x, rand((2, 1, 4), seed=2)], {"axis": -1})  # varies along an outer axis
    check_op("RMSNormalization", [x, np.asarray(1.5, F32)], {"axis": -1})


@pytest.mark.parametrize("dtype", [F16, BF16, F64])
def test_rms_norm_dtypes(dtype):
    # Half types are computed in float32 and rounded once (the reference computes in the half type itself).
    x, s = rand((3, 8), dtype, seed=3), rand((8,), dtype, seed=4)
    y = run("RMSNormalization", x, s)
    rtol = {F16: 1e-3, BF16: 1e-2, F64: 1e-12}[dtype]
    assert_same(y, rms_numpy(x, s, -1, 1e-5).astype(dtype), rtol=rtol, atol=rtol)


def test_rms_norm_mixed_dtypes_give_scales_dtype():
    # The spec's output type is V (scale's); computed in float64 when either input is float64.
    x, s = rand((3, 8), F16, seed=5), rand((8,), F64, seed=6)
    assert_same(run("RMSNormalization", x, s), rms_numpy(x, s, -1, 1e-5), rtol=1e-12, atol=1e-12)
    x, s = rand((3, 8), F32, seed=5), rand((8,), F16, seed=6)
    assert_same(run("RMSNormalization", x, s), rms_numpy(x, s, -1, 1e-5).astype(F16), rtol=1e-3, atol=1e-3)


def test_rms_norm_zero_rows_and_empty():
    x = np.zeros((2, 4), F32)
    assert_same(run("RMSNormalization", x, np.ones(4, F32)), x)
    assert run("RMSNormalization", np.zeros((0, 4), F32), np.ones(4, F32)).shape == (0, 4)


def test_rms_norm_out_buffer():
    x, s = rand((3, 5), seed=7), rand((5,), seed=8)
    out = np.empty((3, 5), F32)
    assert run("RMSNormalization", x, s, out=out) is out
    assert_same(out, rms_numpy(x, s, -1, 1e-5).astype(F32))


def test_rms_norm_bad_input():
    x = rand((2, 3, 4))
    with pytest.raises(ShapeError, match="RMSNormalization: scale"):
        run("RMSNormalization", x, rand((3,)))
    with pytest.raises(ShapeError, match="RMSNormalization: axis=3"):
        run("RMSNormalization", x, rand((4,)), axis=3)
    with pytest.raises(ShapeError, match="RMSNormalization: X must have rank >= 1"):
        run("RMSNormalization", np.asarray(1.0, F32), np.asarray(1.0, F32))
    with pytest.raises(OpAttributeError, match="RMSNormalization.*stash_type"):
        run("RMSNormalization", x, rand((4,)), stash_type=16)


def test_rms_norm_infer():
    schema = get_schema("RMSNormalization")
    infos = [TensorInfo((2, None, 4), F16), TensorInfo((4,), F32)]
    assert schema.infer(schema.bind_attrs({}), infos) == [TensorInfo((2, None, 4), F32)]
