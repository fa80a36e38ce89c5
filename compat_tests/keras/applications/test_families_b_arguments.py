"""Arguments shared by the part-B application families, against real Keras 3.15.1: a weights file, an
``input_tensor``, Keras' argument errors."""

import re

import numpy as np
import pytest

from compat_tests.keras.core_harness import REAL, VFW, run


def _real_model_with_weights(function_name, input_shape, seed=0):
    """A real Keras model (no top, average pooling) whose weights moved off their initial values."""
    REAL.keras.backend.clear_session(free_memory=False)
    model = getattr(REAL.keras.applications, function_name)(weights=None, include_top=False, pooling="avg",
                                                             input_shape=input_shape)
    rng = np.random.default_rng(seed)
    model.set_weights([value if "variance" in variable.path else
                       value + rng.normal(scale=0.05, size=value.shape).astype(value.dtype)
                       for variable, value in zip(model.weights, model.get_weights())])
    return model


def _assert_loads(function_name, input_shape, real, path):
    ours = getattr(VFW.keras.applications, function_name)(weights=path, include_top=False, pooling="avg",
                                                          input_shape=input_shape)
    images = np.random.default_rng(1).uniform(0, 255, size=(2,) + input_shape).astype("float32")
    expected = np.asarray(real(images, training=False))
    np.testing.assert_allclose(np.asarray(ours(images, training=False)), expected, rtol=1e-4,
                               atol=1e-4 * np.abs(expected).max())


def test_weights_file_from_real_keras(tmp_path):
    real = _real_model_with_weights("Xception", (71, 71, 3))
    path = str(tmp_path / "xception.weights.h5")
    real.save_weights(path)
    _assert_loads("Xception", (71, 71, 3), real, path)


def test_legacy_h5_weights_file(tmp_path):
    # The released ImageNet weights are legacy HDF5 files; ConvNeXt's hold its Sequential stem as one layer.
    h5py = pytest.importorskip("h5py")
    from keras.src.legacy.saving import legacy_h5_format

    real = _real_model_with_weights("ConvNeXtTiny", (32, 32, 3))
    path = str(tmp_path / "convnext_tiny_notop.h5")
    with h5py.File(path, "w") as file:
        legacy_h5_format.save_weights_to_hdf5_group(file, real)
    _assert_loads("ConvNeXtTiny", (32, 32, 3), real, path)


def test_input_tensor_model_starts_from_its_inputs():
    def build(lib):
        inputs = lib.keras.Input((40, 40, 3), name="image")
        scaled = lib.keras.layers.Rescaling(0.5)(inputs)
        model = lib.keras.applications.DenseNet121(weights=None, include_top=False, input_tensor=scaled)
        return [t.name for t in model.inputs], [layer.name for layer in model.layers[:3]], tuple(model.output.shape)
    assert run(build, VFW) == run(build, REAL)


@pytest.mark.parametrize("function_name, kwargs", [
    ("EfficientNetB0", {"weights": "no_such_file"}),
    ("ConvNeXtTiny", {"weights": "imagenet", "classes": 10}),
    ("InceptionV3", {"weights": None, "input_shape": (60, 60, 3), "include_top": False}),
    ("Xception", {"weights": None, "input_shape": (71, 71)}),
    ("DenseNet121", {"weights": "imagenet", "classifier_activation": "relu", "input_shape": (224, 224, 3)}),
    ("EfficientNetV2B0", {"weights": None, "input_shape": (None, None, 3)}),
    ("InceptionResNetV2", {"weights": None, "input_tensor": [1, 2]}),
])
def test_argument_errors(function_name, kwargs):
    def build(lib):
        return getattr(lib.keras.applications, function_name)(**kwargs)
    ours, real = run(build, VFW), run(build, REAL)
    assert isinstance(real, tuple) and real[0] == "raised"
    # Function reprs in messages differ by their address only.
    assert _without_addresses(ours) == _without_addresses(real)


def _without_addresses(outcome):
    return tuple(re.sub(r" at 0x[0-9a-f]+", "", part) if isinstance(part, str) else part for part in outcome)
