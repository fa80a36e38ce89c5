"""Learning-rate schedulers against real torch: lr (and momentum) sequences, closed forms, warnings, state."""

import copy
import math
import warnings

import numpy as np
import pytest

from compat_tests.torch.optim._streams import LIBS

torch = pytest.importorskip("torch")
import vfw.torch as vt  # noqa: E402


class _Scale:
    """A callable object as lr_lambda (its attributes go into the scheduler's state dict)."""

    def __init__(self, rate):
        self.rate = rate

    def __call__(self, epoch):
        return self.rate ** epoch


def _optimizer(lib, kind="SGD"):
    params = [lib.zeros(3, requires_grad=True), lib.zeros(2, requires_grad=True)]
    groups = [{"params": params[:1]}, {"params": params[1:], "lr": 0.02}]
    if kind == "Adam":
        return lib.optim.Adam(groups, lr=0.1)
    if kind == "Adagrad":
        return lib.optim.Adagrad(groups, lr=0.1)
    return lib.optim.SGD(groups, lr=0.1, momentum=0.9)


def _momenta(opt):
    return [g["betas"][0] if "betas" in g else g.get("momentum") for g in opt.param_groups]


def _trace(lib, make, steps=30, metric=None, kind="SGD", epochs=None):
    """lrs, momenta and get_last_lr() after construction and after each scheduler step."""
    opt = _optimizer(lib, kind)
    sched = make(lib.optim.lr_scheduler, opt)
    out = [([g["lr"] for g in opt.param_groups], _momenta(opt), list(sched.get_last_lr()))]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for t in range(steps):
            opt.step()
            if metric is not None:
                sched.step(metric(t))
            elif epochs is not None:
                sched.step(epochs[t])
            else:
                sched.step()
            out.append(([g["lr"] for g in opt.param_groups], _momenta(opt), list(sched.get_last_lr())))
    return out, sched, opt


def _assert_traces_equal(want, got):
    for t, (w, g) in enumerate(zip(want, got)):
        for name, wv, gv in zip(("lr", "momentum", "last_lr"), w, g):
            assert len(gv) == len(wv), f"step {t} {name}"
            for a, b in zip(wv, gv):
                if a is None:
                    assert b is None, f"step {t} {name}"
                else:
                    assert math.isclose(b, a, rel_tol=1e-12, abs_tol=1e-15), f"step {t} {name}: {b} != {a}"


SCHEDULES = {
    "StepLR": lambda S, o: S.StepLR(o, step_size=4, gamma=0.5),
    "MultiStepLR": lambda S, o: S.MultiStepLR(o, milestones=[3, 7, 7, 20], gamma=0.3),
    "ConstantLR": lambda S, o: S.ConstantLR(o, factor=0.25, total_iters=6),
    "LinearLR": lambda S, o: S.LinearLR(o, start_factor=0.2, end_factor=0.9, total_iters=11),
    "LinearLR-decay": lambda S, o: S.LinearLR(o, start_factor=1.0, end_factor=0.1, total_iters=7),
    "ExponentialLR": lambda S, o: S.ExponentialLR(o, gamma=0.93),
    "PolynomialLR": lambda S, o: S.PolynomialLR(o, total_iters=17, power=2.5),
    "CosineAnnealingLR": lambda S, o: S.CosineAnnealingLR(o, T_max=9, eta_min=0.001),
    "CosineAnnealingWarmRestarts": lambda S, o: S.CosineAnnealingWarmRestarts(o, T_0=5, eta_min=0.002),
    "CosineAnnealingWarmRestarts-mult": lambda S, o: S.CosineAnnealingWarmRestarts(o, T_0=3, T_mult=2),
    "LambdaLR": lambda S, o: S.LambdaLR(o, lr_lambda=[lambda e: 0.9 ** e, lambda e: 1 / (e + 1)]),
    "MultiplicativeLR": lambda S, o: S.MultiplicativeLR(o, lr_lambda=lambda e: 0.95 if e % 2 else 0.99),
    "CyclicLR": lambda S, o: S.CyclicLR(o, base_lr=0.01, max_lr=[0.1, 0.2], step_size_up=4, step_size_down=6),
    "CyclicLR-triangular2": lambda S, o: S.CyclicLR(o, 0.01, 0.1, step_size_up=3, mode="triangular2"),
    "CyclicLR-exp_range": lambda S, o: S.CyclicLR(o, 0.01, 0.1, step_size_up=5, mode="exp_range", gamma=0.97),
    "CyclicLR-custom": lambda S, o: S.CyclicLR(o, 0.01, 0.1, step_size_up=2, scale_fn=lambda x: 0.8 ** x,
                                               scale_mode="iterations", cycle_momentum=False),
    "OneCycleLR": lambda S, o: S.OneCycleLR(o, max_lr=[0.5, 0.3], total_steps=31),
    "OneCycleLR-linear-3phase": lambda S, o: S.OneCycleLR(o, max_lr=0.4, epochs=4, steps_per_epoch=8,
                                                          anneal_strategy="linear", three_phase=True,
                                                          pct_start=0.25),
    "SequentialLR": lambda S, o: S.SequentialLR(o, [S.LinearLR(o, 0.1, total_iters=5), S.ExponentialLR(o, 0.9),
                                                    S.StepLR(o, 3, 0.5)], milestones=[5, 14]),
    "ChainedScheduler": lambda S, o: S.ChainedScheduler([S.ConstantLR(o, 0.5, total_iters=4),
                                                         S.ExponentialLR(o, 0.9), S.StepLR(o, 5, 0.7)]),
}


