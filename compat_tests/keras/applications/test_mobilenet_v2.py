"""keras.applications.mobilenet_v2 against real Keras 3.15.1: structure, errors, outputs, transfer learning."""

import numpy as np
import pytest

from compat_tests.keras.applications.families_b_harness import assert_same_model, assert_same_structure, build
from compat_tests.keras.core_harness import REAL, VFW, same

FEATURE_LAYERS = ["block_1_expand_relu", "block_3_expand_relu", "block_6_expand_relu", "block_13_expand_relu",
                  "block_16_project"]


@pytest.mark.parametrize("kwargs", [
    dict(input_shape=(32, 32, 3), classes=10),
    dict(input_shape=(40, 48, 3), include_top=False, alpha=0.35),
    dict(input_shape=(32, 32, 3), include_top=False, alpha=1.4, pooling="avg"),
    dict(input_shape=(33, 33, 3), include_top=False, alpha=0.75, pooling="max"),
    dict(include_top=False),
    dict(input_shape=(96, 96, 3), include_top=False, name="backbone"),
])
def test_structure(kwargs):
    assert_same_structure("MobileNetV2", **kwargs)


def test_default_classifier_structure():
    assert_same_structure("MobileNetV2")


def test_outputs_match():
    assert_same_model("MobileNetV2", (32, 32, 3), classes=7)


def test_outputs_match_alpha_without_top():
    assert_same_model("MobileNetV2", (33, 35, 3), include_top=False, alpha=0.5, pooling="avg")


def test_unet_feature_extractor():
    """The U-Net tutorial's encoder: a model over named intermediate layers."""
    def fn(lib):
        base = lib.keras.applications.MobileNetV2(input_shape=(64, 64, 3), include_top=False, weights=None)
        outputs = [base.get_layer(name).output for name in FEATURE_LAYERS]
        encoder = lib.keras.Model(inputs=base.input, outputs=outputs)
        return [tuple(o.shape) for o in encoder.outputs], encoder.count_params()
    same(fn)


@pytest.mark.parametrize("make_input", [
    lambda lib: lib.keras.Input((64, 64, 3)),
    lambda lib: lib.keras.layers.Rescaling(2.0)(lib.keras.Input((64, 64, 3))),
])
def test_input_tensor(make_input):
    def fn(lib):
        model = lib.keras.applications.MobileNetV2(input_tensor=make_input(lib), include_top=False, weights=None)
        return model.name, tuple(model.input.shape), tuple(model.output.shape), len(model.layers)
    same(fn)


@pytest.mark.parametrize("kwargs", [
    dict(weights="no/such/file.h5"),
    dict(weights="imagenet", classes=10),
    dict(input_shape=(31, 31, 3), include_top=False),
    dict(input_shape=(32, 32), include_top=False),
    dict(input_shape=(None, None, 3)),
    dict(input_shape=(32, 32, 3), weights="imagenet", include_top=True),
    dict(input_shape=(32, 32, 3), weights="imagenet", include_top=False, alpha=0.3),
    dict(input_shape=(32, 32, 1), weights="imagenet", include_top=False),
])
def test_argument_errors(kwargs):
    for lib in (REAL, VFW):
        with pytest.raises(ValueError):
            lib.keras.applications.MobileNetV2(**kwargs)


def test_input_tensor_shape_mismatch():
    for lib in (REAL, VFW):
        with pytest.raises(ValueError, match=r"input_tensor.shape\[2\] must equal input_shape\[1\]"):
            lib.keras.applications.MobileNetV2(input_tensor=lib.keras.Input((32, 32, 3)), input_shape=(64, 64, 3),
                                               include_top=False, weights=None)


def test_classifier_activation_with_imagenet_weights():
    for lib in (REAL, VFW):
        with pytest.raises(ValueError, match="Only `None` and `softmax` activations are allowed"):
            lib.keras.applications.MobileNetV2(weights="imagenet", classifier_activation="relu")


def test_weights_file(tmp_path):
    real_model = build(REAL, "MobileNetV2", input_shape=(32, 32, 3), include_top=False, alpha=0.35)
    real_model.set_weights([w + 0.05 for w in real_model.get_weights()])
    path = str(tmp_path / "mnv2.weights.h5")
    real_model.save_weights(path)
    vfw_model = VFW.keras.applications.MobileNetV2(input_shape=(32, 32, 3), include_top=False, alpha=0.35,
                                                   weights=path)
    images = np.random.default_rng(0).uniform(0, 255, (2, 32, 32, 3)).astype("float32")
    np.testing.assert_allclose(np.asarray(vfw_model(images, training=False)),
                               np.asarray(real_model(images, training=False)), rtol=1e-4, atol=1e-4)


def test_preprocess_input():
    images = np.random.default_rng(0).uniform(0, 255, (2, 4, 4, 3)).astype("float32")
    expected = REAL.keras.applications.mobilenet_v2.preprocess_input(images.copy())
    got = VFW.keras.applications.mobilenet_v2.preprocess_input(images.copy())
    np.testing.assert_array_equal(got, expected)
    assert sorted(n for n in dir(VFW.keras.applications.mobilenet_v2) if not n.startswith("_")) == [
        "MobileNetV2", "decode_predictions", "preprocess_input"]


def test_transfer_learning_history():
    """Frozen MobileNetV2 base + GlobalAveragePooling2D + Dense, one epoch of fit: the same history."""
    images = np.random.default_rng(0).uniform(-1, 1, (8, 32, 32, 3)).astype("float32")
    labels = np.random.default_rng(1).integers(0, 3, (8,))

    def fn(lib):
        base = lib.keras.applications.MobileNetV2(input_shape=(32, 32, 3), include_top=False, weights=None)
        base.trainable = False
        model = lib.keras.Sequential([base, lib.keras.layers.GlobalAveragePooling2D(),
                                      lib.keras.layers.Dense(3, activation="softmax")])
        model.compile(optimizer=lib.keras.optimizers.Adam(1e-2), loss="sparse_categorical_crossentropy",
                      metrics=["accuracy"])
        return model

    real_model = REAL.keras.backend.clear_session(free_memory=False) or fn(REAL)
    vfw_model = VFW.keras.backend.clear_session(free_memory=False) or fn(VFW)
    assert len(vfw_model.trainable_weights) == len(real_model.trainable_weights) == 2
    vfw_model.set_weights(real_model.get_weights())
    real_history = real_model.fit(images, labels, batch_size=4, epochs=1, shuffle=False, verbose=0).history
    vfw_history = vfw_model.fit(images, labels, batch_size=4, epochs=1, shuffle=False, verbose=0).history
    assert vfw_history.keys() == real_history.keys()
    for key in real_history:
        np.testing.assert_allclose(vfw_history[key], real_history[key], rtol=1e-4)
    for got, expected in zip(vfw_model.get_weights(), real_model.get_weights()):
        np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-5)
