"""torch.autograd.forward_ad (dual tensors) vs real torch 2.13: tangents of composite computations, errors."""

import numpy as np
import pytest

from compat_tests.torch.harness import LIBS, arrays

real = pytest.importorskip("torch")
import vfw.torch as vt  # noqa: E402


def _tangents(lib, fn, primals, tangents):
    """Primal results and tangents of ``fn(*duals)`` under ``lib``'s forward AD."""
    fwad = lib.autograd.forward_ad
    with fwad.dual_level():
        duals = [fwad.make_dual(lib.from_numpy(p.copy()), lib.from_numpy(t.copy())) for p, t in zip(primals, tangents)]
        out = fn(lib, *duals)
        unpacked = fwad.unpack_dual(out)
        return unpacked.primal.detach().numpy(), unpacked.tangent.detach().numpy()


CASES = {
    "elementwise": (lambda torch, x: torch.sin(x) * torch.exp(x) + x ** 2 / (1 + x * x), [(3, 4)]),
    "matmul": (lambda torch, a, b: torch.tanh(a @ b).sum(0), [(3, 4), (4, 2)]),
    "gelu_softmax": (lambda torch, x: torch.nn.functional.softmax(torch.nn.functional.gelu(x), dim=-1), [(2, 5)]),
    "layer_norm": (lambda torch, x, w: torch.nn.functional.layer_norm(x, (4,), w), [(3, 4), (4,)]),
    "log_softmax_nll": (lambda torch, x: torch.nn.functional.cross_entropy(x, torch.tensor([0, 2, 1])), [(3, 4)]),
    "conv": (lambda torch, x, w: torch.nn.functional.conv2d(x, w, padding=1).relu(), [(1, 2, 5, 5), (3, 2, 3, 3)]),
    "reductions": (lambda torch, x: torch.stack([x.mean(), x.max(), x.norm()]), [(4, 3)]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_tangents_match_torch(name):
    fn, shapes = CASES[name]
    primals = arrays(*shapes, dtype="float64", seed=1)
    primals = primals if isinstance(primals, list) else [primals]
    tangents = arrays(*shapes, dtype="float64", seed=2)
    tangents = tangents if isinstance(tangents, list) else [tangents]
    want = _tangents(real, fn, primals, tangents)
    got = _tangents(vt, fn, primals, tangents)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(got[1], want[1], rtol=1e-9, atol=1e-12)


def test_small_mlp_parameter_tangents():
    """Tangents with respect to an MLP's weights (make_dual on its parameters, as torch.func users do)."""
    results = []
    for lib in LIBS:
        lib.manual_seed(0)
        model = lib.nn.Sequential(lib.nn.Linear(4, 8), lib.nn.ReLU(), lib.nn.Linear(8, 3)).double()
        x = lib.from_numpy(arrays((5, 4), dtype="float64", seed=3).copy())
        fwad = lib.autograd.forward_ad
        names = [n for n, _ in model.named_parameters()]
        directions = arrays(*[tuple(p.shape) for p in model.parameters()], dtype="float64", seed=4)
        with fwad.dual_level():
            duals = {n: fwad.make_dual(p.detach(), lib.from_numpy(d.copy()))
                     for (n, p), d in zip(model.named_parameters(), directions)}
            out = lib.func.functional_call(model, duals, (x,))
            results.append(fwad.unpack_dual(out).tangent.detach().numpy())
        assert names == ["0.weight", "0.bias", "2.weight", "2.bias"]
    np.testing.assert_allclose(results[1], results[0], rtol=1e-9, atol=1e-12)


def test_consistent_with_func_jvp():
    x, t = arrays((3, 3), (3, 3), dtype="float64", seed=5)

    def f(torch, a):
        return torch.nn.functional.silu(a @ a.T)

    _, tangent = _tangents(vt, f, [x], [t])
    _, jvp_out = vt.func.jvp(lambda a: f(vt, a), (vt.from_numpy(x),), (vt.from_numpy(t),))
    np.testing.assert_allclose(tangent, jvp_out.numpy(), rtol=1e-12)
    jac = vt.func.jacfwd(lambda a: f(vt, a))(vt.from_numpy(x)).numpy()
    np.testing.assert_allclose(tangent, np.tensordot(jac, t, axes=2), rtol=1e-10)


@pytest.mark.parametrize("lib", LIBS, ids=["torch", "vfw"])
def test_unpack_outside_level_and_unrelated_tensors(lib):
    fwad = lib.autograd.forward_ad
    x = lib.ones(3)
    with fwad.dual_level() as level:
        assert level == 0
        d = fwad.make_dual(x, lib.full((3,), 2.0))
        y = d * 3
        unpacked = fwad.unpack_dual(d)
        assert type(unpacked).__name__ == "UnpackedDualTensor" and unpacked._fields == ("primal", "tangent")
        np.testing.assert_array_equal(unpacked.tangent.numpy(), [2.0, 2.0, 2.0])
        assert fwad.unpack_dual(x).tangent is None
        assert fwad.unpack_dual(lib.zeros(2)).tangent is None
    assert fwad.unpack_dual(y).tangent is None
    level = fwad.enter_dual_level()
    assert level == 0
    fwad.exit_dual_level()


@pytest.mark.parametrize("lib", LIBS, ids=["torch", "vfw"])
def test_errors(lib):
    fwad = lib.autograd.forward_ad
    with pytest.raises(RuntimeError, match="no level exists"):
        fwad.make_dual(lib.ones(3), lib.ones(3))
    with fwad.dual_level():
        with pytest.raises(RuntimeError, match=r"Tensor is of size \[3\] while the given forward gradient is of size "
                                                r"\[2\]"):
            fwad.make_dual(lib.ones(3), lib.ones(2))
