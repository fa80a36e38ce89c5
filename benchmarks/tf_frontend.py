"""vfw.tensorflow per-op overhead against real TensorFlow eager: the same expressions in both, one run.

Target (issue 7): vfw.tensorflow costs at most 0.2x real TF eager on 16x16 float32 for add, ``x + y``,
matmul, relu, reduce_sum and a GradientTape step (``reduce_sum(relu(matmul(x, w)) * 2)`` and its
gradient with respect to the variable ``w``).
"""

import os

import numpy as np

from benchmarks.timing import interleaved_medians

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
try:
    import tensorflow
except ImportError:
    tensorflow = None


def _tape_step(lib, x, w):
    with lib.GradientTape() as tape:
        loss = lib.reduce_sum(lib.nn.relu(lib.matmul(x, w)) * 2.0)
    return tape.gradient(loss, w)


CASES = {
    "tf.add(x, y)": lambda lib, x, y, w: lib.add(x, y),
    "x + y": lambda lib, x, y, w: x + y,
    "x * 2.0": lambda lib, x, y, w: x * 2.0,
    "tf.matmul(x, y)": lambda lib, x, y, w: lib.matmul(x, y),
    "tf.nn.relu(x)": lambda lib, x, y, w: lib.nn.relu(x),
    "tf.reduce_sum(x)": lambda lib, x, y, w: lib.reduce_sum(x),
    "tf.reduce_sum(x, 1)": lambda lib, x, y, w: lib.reduce_sum(x, 1),
    "tf.exp(x)": lambda lib, x, y, w: lib.exp(x),
    "tf.maximum(x, y)": lambda lib, x, y, w: lib.maximum(x, y),
    "x < y": lambda lib, x, y, w: x < y,
    "GradientTape step (w: Variable)": lambda lib, x, y, w: _tape_step(lib, x, w),
}


def run_benchmark(rounds=15):
    """Return (header, rows): microseconds per call for vfw.tensorflow and TF eager, and their ratio."""
    import vfw.tensorflow as vtf

    header = ["case (16x16 float32)", "vfw.tensorflow us", "TF eager us", "vfw/TF"]
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal((16, 16)).astype(np.float32) for _ in range(3)]
    libs = {"vfw": vtf} if tensorflow is None else {"vfw": vtf, "tf": tensorflow}
    inputs = {name: (lib, lib.constant(arrays[0]), lib.constant(arrays[1]), lib.Variable(arrays[2]))
              for name, lib in libs.items()}
    rows = []
    for case, fn in CASES.items():
        candidates = {name: (lambda fn=fn, args=args: fn(*args)) for name, args in inputs.items()}
        us = {k: v * 1e6 for k, v in interleaved_medians(candidates, rounds=rounds).items()}
        ref = us.get("tf")
        rows.append([case, f"{us['vfw']:.2f}", "n/a" if ref is None else f"{ref:.2f}",
                     "n/a" if ref is None else f"{us['vfw'] / ref:.2f}x"])
    return header, rows
