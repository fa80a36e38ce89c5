"""tf.cond, tf.while_loop, tf.case, tf.switch_case and tf.print against TF 2.21, eagerly and inside tf.function
(later calls with other predicates and trip counts), with gradients through them and TF's errors."""

import sys

import numpy as np
import pytest

from compat_tests.tensorflow.harness import arrays, check, check_grad, real, vtf

X = arrays((2, 3))


def graph(tf, fn, *args):
    """``fn`` traced with tf.function and called on ``args`` (AutoGraph off: vfw has none)."""
    return tf.function(fn, autograph=False)(*args)


# -- tf.cond -------------------------------------------------------------------------------------
def test_cond_in_a_function_follows_the_predicate_of_each_call():
    def case(tf, x):
        @tf.function(autograph=False)
        def f(x, p):
            return tf.cond(p, lambda: {"a": x * 2.0, "b": [x + 1.0, 3]}, lambda: {"a": x - 1.0, "b": [x * x, 4]})

        return [f(x, tf.constant(v)) for v in (True, False, True, False)], f.experimental_get_tracing_count()
    check(case, X)


def test_cond_on_computed_predicates_and_nested_conds():
    def case(tf, x):
        @tf.function(autograph=False)
        def f(x):
            total = tf.reduce_sum(x)
            return tf.cond(total > 0.0,
                           lambda: tf.cond(tf.reduce_max(x) > 1.0, lambda: x * 10.0, lambda: x),
                           lambda: -x)
        return f(x), f(x - 1.0), f(x + 5.0), f(x * 0.1), f.experimental_get_tracing_count()
    check(case, X)


@pytest.mark.parametrize("branches", [
    lambda tf, x: (lambda: [x], lambda: [x + 1.0]),
    lambda tf, x: (lambda: (x, 1), lambda: (x + 1.0, 2)),
    lambda tf, x: (lambda: None, lambda: None),
    lambda tf, x: (lambda: "a", lambda: "b"),
    lambda tf, x: (lambda: x, lambda: (x, x)),
    lambda tf, x: (lambda: (x,), lambda: [x]),
    lambda tf, x: (lambda: {"a": x}, lambda: {"b": x}),
    lambda tf, x: (lambda: x, lambda: None),
    lambda tf, x: (lambda: (x, x), lambda: (x, x, x)),
    lambda tf, x: (lambda: x, lambda: 1),
    lambda tf, x: (lambda: x, lambda: tf.reduce_sum(x)),
])
def test_cond_branch_structures(branches):
    for p in (True, False):
        check(lambda tf, x, p=p: tf.cond(tf.constant(p), *branches(tf, x)), X)
        check(lambda tf, x, p=p: graph(tf, lambda x, q: tf.cond(q, *branches(tf, x)), x, tf.constant(p)), X)


@pytest.mark.parametrize("pred", [lambda tf: tf.constant(1.0), lambda tf: tf.constant([True]),
                                  lambda tf: tf.constant(1), lambda tf: True])
def test_cond_predicates(pred):
    check(lambda tf, x: tf.cond(pred(tf), lambda: x, lambda: -x), X)
    check(lambda tf, x: graph(tf, lambda x: tf.cond(pred(tf), lambda: x, lambda: -x), x), X)


def test_cond_on_a_predicate_of_several_elements():
    # Eagerly Python's truth value refuses it; in a graph it is TF's InvalidArgumentError (real TF aborts the
    # process on a constant one: it is passed as an argument here, as in TF's own tests).
    check(lambda tf, x: tf.cond(tf.constant([True, False]), lambda: x, lambda: -x), X)
    check(lambda tf, x: graph(tf, lambda x, p: tf.cond(p, lambda: x, lambda: -x), x, tf.constant([True, False])), X)


def test_cond_argument_errors():
    check(lambda tf, x: tf.cond(x[0, 0] > 0, x, lambda: x), X)
    check(lambda tf, x: tf.cond(x[0, 0] > 0, None, lambda: x), X)
    check(lambda tf, x: tf.cond(x[0, 0] > 0, lambda: x, false_fn=None), X)


def test_a_branch_failing_on_the_traced_values_fails_when_a_call_takes_it():
    def case(tf):
        f = tf.function(lambda x, i: tf.cond(i < 0, lambda: x[0] * 0.0, lambda: tf.gather(x, i)), autograph=False)
        ok = [f(tf.constant([1.0, 2.0]), tf.constant(-1)), f(tf.constant([1.0, 2.0]), tf.constant(1))]
        return ok, f(tf.constant([1.0, 2.0]), tf.constant(5))
    check(case)


