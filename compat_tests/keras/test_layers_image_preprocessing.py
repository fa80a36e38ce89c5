"""Keras image preprocessing/augmentation layers against real Keras 3.15.1 (values for the same seed, shapes,
dtypes, configs, training=False pass-through, use in model.fit)."""

import os

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
real = pytest.importorskip("keras")
from vfw.tensorflow import keras  # noqa: E402

RNG = np.random.default_rng(0)
BATCH = RNG.uniform(0, 255, (3, 9, 11, 2)).astype(np.float32)
SQUARE = RNG.uniform(0, 255, (2, 8, 8, 3)).astype(np.float32)

CASES = [
    ("Resizing", dict(height=5, width=7)),
    ("Resizing", dict(height=13, width=4, interpolation="nearest")),
    ("Resizing", dict(height=6, width=6, interpolation="bicubic")),
    ("Resizing", dict(height=4, width=8, crop_to_aspect_ratio=True)),
    ("Resizing", dict(height=4, width=8, pad_to_aspect_ratio=True, fill_value=7.0)),
    ("Resizing", dict(height=8, width=3, pad_to_aspect_ratio=True)),
    ("CenterCrop", dict(height=5, width=6)),
    ("CenterCrop", dict(height=12, width=6)),
    ("RandomCrop", dict(height=5, width=6, seed=3)),
    ("RandomCrop", dict(height=12, width=6, seed=3)),
    ("RandomFlip", dict(seed=7)),
    ("RandomFlip", dict(mode="horizontal", seed=1)),
    ("RandomFlip", dict(mode="vertical", seed=2)),
    ("RandomRotation", dict(factor=0.2, seed=5)),
    ("RandomRotation", dict(factor=(-0.5, 0.1), fill_mode="constant", fill_value=3.0, seed=5)),
    ("RandomRotation", dict(factor=0.3, fill_mode="wrap", interpolation="nearest", seed=11)),
    ("RandomRotation", dict(factor=0.4, fill_mode="nearest", seed=12)),
    ("RandomZoom", dict(height_factor=0.3, seed=4)),
    ("RandomZoom", dict(height_factor=(-0.4, -0.1), width_factor=(0.2, 0.5), fill_mode="wrap", seed=4)),
    ("RandomZoom", dict(height_factor=0.5, fill_mode="constant", interpolation="nearest", seed=9)),
    ("RandomTranslation", dict(height_factor=0.3, width_factor=0.4, seed=6)),
    ("RandomTranslation", dict(height_factor=(-0.9, 0.9), width_factor=0.8, fill_mode="reflect", seed=8)),
    ("RandomTranslation", dict(height_factor=0.5, width_factor=0.5, fill_mode="nearest", interpolation="nearest",
                               seed=8)),
    ("RandomContrast", dict(factor=0.5, seed=2)),
    ("RandomContrast", dict(factor=(0.1, 0.9), value_range=(0, 100), seed=2)),
    ("RandomBrightness", dict(factor=0.3, seed=10)),
    ("RandomBrightness", dict(factor=(-0.5, 0.2), value_range=(255, 0), seed=10)),
]
IDS = [f"{name}-{i}" for i, (name, _) in enumerate(CASES)]


def _pair(name, kwargs):
    return getattr(real.layers, name)(**kwargs), getattr(keras.layers, name)(**kwargs)


def _assert_same(got, want, atol=1e-3):
    want = np.asarray(want)
    got = np.asarray(got)
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=atol)


@pytest.mark.parametrize("name,kwargs", CASES, ids=IDS)
def test_values_batched_and_unbatched(name, kwargs):
    ref, mine = _pair(name, kwargs)
    for images in (BATCH, BATCH[0], BATCH[1:]):  # successive calls move the seed generators on alike
        _assert_same(mine(images), ref(images))


@pytest.mark.parametrize("name,kwargs", CASES, ids=IDS)
def test_training_false_and_config(name, kwargs):
    ref, mine = _pair(name, kwargs)
    _assert_same(mine(SQUARE, training=False), ref(SQUARE, training=False))
    want, got = ref.get_config(), mine.get_config()
    for key in ("name", "dtype", "trainable"):
        want.pop(key)
        got.pop(key)
    assert got == want
    assert mine.compute_output_shape((None, 9, 11, 2)) == ref.compute_output_shape((None, 9, 11, 2))


@pytest.mark.parametrize("dtype", ["uint8", "int32", "float64"])
@pytest.mark.parametrize("interpolation", ["bilinear", "nearest"])
def test_resizing_input_dtypes(dtype, interpolation):
    images = BATCH.astype(dtype)
    ref, mine = _pair("Resizing", dict(height=4, width=17, interpolation=interpolation))
    _assert_same(mine(images), ref(images))


def test_global_seed_draws():
    # both draw their layers' seeds from Python's `random`: seed it before making each
    for seed in (1, 42):
        real.utils.set_random_seed(seed)
        ref = real.layers.RandomRotation(0.25)
        keras.utils.set_random_seed(seed)
        mine = keras.layers.RandomRotation(0.25)
        _assert_same(mine(SQUARE), ref(SQUARE))


def test_bad_arguments():
    for name, kwargs, error in [("RandomRotation", dict(factor=0.2, fill_mode="foo"), NotImplementedError),
                                ("RandomZoom", dict(height_factor=-1.0), ValueError),
                                ("RandomTranslation", dict(height_factor=1.5, width_factor=0.1), ValueError),
                                ("RandomContrast", dict(factor=1.5), ValueError),
                                ("RandomBrightness", dict(factor=0.1, value_range=3), ValueError)]:
        with pytest.raises(error):
            getattr(real.layers, name)(**kwargs)
        with pytest.raises(error):
            getattr(keras.layers, name)(**kwargs)
    both = dict(height=2, width=2, crop_to_aspect_ratio=True, pad_to_aspect_ratio=True)
    for lib in (real, keras):
        with pytest.raises(ValueError, match="Only one of"):
            lib.layers.Resizing(**both)(BATCH)
    with pytest.raises(ValueError):
        keras.layers.RandomFlip()(BATCH[0, 0])


def _model(lib, weights=None):
    model = lib.Sequential([lib.Input((8, 8, 3)), lib.layers.RandomFlip(seed=1), lib.layers.RandomRotation(0.1, seed=2),
                            lib.layers.Flatten(), lib.layers.Dense(2)])
    if weights is not None:
        model.set_weights(weights)
    model.compile(optimizer=lib.optimizers.SGD(0.001), loss="mse")
    return model


def test_active_in_fit_identity_in_predict():
    ref = _model(real)
    mine = _model(keras, ref.get_weights())
    y = np.ones((2, 2), np.float32)
    _assert_same(mine.predict(SQUARE, verbose=0), ref.predict(SQUARE, verbose=0))
    want = ref.fit(SQUARE, y, epochs=2, batch_size=2, shuffle=False, verbose=0).history["loss"]
    got = mine.fit(SQUARE, y, epochs=2, batch_size=2, shuffle=False, verbose=0).history["loss"]
    np.testing.assert_allclose(got, want, rtol=1e-4)
    plain = real.Sequential([real.Input((8, 8, 3)), real.layers.Flatten(), real.layers.Dense(2)])
    plain.set_weights(ref.get_weights())
    _assert_same(mine.predict(SQUARE, verbose=0), plain.predict(SQUARE, verbose=0))
