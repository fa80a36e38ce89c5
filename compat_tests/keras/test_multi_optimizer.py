"""keras.optimizers.OptimizerMap and MultiOptimizer against real Keras 3.15.1: routing by path and regular
expression, training results (fit histories and weights from the same initial weights), iterations, variables,
configs and errors."""

import os

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
real = pytest.importorskip("keras")
from vfw.tensorflow import keras  # noqa: E402

RNG = np.random.default_rng(2)
X = RNG.normal(size=(32, 5)).astype(np.float32)
Y = RNG.normal(size=(32, 2)).astype(np.float32)


def _model(lib):
    inputs = lib.Input((5,))
    hidden = lib.layers.Dense(4, activation="tanh", name="first")(inputs)
    return lib.Model(inputs, lib.layers.Dense(2, name="second")(hidden))


def _multi(lib):
    optimizers = lib.optimizers
    mapping = optimizers.OptimizerMap(optimizers.SGD(0.1), {"first/kernel": optimizers.Adam(0.01),
                                                            r"second/.*": optimizers.RMSprop(0.02)})
    return optimizers.MultiOptimizer(mapping)


def _trained(lib, weights, optimizer):
    model = _model(lib)
    model.set_weights(weights)
    model.compile(optimizer=optimizer, loss="mse")
    history = model.fit(X, Y, batch_size=8, epochs=2, shuffle=False, verbose=0)
    return model, history.history["loss"]


def test_fit_matches_keras():
    weights = _model(real).get_weights()
    theirs, their_loss = _trained(real, weights, _multi(real))
    ours, our_loss = _trained(keras, weights, _multi(keras))
    np.testing.assert_allclose(our_loss, their_loss, rtol=1e-5)
    for got, want in zip(ours.get_weights(), theirs.get_weights()):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    assert int(ours.optimizer.iterations.numpy()) == int(theirs.optimizer.iterations.numpy()) == 8
    assert [type(o).__name__ for o in ours.optimizer.optimizers] == \
        [type(o).__name__ for o in theirs.optimizer.optimizers]
    assert [int(o.iterations.numpy()) for o in ours.optimizer.optimizers] == \
        [int(o.iterations.numpy()) for o in theirs.optimizer.optimizers]
    assert [v.shape for v in ours.optimizer.variables] == [tuple(v.shape) for v in theirs.optimizer.variables]


def test_apply_with_a_callable_map_matches_keras():
    results = []
    for lib in (keras, real):
        adam, sgd = lib.optimizers.Adam(0.05), lib.optimizers.SGD(0.5, momentum=0.5)
        a = lib.Variable(np.ones((2, 2), np.float32), name="a")
        b = lib.Variable(np.full(3, 2.0, np.float32), name="b")
        routes = {"a": adam, "b": sgd}
        multi = lib.optimizers.MultiOptimizer(lambda v, routes=routes: routes[v.name])
        for step in range(3):
            multi.apply([np.full((2, 2), step + 1.0, np.float32), np.arange(3, dtype=np.float32)], [a, b])
        results.append((a.numpy(), b.numpy(), len(multi.optimizers), int(multi.iterations.numpy())))
    for got, want in zip(*results):
        np.testing.assert_allclose(got, want, rtol=1e-6)


def test_optimizer_map_lookup_and_errors_match_keras():
    for lib in (keras, real):
        opt = lib.optimizers
        default, first, second = opt.SGD(), opt.Adam(), opt.Adam()
        mapping = opt.OptimizerMap(default, {"dense/kernel": first, r"dense.*": second})
        assert mapping["dense/kernel"] is first and mapping["dense/bias"] is second and mapping["other"] is default
        assert len(mapping) == 2 and list(mapping) == ["dense/kernel", r"dense.*"]
        mapping[".*e"] = first
        with pytest.raises(ValueError, match="Multiple optimizers"):
            mapping["dense_e"]
        with pytest.raises(ValueError, match="already exists"):
            mapping[".*e"] = first
        with pytest.raises(ValueError, match="LossScaleOptimizer"):
            mapping["y"] = opt.LossScaleOptimizer(opt.SGD())
        with pytest.raises(ValueError, match="Keras Optimizer"):
            mapping["y"] = "sgd"
        with pytest.raises(TypeError):
            opt.OptimizerMap("sgd")
        with pytest.raises(TypeError):
            opt.OptimizerMap(default, [("a", first)])
        multi = opt.MultiOptimizer(mapping)
        with pytest.raises(AttributeError):
            _ = multi.learning_rate
        with pytest.raises(ValueError, match="built"):
            multi.apply([np.ones(1, np.float32)])


def test_config_round_trip_matches_keras():
    ours, theirs = _multi(keras), _multi(real)
    config, their_config = ours.get_config(), theirs.get_config()
    assert sorted(config) == sorted(their_config) == ["loss_scale_factor", "name", "optimizer_map"]
    assert config["optimizer_map"]["class_name"] == their_config["optimizer_map"]["class_name"] == "OptimizerMap"
    clone = keras.optimizers.MultiOptimizer.from_config(config)
    assert [type(o).__name__ for o in clone.optimizers] == [type(o).__name__ for o in theirs.optimizers]
    assert sorted(clone._optimizer_map) == sorted(theirs._optimizer_map)
