"""Complex follow-ups in vfw.torch against real torch 2.13: inverse trigonometric/hyperbolic functions, expm1, log1p,
log2, log10 on complex tensors (values and gradients), cfloat/cdouble, view_as_real/view_as_complex as views,
conj_physical_, and torch.linalg.eig/eigvals (values, gradients of phase-invariant losses, errors)."""

import numpy as np
import pytest

from compat_tests.torch.harness import LIBS, assert_same, check, check_grad, to_numpy

RNG = np.random.default_rng(11)
RE, IM = RNG.standard_normal((2, 3, 4))
Z = RE + 1j * IM
SMALL = np.array([1e-9 + 2e-9j, -3e-12 + 1e-12j, 1e-5 - 1e-5j, -1 + 1e-8j, -0.999 + 0.001j, 0.4 - 0.3j])

UNARY = ["asin", "acos", "atan", "asinh", "acosh", "atanh", "expm1", "log1p", "log2", "log10", "rsqrt", "square",
         "abs", "angle"]


@pytest.mark.parametrize("name", UNARY)
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_unary_values(name, dtype):
    rtol = 2e-5 if dtype == np.complex64 else 1e-12
    check(lambda t, z: getattr(t, name)(z), Z.astype(dtype), rtol=rtol, atol=1e-6)
    check(lambda t, z: getattr(z, name)(), Z.astype(dtype), rtol=rtol, atol=1e-6)


@pytest.mark.parametrize("name", ["log1p", "expm1"])
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_small_arguments_keep_precision(name, dtype):
    rtol = 1e-5 if dtype == np.complex64 else 1e-12
    check(lambda t, z: getattr(t, name)(z), SMALL.astype(dtype), rtol=rtol, atol=0)


@pytest.mark.parametrize("name", UNARY)
def test_unary_gradients(name):
    def fn(t, a, b):
        y = getattr(t, name)(t.complex(a, b))
        return t.view_as_real(y) if y.is_complex() else y
    check_grad(fn, RE[:2], IM[:2], rtol=1e-7)


@pytest.mark.parametrize("name", ["asin", "acos", "atan", "asinh", "acosh", "atanh", "expm1", "log1p", "log2", "log10"])
def test_complex_leaf_grad_and_inplace(name):
    grads = []
    for lib in LIBS:
        z = lib.from_numpy(Z.copy()).requires_grad_()
        y = getattr(lib, name)(z)
        (y.real * 2 + y.imag * 3 + y.abs()).sum().backward()
        w = lib.from_numpy(Z.copy())
        getattr(w, name + "_")()
        grads.append((z.grad, w))
    assert_same(to_numpy(grads[0]), to_numpy(grads[1]), rtol=1e-10, atol=1e-12)


def test_abs_and_angle_grad_at_zero():
    a = np.array([0.0, 1.0, -2.0, 0.0])
    b = np.array([0.0, -1.0, 0.5, 3.0])
    check_grad(lambda t, x, y: (t.complex(x, y).abs(), t.complex(x, y).angle()), a, b)


def test_cfloat_cdouble():
    x = RE.astype(np.float32)
    check(lambda t, v: (v.cfloat(), v.cdouble(), v.double().cfloat(), (v > 0).cfloat()), x)
    check_grad(lambda t, v: t.view_as_real(v.cfloat() * (1 + 2j)), x)


def test_chalf_refused():
    """vfw has no complex32: the conversion is refused, naming it (torch converts)."""
    import vfw.torch as vt
    with pytest.raises(NotImplementedError, match="complex32"):
        vt.ones(2).chalf()


def test_view_as_real_is_a_view():
    def fn(t, z):
        r = t.view_as_real(z)
        r[0, 1, 1] = 5.0  # writes the imaginary part of z[0, 1]
        zt = z.t()
        rt = t.view_as_real(zt)
        return z, r, rt, rt.stride(), r.stride(), r._base is z
    check(fn, Z[0].astype(np.complex64).copy())


def test_view_as_complex_is_a_view():
    def fn(t, x):
        c = t.view_as_complex(x)
        c[1] = 7j
        return x, c, c._base is x, t.view_as_complex(x[::2]).shape
    check(fn, RNG.standard_normal((4, 3, 2)))


@pytest.mark.parametrize("make", [
    lambda t: t.zeros(3, 2, dtype=t.int32), lambda t: t.zeros(3, 4)[:, ::2], lambda t: t.zeros(3, 3)[:, :2],
    lambda t: t.zeros(7)[1:].view(3, 2), lambda t: t.zeros(3), lambda t: t.zeros(())])
def test_view_as_complex_errors(make):
    check(lambda t: t.view_as_complex(make(t)))


def test_view_as_real_errors():
    check(lambda t: t.view_as_real(t.zeros(3)))


def test_views_under_autograd():
    def fn(t, a, b):
        z = t.complex(a, b)
        r = t.view_as_real(z)
        c = t.view_as_complex(r * 2)
        return r * 3, t.view_as_real(c.exp())
    check_grad(fn, RE[0], IM[0])


def test_conj_physical_inplace():
    def fn(t, z):
        y = z.clone()
        out = y.conj_physical_()
        t.conj_physical_(y)
        x = t.ones(2)
        return y, out is y, x.conj_physical_()
    check(fn, Z.astype(np.complex64))


def test_polar_grad():
    check_grad(lambda t, r, th: t.view_as_real(t.polar(r, th)), np.abs(RE[0]) + 0.1, IM[0])


