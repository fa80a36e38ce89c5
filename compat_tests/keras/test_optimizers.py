"""keras.optimizers updates against real Keras 3.15.1: every optimizer and option, eagerly and in tf.function.

Each case builds the optimizer from the same code for both libraries, applies the same
gradients for several steps to Keras variables of shapes (3, 4) and (4,), and compares the
variables and every optimizer variable (paths, dtypes, values) with real Keras' eager result.
"""

import functools

import numpy as np
import pytest

from compat_tests.keras.optimizer_harness import (
    ATOL,
    REAL,
    RTOL,
    VFW,
    assert_same_state,
    clear_session,
    make_variables,
    train,
)


def _schedules(lib):
    return lib.keras.optimizers.schedules


CASES = {
    "sgd": lambda lib: lib.keras.optimizers.SGD(),
    "sgd_momentum": lambda lib: lib.keras.optimizers.SGD(0.1, momentum=0.9),
    "sgd_nesterov": lambda lib: lib.keras.optimizers.SGD(0.1, momentum=0.9, nesterov=True),
    "adam": lambda lib: lib.keras.optimizers.Adam(),
    "adam_options": lambda lib: lib.keras.optimizers.Adam(0.01, beta_1=0.8, beta_2=0.99, epsilon=1e-3),
    "adam_amsgrad": lambda lib: lib.keras.optimizers.Adam(0.01, amsgrad=True),
    "adamw": lambda lib: lib.keras.optimizers.AdamW(0.01),
    "adamw_amsgrad": lambda lib: lib.keras.optimizers.AdamW(0.01, weight_decay=0.1, amsgrad=True),
    "adamax": lambda lib: lib.keras.optimizers.Adamax(),
    "adamax_options": lambda lib: lib.keras.optimizers.Adamax(0.02, beta_1=0.8, beta_2=0.9, epsilon=1e-3),
    "nadam": lambda lib: lib.keras.optimizers.Nadam(),
    "nadam_options": lambda lib: lib.keras.optimizers.Nadam(0.01, beta_1=0.8, beta_2=0.99),
    "rmsprop": lambda lib: lib.keras.optimizers.RMSprop(),
    "rmsprop_momentum": lambda lib: lib.keras.optimizers.RMSprop(0.01, rho=0.8, momentum=0.5),
    "rmsprop_centered": lambda lib: lib.keras.optimizers.RMSprop(0.01, centered=True, epsilon=1e-4),
    "rmsprop_centered_momentum": lambda lib: lib.keras.optimizers.RMSprop(0.01, momentum=0.3, centered=True),
    "adagrad": lambda lib: lib.keras.optimizers.Adagrad(),
    "adagrad_options": lambda lib: lib.keras.optimizers.Adagrad(0.1, initial_accumulator_value=0.5, epsilon=1e-3),
    "adadelta": lambda lib: lib.keras.optimizers.Adadelta(1.0),
    "adadelta_options": lambda lib: lib.keras.optimizers.Adadelta(0.5, rho=0.8, epsilon=1e-4),
    "ftrl": lambda lib: lib.keras.optimizers.Ftrl(0.1),
    "ftrl_options": lambda lib: lib.keras.optimizers.Ftrl(
        0.1, learning_rate_power=-0.3, initial_accumulator_value=0.2, l1_regularization_strength=0.01,
        l2_regularization_strength=0.02, l2_shrinkage_regularization_strength=0.03, beta=0.5),
    "lion": lambda lib: lib.keras.optimizers.Lion(0.01),
    "lion_options": lambda lib: lib.keras.optimizers.Lion(0.01, beta_1=0.5, beta_2=0.9),
    "lamb": lambda lib: lib.keras.optimizers.Lamb(0.01),
    "lamb_options": lambda lib: lib.keras.optimizers.Lamb(0.01, beta_1=0.8, epsilon=1e-3),
    "adafactor": lambda lib: lib.keras.optimizers.Adafactor(),
    "adafactor_absolute_step": lambda lib: lib.keras.optimizers.Adafactor(0.01, relative_step=False),
    "adafactor_options": lambda lib: lib.keras.optimizers.Adafactor(0.5, beta_2_decay=-0.5, epsilon_2=0.1,
                                                                    clip_threshold=0.5),
    # The base optimizer's options.
    "sgd_weight_decay": lambda lib: lib.keras.optimizers.SGD(0.1, momentum=0.5, weight_decay=0.05),
    "adam_weight_decay": lambda lib: lib.keras.optimizers.Adam(0.01, weight_decay=0.2),
    "rmsprop_weight_decay": lambda lib: lib.keras.optimizers.RMSprop(0.01, weight_decay=0.1),
    "adam_clipnorm": lambda lib: lib.keras.optimizers.Adam(0.01, clipnorm=0.5),
    "sgd_clipnorm": lambda lib: lib.keras.optimizers.SGD(0.1, clipnorm=1.5),
    "adam_global_clipnorm": lambda lib: lib.keras.optimizers.Adam(0.01, global_clipnorm=0.8),
    "sgd_global_clipnorm": lambda lib: lib.keras.optimizers.SGD(0.1, global_clipnorm=100.0),
    "sgd_clipvalue": lambda lib: lib.keras.optimizers.SGD(0.1, clipvalue=0.3),
    "sgd_ema": lambda lib: lib.keras.optimizers.SGD(0.1, momentum=0.5, use_ema=True),
    "adam_ema_overwrite": lambda lib: lib.keras.optimizers.Adam(0.01, use_ema=True, ema_momentum=0.5,
                                                                ema_overwrite_frequency=3),
    "adam_loss_scale": lambda lib: lib.keras.optimizers.Adam(0.01, loss_scale_factor=4.0),
    "sgd_accumulation": lambda lib: lib.keras.optimizers.SGD(0.1, momentum=0.5, gradient_accumulation_steps=2),
    "adam_accumulation_ema": lambda lib: lib.keras.optimizers.Adam(0.01, gradient_accumulation_steps=3,
                                                                   use_ema=True, ema_overwrite_frequency=2),
    "nadam_accumulation_decay": lambda lib: lib.keras.optimizers.Nadam(0.01, gradient_accumulation_steps=2,
                                                                       weight_decay=0.1, clipvalue=0.5),
    "adamw_everything": lambda lib: lib.keras.optimizers.AdamW(
        0.01, weight_decay=0.05, global_clipnorm=1.0, use_ema=True, ema_momentum=0.9, loss_scale_factor=2.0),
    # Learning rates other than a float.
    "adam_exponential_decay": lambda lib: lib.keras.optimizers.Adam(
        _schedules(lib).ExponentialDecay(0.01, 2, 0.5, staircase=True)),
    "sgd_cosine_warmup": lambda lib: lib.keras.optimizers.SGD(
        _schedules(lib).CosineDecay(0.01, 4, alpha=0.1, warmup_target=0.1, warmup_steps=2), momentum=0.5),
    "rmsprop_piecewise": lambda lib: lib.keras.optimizers.RMSprop(
        _schedules(lib).PiecewiseConstantDecay([2, 5], [0.01, 0.005, 0.001])),
    "adamw_polynomial": lambda lib: lib.keras.optimizers.AdamW(
        _schedules(lib).PolynomialDecay(0.01, 5, end_learning_rate=0.001, power=2.0)),
    "sgd_schedule_accumulation": lambda lib: lib.keras.optimizers.SGD(
        _schedules(lib).InverseTimeDecay(0.1, 1, 0.5), gradient_accumulation_steps=2, weight_decay=0.1),
    "adafactor_schedule": lambda lib: lib.keras.optimizers.Adafactor(
        _schedules(lib).CosineDecayRestarts(0.5, 2, t_mul=2.0, m_mul=0.5)),
    "sgd_callable_learning_rate": lambda lib: lib.keras.optimizers.SGD(lambda: 0.05, momentum=0.5),
}

