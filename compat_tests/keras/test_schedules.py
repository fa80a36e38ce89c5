"""keras.optimizers.schedules against real Keras 3.15.1: values over steps, dtypes, configs, serialization, errors."""

import numpy as np
import pytest

from compat_tests.keras.optimizer_harness import ATOL, REAL, RTOL, VFW


def _s(lib):
    return lib.keras.optimizers.schedules


SCHEDULES = {
    "exponential": lambda lib: _s(lib).ExponentialDecay(0.1, 4, 0.5),
    "exponential_staircase": lambda lib: _s(lib).ExponentialDecay(0.3, 3, 0.8, staircase=True, name="exp"),
    "exponential_growth": lambda lib: _s(lib).ExponentialDecay(0.01, 2, 1.5),
    "piecewise": lambda lib: _s(lib).PiecewiseConstantDecay([3, 7, 10], [1.0, 0.5, 0.25, 0.125]),
    "piecewise_one_boundary": lambda lib: _s(lib).PiecewiseConstantDecay([5], [0.1, 0.01], name="pc"),
    "polynomial": lambda lib: _s(lib).PolynomialDecay(0.1, 10),
    "polynomial_power": lambda lib: _s(lib).PolynomialDecay(0.1, 7, end_learning_rate=0.01, power=0.5),
    "polynomial_cycle": lambda lib: _s(lib).PolynomialDecay(0.1, 6, end_learning_rate=0.02, power=2.0, cycle=True),
    "inverse_time": lambda lib: _s(lib).InverseTimeDecay(0.1, 3, 0.5),
    "inverse_time_staircase": lambda lib: _s(lib).InverseTimeDecay(0.2, 4, 2.0, staircase=True),
    "cosine": lambda lib: _s(lib).CosineDecay(0.1, 12),
    "cosine_alpha": lambda lib: _s(lib).CosineDecay(0.1, 9, alpha=0.2),
    "cosine_warmup": lambda lib: _s(lib).CosineDecay(0.0, 10, alpha=0.1, warmup_target=0.5, warmup_steps=5),
    "cosine_warmup_down": lambda lib: _s(lib).CosineDecay(0.3, 6, warmup_target=0.1, warmup_steps=3),
    "cosine_warmup_target_only": lambda lib: _s(lib).CosineDecay(0.05, 8, warmup_target=0.2),
    "cosine_restarts": lambda lib: _s(lib).CosineDecayRestarts(0.1, 4),
    "cosine_restarts_equal_periods": lambda lib: _s(lib).CosineDecayRestarts(0.1, 3, t_mul=1.0, m_mul=0.5,
                                                                            alpha=0.1),
    "cosine_restarts_options": lambda lib: _s(lib).CosineDecayRestarts(1.0, 2, t_mul=3.0, m_mul=0.8, alpha=0.05,
                                                                      name="sgdr"),
}
STEPS = range(0, 30)


def _values(lib, schedule, steps):
    return [schedule(step) for step in steps]


def _assert_values(actual, expected):
    for step, (got, want) in enumerate(zip(actual, expected)):
        assert got.dtype.name == want.dtype.name and tuple(got.shape) == tuple(want.shape) == ()
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=RTOL, atol=ATOL, err_msg=f"step {step}")


@pytest.mark.parametrize("case", list(SCHEDULES))
def test_values_over_steps(case):
    expected = _values(REAL, SCHEDULES[case](REAL), STEPS)
    _assert_values(_values(VFW, SCHEDULES[case](VFW), STEPS), expected)


@pytest.mark.parametrize("case", ["exponential_staircase", "piecewise", "polynomial_cycle", "cosine_warmup",
                                  "cosine_restarts"])
def test_values_at_int64_and_float_step_tensors(case):
    for dtype in ("int64", "int32", "float32"):
        expected = _values(REAL, SCHEDULES[case](REAL), [REAL.tf.constant(s, dtype) for s in STEPS])
        actual = _values(VFW, SCHEDULES[case](VFW), [VFW.tf.constant(s, dtype) for s in STEPS])
        _assert_values(actual, expected)


@pytest.mark.parametrize("case", ["exponential_staircase", "piecewise", "polynomial_cycle", "cosine_warmup",
                                  "cosine_restarts", "cosine_restarts_equal_periods"])
