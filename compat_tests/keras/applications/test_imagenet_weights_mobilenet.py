"""``weights="imagenet"`` in MobileNet and MobileNetV2 against real Keras 3.15.1: the file each variant asks
``keras.utils.get_file`` for (alpha, input size, top), Keras' fallback warning, loading Keras' legacy ``.h5``
weights, and the offline failure."""

import urllib.error
import urllib.request

import pytest

from compat_tests.keras.applications.imagenet_weights_harness import (
    assert_loads_imagenet_file,
    assert_same_download,
    real_file_utils,
)
from compat_tests.keras.core_harness import REAL, VFW

# The file name joins independent parts (alpha, rows, top): every value of each is covered.
MOBILENET_CASES = (
    [dict(alpha=alpha, input_shape=(224, 224, 3), include_top=top) for alpha in (0.25, 0.5, 0.75, 1.0)
     for top in (True, False)]
    + [dict(alpha=0.25, input_shape=(rows, rows, 3), include_top=True) for rows in (128, 160, 192)]
    + [dict(include_top=False), dict(include_top=False, input_shape=(100, 100, 3)),
       dict(include_top=False, input_shape=(160, 128, 3)), dict(alpha=1, include_top=False)]
)
MOBILENET_V2_CASES = (
    [dict(alpha=alpha, input_shape=(224, 224, 3), include_top=False) for alpha in (0.35, 0.5, 0.75, 1.0, 1.3, 1.4)]
    + [dict(alpha=alpha, input_shape=(224, 224, 3), include_top=True) for alpha in (0.35, 1.4)]
    + [dict(alpha=0.35, input_shape=(rows, rows, 3), include_top=True) for rows in (96, 128, 160, 192)]
    + [dict(include_top=False), dict(include_top=False, input_shape=(100, 100, 3)),
       dict(include_top=False, input_shape=(128, 96, 3)), dict(alpha=1, include_top=False)]
)


@pytest.mark.parametrize("kwargs", MOBILENET_CASES)
def test_mobilenet_download(monkeypatch, kwargs):
    assert_same_download(monkeypatch, "MobileNet", kwargs)


@pytest.mark.parametrize("kwargs", MOBILENET_V2_CASES)
def test_mobilenet_v2_download(monkeypatch, kwargs):
    assert_same_download(monkeypatch, "MobileNetV2", kwargs)


@pytest.mark.parametrize("function_name, kwargs", [
    ("MobileNet", dict(alpha=0.25, include_top=False, pooling="avg")),
    ("MobileNetV2", dict(alpha=0.35, include_top=False, pooling="max")),
])
def test_loads_legacy_imagenet_file(monkeypatch, tmp_path, function_name, kwargs):
    assert_loads_imagenet_file(monkeypatch, tmp_path, function_name, kwargs, (32, 32, 3))


def test_offline_download_fails_as_in_keras(monkeypatch, tmp_path):
    def unreachable(*args, **kwargs):
        raise urllib.error.URLError("offline")

    # An empty cache in both libraries, and no network.
    monkeypatch.setattr(REAL.keras.src.backend.config, "_KERAS_DIR", str(tmp_path / "real"))
    monkeypatch.setenv("KERAS_HOME", str(tmp_path / "vfw"))
    monkeypatch.setattr(real_file_utils, "urlretrieve", unreachable)
    monkeypatch.setattr(urllib.request, "urlretrieve", unreachable)
    outcomes = []
    for lib in (REAL, VFW):
        lib.keras.backend.clear_session(free_memory=False)
        with pytest.raises(Exception) as raised:
            lib.keras.applications.MobileNet(alpha=0.25, input_shape=(128, 128, 3), include_top=False)
        outcomes.append((type(raised.value), str(raised.value)))
    assert outcomes[0] == outcomes[1]
    assert "URL fetch failure on https://storage.googleapis.com/" in outcomes[1][1]
