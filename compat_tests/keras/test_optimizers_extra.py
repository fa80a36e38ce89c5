"""keras.optimizers Muon, ScheduleFreeAdamW and LossScaleOptimizer against real Keras 3.15.1.

Updates: the same gradients applied for several steps (eagerly and in tf.function) to Keras
variables, comparing the variables and every optimizer variable (paths, dtypes, values).
Then ``fit`` histories and weights, configs and their round trip, and argument errors.
"""

import functools

import numpy as np
import pytest

from compat_tests.keras import training_harness as th
from compat_tests.keras.optimizer_harness import REAL, STEPS, VFW, assert_same_state, clear_session, train


def _optimizers(lib):
    return lib.keras.optimizers


CASES = {
    "muon": lambda lib: _optimizers(lib).Muon(0.01),
    "muon_options": lambda lib: _optimizers(lib).Muon(0.02, adam_beta_1=0.8, adam_beta_2=0.99, epsilon=1e-3,
                                                      momentum=0.9, nesterov=False, ns_steps=3, rms_rate=None,
                                                      adam_lr_ratio=0.1, weight_decay=0.1, adam_weight_decay=None),
    "muon_coefficients": lambda lib: _optimizers(lib).Muon(0.01, muon_a=2.0, muon_b=-1.5, muon_c=0.5, rms_rate=0.5,
                                                           weight_decay=None),
    "muon_exclude_layers": lambda lib: _optimizers(lib).Muon(0.01, exclude_layers=["ker"]),
    "muon_clipnorm_ema": lambda lib: _optimizers(lib).Muon(0.01, clipnorm=0.5, use_ema=True),
    "schedule_free": lambda lib: _optimizers(lib).ScheduleFreeAdamW(),
    "schedule_free_options": lambda lib: _optimizers(lib).ScheduleFreeAdamW(0.01, beta_1=0.8, beta_2=0.99,
                                                                            epsilon=1e-4, weight_decay=0.05),
    "schedule_free_warmup": lambda lib: _optimizers(lib).ScheduleFreeAdamW(0.05, warmup_steps=3),
    "schedule_free_accumulation": lambda lib: _optimizers(lib).ScheduleFreeAdamW(0.05, gradient_accumulation_steps=2),
    "loss_scale_sgd": lambda lib: _optimizers(lib).LossScaleOptimizer(_optimizers(lib).SGD(0.1, momentum=0.5)),
    "loss_scale_adam_growth": lambda lib: _optimizers(lib).LossScaleOptimizer(
        _optimizers(lib).Adam(0.01, loss_scale_factor=3.0), initial_scale=8.0, dynamic_growth_steps=3),
}


@functools.cache
def _reference(case, graph):
    # Real Keras in the same mode: built inside a tf.function, ScheduleFreeAdamW's momentums start at zero there.
    return train(REAL, CASES[case], graph=graph)


@pytest.mark.parametrize("mode", ["eager", "tf_function"])
@pytest.mark.parametrize("case", list(CASES))
def test_updates_match_keras(case, mode):
    clear_session(REAL)
    clear_session(VFW)
    expected = _reference(case, mode != "eager")
    actual = train(VFW, CASES[case], graph=mode != "eager")
    assert_same_state(expected, actual)
    assert int(actual[2].iterations.numpy()) == int(expected[2].iterations.numpy())


def _named_variables(names, shapes):
    """Variables named ``names`` with seeded values of ``shapes``, and seeded gradients (``STEPS`` of them)."""
    rng = np.random.default_rng(3)
    initial = [rng.normal(size=s).astype("float32") for s in shapes]
    grads = [[rng.normal(size=s).astype("float32") for s in shapes] for _ in range(STEPS)]

    def make(lib, _):
        return [lib.keras.Variable(value, name=name) for value, name in zip(initial, names)]

    return make, grads


@pytest.mark.parametrize("exclude_embeddings", [True, False])
def test_muon_tall_matrices_and_embeddings(exclude_embeddings):
    """A tall kernel (iterated transposed), a 3-D kernel (AdamW) and an "Embeddings" table."""
    make, grads = _named_variables(["kernel", "Embeddings", "conv_kernel"], [(5, 3), (4, 2), (2, 3, 2)])

    def optimizer(lib):
        return _optimizers(lib).Muon(0.01, exclude_embeddings=exclude_embeddings)

    for graph in (False, True):
        clear_session(REAL)
        clear_session(VFW)
        assert_same_state(train(REAL, optimizer, variables=make, grads=grads),
                          train(VFW, optimizer, variables=make, grads=grads, graph=graph))


def test_loss_scale_skips_non_finite_steps():
    """Steps with an inf or NaN gradient change only the scale; finite steps grow it every 2 steps."""
    make, grads = _named_variables(["kernel", "bias"], [(3, 4), (4,)])
    grads[1][0][0, 0] = np.inf
    grads[4][1][2] = np.nan

    def optimizer(lib):
        return _optimizers(lib).LossScaleOptimizer(_optimizers(lib).Adam(0.01), initial_scale=16.0,
                                                   dynamic_growth_steps=2)

    for graph in (False, True):
        clear_session(REAL)
        clear_session(VFW)
        expected = train(REAL, optimizer, variables=make, grads=grads)
        actual = train(VFW, optimizer, variables=make, grads=grads, graph=graph)
        assert_same_state(expected, actual)
        assert int(actual[2].iterations.numpy()) == int(expected[2].iterations.numpy()) == STEPS - 2