def test_values_in_tf_function_follow_the_step_variable(case):
    """Traced once, the schedule reads the step variable on every call (the branches are graph conds)."""
    expected = _values(REAL, SCHEDULES[case](REAL), STEPS)
    schedule = SCHEDULES[case](VFW)
    step = VFW.tf.Variable(0, dtype="int64")
    traced = VFW.tf.function(lambda: schedule(step))
    actual = []
    for s in STEPS:
        step.assign(s)
        actual.append(traced())
    _assert_values(actual, expected)
    assert traced.experimental_get_tracing_count() == 1


def test_float64_initial_learning_rate_keeps_its_dtype():
    for make in (lambda lib: _s(lib).ExponentialDecay(np.float64(0.1), 3, 0.5),
                 lambda lib: _s(lib).CosineDecay(np.float64(0.1), 5, warmup_target=0.3, warmup_steps=2)):
        _assert_values(_values(VFW, make(VFW), range(8)), _values(REAL, make(REAL), range(8)))


@pytest.mark.parametrize("case", list(SCHEDULES))
def test_config_and_serialization(case):
    real_schedule, schedule = SCHEDULES[case](REAL), SCHEDULES[case](VFW)
    assert schedule.get_config() == real_schedule.get_config()
    serialized = _s(VFW).serialize(schedule)
    assert serialized == _s(REAL).serialize(real_schedule)
    restored = _s(VFW).deserialize(serialized)
    assert type(restored) is type(schedule) and restored.get_config() == schedule.get_config()
    assert type(schedule).from_config(schedule.get_config()).get_config() == schedule.get_config()
    _assert_values(_values(VFW, restored, range(5)), _values(REAL, real_schedule, range(5)))


def test_deserialize_by_class_name_and_unknown_names():
    for lib in (REAL, VFW):
        restored = _s(lib).deserialize({"class_name": "InverseTimeDecay",
                                        "config": {"initial_learning_rate": 0.5, "decay_steps": 2, "decay_rate": 1.0}})
        assert type(restored).__name__ == "InverseTimeDecay" and restored.decay_steps == 2
        # Keras returns an unknown class name as is.
        assert _s(lib).deserialize({"class_name": "Foo", "config": {}}) == "Foo"


def _error(fn):
    with pytest.raises(Exception) as info:
        fn()
    return type(info.value), str(info.value)


@pytest.mark.parametrize("make", [
    lambda lib: _s(lib).ExponentialDecay(0.1, 0, 0.5),
    lambda lib: _s(lib).InverseTimeDecay(0.1, -2, 0.5),
    lambda lib: _s(lib).PolynomialDecay(0.1, 0),
    lambda lib: _s(lib).CosineDecay(0.1, 0),
    lambda lib: _s(lib).CosineDecayRestarts(0.1, 0),
    lambda lib: _s(lib).PiecewiseConstantDecay([1, 2], [0.1]),
    lambda lib: _s(lib).LearningRateSchedule()(3),
    lambda lib: _s(lib).LearningRateSchedule().get_config(),
])
def test_errors(make):
    assert _error(lambda: make(VFW)) == _error(lambda: make(REAL))


def _custom_schedule_class(lib):
    class HalvingSchedule(lib.keras.optimizers.schedules.LearningRateSchedule):
        def __init__(self, start):
            self.start = start

        def __call__(self, step):
            return self.start * lib.tf.pow(0.5, lib.tf.cast(step, "float32"))

        def get_config(self):
            return {"start": self.start}

    return HalvingSchedule


def test_custom_schedule_in_an_optimizer_and_its_serialization():
    results = []
    for lib in (REAL, VFW):
        cls = _custom_schedule_class(lib)
        optimizer = lib.keras.optimizers.SGD(cls(0.8), name="sgd_custom")
        variable = lib.keras.Variable(np.ones(3, "float32"), name="w")
        for _ in range(3):
            optimizer.apply([lib.tf.constant(np.ones(3, "float32"))], [variable])
        config = optimizer.get_config()
        restored = lib.keras.optimizers.SGD.from_config(optimizer.get_config(), custom_objects={"HalvingSchedule": cls})
        # The restored optimizer's learning rate is the (rebuilt) schedule at step 0.
        results.append((variable.numpy(), config, type(restored._learning_rate).__name__,
                        float(restored.learning_rate.numpy())))
    (expected_value, expected_config, *expected_rest), (value, config, *rest) = results
    np.testing.assert_array_equal(value, expected_value)
    assert config == expected_config
    assert config["learning_rate"]["config"] == {"start": 0.8}
    assert rest == expected_rest == ["HalvingSchedule", pytest.approx(0.8)]
