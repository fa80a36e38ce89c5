"""``weights="imagenet"`` in ResNet50/101/152 against real Keras 3.15.1: the file (and md5 hash) each variant
asks ``keras.utils.get_file`` for, and loading Keras' legacy ``.h5`` weights."""

import pytest

from compat_tests.keras.applications.imagenet_weights_harness import assert_loads_imagenet_file, assert_same_download


@pytest.mark.parametrize("function_name", ["ResNet50", "ResNet101", "ResNet152"])
@pytest.mark.parametrize("include_top", [True, False])
def test_download(monkeypatch, function_name, include_top):
    assert_same_download(monkeypatch, function_name, dict(include_top=include_top))


def test_loads_legacy_imagenet_file(monkeypatch, tmp_path):
    assert_loads_imagenet_file(monkeypatch, tmp_path, "ResNet50", dict(include_top=False, pooling="avg"), (32, 32, 3))
