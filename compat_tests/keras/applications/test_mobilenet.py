"""keras.applications.mobilenet (MobileNet v1) against real Keras 3.15.1: structure, outputs, errors."""

import numpy as np
import pytest

from compat_tests.keras.applications.families_b_harness import assert_same_model, assert_same_structure
from compat_tests.keras.core_harness import REAL, VFW, same


@pytest.mark.parametrize("kwargs", [
    dict(input_shape=(32, 32, 3), classes=10, alpha=0.5, depth_multiplier=2, dropout=0.3),
    dict(include_top=False),
    dict(input_shape=(40, 36, 3), include_top=False, alpha=0.25, pooling="avg"),
    dict(input_shape=(32, 32, 3), include_top=False, pooling="max", name="features"),
    dict(),
])
def test_structure(kwargs):
    assert_same_structure("MobileNet", **kwargs)


def test_outputs_match():
    assert_same_model("MobileNet", (32, 32, 3), classes=6, alpha=0.5)


def test_outputs_match_depth_multiplier():
    assert_same_model("MobileNet", (35, 33, 3), include_top=False, pooling="max", alpha=0.25, depth_multiplier=2)


@pytest.mark.parametrize("make_kwargs", [
    lambda lib: dict(input_tensor=lib.keras.Input((128, 128, 3))),
    lambda lib: dict(input_tensor=lib.keras.Input((32, 32, 3)), input_shape=(64, 64, 3), include_top=False),
])
def test_input_tensor(make_kwargs):
    def fn(lib):
        model = lib.keras.applications.MobileNet(weights=None, **make_kwargs(lib))
        return model.name, tuple(model.input.shape), tuple(model.output.shape)
    same(fn)


@pytest.mark.parametrize("kwargs", [
    dict(weights="no/such/file.h5"),
    dict(weights="imagenet", classes=10),
    dict(input_shape=(31, 31, 3), include_top=False),
    dict(input_shape=(128, 128, 3), weights="imagenet", include_top=False, alpha=0.3),
    dict(input_shape=(128, 128, 3), weights="imagenet", include_top=False, depth_multiplier=2),
])
def test_argument_errors(kwargs):
    for lib in (REAL, VFW):
        with pytest.raises(ValueError):
            lib.keras.applications.MobileNet(**kwargs)


def test_preprocess_input_and_namespace():
    images = np.random.default_rng(0).uniform(0, 255, (4, 4, 3)).astype("float32")
    expected = REAL.keras.applications.mobilenet.preprocess_input(images.copy())
    got = VFW.keras.applications.mobilenet.preprocess_input(images.copy())
    np.testing.assert_array_equal(got, expected)
    names = sorted(n for n in dir(VFW.keras.applications.mobilenet) if not n.startswith("_"))
    assert names == ["MobileNet", "decode_predictions", "preprocess_input"]
