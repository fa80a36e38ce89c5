"""torch.optim.LBFGS (fixed step length) against real torch."""

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


@pytest.mark.parametrize("kwargs", SETTINGS)
def test_iterates_match_torch_float64(kwargs):
    (want, t_opt), (got, v_opt) = (_run(lib, np.float64, 3, **kwargs) for lib in LIBS)
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)
    t_state, v_state = t_opt.state_dict()["state"][0], v_opt.state_dict()["state"][0]
    assert v_state.keys() == t_state.keys()
    for key, value in t_state.items():
        mine = v_state[key]
        if isinstance(value, list):
            assert [type(v) is type(None) for v in value] == [type(v) is type(None) for v in mine], key
        elif hasattr(value, "dtype"):
            assert str(mine.dtype) == str(value.dtype) and tuple(mine.shape) == tuple(value.shape), key
        else:
            assert type(mine) is type(value) and mine == value, key


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


def test_strong_wolfe_refused():
    p, q = _problem(vt, np.float64)
    opt = vt.optim.LBFGS([p, q], line_search_fn="strong_wolfe")
    with pytest.raises(NotImplementedError, match="strong_wolfe"):
        opt.step(_closure(opt, p, q))


def test_repr_matches_torch():
    want, got = (repr(lib.optim.LBFGS(list(_problem(lib, np.float32)), lr=0.2, history_size=7)) for lib in LIBS)
    assert got == want
