"""torch.optim.LBFGS (fixed step length and the strong Wolfe line search) against real torch."""

import copy

import numpy as np
import pytest

from compat_tests.torch.optim._streams import LIBS

torch = pytest.importorskip("torch")
import vfw.torch as vt  # noqa: E402


def _problem(lib, dtype):
    p = lib.tensor(np.array([1.0, -2.0, 0.5, 3.0], dtype), requires_grad=True)
    q = lib.tensor(np.array([[0.3, -0.1], [0.2, 0.4]], dtype), requires_grad=True)
    return p, q


def _closure(opt, p, q):
    def closure():
        opt.zero_grad()
        loss = ((p - 1) ** 4).sum() + (p ** 2).sum() + ((q @ q - 0.5) ** 2).sum() + (p[:2] * q[0]).sum()
        loss.backward()
        return loss
    return closure


def _run(lib, dtype, steps, **kwargs):
    p, q = _problem(lib, dtype)
    opt = lib.optim.LBFGS([p, q], **kwargs)
    closure = _closure(opt, p, q)
    history = []
    for _ in range(steps):
        loss = opt.step(closure)
        history.append(np.concatenate([[loss.item()], p.detach().numpy().ravel(), q.detach().numpy().ravel()]))
    return np.array(history), opt


# Iterations stop short of convergence: there, curvature pairs are differences of tiny gradients and
# round-off is amplified (the stopping tests then also flip on round-off).
SETTINGS = [{"lr": 0.5, "max_iter": 5}, {"lr": 0.3, "history_size": 2, "max_iter": 6},
            {"lr": 0.1, "max_iter": 7, "max_eval": 4}, {"lr": 0.5, "max_iter": 6, "tolerance_change": 0.05},
            {"lr": 0.5, "tolerance_grad": 1.0}]


def _assert_states_alike(t_opt, v_opt, rtol=0.0):
    """Same state keys; same kinds of values (numbers equal to ``rtol``, tensors of one dtype and shape)."""
    t_state, v_state = t_opt.state_dict()["state"][0], v_opt.state_dict()["state"][0]
    assert v_state.keys() == t_state.keys()
    for key, value in t_state.items():
        mine = v_state[key]
        if isinstance(value, list):
            assert [type(v) is type(None) for v in value] == [type(v) is type(None) for v in mine], key
        elif hasattr(value, "dtype"):
            assert str(mine.dtype) == str(value.dtype) and tuple(mine.shape) == tuple(value.shape), key
        else:
            assert type(mine) is type(value), key
            np.testing.assert_allclose(mine, value, rtol=rtol, atol=0, err_msg=key)


@pytest.mark.parametrize("kwargs", SETTINGS)
def test_iterates_match_torch_float64(kwargs):
    (want, t_opt), (got, v_opt) = (_run(lib, np.float64, 3, **kwargs) for lib in LIBS)
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)
    # func_evals and n_iter equal; prev_loss a sum (and a matmul) whose round-off depends on its order and the BLAS
    # (one ulp apart on AMD EPYCs)
    _assert_states_alike(t_opt, v_opt, rtol=1e-12)


def test_iterates_match_torch_float32():
    """A few float32 ulps per step, amplified by the curvature estimates' differences of gradients."""
    (want, _), (got, _) = (_run(lib, np.float32, 3, lr=0.5, max_iter=4) for lib in LIBS)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_state_dict_round_trip_continues_identically():
    _, opt = _run(vt, np.float64, 2, lr=0.5, max_iter=3)
    p, q = opt.param_groups[0]["params"]
    twins = [t.detach().clone().requires_grad_() for t in (p, q)]
    twin = vt.optim.LBFGS(twins)
    twin.load_state_dict(copy.deepcopy(opt.state_dict()))
    for o, params in ((opt, (p, q)), (twin, twins)):
        for _ in range(2):
            o.step(_closure(o, *params))
    np.testing.assert_array_equal(twins[0].detach().numpy(), p.detach().numpy())
    np.testing.assert_array_equal(twins[1].detach().numpy(), q.detach().numpy())


