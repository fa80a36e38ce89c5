"""tf.nn.conv2d + tf.nn.max_pool2d forward and backward (GradientTape) in vfw.tensorflow against real TF.

Issue 8's target: the Keras CNN (Conv2D NHWC on 28x28x1, batch 64: Conv2D(32, 3) - MaxPool(2) -
Conv2D(64, 3) - MaxPool(2) - ...) must take at most 2x real TF.  These are its convolution and pooling
steps at those sizes, run with the same code in both libraries: ``python -m benchmarks.tf_conv``
(``OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1`` runs both libraries on one thread).
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


def _block(tf, x, w):
    return tf.nn.max_pool2d(tf.nn.conv2d(x, w, 1, "VALID"), 2, 2, "VALID")


def _cases(tf, arrays):
    """name -> step function for library ``tf`` (inputs built from the shared numpy ``arrays``)."""
    x1, w1, x2, w2 = (tf.constant(a) for a in arrays)

    def forward():
        return _block(tf, x1, w1)

    def first_layer():  # the first layer's input is data: gradient for the filters only
        with tf.GradientTape() as tape:
            tape.watch(w1)
            loss = tf.reduce_sum(_block(tf, x1, w1))
        return tape.gradient(loss, w1)

    def second_layer():
        with tf.GradientTape() as tape:
            tape.watch([x2, w2])
            loss = tf.reduce_sum(_block(tf, x2, w2))
        return tape.gradient(loss, [x2, w2])

    def both_layers():
        with tf.GradientTape() as tape:
            tape.watch([w1, w2])
            loss = tf.reduce_sum(_block(tf, _block(tf, x1, w1), w2))
        return tape.gradient(loss, [w1, w2])

    return {
        "conv 3x3x1x32 + pool 2, 64x28x28x1: forward": forward,
        "same, forward + filter gradient": first_layer,
        "conv 3x3x32x64 + pool 2, 64x13x13x32: forward + input and filter gradients": second_layer,
        "both layers, forward + filter gradients": both_layers,
    }


def run_benchmark(rounds=15):
    """Rows ``[case, vfw ms, tf ms, vfw/tf]``."""
    import vfw.tensorflow as vtf

    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(s).astype(np.float32) for s in ((64, 28, 28, 1), (3, 3, 1, 32),
                                                                 (64, 13, 13, 32), (3, 3, 32, 64))]
    ours = _cases(vtf, arrays)
    theirs = _cases(tensorflow, arrays) if tensorflow is not None else {}
    rows = []
    for name, fn in ours.items():
        candidates = {"vfw": fn}
        if name in theirs:
            candidates["tf"] = theirs[name]
        times = interleaved_medians(candidates, rounds=rounds, target=0.05)
        tf_ms = times.get("tf", float("nan")) * 1e3
        rows.append([name, round(times["vfw"] * 1e3, 3), round(tf_ms, 3), round(times["vfw"] * 1e3 / tf_ms, 2)])
    return ["case", "vfw ms", "tf ms", "vfw/tf"], rows


if __name__ == "__main__":
    print_table("tf.nn conv2d + max_pool2d (Keras CNN sizes) vs real TF", *run_benchmark(rounds=7))
