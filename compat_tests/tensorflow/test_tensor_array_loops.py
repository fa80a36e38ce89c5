"""tf.TensorArray as a loop variable (tf.while_loop, AutoGraph loops; eager and in tf.function) against TF 2.21.

Each tf.function is traced once and called with other lengths: the graph replays the TensorArray's
updates with each call's values (a Python list counts the traces, compared with TF's count).
"""

import numpy as np

from compat_tests.tensorflow.harness import arrays, check

X = arrays((3, 2), seed=5)
W = arrays((3, 4), seed=6)


def _row(tf, i):
    return tf.cast(i, tf.float32) * [1.0, 2.0]


def _writer(tf, size, dynamic, index=lambda i: i, element_shape=None):
    """A tf.function writing ``_row(i)`` at ``index(i)`` for i < n in a tf.while_loop; returns (fn, traces): the
    element shapes known after the loop while each trace ran."""
    traces = []

    @tf.function
    def fn(n):
        ta = tf.TensorArray(tf.float32, size=size, dynamic_size=dynamic, element_shape=element_shape)
        _, ta = tf.while_loop(lambda i, ta: i < n, lambda i, ta: (i + 1, ta.write(index(i), _row(tf, i))), [0, ta])
        traces.append(ta.element_shape)
        return ta.stack(), ta.size()

    return fn, traces


def test_eager_while_loop_carries_tensor_array():
    def fn(tf):
        ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
        _, ta = tf.while_loop(lambda i, ta: i < 4, lambda i, ta: (i + 1, ta.write(i, _row(tf, i))), [0, ta])
        return ta.stack(), ta.read(2), ta.size()

    check(fn)


def test_graph_while_loop_dynamic_size_replays_other_lengths():
    def fn(tf):
        f, traces = _writer(tf, 0, True)
        return [f(tf.constant(n)) for n in (3, 5, 0, 1)], traces

    check(fn)


def test_graph_while_loop_fixed_size_and_unwritten_elements():
    def fn(tf):
        f, traces = _writer(tf, 4, False)
        return f(tf.constant(2)), f(tf.constant(4)), traces

    check(fn)


def test_reads_after_the_loop():
    def fn(tf):
        @tf.function
        def f(n):
            ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
            _, ta = tf.while_loop(lambda i, ta: i < n, lambda i, ta: (i + 1, ta.write(i, _row(tf, i))), [0, ta])
            return ta.read(1), ta.read(1), ta.gather([2, 0]), ta.concat(), ta.read(n - 1)

        return f(tf.constant(3)), f(tf.constant(4))

    check(fn)


def test_read_in_loop_body_from_unstacked_array():
    def fn(tf, x):
        @tf.function
        def f(x):
            source = tf.TensorArray(tf.float32, size=0, dynamic_size=True).unstack(x)
            out = tf.TensorArray(tf.float32, size=source.size())

            def body(i, out):
                return i + 1, out.write(i, source.read(i) * 2.0 + source.read(i))

            _, out = tf.while_loop(lambda i, o: i < source.size(), body, [0, out])
            return out.stack(), out.gather([2, 0]), out.size()

        return f(x), f(x[:2]), f(tf.concat([x, x], 0))

    check(fn, X)


def test_scatter_overwrite_and_maximum_iterations():
    def fn(tf):
        @tf.function
        def scattered(n):
            ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)

            def body(i, ta):
                rows = tf.stack([_row(tf, i), [5.0, 6.0]])
                return i + 1, ta.scatter([2 * i, 2 * i + 1], rows)

            _, ta = tf.while_loop(lambda i, ta: i < n, body, [0, ta])
            return ta.stack(), ta.gather([0, 3]), ta.concat(), ta.size()

        @tf.function
        def overwritten(n):
            ta = tf.TensorArray(tf.float32, size=2)
            _, ta = tf.while_loop(lambda i, ta: i < n, lambda i, ta: (i + 1, ta.write(0, _row(tf, i))), [0, ta],
                                  maximum_iterations=3)
            return ta.stack()

        return scattered(tf.constant(2)), scattered(tf.constant(3)), overwritten(tf.constant(2)), \
            overwritten(tf.constant(9))

    check(fn)


def _dynamic_rnn(tf, x, state, w, traces):
    """The tf.function guide's dynamic_rnn: an AutoGraph ``for`` over tf.range carrying a TensorArray."""
    @tf.function
    def dynamic_rnn(x, state):
        traces.append(1)
        x = tf.transpose(x, [1, 0, 2])
        states = tf.TensorArray(tf.float32, size=x.shape[0])
        for i in tf.range(x.shape[0]):
            state = tf.tanh(tf.matmul(x[i], w) + state)
            states = states.write(i, state)
        return tf.transpose(states.stack(), [1, 0, 2])

    return dynamic_rnn(x, state)


