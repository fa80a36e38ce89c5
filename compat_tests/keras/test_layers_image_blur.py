"""Keras RandomGaussianBlur against real Keras 3.15.1: values for the same seed over two successive calls, training
and inference, float/uint8 batches, single images, channels_first, configs and argument errors."""

import os

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
real = pytest.importorskip("keras")
from vfw.tensorflow import keras  # noqa: E402

RNG = np.random.default_rng(3)
FLOATS = RNG.uniform(0, 255, (4, 9, 8, 3)).astype(np.float32)
BYTES = RNG.integers(0, 256, (3, 6, 7, 3)).astype(np.uint8)
IMAGES = {"floats": FLOATS, "bytes": BYTES, "single": FLOATS[0]}

CASES = [
    dict(seed=1),
    dict(factor=0.5, kernel_size=5, sigma=(0.3, 0.9), seed=2),
    dict(factor=(0.4, 1.0), kernel_size=(3, 5), sigma=0.7, value_range=(0, 100), seed=3),
    dict(kernel_size=(5, 3), data_format="channels_first", seed=4),
]


def _assert_same(got, want):
    assert got.dtype.name == want.dtype.name and tuple(got.shape) == tuple(want.shape)
    np.testing.assert_allclose(np.asarray(got, np.float64), np.asarray(want, np.float64), rtol=1e-5, atol=1e-3)


@pytest.mark.parametrize("kwargs", CASES, ids=str)
@pytest.mark.parametrize("images", sorted(IMAGES))
@pytest.mark.parametrize("training", [True, False])
def test_values_match_keras(kwargs, images, training):
    x = IMAGES[images]
    if kwargs.get("data_format") == "channels_first":
        x = np.moveaxis(x, -1, -3)
    ours, theirs = keras.layers.RandomGaussianBlur(**kwargs), real.layers.RandomGaussianBlur(**kwargs)
    _assert_same(ours(x, training=training), theirs(x, training=training))
    _assert_same(ours(x), theirs(x))  # the second call: the seed generators advanced alike


@pytest.mark.parametrize("kwargs", CASES, ids=str)
def test_config_matches_keras(kwargs):
    ours, theirs = keras.layers.RandomGaussianBlur(**kwargs), real.layers.RandomGaussianBlur(**kwargs)
    assert ours.get_config() == theirs.get_config()
    assert keras.layers.RandomGaussianBlur.from_config(ours.get_config()).get_config() == ours.get_config()


@pytest.mark.parametrize("kwargs", [dict(kernel_size=4), dict(kernel_size=(3, 4)), dict(kernel_size=(3, 5, 7)),
                                    dict(kernel_size="x"), dict(sigma=1.5), dict(sigma=(0.1, 0.2, 0.3)),
                                    dict(factor=-0.2)], ids=str)
def test_argument_errors(kwargs):
    with pytest.raises(ValueError) as want:
        real.layers.RandomGaussianBlur(**kwargs)
    with pytest.raises(ValueError) as got:
        keras.layers.RandomGaussianBlur(**kwargs)
    assert str(got.value) == str(want.value)