@pytest.mark.parametrize("name", list(SCHEDULES))
def test_lr_sequence_matches_torch(name):
    want, _, _ = _trace(torch, SCHEDULES[name])
    got, _, _ = _trace(vt, SCHEDULES[name])
    _assert_traces_equal(want, got)


@pytest.mark.parametrize("name", ["CyclicLR", "OneCycleLR"])
def test_beta1_cycled_for_adam(name):
    want, _, _ = _trace(torch, SCHEDULES[name], kind="Adam")
    got, _, _ = _trace(vt, SCHEDULES[name], kind="Adam")
    _assert_traces_equal(want, got)


CLOSED_FORM = ["StepLR", "MultiStepLR", "ConstantLR", "LinearLR", "ExponentialLR", "PolynomialLR", "CosineAnnealingLR",
               "LambdaLR", "MultiplicativeLR", "CosineAnnealingWarmRestarts", "CosineAnnealingWarmRestarts-mult"]


@pytest.mark.parametrize("name", CLOSED_FORM)
def test_explicit_epochs_use_closed_form(name):
    epochs = [1, 2, 3, 7, 5, 12, 13, 30, 2, 0, 9.5, 10.25][:12] if "Warm" in name else [1, 2, 3, 7, 5, 12, 13, 30, 2,
                                                                                         0, 9, 10]
    want, _, _ = _trace(torch, SCHEDULES[name], steps=len(epochs), epochs=epochs)
    got, _, _ = _trace(vt, SCHEDULES[name], steps=len(epochs), epochs=epochs)
    _assert_traces_equal(want, got)


PLATEAU = [
    {}, {"mode": "max", "patience": 2, "factor": 0.5}, {"threshold_mode": "abs", "threshold": 0.05, "patience": 1},
    {"cooldown": 3, "patience": 0, "min_lr": [0.01, 0.005]}, {"patience": 1, "eps": 0.05, "factor": 0.5},
]


@pytest.mark.parametrize("kwargs", PLATEAU)
def test_reduce_lr_on_plateau(kwargs):
    losses = [1.0, 0.9, 0.95, 0.97, 0.9, 0.91, 0.92, 0.93, 0.5, 0.52, 0.51, 0.53, 0.6, 0.6, 0.6, 0.59, 0.61] * 2
    make = lambda S, o: S.ReduceLROnPlateau(o, **kwargs)  # noqa: E731
    want, _, _ = _trace(torch, make, steps=len(losses), metric=lambda t: losses[t])
    got, _, _ = _trace(vt, make, steps=len(losses), metric=lambda t: vt.tensor(losses[t]))
    _assert_traces_equal(want, got)


def _warnings_of(fn):
    def run(lib):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            fn(lib)
        return [(w.category.__name__, str(w.message)) for w in caught]
    return [run(lib) for lib in LIBS]


