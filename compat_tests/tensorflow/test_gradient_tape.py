"""tf.GradientTape, custom_gradient, stop_gradient and friends against real TF 2.21: gradients (nested sources,
variables, higher order, Jacobians), which tape sees which op, errors and warnings."""

import logging
import re

import numpy as np
import pytest

from compat_tests.tensorflow.harness import arrays, assert_same, check, real, to_numpy, vtf
from vfw.frontends.tensorflow import _gradients

LIBS = (real, vtf)


def both(fn, rtol=1e-5, atol=1e-6):
    """Run ``fn(tf)`` in both libraries and compare results (tensors, None, nested containers), or the exceptions'
    types and messages (TF's ``{{function_node ...}}`` prefix dropped)."""
    results = []
    for lib in LIBS:
        try:
            results.append(("ok", to_numpy(fn(lib))))
        except Exception as e:  # noqa: BLE001  (the exception is the result compared)
            results.append(("error", type(e).__name__, re.sub(r"^\{\{function_node [^}]*\}\} ", "", str(e))))
    want, got = results
    if want[0] == "error" or got[0] == "error":
        assert got == want
    else:
        assert_same(want[1], got[1], rtol, atol)


X, M = arrays((2,), (2, 3), seed=1)


# -- basics -----------------------------------------------------------------------------------------------
def test_gradients_of_tensors_and_variables_in_nested_structures():
    def case(tf):
        x, v, u = tf.constant(X), tf.Variable([3.0, 4.0]), tf.Variable(2.0, trainable=False)
        with tf.GradientTape(persistent=True) as t:
            t.watch(x)
            y = x * v * u
        return (t.gradient(y, {"a": x, "b": [v, (u,)]}), t.gradient(y, [x, v], unconnected_gradients="zero"),
                t.gradient(y, u, unconnected_gradients=tf.UnconnectedGradients.ZERO), t.gradient([y, y * 2.0], x),
                t.gradient({"q": y}, x), t.gradient(y, x, output_gradients=[tf.constant([1.0, 10.0])]),
                t.gradient(y, x, output_gradients=tf.constant([1.0, 10.0])), t.gradient(y, x, output_gradients=[2.0]),
                t.gradient(y, (x,)), t.gradient(y, tf.constant(1.0)), t.gradient(v, v), t.gradient(x, x),
                t.watched_variables())
    both(case)


def test_matmul_graph_with_variable():
    def case(tf):
        x, w = tf.constant(M.T), tf.Variable(M)
        with tf.GradientTape() as t:
            loss = tf.reduce_sum(tf.maximum(tf.matmul(x, w), 0.0) * 2.0)
        return loss, t.gradient(loss, w)
    both(case)


def test_integer_targets_and_sources_give_none():
    def case(tf):
        x = tf.constant(X)
        k = tf.constant([3, 4])
        with tf.GradientTape(persistent=True) as t:
            t.watch([x, k])
            kk = k * 2
            y = x * 2.0
        iv = tf.Variable(2)
        with tf.GradientTape(persistent=True) as t2:
            z = iv * 3
        return t.gradient(kk, k), t.gradient(y, k), t.gradient(kk, x), t2.gradient(z, iv), t2.watched_variables()
    both(case)


def test_watching_an_integer_logs_a_warning_the_first_five_times(caplog, monkeypatch):
    monkeypatch.setattr(_gradients, "_LOGGED", {})
    with caplog.at_level(logging.WARNING, logger="tensorflow"):
        with vtf.GradientTape() as t:
            for _ in range(4):
                t.watch(vtf.constant(3))
            t.watch(vtf.Variable(2))
            t.watch(vtf.constant([True]))
    messages = [r.getMessage() for r in caplog.records]
    assert messages == ["The dtype of the watched tensor must be floating (e.g. tf.float32), got tf.int32"] * 5


@pytest.mark.parametrize("action", [
    lambda tf, t, x, y: t.gradient(y, 3.0),
    lambda tf, t, x, y: t.gradient(y, None),
    lambda tf, t, x, y: t.gradient(y, [x, None]),
    lambda tf, t, x, y: t.gradient(None, x),
    lambda tf, t, x, y: t.watch(3.0),
    lambda tf, t, x, y: t.watch([x, "a"]),
    lambda tf, t, x, y: t.watch(np.ones(2)),
    lambda tf, t, x, y: t.gradient(y, x, unconnected_gradients="bad"),
    lambda tf, t, x, y: t.gradient(y, x, output_gradients=[tf.constant([1.0, 2.0, 3.0])]),
    lambda tf, t, x, y: (t.gradient(y, x), t.gradient(y, x)),
    lambda tf, t, x, y: (t.jacobian(y, x), t.gradient(y, x)),
    lambda tf, t, x, y: t.jacobian(y, x, experimental_use_pfor=False),
    lambda tf, t, x, y: t.reset(),
    lambda tf, t, x, y: t.stop_recording().__enter__(),
    lambda tf, t, x, y: tf.GradientTape().gradient(y, x),
    lambda tf, t, x, y: tf.gradients(y, x),
])
def test_errors(action):
    def case(tf):
        x = tf.constant(X)
        with tf.GradientTape() as t:
            t.watch(x)
            y = x * x
        return action(tf, t, x, y)
    both(case)


