"""Every family module's ``preprocess_input`` / ``decode_predictions`` against real Keras 3.15.1: names,
signatures, and the preprocessing each applies (numpy arrays, tensors, both data formats)."""

import inspect

import numpy as np
import pytest

from compat_tests.keras.core_harness import REAL, VFW

FAMILIES = ["convnext", "densenet", "efficientnet", "efficientnet_v2", "inception_resnet_v2", "inception_v3",
            "mobilenet", "mobilenet_v2", "mobilenet_v3", "nasnet", "resnet", "resnet50", "resnet_v2", "vgg16",
            "vgg19", "xception"]


@pytest.mark.parametrize("family", FAMILIES)
def test_signatures_and_names(family):
    for function_name in ("preprocess_input", "decode_predictions"):
        real = getattr(getattr(REAL.keras.applications, family), function_name)
        ours = getattr(getattr(VFW.keras.applications, family), function_name)
        assert ours.__name__ == real.__name__
        assert inspect.signature(ours) == inspect.signature(real)
        assert ours.__doc__


@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("data_format", ["channels_last", "channels_first"])
def test_preprocess_input(family, data_format):
    shape = (2, 4, 5, 3) if data_format == "channels_last" else (2, 3, 4, 5)
    images = np.random.default_rng(0).uniform(0, 255, shape).astype("float32")
    expected = getattr(REAL.keras.applications, family).preprocess_input(images.copy(), data_format=data_format)
    got = getattr(VFW.keras.applications, family).preprocess_input(images.copy(), data_format=data_format)
    np.testing.assert_allclose(got, expected, rtol=1e-6)
    expected = getattr(REAL.keras.applications, family).preprocess_input(REAL.tf.constant(images), data_format)
    got = getattr(VFW.keras.applications, family).preprocess_input(VFW.tf.constant(images), data_format)
    np.testing.assert_allclose(np.asarray(got), np.asarray(expected), rtol=1e-6)


@pytest.mark.parametrize("family", ["mobilenet", "resnet", "densenet", "convnext"])
def test_decode_predictions(family):
    preds = np.random.default_rng(0).uniform(size=(2, 1000)).astype("float32")
    # The class index needs a download: the outcome (decoded classes, or the same failure) must be Keras'.
    outcomes = []
    for lib in (REAL, VFW):
        try:
            outcomes.append(getattr(lib.keras.applications, family).decode_predictions(preds, top=3))
        except Exception as error:  # compared with the other library's
            outcomes.append((type(error), str(error)))
    assert outcomes[0] == outcomes[1]
