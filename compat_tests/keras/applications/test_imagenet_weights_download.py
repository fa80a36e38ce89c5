"""``weights="imagenet"`` in DenseNet, Xception, InceptionV3, InceptionResNetV2, NASNet, EfficientNet(V2) and
ConvNeXt against real Keras 3.15.1: the file name, origin, cache folder and hash each variant asks
``keras.utils.get_file`` for (nothing is downloaded), including the file names EfficientNet(V2) and ConvNeXt take
from a model's ``name``."""

import pytest

from compat_tests.keras.applications.imagenet_weights_harness import assert_same_download
from compat_tests.keras.core_harness import REAL, VFW
from vfw.frontends.tensorflow.keras.src.initializers import random_initializers as vfw_random_initializers

real_random_initializers = pytest.importorskip("keras.src.initializers.random_initializers")


@pytest.fixture(autouse=True)
def _zero_initial_weights(monkeypatch):
    """Random initial weights play no part in the download request; drawing them for these large models in both
    libraries would dominate the tests' time."""
    for module, zeros in ((real_random_initializers, REAL.keras.ops.zeros), (vfw_random_initializers, VFW.tf.zeros)):
        for class_name in ("VarianceScaling", "TruncatedNormal", "RandomNormal", "RandomUniform"):
            monkeypatch.setattr(getattr(module, class_name), "__call__",
                                lambda self, shape, dtype=None, zeros=zeros: zeros(shape, dtype=dtype or "float32"))


# Variants built with and without their top; the others are built without it at a small input (the request
# depends on the variant and the top, not on the input size).
_SMALL_VARIANTS = ["DenseNet121", "EfficientNetB0", "EfficientNetV2B0", "NASNetMobile"]
# The other variants of each family differ only in their table entries; they are built in a minute or more in all
# (Keras' symbolic build of EfficientNetB7/V2L, ConvNeXtXLarge...), too long for the suite.
_TRUNK_ONLY_VARIANTS = ["Xception", "InceptionV3", "InceptionResNetV2", "EfficientNetB1", "EfficientNetV2S",
                        "ConvNeXtSmall"]


@pytest.mark.parametrize("function_name", _SMALL_VARIANTS)
@pytest.mark.parametrize("include_top", [True, False])
def test_download_small_variants(monkeypatch, function_name, include_top):
    assert_same_download(monkeypatch, function_name, dict(include_top=include_top))


@pytest.mark.parametrize("function_name", _TRUNK_ONLY_VARIANTS)
def test_download_without_top(monkeypatch, function_name):
    assert_same_download(monkeypatch, function_name, dict(include_top=False, input_shape=(75, 75, 3)))


@pytest.mark.parametrize("function_name", ["Xception", "InceptionV3", "ConvNeXtTiny"])
def test_download_with_top(monkeypatch, function_name):
    assert_same_download(monkeypatch, function_name, dict(include_top=True))


@pytest.mark.parametrize("function_name, name", [("EfficientNetB0", "my_net"),
                                                 ("ConvNeXtTiny", "convnext_tiny_custom")])
def test_download_named_after_model(monkeypatch, function_name, name):
    assert_same_download(monkeypatch, function_name, dict(include_top=False, input_shape=(64, 64, 3), name=name))


def test_convnext_name_must_hold_variant():
    errors = []
    for lib in (REAL, VFW):
        with pytest.raises(ValueError) as caught:
            lib.keras.applications.ConvNeXtTiny(weights="imagenet", include_top=False, input_shape=(64, 64, 3),
                                                name="other")
        errors.append(str(caught.value))
    assert errors[1] == errors[0]
