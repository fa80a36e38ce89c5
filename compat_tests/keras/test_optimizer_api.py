"""keras.optimizers API against real Keras 3.15.1: names, configs, serialization, get, learning-rate property,
variables, custom optimizers and errors."""

import numpy as np
import pytest

from compat_tests.keras.optimizer_harness import (
    REAL,
    VFW,
    assert_same_state,
    clear_session,
    make_variables,
    train,
)


def _o(lib):
    return lib.keras.optimizers


CONFIGURED = {
    "SGD": lambda lib: _o(lib).SGD(0.2, momentum=0.5, nesterov=True, clipvalue=1.0),
    "Adam": lambda lib: _o(lib).Adam(0.002, beta_1=0.8, amsgrad=True, weight_decay=0.01),
    "AdamW": lambda lib: _o(lib).AdamW(weight_decay=0.1, global_clipnorm=2.0, use_ema=True),
    "Adamax": lambda lib: _o(lib).Adamax(epsilon=1e-5, ema_momentum=0.5),
    "Nadam": lambda lib: _o(lib).Nadam(beta_2=0.9, gradient_accumulation_steps=4),
    "RMSprop": lambda lib: _o(lib).RMSprop(rho=0.8, momentum=0.1, centered=True, loss_scale_factor=2.0),
    "Adagrad": lambda lib: _o(lib).Adagrad(initial_accumulator_value=0.3, clipnorm=0.5),
    "Adadelta": lambda lib: _o(lib).Adadelta(rho=0.5, use_ema=True, ema_overwrite_frequency=3),
    "Ftrl": lambda lib: _o(lib).Ftrl(learning_rate_power=-0.2, l1_regularization_strength=0.1, beta=0.2),
    "Lion": lambda lib: _o(lib).Lion(beta_1=0.5, name="my_lion"),
    "Lamb": lambda lib: _o(lib).Lamb(epsilon=1e-3),
    "Adafactor": lambda lib: _o(lib).Adafactor(relative_step=False, clip_threshold=2.0),
    "schedule": lambda lib: _o(lib).SGD(_o(lib).schedules.PolynomialDecay(0.1, 10, cycle=True)),
}
DEFAULTS = ["SGD", "Adam", "AdamW", "Adamax", "Nadam", "RMSprop", "Adagrad", "Adadelta", "Ftrl", "Lion", "Lamb",
            "Adafactor"]


def test_public_names_exist_in_keras():
    for ours, theirs in ((_o(VFW), _o(REAL)), (_o(VFW).schedules, _o(REAL).schedules)):
        assert {n for n in dir(ours) if not n.startswith("_")} <= {n for n in dir(theirs) if not n.startswith("_")}
    assert VFW.keras.Optimizer is VFW.keras.optimizers.Optimizer


@pytest.mark.parametrize("name", DEFAULTS)
def test_default_configs(name):
    clear_session(REAL)
    clear_session(VFW)
    assert getattr(_o(VFW), name)().get_config() == getattr(_o(REAL), name)().get_config()


@pytest.mark.parametrize("case", list(CONFIGURED))
def test_configs_serialization_and_round_trip(case):
    clear_session(REAL)
    clear_session(VFW)
    real_optimizer, optimizer = CONFIGURED[case](REAL), CONFIGURED[case](VFW)
    assert optimizer.get_config() == real_optimizer.get_config()
    serialized = _o(VFW).serialize(optimizer)
    assert serialized == _o(REAL).serialize(real_optimizer)
    restored = type(optimizer).from_config(optimizer.get_config())
    assert type(restored) is type(optimizer) and restored.get_config() == optimizer.get_config()
    restored = _o(VFW).deserialize(serialized)
    expected = _o(REAL).deserialize(_o(REAL).serialize(real_optimizer))
    if isinstance(expected, str):  # Keras does not list Lamb among the optimizers it deserializes
        assert restored == expected == "Lamb"
    else:
        assert type(restored) is type(optimizer) and restored.get_config() == optimizer.get_config()


