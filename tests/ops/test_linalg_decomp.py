"""Inverse, Det, SLogDet, Solve, TriangularSolve, Cholesky, QR, PInv, SVD and Eigh (vfw.core.ops.linalg_decomp).

Det is ONNX's and is checked against the reference evaluator; the others have no ONNX
counterpart and are checked against numpy computations and the identities that define
them (A A^-1 = I, L L^T = A, Q R = A with orthonormal Q and triangular R, U diag(S) Vh = A,
V diag(w) V^T = A...), since factors are unique only up to signs.
"""

import ml_dtypes
import numpy as np
import pytest

from tests.ops.oracle import check_op, rand
from vfw.core import run
from vfw.core.errors import DTypeError, OpAttributeError, ShapeError
from vfw.core.ops.linalg_decomp import LinAlgError
from vfw.core.registry import TensorInfo, get_schema

BF16 = np.dtype(ml_dtypes.bfloat16)


def square(*shape, dtype=np.float64, seed=0):
    """Well-conditioned square matrices."""
    return (rand(shape, np.float64, -1, 1, seed) + shape[-1] * np.eye(shape[-1])).astype(dtype)


def spd(*shape, dtype=np.float64, seed=0):
    a = rand(shape, np.float64, -1, 1, seed)
    return (a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])).astype(dtype)


def swap(x):
    return np.swapaxes(x, -1, -2)


def close(actual, expected, dtype):
    tol = 1e-4 if np.dtype(dtype) == np.float32 else 1e-10
    np.testing.assert_allclose(actual, expected, rtol=tol, atol=tol)


def infer_matches(op, inputs, attrs=None):
    schema = get_schema(op)
    real = run(op, *inputs, **(attrs or {}))
    real = real if isinstance(real, tuple) else (real,)
    infos = [TensorInfo(x.shape, x.dtype) for x in inputs]
    expected = [None if r is None else TensorInfo(r.shape, r.dtype) for r in real]
    assert schema.infer(schema.bind_attrs(attrs or {}), infos) == expected


SQUARE_SHAPES = [(3, 3), (2, 4, 4), (2, 1, 2, 2), (1, 1), (0, 0), (0, 3, 3)]
DTYPES = [np.float32, np.float64]


# -- Det, SLogDet, Inverse ----------------------------------------------------------------------
@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4), (2, 1, 2, 2), (1, 1)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_det_matches_onnx(shape, dtype):
    a = rand(shape, dtype, -1, 1, seed=1)
    check_op("Det", [a])
    infer_matches("Det", [a])


@pytest.mark.parametrize("dtype", [np.float16, BF16])
def test_det_half(dtype):
    # The reference evaluator cannot run Det on half floats (numpy.linalg refuses them): the
    # oracle is the float32 determinant, rounded once, which is what vfw computes.
    a = rand((2, 3, 3), dtype, -1, 1, seed=1)
    d = run("Det", a)
    assert d.dtype == dtype
    np.testing.assert_array_equal(d, np.linalg.det(a.astype(np.float32)).astype(dtype))


def test_det_of_empty_and_singular_matrices():
    # Left to numpy: the reference evaluator has no empty-matrix convention (det of a 0x0 matrix is 1).
    np.testing.assert_array_equal(run("Det", np.zeros((2, 0, 0))), np.ones(2))
    assert run("Det", np.zeros((3, 3), np.float32)) == 0