# -- torch.linalg.eig / eigvals -----------------------------------------------------------------------------------
def _sorted(values):
    """Eigenvalues in a fixed order (by real, then imaginary part): LAPACK builds may order them differently."""
    key = np.lexsort((values.imag, values.real), axis=-1)
    return np.take_along_axis(values, key, axis=-1)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.complex128])
@pytest.mark.parametrize("shape", [(4, 4), (2, 3, 3), (1, 1), (0, 0)])
def test_eig_values(dtype, shape):
    a = RNG.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        a = a + 1j * RNG.standard_normal(shape)
    a = a.astype(dtype)
    rtol = 1e-4 if dtype in (np.float32, np.complex64) else 1e-10
    results = []
    for lib in LIBS:
        values, vectors = lib.linalg.eig(lib.from_numpy(a.copy()))
        only = lib.linalg.eigvals(lib.from_numpy(a.copy()))
        results.append((values, vectors, only))
    (tw, tv, tonly), (vw, vv, vonly) = results
    assert str(vw.dtype) == str(tw.dtype).replace("torch.", "torch.") and str(vv.dtype) == str(tv.dtype)
    assert tuple(vw.shape) == tuple(tw.shape) and tuple(vv.shape) == tuple(tv.shape)
    np.testing.assert_allclose(_sorted(vw.numpy()), _sorted(tw.numpy()), rtol=rtol, atol=rtol)
    np.testing.assert_allclose(vonly.numpy(), vw.numpy(), rtol=0, atol=0)
    # the eigenvectors: A V = V diag(L) with unit columns (torch's normalization)
    v, w = vv.numpy().astype(np.complex128), vw.numpy().astype(np.complex128)
    np.testing.assert_allclose(a @ v, v * w[..., None, :], atol=50 * rtol)
    np.testing.assert_allclose(np.linalg.norm(v, axis=-2), 1.0, rtol=rtol)


def test_eig_matches_torch_on_fixed_matrix():
    """A matrix with one real and a pair of complex eigenvalues: values and vectors as torch's (same LAPACK order)."""
    a = np.array([[2.0, -1.0, 0.5], [1.0, 2.0, 0.0], [0.3, 0.2, -1.0]])
    check(lambda t, m: tuple(t.linalg.eig(m)), a, rtol=1e-10, atol=1e-12)


LOSSES = {
    "sum |L|^2": lambda t, L, V: (L.abs() ** 2).sum(),
    "Re L and Im L": lambda t, L, V: (L.real * t.arange(L.shape[-1]) + L.imag ** 2).sum(),
    "|V| entries": lambda t, L, V: (V.abs() * t.arange(V.shape[-1] ** 2).reshape(V.shape[-2:])).sum(),
    "both": lambda t, L, V: (L.real.sum() + (V.abs() ** 2 * t.arange(V.shape[-1])).sum() + (V.abs() ** 3).sum()),
}


@pytest.mark.parametrize("loss", sorted(LOSSES))
@pytest.mark.parametrize("complex_input", [False, True])
def test_eig_gradients(loss, complex_input):
    a = RNG.standard_normal((2, 4, 4))
    b = RNG.standard_normal((2, 4, 4))

    def fn(t, x, y):
        m = t.complex(x, y) if complex_input else x
        values, vectors = t.linalg.eig(m)
        return LOSSES[loss](t, values, vectors)
    check_grad(fn, a, b, rtol=1e-7) if complex_input else check_grad(lambda t, x: fn(t, x, None), a, rtol=1e-7)


def test_eigvals_gradient():
    check_grad(lambda t, x: (t.linalg.eigvals(x).abs() ** 2).sum() + t.linalg.eigvals(x).real.sum(),
               RNG.standard_normal((3, 3)), rtol=1e-7)


def test_eig_phase_dependent_loss_refused():
    check(lambda t, x: t.linalg.eig(x.requires_grad_())[1].real.sum().backward(), RNG.standard_normal((3, 3)))


_BAD_SHAPES_AND_TYPES = [
    lambda t: t.ones(2, 3), lambda t: t.ones(3), lambda t: t.ones(2, 2, dtype=t.int64),
    lambda t: t.ones(2, 2, dtype=t.float16), lambda t: t.ones(2, 3, dtype=t.float16)]
_NON_FINITE = [lambda t: t.tensor([[float("nan"), 1.0], [1.0, 1.0]]),
               lambda t: t.tensor([[float("inf"), 1.0], [1.0, 1.0]], dtype=t.complex128)]


@pytest.mark.parametrize("make", _BAD_SHAPES_AND_TYPES)
@pytest.mark.parametrize("fn", ["eig", "eigvals"])
def test_eig_errors(make, fn):
    check(lambda t: getattr(t.linalg, fn)(make(t)))


@pytest.mark.parametrize("make", _NON_FINITE)
def test_eig_non_finite(make):
    check(lambda t: t.linalg.eig(make(t)))
    # torch 2.13's eigvals crashes the process on a NaN (MKL's SGEBAL rejects it): vfw raises eig's error
    import vfw.torch as vt
    with pytest.raises(RuntimeError, match="infs or NaNs"):
        vt.linalg.eigvals(make(vt))


def test_eig_out():
    def fn(t, x):
        w = t.empty(3, dtype=t.complex128)
        v = t.empty(3, 3, dtype=t.complex128)
        t.linalg.eig(x, out=(w, v))
        return _sorted_torch(t, w), v.abs().sum()
    check(fn, RNG.standard_normal((3, 3)), rtol=1e-10)


def _sorted_torch(t, w):
    return t.view_as_real(w)[t.argsort(w.real * 1000 + w.imag)]