def test_warns_when_scheduler_steps_before_optimizer():
    def run(lib):
        opt = _optimizer(lib)
        sched = lib.optim.lr_scheduler.StepLR(opt, 2)
        sched.step()
        opt.step()
        sched.step()
    want, got = _warnings_of(run)
    assert got == want and len(want) == 1


def test_warns_when_optimizer_step_replaced():
    def run(lib):
        opt = _optimizer(lib)
        sched = lib.optim.lr_scheduler.ExponentialLR(opt, 0.9)
        opt.step = lambda closure=None: None
        opt.step()
        sched.step()
    want, got = _warnings_of(run)
    assert got == want and len(want) == 1


def test_warns_on_epoch_argument_and_direct_get_lr():
    def run(lib):
        opt = _optimizer(lib)
        sched = lib.optim.lr_scheduler.StepLR(opt, 2)
        opt.step()
        sched.step(3)
        sched.get_lr()
        plateau = lib.optim.lr_scheduler.ReduceLROnPlateau(opt)
        plateau.step(1.0, epoch=4)
    want, got = _warnings_of(run)
    assert got == want and len(want) == 3


def test_no_warning_in_the_normal_order():
    def run(lib):
        opt = _optimizer(lib)
        sched = lib.optim.lr_scheduler.CosineAnnealingLR(opt, 5)
        for _ in range(3):
            opt.step()
            sched.step()
    assert _warnings_of(run) == [[], []]


def _comparable(value):
    if isinstance(value, dict):
        return {k: _comparable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_comparable(v) for v in value)
    return value


@pytest.mark.parametrize("name", list(SCHEDULES) + ["ReduceLROnPlateau", "LambdaLR-object"])
def test_state_dict_matches_torch(name):
    make = {"ReduceLROnPlateau": lambda S, o: S.ReduceLROnPlateau(o, patience=1),
            "LambdaLR-object": lambda S, o: S.LambdaLR(o, _Scale(0.8))}.get(name, SCHEDULES.get(name))
    metric = (lambda t: 1.0) if name == "ReduceLROnPlateau" else None
    (_, t_sched, _), (_, v_sched, _) = (_trace(lib, make, steps=7, metric=metric) for lib in LIBS)
    want, got = _comparable(t_sched.state_dict()), _comparable(v_sched.state_dict())
    assert got.keys() == want.keys()
    for key in want:
        if key == "_scale_fn_custom" or (key == "_schedulers" and name == "SequentialLR"):
            continue  # (compared member by member below for SequentialLR)
        assert str(got[key]) == str(want[key]), key
    if name == "SequentialLR":
        for w, g in zip(want["_schedulers"], got["_schedulers"]):
            assert g.keys() == w.keys() and all(str(g[k]) == str(w[k]) for k in w)


@pytest.mark.parametrize("name", list(SCHEDULES) + ["LambdaLR-object"])
def test_state_dict_round_trip_continues_identically(name):
    make = {"LambdaLR-object": lambda S, o: S.LambdaLR(o, _Scale(0.8))}.get(name, SCHEDULES.get(name))
    _, sched, opt = _trace(vt, make, steps=6)
    saved_sched, saved_opt = copy.deepcopy(sched.state_dict()), copy.deepcopy(opt.state_dict())
    twin_opt = _optimizer(vt)
    twin = make(vt.optim.lr_scheduler, twin_opt)
    twin.load_state_dict(saved_sched)
    twin_opt.load_state_dict(saved_opt)
    for _ in range(12):
        for o, s in ((opt, sched), (twin_opt, twin)):
            o.step()
            s.step()
        assert twin.get_last_lr() == sched.get_last_lr()
        assert [g["lr"] for g in twin_opt.param_groups] == [g["lr"] for g in opt.param_groups]


def test_initial_lr_base_lrs_and_resume():
    def run(lib):
        opt = _optimizer(lib)
        S = lib.optim.lr_scheduler
        sched = S.StepLR(opt, 3, gamma=0.5, last_epoch=-1)
        for _ in range(4):
            opt.step()
            sched.step()
        resumed = S.StepLR(opt, 3, gamma=0.5, last_epoch=4)
        return sched.base_lrs, [g["initial_lr"] for g in opt.param_groups], resumed.last_epoch, \
            resumed.get_last_lr(), isinstance(sched, S._LRScheduler), isinstance(resumed, S.LRScheduler)
    want, got = (run(lib) for lib in LIBS)
    assert got == want