# FTRL's accumulator update subtracts two powers of nearly equal accumulators: TF's vectorized Pow is
# 1 ulp off the correctly rounded pow on some elements (vfw uses numpy's), and the cancellation scales
# that to ~1e-5 relative in ``linear`` (with a correctly rounded pow in Keras both agree bit for bit).
CANCELLING = {"ftrl": 2e-5, "ftrl_options": 2e-5}


@functools.cache
def _reference(case):
    return train(REAL, CASES[case])


@pytest.mark.parametrize("mode", ["eager", "tf_function", "tf_function_prebuilt"])
@pytest.mark.parametrize("case", list(CASES))
def test_updates_match_keras(case, mode):
    clear_session(REAL)
    clear_session(VFW)
    expected = _reference(case)
    actual = train(VFW, CASES[case], graph=mode != "eager", build=mode == "tf_function_prebuilt")
    assert_same_state(expected, actual, rtol=CANCELLING.get(case, RTOL))
    assert int(actual[2].iterations.numpy()) == int(expected[2].iterations.numpy())


def test_float64_variables():
    expected = train(REAL, CASES["adam_amsgrad"], dtype="float64")
    actual = train(VFW, CASES["adam_amsgrad"], dtype="float64")
    assert_same_state(expected, actual)
    assert {d for _, d, _ in actual[1]} == {"int64", "float32", "float64"}


