"""Loop variables whose shape changes from one iteration to the next (relaxed shape invariants) inside
tf.function, against TF 2.21: the body reads each iteration's shape (``tf.shape``, ``tf.size``, static
``x.shape`` with None), never the shape it was traced with."""

import numpy as np

from compat_tests.tensorflow.harness import check


def _grow(tf, n):
    @tf.function
    def f(n):
        def body(i, a):
            static = a.shape.as_list()
            return i + 1, tf.concat([a, [tf.shape(a)[0]], [tf.size(a)], tf.zeros(tf.shape(a)[0:1] - 1, tf.int32)], 0), \
                static
        _, a, _ = tf.while_loop(lambda i, a, s: i < n, lambda i, a, s: body(i, a)[:2] + (s,),
                                [tf.constant(0), tf.constant([0]), tf.constant(0)],
                                shape_invariants=[tf.TensorShape([]), tf.TensorShape([None]), tf.TensorShape([])])
        return a
    return f(n), f(n + 1), f.experimental_get_tracing_count()


def _static_shape_in_body(tf, n):
    seen = []

    @tf.function
    def f(n):
        def body(i, a):
            seen.append(a.shape.as_list())
            return i + 1, tf.concat([a, a[:1]], 0)
        return tf.while_loop(lambda i, a: i < n, body, [tf.constant(0), tf.ones([2, 3])],
                             shape_invariants=[tf.TensorShape([]), tf.TensorShape([None, 3])])[1]
    return f(n), seen


def _autograph_loop(tf, x):
    @tf.function
    def g(x):
        for _ in tf.range(3):
            tf.autograph.experimental.set_loop_options(shape_invariants=[(x, tf.TensorShape([None]))])
            x = tf.concat([x, [tf.cast(tf.shape(x)[0], tf.float32)]], 0)
        return x
    return g(x), g(x[:1])


def test_shape_of_a_growing_loop_variable():
    check(_grow, np.array(3, np.int32))


def test_static_shape_inside_the_body_has_none():
    check(_static_shape_in_body, np.array(2, np.int32))


def test_autograph_loop_with_shape_invariants():
    check(_autograph_loop, np.array([1.0, 5.0], np.float32))