@pytest.mark.parametrize("case", ["groups", "no_closure", "bad_search", "negative_lr"])
def test_errors_match_torch(case):
    errors = []
    for lib in LIBS:
        p, q = _problem(lib, np.float64)
        try:
            if case == "groups":
                lib.optim.LBFGS([{"params": [p]}, {"params": [q]}])
            elif case == "negative_lr":
                lib.optim.LBFGS([p], lr=-1)
            else:
                opt = lib.optim.LBFGS([p, q], line_search_fn="armijo" if case == "bad_search" else None)
                opt.step(_closure(opt, p, q)) if case == "bad_search" else opt.step()
        except Exception as e:  # noqa: BLE001
            errors.append(e)
    assert len(errors) == 2 and type(errors[1]) is type(errors[0]), errors


# The strong Wolfe line search: extrapolation (lr small), zoom (lr large), one accepted step, few evaluations.
WOLFE_SETTINGS = [{"lr": 1, "max_iter": 6}, {"lr": 0.01, "max_iter": 4}, {"lr": 30, "max_iter": 5},
                  {"lr": 1, "max_iter": 20, "max_eval": 7, "history_size": 3}]


@pytest.mark.parametrize("kwargs", WOLFE_SETTINGS)
def test_strong_wolfe_iterates_match_torch_float64(kwargs):
    (want, t_opt), (got, v_opt) = (_run(lib, np.float64, 3, line_search_fn="strong_wolfe", **kwargs)
                                   for lib in LIBS)
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)
    # func_evals and n_iter equal; the step t a tensor or a number as torch's; the first step length is 1 / |g|_1,
    # a sum whose round-off depends on its order
    _assert_states_alike(t_opt, v_opt, rtol=1e-12)
    np.testing.assert_allclose(float(v_opt.state_dict()["state"][0]["t"]), float(t_opt.state_dict()["state"][0]["t"]),
                               rtol=1e-10)


def _rosenbrock_run(lib, dtype, steps):
    x = lib.tensor(np.array([-1.2, 1.0, 0.5, -0.3], dtype), requires_grad=True)
    opt = lib.optim.LBFGS([x], max_iter=10, history_size=5, line_search_fn="strong_wolfe")
    trials = []

    def closure():
        opt.zero_grad()
        loss = (100 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2).sum()
        loss.backward()
        trials.append(x.detach().numpy().copy())  # every point the line search tries
        return loss

    for _ in range(steps):
        opt.step(closure)
    return np.array(trials), opt.state[x]["func_evals"]


def test_strong_wolfe_trial_points_match_torch_on_rosenbrock():
    (want, want_evals), (got, got_evals) = (_rosenbrock_run(lib, np.float64, 2) for lib in LIBS)
    assert got_evals == want_evals and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12)


def test_strong_wolfe_float32_first_step():
    """float32 agrees while far from the minimum (near it, round-off in y.s decides the curvature pairs)."""
    (want, _), (got, _) = (_rosenbrock_run(lib, np.float32, 1) for lib in LIBS)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_repr_matches_torch():
    want, got = (repr(lib.optim.LBFGS(list(_problem(lib, np.float32)), lr=0.2, history_size=7)) for lib in LIBS)
    assert got == want


def _valley_run(lib, steps):
    """A float32 run into a flat valley (loss 8 along a curve): the stopping tests flip on one ulp."""
    x = lib.tensor(np.array([1.0, -1.0], np.float32), requires_grad=True)
    opt = lib.optim.LBFGS([x], lr=0.5, history_size=3, max_iter=5, line_search_fn="strong_wolfe")
    trials = []

    def closure():
        opt.zero_grad()
        loss = ((x - 3) ** 2).sum() + (x[0] * x[1]) ** 2
        loss.backward()
        trials.append(x.detach().numpy().copy())
        return loss

    for _ in range(steps):
        opt.step(closure)
    return np.array(trials), opt.state[x]["n_iter"]


def test_float32_updates_round_once_as_torch():
    """torch moves the parameters and the two-loop vectors with ``add_(alpha=...)``, a fused multiply-add: rounding
    the product first drifts by an ulp a step, enough here to stop after 14 iterations instead of torch's 11."""
    (want, want_iters), (got, got_iters) = (_valley_run(lib, 3) for lib in LIBS)
    assert got_iters == want_iters and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)