def test_slot_names_follow_variable_paths():
    """Slots of variables created in a name scope, and of tf.Variables (named after their TF name)."""
    def scoped(lib, initial):
        with lib.keras.name_scope("dense"):
            return make_variables(lib, initial)

    def tf_variables(lib, initial):
        return [lib.tf.Variable(initial[0], name="dense/kernel"), lib.tf.Variable(initial[1], name="bias")]

    for variables in (scoped, tf_variables):
        clear_session(REAL)
        clear_session(VFW)
        make = CASES["rmsprop_centered_momentum"]
        expected = train(REAL, make, variables=variables, steps=2)
        actual = train(VFW, make, variables=variables, steps=2)
        assert_same_state(expected, actual)
        assert [v.name for v in actual[2].variables] == [v.name for v in expected[2].variables]


@pytest.mark.parametrize("case", ["nadam", "adafactor", "sgd_accumulation", "adam_ema_overwrite"])
def test_variables_of_optimizers_with_extra_state(case):
    clear_session(REAL)
    clear_session(VFW)
    expected = train(REAL, CASES[case], steps=1)
    actual = train(VFW, CASES[case], steps=1)
    assert [(v.name, v.path, str(v.dtype), tuple(v.shape)) for v in actual[2].variables] == \
        [(v.name, v.path, str(v.dtype), tuple(v.shape)) for v in expected[2].variables]


def test_missing_gradients_are_skipped_with_keras_warning():
    grads = [[np.full((3, 4), 0.5, "float32"), None], [None, np.full(4, -0.25, "float32")]]
    results = []
    for lib in (REAL, VFW):
        clear_session(lib)
        with pytest.warns(UserWarning) as record:
            variables = make_variables(lib, [np.ones((3, 4), "float32"), np.ones(4, "float32")])
            optimizer = lib.keras.optimizers.Adam(0.1)
            optimizer.apply([lib.tf.constant(grads[0][0]), None], variables)
        results.append(([str(w.message) for w in record if "Gradients do not exist" in str(w.message)],
                        [v.numpy() for v in variables], [v.numpy() for v in optimizer.variables]))
    (expected_messages, expected_values, expected_slots), (messages, values, slots) = results
    assert messages == expected_messages == ["Gradients do not exist for variables ['bias'] when minimizing the "
                                             "loss. If using `model.compile()`, did you forget to provide a `loss` "
                                             "argument?"]
    for got, want in zip(values + slots, expected_values + expected_slots):
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("how", ["var_names", "var_list"])
def test_exclude_from_weight_decay(how):
    def make(lib):
        return lib.keras.optimizers.AdamW(0.1, weight_decay=0.5)

    results = []
    for lib in (REAL, VFW):
        clear_session(lib)
        variables = make_variables(lib, [np.ones((3, 4), "float32"), np.ones(4, "float32")])
        optimizer = make(lib)
        if how == "var_names":
            optimizer.exclude_from_weight_decay(var_names=["bias"])
        else:
            optimizer.exclude_from_weight_decay(var_list=[variables[0]])
        for _ in range(3):
            optimizer.apply([lib.tf.constant(np.full(s, 0.1, "float32")) for s in ((3, 4), (4,))], variables)
        results.append([v.numpy() for v in variables])
    for got, want in zip(*reversed(results)):
        np.testing.assert_array_equal(got, want)


