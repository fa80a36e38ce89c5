"""tf.data input pipelines in vfw.tensorflow against real TF: one full pass over each dataset.

Issue 8's case: iterating ``from_tensor_slices((x, y)).batch(128)`` over 60000x784 float32 images
should cost about what TF does.  vfw gathers each batch of a table dataset with one slice per
component (views, no copies), so it is far below TF; shuffled and mapped pipelines are also
listed.  ``python -m benchmarks.tf_data``.
"""

import os

import numpy as np

from benchmarks.timing import interleaved_medians, print_table

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

try:
    import tensorflow
except ImportError:
    tensorflow = None


def _cases(tf, x, y):
    """name -> dataset for library ``tf``."""
    count, small = len(x), len(x) // 6
    small_x, small_y = x[:small], y[:small]
    return {
        f"from_tensor_slices((x, y)).batch(128), {count}x784": tf.data.Dataset.from_tensor_slices((x, y)).batch(128),
        f"... .shuffle({count}, seed).batch(128)": tf.data.Dataset.from_tensor_slices((x, y)).shuffle(
            count, seed=1).batch(128),
        "... .shuffle(1000).batch(128).prefetch(AUTOTUNE)": tf.data.Dataset.from_tensor_slices((x, y)).shuffle(
            1000).batch(128).prefetch(tf.data.AUTOTUNE),
        "... .batch(128).map(x / 255)": tf.data.Dataset.from_tensor_slices((x, y)).batch(128).map(
            lambda a, b: (a / 255.0, b)),
        f"{small} elements .map(cast(x) / 255).batch(128)": tf.data.Dataset.from_tensor_slices((small_x, small_y)).map(
            lambda a, b: (tf.cast(a, tf.float32) / 255.0, b)).batch(128),
        f"{small} elements, one at a time": tf.data.Dataset.from_tensor_slices((small_x, small_y)),
    }


def _pass(dataset):
    return lambda: [None for _ in dataset]


def run_benchmark(rounds=15, quick=False):
    """Rows ``[case, vfw ms, tf ms, vfw/tf]`` (one full iteration of each dataset; a tenth of the data if ``quick``)."""
    import vfw.tensorflow as vtf

    rng = np.random.default_rng(0)
    count = 6000 if quick else 60000
    x = rng.random((count, 784), dtype=np.float32)
    y = rng.integers(0, 10, count)
    ours = _cases(vtf, x, y)
    theirs = _cases(tensorflow, x, y) if tensorflow is not None else {}
    rows = []
    for name, dataset in ours.items():
        candidates = {"vfw": _pass(dataset)}
        if name in theirs:
            candidates["tf"] = _pass(theirs[name])
        times = interleaved_medians(candidates, rounds=max(3, rounds // 5), target=0.2)
        tf_ms = times.get("tf", float("nan")) * 1e3
        rows.append([name, round(times["vfw"] * 1e3, 2), round(tf_ms, 2), round(times["vfw"] * 1e3 / tf_ms, 3)])
    return ["case", "vfw ms", "tf ms", "vfw/tf"], rows


if __name__ == "__main__":
    print_table("vfw.tensorflow tf.data pipelines vs real TF (one pass)", *run_benchmark())
