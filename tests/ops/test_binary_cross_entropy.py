"""BinaryCrossEntropy kernel against numpy's formula (logs clamped at -100), with its errors."""

import numpy as np
import pytest

from vfw.core import OpInputError, ShapeError, dtypes, run


def expected(x, y):
    x, y = x.astype(np.float64), y.astype(np.float64)
    with np.errstate(divide="ignore"):
        return -(y * np.maximum(np.log(x), -100) + (1 - y) * np.maximum(np.log(1 - x), -100))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_values(dtype):
    rng = np.random.default_rng(0)
    x = rng.uniform(0.01, 0.99, (4, 5)).astype(dtype)
    y = rng.uniform(0, 1, (4, 5)).astype(dtype)
    got = run("BinaryCrossEntropy", x, y)
    assert got.dtype == dtype
    np.testing.assert_allclose(got, expected(x, y), rtol=1e-6 if dtype == np.float32 else 1e-13)


def test_clamped_logs_at_zero_and_one():
    x = np.array([0.0, 1.0, 0.0, 1.0, 1e-50])
    y = np.array([1.0, 0.0, 0.0, 1.0, 1.0])
    np.testing.assert_array_equal(run("BinaryCrossEntropy", x, y), [100.0, 100.0, 0.0, 0.0, 100.0])


@pytest.mark.parametrize("dtype", [np.float16, dtypes.bfloat16])
def test_half_precision_computes_in_float32(dtype):
    x = np.array([0.1, 0.5, 0.9], dtype)
    y = np.array([0.0, 0.5, 1.0], dtype)
    got = run("BinaryCrossEntropy", x, y)
    assert got.dtype == dtype
    np.testing.assert_allclose(got.astype(np.float32), expected(x, y).astype(dtype).astype(np.float32), rtol=1e-3)


def test_errors():
    with pytest.raises(OpInputError, match="between 0 and 1"):
        run("BinaryCrossEntropy", np.array([1.5]), np.array([1.0]))
    with pytest.raises(OpInputError, match="between 0 and 1"):
        run("BinaryCrossEntropy", np.array([np.nan]), np.array([1.0]))
    with pytest.raises(ShapeError, match="shape"):
        run("BinaryCrossEntropy", np.array([0.5, 0.5]), np.array([1.0]))
