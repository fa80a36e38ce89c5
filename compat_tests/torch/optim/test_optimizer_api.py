"""Optimizer API against real torch: state dicts, repr, parameter groups, errors, hooks, closures, subclasses."""

import copy
import importlib
import inspect
import pickle
import warnings

import numpy as np
import pytest

from compat_tests.torch.optim._streams import (
    LIBS,
    assert_histories_close,
    grad_stream,
    initial_params,
    leaf_params,
    run_stream,
    tolerance,
    values,
)

torch = pytest.importorskip("torch")
import vfw.torch as vt  # noqa: E402

ALL = [("SGD", {"lr": 0.1, "momentum": 0.9}), ("Adam", {"amsgrad": True}), ("AdamW", {}), ("RMSprop",
       {"centered": True, "momentum": 0.5}), ("Adagrad", {}), ("Adadelta", {}), ("Adamax", {}), ("NAdam", {}),
       ("RAdam", {})]
IDS = [name for name, _ in ALL]


def _optimizer_module(lib):
    """``torch.optim.optimizer`` (torch deletes the name from ``torch.optim``; importing it works)."""
    return importlib.import_module(lib.__name__ + ".optim.optimizer")


def _each(fn):
    """``fn(lib)`` for torch and vfw.torch: results, or the raised exception."""
    out = []
    for lib in LIBS:
        try:
            out.append(fn(lib))
        except Exception as e:  # noqa: BLE001  (an exception is a result to compare)
            out.append(e)
    return out


def assert_same_error(fn, match=None):
    want, got = _each(fn)
    assert isinstance(want, Exception), f"torch did not raise: {want!r}"
    base = next(t for t in type(want).__mro__ if t.__module__ == "builtins")
    assert isinstance(got, base), f"torch raised {type(want).__name__}({want}); vfw gave {got!r}"
    assert str(got) == str(want) if match is None else match in str(got)


def _stepped(lib, name, kwargs, steps=3, dtype=np.float32):
    params = leaf_params(lib, initial_params(dtype))
    opt = getattr(lib.optim, name)(params, **kwargs)
    for grads in grad_stream(steps, dtype):
        for p, g in zip(params, grads):
            p.grad = lib.from_numpy(g)
        opt.step()
    return opt, params


def _layout(sd):
    """A comparable form of a state dict: value kinds, dtypes, shapes and values."""
    def entry(v):
        if hasattr(v, "detach"):
            return ("tensor", str(v.dtype).replace("torch.", ""), tuple(v.shape), v.detach().numpy().round(5).tolist())
        return (type(v).__name__, v)
    state = {k: {name: entry(v) for name, v in s.items()} for k, s in sd["state"].items()}
    return state, sd["param_groups"]


# -- state dicts ---------------------------------------------------------------------------
@pytest.mark.parametrize("name,kwargs", ALL, ids=IDS)
def test_state_dict_layout_matches_torch(name, kwargs):
    want, got = (_layout(_stepped(lib, name, kwargs)[0].state_dict()) for lib in LIBS)
    assert got == want


@pytest.mark.parametrize("name,kwargs", ALL, ids=IDS)
def test_state_dict_round_trip_continues_identically(name, kwargs):
    opt, params = _stepped(vt, name, kwargs, steps=4)
    saved = copy.deepcopy(opt.state_dict())
    twins = [vt.tensor(p.detach().numpy().copy(), requires_grad=True) for p in params]
    twin = getattr(vt.optim, name)(twins, lr=123.0)  # hyperparameters come from the state dict
    twin.load_state_dict(saved)
    assert twin.param_groups[0]["lr"] == opt.param_groups[0]["lr"]
    for grads in grad_stream(5, seed=7):
        for group in (params, twins):
            for p, g in zip(group, grads):
                p.grad = vt.from_numpy(g.copy())
        opt.step()
        twin.step()
        for a, b in zip(values(params), values(twins)):
            np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("name,kwargs", ALL, ids=IDS)
def test_torch_state_dict_loads_and_continues_like_torch(name, kwargs):
    """A state dict of real torch, its tensors converted, drives vfw to torch's next steps."""
    t_opt, t_params = _stepped(torch, name, kwargs, steps=4)
    sd = t_opt.state_dict()
    converted = {"state": {k: {n: vt.from_numpy(v.numpy().copy()) if hasattr(v, "numpy") else v for n, v in s.items()}
                           for k, s in sd["state"].items()},
                 "param_groups": copy.deepcopy(sd["param_groups"])}
    v_params = [vt.tensor(p.detach().numpy().copy(), requires_grad=True) for p in t_params]
    v_opt = getattr(vt.optim, name)(v_params)
    v_opt.load_state_dict(converted)
    for grads in grad_stream(6, seed=3):
        for lib_params, lib in ((t_params, torch), (v_params, vt)):
            for p, g in zip(lib_params, grads):
                p.grad = lib.from_numpy(g.copy())
        t_opt.step()
        v_opt.step()
    assert_histories_close([values(t_params)], [values(v_params)], *tolerance(np.float32))


