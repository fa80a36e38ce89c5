"""tf.function training steps and control flow in vfw.tensorflow against real TF's tf.function.

Issue 7's target: a tf.function-wrapped MLP training step (784-128-10 Dense layers as tf.Variables,
GradientTape inside, SGD update with ``assign_sub``, batch 64) must take at most 2x real TF.  The
same code runs in both libraries: ``python -m benchmarks.tf_function``
(``OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1`` runs both on one thread).
"""

import os

import numpy as np

from benchmarks.timing import interleaved_medians, print_table

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

try:
    import tensorflow
except ImportError:
    tensorflow = None
else:
    if os.environ.get("OPENBLAS_NUM_THREADS") == "1":  # a 1-thread comparison: TF's kernels on one thread too
        tensorflow.config.threading.set_intra_op_parallelism_threads(1)
        tensorflow.config.threading.set_inter_op_parallelism_threads(1)


def _cases(tf, arrays):
    """name -> step function for library ``tf`` (built from the shared numpy ``arrays``)."""
    w1, w2, x, labels = arrays
    params = [tf.Variable(w1), tf.Variable(np.zeros(128, np.float32)), tf.Variable(w2),
              tf.Variable(np.zeros(10, np.float32))]
    x, y = tf.constant(x), tf.one_hot(tf.constant(labels), 10)

    @tf.function
    def train_step(x, y):
        with tf.GradientTape() as tape:
            hidden = tf.nn.relu(tf.matmul(x, params[0]) + params[1])
            logits = tf.matmul(hidden, params[2]) + params[3]
            loss = -tf.reduce_mean(tf.reduce_sum(y * tf.nn.log_softmax(logits), axis=1))
        for p, g in zip(params, tape.gradient(loss, params)):
            p.assign_sub(0.01 * g)
        return loss

    @tf.function(autograph=False)
    def loop(n, v):
        return tf.while_loop(lambda i, v: i < n, lambda i, v: (i + 1, v * 0.5 + 1.0), (tf.constant(0), v))

    @tf.function(autograph=False)
    def branch(p, v):
        return tf.cond(p, lambda: v * 2.0, lambda: v - 1.0)

    small = tf.constant(np.ones((16, 16), np.float32))
    ten, true = tf.constant(10), tf.constant(True)
    return {
        "MLP 784-128-10 SGD step, batch 64 (tape inside)": lambda: train_step(x, y),
        "while_loop, 10 iterations on 16x16": lambda: loop(ten, small),
        "cond on 16x16": lambda: branch(true, small),
    }


def run_benchmark(rounds=15):
    """Rows ``[case, vfw ms, tf ms, vfw/tf]``."""
    import vfw.tensorflow as vtf

    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal((784, 128)).astype(np.float32) * 0.05,
              rng.standard_normal((128, 10)).astype(np.float32) * 0.05,
              rng.standard_normal((64, 784)).astype(np.float32), rng.integers(0, 10, 64)]
    ours = _cases(vtf, arrays)
    theirs = _cases(tensorflow, arrays) if tensorflow is not None else {}
    rows = []
    for name, fn in ours.items():
        fn()  # trace before timing, in both libraries
        candidates = {"vfw": fn}
        if name in theirs:
            theirs[name]()
            candidates["tf"] = theirs[name]
        times = interleaved_medians(candidates, rounds=rounds, target=0.05)
        tf_ms = times.get("tf", float("nan")) * 1e3
        rows.append([name, round(times["vfw"] * 1e3, 3), round(tf_ms, 3), round(times["vfw"] * 1e3 / tf_ms, 2)])
    return ["case", "vfw ms", "tf ms", "vfw/tf"], rows


if __name__ == "__main__":
    print_table("vfw.tensorflow tf.function vs real TF", *run_benchmark())
