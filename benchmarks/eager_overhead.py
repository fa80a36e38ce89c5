"""Eager per-op overhead: the engine vs the raw numpy call it makes vs torch eager.

Target (issue 2): engine overhead <= 1.5 us above raw numpy on 16x16 float32,
and no extra copy on a 1000x1000 add (same peak allocation as numpy).
"""

import numpy as np

from benchmarks.timing import interleaved_medians, peak_allocated_bytes
from vfw.core import Tensor, execute, get_op, run

try:
    import torch
except ImportError:  # the benchmark still reports engine vs numpy
    torch = None

CASES = {
    "add 16x16": ("Add", lambda a, b: np.add(a, b), lambda a, b: torch.add(a, b), (16, 16)),
    "matmul 16x16": ("MatMul", lambda a, b: np.matmul(a, b), lambda a, b: torch.matmul(a, b), (16, 16)),
    "relu 16x16": ("Relu", lambda a: np.maximum(a, 0), lambda a: torch.relu(a), (16, 16)),
    "add 1000x1000": ("Add", lambda a, b: np.add(a, b), lambda a, b: torch.add(a, b), (1000, 1000)),
}


def _candidates(op_type, np_fn, torch_fn, shape, rng):
    """Callables doing the same op through numpy, the engine (three entry points) and torch."""
    arrays = [rng.standard_normal(shape).astype(np.float32) for _ in range(np_fn.__code__.co_argcount)]
    tensors = [Tensor(a) for a in arrays]
    op = get_op(op_type)
    candidates = {
        "numpy": lambda: np_fn(*arrays),
        "op": lambda: op(*arrays),
        "run": lambda: run(op_type, *arrays),
        "execute": lambda: execute(op, *tensors),
    }
    if torch is not None:
        torch_in = [torch.from_numpy(a) for a in arrays]
        candidates["torch"] = lambda: torch_fn(*torch_in)
    return candidates


def run_benchmark(rounds=15):
    """Return (header, rows) of the eager-overhead table."""
    header = ["case", "numpy us", "engine Op us", "engine run() us", "execute(Tensor) us",
              "torch us", "Op overhead us", "Op/torch", "peak MB numpy/engine"]
    rows = []
    rng = np.random.default_rng(0)
    for name, (op_type, np_fn, torch_fn, shape) in CASES.items():
        candidates = _candidates(op_type, np_fn, torch_fn, shape, rng)
        us = {k: v * 1e6 for k, v in interleaved_medians(candidates, rounds=rounds).items()}
        peak_np = peak_allocated_bytes(candidates["numpy"]) / 2**20
        peak_op = peak_allocated_bytes(candidates["op"]) / 2**20
        torch_us = us.get("torch")
        rows.append([
            name, f"{us['numpy']:.2f}", f"{us['op']:.2f}", f"{us['run']:.2f}", f"{us['execute']:.2f}",
            "n/a" if torch_us is None else f"{torch_us:.2f}", f"{us['op'] - us['numpy']:+.2f}",
            "n/a" if torch_us is None else f"{us['op'] / torch_us:.2f}x", f"{peak_np:.2f}/{peak_op:.2f}",
        ])
    return header, rows