def test_python_bool_of_a_tensor_while_tracing_is_refused():
    def case(tf, x):
        def f(x):
            if tf.reduce_sum(x) > 0:
                return x
            return -x
        return graph(tf, f, x)
    check(case, X)
    check(lambda tf, x: graph(tf, lambda x: x.numpy(), x), X)
    # A Python bool inside a function is ordinary Python control flow (unrolled while tracing), and shapes are
    # known while tracing.
    check(lambda tf, x: graph(tf, lambda x, flag: x * 2.0 if flag else x, x, True), X)
    check(lambda tf, x: graph(tf, lambda x: x * x.shape[0] if x.shape[1] == 3 else x, x), X)


# -- tf.while_loop -------------------------------------------------------------------------------
def test_while_loop_in_a_function_runs_the_trip_count_of_each_call():
    def case(tf):
        @tf.function(autograph=False)
        def f(n, x):
            return tf.while_loop(lambda i, acc, d: i < n,
                                 lambda i, acc, d: (i + 1, acc * 1.5 + x, {"count": d["count"] + 2}),
                                 (tf.constant(0), x, {"count": tf.constant(0)}))
        out = [f(tf.constant(k), tf.constant([1.0, -2.0])) for k in (3, 0, 5, 1)]
        return out, f.experimental_get_tracing_count()
    check(case)


@pytest.mark.parametrize("loop", [
    lambda tf: tf.while_loop(lambda i: i < 10, lambda i: i + 1, [0]),
    lambda tf: tf.while_loop(lambda i: i < 10, lambda i: (i + 1,), [0]),
    lambda tf: tf.while_loop(lambda i: i < 10, lambda i: i + 1, 0),
    lambda tf: tf.while_loop(lambda i, s: i < 3, lambda i, s: (i + 1, s * 2.0), [0, 1.0]),
    lambda tf: tf.while_loop(lambda i, s: i < 3, lambda i, s: [i + 1, s * 2.0], (0, tf.constant(1.5))),
    lambda tf: tf.while_loop(lambda i, s: i < 3, lambda i, s: (i + 1, s), (0, 2)),
    lambda tf: tf.while_loop(lambda i: i < 10, lambda i: (i + 1,), (0,), maximum_iterations=3),
    lambda tf: tf.while_loop(lambda i: i < 2, lambda i: (i + 1,), (0,), maximum_iterations=tf.constant(5)),
    lambda tf: tf.while_loop(lambda i: i < 10, lambda i: (i + 1,), (0,), maximum_iterations=2.5),
    lambda tf: tf.while_loop(lambda i, s: i < 3, lambda i, s: i + 1, [0, 1.0]),
    lambda tf: tf.while_loop(1, lambda i: i + 1, [0]),
    lambda tf: tf.while_loop(lambda i: i < 3, 1, [0]),
    lambda tf: tf.while_loop(lambda i: i < 3, lambda i: tf.cast(i, tf.float32) + 1, [0]),
    lambda tf: tf.while_loop(lambda i, s: i < 3, lambda i, s: (i + 1, tf.concat([s, s], 0)), [0, tf.ones([1])]),
    lambda tf: tf.while_loop(lambda i: i, lambda i: (i - 1,), (3,)),
    lambda tf: tf.while_loop(lambda i, s: i < 3, lambda i, s: [i + 1, s], (0, None)),
])
def test_while_loop_forms_and_errors(loop):
    check(loop)
    check(lambda tf: graph(tf, lambda: loop(tf)))


def test_while_loop_with_shape_invariants_grows_a_tensor():
    def case(tf):
        @tf.function(autograph=False)
        def f(n):
            _, s = tf.while_loop(lambda i, s: i < n, lambda i, s: (i + 1, tf.concat([s, s * 2.0], 0)),
                                 [tf.constant(0), tf.ones([1])],
                                 shape_invariants=[tf.TensorShape([]), tf.TensorShape([None])])
            return s, tf.reduce_sum(s) + 1.0, s[:1] * 3.0
        return [f(tf.constant(k)) for k in (2, 0, 3)], f.experimental_get_tracing_count()
    check(case)


# -- gradients -------------------------------------------------------------------------------------
def _cond_loss(tf, x, p):
    return tf.cond(p, lambda: tf.reduce_sum(tf.sin(x) * x), lambda: tf.reduce_sum(x * x * x))


def _loop_loss(tf, x, n):
    _, y = tf.while_loop(lambda i, y: i < n, lambda i, y: (i + 1, tf.sin(y) * x + y), (tf.constant(0), x))
    return tf.reduce_sum(y)


