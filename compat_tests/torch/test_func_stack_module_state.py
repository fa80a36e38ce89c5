"""torch.func.stack_module_state against real torch 2.13: stacked parameters and buffers (new leaves), an ensemble
run with vmap + functional_call and its gradients, and the errors."""

import numpy as np
import pytest

real = pytest.importorskip("torch")
import vfw.torch as vt  # noqa: E402


def _ensemble(lib):
    lib.manual_seed(0)
    models = [lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.BatchNorm1d(4), lib.nn.Tanh(), lib.nn.Linear(4, 2))
              for _ in range(3)]
    for m in models:
        m.eval()
    models[1][1].running_mean.fill_(0.5)
    params, buffers = lib.func.stack_module_state(models)
    x = lib.randn(5, 3)

    def run(p, b, inp):
        return lib.func.functional_call(models[0], (p, b), (inp,))

    y = lib.vmap(run, in_dims=(0, 0, None))(params, buffers, x)
    (y ** 2).sum().backward()
    return {"params": {k: (tuple(v.shape), v.requires_grad, v.is_leaf, v.detach().numpy().copy(),
                           v.grad.numpy().copy()) for k, v in params.items()},
            "buffers": {k: (tuple(v.shape), str(v.dtype), v.requires_grad, v.numpy().copy())
                        for k, v in buffers.items()},
            "y": y.detach().numpy(), "own_grad": models[0][0].weight.grad}


def test_stacked_state_and_vmapped_ensemble():
    want, got = _ensemble(real), _ensemble(vt)
    assert got["own_grad"] is None and want["own_grad"] is None  # the stacked leaves are unrelated to the models
    assert list(got["params"]) == list(want["params"]) and list(got["buffers"]) == list(want["buffers"])
    for k, w in want["params"].items():
        g = got["params"][k]
        assert g[:3] == w[:3]
        np.testing.assert_allclose(g[3], w[3], rtol=1e-6)
        np.testing.assert_allclose(g[4], w[4], rtol=1e-4, atol=1e-6)
    for k, w in want["buffers"].items():
        assert got["buffers"][k][:3] == w[:3]
        np.testing.assert_array_equal(got["buffers"][k][3], w[3])
    np.testing.assert_allclose(got["y"], want["y"], rtol=1e-5, atol=1e-6)


CASES = {
    "empty": lambda lib: [],
    "modes": lambda lib: [lib.nn.Linear(2, 3), lib.nn.Linear(2, 3).eval()],
    "classes": lambda lib: [lib.nn.Linear(2, 3), lib.nn.Conv1d(2, 3, 1)],
    "requires_grad": lambda lib: [lib.nn.Linear(2, 2).requires_grad_(False), lib.nn.Linear(2, 2)],
    "sizes": lambda lib: [lib.nn.Linear(2, 3), lib.nn.Linear(3, 3)],
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_errors(case):
    with pytest.raises(RuntimeError) as want:
        real.func.stack_module_state(CASES[case](real))
    with pytest.raises(RuntimeError) as got:
        vt.func.stack_module_state(CASES[case](vt))
    if case != "sizes":  # the stack error's wording is torch.stack's
        assert str(got.value) == str(want.value)


def test_frozen_models_and_module_list():
    for lib in (real, vt):
        frozen = [lib.nn.Linear(2, 2).requires_grad_(False) for _ in range(2)]
        params, _ = lib.func.stack_module_state(lib.nn.ModuleList(frozen))
        assert [(tuple(v.shape), v.requires_grad, v.is_leaf) for v in params.values()] == \
            [((2, 2, 2), False, True), ((2, 2), False, True)]