def test_loss_scale_scale_loss():
    for lib in (REAL, VFW):
        clear_session(lib)
    real = _optimizers(REAL).LossScaleOptimizer(_optimizers(REAL).SGD(), initial_scale=4.0)
    mine = _optimizers(VFW).LossScaleOptimizer(_optimizers(VFW).SGD(), initial_scale=4.0)
    for loss in (2.5, np.float32(3.0), np.array([1.0, 2.0], np.float32)):
        expected, actual = real.scale_loss(loss), mine.scale_loss(loss)
        np.testing.assert_array_equal(actual.numpy(), expected.numpy())
        assert actual.dtype.name == expected.dtype.name
    variables = [lib.keras.Variable(np.ones(2, np.float32)) for lib in (REAL, VFW)]
    real.apply([np.full(2, np.inf, np.float32)], [variables[0]])
    mine.apply([np.full(2, np.inf, np.float32)], [variables[1]])
    assert mine.scale_loss(3.0).numpy() == real.scale_loss(3.0).numpy() == 6.0
    mine.learning_rate = 0.5
    assert float(mine.inner_optimizer.learning_rate.numpy()) == 0.5
    assert mine.iterations is mine.inner_optimizer.iterations


@pytest.mark.parametrize("case", ["muon", "muon_options", "schedule_free_warmup", "loss_scale_adam_growth"])
def test_config_round_trip(case):
    clear_session(REAL)
    clear_session(VFW)
    real, mine = CASES[case](REAL), CASES[case](VFW)
    assert mine.get_config() == real.get_config()
    serialized = _optimizers(VFW).serialize(mine)
    assert serialized == _optimizers(REAL).serialize(real)
    restored = _optimizers(VFW).deserialize(serialized)
    assert type(restored) is type(mine)
    assert restored.get_config() == mine.get_config()
    if case != "loss_scale_adam_growth":  # (a LossScaleOptimizer needs its inner optimizer)
        assert type(_optimizers(VFW).get(type(mine).__name__.lower())) is type(mine)


@pytest.mark.parametrize("kwargs, message", [
    ({"dynamic": False}, "no longer supports `dynamic=False`"),
    ({"clipnorm": 1.0}, "does not support `clipnorm`"),
    ({"use_ema": True}, "does not support `use_ema`"),
    ({"foo": 1}, "does not support arguments: `foo`"),
])
def test_loss_scale_rejects_base_options(kwargs, message):
    for lib in (REAL, VFW):
        with pytest.raises(ValueError, match=message):
            _optimizers(lib).LossScaleOptimizer(_optimizers(lib).SGD(), **kwargs)
    # Base options at their defaults are accepted (old configs carried them).
    _optimizers(VFW).LossScaleOptimizer(_optimizers(VFW).SGD(), clipnorm=None, use_ema=False)


def test_muon_newton_schulz_needs_a_matrix():
    for lib in (REAL, VFW):
        with pytest.raises(ValueError, match="at least 2 dimensions"):
            _optimizers(lib).Muon().zeropower_via_newtonschulz5(lib.tf.ones([3]), 5)


def _mlp(lib):
    keras = lib.keras
    return keras.Sequential([keras.Input((6,)), keras.layers.Dense(8, activation="relu", name="hidden"),
                             keras.layers.Dense(1, name="output_dense")])


@pytest.mark.parametrize("optimizer, run_eagerly", [
    (lambda lib: _optimizers(lib).Muon(0.01, exclude_layers=["output_dense"]), False),
    (lambda lib: _optimizers(lib).LossScaleOptimizer(_optimizers(lib).Adam(0.01), initial_scale=64.0,
                                                     dynamic_growth_steps=3), False),
    # Keras on TF builds the optimizer inside the traced train step, where ScheduleFreeAdamW's momentum copies
    # are lost (they start at zero); vfw's fit builds it before tracing, as Keras' eager fit does.
    (lambda lib: _optimizers(lib).ScheduleFreeAdamW(0.01, warmup_steps=2), True),
])
def test_fit_matches_keras(optimizer, run_eagerly):
    x, y = th.data(32, 6)

    def train_model(lib, model):
        model.compile(optimizer=optimizer(lib), loss="mse", run_eagerly=run_eagerly)
        history = model.fit(x, y, batch_size=8, epochs=3, verbose=0, shuffle=False)
        return th.history(history), model.get_weights(), [v.numpy() for v in model.optimizer.variables]

    real, mine = th.twin(_mlp, train_model)
    th.assert_close(real, mine)


def test_mixed_float16_compile_wraps_the_optimizer_in_loss_scaling():
    x, y = th.data(32, 6)

    def train_model(lib, model):
        model.compile(optimizer=lib.keras.optimizers.SGD(0.05), loss="mse")
        wrapped = type(model.optimizer).__name__, model.optimizer.name, type(model.optimizer.inner_optimizer).__name__
        history = model.fit(x, y, batch_size=8, epochs=2, verbose=0, shuffle=False)
        return list(wrapped), th.history(history), float(model.optimizer.dynamic_scale.numpy())

    def mixed_mlp(lib):
        lib.keras.config.set_dtype_policy("mixed_float16")
        try:
            return _mlp(lib)
        finally:
            lib.keras.config.set_dtype_policy("float32")

    real, mine = th.twin(mixed_mlp, train_model)
    assert real[0] == mine[0] == ["LossScaleOptimizer", "loss_scale_optimizer", "SGD"]
    assert real[2] == mine[2]  # the dynamic scale: powers of two
    th.assert_close(real[1], mine[1], rtol=2e-3, atol=2e-3)  # float16 compute (as the mixed_float16 layer tests)
