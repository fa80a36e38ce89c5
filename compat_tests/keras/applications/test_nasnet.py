"""keras.applications.nasnet against real Keras 3.15.1: structure, counts, input shapes, outputs."""

import numpy as np
import pytest

from compat_tests.keras.applications.families_b_harness import assert_same_model, build
from compat_tests.keras.core_harness import REAL, VFW, run


def test_mobile_model():
    assert_same_model("NASNetMobile", (32, 32, 3), classifier_activation=None, classes=3)


def test_large_names_and_counts():
    # Large skips the reduction cells' inputs (skip_reduction) and adjusts by 1x1 projections.
    real = build(REAL, "NASNetLarge", include_top=False, pooling="max", input_shape=(32, 32, 3))
    ours = build(VFW, "NASNetLarge", include_top=False, pooling="max", input_shape=(32, 32, 3))
    assert [layer.name for layer in ours.layers] == [layer.name for layer in real.layers]
    assert (ours.name, ours.count_params()) == (real.name, real.count_params())


@pytest.mark.parametrize("function_name, kwargs", [
    ("NASNetMobile", {"include_top": False}),
    ("NASNetMobile", {"include_top": False, "input_shape": (None, None, 3)}),
    ("NASNetMobile", {"weights": "imagenet", "include_top": False, "input_shape": (None, None, 3)}),
    ("NASNetMobile", {"include_top": True, "input_shape": (None, None, 3)}),
    ("NASNetLarge", {"include_top": False, "input_shape": (16, 16, 3)}),
])
def test_input_shapes(function_name, kwargs):
    def input_shape(lib):
        return tuple(getattr(lib.keras.applications, function_name)(**{"weights": None, **kwargs}).input.shape)
    assert run(input_shape, VFW) == run(input_shape, REAL)


def test_preprocess_input():
    images = np.random.default_rng(0).uniform(0, 255, size=(2, 4, 4, 3)).astype("float32")
    expected = REAL.keras.applications.nasnet.preprocess_input(images.copy())
    np.testing.assert_allclose(VFW.keras.applications.nasnet.preprocess_input(images.copy()), expected, rtol=1e-6)
