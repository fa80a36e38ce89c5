"""vfw.torch per-call overhead against real torch: the same user-level expressions in both.

Targets (issue 5): <= 1.0x torch for elementwise ops (add, mul, relu) on 16x16 float32,
<= 1.5x for the rest (matmul, sum, ``x[:, 1:3]``, a forward+backward step, an MLP SGD step).
"""

import numpy as np

from benchmarks.timing import interleaved_medians

try:
    import torch
except ImportError:
    torch = None


def _step(lib, x, w):
    w.grad = None
    loss = ((x @ w).relu() * 2.0).sum()
    loss.backward()
    return w.grad


def _mlp_step(lib, data):
    x, labels, w1, w2 = data
    w1.grad = w2.grad = None
    logits = (x @ w1).relu() @ w2
    loss = -logits.log_softmax(1).gather(1, labels[:, None]).mean()
    loss.backward()
    with lib.no_grad():
        w1 -= 0.01 * w1.grad
        w2 -= 0.01 * w2.grad
    return loss


CASES = {
    "x + y": lambda lib, x, y, w: x + y,
    "x * y": lambda lib, x, y, w: x * y,
    "torch.add(x, y)": lambda lib, x, y, w: lib.add(x, y),
    "x * 2.0": lambda lib, x, y, w: x * 2.0,
    "relu(x)": lambda lib, x, y, w: lib.relu(x),
    "x @ y": lambda lib, x, y, w: x @ y,
    "x.sum()": lambda lib, x, y, w: x.sum(),
    "x.sum(1)": lambda lib, x, y, w: x.sum(1),
    "x[:, 1:3]": lambda lib, x, y, w: x[:, 1:3],
    "fwd+bwd ((x@w).relu()*2).sum()": lambda lib, x, y, w: _step(lib, x, w),
}


def run_benchmark(rounds=15):
    """Return (header, rows): microseconds per call for vfw.torch and torch, and their ratio."""
    import vfw.torch as vt

    header = ["case (16x16 float32)", "vfw.torch us", "torch us", "vfw/torch"]
    rows = []
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal((16, 16)).astype(np.float32) for _ in range(3)]
    libs = {"vfw": vt} if torch is None else {"vfw": vt, "torch": torch}
    inputs = {}
    for name, lib in libs.items():
        x, y, w = (lib.from_numpy(a.copy()) for a in arrays)
        w.requires_grad_(True)
        inputs[name] = (lib, x, y, w)
    # a 784-128-10 MLP SGD step on a batch of 64
    mlp_arrays = (rng.standard_normal((64, 784)).astype(np.float32), rng.integers(0, 10, 64),
                  (rng.standard_normal((784, 128)) * 0.05).astype(np.float32),
                  (rng.standard_normal((128, 10)) * 0.05).astype(np.float32))
    mlp = {}
    for name, lib in libs.items():
        x, labels, w1, w2 = (lib.from_numpy(a.copy()) for a in mlp_arrays)
        mlp[name] = (lib, (x, labels, w1.requires_grad_(), w2.requires_grad_()))
    cases = [(case, fn, inputs) for case, fn in CASES.items()]
    cases.append(("MLP 784-128-10 SGD step, batch 64", _mlp_step, mlp))
    for case, fn, args_of in cases:
        candidates = {name: (lambda fn=fn, args=args: fn(*args)) for name, args in args_of.items()}
        us = {k: v * 1e6 for k, v in interleaved_medians(candidates, rounds=rounds).items()}
        ref = us.get("torch")
        rows.append([case, f"{us['vfw']:.2f}", "n/a" if ref is None else f"{ref:.2f}",
                     "n/a" if ref is None else f"{us['vfw'] / ref:.2f}x"])
    return header, rows
