"""tf.math inside tf.function (traced graphs called again with new values) and higher-order gradients
(nested tapes through the functions whose gradients follow TF's own formulas), against real TF."""

import numpy as np
import pytest

from compat_tests.tensorflow.harness import arrays, check

EXPRESSIONS = {
    "arithmetic": lambda tf, x, y: [x + y, x * 2.0, 3.0 - x, x / y, x // y, x % y, x ** 2, -x, abs(x)],
    "selectors": lambda tf, x, y: [tf.maximum(x, y), tf.minimum(x, 0.5), tf.clip_by_value(x, 0.2, 0.8)],
    "guarded": lambda tf, x, y: [tf.math.xlogy(x, y), tf.math.divide_no_nan(x, y - 0.5), tf.pow(x, y),
                                 tf.math.multiply_no_nan(x, y)],
    "reductions": lambda tf, x, y: [tf.reduce_sum(x, 1), tf.reduce_max(x), tf.math.reduce_std(x, 0),
                                    tf.reduce_logsumexp(x, 1), tf.argmax(x, 1), tf.math.reduce_euclidean_norm(x)],
    "scans": lambda tf, x, y: [tf.math.cumprod(x, 1, exclusive=True), tf.math.cumsum(x, 0, reverse=True),
                               tf.math.top_k(x, 2).values, tf.math.cumulative_logsumexp(x, 1)],
    "segments": lambda tf, x, y: [tf.math.segment_mean(x, [0, 0, 1]),
                                  tf.math.unsorted_segment_max(x, [1, -1, 1], 2), tf.math.bincount([0, 2, 2])],
    "special": lambda tf, x, y: [tf.math.digamma(x), tf.math.lgamma(y), tf.math.erf(x), tf.math.ndtri(x / 2.0)],
    "logic": lambda tf, x, y: [x < y, x == y, tf.math.logical_xor(x > 0.5, y > 0.5), tf.math.is_finite(x / y)],
}


@pytest.mark.parametrize("name", EXPRESSIONS)
def test_traced_functions_rerun_with_new_values(name):
    def case(tf, x1, y1, x2, y2):
        fn = tf.function(lambda x, y: EXPRESSIONS[name](tf, x, y))
        return [fn(x1, y1), fn(x2, y2)]
    check(case, *arrays((3, 4), (3, 4), low=0.05, high=1.0, seed=7), *arrays((3, 4), (3, 4), low=0.05, high=1.0,
                                                                                 seed=8))


@pytest.mark.parametrize("name", ["pow", "maximum", "xlogy", "xdivy", "cumprod", "digamma", "lgamma", "divide_no_nan",
                                  "reduce_logsumexp", "clip_by_norm", "erf"])
def test_second_order_gradients(name):
    fns = {"pow": lambda tf, x: tf.pow(x, x), "maximum": lambda tf, x: tf.maximum(x * x, 0.25),
           "xlogy": lambda tf, x: tf.math.xlogy(x, x), "xdivy": lambda tf, x: tf.math.xdivy(x * x, x + 1.0),
           "cumprod": lambda tf, x: tf.math.cumprod(x), "digamma": lambda tf, x: tf.math.digamma(x + 1.0),
           "lgamma": lambda tf, x: tf.math.lgamma(x + 0.5),
           "divide_no_nan": lambda tf, x: tf.math.divide_no_nan(1.0, x),
           "reduce_logsumexp": lambda tf, x: tf.reduce_logsumexp(x * x),
           "clip_by_norm": lambda tf, x: tf.clip_by_norm(x, 1.0), "erf": lambda tf, x: tf.math.erf(x)}

    def case(tf, x):
        with tf.GradientTape() as outer:
            outer.watch(x)
            with tf.GradientTape() as inner:
                inner.watch(x)
                y = tf.reduce_sum(fns[name](tf, x))
            g = inner.gradient(y, x)
        return [g, outer.gradient(g, x)]
    check(case, np.array([0.3, 0.5, 1.2, 2.0], np.float32), rtol=1e-4, atol=1e-5)


def test_traced_gradients_rerun_with_new_values():
    def case(tf, x1, x2):
        @tf.function
        def grads(x):
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = tf.reduce_sum(tf.maximum(x, 0.5) * tf.pow(x, 2.0) + tf.math.xlogy(x, x) + tf.math.cumprod(x, 1)
                                  + tf.math.segment_max(x, [0, 0, 1])[0])
            return tape.gradient(y, x)
        return [grads(x1), grads(x2)]
    check(case, *arrays((3, 4), (3, 4), low=0.05, high=1.0, seed=9))