def test_autograph_dynamic_rnn_values_and_gradients():
    def fn(tf, x, w):
        traces = []
        w = tf.Variable(w)
        state = tf.zeros([2, 4])
        results = []
        for steps in (3, 3):
            xs = tf.reshape(tf.tile(x, [2, steps]), [2, steps * 2, 3])[:, :steps]
            with tf.GradientTape() as tape:
                tape.watch(xs)
                out = _dynamic_rnn(tf, xs, state, w, traces)
                loss = tf.reduce_sum(out * out)
            results.append((out, tape.gradient(loss, [w, xs])))
        return results, len(traces)

    check(fn, X, W * 0.5, rtol=1e-4, atol=1e-5)


def test_autograph_while_loop_with_tensor_array():
    def fn(tf):
        @tf.function
        def f(n):
            ta = tf.TensorArray(tf.int32, size=0, dynamic_size=True)
            i = tf.constant(0)
            while i < n:
                ta = ta.write(i, i * i)
                i += 1
            return ta.stack()

        return f(tf.constant(4)), f(tf.constant(1))

    check(fn)


def test_gradient_through_reads_and_writes_in_loop():
    def fn(tf, x):
        v = tf.Variable(x)

        @tf.function
        def f(n):
            ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)

            def body(i, ta):
                return i + 1, ta.write(i, tf.reduce_sum(v * tf.cast(i + 1, tf.float32), 0) * v[0])

            _, ta = tf.while_loop(lambda i, ta: i < n, body, [0, ta])
            stacked = ta.stack()
            return tf.reduce_sum(stacked * stacked) + tf.reduce_sum(ta.read(1) * v[1])

        grads = []
        for n in (3, 2):
            with tf.GradientTape() as tape:
                y = f(tf.constant(n))
            grads.append((y, tape.gradient(y, v)))
        return grads

    check(fn, X, rtol=1e-5, atol=1e-4)


def test_errors_in_graph_loops():
    def fn_over(tf):
        return _writer(tf, 2, False)[0](tf.constant(3))

    def fn_negative(tf):
        return _writer(tf, 2, False, index=lambda i: i - 1)[0](tf.constant(1))

    def fn_declared_shape(tf):
        return _writer(tf, 0, True, element_shape=[3])[0](tf.constant(2))

    def reading(index):
        def fn(tf):
            @tf.function
            def f(n):
                ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
                _, ta = tf.while_loop(lambda i, ta: i < n, lambda i, ta: (i + 1, ta.write(i, [1.0])), [0, ta])
                return ta.read(index) if isinstance(index, int) else ta.gather(index)
            return f(tf.constant(2)), f(tf.constant(3))
        return fn

    def fn_inconsistent(tf):
        @tf.function
        def f(n):
            ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True).write(0, [1.0, 2.0])
            _, ta = tf.while_loop(lambda i, ta: i < n, lambda i, ta: (i + 1, ta.write(i, [1.0])), [1, ta])
            return ta.stack()
        return f(tf.constant(3))

    def fn_dtype(tf):
        @tf.function
        def f(n):
            ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
            _, ta = tf.while_loop(lambda i, ta: i < n, lambda i, ta: (i + 1, ta.write(i, tf.constant([1]))), [0, ta])
            return ta.stack()
        return f(tf.constant(3))

    def fn_eager_over(tf):
        ta = tf.TensorArray(tf.float32, size=2)
        return tf.while_loop(lambda i, ta: i < 3, lambda i, ta: (i + 1, ta.write(i, [1.0])), [0, ta])[1].stack()

    for fn in (fn_over, fn_negative, fn_declared_shape, reading(5), reading(-1), reading([1, 4]), fn_inconsistent,
               fn_dtype, fn_eager_over):
        check(fn)


def test_replayed_graph_raises_for_out_of_range_index():
    def fn(tf):
        f = _writer(tf, 3, False)[0]
        first = f(tf.constant(3))
        try:
            f(tf.constant(4))
        except tf.errors.InvalidArgumentError:
            return first, "InvalidArgumentError"
        return first, "no error"

    check(fn)


def test_nest_and_spec():
    def fn(tf):
        ta = tf.TensorArray(tf.float32, size=2)
        flat = tf.nest.flatten([1, ta], expand_composites=True)
        packed = tf.nest.pack_sequence_as([1, ta], [2, 3], expand_composites=True)
        spec = tf.TensorArraySpec([2], tf.float32)
        return (len(flat), flat[1] is ta, packed, repr(spec), repr(tf.TensorArraySpec()),
                repr(tf.TensorArraySpec([None, 2], tf.int32, True, False)), spec == tf.TensorArraySpec([2]),
                spec == tf.TensorArraySpec([3]), spec.value_type is tf.TensorArray)

    check(fn)


def test_map_fn_and_scan_still_work_in_function():
    def fn(tf, x):
        @tf.function
        def f(x):
            return tf.map_fn(lambda r: r * 2.0, x), tf.scan(lambda a, r: a + r, x)

        return f(x)

    check(fn, np.asarray(X))