def test_load_state_dict_casts_state_to_param_dtype():
    def run(lib):
        src, _ = _stepped(lib, "Adam", {}, steps=2, dtype=np.float64)
        params = leaf_params(lib, initial_params(np.float32))
        opt = lib.optim.Adam(params)
        opt.load_state_dict(src.state_dict())
        return {k: str(v.dtype) for k, v in opt.state[params[0]].items()}
    want, got = _each(run)
    assert {k: v.replace("torch.", "") for k, v in got.items()} == {k: v.replace("torch.", "") for k, v in want.items()}
    assert got["exp_avg"] == "torch.float32" and got["step"] == "torch.float32"


def test_state_dict_shares_state_tensors_and_saves_names():
    def run(lib):
        a, b = (lib.zeros(2, requires_grad=True) for _ in range(2))
        opt = lib.optim.SGD([("w", a), ("b", b)], lr=0.1, momentum=0.9)
        a.grad = lib.ones(2)
        opt.step()
        sd = opt.state_dict()
        return sd["state"][0]["momentum_buffer"] is opt.state[a]["momentum_buffer"], sd["param_groups"][0]["params"], \
            sd["param_groups"][0]["param_names"], list(sd["state"])
    want, got = _each(run)
    assert got == want


@pytest.mark.parametrize("groups,size", [(2, None), (1, 3)])
def test_load_state_dict_errors(groups, size):
    def run(lib):
        ps = [lib.zeros(2, requires_grad=True) for _ in range(4)]
        opt = lib.optim.SGD([{"params": ps[:2]}, {"params": ps[2:]}], lr=0.1)
        other = lib.optim.SGD([{"params": ps[:size or 2]}] if groups == 1 else
                              [{"params": ps[:1]}, {"params": ps[1:]}], lr=0.1)
        opt.load_state_dict(other.state_dict())
    assert_same_error(run)


def test_adagrad_state_exists_before_first_step():
    want, got = (_layout(lib.optim.Adagrad(leaf_params(lib, initial_params()), initial_accumulator_value=0.3)
                         .state_dict()) for lib in LIBS)
    assert got == want


def test_default_float64_step_counters():
    def run(lib):
        old = lib.get_default_dtype()
        lib.set_default_dtype(lib.float64)
        try:
            opts = [lib.optim.Adam(leaf_params(lib, initial_params())), lib.optim.Adagrad(
                leaf_params(lib, initial_params())), lib.optim.NAdam(leaf_params(lib, initial_params()))]
            for opt in opts:
                for p in opt.param_groups[0]["params"]:
                    p.grad = lib.ones_like(p)
                opt.step()
            return [str(v.dtype) for opt in opts for v in opt.state[opt.param_groups[0]["params"][0]].values()
                    if v.dim() == 0]
        finally:
            lib.set_default_dtype(old)
    want, got = _each(run)
    assert got == want


# -- repr, groups, gradients -------------------------------------------------------------
@pytest.mark.parametrize("name,kwargs", ALL + [("SGD", {"lr": 0.5, "nesterov": True, "momentum": 0.1}),
                                               ("Adam", {"lr": 1e-4, "betas": (0.8, 0.9), "fused": True})])
def test_repr_matches_torch(name, kwargs):
    def run(lib):
        ps = leaf_params(lib, initial_params())
        opt = getattr(lib.optim, name)([{"params": ps[:1]}, {"params": ps[1:], "lr": 0.25}], **kwargs)
        return repr(opt)
    want, got = _each(run)
    assert got == want


def test_param_groups_skipped_grads_and_lr_changes():
    def make(lib, params):
        opt = lib.optim.Adam([{"params": params[:1], "lr": 0.05}, {"params": params[1:], "amsgrad": True}], lr=0.01)
        opt.param_groups[1]["lr"] = 0.03  # changed before stepping: read at every step
        return opt
    skip = {(0, 1), (3, 0), (4, 0), (7, 2)}
    want, t_opt, t_params = run_stream(torch, make, skip=skip)
    got, v_opt, v_params = run_stream(vt, make, skip=skip)
    assert_histories_close(want, got, *tolerance(np.float32))
    assert [float(t_opt.state[p]["step"]) for p in t_params] == [float(v_opt.state[p]["step"]) for p in v_params]