@pytest.mark.parametrize("shape", SQUARE_SHAPES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_inverse_and_slogdet(shape, dtype):
    a = square(*shape, dtype=dtype, seed=2)
    a[..., :1, :] *= -1
    inv = run("Inverse", a)
    assert inv.dtype == dtype and inv.shape == shape
    close(a @ inv, np.broadcast_to(np.eye(shape[-1]), shape), dtype)
    sign, logabs = run("SLogDet", a)
    assert sign.dtype == logabs.dtype == dtype and sign.shape == shape[:-2]
    close(sign * np.exp(logabs), np.linalg.det(a.astype(np.float64)), dtype)
    infer_matches("Inverse", [a])
    infer_matches("SLogDet", [a])


def test_slogdet_of_a_singular_matrix():
    sign, logabs = run("SLogDet", np.zeros((2, 2)))
    assert sign == 0 and logabs == -np.inf


@pytest.mark.parametrize("op", ["Inverse", "Det", "SLogDet", "Cholesky", "Eigh"])
def test_square_matrices_required(op):
    with pytest.raises(ShapeError, match=op):
        run(op, np.ones((2, 3)))
    with pytest.raises(ShapeError, match=op):
        run(op, np.ones(3))
    with pytest.raises(ShapeError, match=op):
        get_schema(op).infer(get_schema(op).bind_attrs({}), [TensorInfo((2, 3), np.dtype(np.float64))])


@pytest.mark.parametrize("op", ["Inverse", "SLogDet", "Solve", "TriangularSolve", "Cholesky", "QR", "SVD", "Eigh",
                                "PInv"])
def test_lapack_ops_refuse_half_and_integers(op):
    schema = get_schema(op)
    for dtype in (np.float16, np.int64):
        inputs = [np.ones((2, 2), dtype)] * len([s for s in schema.inputs if not s.optional])
        with pytest.raises(DTypeError, match=op):
            run(op, *inputs)


def test_singular_matrices_raise_linalg_error():
    with pytest.raises(LinAlgError, match="Inverse: the matrix is singular"):
        run("Inverse", np.zeros((3, 3)))
    with pytest.raises(LinAlgError, match=r"batch element \(1,\)"):
        run("Inverse", np.stack([np.eye(2), np.zeros((2, 2))]))
    with pytest.raises(LinAlgError, match="Solve: the matrix A is singular"):
        run("Solve", np.zeros((2, 3, 3)), np.ones((3, 1)))
    assert issubclass(LinAlgError, ValueError)


# -- Solve, TriangularSolve ----------------------------------------------------------------------
SOLVE_SHAPES = [((3, 3), (3, 2)), ((2, 3, 3), (3, 1)), ((3, 3), (2, 3, 4)), ((2, 1, 3, 3), (4, 3, 2)), ((0, 0), (0, 2)),
                ((2, 2), (2, 0))]


@pytest.mark.parametrize("sa,sb", SOLVE_SHAPES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_solve(sa, sb, dtype):
    a, b = square(*sa, dtype=dtype, seed=3), rand(sb, dtype, seed=4)
    x = run("Solve", a, b)
    assert x.dtype == dtype and x.shape == np.broadcast_shapes(sa[:-2], sb[:-2]) + sb[-2:]
    close(a @ x, np.broadcast_to(b, x.shape), dtype)
    infer_matches("Solve", [a, b])


@pytest.mark.parametrize("sa,sb", SOLVE_SHAPES[:4])
@pytest.mark.parametrize("upper", [0, 1])
@pytest.mark.parametrize("unit", [0, 1])
def test_triangular_solve(sa, sb, upper, unit):
    a, b = square(*sa, seed=5), rand(sb, np.float64, seed=6)
    t = np.triu(a) if upper else np.tril(a)
    if unit:
        t[..., range(sa[-1]), range(sa[-1])] = 1
    x = run("TriangularSolve", a, b, upper=upper, unitriangular=unit)
    close(x, np.linalg.solve(t, b), np.float64)
    infer_matches("TriangularSolve", [a, b], {"upper": upper, "unitriangular": unit})


def test_triangular_solve_reads_one_triangle_and_allows_zero_pivots():
    a = square(3, 3, seed=7)
    noisy = a + np.tril(np.full((3, 3), 100.0), -1)  # entries below the diagonal are not read
    b = np.ones((3, 1))
    np.testing.assert_array_equal(run("TriangularSolve", noisy, b, upper=1), run("TriangularSolve", a, b, upper=1))
    a[1, 1] = 0  # BLAS-style substitution: inf/nan rather than an error
    x = run("TriangularSolve", a, b, upper=1)
    assert np.isfinite(x[2, 0]) and not np.isfinite(x[:2]).all()


@pytest.mark.parametrize("op", ["Solve", "TriangularSolve"])
def test_solve_shape_errors(op):
    for a, b in [(np.ones((3, 3)), np.ones((2, 1))), (np.ones((3, 2)), np.ones((3, 1))), (np.ones((3, 3)), np.ones(3)),
                 (np.ones((2, 3, 3)), np.ones((3, 3, 1)))]:
        with pytest.raises(ShapeError, match=op):
            run(op, a, b)
    with pytest.raises(DTypeError, match=op):
        run(op, np.eye(2), np.ones((2, 1), np.float32))


# -- Cholesky ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("shape", SQUARE_SHAPES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_cholesky(shape, dtype):
    a = spd(*shape, dtype=dtype, seed=8)
    low = run("Cholesky", a)
    up = run("Cholesky", a, upper=1)
    assert low.dtype == dtype and low.shape == shape
    np.testing.assert_array_equal(low, np.tril(low))
    np.testing.assert_array_equal(up, np.triu(up))
    close(low @ swap(low), a, dtype)
    close(swap(up) @ up, a, dtype)
    infer_matches("Cholesky", [a], {"upper": 1})


def test_cholesky_reads_its_triangle_and_rejects_indefinite_matrices():
    a = spd(3, 3, seed=9)
    skewed = a + np.triu(np.full((3, 3), 7.0), 1)
    np.testing.assert_array_equal(run("Cholesky", skewed), run("Cholesky", a))
    np.testing.assert_array_equal(run("Cholesky", swap(skewed).copy(), upper=1), run("Cholesky", a, upper=1))
    with pytest.raises(LinAlgError, match=r"Cholesky: the matrix is not positive-definite \(batch element \(1,\)\)"):
        run("Cholesky", np.stack([a, -a]))


# -- QR --------------------------------------------------------------------------------------------
QR_SHAPES = [(4, 3), (3, 3), (3, 5), (2, 4, 3), (2, 1, 3, 5), (0, 3), (3, 0)]


@pytest.mark.parametrize("shape", QR_SHAPES)
@pytest.mark.parametrize("mode", ["reduced", "complete", "r"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_qr(shape, mode, dtype):
    a = rand(shape, dtype, seed=10)
    q, r = run("QR", a, mode=mode)
    m, n = shape[-2:]
    k = m if mode == "complete" else min(m, n)
    assert r.dtype == dtype and r.shape == shape[:-2] + (k, n)
    np.testing.assert_array_equal(r, np.triu(r))
    if mode == "r":
        assert q is None
        close(np.abs(r), np.abs(run("QR", a)[1]), dtype)
    else:
        assert q.shape == shape[:-2] + (m, k)
        close(swap(q) @ q, np.broadcast_to(np.eye(k), shape[:-2] + (k, k)), dtype)
        close(q @ r, a, dtype)
    infer_matches("QR", [a], {"mode": mode})


def test_qr_attributes():
    with pytest.raises(OpAttributeError, match="QR"):
        run("QR", np.ones((2, 2)), mode="full")
    with pytest.raises(ShapeError, match="QR"):
        run("QR", np.ones(3))


# -- SVD, Eigh, PInv -----------------------------------------------------------------------------
@pytest.mark.parametrize("shape", QR_SHAPES)
@pytest.mark.parametrize("full", [0, 1])
@pytest.mark.parametrize("dtype", DTYPES)
def test_svd(shape, full, dtype):
    a = rand(shape, dtype, seed=11)
    u, s, vh = run("SVD", a, full_matrices=full)
    m, n = shape[-2:]
    k = min(m, n)
    assert u.shape == shape[:-2] + (m, m if full else k) and vh.shape == shape[:-2] + (n if full else k, n)
    assert s.shape == shape[:-2] + (k,) and u.dtype == s.dtype == vh.dtype == dtype
    assert np.all(np.diff(s, axis=-1) <= 0) and np.all(s >= 0)
    close((u[..., :k] * s[..., None, :]) @ vh[..., :k, :], a, dtype)
    close(swap(u) @ u, np.broadcast_to(np.eye(u.shape[-1]), u.shape[:-2] + (u.shape[-1],) * 2), dtype)
    close(vh @ swap(vh), np.broadcast_to(np.eye(vh.shape[-2]), vh.shape[:-2] + (vh.shape[-2],) * 2), dtype)
    infer_matches("SVD", [a], {"full_matrices": full})


@pytest.mark.parametrize("shape", SQUARE_SHAPES)
@pytest.mark.parametrize("uplo", ["L", "U"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_eigh(shape, uplo, dtype):
    a = rand(shape, dtype, seed=12)
    w, v = run("Eigh", a, UPLO=uplo)
    tri = np.tril(a) if uplo == "L" else np.triu(a)
    symmetric = tri + swap(tri) - tri * np.eye(shape[-1])
    assert w.shape == shape[:-1] and v.shape == shape and w.dtype == v.dtype == dtype
    assert np.all(np.diff(w, axis=-1) >= 0)
    close((v * w[..., None, :]) @ swap(v), symmetric, dtype)
    infer_matches("Eigh", [a], {"UPLO": uplo})


@pytest.mark.parametrize("op,attrs", [("SVD", {}), ("Eigh", {})])
def test_non_finite_input_raises(op, attrs):
    with pytest.raises(LinAlgError, match=op):
        run(op, np.full((3, 3), np.nan), **attrs)


@pytest.mark.parametrize("shape", [(4, 3), (3, 5), (2, 3, 3), (0, 3)])
@pytest.mark.parametrize("dtype", DTYPES)
def test_pinv(shape, dtype):
    a = rand(shape, dtype, seed=13)
    zero, eps = np.zeros((), dtype), np.asarray(1e-6, dtype)
    p = run("PInv", a, zero, eps)
    assert p.dtype == dtype and p.shape == shape[:-2] + shape[-2:][::-1]
    close(p, np.linalg.pinv(a.astype(np.float64), rcond=1e-6), dtype)
    infer_matches("PInv", [a, zero, eps])


def test_pinv_tolerances_and_hermitian_mode():
    a = rand((2, 4, 4), np.float64, seed=14)
    s = np.linalg.svd(a, compute_uv=False)
    # Per matrix: rtol cuts the smallest singular value of the first, atol the two smallest of the second.
    rtol = np.array([s[0, 3] / s[0, 0] * 1.01, 0.0])
    atol = np.array([0.0, s[1, 2] * 1.01])
    p = run("PInv", a, atol, rtol)
    for i, keep in enumerate((3, 2)):
        u, sv, vh = np.linalg.svd(a[i])
        close(p[i], (swap(vh)[:, :keep] / sv[:keep]) @ swap(u)[:keep], np.float64)
    sym = a + swap(a)
    close(run("PInv", sym, np.zeros(()), np.asarray(1e-9), hermitian=1), np.linalg.pinv(sym, hermitian=True),
          np.float64)
    with pytest.raises(ShapeError, match="PInv"):
        run("PInv", np.ones((2, 3)), np.zeros(()), np.zeros(()), hermitian=1)