def test_get_and_deserialize_by_name():
    for lib in (REAL, VFW):
        clear_session(lib)
    for identifier in ("adam", "SGD", "rmsprop", "RMSprop", "adamw", "nadam", "ftrl", "lion", "adafactor",
                       "adagrad", "adadelta", "adamax", {"class_name": "Adam", "config": {"learning_rate": 0.5}},
                       {"class_name": "ADAM", "config": {}},
                       {"module": "keras.optimizers", "class_name": "SGD", "config": {"momentum": 0.5},
                        "registered_name": None}):
        expected = _o(REAL).get(dict(identifier) if isinstance(identifier, dict) else identifier)
        actual = _o(VFW).get(dict(identifier) if isinstance(identifier, dict) else identifier)
        assert type(actual).__name__ == type(expected).__name__
        assert actual.get_config() == expected.get_config()
    optimizer = _o(VFW).Adam()
    assert _o(VFW).get(optimizer) is optimizer and _o(VFW).get(None) is None
    assert _o(VFW).deserialize({"class_name": "foo", "config": {}}) == _o(REAL).deserialize(
        {"class_name": "foo", "config": {}}) == "foo"


def _error(fn):
    with pytest.raises(Exception) as info:
        fn()
    return type(info.value), str(info.value)


@pytest.mark.parametrize("identifier", ["foo", 3, "lamb", {"class_name": "ExponentialDecay", "config": {
    "initial_learning_rate": 0.5, "decay_steps": 1, "decay_rate": 0.5}}])
def test_get_errors(identifier):
    assert _error(lambda: _o(VFW).get(identifier)) == _error(lambda: _o(REAL).get(identifier))


def test_custom_optimizer_class_serialization():
    results = []
    for lib in (REAL, VFW):
        clear_session(lib)

        class MyOptimizer(_o(lib).SGD):
            pass

        serialized = _o(lib).serialize(MyOptimizer(0.5))
        restored = _o(lib).deserialize(serialized, custom_objects={"MyOptimizer": MyOptimizer})
        results.append((serialized, type(restored) is MyOptimizer, restored.get_config()))
    assert results[1] == results[0]


def test_names_are_snake_case_and_unique_per_session():
    names = []
    for lib in (REAL, VFW):
        clear_session(lib)
        made = [_o(lib).SGD(), _o(lib).SGD(), _o(lib).RMSprop(), _o(lib).AdamW(), _o(lib).Adam(name="custom"),
                _o(lib).Adam(), _o(lib).Adafactor()]
        clear_session(lib)
        made.append(_o(lib).SGD())
        names.append([o.name for o in made])
    assert names[1] == names[0] == ["sgd", "sgd_1", "rm_sprop", "adam_w", "custom", "adam", "adafactor", "sgd"]


@pytest.mark.parametrize("make", [
    lambda lib: _o(lib).SGD(1),
    lambda lib: _o(lib).Adam(learning_rate="0.1"),
    lambda lib: _o(lib).Adam(learning_rate=lib.keras.Variable(0.1)),
    lambda lib: _o(lib).SGD(0.1, momentum=1),
    lambda lib: _o(lib).SGD(0.1, momentum=1.5),
    lambda lib: _o(lib).SGD(0.1, foo=1),
    lambda lib: _o(lib).SGD(0.1, clipnorm=1.0, clipvalue=1.0),
    lambda lib: _o(lib).Adam(global_clipnorm=1.0, clipvalue=1.0),
    lambda lib: _o(lib).SGD(0.1, gradient_accumulation_steps=1),
    lambda lib: _o(lib).SGD(0.1, use_ema=True, ema_momentum=2),
    lambda lib: _o(lib).SGD(0.1, use_ema=True, ema_overwrite_frequency=0.5),
    lambda lib: _o(lib).AdamW(weight_decay=None),
    lambda lib: _o(lib).Lion(beta_1=0),
    lambda lib: _o(lib).Lion(beta_1=1.5),
    lambda lib: _o(lib).Ftrl(learning_rate_power=0.5),
    lambda lib: _o(lib).Ftrl(initial_accumulator_value=-1.0),
    lambda lib: _o(lib).Ftrl(l1_regularization_strength=-1.0),
    lambda lib: _o(lib).Ftrl(l2_regularization_strength=-1.0),
    lambda lib: _o(lib).Ftrl(l2_shrinkage_regularization_strength=-1.0),
])
def test_constructor_errors(make):
    assert _error(lambda: make(VFW)) == _error(lambda: make(REAL))