@pytest.mark.parametrize("name,kwargs", ALL, ids=IDS)
def test_float64_parameters(name, kwargs):
    make = lambda lib, params: getattr(lib.optim, name)(params, **kwargs)  # noqa: E731
    want, _, _ = run_stream(torch, make, dtype=np.float64)
    got, _, _ = run_stream(vt, make, dtype=np.float64)
    assert_histories_close(want, got, *tolerance(np.float64))


@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW", "Adagrad"])
def test_fused_and_foreach_flags_accepted(name):
    for flags in ({"foreach": True}, {"fused": True}, {"foreach": False}):
        make = lambda lib, params: getattr(lib.optim, name)(params, lr=0.01, **flags)  # noqa: E731,B023
        want, _, _ = run_stream(torch, make, steps=6)
        got, _, _ = run_stream(vt, make, steps=6)
        assert_histories_close(want, got, *tolerance(np.float32))


def test_tensor_learning_rate():
    make = lambda lib, params: lib.optim.Adam(params, lr=lib.tensor(0.01))  # noqa: E731
    want, _, _ = run_stream(torch, make, steps=5)
    got, _, _ = run_stream(vt, make, steps=5)
    assert_histories_close(want, got, *tolerance(np.float32))


@pytest.mark.parametrize("set_to_none", [True, False])
def test_zero_grad(set_to_none):
    def run(lib):
        p = lib.ones(3, requires_grad=True)
        (p * 2).sum().backward()
        grad = p.grad
        lib.optim.SGD([p]).zero_grad(set_to_none=set_to_none)
        return p.grad is None, p.grad is grad, None if p.grad is None else p.grad.tolist()
    want, got = _each(run)
    assert got == want


def test_closure_runs_with_grad_enabled_and_returns_loss():
    def run(lib):
        w = lib.tensor([1.0, -2.0], requires_grad=True)
        opt = lib.optim.SGD([w], lr=0.1)
        losses = []

        def closure():
            opt.zero_grad()
            loss = ((w - 3) ** 2).sum()
            loss.backward()
            return loss

        with lib.no_grad():
            for _ in range(3):
                losses.append(opt.step(closure).item())
        return losses, w.tolist()
    (wl, ww), (gl, gw) = _each(run)
    np.testing.assert_allclose(gl, wl, rtol=1e-6)
    np.testing.assert_allclose(gw, ww, rtol=1e-6)


def test_step_bumps_param_version_refusing_stale_backward():
    def run(lib):
        w = lib.tensor([1.0, 2.0], requires_grad=True)
        opt = lib.optim.SGD([w], lr=0.1)
        y = (w * w).sum()
        y.backward(retain_graph=True)
        before = w._version
        opt.step()
        assert w._version > before
        y.backward()
    assert_same_error(run, match="modified by an inplace operation")


# -- construction errors ---------------------------------------------------------------------
BAD_ARGS = [
    ("SGD", {"lr": -0.1}), ("SGD", {"momentum": -1}), ("SGD", {"weight_decay": -1}), ("SGD", {"nesterov": True}),
    ("SGD", {"nesterov": True, "momentum": 0.9, "dampening": 0.1}), ("SGD", {"fused": True, "foreach": True}),
    ("Adam", {"eps": -1}), ("Adam", {"betas": (1.0, 0.9)}), ("Adam", {"betas": (0.9, -0.1)}),
    ("Adam", {"betas": (0, 0.9)}), ("Adam", {"fused": True, "differentiable": True}), ("AdamW", {"lr": -1}),
    ("RMSprop", {"alpha": -1}), ("RMSprop", {"momentum": -0.5}), ("Adagrad", {"lr_decay": -1}),
    ("Adagrad", {"initial_accumulator_value": -1}), ("Adadelta", {"rho": 1.5}), ("Adamax", {"betas": (0.9, 1.0)}),
    ("NAdam", {"momentum_decay": -1}), ("RAdam", {"weight_decay": -1}), ("SGD", {"capturable": True}),
    ("RMSprop", {"fused": True}),
]


@pytest.mark.parametrize("name,kwargs", BAD_ARGS)
def test_constructor_errors(name, kwargs):
    assert_same_error(lambda lib: getattr(lib.optim, name)([lib.zeros(2, requires_grad=True)], **kwargs))


@pytest.mark.parametrize("case", ["tensor", "empty", "int", "non_leaf", "set_group", "overlap", "names_mixed",
                                  "groups_names_mixed", "group_not_dict"])
