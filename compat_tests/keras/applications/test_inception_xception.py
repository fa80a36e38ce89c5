"""keras.applications.inception_v3 and xception against real Keras 3.15.1: structure, counts, outputs."""

import numpy as np
import pytest

from compat_tests.keras.applications.families_b_harness import assert_same_model, assert_same_structure
from compat_tests.keras.core_harness import REAL, VFW


def test_inception_v3_model():
    assert_same_model("InceptionV3", (75, 75, 3), classifier_activation=None, classes=6)


def test_xception_model():
    assert_same_model("Xception", (71, 71, 3), classifier_activation=None, classes=6)


@pytest.mark.parametrize("function_name", ["InceptionV3", "Xception"])
def test_headless_max_pooling_is_auto_named(function_name):
    assert_same_structure(function_name, include_top=False, pooling="max", input_shape=(80, 80, 3))


@pytest.mark.parametrize("family", ["inception_v3", "xception"])
def test_preprocess_input(family):
    images = np.random.default_rng(0).uniform(0, 255, size=(2, 4, 4, 3)).astype("float32")
    expected = getattr(REAL.keras.applications, family).preprocess_input(images.copy())
    got = getattr(VFW.keras.applications, family).preprocess_input(images.copy())
    np.testing.assert_allclose(got, expected, rtol=1e-6)