@pytest.mark.parametrize("p", [True, False])
def test_gradients_through_cond(p):
    check_grad(lambda tf, x: _cond_loss(tf, x, tf.constant(p)), X)
    check_grad(lambda tf, x: graph(tf, lambda x: _cond_loss(tf, x, tf.constant(p)), x), X)


@pytest.mark.parametrize("n", [0, 1, 3])
def test_gradients_through_while_loop(n):
    check_grad(lambda tf, x: _loop_loss(tf, x, tf.constant(n)), X)
    check_grad(lambda tf, x: graph(tf, lambda x: _loop_loss(tf, x, tf.constant(n)), x), X)


def test_gradients_inside_a_function_follow_each_call():
    def case(tf, x):
        @tf.function(autograph=False)
        def grads(x, p, n):
            with tf.GradientTape() as tape:
                tape.watch(x)
                loss = _cond_loss(tf, x, p) + _loop_loss(tf, x, n)
            return loss, tape.gradient(loss, x)
        calls = [(True, 2), (False, 0), (True, 4), (False, 1)]
        return [grads(x, tf.constant(p), tf.constant(n)) for p, n in calls], grads.experimental_get_tracing_count()
    check(case, X, rtol=1e-4, atol=1e-5)


def test_training_through_loops_and_branches_reading_variables():
    # A recurrent step: the loop body and a branch read variables; a tape inside the function differentiates them.
    def case(tf):
        w = tf.Variable([[0.5, -0.3], [0.2, 0.8]])
        b = tf.Variable([0.1, -0.1])

        @tf.function(autograph=False)
        def step(xs, n, flip):
            with tf.GradientTape() as tape:
                def body(i, h):
                    return i + 1, tf.tanh(tf.matmul(h, w) + xs[0] * b)
                _, h = tf.while_loop(lambda i, h: i < n, body, (tf.constant(0), tf.ones([1, 2])))
                h = tf.cond(flip, lambda: h * b, lambda: tf.matmul(h, w))
                loss = tf.reduce_sum(h * h)
            gw, gb = tape.gradient(loss, [w, b])
            w.assign_sub(0.1 * gw)
            b.assign_sub(0.1 * gb)
            return loss, gw, gb
        calls = [(3, True), (1, False), (4, False), (0, True), (2, True)]
        out = [step(tf.constant([1.5, 2.0]), tf.constant(k), tf.constant(f)) for k, f in calls]
        return out, tf.identity(w), tf.identity(b), step.experimental_get_tracing_count()
    check(case, rtol=1e-4, atol=1e-5)


def test_variables_written_in_branches_and_loop_bodies():
    def case(tf):
        v = tf.Variable(1.0)
        hits = tf.Variable(0)

        @tf.function(autograph=False)
        def f(p, n):
            tf.cond(p, lambda: v.assign(v * 3.0), lambda: v.assign_add(1.0))
            tf.while_loop(lambda i: i < n, lambda i: (i + 1, hits.assign_add(1))[:1], [tf.constant(0)])
            return v.read_value(), hits.read_value()

        out = [f(tf.constant(True), tf.constant(2)), f(tf.constant(False), tf.constant(0)),
               f(tf.constant(True), tf.constant(3))]
        return out, tf.identity(v), tf.identity(hits)
    check(case)


# -- tf.case / tf.switch_case --------------------------------------------------------------------
@pytest.mark.parametrize("args", [
    lambda tf, x: ([(x > 3, lambda: x), (x > 1, lambda: x * 2)], lambda: x * 3, False),
    lambda tf, x: ([(x > 3, lambda: x), (x > 5, lambda: x * 2)], None, False),
    lambda tf, x: ([(x > 1, lambda: x), (x > 0, lambda: x * 2)], None, True),
    lambda tf, x: ([(x > 10, lambda: x), (x > 0, lambda: x * 2)], None, True),
    lambda tf, x: ((x > 1, lambda: x),), lambda tf, x: 5, lambda tf, x: [],
])
@pytest.mark.parametrize("value", [0.5, 2.0, 4.0])
def test_case(args, value):
    def run(tf, x):
        spec = args(tf, x)
        if isinstance(spec, tuple) and len(spec) == 3:
            return tf.case(spec[0], default=spec[1], exclusive=spec[2])
        return tf.case(spec)
    check(lambda tf: run(tf, tf.constant(value)))
    check(lambda tf: graph(tf, lambda x: run(tf, x), tf.constant(value)))


