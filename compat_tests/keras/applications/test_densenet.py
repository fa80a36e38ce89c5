"""keras.applications.densenet against real Keras 3.15.1: structure, parameter counts, outputs."""

import numpy as np
import pytest

from compat_tests.keras.applications.families_b_harness import assert_same_model, assert_same_structure, build
from compat_tests.keras.core_harness import REAL, VFW


@pytest.mark.parametrize("function_name", ["DenseNet201"])
def test_larger_variants_names_and_counts(function_name):
    real = build(REAL, function_name, include_top=False, input_shape=(32, 32, 3))
    ours = build(VFW, function_name, include_top=False, input_shape=(32, 32, 3))
    assert [layer.name for layer in ours.layers] == [layer.name for layer in real.layers]
    assert (ours.name, ours.count_params()) == (real.name, real.count_params())


def test_densenet121_model():
    assert_same_model("DenseNet121", (32, 32, 3), classifier_activation=None, classes=7)


@pytest.mark.parametrize("pooling", ["max"])
def test_headless_pooling(pooling):
    assert_same_structure("DenseNet121", include_top=False, pooling=pooling, input_shape=(40, 40, 3))


def test_preprocess_input():
    images = np.random.default_rng(0).uniform(0, 255, size=(2, 4, 4, 3)).astype("float32")
    expected = REAL.keras.applications.densenet.preprocess_input(images.copy())
    np.testing.assert_allclose(VFW.keras.applications.densenet.preprocess_input(images.copy()), expected, rtol=1e-6)