def test_param_errors(case):
    def run(lib):
        a, b = lib.zeros(2, requires_grad=True), lib.ones(2, requires_grad=True)
        params = {"tensor": a, "empty": [], "int": [a, 3], "non_leaf": [a * 2], "set_group": [{"params": {a}}],
                  "overlap": [{"params": [a]}, {"params": [b, a]}], "names_mixed": [("a", a), b],
                  "groups_names_mixed": [{"params": [("a", a)]}, {"params": [b]}]}.get(case, [a])
        opt = lib.optim.SGD(params, lr=0.1)
        if case == "group_not_dict":
            opt.add_param_group([b])
    assert_same_error(run)


def test_required_hyperparameter_and_group_defaults():
    def run(lib):
        class Plain(lib.optim.Optimizer):
            def __init__(self, params):
                super().__init__(params, {"lr": _optimizer_module(lib).required, "beta": 0.5})
        a, b = lib.zeros(2, requires_grad=True), lib.zeros(1, requires_grad=True)
        opt = Plain([{"params": [a], "lr": 0.1}])
        opt.add_param_group({"params": b, "lr": 0.2, "extra": 1})
        groups = [{k: v for k, v in g.items() if k != "params"} for g in opt.param_groups]
        try:
            opt.add_param_group({"params": [lib.zeros(1, requires_grad=True)]})
        except ValueError as e:
            return groups, str(e)
    want, got = _each(run)
    assert got == want


def test_duplicate_parameters_warn():
    def run(lib):
        a = lib.zeros(2, requires_grad=True)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lib.optim.SGD([a, a], lr=0.1)
        return [(w.category.__name__, str(w.message)) for w in caught]
    want, got = _each(run)
    assert got == want and want


@pytest.mark.parametrize("name", ["Adam", "RMSprop", "Adadelta", "Adamax", "NAdam", "RAdam"])
def test_capturable_on_cpu_refused(name):
    def run(lib):
        p = lib.zeros(2, requires_grad=True)
        p.grad = lib.ones(2)
        getattr(lib.optim, name)([p], capturable=True).step()
    assert_same_error(run)


def test_differentiable_step_on_leaf_refused():
    def run(lib):
        p = lib.zeros(2, requires_grad=True)
        p.grad = lib.ones(2)
        lib.optim.SGD([p], lr=0.1, differentiable=True).step()
    assert_same_error(run)


def test_sparse_adam_refuses_dense_gradients():
    def run(lib):
        p = lib.zeros(2, requires_grad=True)
        opt = lib.optim.SparseAdam([p])
        p.grad = lib.ones(2)
        opt.step()
    assert_same_error(run)


# -- hooks, subclasses, copies ---------------------------------------------------------------
def test_step_hooks():
    def run(lib):
        p = lib.zeros(2, requires_grad=True)
        p.grad = lib.ones(2)
        opt = lib.optim.SGD([p], lr=0.5)
        calls = []
        opt.register_step_pre_hook(lambda o, args, kwargs: calls.append(("pre", o is opt, args[1:], kwargs)))
        handle = opt.register_step_post_hook(lambda o, a, k: calls.append(("post", a[0] is o, sorted(k))))
        glob = _optimizer_module(lib).register_optimizer_step_pre_hook(lambda o, a, k: calls.append("global"))
        replace = opt.register_step_pre_hook(lambda o, args, kwargs: ((o,), {"closure": lambda: 7.0}))
        out = opt.step()
        handle.remove()
        glob.remove()
        replace.remove()
        opt.step(closure=None)
        bad = opt.register_step_pre_hook(lambda o, args, kwargs: 5)
        try:
            opt.step()
        except RuntimeError:
            calls.append("bad hook refused")
        bad.remove()
        return out, calls, p.tolist()
    want, got = _each(run)
    assert got == want


class _TorchStyleSGD:
    """The custom optimizer of torch's docs, written once against the torch API."""

    @staticmethod
    def make(lib):
        class MomentumSGD(lib.optim.Optimizer):
            def __init__(self, params, lr=0.1, momentum=0.9):
                super().__init__(params, {"lr": lr, "momentum": momentum})

            @lib.no_grad()
            def step(self, closure=None):
                loss = None
                if closure is not None:
                    with lib.enable_grad():
                        loss = closure()
                for group in self.param_groups:
                    for p in group["params"]:
                        if p.grad is None:
                            continue
                        state = self.state[p]
                        if "buf" not in state:
                            state["buf"] = p.grad.clone()
                        else:
                            state["buf"].mul_(group["momentum"]).add_(p.grad)
                        p.add_(state["buf"], alpha=-group["lr"])
                return loss
        return MomentumSGD


