"""tf.custom_gradient given variables as arguments, against real TF 2.21: a variable passed to the decorated function
is one of its inputs (its gradient comes from grad_fn's argument gradients), so grad_fn needs no ``variables``
keyword for it, eagerly and inside tf.function; variables read from elsewhere still require that keyword."""

import numpy as np
import pytest

from compat_tests.tensorflow.harness import check


def _binarize(tf):
    # the straight-through estimator: sign() forward, the gradient passed through where |x| <= 1
    @tf.custom_gradient
    def binarize(x):
        def grad(dy):
            return dy * tf.cast(tf.abs(x) <= 1.0, dy.dtype)
        return tf.sign(x), grad
    return binarize


@pytest.mark.parametrize("in_function", [False, True])
def test_variable_argument_is_an_input(in_function):
    def case(tf):
        binarize = _binarize(tf)
        v = tf.Variable(np.array([0.5, -2.0, -0.25], np.float32))

        def step():
            with tf.GradientTape() as tape:
                y = binarize(v) * tf.constant([3.0, 4.0, 5.0])
            return y, tape.gradient(y, v)
        return (tf.function(step) if in_function else step)()
    check(case)


def test_variables_in_nested_arguments_and_read_variables():
    def case(tf):
        a, b = tf.Variable([1.0, 2.0]), tf.Variable([0.5, -1.0])
        scale = tf.Variable(3.0)

        @tf.custom_gradient
        def pair_product(pair):
            def grad(dy, variables=None):
                return ([dy * pair[1], dy * pair[0]], [tf.reduce_sum(dy)] * len(variables))
            return pair[0] * pair[1] * scale, grad

        with tf.GradientTape() as tape:
            y = pair_product([a, b])
        return y, tape.gradient(y, [a, b, scale])
    check(case)


def test_variable_read_inside_still_needs_keyword():
    def case(tf):
        x, w = tf.Variable([0.5, -2.0]), tf.Variable([0.3, 0.2])

        @tf.custom_gradient
        def uses_other(x):
            def grad(dy):
                return dy * 2.0
            return x * w, grad

        with tf.GradientTape() as tape:
            y = uses_other(x)
        return tape.gradient(y, x)
    check(case)
