"""torch.optim.Muon against real torch 2.13: parameter trajectories over several steps (float32 and float64,
tall/wide/square, Nesterov or not, both learning-rate adjustments, weight decay), the state dict, and torch's
argument checks."""

import numpy as np
import pytest

from compat_tests.torch.harness import real, vt

CONFIGS = [
    ((3, 5), {}), ((5, 3), {}), ((4, 4), {"nesterov": False}), ((3, 5), {"adjust_lr_fn": "match_rms_adamw"}),
    ((6, 2), {"momentum": 0.0, "nesterov": False}), ((4, 6), {"weight_decay": 0.0, "ns_steps": 3}),
    ((5, 4), {"ns_coefficients": (2.0, -1.5, 0.5), "eps": 1e-3, "adjust_lr_fn": "original"}),
]


def _trajectories(lib, shape, kwargs, dtype, steps=4):
    rng = np.random.default_rng(0)
    start = rng.standard_normal(shape).astype(dtype)
    p = lib.nn.Parameter(lib.from_numpy(start))
    opt = lib.optim.Muon([p], lr=0.1, **kwargs)
    path = []
    for _ in range(steps):
        p.grad = lib.from_numpy(rng.standard_normal(shape).astype(dtype))
        opt.step()
        path.append(p.detach().numpy().copy())
    return path, opt


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape,kwargs", CONFIGS, ids=[str(i) for i in range(len(CONFIGS))])
def test_trajectory(shape, kwargs, dtype):
    want, wopt = _trajectories(real, shape, kwargs, dtype)
    got, gopt = _trajectories(vt, shape, kwargs, dtype)
    for step, (w, g) in enumerate(zip(want, got)):
        np.testing.assert_allclose(g, w, rtol=0, atol=1e-6, err_msg=f"step {step}")
    wstate, gstate = wopt.state_dict(), gopt.state_dict()
    assert gstate["param_groups"] == wstate["param_groups"]
    np.testing.assert_allclose(gstate["state"][0]["momentum_buffer"].numpy(),
                               wstate["state"][0]["momentum_buffer"].numpy(), rtol=1e-6, atol=1e-7)


def test_larger_matrix_within_bfloat16_rounding():
    # the Newton-Schulz steps run in bfloat16: a sum whose float32 value lies next to a bfloat16 tie may round the
    # other way than torch's BLAS, one bfloat16 step (2**-8 relative) of one update element
    want, _ = _trajectories(real, (48, 20), {}, "float32", steps=3)
    got, _ = _trajectories(vt, (48, 20), {}, "float32", steps=3)
    lr = 0.1 * np.sqrt(48 / 20)
    for w, g in zip(want, got):
        assert np.abs(g - w).max() <= lr * 2 ** -7
        assert np.mean(np.abs(g - w) > 1e-6) < 0.02


def test_skips_parameters_without_gradients_and_defaults():
    for lib in (real, vt):
        p = lib.nn.Parameter(lib.ones(2, 3))
        opt = lib.optim.Muon([p])
        opt.step()
        assert len(opt.state) == 0 and p.detach().numpy().tolist() == [[1.0] * 3] * 2
        assert opt.defaults == {"lr": 1e-3, "weight_decay": 0.1, "momentum": 0.95, "nesterov": True,
                                "ns_coefficients": (3.4445, -4.775, 2.0315), "eps": 1e-7, "ns_steps": 5,
                                "adjust_lr_fn": None}


@pytest.mark.parametrize("params,kwargs,error,message", [
    ((3,), {}, ValueError, "Muon only supports 2D parameters"),
    ((2, 3, 4), {}, ValueError, "Muon only supports 2D parameters"),
    ((2, 3), {"lr": -1}, ValueError, "Learning rate should be >= 0 but is: -1"),
    ((2, 3), {"momentum": -1}, ValueError, "momentum should be >= 0 but is: -1"),
    ((2, 3), {"weight_decay": -1}, ValueError, "weight decay should be >= 0 but is: -1"),
    ((2, 3), {"adjust_lr_fn": "foo"}, ValueError, "Adjust learning rate function foo is not supported"),
])
def test_constructor_errors(params, kwargs, error, message):
    for lib in (real, vt):
        with pytest.raises(error, match=message):
            lib.optim.Muon([lib.nn.Parameter(lib.ones(params))], **kwargs)


@pytest.mark.parametrize("kwargs,message", [
    ({"ns_steps": 100}, "Number of steps must be less than 100"),
    ({"ns_coefficients": (1.0, 2.0)}, "Coefficients must be a tuple of exactly 3 values"),
])
def test_step_errors(kwargs, message):
    for lib in (real, vt):
        p = lib.nn.Parameter(lib.ones(2, 3))
        opt = lib.optim.Muon([p], **kwargs)
        p.grad = lib.ones(2, 3)
        with pytest.raises(ValueError, match=message):
            opt.step()
