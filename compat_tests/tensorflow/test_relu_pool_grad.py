"""Gradients of Relu followed by max pooling inside tf.function (the graph passes move the Relu gradient onto the
pooled gradient) against real TF 2.21: windows of Relu zeros (ties), tied positive maxima and infinite output
gradients.  Nan inputs are left out: TF's CPU max pool skips nan (a window of nan pools to the lowest float, its
gradient going to the window's first position) where vfw's pools to nan and passes no gradient, with or without
the pass (tests/graph/test_relu_pool.py checks that the pass keeps vfw's nan behaviour)."""

import numpy as np
import pytest

from compat_tests.tensorflow.harness import check


def _inputs(special):
    rng = np.random.default_rng(0)
    x = rng.integers(-2, 3, (2, 8, 7, 3)).astype(np.float32)  # ties: zeros after the Relu, equal positives
    x[0, :2, :2] = -1.0  # a whole window of Relu zeros
    w = rng.standard_normal((2, 4, 4, 3)).astype(np.float32)
    if special:
        w[0, 1, 1, 2] = np.inf
        w[1, 2, 3, 0] = -np.inf
    return x, w


@pytest.mark.parametrize("ksize, strides, padding", [(2, 2, "VALID"), (3, 2, "SAME"), (2, 2, "SAME")])
@pytest.mark.parametrize("special", [False, True], ids=["finite", "inf"])
def test_relu_max_pool_gradient_in_a_function(ksize, strides, padding, special):
    x, w = _inputs(special)

    def gradient(tf, x, w):
        @tf.function
        def step(x, w):
            with tf.GradientTape() as tape:
                tape.watch(x)
                pooled = tf.nn.max_pool2d(tf.nn.relu(x), ksize, strides, padding)
                loss = tf.reduce_sum(pooled * w[:, :pooled.shape[1], :pooled.shape[2]])
            return tape.gradient(loss, x)

        return step(x, w)

    check(gradient, x, w)
