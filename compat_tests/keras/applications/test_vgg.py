"""keras.applications.vgg16 / vgg19 against real Keras 3.15.1: structure, outputs, errors."""

import numpy as np
import pytest

from compat_tests.keras.applications.families_b_harness import assert_same_model, assert_same_structure
from compat_tests.keras.core_harness import REAL, VFW


@pytest.mark.parametrize("function_name, kwargs", [
    ("VGG16", dict(input_shape=(32, 32, 3), classes=10)),
    ("VGG19", dict(input_shape=(32, 32, 3), classes=10, classifier_activation=None)),
    ("VGG16", dict(include_top=False, pooling="avg")),
    ("VGG19", dict(input_shape=(48, 40, 3), include_top=False, pooling="max", name="features")),
])
def test_structure(function_name, kwargs):
    assert_same_structure(function_name, **kwargs)


@pytest.mark.parametrize("function_name", ["VGG16", "VGG19"])
def test_outputs_match(function_name):
    assert_same_model(function_name, (32, 32, 3), include_top=False, pooling="avg")


def test_outputs_match_with_classifier():
    assert_same_model("VGG16", (32, 32, 3), classes=4)


@pytest.mark.parametrize("kwargs", [
    dict(weights="no/such/file.h5"),
    dict(weights="imagenet", classes=10),
    dict(input_shape=(31, 31, 3), include_top=False),
    dict(input_shape=(None, None, 3)),
])
def test_argument_errors(kwargs):
    for lib in (REAL, VFW):
        with pytest.raises(ValueError):
            lib.keras.applications.VGG16(**kwargs)


@pytest.mark.parametrize("module, function_name", [("vgg16", "VGG16"), ("vgg19", "VGG19")])
def test_preprocess_input_and_namespace(module, function_name):
    images = np.random.default_rng(0).uniform(0, 255, (2, 3, 4, 4)).astype("float32")
    expected = getattr(REAL.keras.applications, module).preprocess_input(images.copy(), data_format="channels_first")
    got = getattr(VFW.keras.applications, module).preprocess_input(images.copy(), data_format="channels_first")
    np.testing.assert_array_equal(got, expected)
    names = sorted(n for n in dir(getattr(VFW.keras.applications, module)) if not n.startswith("_"))
    assert names == [function_name, "decode_predictions", "preprocess_input"]
