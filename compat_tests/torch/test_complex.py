"""Complex tensors in vfw.torch against real torch 2.13: creation, promotion, parts, arithmetic, gradients, repr."""

import numpy as np
import pytest

from compat_tests.torch.harness import LIBS, assert_same, check, check_grad, to_numpy

RNG = np.random.default_rng(1)
Z = (RNG.standard_normal((3, 4)) + 1j * RNG.standard_normal((3, 4))).astype(np.complex64)
Z2 = RNG.standard_normal((4, 2)) + 1j * RNG.standard_normal((4, 2))
X = RNG.standard_normal((3, 4)).astype(np.float32)


def test_dtypes_and_creation():
    check(lambda t: (t.complex64, t.cfloat, t.cdouble, t.complex64.is_complex, t.complex128.itemsize))
    check(lambda t: t.tensor([1 + 2j, 3]))
    check(lambda t: t.tensor([[1, 2.5j]], dtype=t.complex128))
    check(lambda t: t.tensor(2j))
    check(lambda t: t.zeros(2, 3, dtype=t.cfloat))
    check(lambda t: t.ones(2, dtype=t.cdouble) * 2)
    check(lambda t, z: (z, z.dtype, z.is_complex(), t.is_complex(z), z.is_floating_point()), Z)
    check(lambda t, x: (x.is_complex(), x.to(t.complex64), x.double().to(t.cfloat)), X)


@pytest.mark.filterwarnings("ignore:Casting complex values to real")
def test_explicit_conversion_to_real_keeps_the_real_part():
    check(lambda t, z: (z.float(), z.double(), z.long(), z.bool(), z.to(t.float64), z.type(t.int32)),
          np.array([1.5 + 2j, 0j, 1j, -2.7 - 1j], np.complex64))
    # torch's wording, once per process as in torch: compat_tests/torch/test_warn_once.py


@pytest.mark.parametrize("make", [
    lambda t, z, x: z + x,
    lambda t, z, x: x.double() * z,
    lambda t, z, x: z - 1,
    lambda t, z, x: z * 2.5,
    lambda t, z, x: x + 1j,
    lambda t, z, x: x.double() * (2 - 1j),
    lambda t, z, x: z / x,
    lambda t, z, x: z / (x + 1j),
    lambda t, z, x: -z,
    lambda t, z, x: t.promote_types(t.float64, t.complex64),
    lambda t, z, x: t.result_type(x, 1j),
])
def test_promotion_and_arithmetic(make):
    check(make, Z, X)


def test_parts_and_helpers():
    check(lambda t, z: (z.real, z.imag, t.real(z), t.imag(z), z.conj(), t.conj(z), t.conj_physical(z),
                        z.abs(), t.abs(z), z.angle(), t.angle(z), z.resolve_conj()), Z)
    check(lambda t, x: (x.real, t.real(x), x.conj(), t.angle(x), x.angle()), np.array([-1.5, 0, 2, np.nan], np.float32))
    check(lambda t, x: t.angle(x), np.array([-2, 0, 3]))
    check(lambda t, x: x.imag, X)
    check(lambda t, a, b: (t.complex(a, b), t.polar(a.abs(), b)), X, X[::-1].copy())
    check(lambda t, a, b: t.complex(a, b), X, X[:1].copy())
    check(lambda t, z: (t.view_as_real(z), t.view_as_complex(t.view_as_real(z))), Z)
    check(lambda t, x: t.view_as_complex(x), RNG.standard_normal((3, 2)))


@pytest.mark.parametrize("fn", [
    lambda t, x: t.complex(x, x.double()),
    lambda t, x: t.complex(x.long(), x.long()),
    lambda t, x: t.view_as_real(x),
    lambda t, x: t.view_as_complex(x),
    lambda t, x: t.view_as_complex(x.long()),
    lambda t, x: t.polar(x, x.double()),
])
def test_errors(fn):
    check(fn, X)


def test_reductions_and_products():
    check(lambda t, z: (z.sum(), z.sum(1), z.mean(), z.mean(0, keepdim=True)), Z, rtol=1e-5)
    check(lambda t, z, w: (z.to(t.cdouble) @ w, t.matmul(w.T, z.to(t.cdouble).T)), Z, Z2, rtol=1e-10)
    check(lambda t, z: (t.dot(z[0], z[1]), t.vdot(z[0], z[1]), z[0].vdot(z[2]), t.outer(z[0], z[1])), Z, rtol=1e-5)


def test_shape_ops_keep_complex():
    check(lambda t, z: (z.reshape(4, 3), z.T, z[1], z[:, ::2], t.cat([z, z]), t.stack([z, z], 1),
                        z.unsqueeze(0), z.flatten(), z.expand(2, 3, 4), t.where(z.real > 0, z, 0j)), Z)


def test_gradients_through_complex_intermediates():
    check_grad(lambda t, a, b: t.complex(a, b).abs(), X.astype(np.float64), X[::-1].astype(np.float64))
    check_grad(lambda t, a, b: (t.complex(a, b) * t.complex(b, a) / (t.complex(a, b) + 2)).angle(),
               X.astype(np.float64), X.T.copy().T.astype(np.float64) + 0.5)
    check_grad(lambda t, a, b: t.view_as_real(t.polar(a.abs() + 0.1, b) @ t.complex(a, b).T.conj()),
               X.astype(np.float64), X.astype(np.float64) * 2)
    check_grad(lambda t, a: t.view_as_complex(a).imag * 3 + t.view_as_complex(a).real.sin(),
               RNG.standard_normal((5, 2)))
    check_grad(lambda t, a: (t.complex(a, -a) * (1 + 2j)).sum().real + t.complex(a, a).mean().imag, X)


def test_complex_leaf_gradient():
    """``.grad`` of a complex leaf follows torch's convention (dL/dRe + i dL/dIm)."""
    got = []
    for lib in LIBS:
        z = lib.from_numpy(Z.astype(np.complex128)).requires_grad_(True)
        loss = (z * z.conj() * (2 - 1j)).real.sum() + (z.abs() * z.angle()).sum() + (z @ z.T).imag.sum()
        loss.backward()
        got.append((to_numpy(loss), to_numpy(z.grad)))
    assert_same(got[0][0], got[1][0], 1e-12, 1e-12)
    assert_same(got[0][1], got[1][1], 1e-12, 1e-12, "grad")


def test_repr():
    for values, kwargs in (([[1.5 + 2j, -3j], [1e-5 + 1j, 100]], {}), ([1 + 1j, 2], {"dtype": "complex128"}),
                           (1 + 2j, {}), ([0.25 - 0.5j, 3], {})):
        reprs = [repr(lib.tensor(values, **{k: getattr(lib, v) for k, v in kwargs.items()})) for lib in LIBS]
        assert reprs[1] == reprs[0]


def test_onnx_export_refuses_complex_values():
    import io

    class Spectrum(LIBS[1].nn.Module):
        def forward(self, x):
            return LIBS[1].fft.rfft(x).abs()

    with pytest.raises(RuntimeError, match="'.*' made by RFFT is complex64; vfw exports no complex tensors"):
        LIBS[1].onnx.export(Spectrum(), (LIBS[1].ones(2, 8),), io.BytesIO())


def test_writes_into_complex_tensors():
    check(lambda t, z: (t.full((2,), 1j), z.masked_fill(z.real > 0, 5j), z.clone().fill_(2 - 1j)), Z)

    def written(t, a):
        z = t.complex(a, a * 2) * (2 + 1j)
        z[0] = 5j
        z[1:, 1] += 1j
        return t.view_as_real(z)
    check_grad(written, X.astype(np.float64))