def _step_times(scheduler, n):
    for _ in range(n):
        scheduler.step()


BAD = [
    lambda S, o: S.StepLR(o, 3, last_epoch=5),
    lambda S, o: S.ConstantLR(o, factor=1.5), lambda S, o: S.LinearLR(o, start_factor=0),
    lambda S, o: S.LinearLR(o, end_factor=2.0), lambda S, o: S.CosineAnnealingWarmRestarts(o, T_0=0),
    lambda S, o: S.CosineAnnealingWarmRestarts(o, T_0=2, T_mult=1.5),
    lambda S, o: S.CosineAnnealingWarmRestarts(o, T_0=2, eta_min="a"),
    lambda S, o: S.CosineAnnealingWarmRestarts(o, T_0=2).step(-1),
    lambda S, o: S.OneCycleLR(o, 0.1), lambda S, o: S.OneCycleLR(o, 0.1, total_steps=0),
    lambda S, o: S.OneCycleLR(o, 0.1, epochs=2, steps_per_epoch=0),
    lambda S, o: S.OneCycleLR(o, 0.1, total_steps=5, pct_start=1.5),
    lambda S, o: S.OneCycleLR(o, 0.1, total_steps=5, anneal_strategy="exp"),
    lambda S, o: S.OneCycleLR(o, [0.1], total_steps=5),
    lambda S, o: _step_times(S.OneCycleLR(o, 0.1, total_steps=2), 3),
    lambda S, o: S.CyclicLR(o, 0.01, 0.1, mode="sine"), lambda S, o: S.CyclicLR(o, [0.01], 0.1),
    lambda S, o: S.ReduceLROnPlateau(o, factor=1.0), lambda S, o: S.ReduceLROnPlateau(o, mode="avg"),
    lambda S, o: S.ReduceLROnPlateau(o, threshold_mode="x"), lambda S, o: S.ReduceLROnPlateau(o, min_lr=[0.1]),
    lambda S, o: S.LambdaLR(o, [lambda e: 1.0]), lambda S, o: S.MultiplicativeLR(o, 0.5),
    lambda S, o: S.SequentialLR(o, [S.StepLR(o, 2)], milestones=[3]),
    lambda S, o: S.SequentialLR(o, [], milestones=[]),
    lambda S, o: S.SequentialLR(o, [S.StepLR(o, 2), S.ReduceLROnPlateau(o)], milestones=[3]),
    lambda S, o: S.ChainedScheduler([S.StepLR(o, 2), S.ReduceLROnPlateau(o)]),
    lambda S, o: S.ChainedScheduler([]), lambda S, o: S.StepLR("not an optimizer", 2),
    lambda S, o: S.ChainedScheduler([S.StepLR(o, 2), object()]),
]


@pytest.mark.parametrize("index", range(len(BAD)))
def test_errors_match_torch(index):
    def run(lib):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return BAD[index](lib.optim.lr_scheduler, _optimizer(lib))
    outcomes = []
    for lib in LIBS:
        try:
            run(lib)
            outcomes.append(None)
        except Exception as e:  # noqa: BLE001
            outcomes.append(e)
    want, got = outcomes
    assert want is not None, "torch accepted the case"
    base = next(t for t in type(want).__mro__ if t.__module__ == "builtins")
    assert isinstance(got, base), f"torch raised {type(want).__name__}({want}); vfw gave {got!r}"


def test_cycle_momentum_needs_momentum():
    for lib in LIBS:
        with pytest.raises(ValueError, match="momentum or beta1"):
            lib.optim.lr_scheduler.CyclicLR(_optimizer(lib, "Adagrad"), 0.01, 0.1)


def test_tensor_learning_rate_filled_in_place():
    def run(lib):
        p = lib.zeros(2, requires_grad=True)
        lr = lib.tensor(0.1)
        opt = lib.optim.SGD([p], lr=lr)
        sched = lib.optim.lr_scheduler.ExponentialLR(opt, 0.5)
        opt.step()
        sched.step()
        return opt.param_groups[0]["lr"] is lr, float(lr), [float(x) for x in sched.get_last_lr()]
    want, got = (run(lib) for lib in LIBS)
    assert got[0] == want[0] and np.isclose(got[1], want[1]) and np.allclose(got[2], want[2])
