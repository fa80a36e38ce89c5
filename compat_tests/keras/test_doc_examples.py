"""Cases from Keras 3.15.1's docstring examples where vfw's keras differed, compared with real Keras."""

import numpy as np
import pytest

from compat_tests.keras.losses_metrics_harness import same

INT_TRUE = [[0, 1], [0, 0]]
INT_PRED = [[1, 1], [0, 0]]


@pytest.mark.parametrize("metric", ["MeanAbsoluteError", "MeanSquaredError", "MeanSquaredLogarithmicError"])
@pytest.mark.parametrize("dtype", [None, "float64"])
def test_regression_metrics_of_integer_lists(metric, dtype):
    def run(lib):
        m = getattr(lib.keras.metrics, metric)(dtype=dtype)
        m.update_state(INT_TRUE, INT_PRED)
        first = m.result()
        m.reset_state()
        m.update_state(INT_TRUE, INT_PRED, sample_weight=[1, 0])
        return [first, m.result()]
    same(run)


@pytest.mark.parametrize("loss", ["mean_absolute_error", "mean_squared_error", "mean_squared_logarithmic_error"])
@pytest.mark.parametrize("pred_dtype", ["int32", "int64", "float16", "float64", "uint8"])
def test_regression_losses_of_integer_and_other_dtypes(loss, pred_dtype):
    y_true = np.array([[0, 3], [2, 1]], "int32")
    y_pred = np.array([[1, 1], [0, 4]], pred_dtype)
    same(lambda lib: getattr(lib.keras.losses, loss)(y_true, y_pred))


@pytest.mark.parametrize("dtype", ["complex64", "complex128", "float32", "int32", "bool"])
def test_isreal(dtype):
    values = np.array([1 + 1j, 1 + 0j, 4.5, 3, 2, 2j])
    x = values.astype(dtype) if dtype.startswith("complex") else np.array([1, 0, 2]).astype(dtype)
    same(lambda lib: lib.keras.ops.isreal(x))


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_angle_of_complex_is_float32(dtype):
    x = np.array([[1 + 3j, 2 - 5j], [4 - 3j, 3 + 2j], [-1 + 0j, 0j]], dtype)
    same(lambda lib: lib.keras.ops.angle(x))
