"""``weights="imagenet"`` in MobileNetV3Small/Large, VGG16 and VGG19 against real Keras 3.15.1: the file (and
md5 hash) each variant asks ``keras.utils.get_file`` for, Keras' warnings, and loading Keras' legacy ``.h5``
weights."""

import pytest

from compat_tests.keras.applications.imagenet_weights_harness import assert_loads_imagenet_file, assert_same_download

MOBILENET_V3_CASES = (
    [(function_name, dict(alpha=alpha, minimalistic=minimalistic, include_top=top))
     for function_name in ("MobileNetV3Small", "MobileNetV3Large")
     for alpha, minimalistic in ((0.75, False), (1.0, False), (1.0, True)) for top in (True, False)]
    + [("MobileNetV3Small", dict(input_shape=(224, 224, 3))),
       ("MobileNetV3Large", dict(input_shape=(100, 100, 3), include_top=False)),
       ("MobileNetV3Small", dict(input_shape=(224, 160, 3), include_top=False))]
)
VGG_CASES = [(function_name, dict(include_top=top)) for function_name in ("VGG16", "VGG19") for top in (True, False)]


@pytest.mark.parametrize("function_name, kwargs", MOBILENET_V3_CASES + VGG_CASES)
def test_download(monkeypatch, function_name, kwargs):
    assert_same_download(monkeypatch, function_name, kwargs)


@pytest.mark.parametrize("function_name, kwargs", [
    ("MobileNetV3Small", dict(include_top=True)),
    ("MobileNetV3Large", dict(minimalistic=True, include_top=False, pooling="avg")),
    ("VGG16", dict(include_top=False, pooling="max")),
    ("VGG19", dict(include_top=False)),
])
def test_loads_legacy_imagenet_file(monkeypatch, tmp_path, function_name, kwargs):
    assert_loads_imagenet_file(monkeypatch, tmp_path, function_name, kwargs, (32, 32, 3))