def test_nested_reentry_error():
    def case(tf):
        t = tf.GradientTape()
        with t:
            with t:
                pass
    both(case)


# -- which tape sees what --------------------------------------------------------------------------------------
def test_tapes_see_only_what_they_watch():
    def case(tf):
        x = tf.constant(3.0)
        out = []
        with tf.GradientTape(persistent=True) as outer:
            outer.watch(x)
            with tf.GradientTape(persistent=True) as inner:
                inner.watch(x)
                with inner.stop_recording():
                    y = x * x
                z = x * 4.0
        out += [inner.gradient(y, x), outer.gradient(y, x), inner.gradient(z, x)]
        with tf.GradientTape(persistent=True) as outer:
            outer.watch(x)
            with tf.GradientTape(persistent=True) as inner:
                y = x * x
        out += [inner.gradient(y, x), outer.gradient(y, x)]
        c = tf.constant(2.0)
        with tf.GradientTape(persistent=True) as t:
            t.watch(x)
            y = c * 2.0
            z = y * x
        out += [t.gradient(z, y), t.gradient(z, c)]
        with tf.GradientTape() as first:
            first.watch(x)
            y = x * x
        with tf.GradientTape(persistent=True) as second:
            z = y * 3.0
        out += [second.gradient(z, y), second.gradient(z, x)]
        with tf.GradientTape() as second:
            second.watch(y)
            z = y * 3.0
        out += [second.gradient(z, y)]
        return out
    both(case)


def test_variable_watching_modes():
    def case(tf):
        v = tf.Variable(2.0)
        nt = tf.Variable(2.0, trainable=False)
        out = []
        with tf.GradientTape(watch_accessed_variables=False) as t:
            y = v * 3.0
        out += [t.gradient(y, v), t.watched_variables()]
        with tf.GradientTape(watch_accessed_variables=False) as t:
            t.watch(v)
            y = v * 3.0
        out += [t.gradient(y, v), t.watched_variables()]
        with tf.GradientTape() as t:
            y = nt * 3.0
        out += [t.gradient(y, nt), t.watched_variables()]
        with tf.GradientTape() as t:
            t.watch(nt)
            y = nt * v
        out += [t.gradient(y, [nt, v]), t.watched_variables()]
        with tf.GradientTape(persistent=True) as outer:
            with tf.GradientTape(watch_accessed_variables=False) as inner:
                y = v * v
        out += [inner.gradient(y, v), outer.gradient(y, v)]
        return out
    both(case)


def test_variable_assigned_between_reads():
    """The gradient for a variable sums its reads; each read keeps the value it read."""
    def case(tf):
        v = tf.Variable(2.0)
        with tf.GradientTape() as t:
            y = v * 3.0 * v
            v.assign(5.0)
            z = y + v * v
            v.assign_add(1.0)
        return z, t.gradient(z, v), t.watched_variables()
    both(case)


def test_reset_reentry_and_gradient_inside_context():
    def case(tf):
        x, x2 = tf.constant(X), tf.constant(2.0)
        v = tf.Variable([3.0, 4.0])
        out = []
        with tf.GradientTape(persistent=True) as t:
            t.watch(x)
            y = x * x
            t.reset()
            z = x * v
        out += [t.gradient(y, x), t.gradient(z, x), t.gradient(z, v), t.watched_variables()]
        t = tf.GradientTape(persistent=True)
        with t:
            t.watch(x2)
            y = x2 * x2
        z = y * 3.0
        with t:
            w = y * 5.0
        out += [t.gradient(z, x2), t.gradient(w, x2)]
        with tf.GradientTape() as t:
            t.watch(x)
            y = x * x
            out.append(t.gradient(y, x))
            z = y * 2.0
        with tf.GradientTape() as t:
            t.watch(x)
            y = x * x
        out.append(t.gradient(y, x))
        return out
    both(case)


