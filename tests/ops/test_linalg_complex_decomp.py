"""Complex SVD, Eigh, PInv, Cholesky, QR and TriangularSolve in the engine: values and dtypes against numpy, and
gradients of real losses against central differences (complex matrices built from real leaves with ComplexMake)."""

import numpy as np
import pytest

from tests.autograd.gradcheck import check_loss_gradient
from vfw.core import execute, run

RNG = np.random.default_rng(47)


def _complex(shape, dtype=np.complex128):
    return (RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)).astype(dtype)


def _sum(t):
    return execute("ReduceSum", t, keepdims=0)


def _weighted(z, weight):
    """A real loss of both parts of ``z`` (it depends on the phases: only for outputs with no phase freedom)."""
    return _sum(execute("Real", execute("Mul", z, weight)))


def _modulus(z):
    """A real loss invariant under the phase turns of vectors: sum |z|."""
    return _sum(execute("ComplexAbs", z))


def _make(re, im):
    return execute("ComplexMake", re, im)


def _hermitian_pd(re, im):
    z = _make(re, im)
    n = re.array.shape[-1]
    zh = execute("Conj", execute("Transpose", z, perm=[0, 2, 1]))
    return execute("Add", execute("MatMul", z, zh), np.eye(n, dtype=np.complex128) * n)


def _swap_h(x):
    return np.conj(np.swapaxes(x, -1, -2))


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_values_and_dtypes(dtype):
    real = np.float32 if dtype == np.complex64 else np.float64
    tol = dict(rtol=1e-4, atol=1e-5) if dtype == np.complex64 else dict(rtol=1e-11, atol=1e-12)
    a = _complex((2, 4, 3), dtype)
    u, s, vh = run("SVD", a, full_matrices=0)
    assert (u.dtype, s.dtype, vh.dtype) == (dtype, real, dtype)
    np.testing.assert_allclose((u * s[..., None, :]) @ vh, a, **tol)
    np.testing.assert_allclose(s, np.linalg.svd(a.astype(np.complex128), compute_uv=False), **tol)
    h = a @ _swap_h(a)
    w, v = run("Eigh", h)
    assert (w.dtype, v.dtype) == (real, dtype)
    np.testing.assert_allclose(h @ v, v * w[..., None, :], **tol)
    p = run("PInv", a, np.zeros((), real), np.asarray(1e-6, real))
    assert p.dtype == dtype
    np.testing.assert_allclose(p, np.linalg.pinv(a.astype(np.complex128)), **tol)
    pd = h + 4 * np.eye(4, dtype=dtype)
    low = run("Cholesky", pd)
    np.testing.assert_allclose(low @ _swap_h(low), pd, **tol)
    np.testing.assert_allclose(run("Cholesky", pd, upper=1), _swap_h(low), **tol)
    q, r = run("QR", a)
    assert (q.dtype, r.dtype) == (dtype, dtype)
    np.testing.assert_allclose(q @ r, a, **tol)
    np.testing.assert_allclose(np.imag(np.diagonal(r, axis1=-2, axis2=-1)), 0, atol=1e-6)
    b = _complex((2, 4, 2), dtype)
    x = run("TriangularSolve", pd, b, upper=0)
    np.testing.assert_allclose(np.tril(pd) @ x, b, **tol)


def test_svd_gradient_of_values_and_vector_moduli():
    def loss(re, im):
        u, s, vh = execute("SVD", _make(re, im), full_matrices=0)
        return execute("Add", execute("Add", _sum(s), _modulus(u)), _modulus(vh))

    check_loss_gradient(loss, [(2, 4, 3), (2, 4, 3)], RNG)
    check_loss_gradient(loss, [(3, 5), (3, 5)], RNG)


def test_svd_gradient_full_matrices():
    weight = _complex((4, 3))

    def loss(re, im):
        u, s, vh = execute("SVD", _make(re, im), full_matrices=1)
        # U[:, :k] diag(S) Vh (A itself): a phase-invariant product of all three outputs
        head = execute("Slice", u, np.array([0]), np.array([3]), np.array([-1]))
        scale = execute("ComplexMake", s, execute("Mul", s, np.zeros((), s.array.dtype)))
        return _weighted(execute("MatMul", execute("Mul", head, scale), vh), weight)

    check_loss_gradient(loss, [(4, 3), (4, 3)], RNG)


def test_eigh_gradient():
    def loss(re, im):
        w, v = execute("Eigh", _hermitian_pd(re, im))
        return execute("Add", _sum(execute("Mul", w, w)), _modulus(v))

    check_loss_gradient(loss, [(2, 3, 3), (2, 3, 3)], RNG)


def test_pinv_gradient():
    weight = _complex((3, 4))
    check_loss_gradient(lambda re, im: _weighted(execute("PInv", _make(re, im), np.zeros(()), np.asarray(1e-9)),
                                                 weight), [(4, 3), (4, 3)], RNG)


@pytest.mark.parametrize("upper", [0, 1])
def test_cholesky_gradient(upper):
    weight = _complex((3, 3))
    # Cholesky reads one triangle: differentiate through a Hermitian input (the derivative along
    # Hermitian perturbations is what torch's gradient gives there).
    check_loss_gradient(lambda re, im: _weighted(execute("Cholesky", _hermitian_pd(re, im), upper=upper), weight),
                        [(1, 3, 3), (1, 3, 3)], RNG)


@pytest.mark.parametrize("shape", [(4, 3), (3, 3), (3, 5)])
def test_qr_gradient(shape):
    wq, wr = _complex((shape[0], min(shape))), _complex((min(shape), shape[1]))

    def loss(re, im):
        q, r = execute("QR", _make(re, im))
        return execute("Add", _weighted(q, wq), _weighted(r, wr))

    check_loss_gradient(loss, [shape, shape], RNG)


@pytest.mark.parametrize("upper, unit", [(0, 0), (1, 1)])
def test_triangular_solve_gradient(upper, unit):
    weight = _complex((3, 2))
    a = np.eye(3) * 3

    def loss(re_a, im_a, re_b, im_b):
        t = execute("Add", _make(re_a, im_a), a.astype(np.complex128))
        return _weighted(execute("TriangularSolve", t, _make(re_b, im_b), upper=upper, unitriangular=unit), weight)

    check_loss_gradient(loss, [(3, 3), (3, 3), (3, 2), (3, 2)], RNG)
