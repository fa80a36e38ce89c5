"""Keras MixUp, CutMix and RandomErasing against real Keras 3.15.1: images (and labels, given as a dict) for the same
seed over two successive calls, training and inference, float/uint8 batches, single images, channels_first, configs
and argument errors."""

import os

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
real = pytest.importorskip("keras")
from vfw.tensorflow import keras  # noqa: E402

RNG = np.random.default_rng(2)
FLOATS = RNG.uniform(0, 255, (4, 9, 8, 3)).astype(np.float32)
BYTES = RNG.integers(0, 256, (3, 6, 7, 3)).astype(np.uint8)
IMAGES = {"floats": FLOATS, "bytes": BYTES, "single": FLOATS[0]}
LABELS = np.eye(4, dtype=np.float32)[[0, 2, 1, 3]]

CASES = [
    ("MixUp", dict(seed=1)),
    ("MixUp", dict(alpha=0.7, seed=2)),
    ("MixUp", dict(alpha=0.4, data_format="channels_first", seed=3)),
    ("CutMix", dict(seed=4)),
    ("CutMix", dict(factor=(0.3, 0.6), seed=5)),
    ("CutMix", dict(factor=0.8, data_format="channels_first", seed=6)),
    ("RandomErasing", dict(seed=7)),
    ("RandomErasing", dict(factor=0.6, scale=(0.1, 0.5), fill_value=17.0, seed=8)),
    ("RandomErasing", dict(scale=0.4, fill_value=(10, 300, -5), value_range=(0, 200), seed=9)),
    ("RandomErasing", dict(fill_value=3, value_range=(0, 1), data_format="channels_first", seed=10)),
]
IDS = [f"{name}-{i}" for i, (name, _) in enumerate(CASES)]


def _assert_same(got, want):
    assert got.dtype.name == want.dtype.name and tuple(got.shape) == tuple(want.shape)
    np.testing.assert_allclose(np.asarray(got, np.float64), np.asarray(want, np.float64), rtol=1e-5, atol=1e-3)


def _layers(name, kwargs):
    return getattr(keras.layers, name)(**kwargs), getattr(real.layers, name)(**kwargs)


@pytest.mark.parametrize("name,kwargs", CASES, ids=IDS)
@pytest.mark.parametrize("images", sorted(IMAGES))
@pytest.mark.parametrize("training", [True, False])
def test_images_match_keras(name, kwargs, images, training):
    x = IMAGES[images]
    if kwargs.get("data_format") == "channels_first":
        x = np.moveaxis(x, -1, -3)
    ours, theirs = _layers(name, kwargs)
    _assert_same(ours(x, training=training), theirs(x, training=training))
    _assert_same(ours(x), theirs(x))  # the second call: the seed generators advanced alike


@pytest.mark.parametrize("name,kwargs", [c for c in CASES if c[0] != "RandomErasing"],
                         ids=[i for i, c in zip(IDS, CASES) if c[0] != "RandomErasing"])
def test_labels_mixed_like_keras(name, kwargs):
    x = FLOATS if kwargs.get("data_format") != "channels_first" else np.moveaxis(FLOATS, -1, -3)
    ours, theirs = _layers(name, kwargs)
    for _ in range(2):
        got = ours({"images": x, "labels": LABELS})
        want = theirs({"images": x, "labels": LABELS})
        assert sorted(got) == sorted(want)
        for key in want:
            _assert_same(got[key], want[key])
    got = ours({"images": x[0], "labels": LABELS[0]})
    want = theirs({"images": x[0], "labels": LABELS[0]})
    _assert_same(got["labels"], want["labels"])
    _assert_same(got["images"], want["images"])


@pytest.mark.parametrize("name,kwargs", CASES, ids=IDS)
def test_config_matches_keras(name, kwargs):
    ours, theirs = _layers(name, kwargs)
    assert ours.get_config() == theirs.get_config()
    rebuilt = getattr(keras.layers, name).from_config(ours.get_config())
    assert rebuilt.get_config() == ours.get_config()


def test_in_sequential_model_predict_is_identity_where_keras_is():
    def build(lib):
        return lib.Sequential([lib.Input((9, 8, 3)), lib.layers.RandomErasing(seed=1), lib.layers.CutMix(seed=2),
                               lib.layers.MixUp(seed=3)])
    _assert_same(build(keras).predict(FLOATS, verbose=0), build(real).predict(FLOATS, verbose=0))


ERRORS = [
    ("CutMix", dict(factor=1.5)),
    ("CutMix", dict(factor=(0.1, 0.2, 0.3))),
    ("RandomErasing", dict(factor=-0.5)),
    ("RandomErasing", dict(scale=(0.1, 2.0, 3.0))),
    ("RandomErasing", dict(scale="x")),
]


@pytest.mark.parametrize("name,kwargs", ERRORS)
def test_argument_errors(name, kwargs):
    with pytest.raises(ValueError) as want:
        getattr(real.layers, name)(**kwargs)
    with pytest.raises(ValueError) as got:
        getattr(keras.layers, name)(**kwargs)
    assert str(got.value) == str(want.value)


def test_bad_fill_value_raises_at_call_like_keras():
    for lib in (real, keras):
        with pytest.raises(ValueError, match="fill_value"):
            lib.layers.RandomErasing(fill_value=(1, 2), seed=1)(FLOATS)