@pytest.mark.parametrize("index", [0, 1, 2, 7, -1])
@pytest.mark.parametrize("fns", [
    lambda tf, x: ([lambda: x, lambda: x * 2, lambda: x * 3], None),
    lambda tf, x: ([lambda: x, lambda: x * 2], lambda: x * 10),
    lambda tf, x: ({1: lambda: x * 2, 0: lambda: x}, None),
    lambda tf, x: ([(1, lambda: x * 2), (0, lambda: x)], None),
])
def test_switch_case(index, fns):
    def run(tf, i, x):
        branches, default = fns(tf, x)
        return tf.switch_case(i, branches, default=default)
    check(lambda tf: run(tf, tf.constant(index), tf.constant(2.0)))
    check(lambda tf: graph(tf, lambda i: run(tf, i, tf.constant(2.0)), tf.constant(index)))
    check(lambda tf: graph(tf, lambda i: run(tf, i, tf.constant(2.0)), tf.constant(index, tf.int64)))


@pytest.mark.parametrize("call", [
    lambda tf, x: tf.switch_case(1, [lambda: x]), lambda tf, x: tf.switch_case(tf.constant(1.0), [lambda: x]),
    lambda tf, x: tf.switch_case(tf.constant(0), []), lambda tf, x: tf.switch_case(tf.constant(0), [1, 2]),
    lambda tf, x: tf.switch_case(tf.constant(0), {3: lambda: x, 1: lambda: x}),
])
def test_switch_case_errors(call):
    check(lambda tf: call(tf, tf.constant(1.0)))


# -- tf.print ------------------------------------------------------------------------------------
PRINTED = [
    lambda tf: (tf.range(10),), lambda tf: (tf.reshape(tf.range(100, dtype=tf.float32), [10, 10]) / 3,),
    lambda tf: (tf.reshape(tf.range(24), [2, 3, 4]),), lambda tf: (tf.range(10),),
    lambda tf: ("a", 1, 2.5, tf.constant("str"), [1, tf.constant(2)], {"k": tf.constant([1.5, 2])}),
    lambda tf: (tf.constant(True), tf.constant([True, False]), tf.constant(3.0), tf.constant(1e-8),
                tf.constant(1e10), tf.constant([1e-8, 1.0])),
    lambda tf: (tf.constant([0.1, 0.25, 1 / 3], tf.float64), tf.constant(np.nan), tf.constant([np.inf, -np.inf])),
    lambda tf: (tf.constant(["ab", "c"]), tf.zeros([0]), tf.constant(7, tf.int64), tf.constant(2 ** 40, tf.int64)),
    lambda tf: (tf.constant([1.0, 2.0, 3.0, 4.0, 5.0], tf.float16), tf.constant(1234567.0), tf.constant(0.1)),
    lambda tf: (), lambda tf: (None, (1, 2)),
    # Python values other than strings print by their repr
    lambda tf: (tf.TensorShape([None, 3]), tf.TensorShape(None), tf.float32, np.float32(0.5), np.array([1, 2]),
                b"bytes", 1e-20, [tf.TensorShape([2])]),
]
OPTIONS = [{}, {"summarize": -1}, {"summarize": 2, "sep": "|", "end": "!\n"}]


def _printed(lib, capfd, fn):
    capfd.readouterr()
    result = fn(lib)
    out, err = capfd.readouterr()
    return result, out, err


@pytest.mark.parametrize("inputs", PRINTED)
@pytest.mark.parametrize("options", OPTIONS)
def test_print_formats_as_tf(capfd, inputs, options):
    for stream in ("stderr", "stdout"):
        def run(tf, stream=stream):
            return tf.print(*inputs(tf), output_stream=getattr(sys, stream), **options)
        want, got = (_printed(lib, capfd, run) for lib in (real, vtf))
        assert got == want


def test_print_in_a_function_prints_on_every_call_and_only_taken_branches(capfd):
    def run(tf):
        @tf.function(autograph=False)
        def f(x, p, n):
            tf.print("x", x)
            tf.cond(p, lambda: tf.print("true branch", x), lambda: tf.print("false branch"))
            tf.while_loop(lambda i: i < n, lambda i: (i + 1, tf.print("iteration", i))[:1], [tf.constant(0)])
            return x * 2.0

        return [f(tf.constant([1.0, 2.0]), tf.constant(p), tf.constant(n)) for p, n in ((True, 2), (False, 0),
                                                                                        (True, 1))]
    want, got = (_printed(lib, capfd, run) for lib in (real, vtf))
    assert got[1:] == want[1:]
    for w, g in zip(want[0], got[0]):
        np.testing.assert_array_equal(g.numpy(), w.numpy())
