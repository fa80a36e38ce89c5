"""tf.map_fn / scan / foldl / foldr / vectorized_map / py_function / numpy_function against real TF 2.21."""

import numpy as np
import pytest

from compat_tests.tensorflow.harness import arrays, check, check_grad

X = arrays((4, 3), seed=1)
V = arrays((5,), seed=2, low=0.5, high=1.5)
INTS = np.array([1, 2, 3], np.int32)


def both(fn):
    """``fn`` run eagerly and inside tf.function."""
    return [fn, lambda tf, *a: tf.function(lambda *b: fn(tf, *b))(*a)]


@pytest.mark.parametrize("mode", [0, 1])
def test_map_fn_values_and_gradients(mode):
    check_grad(both(lambda tf, x: tf.map_fn(lambda r: r * r + tf.reduce_sum(r), x))[mode], X)
    check_grad(both(lambda tf, x, v: tf.map_fn(lambda e: (e[0] * e[1], e[1]), (x[:, :2], x[:, 1:])))[mode], X, V)
    check(both(lambda tf, x: tf.map_fn(lambda r: tf.cast(tf.reduce_sum(r) > 0, tf.int32), x,
                                       fn_output_signature=tf.int32))[mode], X)


def test_map_fn_signatures_and_nesting():
    check(lambda tf, x: tf.map_fn(lambda r: {"a": r, "b": r[0]}, x,
                                  fn_output_signature={"a": tf.float32, "b": tf.TensorSpec([], tf.float32)}), X)
    check(lambda tf, x, i: tf.map_fn(lambda e: e["x"][0] + tf.cast(e["i"], tf.float32), {"x": x[:3], "i": i},
                                     fn_output_signature=tf.float32), X, INTS)
    check(lambda tf, x: tf.map_fn(lambda r: r * 2, x, dtype=tf.float32), X)
    check(lambda tf: tf.map_fn(lambda r: r * 2, tf.zeros([0, 2])))


def test_map_fn_errors():
    check(lambda tf, x: tf.map_fn(lambda r: tf.cast(r, tf.int32), x), X)  # dtype differs from the signature
    check(lambda tf: tf.map_fn(lambda r: r, tf.constant(1.0)))
    check(lambda tf, x, i: tf.map_fn(lambda e: e[0], (x, i)), X, INTS)
    check(lambda tf, x: tf.map_fn(lambda r: r[:tf.cast(r[0] > 0, tf.int32) + 1], x), X)
    check(lambda tf, x: tf.map_fn(lambda r: (r, r), x), X)


@pytest.mark.parametrize("mode", [0, 1])
def test_scan(mode):
    check_grad(both(lambda tf, v: tf.scan(lambda a, e: a * e + 1.0, v))[mode], V)
    check_grad(both(lambda tf, v: tf.scan(lambda a, e: a + e, v, initializer=10.0, reverse=True))[mode], V)
    check_grad(both(lambda tf, v: tf.scan(lambda a, e: (a[0] + e, a[1] * e), v, initializer=(0.0, 1.0)))[mode], V)
    check(both(lambda tf, x: tf.scan(lambda a, e: a + e, x, reverse=True))[mode], X)


def test_scan_errors_and_empty():
    check(lambda tf, i: tf.scan(lambda a, e: a + e, i, initializer=0.0), INTS)
    check(lambda tf: tf.scan(lambda a, e: a + e, tf.zeros([0])))
    check(lambda tf: tf.scan(lambda a, e: a + e, tf.zeros([0]), initializer=1.0))


@pytest.mark.parametrize("mode", [0, 1])
def test_folds(mode):
    check_grad(both(lambda tf, v: tf.foldl(lambda a, e: a * e, v))[mode], V)
    check_grad(both(lambda tf, v: tf.foldr(lambda a, e: a * 2.0 + e, v))[mode], V)
    check(both(lambda tf, i: (tf.foldl(lambda a, e: a * 10 + e, i), tf.foldr(lambda a, e: a * 10 + e, i)))[mode], INTS)
    check(both(lambda tf, i: tf.foldl(lambda a, e: a + e[0] * e[1], (i, i * 2), initializer=0))[mode], INTS)


def test_fold_errors_and_empty():
    check(lambda tf, i: tf.foldl(lambda a, e: a + e, i, initializer=0.0), INTS)
    check(lambda tf: tf.foldl(lambda a, e: a + e, tf.zeros([0])))
    check(lambda tf: tf.foldr(lambda a, e: a + e, tf.zeros([0]), initializer=1.0))


@pytest.mark.parametrize("mode", [0, 1])
def test_vectorized_map(mode):
    check_grad(both(lambda tf, x: tf.vectorized_map(lambda r: tf.tensordot(r, r, 1) * r, x))[mode], X)
    check(both(lambda tf, x: (tf.vectorized_map(lambda r: tf.reduce_sum(r) > 0, x),
                              tf.vectorized_map(lambda r: 2.0, x)))[mode], X)


def test_py_function_eager_and_traced():
    check(lambda tf, x: tf.py_function(lambda a: a * 2, [x], tf.float32), X)
    check(lambda tf, x: tf.py_function(lambda a: (a * 2, a), [x], [tf.float32, tf.float32]), X)
    check(lambda tf, x: tf.py_function(lambda a: [a], [x], [tf.float32]), X)
    check(lambda tf, x: tf.py_function(lambda a: None, [x], []), X)
    check(lambda tf: tf.py_function(lambda: 3, [], tf.int64))
    check(lambda tf, x: tf.py_function(lambda a: tf.cast(a, tf.int32), [x], tf.float32), X)
    check(lambda tf, x: tf.py_function(lambda a: a, [x], [tf.float32, tf.float32]), X)
    check_grad(lambda tf, v: tf.py_function(lambda a: a * a, [v], tf.float32), V)
    for lib_calls in both(lambda tf, x: (tf.py_function(lambda a: a.numpy() * 3, [x], tf.float32),
                                         tf.numpy_function(lambda a: a + 1, [x], tf.float32))):
        check(lib_calls, X)


def test_py_function_runs_at_every_call():
    import vfw.tensorflow as tf
    calls = []

    @tf.function
    def f(x):
        return tf.py_function(lambda a: calls.append(float(a.numpy())) or a + 1, [x], tf.float32)

    assert float(f(tf.constant(1.0))) == 2.0
    assert float(f(tf.constant(5.0))) == 6.0
    assert calls == [1.0, 5.0]
    assert f.experimental_get_tracing_count() == 1


def test_numpy_function():
    check(lambda tf, x: tf.numpy_function(lambda a: a.astype(np.float64), [x], tf.float32), X)
    check(lambda tf, x: tf.numpy_function(lambda a: 1, [x], tf.int32), X)
    check(lambda tf, x: tf.numpy_function(lambda a, b: (a * 2, b), [x, 3], [tf.float32, tf.int32]), X)
    check(lambda tf, x: tf.numpy_function(lambda a: a.sum(), [x], tf.float32, stateful=False), X)
    check_grad(lambda tf, v: tf.numpy_function(lambda a: a * a, [v], tf.float32) + v, V)
