"""Keras RandomHue, RandomSaturation, RandomColorDegeneration and RandomColorJitter against real Keras 3.15.1: values
for the same seed over two successive calls (the seed generators' draws, also those Keras makes in inference),
training and inference, float/uint8 batches, single images, channels_first, configs and argument errors."""

import os

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
real = pytest.importorskip("keras")
from vfw.tensorflow import keras  # noqa: E402

RNG = np.random.default_rng(1)
FLOATS = RNG.uniform(0, 255, (3, 6, 7, 3)).astype(np.float32)
UNIT = (RNG.integers(0, 5, (2, 5, 4, 3)) / 4).astype(np.float32)  # channel ties and grays
BYTES = RNG.integers(0, 256, (2, 5, 4, 3)).astype(np.uint8)
IMAGES = {"floats": FLOATS, "unit": UNIT, "bytes": BYTES, "single": FLOATS[0]}

CASES = [
    ("RandomHue", dict(factor=0.5, seed=1)),
    ("RandomHue", dict(factor=(0.2, 1.0), value_range=(0, 1), seed=2)),
    ("RandomHue", dict(factor=0.8, data_format="channels_first", seed=3)),
    ("RandomSaturation", dict(factor=0.7, seed=4)),
    ("RandomSaturation", dict(factor=(0.3, 0.9), value_range=(1, 0), seed=5)),
    ("RandomSaturation", dict(factor=0.5, data_format="channels_first", seed=6)),
    ("RandomColorDegeneration", dict(factor=0.6, seed=7)),
    ("RandomColorDegeneration", dict(factor=(0.1, 0.9), value_range=(0, 1), seed=8)),
    ("RandomColorDegeneration", dict(factor=1.0, data_format="channels_first", seed=9)),
    ("RandomColorJitter", dict(brightness_factor=0.2, contrast_factor=0.3, saturation_factor=0.4, hue_factor=0.3,
                               seed=10)),
    ("RandomColorJitter", dict(value_range=(0, 1), saturation_factor=(0.2, 0.8), hue_factor=0.5, seed=11)),
    ("RandomColorJitter", dict(contrast_factor=0.5, seed=12)),
    ("RandomColorJitter", dict()),
]
IDS = [f"{name}-{i}" for i, (name, _) in enumerate(CASES)]


def _assert_same(got, want):
    assert got.dtype.name == want.dtype.name and tuple(got.shape) == tuple(want.shape)
    np.testing.assert_allclose(np.asarray(got, np.float64), np.asarray(want, np.float64), rtol=1e-5, atol=1e-3)


def _outcome(layer, x, **kwargs):
    try:
        return layer(x, **kwargs), None
    except Exception as e:  # noqa: BLE001  (Keras refuses some inputs: the same kind of error is expected)
        return None, e


@pytest.mark.parametrize("name,kwargs", CASES, ids=IDS)
@pytest.mark.parametrize("images", sorted(IMAGES))
@pytest.mark.parametrize("training", [True, False])
def test_values_match_keras(name, kwargs, images, training):
    x = IMAGES[images]
    if kwargs.get("data_format") == "channels_first":
        x = np.moveaxis(x, -1, -3)
    ours, theirs = getattr(keras.layers, name)(**kwargs), getattr(real.layers, name)(**kwargs)
    for call in (dict(training=training), {}):  # the second call: the seed generators advanced alike
        got, error = _outcome(ours, x, **call)
        want, expected = _outcome(theirs, x, **call)
        if expected is not None:
            assert type(error) is type(expected), f"Keras raised {expected!r}, vfw {error!r}"
            return
        assert error is None, error
        _assert_same(got, want)


@pytest.mark.parametrize("name,kwargs", CASES, ids=IDS)
def test_config_matches_keras(name, kwargs):
    ours, theirs = getattr(keras.layers, name)(**kwargs), getattr(real.layers, name)(**kwargs)
    assert ours.get_config() == theirs.get_config()
    rebuilt = getattr(keras.layers, name).from_config(ours.get_config())
    assert rebuilt.get_config() == ours.get_config()


def test_in_sequential_model_predict_is_identity_where_keras_is():
    def build(lib):
        return lib.Sequential([lib.Input((6, 7, 3)), lib.layers.RandomHue(0.5, seed=1),
                               lib.layers.RandomColorJitter(saturation_factor=0.3, seed=2),
                               lib.layers.RandomColorDegeneration(0.4, seed=3)])
    _assert_same(build(keras).predict(FLOATS, verbose=0), build(real).predict(FLOATS, verbose=0))


ERRORS = [
    ("RandomHue", dict(factor=1.5)),
    ("RandomHue", dict(factor=(0.1, 0.2, 0.3))),
    ("RandomSaturation", dict(factor=-1.5)),
    ("RandomSaturation", dict(factor=0.5, value_range=3)),
    ("RandomColorDegeneration", dict(factor="x")),
    ("RandomColorDegeneration", dict(factor=0.5, value_range=(1, 2, 3))),
    ("RandomColorJitter", dict(hue_factor=2.0)),
]


@pytest.mark.parametrize("name,kwargs", ERRORS)
def test_argument_errors(name, kwargs):
    with pytest.raises(ValueError) as want:
        getattr(real.layers, name)(**kwargs)
    with pytest.raises(ValueError) as got:
        getattr(keras.layers, name)(**kwargs)
    assert str(got.value) == str(want.value)