def test_persistent_gradient_inside_context_warns_once_and_records(caplog, monkeypatch):
    def case(tf):
        x = tf.constant(3.0)
        with tf.GradientTape(persistent=True) as t:
            t.watch(x)
            y = x * x * x
            g = t.gradient(y, x)
        return g, t.gradient(g, x)
    both(case)
    monkeypatch.setattr(_gradients, "_LOGGED", {})
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="tensorflow"):
        case(vtf)
        case(vtf)
    assert [r.getMessage()[:70] for r in caplog.records] == [
        "Calling GradientTape.gradient on a persistent tape inside its context "]


def test_two_tapes_recording_one_forward():
    """The GAN pattern: two non-persistent tapes over one forward pass, each used once."""
    def case(tf):
        g, d = tf.Variable(M), tf.Variable(M.T)
        x = tf.constant(M.T)
        with tf.GradientTape() as gen_tape, tf.GradientTape() as disc_tape:
            fake = tf.matmul(x, g)
            score = tf.reduce_sum(tf.matmul(fake, d) * tf.matmul(fake, d))
            gen_loss, disc_loss = score * 2.0, score * -1.0
        return gen_tape.gradient(gen_loss, [g, d]), disc_tape.gradient(disc_loss, [d, g])
    both(case, rtol=1e-4)


# -- higher order and Jacobians ------------------------------------------------------------------------------------
def test_higher_order_gradients():
    def case(tf):
        x = tf.constant(X)
        v = tf.Variable(M[0, :2])
        with tf.GradientTape() as t3:
            t3.watch(x)
            with tf.GradientTape() as t2:
                t2.watch(x)
                with tf.GradientTape() as t1:
                    t1.watch(x)
                    y = x * x * x * v
                d1 = t1.gradient(y, x)
            d2 = t2.gradient(d1, x)
        d3 = t3.gradient(d2, x)
        with tf.GradientTape() as outer:
            with tf.GradientTape() as inner:
                y = tf.reduce_sum(v * v * x)
            dv = inner.gradient(y, v)
            s = tf.reduce_sum(dv * dv)
        return d1, d2, d3, dv, outer.gradient(s, v)
    both(case)


def test_jacobian():
    def case(tf):
        x, m = tf.constant(X), tf.constant(M)
        v = tf.Variable([1.0, 2.0])
        with tf.GradientTape(persistent=True) as t:
            t.watch([x, m])
            y = tf.matmul(tf.reshape(x, (1, 2)), m)
            s = tf.reduce_sum(x * v)
            q = x * 2.0
        return (t.jacobian(y, x), t.jacobian(y, [x, m]), t.jacobian(s, x),
                t.jacobian(q, x, experimental_use_pfor=False), t.jacobian(q, tf.constant(1.0)),
                t.jacobian(q, v, unconnected_gradients="zero"), t.jacobian(s, v),
                t.jacobian(y, [m, {"k": x, "z": v}]))
    both(case)


def test_jacobian_of_a_gradient_is_the_hessian():
    def case(tf):
        x = tf.constant(X)
        with tf.GradientTape() as outer:
            outer.watch(x)
            with tf.GradientTape() as inner:
                inner.watch(x)
                y = tf.reduce_sum(x * x * x)
            g = inner.gradient(y, x)
        return outer.jacobian(g, x)
    both(case)


def test_batch_jacobian():
    def case(tf):
        a = tf.constant(np.arange(6.0, dtype=np.float32).reshape(3, 2))
        with tf.GradientTape(persistent=True) as t:
            t.watch(a)
            b = a * a
            c = tf.reshape(a, (3, 1, 2)) * tf.ones((3, 2, 2))
        return t.batch_jacobian(b, a), t.batch_jacobian(c, a), t.batch_jacobian(b, tf.ones((3, 2)))
    both(case)


@pytest.mark.parametrize("action", [
    lambda t, a, b: t.batch_jacobian(b, tf_ones(t, (4, 2))),
    lambda t, a, b: t.batch_jacobian(t.__dict__["sum"], a),
    lambda t, a, b: t.batch_jacobian(b, t.__dict__["scalar"]),
])
def test_batch_jacobian_errors(action):
    def case(tf):
        a = tf.constant(np.ones((3, 2), np.float32))
        with tf.GradientTape(persistent=True) as t:
            t.watch(a)
            b = a * 2.0
            t.__dict__["sum"] = tf.reduce_sum(a, axis=1)
        t.__dict__["scalar"] = tf.constant(1.0)
        t.__dict__["lib"] = tf
        return action(t, a, b)
    both(case)


