"""keras.regularizers and keras.constraints against real Keras 3.15.1: penalties, projections, configs, get."""

import numpy as np
import pytest

from compat_tests.keras.building_blocks_harness import data, same

W = data(4, 5, seed=3)

REGULARIZERS = [
    lambda k: k.regularizers.L1(), lambda k: k.regularizers.L1(0.3), lambda k: k.regularizers.L2(),
    lambda k: k.regularizers.L2(l2=0.5), lambda k: k.regularizers.L1L2(l1=0.1, l2=0.2),
    lambda k: k.regularizers.L1L2(), lambda k: k.regularizers.L1L2(l1=None, l2=0.2),
    lambda k: k.regularizers.OrthogonalRegularizer(), lambda k: k.regularizers.OrthogonalRegularizer(0.5, "columns"),
    lambda k: k.regularizers.l1(0.05), lambda k: k.regularizers.l1_l2(0.01, 0.02),
]


@pytest.mark.parametrize("make", REGULARIZERS)
def test_regularizer_penalty_and_config(make):
    def fn(lib):
        regularizer = make(lib.keras)
        config = lib.keras.regularizers.serialize(regularizer)
        rebuilt = lib.keras.regularizers.deserialize(config)
        return regularizer(lib.tf.constant(W)), regularizer.get_config(), config, rebuilt(W)

    same(fn)


@pytest.mark.parametrize("make", REGULARIZERS[:5])
def test_regularizer_in_float64_and_on_variables(make):
    def fn(lib):
        regularizer = make(lib.keras)
        return regularizer(W.astype("float64")), regularizer(lib.keras.Variable(W))

    same(fn, rtol=1e-6)


@pytest.mark.parametrize("make", [
    lambda k: k.regularizers.L1(-1.0), lambda k: k.regularizers.L2(float("inf")),
    lambda k: k.regularizers.L1L2(l1="a"), lambda k: k.regularizers.OrthogonalRegularizer(mode="diagonal"),
    lambda k: k.regularizers.OrthogonalRegularizer()(np.ones((2, 2, 2), "float32")),
    lambda k: k.regularizers.Regularizer().get_config(), lambda k: k.regularizers.get("l3"),
    lambda k: k.regularizers.get(4),
])
def test_regularizer_errors(make):
    def fn(lib):
        try:
            make(lib.keras)
        except NotImplementedError as e:  # the message names the object (its address)
            return type(e).__name__, str(e).split(" ")[-1]

    same(fn)


@pytest.mark.parametrize("identifier", ["l1", "l2", "l1_l2", "L1", "L1L2", "orthogonal_regularizer",
                                        "OrthogonalRegularizer", None,
                                        {"class_name": "L2", "config": {"l2": 0.25}}])
def test_regularizer_get(identifier):
    def fn(lib):
        regularizer = lib.keras.regularizers.get(identifier)
        return None if regularizer is None else (type(regularizer).__name__, regularizer.get_config())

    same(fn)


def test_base_regularizer_is_zero_and_classes_instantiate():
    def fn(lib):
        r = lib.keras.regularizers
        return r.Regularizer()(W), type(r.get(r.L2)).__name__, lib.keras.Regularizer is r.Regularizer

    same(fn)


CONSTRAINTS = [
    lambda k: k.constraints.MaxNorm(), lambda k: k.constraints.MaxNorm(max_value=1.0, axis=1),
    lambda k: k.constraints.MaxNorm(0.5, axis=[0, 1]), lambda k: k.constraints.NonNeg(),
    lambda k: k.constraints.UnitNorm(), lambda k: k.constraints.UnitNorm(axis=-1),
    lambda k: k.constraints.MinMaxNorm(), lambda k: k.constraints.MinMaxNorm(0.5, 1.5, rate=0.5, axis=1),
    lambda k: k.constraints.max_norm(3), lambda k: k.constraints.non_neg(), lambda k: k.constraints.Constraint(),
]


@pytest.mark.parametrize("make", CONSTRAINTS)
def test_constraint_projection_and_config(make):
    def fn(lib):
        constraint = make(lib.keras)
        config = lib.keras.constraints.serialize(constraint)
        rebuilt = lib.keras.constraints.deserialize(config)
        return constraint(W * 2), constraint.get_config(), config, rebuilt(lib.tf.constant(W))

    same(fn)


@pytest.mark.parametrize("identifier", ["max_norm", "MaxNorm", "non_neg", "unit_norm", "min_max_norm", "NonNeg",
                                        None, {"class_name": "MaxNorm", "config": {"max_value": 4, "axis": 1}}])
def test_constraint_get(identifier):
    def fn(lib):
        constraint = lib.keras.constraints.get(identifier)
        return None if constraint is None else (type(constraint).__name__, constraint.get_config())

    same(fn)


@pytest.mark.parametrize("identifier", ["nope", 3.0])
def test_constraint_get_errors(identifier):
    same(lambda lib: lib.keras.constraints.get(identifier))


def test_custom_registered_regularizer_round_trip():
    from vfw.tensorflow import keras

    @keras.saving.register_keras_serializable(package="Tests")
    class Doubled(keras.regularizers.Regularizer):
        def __init__(self, factor=1.0):
            self.factor = factor

        def __call__(self, x):
            return self.factor * 2.0

        def get_config(self):
            return {"factor": self.factor}

    config = keras.regularizers.serialize(Doubled(3.0))
    assert config["registered_name"] == "Tests>Doubled" and config["config"] == {"factor": 3.0}
    rebuilt = keras.regularizers.deserialize(config)
    assert isinstance(rebuilt, Doubled) and rebuilt.factor == 3.0


def test_public_names():
    import keras
    from vfw.tensorflow import keras as ours
    for name in ("regularizers", "constraints"):
        assert {n for n in dir(getattr(keras, name)) if not n.startswith("_")} <= set(dir(getattr(ours, name)))
