"""AiryAi (not an ONNX operator): values against mpmath on every piece of the kernel, edges, dtypes, shapes."""

import ml_dtypes
import numpy as np
import pytest

from vfw.core import Tensor, execute, run
from vfw.core.errors import DTypeError
from vfw.core.registry import TensorInfo, get_schema

mpmath = pytest.importorskip("mpmath")
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

# the series (-7..2), the integral (2..20), both asymptotic expansions, and the points where the pieces meet
POINTS = np.concatenate([np.linspace(-40.0, 40.0, 161), [-7.0001, -6.9999, 1.9999, 2.0001, 19.999, 20.001, 1e-8,
                                                         -250.0, 120.0]])


def _mpmath_airy(points):
    return np.array([float(mpmath.airyai(mpmath.mpf(float(v)))) for v in points])


def test_values_against_mpmath():
    want = _mpmath_airy(POINTS)
    got = run("AiryAi", POINTS)
    positive = POINTS >= 0
    np.testing.assert_allclose(got[positive], want[positive], rtol=1e-12, atol=0)
    # oscillating side: compared against the amplitude |x|^-1/4 / sqrt(pi) (relative error is unbounded at zeros)
    amplitude = 1.0 / (np.sqrt(np.pi) * np.maximum(np.abs(POINTS[~positive]), 1.0) ** 0.25)
    assert np.max(np.abs(got[~positive] - want[~positive]) / amplitude) < 1e-11


def test_edges():
    got = run("AiryAi", np.array([np.inf, -np.inf, np.nan, 0.0, 1e4]))
    assert np.isnan(got[:3]).all()
    assert got[3] == pytest.approx(0.355028053887817239, rel=1e-15) and got[4] == 0.0


@pytest.mark.parametrize("dtype", [np.float16, ml_dtypes.bfloat16, np.float32])
def test_narrow_dtypes_round_the_float64_value_once(dtype):
    x = np.array([[-8.5, -1.5], [2.5, 21.0]], dtype)
    got = run("AiryAi", x)
    assert got.dtype == x.dtype and got.shape == x.shape
    np.testing.assert_array_equal(got, run("AiryAi", x.astype(np.float64)).astype(dtype))


def test_shapes_dtype_errors_and_no_gradient():
    assert run("AiryAi", np.float64(1.5)).shape == ()
    assert run("AiryAi", np.zeros((0, 3))).shape == (0, 3)
    with pytest.raises(DTypeError):
        run("AiryAi", np.array([1, 2]))
    assert get_schema("AiryAi").infer({}, [TensorInfo((2, None), np.float32)]) == [TensorInfo((2, None), np.float32)]
    assert not execute("AiryAi", Tensor(np.array([0.5]), requires_grad=True)).requires_grad
