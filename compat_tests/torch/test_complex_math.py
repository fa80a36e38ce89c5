"""Complex elementwise math, reductions and creation in vfw.torch against real torch 2.13: values, dtypes,
errors, and gradients (real leaves through complex values to a real loss, and complex leaves' ``.grad``)."""

import numpy as np
import pytest

from compat_tests.torch.harness import LIBS, assert_same, check, check_grad, to_numpy

RNG = np.random.default_rng(7)
RE, IM = RNG.standard_normal((2, 3, 4))
Z = (RE + 1j * IM).astype(np.complex64)
W = (RNG.standard_normal((3, 4)) + 1j * RNG.standard_normal((3, 4)))
SPECIAL = np.array([0j, 1j, -1 + 0j, 2 - 3j, np.inf + 0j, np.nan + 1j, 1e-30 + 0j, -0.5 + 1e30j], np.complex128)

UNARY = ["exp", "log", "sqrt", "sin", "cos", "tan", "sinh", "cosh", "tanh", "reciprocal", "sigmoid", "sgn", "rsqrt",
         "exp2", "square"]


def _complex(t, a, b):
    return t.complex(a, b)


@pytest.mark.parametrize("name", UNARY)
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_unary_values(name, dtype):
    rtol = 2e-5 if dtype == np.complex64 else 1e-12
    check(lambda t, z: getattr(t, name)(z), Z.astype(dtype), rtol=rtol, atol=1e-6)
    check(lambda t, z: getattr(z, name)(), Z.astype(dtype), rtol=rtol, atol=1e-6)


@pytest.mark.parametrize("name", ["exp", "log", "sqrt", "sin", "tanh", "reciprocal", "sgn", "rsqrt"])
def test_unary_special_values(name):
    with np.errstate(all="ignore"):
        check(lambda t, z: getattr(t, name)(z), SPECIAL[:4])  # zero, the axes and a generic point


@pytest.mark.parametrize("name", UNARY)
def test_unary_gradients(name):
    check_grad(lambda t, a, b: t.view_as_real(getattr(t, name)(_complex(t, a, b))), RE[:2], IM[:2], rtol=1e-7)


def test_inplace_and_out():
    def inplace(t, z):
        y = z.clone()
        y.exp_()
        y.sgn_()
        out = t.empty(3, 4, dtype=t.complex128)
        t.sqrt(z, out=out)
        return y, out
    check(inplace, Z.astype(np.complex128))


def test_complex_leaf_grad():
    """A complex leaf's ``.grad`` is dL/dRe + i dL/dIm, as torch's."""
    grads = []
    for lib in LIBS:
        z = lib.from_numpy(Z.astype(np.complex128)).requires_grad_()
        w = lib.from_numpy(W)
        loss = ((lib.sin(z) * w).real + lib.sigmoid(z).abs() + (z ** w).imag + lib.sgn(z).real * 2).sum()
        loss.backward()
        grads.append(to_numpy(z.grad))
    assert_same(*grads, rtol=1e-10, atol=1e-10)


def test_sign_refuses_complex():
    check(lambda t, z: t.sign(z), Z)
    check(lambda t, z: z.sign(), Z)


@pytest.mark.parametrize("name", ["erf", "lgamma", "relu", "floor", "frac"])
def test_functions_torch_refuses_raise_the_same_type(name):
    check(lambda t, z: getattr(t, name)(z), Z)


def test_pow():
    zd = Z.astype(np.complex128)
    check(lambda t, z, w: (t.pow(z, w), z ** w, z ** 2, z ** 0.5, 2 ** z, z ** -1, (1 + 1j) ** z), zd, W, rtol=1e-10)
    check(lambda t, z: (z ** 3, t.pow(z, 2.5)), Z, rtol=2e-5)
    check(lambda t, x, w: t.pow(x, w), RE, W, rtol=1e-10)  # a real base, a complex exponent: promoted
    check_grad(lambda t, a, b, c, d: t.view_as_real(t.pow(_complex(t, a, b), _complex(t, c, d))),
               RE[:2], IM[:2], IM[2:] + 0.5, RE[2:], rtol=1e-7)
    check_grad(lambda t, a, b, e: t.view_as_real(_complex(t, a, b) ** e), RE[:2], IM[:2], IM[2:], rtol=1e-7)
    check_grad(lambda t, a, b: t.view_as_real(_complex(t, a, b) ** 3 + 1.5 ** _complex(t, a, b)), RE, IM, rtol=1e-7)


def test_comparisons_and_predicates():
    zd = Z.astype(np.complex128)
    same = zd.copy()
    same[0, 0] += 1e-9
    same[1, 1] = 5
    real_valued = np.array([1 + 0j, 2 + 1j, np.inf + 0j, np.nan + 0j, 0j])
    check(lambda t, a, b: (t.eq(a, b), a == b, t.ne(a, b), a != b, t.isclose(a, b), t.allclose(a, b),
                           t.allclose(a, a), t.equal(a, b)), zd, same)
    check(lambda t, a: (t.isclose(a, a + 1e-3j, rtol=0, atol=1e-2), t.isclose(a, a + 1e-3j, rtol=0, atol=1e-4)), zd)
    check(lambda t, a: (t.isfinite(a), t.isnan(a), t.isinf(a), t.isreal(a), t.isposinf(a.real)), SPECIAL)
    check(lambda t, a: (t.isreal(a), a == 2 + 1j, t.isclose(a, a, equal_nan=True)), real_valued)
    check(lambda t, a: a < a, zd)  # torch: no ordering of complex numbers