def test_user_subclass_written_against_torch_api():
    make = lambda lib, params: _TorchStyleSGD.make(lib)(params, lr=0.05)  # noqa: E731
    want, t_opt, _ = run_stream(torch, make)
    got, v_opt, _ = run_stream(vt, make)
    assert_histories_close(want, got, *tolerance(np.float32))
    assert _layout(v_opt.state_dict()) == _layout(t_opt.state_dict())
    assert repr(v_opt) == repr(t_opt)


@pytest.mark.parametrize("copier", [copy.deepcopy, lambda o: pickle.loads(pickle.dumps(o))], ids=["deepcopy", "pickle"])
def test_optimizer_copies_keep_groups_and_state(copier):
    opt, _ = _stepped(vt, "Adam", {"lr": 0.01}, steps=2)
    twin = copier(opt)
    assert repr(twin) == repr(opt)
    p, q = opt.param_groups[0]["params"][0], twin.param_groups[0]["params"][0]
    np.testing.assert_array_equal(twin.state[q]["exp_avg"].numpy(), opt.state[p]["exp_avg"].numpy())
    q.grad = vt.ones_like(q)
    twin.step()
    assert float(twin.state[q]["step"]) == 3.0 and float(opt.state[p]["step"]) == 2.0


def test_numeric_step_in_old_state_dicts_becomes_a_tensor():
    def run(lib):
        params = leaf_params(lib, initial_params())
        src = lib.optim.NAdam(params)
        for p in params:
            p.grad = lib.ones_like(p)
        src.step()
        sd = src.state_dict()
        for entry in sd["state"].values():
            entry["step"], entry["mu_product"] = 3.0, 0.5
        opt = lib.optim.NAdam(params)
        opt.load_state_dict(sd)
        opt.step()
        entry = opt.state[params[0]]
        return str(entry["step"].dtype), float(entry["step"]), str(entry["mu_product"].dtype), values(params)
    want, got = _each(run)
    assert got[:3] == want[:3]
    assert_histories_close([want[3]], [got[3]], *tolerance(np.float32))


def test_expanded_parameter_refused():
    def run(lib):
        p = lib.ones(3).expand(2, 3).detach().requires_grad_()
        p.grad = lib.ones(2, 3)
        lib.optim.SGD([p], lr=0.1).step()
    assert_same_error(run, match="more than one element of the written-to tensor")


def _signature(fn):
    return [(p.name, p.kind, p.default) for p in inspect.signature(fn).parameters.values()]


SIGNED = ([f"optim.{n}.__init__" for n in ("SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "Adamax",
                                            "NAdam", "RAdam", "SparseAdam", "LBFGS")]
          + [f"optim.Optimizer.{m}" for m in ("__init__", "zero_grad", "step", "add_param_group", "state_dict",
                                              "load_state_dict", "register_step_pre_hook", "register_step_post_hook",
                                              "register_state_dict_pre_hook", "register_state_dict_post_hook",
                                              "register_load_state_dict_pre_hook",
                                              "register_load_state_dict_post_hook")]
          + [f"optim.lr_scheduler.{n}.{m}" for n in torch.optim.lr_scheduler.__all__
             for m in ("__init__", "step", "get_last_lr", "state_dict", "load_state_dict")]
          + [f"nn.utils.{f}" for f in ("clip_grad_norm_", "clip_grad_norm", "clip_grad_value_", "get_total_norm",
                                       "clip_grads_with_norm_", "parameters_to_vector", "vector_to_parameters")])


@pytest.mark.parametrize("path", SIGNED)
def test_signatures_match_torch(path):
    def resolve(lib):
        obj = lib
        for part in path.split("."):
            obj = getattr(obj, part)
        return obj
    assert _signature(resolve(vt)) == _signature(resolve(torch))


def test_state_dict_hooks():
    def run(lib):
        p = lib.zeros(2, requires_grad=True)
        opt = lib.optim.SGD([p], lr=0.1, momentum=0.5)
        calls = []
        opt.register_state_dict_pre_hook(lambda o: calls.append("pre"))
        opt.register_state_dict_pre_hook(lambda o: calls.append("pre-first"), prepend=True)
        opt.register_state_dict_post_hook(lambda o, sd: {**sd, "extra": 1})
        opt.register_load_state_dict_pre_hook(lambda o, sd: calls.append(("load-pre", sorted(sd))))
        handle = opt.register_load_state_dict_post_hook(lambda o: calls.append("load-post"))
        sd = opt.state_dict()
        opt.load_state_dict(sd)
        handle.remove()
        opt.load_state_dict(sd)
        return calls, sorted(sd)
    want, got = _each(run)
    assert got == want
