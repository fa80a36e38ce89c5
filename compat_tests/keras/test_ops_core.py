"""keras.ops core functions (conversion, casts, control flow, slicing, scatter), math functions, and ops
on KerasTensors (functional models), against real Keras 3.15.1."""

import numpy as np
import pytest

from compat_tests.keras.building_blocks_harness import data, same
from compat_tests.keras.test_ops import check

X = data(3, 4, seed=11)


@pytest.mark.parametrize("make", [
    lambda ops: ops.cast(X, "int32"), lambda ops: ops.cast(X > 0, "float16"), lambda ops: ops.cast([1, 2], float),
    lambda ops: ops.convert_to_tensor([1, 2]), lambda ops: ops.convert_to_tensor([1.5, 2], dtype="int32"),
    lambda ops: ops.convert_to_tensor(np.float64(2.0)), lambda ops: ops.convert_to_tensor(3, "bool"),
    lambda ops: ops.shape(X), lambda ops: ops.dtype(X), lambda ops: ops.is_tensor(X),
    lambda ops: ops.is_tensor(ops.convert_to_tensor(X)), lambda ops: ops.convert_to_numpy(ops.ones(2)),
    lambda ops: ops.saturate_cast(X * 1000, "int8"), lambda ops: ops.saturate_cast(np.array([-1.0, 300.0]), "uint8"),
    lambda ops: ops.saturate_cast(np.array([3e9, -3e9], "float32"), "int32"),
    lambda ops: ops.saturate_cast(np.array([70000, -5], "int32"), "float16"),
    lambda ops: ops.stop_gradient(X), lambda ops: ops.slice(X, [1, 0], [2, 3]),
    lambda ops: ops.slice_update(X, [1, 1], np.ones((2, 2), "float32")),
    lambda ops: ops.scatter(np.array([[0, 1], [2, 3]]), np.array([5.0, 6.0], "float32"), (3, 4)),
    lambda ops: ops.scatter_update(X, np.array([[0, 0], [1, 2]]), np.array([9.0, 8.0], "float32")),
    lambda ops: ops.scatter_update(X, np.array([[0, 0], [0, 0]]), np.array([9.0, 8.0], "float32"), reduction="add"),
    lambda ops: ops.scatter_update(X, np.array([[0, 0], [1, 1]]), np.array([2.0, 3.0], "float32"), reduction="mul"),
    lambda ops: ops.scatter_update(X, np.array([[2]]), np.array([[1.0, 2, 3, 4]], "float32"), reduction="max"),
    lambda ops: ops.unstack(X), lambda ops: ops.top_k(X, 2), lambda ops: ops.top_k(X, 3, sorted=True)[1],
    lambda ops: ops.in_top_k(np.array([1, 3, 0]), X, 2), lambda ops: ops.erf(X), lambda ops: ops.erfinv(X / 4),
    lambda ops: ops.rsqrt(np.abs(X) + 1), lambda ops: ops.logsumexp(X, axis=1),
    lambda ops: ops.segment_sum(X, np.array([0, 0, 2])), lambda ops: ops.segment_sum(X, np.array([0, 1, 1]),
                                                                                   sorted=True),
    lambda ops: ops.segment_max(X, np.array([1, 0, 1]), num_segments=3),
    lambda ops: ops.segment_max(X, np.array([0, 0, 1]), sorted=True),
    lambda ops: ops.extract_sequences(np.arange(10.0), 4, 3),
])
def test_core_and_math(make):
    check(make)


