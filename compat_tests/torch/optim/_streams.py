"""Shared fixtures of the optimizer tests: the same parameters and gradient stream for torch and vfw.torch."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import vfw.torch as vt  # noqa: E402

LIBS = (torch, vt)
SHAPES = [(4, 3), (5,), ()]


def initial_params(dtype=np.float32, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s).astype(dtype) for s in SHAPES]


def grad_stream(steps, dtype=np.float32, seed=1):
    """Per step, one gradient array per parameter (some steps leave a parameter without gradient)."""
    rng = np.random.default_rng(seed)
    return [[rng.standard_normal(s).astype(dtype) for s in SHAPES] for _ in range(steps)]


def leaf_params(lib, arrays):
    return [lib.tensor(a.copy(), requires_grad=True) for a in arrays]


def values(params):
    return [p.detach().numpy().copy() for p in params]


def run_stream(lib, make_opt, steps=12, dtype=np.float32, skip=None):
    """Params after each step of ``make_opt(lib, params)`` fed the fixed gradient stream.

    ``skip``: (step, param index) pairs whose gradient is None at that step.
    """
    params = leaf_params(lib, initial_params(dtype))
    opt = make_opt(lib, params)
    history = []
    for t, grads in enumerate(grad_stream(steps, dtype)):
        for i, (p, g) in enumerate(zip(params, grads)):
            p.grad = None if skip and (t, i) in skip else lib.from_numpy(g.copy())
        opt.step()
        history.append(values(params))
    return history, opt, params


def assert_histories_close(want, got, rtol, atol):
    for t, (w_step, g_step) in enumerate(zip(want, got)):
        for i, (w, g) in enumerate(zip(w_step, g_step)):
            assert g.dtype == w.dtype, f"step {t} param {i}: dtype {g.dtype} != {w.dtype}"
            np.testing.assert_allclose(g, w, rtol=rtol, atol=atol, err_msg=f"step {t} param {i}")


def tolerance(dtype):
    """Round-off of a dozen steps: a few float32 ulps of O(1) values (double: a few 1e-15)."""
    return (2e-6, 2e-6) if dtype == np.float32 else (1e-12, 1e-12)
