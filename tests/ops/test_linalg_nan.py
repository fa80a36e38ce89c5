"""NaN inputs of Det, SLogDet and TriangularSolve propagate to the matrices that hold them.

LAPACK's pivoting LU may move a NaN out of the elimination path and report a finite
determinant (0 for [[nan, 1], [1, 1]]) or solution; PyTorch gives NaN there, and so must the
engine (real torch is the oracle).
"""

import numpy as np
import pytest

from vfw.core import run

torch = pytest.importorskip("torch")

MATRICES = np.array([[[np.nan, 1.0], [1.0, 1.0]], [[2.0, 1.0], [1.0, 3.0]], [[1.0, np.nan], [0.0, 1.0]]])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_det_and_slogdet_of_nan_matrices(dtype):
    a = MATRICES.astype(dtype)
    want = torch.linalg.det(torch.from_numpy(a)).numpy()
    np.testing.assert_allclose(run("Det", a), want, rtol=1e-6, equal_nan=True)
    sign, logabs = run("SLogDet", a)
    want_sign, want_logabs = (t.numpy() for t in torch.linalg.slogdet(torch.from_numpy(a)))
    np.testing.assert_allclose(logabs, want_logabs, rtol=1e-6, equal_nan=True)
    finite = ~np.isnan(want_logabs)
    np.testing.assert_array_equal(sign[finite], want_sign[finite])


@pytest.mark.parametrize("upper", [0, 1])
def test_triangular_solve_with_nan(upper):
    a = MATRICES.copy()
    b = np.arange(12.0).reshape(3, 2, 2)
    want = torch.linalg.solve_triangular(torch.from_numpy(a), torch.from_numpy(b), upper=bool(upper)).numpy()
    np.testing.assert_allclose(run("TriangularSolve", a, b, upper=upper), want, rtol=1e-12, equal_nan=True)
