"""Complex decompositions of torch.linalg (svd, qr, cholesky, eigh, lstsq, pinv, rank, norms, matrix functions,
LU, triangular solves, householder_product, vander) against real torch 2.13: values, dtypes, invariants where the
vectors' phases are free, and conjugate-Wirtinger gradients of real-valued losses."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import vfw.torch as vt  # noqa: E402

LIBS = (torch, vt)
COMPLEX = (np.complex64, np.complex128)


def _random(shape, dtype=np.complex128, seed=0):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)


def _hermitian_pd(shape, dtype=np.complex128, seed=1):
    a = _random(shape, np.complex128, seed)
    return (a @ np.conj(np.swapaxes(a, -1, -2)) + shape[-1] * np.eye(shape[-1])).astype(dtype)


def _numpy(t):
    return np.array(t.detach().resolve_conj().numpy())


def _tol(dtype):
    single = np.dtype(dtype) in (np.dtype(np.complex64), np.dtype(np.float32))
    return dict(rtol=2e-3, atol=2e-4) if single else dict(rtol=1e-8, atol=1e-10)


def _compare(fn, arrays, dtype):
    """Run ``fn`` in both libraries on the same arrays; compare every tensor result (dtype, shape, values)."""
    results = [fn(lib, *[lib.from_numpy(a.astype(dtype)) for a in arrays]) for lib in LIBS]
    want, got = (r if isinstance(r, tuple) else (r,) for r in results)
    assert len(want) == len(got)
    for w, g in zip(want, got):
        assert str(w.dtype).replace("torch.", "") == str(g.dtype).replace("torch.", "")
        assert tuple(w.shape) == tuple(g.shape)
        np.testing.assert_allclose(_numpy(g), _numpy(w), **_tol(dtype))


A_TALL = _random((2, 4, 3))
A_WIDE = _random((3, 5), seed=2)
SQUARE = _random((2, 3, 3), seed=3)
HPD = _hermitian_pd((2, 3, 3))
RHS = _random((2, 3, 2), seed=4)

VALUE_CASES = {
    "svdvals": (lambda L, a: L.linalg.svdvals(a), (A_TALL,)),
    "svd_values": (lambda L, a: L.linalg.svd(a, full_matrices=False).S, (A_WIDE,)),
    "torch.svd_no_uv": (lambda L, a: L.svd(a, compute_uv=False), (A_TALL,)),
    "qr_reduced": (lambda L, a: L.linalg.qr(a), (A_TALL,)),
    "qr_complete": (lambda L, a: L.linalg.qr(a, mode="complete"), (A_TALL,)),
    "qr_wide_r": (lambda L, a: L.linalg.qr(a, mode="r").R, (A_WIDE,)),
    "cholesky": (lambda L, a: L.linalg.cholesky(a), (HPD,)),
    "cholesky_upper": (lambda L, a: L.linalg.cholesky(a, upper=True), (HPD,)),
    "cholesky_ex": (lambda L, a: L.linalg.cholesky_ex(a), (HPD,)),
    "eigvalsh": (lambda L, a: L.linalg.eigvalsh(a), (HPD,)),
    "eigvalsh_upper": (lambda L, a: L.linalg.eigvalsh(a, UPLO="U"), (SQUARE,)),  # reads the upper triangle only
    "pinv": (lambda L, a: L.linalg.pinv(a), (A_TALL,)),
    "pinv_hermitian": (lambda L, a: L.linalg.pinv(a, hermitian=True), (HPD,)),
    "matrix_rank": (lambda L, a: L.linalg.matrix_rank(a @ a.mH), (A_TALL,)),
    "matrix_rank_hermitian": (lambda L, a: L.linalg.matrix_rank(a, hermitian=True), (HPD,)),
    "norm_nuc": (lambda L, a: L.linalg.matrix_norm(a, "nuc"), (A_TALL,)),
    "norm_2": (lambda L, a: L.linalg.matrix_norm(a, 2), (A_TALL,)),
    "norm_-2": (lambda L, a: L.linalg.matrix_norm(a, -2), (A_TALL,)),
    "cond": (lambda L, a: L.linalg.cond(a), (SQUARE,)),
    "matrix_exp": (lambda L, a: L.linalg.matrix_exp(a), (SQUARE,)),
    "matrix_power": (lambda L, a: L.linalg.matrix_power(a, 3), (SQUARE,)),
    "matrix_power_negative": (lambda L, a: L.linalg.matrix_power(a, -2), (SQUARE,)),
    "lstsq_gelsd": (lambda L, a, b: L.linalg.lstsq(a, b, driver="gelsd"), (A_TALL, _random((2, 4, 2), seed=5))),
    "lstsq_gelsy_vector": (lambda L, a, b: L.linalg.lstsq(a, b).solution, (A_TALL, _random((2, 4), seed=5))),
    "lu_factor": (lambda L, a: L.linalg.lu_factor(a), (SQUARE,)),
    "lu_factor_ex": (lambda L, a: L.linalg.lu_factor_ex(a), (A_TALL,)),
    "lu": (lambda L, a: L.linalg.lu(a), (A_WIDE,)),
    "lu_unpack": (lambda L, a: L.lu_unpack(*L.linalg.lu_factor(a)), (SQUARE,)),
    "lu_solve": (lambda L, a, b: L.linalg.lu_solve(*L.linalg.lu_factor(a), b), (SQUARE, RHS)),
    "lu_solve_adjoint": (lambda L, a, b: L.linalg.lu_solve(*L.linalg.lu_factor(a), b, adjoint=True), (SQUARE, RHS)),
    "lu_solve_right": (lambda L, a, b: L.linalg.lu_solve(*L.linalg.lu_factor(a), b.mT, left=False), (SQUARE, RHS)),
    "lu_solve_right_adjoint": (lambda L, a, b: L.linalg.lu_solve(*L.linalg.lu_factor(a), b.mT, left=False,
                                                                 adjoint=True), (SQUARE, RHS)),
    "solve_triangular_upper": (lambda L, a, b: L.linalg.solve_triangular(a, b, upper=True), (SQUARE, RHS)),
    "solve_triangular_right_unit": (lambda L, a, b: L.linalg.solve_triangular(a, b.mT, upper=False, left=False,
                                                                              unitriangular=True), (SQUARE, RHS)),
    "triangular_solve_transpose": (lambda L, a, b: L.triangular_solve(b, a, transpose=True), (SQUARE, RHS)),
    "cholesky_solve": (lambda L, a, b: L.cholesky_solve(b, L.linalg.cholesky(a)), (HPD, RHS)),
    "cholesky_solve_upper": (lambda L, a, b: L.cholesky_solve(b, L.linalg.cholesky(a, upper=True), upper=True),
                             (HPD, RHS)),
    "cholesky_inverse": (lambda L, a: L.cholesky_inverse(L.linalg.cholesky(a)), (HPD,)),
    "householder_product": (lambda L, a, t: L.linalg.householder_product(a, t), (A_TALL, _random((2, 2), seed=6))),
    "vander": (lambda L, x: L.linalg.vander(x, N=4), (_random((2, 3), seed=7),)),
}


@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize("case", sorted(VALUE_CASES))
def test_values_match_torch(case, dtype):
    fn, arrays = VALUE_CASES[case]
    _compare(fn, arrays, dtype)


def _orthonormal_columns(x, dtype):
    n = x.shape[-1]
    np.testing.assert_allclose(np.conj(np.swapaxes(x, -1, -2)) @ x, np.broadcast_to(np.eye(n), x.shape[:-2] + (n, n)),
                               **_tol(dtype))


@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize("full_matrices", [True, False])
@pytest.mark.parametrize("a", [A_TALL, A_WIDE], ids=["tall", "wide"])
def test_svd_invariants(a, full_matrices, dtype):
    # Singular vectors are defined up to a phase each (torch documents no convention): compare U S Vh = A,
    # orthonormality and the vectors' moduli.
    a = a.astype(dtype)
    u, s, vh = (_numpy(t) for t in vt.linalg.svd(vt.from_numpy(a), full_matrices=full_matrices))
    tu, ts, tvh = (_numpy(t) for t in torch.linalg.svd(torch.from_numpy(a), full_matrices=full_matrices))
    assert (u.dtype, s.dtype, vh.dtype) == (tu.dtype, ts.dtype, tvh.dtype)
    assert (u.shape, s.shape, vh.shape) == (tu.shape, ts.shape, tvh.shape)
    np.testing.assert_allclose(s, ts, **_tol(dtype))
    k = s.shape[-1]
    np.testing.assert_allclose((u[..., :k] * s[..., None, :]) @ vh[..., :k, :], a, **_tol(dtype))
    _orthonormal_columns(u, dtype)
    _orthonormal_columns(np.conj(np.swapaxes(vh, -1, -2)), dtype)
    np.testing.assert_allclose(np.abs(u[..., :k]), np.abs(tu[..., :k]), **_tol(dtype))
    np.testing.assert_allclose(np.abs(vh[..., :k, :]), np.abs(tvh[..., :k, :]), **_tol(dtype))


@pytest.mark.parametrize("dtype", COMPLEX)
def test_legacy_svd_returns_v(dtype):
    a = A_TALL.astype(dtype)
    u, s, v = (_numpy(t) for t in vt.svd(vt.from_numpy(a)))
    assert v.shape == (2, 3, 3)
    np.testing.assert_allclose((u * s[..., None, :]) @ np.conj(np.swapaxes(v, -1, -2)), a, **_tol(dtype))


@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize("uplo", ["L", "U"])
def test_eigh_invariants(uplo, dtype):
    a = SQUARE.astype(dtype)  # only the UPLO triangle is read: the Hermitian matrix it defines
    h = np.tril(a) if uplo == "L" else np.triu(a)
    h = h + np.conj(np.swapaxes(h, -1, -2)) - np.real(np.diagonal(a, axis1=-2, axis2=-1))[..., None] * np.eye(3)
    w, v = (_numpy(t) for t in vt.linalg.eigh(vt.from_numpy(a), UPLO=uplo))
    tw, tv = (_numpy(t) for t in torch.linalg.eigh(torch.from_numpy(a), UPLO=uplo))
    assert (w.dtype, v.dtype) == (tw.dtype, tv.dtype)
    np.testing.assert_allclose(w, tw, **_tol(dtype))
    np.testing.assert_allclose(h @ v, v * w[..., None, :], **_tol(dtype))
    _orthonormal_columns(v, dtype)
    np.testing.assert_allclose(np.abs(v), np.abs(tv), **_tol(dtype))


def _mm(L, u, s, vh):
    return u[..., :, : s.shape[-1]] @ (s.to(u.dtype)[..., None] * vh[..., : s.shape[-1], :])


GRAD_CASES = {
    "svdvals": (lambda L, a: L.linalg.svdvals(a).sum(), (A_WIDE,)),
    "svd_S": (lambda L, a: L.linalg.svd(a, full_matrices=False)[1].pow(2).sum(), (A_TALL,)),
    "svd_abs_U": (lambda L, a: L.linalg.svd(a, full_matrices=False)[0].abs().sum(), (A_TALL,)),
    "svd_abs_Vh_wide": (lambda L, a: L.linalg.svd(a, full_matrices=False)[2].abs().sum(), (A_WIDE,)),
    "svd_reconstruct_full": (lambda L, a: _mm(L, *L.linalg.svd(a)).real.sum(), (A_TALL,)),
    "svd_rank_two_part": (lambda L, a: (lambda u, s, vh: (u[..., :2] @ vh[..., :2, :]).imag.sum())(
        *L.linalg.svd(a, full_matrices=False)), (A_TALL,)),
    "torch.svd_abs_V": (lambda L, a: L.svd(a)[2].abs().sum(), (A_TALL,)),
    "norm_nuc": (lambda L, a: L.linalg.matrix_norm(a, "nuc").sum(), (A_TALL,)),
    "norm_2": (lambda L, a: L.linalg.matrix_norm(a, 2).sum(), (A_WIDE,)),
    "qr_tall": (lambda L, a: (lambda q, r: q.real.sum() + r.imag.sum() + r.abs().sum())(*L.linalg.qr(a)), (A_TALL,)),
    "qr_wide": (lambda L, a: (lambda q, r: q.imag.sum() + r.real.sum())(*L.linalg.qr(a)), (A_WIDE,)),
    "qr_square_complete": (lambda L, a: (lambda q, r: (q @ r.mH).abs().sum())(*L.linalg.qr(a, mode="complete")),
                           (SQUARE,)),
    "cholesky": (lambda L, a: (lambda f: f.real.sum() + f.imag.sum())(L.linalg.cholesky(a)), (HPD,)),
    "cholesky_upper": (lambda L, a: (lambda f: f.real.sum() - 2 * f.imag.sum())(L.linalg.cholesky(a, upper=True)),
                       (HPD,)),
    "eigvalsh": (lambda L, a: L.linalg.eigvalsh(a).pow(2).sum(), (HPD,)),
    "eigh_abs_vectors": (lambda L, a: (lambda w, v: v.abs().sum() + w.sum())(*L.linalg.eigh(a)), (HPD,)),
    "eigh_projector": (lambda L, a: (lambda w, v: (v[..., :1] @ v[..., :1].mH).real.sum())(*L.linalg.eigh(a)),
                       (HPD,)),
    "pinv": (lambda L, a: (lambda p: p.real.sum() + p.imag.sum())(L.linalg.pinv(a)), (A_TALL,)),
    "pinv_hermitian": (lambda L, a: L.linalg.pinv(a, hermitian=True).abs().sum(), (HPD,)),
    "lstsq": (lambda L, a, b: L.linalg.lstsq(a, b).solution.abs().sum(), (A_TALL, _random((2, 4, 2), seed=8))),
    "solve_triangular": (lambda L, a, b: L.linalg.solve_triangular(a, b, upper=True).real.sum(), (SQUARE, RHS)),
    "solve_triangular_right": (lambda L, a, b: L.linalg.solve_triangular(a, b.mT, upper=False, left=False)
                               .imag.sum(), (SQUARE, RHS)),
    "lu": (lambda L, a: (lambda p, lo, up: lo.real.sum() + up.imag.sum())(*L.linalg.lu(a)), (SQUARE,)),
    "lu_solve_adjoint": (lambda L, a, b: L.linalg.lu_solve(*L.linalg.lu_factor(a), b, adjoint=True).abs().sum(),
                         (SQUARE, RHS)),
    "cholesky_solve": (lambda L, a, b: L.cholesky_solve(b, L.linalg.cholesky(a)).real.sum(), (HPD, RHS)),
    "matrix_exp": (lambda L, a: L.linalg.matrix_exp(a / 3).real.sum(), (SQUARE,)),
    "matrix_power": (lambda L, a: L.linalg.matrix_power(a, -2).imag.sum(), (SQUARE,)),
    "householder_product": (lambda L, a, t: L.linalg.householder_product(a, t).real.sum(),
                            (A_TALL, _random((2, 3), seed=9))),
    "vander": (lambda L, x: L.linalg.vander(x).abs().sum(), (_random((2, 3), seed=10),)),
}


@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize("case", sorted(GRAD_CASES))
def test_gradients_match_torch(case, dtype):
    fn, arrays = GRAD_CASES[case]
    grads = []
    for lib in LIBS:
        inputs = [lib.from_numpy(a.astype(dtype)).requires_grad_() for a in arrays]
        loss = fn(lib, *inputs)
        loss.backward()
        grads.append([_numpy(t.grad) for t in inputs])
    for want, got in zip(*grads):
        assert want.dtype == got.dtype
        np.testing.assert_allclose(got, want, **(dict(rtol=5e-3, atol=5e-4) if dtype == np.complex64 else
                                                 dict(rtol=1e-7, atol=1e-9)))


@pytest.mark.parametrize("loss, message", [
    (lambda L, a: L.linalg.svd(a, full_matrices=False)[0].real.sum(), "svd_backward: The singular vectors"),
    (lambda L, a: L.linalg.svd(a, full_matrices=False)[2].imag.sum(), "svd_backward: The singular vectors"),
    (lambda L, a: L.linalg.eigh(a @ a.mH)[1].real.sum(), "linalg_eigh_backward: The eigenvectors"),
])
def test_phase_dependent_losses_are_refused(loss, message):
    for lib in LIBS:
        a = lib.from_numpy(SQUARE[0].copy()).requires_grad_()
        with pytest.raises(RuntimeError, match=message):
            loss(lib, a).backward()


def test_not_positive_definite_complex():
    a = HPD.copy()
    a[1, 2, 2] = -50  # batch element 1 fails at its third leading minor
    for lib in LIBS:
        with pytest.raises(RuntimeError, match="not positive-definite"):
            lib.linalg.cholesky(lib.from_numpy(a))
    _compare(lambda L, x: L.linalg.cholesky_ex(x).info, (a,), np.complex128)


def test_float_inputs_unchanged():
    # The real paths still give torch's real results (the complex extension must not promote them).
    a = A_TALL.real.copy()
    _compare(lambda L, x: L.linalg.svdvals(x), (a,), np.float64)
    _compare(lambda L, x: L.linalg.eigvalsh(x @ x.mT), (a,), np.float64)
    _compare(lambda L, x: L.linalg.lstsq(x, x[..., :1], driver="gelsd"), (a,), np.float64)


LDL_DTYPES = (np.float32, np.float64, np.complex64, np.complex128)


def _symmetric_input(shape, dtype, seed):
    a = _random(shape, np.complex128, seed) if np.dtype(dtype).kind == "c" else \
        np.random.default_rng(seed).standard_normal(shape)
    a[..., 0, 0] = 0  # the first step needs a row interchange or a 2x2 pivot block
    return a.astype(dtype)


@pytest.mark.parametrize("dtype", LDL_DTYPES)
@pytest.mark.parametrize("hermitian", [False, True])
@pytest.mark.parametrize("seed", range(4))
def test_ldl_factor_and_solve_match_torch(seed, hermitian, dtype):
    # Not symmetric: only the lower triangle is read. Random values keep the Bunch-Kaufman pivot choices clear
    # of rounding-level ties, so the pivots match LAPACK's exactly.
    a = _symmetric_input((3, 5, 5), dtype, seed)
    b = _random((3, 5, 2), seed=seed + 10)
    b = (b if np.dtype(dtype).kind == "c" else b.real).astype(dtype)
    _compare(lambda L, x: L.linalg.ldl_factor_ex(x, hermitian=hermitian), (a,), dtype)
    _compare(lambda L, x, y: L.linalg.ldl_solve(*L.linalg.ldl_factor(x, hermitian=hermitian), y, hermitian=hermitian),
             (a, b), dtype)


def test_ldl_singular_and_not_differentiable():
    zeros = np.zeros((2, 3, 3))
    _compare(lambda L, x: L.linalg.ldl_factor_ex(x), (zeros,), np.float64)
    a = _symmetric_input((4, 4), np.complex128, 3)
    for lib in LIBS:
        with pytest.raises(RuntimeError):
            lib.linalg.ldl_factor(lib.from_numpy(zeros))
        x = lib.from_numpy(a.copy()).requires_grad_()
        with pytest.raises(RuntimeError, match="derivative for aten::linalg_ldl_factor_ex is not implemented"):
            lib.linalg.ldl_factor(x).LD.abs().sum().backward()
        ld, pivots = lib.linalg.ldl_factor(x.detach())
        rhs = lib.from_numpy(np.ones((4, 1), np.complex128)).requires_grad_()
        with pytest.raises(RuntimeError, match="derivative for aten::linalg_ldl_solve is not implemented"):
            lib.linalg.ldl_solve(ld, pivots, rhs).abs().sum().backward()