def test_decay_argument_warns_and_is_ignored():
    for lib in (REAL, VFW):
        with pytest.warns(UserWarning, match="Argument `decay` is no longer supported and will be ignored."):
            assert "decay" not in _o(lib).SGD(0.1, decay=0.5).get_config()


def _built_sgd(lib):
    clear_session(lib)
    optimizer = _o(lib).SGD(0.1, momentum=0.5)
    variable = lib.keras.Variable(np.ones(3, "float32"), name="w")
    return optimizer, variable, lib.keras.Variable(np.ones(2, "float32"), name="u")


@pytest.mark.parametrize("call", [
    lambda lib, o, v, u: o.apply([np.ones(3, "float32")]),
    lambda lib, o, v, u: (o.build([v]), o.apply([np.ones(3, "float32"), np.ones(2, "float32")])),
    lambda lib, o, v, u: (o.build([v]), o.apply([np.ones(2, "float32")], [u])),
    lambda lib, o, v, u: o.apply([None], [v]),
    lambda lib, o, v, u: o.set_weights([]),
    lambda lib, o, v, u: o.stateless_apply([], [], []),
    lambda lib, o, v, u: _o(lib).Optimizer(0.1).update_step(None, None, None),
])
def test_apply_errors(call):
    expected = _error(lambda: call(REAL, *_built_sgd(REAL)))
    assert _error(lambda: call(VFW, *_built_sgd(VFW))) == expected


def test_apply_details():
    results = []
    for lib in (REAL, VFW):
        optimizer, variable, _ = _built_sgd(lib)
        optimizer.apply([])  # nothing to apply: no step counted
        counted = [int(optimizer.iterations.numpy())]
        optimizer.apply([np.full(3, 0.5, "float32")], [variable])
        optimizer.apply([np.full(3, 0.25, "float32")])  # the variables it was built with
        returned = optimizer.apply_gradients([(np.full(3, -1.0, "float32"), variable)])
        counted.append(int(returned.numpy()))
        results.append((counted, variable.numpy(), [v.numpy() for v in optimizer.variables],
                        optimizer.scale_loss(2.0)))
    (counts, value, state, scaled), expected = results[1], results[0]
    assert counts == expected[0] == [0, 3]
    np.testing.assert_array_equal(value, expected[1])
    for got, want in zip(state, expected[2]):
        np.testing.assert_array_equal(got, want)
    assert scaled == expected[3] == 2.0
    assert _o(VFW).SGD(loss_scale_factor=4.0).scale_loss(3.0) == 12.0


def test_iterations_count_updates_with_gradient_accumulation():
    counts = []
    for lib in (REAL, VFW):
        clear_session(lib)
        optimizer = _o(lib).SGD(0.1, gradient_accumulation_steps=3)
        variables = make_variables(lib, [np.ones((3, 4), "float32"), np.ones(4, "float32")])
        row = []
        for _ in range(7):
            optimizer.apply([np.ones((3, 4), "float32"), np.ones(4, "float32")], variables)
            row.append((int(optimizer.iterations.numpy()), int(optimizer._iterations.numpy())))
        counts.append(row)
    assert counts[1] == counts[0]


def test_learning_rate_property_and_setter():
    results = []
    for lib in (REAL, VFW):
        clear_session(lib)
        optimizer = _o(lib).SGD(0.1)
        seen = [optimizer.learning_rate.path, float(optimizer.learning_rate.numpy())]
        optimizer.learning_rate = 0.5
        seen.append(float(optimizer.learning_rate.numpy()))
        optimizer.learning_rate = np.float32(0.25)
        seen.append(optimizer.get_config()["learning_rate"])
        optimizer.learning_rate = _o(lib).schedules.ExponentialDecay(0.2, 1, 0.5)
        seen.append([v.path for v in optimizer.variables])  # the variable is no longer the learning rate
        seen.append(float(optimizer.learning_rate.numpy()))
        seen.append(_error(lambda o=optimizer: setattr(o, "learning_rate", 0.1)))
        optimizer.learning_rate = lambda: 0.3
        seen.append(optimizer.learning_rate)
        results.append(seen)
    assert results[1] == results[0]