def test_control_flow():
    def fn(lib):
        ops = lib.keras.ops
        return [
            ops.cond(True, lambda: ops.ones(2), lambda: ops.zeros(2)),
            ops.cond(ops.convert_to_tensor(False), lambda: ops.ones(2), lambda: ops.zeros(2)),
            ops.while_loop(lambda i, s: i < 5, lambda i, s: (i + 1, s * 2), (0, 1.0)),
            ops.while_loop(lambda x: ops.sum(x) < 10, lambda x: x + 1, ops.ones(2)),
            ops.while_loop(lambda i: i < 100, lambda i: i + 1, 0, maximum_iterations=7),
            ops.fori_loop(0, 4, lambda i, v: v + i, 0.5),
            ops.switch(1, [lambda x: x + 1, lambda x: x * 10], ops.ones(2)),
            ops.switch(9, [lambda x: x + 1, lambda x: x * 10], ops.ones(2)),
            ops.scan(lambda c, x: (c + x, c * x), 1.0, np.arange(1.0, 5.0, dtype="float32")),
            ops.scan(lambda c, x: (c + x, c), np.zeros(2), np.ones((3, 2)), reverse=True),
            ops.scan(lambda c, x: (c * 2, None), 1.0, length=4),
            ops.map(lambda row: ops.sum(row), X),
            ops.vectorized_map(lambda row: row * 2, X),
            ops.map(lambda pair: pair[0] + pair[1], (X, X)),
        ]

    same(fn)


def test_scan_carry_is_a_tensor():
    # the float32 carry cannot take float64 elements (TF refuses mixed dtypes)
    same(lambda lib: lib.keras.ops.scan(lambda c, x: (c + x, c), 1.0, np.arange(3.0)))


def test_control_flow_in_tf_function():
    def fn(lib):
        ops = lib.keras.ops

        @lib.tf.function
        def step(x):
            total = ops.fori_loop(0, 3, lambda i, v: v + x, ops.zeros_like(x))
            return ops.cond(ops.sum(total) > 0, lambda: total, lambda: -total)

        return step(lib.tf.constant(X)), step(lib.tf.constant(-X))

    same(fn)


def test_custom_gradient():
    def fn(lib):
        ops = lib.keras.ops

        @ops.custom_gradient
        def clipped(x):
            def grad(*args, upstream=None):
                upstream = args[0] if args else upstream
                return upstream * 0.5

            return ops.square(x), grad

        x = lib.tf.constant(X)
        with lib.tf.GradientTape() as tape:
            tape.watch(x)
            y = ops.sum(clipped(x))
        return y, tape.gradient(y, x)

    same(fn)


def test_ops_accept_keras_variables():
    def fn(lib):
        ops = lib.keras.ops
        v = lib.keras.Variable(X)
        return ops.add(v, 1), ops.matmul(v, ops.transpose(v)), ops.mean(v), ops.cast(v, "float16"), ops.shape(v)

    same(fn, rtol=1e-3, atol=1e-3)


def test_ops_on_keras_tensors():
    def fn(lib):
        keras, ops = lib.keras, lib.keras.ops
        inputs = keras.Input((4,))
        h = ops.add(ops.matmul(inputs, np.ones((4, 3), "float32")), 1.0)
        h = ops.concatenate([ops.relu(h), ops.softmax(h)], axis=-1)
        h = ops.expand_dims(ops.mean(h, axis=-1), -1)
        shapes = [(tuple(t.shape), t.dtype) for t in (h, ops.cast(h, "int32"), ops.argmax(inputs, axis=-1),
                                                      ops.one_hot(ops.cast(inputs, "int32"), 3))]
        model = keras.Model(inputs, h)
        return shapes, model(X), ops.shape(inputs)

    same(fn)


def test_public_names():
    import keras
    from vfw.tensorflow import keras as ours
    missing = sorted(n for n in dir(keras.ops) if not n.startswith("_") and n not in dir(ours.ops))
    # keras.ops names vfw has not written yet (listed in the helper's report); the count only shrinks.
    assert len(missing) <= 53, missing


@pytest.mark.parametrize("namespace", ["nn", "linalg", "numpy"])
def test_sub_namespaces(namespace):
    import keras
    from vfw.tensorflow import keras as ours
    theirs = {n for n in dir(getattr(keras.ops, namespace)) if not n.startswith("_")}
    mine = {n for n in dir(getattr(ours.ops, namespace)) if not n.startswith("_")}
    assert mine <= theirs, sorted(mine - theirs)
    assert all(getattr(getattr(ours.ops, namespace), n) is getattr(ours.ops, n) for n in mine)
    assert len(mine) >= 0.75 * len(theirs)
