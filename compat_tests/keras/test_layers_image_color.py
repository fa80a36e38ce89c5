"""Keras color augmentation layers (Solarization, RandomInvert, RandomGrayscale, AutoContrast, RandomPosterization,
Equalization, RandomSharpness) against real Keras 3.15.1: values for the same seed over two successive calls
(the seed generator's draws, also those Keras makes in inference), training and inference, float/uint8 batches and
single images, dtypes, configs, argument errors."""

import os

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
real = pytest.importorskip("keras")
from vfw.tensorflow import keras  # noqa: E402

RNG = np.random.default_rng(0)
FLOATS = RNG.uniform(0, 255, (3, 6, 7, 3)).astype(np.float32)
BYTES = RNG.integers(0, 256, (2, 5, 4, 3)).astype(np.uint8)
FLAT = np.full((2, 4, 4, 3), 7.0, np.float32)
IMAGES = {"floats": FLOATS, "bytes": BYTES, "single": FLOATS[0], "flat": FLAT}

CASES = [
    ("Solarization", dict(addition_factor=0.3, threshold_factor=0.6, seed=1)),
    ("Solarization", dict(addition_factor=(0.1, 0.2), threshold_factor=(0.4, 0.9), value_range=(255, 0), seed=2)),
    ("Solarization", dict(threshold_factor=0.5, value_range=(0, 1), seed=3)),
    ("RandomInvert", dict(factor=0.5, seed=4)),
    ("RandomInvert", dict(seed=4, value_range=(0, 300))),
    ("RandomGrayscale", dict(factor=0.5, seed=5)),
    ("RandomGrayscale", dict(factor=1.0, seed=5)),
    ("AutoContrast", dict()),
    ("AutoContrast", dict(value_range=(0, 300))),
    ("RandomPosterization", dict(factor=(2, 6), seed=6)),
    ("RandomPosterization", dict(factor=3, seed=6, value_range=(0, 300))),
    ("Equalization", dict()),
    ("Equalization", dict(bins=32, value_range=(0, 300))),
    ("Equalization", dict(data_format="channels_first")),
    ("RandomSharpness", dict(factor=0.7, seed=8)),
    ("RandomSharpness", dict(factor=(0.1, 0.9), value_range=(0, 200), seed=8)),
    ("RandomSharpness", dict(factor=0.5, data_format="channels_first", seed=9)),
]
IDS = [f"{name}-{i}" for i, (name, _) in enumerate(CASES)]


def _assert_same(got, want):
    assert got.dtype.name == want.dtype.name and tuple(got.shape) == tuple(want.shape)
    np.testing.assert_allclose(np.asarray(got, np.float64), np.asarray(want, np.float64), rtol=1e-5, atol=1e-3)


@pytest.mark.parametrize("name,kwargs", CASES, ids=IDS)
@pytest.mark.parametrize("images", sorted(IMAGES))
@pytest.mark.parametrize("training", [True, False])
def test_values_match_keras(name, kwargs, images, training):
    x = IMAGES[images]
    ours, theirs = getattr(keras.layers, name)(**kwargs), getattr(real.layers, name)(**kwargs)
    _assert_same(ours(x, training=training), theirs(x, training=training))
    _assert_same(ours(x), theirs(x))  # the second call: the seed generators advanced alike


@pytest.mark.parametrize("name,kwargs", CASES, ids=IDS)
def test_config_matches_keras(name, kwargs):
    ours, theirs = getattr(keras.layers, name)(**kwargs), getattr(real.layers, name)(**kwargs)
    assert ours.get_config() == theirs.get_config()
    rebuilt = getattr(keras.layers, name).from_config(ours.get_config())
    assert rebuilt.get_config() == ours.get_config()


def test_in_sequential_model_predict_is_identity_where_keras_is():
    def build(lib):
        return lib.Sequential([lib.Input((6, 7, 3)), lib.layers.Solarization(0.5, 0.5, seed=1),
                               lib.layers.RandomSharpness(0.5, seed=2), lib.layers.AutoContrast()])
    _assert_same(build(keras).predict(FLOATS, verbose=0), build(real).predict(FLOATS, verbose=0))


ERRORS = [
    ("Solarization", dict(addition_factor=1.5)),
    ("Solarization", dict(threshold_factor=(0.1, 0.2, 0.3))),
    ("Solarization", dict(threshold_factor="x")),
    ("Solarization", dict(value_range=5)),
    ("RandomInvert", dict(factor=2.0)),
    ("RandomGrayscale", dict(factor=-0.1)),
    ("AutoContrast", dict(value_range=(0, 1, 2))),
    ("RandomPosterization", dict(factor=9)),
    ("RandomPosterization", dict(factor=(9, 10))),
    ("RandomSharpness", dict(factor=1.5)),
]


@pytest.mark.parametrize("name,kwargs", ERRORS)
def test_argument_errors(name, kwargs):
    with pytest.raises(ValueError) as want:
        getattr(real.layers, name)(**kwargs)
    with pytest.raises(ValueError) as got:
        getattr(keras.layers, name)(**kwargs)
    assert str(got.value) == str(want.value)


@pytest.mark.parametrize("name,kwargs", [("Solarization", dict(seed=1)), ("RandomGrayscale", dict(seed=1))])
def test_rank_errors(name, kwargs):
    for lib in (real, keras):
        with pytest.raises(ValueError):
            getattr(lib.layers, name)(**kwargs)(np.zeros((4, 4), np.float32))


def test_grayscale_channel_error():
    for lib in (real, keras):
        with pytest.raises(ValueError, match="channel"):
            lib.layers.RandomGrayscale(factor=1.0)(np.zeros((1, 4, 4, 2), np.float32))
