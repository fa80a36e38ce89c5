"""keras.random against real Keras 3.15.1: the same streams for int seeds, SeedGenerators and the
global generator, dtypes and errors."""

import numpy as np
import pytest

from compat_tests.keras.building_blocks_harness import data, same

EXACT = {"rtol": 0, "atol": 0}
# Float32 normal draws: a unit or two in the last place off for about 1% of values (see _philox.py).
NORMAL_DRAWS = {"rtol": 3e-7, "atol": 1e-7}

DRAWS = [
    ("uniform", lambda r, seed: r.uniform((3, 4), minval=-2.0, maxval=5.0, seed=seed), EXACT),
    ("uniform64", lambda r, seed: r.uniform((5,), dtype="float64", seed=seed), EXACT),
    ("uniform16", lambda r, seed: r.uniform((5,), dtype="float16", seed=seed), EXACT),
    ("normal", lambda r, seed: r.normal((4, 3), mean=1.0, stddev=2.0, seed=seed), NORMAL_DRAWS),
    ("normal64", lambda r, seed: r.normal((7,), dtype="float64", seed=seed), {"rtol": 1e-15, "atol": 1e-15}),
    ("truncated_normal", lambda r, seed: r.truncated_normal((6, 2), stddev=0.5, seed=seed), NORMAL_DRAWS),
    ("randint", lambda r, seed: r.randint((4, 4), 0, 10, seed=seed), EXACT),
    ("randint64", lambda r, seed: r.randint((5,), -3, 3, dtype="int64", seed=seed), EXACT),
    ("randint8", lambda r, seed: r.randint((5,), -3, 3, dtype="int8", seed=seed), EXACT),
    ("categorical", lambda r, seed: r.categorical(np.log([[0.1, 0.6, 0.3], [0.5, 0.25, 0.25]]), 6, seed=seed),
     EXACT),
    ("dropout", lambda r, seed: r.dropout(np.ones((4, 5), "float32"), 0.4, seed=seed), EXACT),
    ("dropout_noise_shape", lambda r, seed: r.dropout(np.ones((3, 4), "float32"), 0.5, noise_shape=(None, 1),
                                                      seed=seed), EXACT),
    ("shuffle", lambda r, seed: r.shuffle(np.arange(10), seed=seed), EXACT),
    ("shuffle_axis", lambda r, seed: r.shuffle(np.arange(12).reshape(3, 4), axis=1, seed=seed), EXACT),
    ("gamma", lambda r, seed: r.gamma((3, 2), alpha=2.5, seed=seed), {"rtol": 1e-6, "atol": 1e-6}),
    ("beta", lambda r, seed: r.beta((4,), alpha=2.0, beta=3.0, seed=seed), {"rtol": 1e-6, "atol": 1e-6}),
    ("binomial", lambda r, seed: r.binomial((5,), counts=10.0, probabilities=0.3, seed=seed), EXACT),
]


@pytest.mark.parametrize("name,draw,tolerances", DRAWS, ids=[d[0] for d in DRAWS])
def test_int_seed(name, draw, tolerances):
    same(lambda lib: [draw(lib.keras.random, 1234), draw(lib.keras.random, 1234), draw(lib.keras.random, 7)],
         **tolerances)


@pytest.mark.parametrize("name,draw,tolerances", DRAWS, ids=[d[0] for d in DRAWS])
def test_seed_generator(name, draw, tolerances):
    def fn(lib):
        generator = lib.keras.random.SeedGenerator(99)
        return [draw(lib.keras.random, generator) for _ in range(3)] + [generator.state.numpy()]

    same(fn, **tolerances)


@pytest.mark.parametrize("name,draw,tolerances", DRAWS[:8], ids=[d[0] for d in DRAWS[:8]])
def test_global_generator_after_set_random_seed(name, draw, tolerances):
    def fn(lib):
        lib.keras.utils.set_random_seed(2024)
        return [draw(lib.keras.random, None) for _ in range(3)]

    same(fn, **tolerances)


def test_set_random_seed_restarts_the_global_stream():
    def fn(lib):
        lib.keras.utils.set_random_seed(5)
        first = lib.keras.random.uniform((3,))
        lib.keras.random.uniform((3,))
        lib.keras.utils.set_random_seed(5)
        return first, lib.keras.random.uniform((3,))

    same(fn, **EXACT)


def test_seed_generator_without_seed_follows_python_random():
    def fn(lib):
        lib.keras.utils.set_random_seed(11)
        generator = lib.keras.random.SeedGenerator()
        return generator.state.numpy(), lib.keras.random.uniform((2,), seed=generator), generator.get_config()

    same(fn, **EXACT)


def test_seed_generator_names_and_config():
    def fn(lib):
        a = lib.keras.random.SeedGenerator(3)
        b = lib.keras.random.SeedGenerator(4, name="mine")
        c = lib.keras.random.SeedGenerator.from_config(a.get_config())
        return (a.name, a.get_config(), b.get_config(), c.name, a.state.path, b.state.path, a.state.dtype,
                a.state.trainable, lib.keras.random.SeedGenerator().get_config()["seed"])

    same(fn)


@pytest.mark.parametrize("make", [
    lambda k: k.random.SeedGenerator(seed=1.5),
    lambda k: k.random.SeedGenerator(seed=1, foo=2),
    lambda k: k.random.uniform((2,), seed="1"),
    lambda k: k.random.uniform((2,), dtype="int32"),
    lambda k: k.random.randint((2,), 0, 3, dtype="float32"),
    lambda k: k.random.categorical(np.zeros(3, "float32"), 2),
    lambda k: k.utils.set_random_seed(1.0),
])
def test_errors(make):
    same(lambda lib: make(lib.keras))


def test_dropout_extremes():
    x = data(3, 4)
    same(lambda lib: (lib.keras.random.dropout(x, 0.0, seed=1), lib.keras.random.dropout(x, 1.0, seed=1)), **EXACT)


def test_default_dtype_is_floatx():
    def fn(lib):
        lib.keras.config.set_floatx("float64")
        try:
            return lib.keras.random.uniform((2,), seed=1), lib.keras.random.normal((2,), seed=1).dtype.name
        finally:
            lib.keras.config.set_floatx("float32")

    same(fn, **EXACT)


def test_seed_generator_in_tf_function():
    def fn(lib):
        generator = lib.keras.random.SeedGenerator(8)
        draw = lib.tf.function(lambda: lib.keras.random.uniform((3,), seed=generator))
        return draw(), draw(), generator.state.numpy()

    same(fn, **EXACT)


def test_public_names():
    import keras
    from vfw.tensorflow import keras as ours
    assert {n for n in dir(keras.random) if not n.startswith("_")} <= set(dir(ours.random))