def tf_ones(tape, shape):
    return tape.__dict__["lib"].ones(shape)


# -- stop_gradient, custom_gradient, recompute_grad ---------------------------------------------------------------
def test_stop_gradient():
    def case(tf):
        x, v = tf.constant(X), tf.Variable([3.0, 4.0])
        with tf.GradientTape(persistent=True) as t:
            t.watch(x)
            y = x * tf.stop_gradient(x * 3.0) + tf.stop_gradient(v) * v
        return t.gradient(y, [x, v]), tf.stop_gradient(v), tf.stop_gradient(1.0), tf.stop_gradient([1, 2])
    both(case)


def test_custom_gradient():
    def case(tf):
        x = tf.constant(X)
        v = tf.Variable([2.0, 3.0])

        @tf.custom_gradient
        def scaled_grad(a):
            def grad(dy):
                return dy * 0.1
            return a * 1.0, grad

        @tf.custom_gradient
        def with_variables(a):
            out = a * v

            def grad(dy, variables=None):
                return dy * 100.0, [dy * 7.0]
            return out, grad

        @tf.custom_gradient
        def two(a, b):
            def grad(dy):
                return dy * b, dy * a
            return a * b, grad

        @tf.custom_gradient
        def multi(a):
            def grad(d1, d2):
                return d1 + 2.0 * d2
            return (a * 1.0, a * 2.0), grad

        @tf.custom_gradient
        def as_list(a):
            def grad(d1, d2):
                return d1 + 3.0 * d2
            return [a * 1.0, a * 2.0], grad

        @tf.custom_gradient
        def first_only(a, b):
            def grad(dy):
                return dy, None
            return a * b, grad

        @tf.custom_gradient
        def keyword(a, scale=2.0):
            def grad(dy):
                return dy * scale
            return a * scale, grad

        with tf.GradientTape(persistent=True) as t:
            t.watch(x)
            y1 = scaled_grad(x * 3.0) * 5.0
            y2 = with_variables(x)
            y3 = two(x, 3.0)
            p, q = multi(x)
            r = as_list(x)
            y4 = first_only(x, x)
            y5 = keyword(x, scale=3.0)
        return (y1, t.gradient(y1, x), y2, t.gradient(y2, [x, v]), t.watched_variables(), t.gradient(y3, x),
                t.gradient(p, x), t.gradient(q, x), t.gradient([p, q], x), type(r).__name__, t.gradient(r, x),
                t.gradient(y4, x), t.gradient(y5, x), scaled_grad(x), with_variables(x))
    both(case)


def test_custom_gradient_higher_order():
    def case(tf):
        x = tf.constant(X)

        @tf.custom_gradient
        def square(a):
            def grad(dy):
                return dy * 2.0 * a
            return a * a, grad

        with tf.GradientTape() as t2:
            t2.watch(x)
            with tf.GradientTape() as t1:
                t1.watch(x)
                y = square(x)
            d = t1.gradient(y, x)
        return d, t2.gradient(d, x)
    both(case)


@pytest.mark.parametrize("which", ["no_variables_keyword", "too_many_gradients"])
def test_custom_gradient_errors(which):
    def case(tf):
        x = tf.constant(X)
        v = tf.Variable(2.0)

        @tf.custom_gradient
        def reads_variable(a):
            def grad(dy):
                return dy
            return a * v, grad

        @tf.custom_gradient
        def too_many(a):
            def grad(dy):
                return dy, dy
            return a * 2.0, grad

        with tf.GradientTape() as t:
            t.watch(x)
            y = reads_variable(x) if which == "no_variables_keyword" else too_many(x)
        return t.gradient(y, x)
    both(case)


def test_recompute_grad():
    def case(tf):
        x, v = tf.constant(X), tf.Variable([2.0, 3.0])
        f = tf.recompute_grad(lambda a: a * v * a)
        with tf.GradientTape() as t:
            t.watch(x)
            y = f(x)
        return y, t.gradient(y, [x, v])
    both(case)


def test_namespaces():
    for lib in LIBS:
        assert lib.autodiff.GradientTape is lib.GradientTape
        assert [m.value for m in lib.UnconnectedGradients] == ["none", "zero"]
    check(lambda tf: (str(tf.UnconnectedGradients.ZERO), tf.UnconnectedGradients("zero").name))


def test_sources_flatten_as_tf_nest():
    def case(tf):
        v = tf.Variable(1.0)
        with tf.GradientTape(persistent=True) as t:
            y = v * 2.0
        return t.gradient(y, {1: v, "a": v})
    check(case)
