"""Keras ContrastLimitedAdaptiveHistogramEqualization and RandomElasticTransform against real Keras 3.15.1.

CLAHE is deterministic: values must equal Keras' for float/uint8 batches, single images, channels_first, grids
that do not divide the image (symmetric padding), clip limits and value ranges.  RandomElasticTransform draws its
probabilities, distortion and displacement field from the layer's SeedGenerator through TF's stateless ops, so for
the same seed it must give Keras' images (bilinear results agree to float32 rounding of the sampling positions).
"""

import os

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
real = pytest.importorskip("keras")
from vfw.tensorflow import keras  # noqa: E402

RNG = np.random.default_rng(11)
FLOATS = RNG.uniform(0, 255, (2, 14, 17, 3)).astype(np.float32)
BYTES = RNG.integers(0, 256, (2, 12, 9, 2)).astype(np.uint8)
IMAGES = {"floats": FLOATS, "bytes": BYTES, "single": FLOATS[1]}


def _assert_same(got, want, atol=1e-3):
    assert got.dtype.name == want.dtype.name and tuple(got.shape) == tuple(want.shape)
    np.testing.assert_allclose(np.asarray(got, np.float64), np.asarray(want, np.float64), rtol=1e-5, atol=atol)


CLAHE_CASES = [
    dict(),
    dict(clip_limit=2.0, tile_grid_size=(3, 4)),
    dict(clip_limit=0.0, tile_grid_size=(2, 2)),
    dict(clip_limit=40.0, tile_grid_size=(5, 3), data_format="channels_first"),
]


@pytest.mark.parametrize("kwargs", CLAHE_CASES)
@pytest.mark.parametrize("images", sorted(IMAGES))
@pytest.mark.parametrize("training", [True, False])
def test_clahe_matches_keras(kwargs, images, training):
    x = IMAGES[images]
    if kwargs.get("data_format") == "channels_first":
        x = np.moveaxis(x, -1, -3)
    name = "ContrastLimitedAdaptiveHistogramEqualization"
    ours, theirs = getattr(keras.layers, name)(**kwargs), getattr(real.layers, name)(**kwargs)
    _assert_same(ours(x, training=training), theirs(x, training=training), atol=0)


def test_clahe_value_range_and_config_match_keras():
    name = "ContrastLimitedAdaptiveHistogramEqualization"
    kwargs = dict(value_range=(-1.0, 1.0), clip_limit=3.0, tile_grid_size=(2, 3))
    ours, theirs = getattr(keras.layers, name)(**kwargs), getattr(real.layers, name)(**kwargs)
    x = FLOATS / 127.5 - 1.0
    _assert_same(ours(x), theirs(x), atol=1e-5)
    assert ours.get_config() == theirs.get_config()
    clone = getattr(keras.layers, name).from_config(ours.get_config())
    _assert_same(clone(x), theirs(x), atol=1e-5)


ELASTIC_CASES = [
    dict(seed=1),
    dict(seed=2, factor=0.5, scale=(0.3, 0.9), interpolation="nearest"),
    dict(seed=3, fill_mode="constant", fill_value=9.0),
    dict(seed=4, fill_mode="wrap", value_range=(20, 200)),
    dict(seed=5, fill_mode="nearest", data_format="channels_first"),
]


@pytest.mark.parametrize("kwargs", ELASTIC_CASES)
@pytest.mark.parametrize("images", ["floats", "single"])
def test_elastic_matches_keras_for_the_same_seed(kwargs, images):
    x = IMAGES[images]
    if kwargs.get("data_format") == "channels_first":
        x = np.moveaxis(x, -1, -3)
    ours, theirs = keras.layers.RandomElasticTransform(**kwargs), real.layers.RandomElasticTransform(**kwargs)
    _assert_same(ours(x), theirs(x))
    _assert_same(ours(x), theirs(x))  # the second call: the seed generators advanced alike
    _assert_same(ours(x, training=False), theirs(x, training=False))


def test_elastic_uint8_inference_and_zero_scale_like_keras():
    for kwargs, training in [(dict(seed=7), False), (dict(seed=8, scale=0.0), True)]:
        ours, theirs = keras.layers.RandomElasticTransform(**kwargs), real.layers.RandomElasticTransform(**kwargs)
        _assert_same(ours(BYTES, training=training), theirs(BYTES, training=training), atol=0)


def test_elastic_config_and_errors_match_keras():
    kwargs = dict(factor=(0.2, 0.7), scale=0.4, fill_mode="mirror", seed=3)
    ours, theirs = keras.layers.RandomElasticTransform(**kwargs), real.layers.RandomElasticTransform(**kwargs)
    assert ours.get_config() == theirs.get_config()
    bad_arguments = [(dict(interpolation="bicubic"), NotImplementedError),
                     (dict(fill_mode="edge"), NotImplementedError),
                     (dict(factor=1.5), ValueError), (dict(scale=(0.1, 0.2, 0.3)), ValueError)]
    for bad, error in bad_arguments:
        with pytest.raises(error):
            real.layers.RandomElasticTransform(**bad)
        with pytest.raises(error):
            keras.layers.RandomElasticTransform(**bad)
