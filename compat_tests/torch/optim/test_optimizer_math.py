"""Optimizer updates against real torch: every option that changes the math, a dozen steps each."""

import itertools

import numpy as np
import pytest

from compat_tests.torch.optim._streams import assert_histories_close, run_stream, tolerance


def _cases(name, base, **options):
    """(optimizer name, kwargs) for every combination of the option values."""
    keys = list(options)
    for combo in itertools.product(*options.values()):
        yield name, {**base, **dict(zip(keys, combo))}


CASES = [
    *_cases("SGD", {"lr": 0.05}, momentum=[0, 0.9], dampening=[0, 0.3], weight_decay=[0, 0.1], maximize=[False, True]),
    *_cases("SGD", {"lr": 0.05, "momentum": 0.8, "nesterov": True}, weight_decay=[0, 0.1], maximize=[False, True]),
    *_cases("Adam", {"lr": 0.02}, amsgrad=[False, True], weight_decay=[0, 0.1], maximize=[False, True],
            decoupled_weight_decay=[False, True]),
    *_cases("Adam", {"lr": 0.01, "eps": 1e-3}, betas=[(0.5, 0.9), (0.95, 0.99)]),
    *_cases("AdamW", {"lr": 0.02}, amsgrad=[False, True], weight_decay=[0.01, 0.3], maximize=[False, True]),
    *_cases("RMSprop", {"lr": 0.01}, centered=[False, True], momentum=[0, 0.7], weight_decay=[0, 0.1],
            maximize=[False, True]),
    *_cases("RMSprop", {"lr": 0.01, "eps": 1e-2}, alpha=[0.5, 0.9]),
    *_cases("Adagrad", {"lr": 0.1}, lr_decay=[0, 0.05], initial_accumulator_value=[0, 0.5], weight_decay=[0, 0.1],
            maximize=[False, True]),
    *_cases("Adadelta", {}, lr=[1.0, 0.3], rho=[0.9, 0.5], weight_decay=[0, 0.1], maximize=[False, True]),
    *_cases("Adamax", {"lr": 0.02}, betas=[(0.9, 0.999), (0.6, 0.8)], weight_decay=[0, 0.1], maximize=[False, True]),
    *_cases("NAdam", {"lr": 0.02}, momentum_decay=[4e-3, 0.1], weight_decay=[0, 0.1],
            decoupled_weight_decay=[False, True], maximize=[False, True]),
    *_cases("RAdam", {"lr": 0.02}, betas=[(0.9, 0.999), (0.8, 0.6)], weight_decay=[0, 0.1],
            decoupled_weight_decay=[False, True], maximize=[False, True]),
]


def _ids(case):
    name, kwargs = case
    return name + "-" + "-".join(f"{k}={v}" for k, v in kwargs.items())


@pytest.mark.parametrize("case", CASES, ids=[_ids(c) for c in CASES])
def test_steps_match_torch(case):
    name, kwargs = case

    def make(lib, params):
        return getattr(lib.optim, name)(params, **kwargs)

    want, _, _ = run_stream(__import__("torch"), make, steps=14)
    got, _, _ = run_stream(__import__("vfw.torch", fromlist=["x"]), make, steps=14)
    assert_histories_close(want, got, *tolerance(np.float32))


BLOCKED = [("SGD", {"lr": 0.05, "momentum": 0.9, "nesterov": True, "weight_decay": 0.01}),
           ("Adam", {"lr": 0.02, "amsgrad": True, "weight_decay": 0.1}), ("AdamW", {"lr": 0.02}),
           ("RMSprop", {"centered": True, "momentum": 0.5}), ("Adagrad", {"lr_decay": 0.01}), ("Adadelta", {}),
           ("Adamax", {"maximize": True}), ("NAdam", {"decoupled_weight_decay": True, "weight_decay": 0.1}),
           ("RAdam", {"betas": (0.8, 0.6)})]


@pytest.mark.parametrize("name,kwargs", BLOCKED, ids=[n for n, _ in BLOCKED])
def test_large_and_non_contiguous_parameters(name, kwargs):
    """Parameters updated block by block (more elements than a block, a partial last block) and parameters
    that are non-contiguous views (updated whole)."""
    rng = np.random.default_rng(5)
    big = rng.standard_normal((250, 300)).astype(np.float32)
    strided = rng.standard_normal((40, 30)).astype(np.float32)
    grads = [[rng.standard_normal(big.shape).astype(np.float32), rng.standard_normal((30, 40)).astype(np.float32)]
             for _ in range(6)]
    results = []
    for lib in (__import__("torch"), __import__("vfw.torch", fromlist=["x"])):
        params = [lib.tensor(big.copy(), requires_grad=True), lib.tensor(strided.copy()).t().detach().requires_grad_()]
        opt = getattr(lib.optim, name)(params, **kwargs)
        history = []
        for step_grads in grads:
            params[0].grad = lib.from_numpy(step_grads[0].copy())
            params[1].grad = lib.from_numpy(step_grads[1].T.copy().T)  # a non-contiguous gradient too
            opt.step()
            history.append([p.detach().numpy().copy() for p in params])
        results.append(history)
    assert_histories_close(*results, *tolerance(np.float32))


@pytest.mark.parametrize("name,kwargs", BLOCKED, ids=[n for n, _ in BLOCKED])
def test_training_on_a_loss_computed_in_each_library(name, kwargs):
    """Gradients from backward through a small least-squares-plus-quartic loss, so updates feed back."""
    rng = np.random.default_rng(11)
    x, y = rng.standard_normal((16, 5)).astype(np.float32), rng.standard_normal((16, 1)).astype(np.float32)
    w0, b0 = rng.standard_normal((5, 1)).astype(np.float32) * 0.5, np.zeros(1, np.float32)
    results = []
    for lib in (__import__("torch"), __import__("vfw.torch", fromlist=["x"])):
        w, b = lib.tensor(w0.copy(), requires_grad=True), lib.tensor(b0.copy(), requires_grad=True)
        opt = getattr(lib.optim, name)([w, b], **kwargs)
        inputs, targets = lib.from_numpy(x), lib.from_numpy(y)
        history = []
        for _ in range(15):
            opt.zero_grad()
            loss = ((inputs @ w + b - targets) ** 2).mean() + 0.1 * (w ** 4).sum()
            loss.backward()
            opt.step()
            history.append([w.detach().numpy().copy(), b.detach().numpy().copy(), np.float32(loss.item())])
        results.append(history)
    assert_histories_close(*results, *tolerance(np.float32))
