"""Assigning to a parametrized tensor goes through the parametrizations' right_inverse (last to first) into the
originals, as in real torch 2.13; without a right_inverse it raises torch's error."""

import numpy as np
import pytest

real = pytest.importorskip("torch")
import vfw.torch as vt  # noqa: E402


def _classes(lib):
    class Symmetric(lib.nn.Module):
        def forward(self, X):
            return X.triu() + X.triu(1).transpose(-1, -2)

        def right_inverse(self, A):
            return A.triu()

    class Double(lib.nn.Module):
        def forward(self, X):
            return X * 2

        def right_inverse(self, X):
            return X / 2

    class Split(lib.nn.Module):
        def forward(self, A, B):
            return A + B

        def right_inverse(self, X):
            return X * 0.25, X * 0.75

    class NoInverse(lib.nn.Module):
        def forward(self, X):
            return X + 1

    return Symmetric, Double, Split, NoInverse


def _run(lib):
    Symmetric, Double, Split, NoInverse = _classes(lib)
    P = lib.nn.utils.parametrize
    out = []
    chained = lib.nn.Linear(3, 3)
    P.register_parametrization(chained, "weight", Symmetric())
    P.register_parametrization(chained, "weight", Double())
    original = chained.parametrizations.weight.original
    with lib.no_grad():
        chained.weight = lib.arange(9.0).view(3, 3)
    out += [chained.weight.detach().numpy(), original.detach().numpy(),
            chained.parametrizations.weight.original is original]
    split = lib.nn.Linear(2, 2)
    P.register_parametrization(split, "weight", Split())
    split.weight = lib.ones(2, 2)
    out += [split.parametrizations.weight.original0.detach().numpy(), split.weight.detach().numpy()]
    plain = lib.nn.Linear(2, 2)
    P.register_parametrization(plain, "weight", NoInverse())
    with pytest.raises(RuntimeError) as info:
        plain.weight = lib.zeros(2, 2)
    out.append(str(info.value))
    return out


def test_assignment_through_right_inverse():
    for g, w in zip(_run(vt), _run(real)):
        if isinstance(w, np.ndarray):
            np.testing.assert_allclose(g, w, rtol=1e-6)
        else:
            assert g == w