def _train_with(lib, configure, grads_per_step, make, after, steps=4):
    clear_session(lib)
    variables = make_variables(lib, [np.linspace(-1, 1, 12, dtype="float32").reshape(3, 4),
                                     np.linspace(2, -2, 4, dtype="float32")])
    if configure:
        configure(lib, variables)
    optimizer = (make or (lambda lib: lib.keras.optimizers.SGD(0.3, momentum=0.5)))(lib)
    for _ in range(steps):
        optimizer.apply([lib.tf.constant(g) for g in grads_per_step], variables)
    if after:
        after(lib, optimizer, variables)
    return [v.numpy() for v in variables], [v.numpy() for v in optimizer.variables]


def _assert_both_agree(configure, grads, make=None, after=None):
    """The same variables and optimizer state after 4 steps of ``grads`` in both libraries."""
    expected = _train_with(REAL, configure, grads, make, after)
    actual = _train_with(VFW, configure, grads, make, after)
    for got, want in zip(actual[0] + actual[1], expected[0] + expected[1]):
        np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL)


def test_constraints_apply_after_each_update():
    def configure(lib, variables):
        variables[0].constraint = lambda x: lib.tf.clip_by_value(x, -0.5, 0.7)
        variables[1].constraint = lambda x: x * 0.5

    _assert_both_agree(configure, [np.full((3, 4), -0.4, "float32"), np.full(4, 0.2, "float32")])


@pytest.mark.parametrize("accumulation", [None, 2])
def test_variables_overwritten_with_their_gradient(accumulation):
    def configure(lib, variables):
        variables[1].overwrite_with_gradient = True

    grads = [np.full((3, 4), -0.4, "float32"), np.array([0.5, -1.0, 3.0, 0.25], "float32")]
    _assert_both_agree(configure, grads, make=lambda lib: lib.keras.optimizers.Adam(
        0.1, gradient_accumulation_steps=accumulation))


def test_finalize_variable_values_writes_the_moving_average():
    def finalize(lib, optimizer, variables):
        optimizer.finalize_variable_values(variables)

    grads = [np.full((3, 4), -0.4, "float32"), np.array([0.5, -1.0, 3.0, 0.25], "float32")]
    _assert_both_agree(None, grads, make=lambda lib: lib.keras.optimizers.SGD(0.3, use_ema=True, ema_momentum=0.6),
                       after=finalize)


def test_learning_rate_follows_schedule_and_iterations():
    for case in ("adam_exponential_decay", "sgd_cosine_warmup", "rmsprop_piecewise"):
        expected = _reference(case)[2]
        actual = train(VFW, CASES[case])[2]
        assert actual.learning_rate.dtype.name == expected.learning_rate.dtype.name
        np.testing.assert_array_equal(actual.learning_rate.numpy(), expected.learning_rate.numpy())
        assert actual.iterations.numpy() == expected.iterations.numpy()


def test_traced_step_reads_learning_rate_set_between_calls():
    """A float learning rate is a variable: a traced update sees the value set after tracing."""
    results = []
    for lib, graph in ((REAL, False), (VFW, True)):
        clear_session(lib)
        variables = make_variables(lib, [np.ones((3, 4), "float32"), np.ones(4, "float32")])
        optimizer = lib.keras.optimizers.SGD(0.1)

        def step(grads, optimizer=optimizer, variables=variables):
            optimizer.apply(grads, variables)

        step = lib.tf.function(step) if graph else step
        grads = [lib.tf.constant(np.full(s, 1.0, "float32")) for s in ((3, 4), (4,))]
        step(grads)
        optimizer.learning_rate = 0.5
        step(grads)
        results.append([v.numpy() for v in variables])
        if graph:
            assert step.experimental_get_tracing_count() == 1
    for got, want in zip(results[1], results[0]):
        np.testing.assert_array_equal(got, want)
