"""keras.applications.resnet / resnet50 / resnet_v2 against real Keras 3.15.1: structure, outputs, errors."""

import numpy as np
import pytest

from compat_tests.keras.applications.families_b_harness import assert_same_model, assert_same_structure
from compat_tests.keras.core_harness import REAL, VFW, same


@pytest.mark.parametrize("function_name, kwargs", [
    ("ResNet50", dict(include_top=False, pooling="max")),
    ("ResNet50V2", dict(input_shape=(40, 40, 3), include_top=False, pooling="avg", name="features")),
])
def test_structure(function_name, kwargs):
    assert_same_structure(function_name, **kwargs)


def test_default_size_names_and_counts():
    """The deeper variants: names, parameter counts, layer names (no per-layer structure walk: big models)."""
    def fn(lib):
        rows = []
        for function_name, kwargs in (("ResNet152", {}), ("ResNet101V2", dict(input_shape=(32, 32, 3), classes=3))):
            model = getattr(lib.keras.applications, function_name)(weights=None, **kwargs)
            rows.append((model.name, tuple(model.input.shape), model.count_params(),
                         [layer.name for layer in model.layers]))
        return rows
    same(fn)


@pytest.mark.parametrize("function_name", ["ResNet50", "ResNet50V2"])
def test_model_matches(function_name):
    """Structure (with the classifier) and predictions from the same weights."""
    assert_same_model(function_name, (32, 32, 3), classes=5)


@pytest.mark.parametrize("kwargs", [
    dict(weights="no/such/file.h5"),
    dict(weights="imagenet", classes=10),
    dict(input_shape=(16, 16, 3), include_top=False),
    dict(input_shape=(32, 32, 3), weights="imagenet"),
    dict(weights="imagenet", classifier_activation="relu"),
])
@pytest.mark.parametrize("function_name", ["ResNet50", "ResNet50V2"])
def test_argument_errors(function_name, kwargs):
    for lib in (REAL, VFW):
        with pytest.raises(ValueError):
            getattr(lib.keras.applications, function_name)(**kwargs)


def test_input_tensor():
    def fn(lib):
        inputs = lib.keras.Input((48, 48, 3))
        model = lib.keras.applications.ResNet50V2(input_tensor=inputs, input_shape=(32, 32, 3), include_top=False,
                                                  weights=None)
        return model.name, tuple(model.input.shape), tuple(model.output.shape)
    same(fn)


@pytest.mark.parametrize("module, names", [
    ("resnet", ["ResNet101", "ResNet152", "ResNet50", "decode_predictions", "preprocess_input"]),
    ("resnet50", ["ResNet50", "decode_predictions", "preprocess_input"]),
    ("resnet_v2", ["ResNet101V2", "ResNet152V2", "ResNet50V2", "decode_predictions", "preprocess_input"]),
])
def test_preprocess_input_and_namespace(module, names):
    images = np.random.default_rng(0).uniform(0, 255, (2, 4, 4, 3)).astype("float32")
    expected = getattr(REAL.keras.applications, module).preprocess_input(images.copy())
    got = getattr(VFW.keras.applications, module).preprocess_input(images.copy())
    np.testing.assert_array_equal(got, expected)
    assert sorted(n for n in dir(getattr(VFW.keras.applications, module)) if not n.startswith("_")) == names
