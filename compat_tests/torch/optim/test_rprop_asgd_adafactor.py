"""Rprop, ASGD and Adafactor against real torch 2.13: parameter histories, state_dict, resuming, errors."""

import numpy as np
import pytest

from compat_tests.torch.optim._streams import LIBS, assert_histories_close, run_stream, tolerance, torch, vt

CONFIGS = [
    ("Rprop", {}),
    ("Rprop", {"lr": 0.05, "etas": (0.3, 1.5), "step_sizes": (1e-3, 0.2), "maximize": True}),
    ("ASGD", {}),
    ("ASGD", {"lr": 0.05, "lambd": 0.01, "alpha": 0.5, "t0": 4, "weight_decay": 0.1}),
    ("ASGD", {"t0": 0, "maximize": True}),
    ("Adafactor", {}),
    ("Adafactor", {"lr": 0.5, "beta2_decay": -0.5, "eps": (1e-4, 1e-2), "d": 1.5, "weight_decay": 0.05}),
    ("Adafactor", {"maximize": True, "lr": 0.05}),
]


def _make(name, kwargs):
    return lambda lib, params: getattr(lib.optim, name)(params, **kwargs)


def _state_values(opt):
    state = opt.state_dict()
    return [{key: np.asarray(value.detach().numpy() if hasattr(value, "numpy") else value)
             for key, value in state["state"][k].items()} for k in sorted(state["state"])], state["param_groups"]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name,kwargs", CONFIGS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CONFIGS)])
def test_parameter_history_and_state_match_torch(name, kwargs, dtype):
    skip = {(2, 0), (5, 1)}
    (want, want_opt, _), (got, got_opt, _) = (run_stream(lib, _make(name, kwargs), dtype=dtype, skip=skip)
                                              for lib in LIBS)
    assert_histories_close(want, got, *tolerance(dtype))
    want_state, want_groups = _state_values(want_opt)
    got_state, got_groups = _state_values(got_opt)
    assert got_groups == want_groups
    for w, g in zip(want_state, got_state):
        assert list(g) == list(w)
        for key in w:
            assert g[key].dtype == w[key].dtype and g[key].shape == w[key].shape, key
            np.testing.assert_allclose(g[key], w[key], *tolerance(dtype), err_msg=key)


@pytest.mark.parametrize("name,kwargs", CONFIGS[::2], ids=[n for n, _ in CONFIGS[::2]])
def test_resume_from_torch_state_dict(name, kwargs):
    """vfw continues from real torch's state_dict (and gets torch's parameters after more steps)."""
    _, torch_opt, torch_params = run_stream(torch, _make(name, kwargs), steps=5)
    params = [vt.tensor(p.detach().numpy().copy(), requires_grad=True) for p in torch_params]
    opt = getattr(vt.optim, name)(params, **kwargs)
    state = torch_opt.state_dict()
    opt.load_state_dict({"state": {k: {n: vt.tensor(v.numpy()) for n, v in s.items()}
                                   for k, s in state["state"].items()}, "param_groups": state["param_groups"]})
    rng = np.random.default_rng(9)
    for _ in range(3):
        grads = [rng.standard_normal(tuple(p.shape)).astype(np.float32) for p in params]
        for lib_params, lib, lib_opt in ((torch_params, torch, torch_opt), (params, vt, opt)):
            for p, g in zip(lib_params, grads):
                p.grad = lib.from_numpy(g.copy())
            lib_opt.step()
    for w, g in zip(torch_params, params):
        np.testing.assert_allclose(g.detach().numpy(), w.detach().numpy(), *tolerance(np.float32))


@pytest.mark.parametrize("name,kwargs", [
    ("Rprop", {"etas": (1.5, 1.2)}), ("Rprop", {"etas": (0.5, 0.9)}), ("Rprop", {"lr": -1.0}),
    ("ASGD", {"lr": -0.1}), ("ASGD", {"weight_decay": -1}),
    ("Adafactor", {"lr": -1.0}), ("Adafactor", {"beta2_decay": 0.5}), ("Adafactor", {"eps": (-1.0, 1e-3)}),
    ("Adafactor", {"eps": (None, -1.0)}), ("Adafactor", {"d": 0.5}), ("Adafactor", {"weight_decay": -1.0}),
])
def test_invalid_arguments(name, kwargs):
    messages = []
    for lib in LIBS:
        with pytest.raises(ValueError) as info:
            getattr(lib.optim, name)([lib.ones(2, requires_grad=True)], **kwargs)
        messages.append(str(info.value))
    assert messages[0] == messages[1]