def test_reductions():
    zd = Z.astype(np.complex128)
    check(lambda t, z: (t.prod(z), z.prod(1), z.prod(0, keepdim=True)), zd, rtol=1e-10)
    check(lambda t, z: (t.cumsum(z, 0), z.cumsum(1), t.cumprod(z, 1), z.cumprod(0)), zd, rtol=1e-10)
    check(lambda t, z: (z.sum(), z.mean(1), t.trace(z[:, :3]), t.diag(z), t.diag(z[0]), t.diag(z[0], 1)), zd,
          rtol=1e-10)
    check(lambda t, z: (t.var(z), z.std(1), t.var(z, 0, correction=0), t.std(z, keepdim=True, dim=(0, 1)),
                        t.var_mean(z, 1), t.std_mean(z)), zd, rtol=1e-10)
    check(lambda t, z: (t.prod(z), t.var(z), z.std(0), t.cumprod(z, 0)), Z, rtol=2e-5)
    check_grad(lambda t, a, b: t.view_as_real(t.prod(_complex(t, a, b), 1)), RE, IM, rtol=1e-7)
    zero = RE.copy()
    zero[1, 2] = 0
    check_grad(lambda t, a, b: t.view_as_real(t.cumprod(_complex(t, a, b), 1)), zero, zero * 0 + IM * (zero != 0),
               rtol=1e-7)
    check_grad(lambda t, a, b: t.view_as_real(t.cumsum(_complex(t, a, b), 0) + t.trace(_complex(t, a, b)[:, :3])),
               RE, IM, rtol=1e-7)
    check_grad(lambda t, a, b: (t.var(_complex(t, a, b), 1), t.std(_complex(t, a, b))), RE, IM, rtol=1e-7)


@pytest.mark.parametrize("ord", [2, 1, 3, 0.5, 0, float("inf"), -float("inf"), -1])
def test_vector_norms(ord):
    zd = Z.astype(np.complex128)
    check(lambda t, z: (t.linalg.vector_norm(z, ord), t.linalg.vector_norm(z, ord, dim=1, keepdim=True),
                        t.linalg.norm(z[0], ord), z.norm(p=ord)), zd, rtol=1e-10)
    check_grad(lambda t, a, b: t.linalg.vector_norm(_complex(t, a, b), ord, dim=1), RE, IM, rtol=1e-7)


def test_matrix_norms_and_dtype_argument():
    zd = Z.astype(np.complex128)
    check(lambda t, z: (t.linalg.norm(z), t.linalg.matrix_norm(z), t.linalg.matrix_norm(z, 1),
                        t.linalg.matrix_norm(z, -float("inf")), t.linalg.norm(z, "fro"), z.norm()), zd, rtol=1e-10)
    check(lambda t, z: t.linalg.vector_norm(z, dtype=t.complex128), Z, rtol=1e-6)
    check(lambda t, z: t.linalg.vector_norm(z, dtype=t.float64), Z)  # torch: complex input needs a complex dtype
    check(lambda t, z: t.linalg.vector_norm(z.real, dtype=t.complex128), Z)
    check_grad(lambda t, a, b: t.linalg.matrix_norm(_complex(t, a, b), float("inf")), RE, IM, rtol=1e-7)


def test_einsum():
    zd = Z.astype(np.complex128)
    check(lambda t, a, b: (t.einsum("ij,kj->ik", a, b), t.einsum("ij,ij->", a, b), t.einsum("ii->i", a[:, :3]),
                           t.einsum("...j,j", a, b[0])), zd, W, rtol=1e-10)
    check_grad(lambda t, a, b, c: t.view_as_real(t.einsum("ij,kj->ik", _complex(t, a, b), _complex(t, c, a))),
               RE, IM, IM[::-1].copy(), rtol=1e-7)


def test_shape_ops():
    check(lambda t, z: (t.flip(z, [0]), z.flip(1), t.roll(z, 1), t.roll(z, (1, -1), (0, 1)), t.tril(z), z.T,
                        t.rot90(z)), Z)
    check_grad(lambda t, a, b: t.view_as_real(t.roll(t.flip(_complex(t, a, b), [1]), 2) * (1 + 2j)), RE, IM)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_creation(dtype):
    check(lambda t: (t.zeros(2, 3, dtype=getattr(t, dtype)), t.ones(3, dtype=getattr(t, dtype)),
                     t.full((2,), 1 - 2j, dtype=getattr(t, dtype)), t.eye(3, dtype=getattr(t, dtype)),
                     t.eye(2, 3, dtype=getattr(t, dtype)), t.empty(0, dtype=getattr(t, dtype)).shape))
    check(lambda t, z: (t.zeros_like(z), t.ones_like(z), t.full_like(z, 2j)), Z.astype(dtype))
    check(lambda t: (t.full((2, 2), 1 + 1j), t.tensor([1j]).dtype))  # a complex fill value gives complex64
    check(lambda t: (t.linspace(0, 2, 5, dtype=t.complex64), t.linspace(-1.5, 3, 4, dtype=t.complex128)))
    check(lambda t: t.arange(3, dtype=t.complex64))  # torch refuses complex arange (and range)
    check(lambda t: t.range(0, 3, dtype=t.complex128))


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_randn_draws_torch_stream(dtype):
    results = []
    for lib in LIBS:
        lib.manual_seed(3)
        a = lib.randn(2, 5, dtype=getattr(lib, dtype))
        b = lib.randn(17, dtype=getattr(lib, dtype))
        z = lib.zeros(3, 4, dtype=getattr(lib, dtype))
        results.append(to_numpy((a, b, lib.randn_like(z), lib.rand(3))))
    assert_same(*results)
