"""keras.applications MobileNetV3Small / MobileNetV3Large against real Keras 3.15.1: structure, outputs, errors."""

import numpy as np
import pytest

from compat_tests.keras.applications.families_b_harness import assert_same_model, assert_same_structure
from compat_tests.keras.core_harness import REAL, VFW, same


@pytest.mark.parametrize("function_name, kwargs", [
    ("MobileNetV3Small", dict()),
    ("MobileNetV3Small", dict(include_top=False, alpha=0.75, pooling="max")),
    ("MobileNetV3Small", dict(input_shape=(32, 32, 3), alpha=1.3, dropout_rate=0, minimalistic=True)),
    ("MobileNetV3Large", dict(input_shape=(32, 32, 3), include_top=False, minimalistic=True,
                              include_preprocessing=False, pooling="avg")),
    ("MobileNetV3Large", dict(include_top=False, alpha=0.75, name="encoder")),
])
def test_structure(function_name, kwargs):
    assert_same_structure(function_name, **kwargs)


def test_outputs_match_small():
    assert_same_model("MobileNetV3Small", (32, 32, 3), classes=5)


def test_outputs_match_large_without_top():
    assert_same_model("MobileNetV3Large", (36, 33, 3), include_top=False, alpha=0.75, pooling="avg")


def test_outputs_match_minimalistic():
    assert_same_model("MobileNetV3Small", (32, 32, 3), minimalistic=True, include_preprocessing=False, classes=3,
                      classifier_activation=None)


@pytest.mark.parametrize("kwargs", [
    dict(weights="no/such/file.h5"),
    dict(weights="imagenet", classes=10),
    dict(input_shape=(31, 31, 3)),
    dict(weights="imagenet", alpha=0.5),
    dict(weights="imagenet", minimalistic=True, alpha=0.75),
    dict(weights="imagenet", classifier_activation="relu"),
])
def test_argument_errors(kwargs):
    for lib in (REAL, VFW):
        with pytest.raises(ValueError):
            lib.keras.applications.MobileNetV3Small(**kwargs)


def test_input_tensor():
    def fn(lib):
        model = lib.keras.applications.MobileNetV3Large(input_tensor=lib.keras.Input((64, 64, 3)), weights=None)
        return model.name, tuple(model.input.shape), tuple(model.output.shape), model.count_params()
    same(fn)


def test_input_tensor_shape_mismatch():
    for lib in (REAL, VFW):
        with pytest.raises(ValueError, match=r"input_shape\[1\] must equal input_tensor.shape\[2\]"):
            lib.keras.applications.MobileNetV3Small(input_tensor=lib.keras.Input((64, 64, 3)),
                                                    input_shape=(32, 32, 3), weights=None)


def test_preprocess_input_is_identity_and_namespace():
    images = np.random.default_rng(0).uniform(0, 255, (2, 4, 4, 3)).astype("float32")
    expected = REAL.keras.applications.mobilenet_v3.preprocess_input(images)
    got = VFW.keras.applications.mobilenet_v3.preprocess_input(images)
    np.testing.assert_array_equal(got, expected)
    names = sorted(n for n in dir(VFW.keras.applications.mobilenet_v3) if not n.startswith("_"))
    assert names == ["decode_predictions", "preprocess_input"]