def test_callable_learning_rate():
    results = []
    for lib in (REAL, VFW):
        clear_session(lib)
        optimizer = _o(lib).Adam(lambda: 0.125)
        results.append((optimizer.learning_rate, [v.path for v in optimizer.variables]))
    assert results[1] == results[0]


def test_variables_api():
    results = []
    for lib in (REAL, VFW):
        clear_session(lib)
        optimizer = _o(lib).Adam(0.1)
        variables = make_variables(lib, [np.ones((3, 4), "float32"), np.ones(4, "float32")])
        optimizer.build(variables)
        extra = [optimizer.add_variable((2, 3), name="extra"),
                 optimizer.add_variable((2,), initializer="ones", dtype="float64", name="ones"),
                 optimizer.add_variable_from_reference(variables[0], "slot", initializer="ones"),
                 optimizer.add_variable_from_reference(variables[1])]
        extra += optimizer.add_optimizer_variables(variables, ["a", "b"], initializer=["zeros", "ones"])[1]
        described = [(v.name, v.path, str(v.dtype), tuple(v.shape), v.trainable, v.numpy().tolist())
                     for v in optimizer.variables]
        optimizer.set_weights([np.full(v.shape, 2.0, v.dtype) for v in optimizer.variables])
        store = {}
        optimizer.save_own_variables(store)
        fresh = _o(lib).Adam(0.1)
        fresh.build(variables)
        with pytest.warns(UserWarning, match="Skipping variable loading for optimizer"):
            fresh.load_own_variables(store)  # it lacks the extra variables
        optimizer.load_own_variables({k: np.zeros_like(v) for k, v in store.items()})
        results.append((described, [v.path for v in extra], sorted(store),
                        [v.numpy().tolist() for v in optimizer.variables]))
    assert results[1] == results[0]


def test_set_weights_shape_error():
    for lib in (REAL, VFW):
        optimizer, variable, _ = _built_sgd(lib)
        optimizer.build([variable])
        with pytest.raises(ValueError, match="not compatible with provided weight shape"):
            optimizer.set_weights([np.zeros((), "int64"), np.zeros(2, "float32")])


def test_subclass_must_call_super_init():
    def make(lib):
        class Forgetful(_o(lib).Optimizer):
            def __init__(self):
                self.rate = 1

        return Forgetful()

    assert _error(lambda: make(VFW)) == _error(lambda: make(REAL))


def _custom_optimizer(lib):
    """A user optimizer written as the Keras docs show: slots from add_variable_from_reference, self.assign*,
    state variables as attributes."""
    class SignMomentum(_o(lib).Optimizer):
        def __init__(self, learning_rate=0.05, decay=0.8, **kwargs):
            super().__init__(learning_rate=learning_rate, **kwargs)
            self.decay_rate = decay

        def build(self, variables):
            if self.built:
                return
            super().build(variables)
            self.velocities = [self.add_variable_from_reference(v, "velocity") for v in variables]
            # A variable assigned as an attribute is tracked too (here in the optimizer's scope).
            self.updates_done = lib.keras.Variable(0.0, name="updates_done", trainable=False)

        def update_step(self, gradient, variable, learning_rate):
            lr = lib.tf.cast(learning_rate, variable.dtype)
            velocity = self.velocities[self._get_variable_index(variable)]
            self.assign(velocity, velocity * self.decay_rate + gradient)
            self.assign_sub(variable, lib.tf.sign(velocity) * lr)
            self.assign_add(variable, gradient * 0.01 * self.updates_done)
            self.assign_add(self.updates_done, 1.0)

        def get_config(self):
            return {**super().get_config(), "decay": self.decay_rate}

    return SignMomentum(weight_decay=0.1, clipnorm=1.0)


@pytest.mark.parametrize("graph", [False, True], ids=["eager", "tf_function"])
def test_custom_optimizer_subclass(graph):
    clear_session(REAL)
    clear_session(VFW)
    expected = train(REAL, _custom_optimizer)
    actual = train(VFW, _custom_optimizer, graph=graph)
    assert_same_state(expected, actual)
    assert actual[2].get_config() == expected[2].get_config()
