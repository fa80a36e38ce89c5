"""keras.applications.convnext against real Keras 3.15.1: structure, counts, LayerScale, outputs."""

import numpy as np

from compat_tests.keras.applications.families_b_harness import (
    assert_same_model,
    assert_same_structure,
    build,
    summary_lines,
)
from compat_tests.keras.core_harness import REAL, VFW


def test_tiny_model_layer_scale_and_sub_models():
    models = assert_same_model("ConvNeXtTiny", (32, 32, 3), classifier_activation=None, classes=5)
    real, ours = [_parts(model) for model in models]
    assert ours == real
    assert summary_lines(models[1]) == summary_lines(models[0])


def _parts(model):
    scale = model.get_layer("convnext_tiny_stage_0_block_0_layer_scale")
    stem = model.get_layer("convnext_tiny_stem")
    return (type(scale).__name__, scale.get_config(), [tuple(w.shape) for w in scale.weights],
            [layer.name for layer in stem.layers], [w.path for w in stem.weights],
            model.get_layer("convnext_tiny_prestem_normalization").get_config())


def test_headless_features_are_layer_normalized():
    assert_same_structure("ConvNeXtTiny", include_top=False, pooling="max", include_preprocessing=False,
                          input_shape=(32, 32, 3), name="foo")


def test_layer_scale_starts_at_init_values():
    layer = VFW.keras.applications.convnext.ConvNeXtTiny(weights=None, input_shape=(32, 32, 3)).get_layer(
        "convnext_tiny_stage_1_block_0_layer_scale")
    np.testing.assert_array_equal(layer.get_weights()[0], np.full((192,), 1e-6, "float32"))


def test_base_names_and_counts():
    real = build(REAL, "ConvNeXtBase", include_top=False, input_shape=(32, 32, 3))
    ours = build(VFW, "ConvNeXtBase", include_top=False, input_shape=(32, 32, 3))
    assert [layer.name for layer in ours.layers] == [layer.name for layer in real.layers]
    assert (ours.name, ours.count_params()) == (real.name, real.count_params())


def test_preprocess_input_is_identity():
    images = np.zeros((1, 2, 2, 3), "float32")
    assert VFW.keras.applications.convnext.preprocess_input(images) is images
