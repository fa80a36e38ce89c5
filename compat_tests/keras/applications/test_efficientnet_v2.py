"""keras.applications.efficientnet_v2 against real Keras 3.15.1: structure, counts, configs, outputs."""

import numpy as np

from compat_tests.keras.applications.families_b_harness import assert_same_model, assert_same_structure, build
from compat_tests.keras.core_harness import REAL, VFW


def test_b0_model_and_layer_configs():
    models = assert_same_model("EfficientNetV2B0", (32, 32, 3), classifier_activation=None, classes=5)
    real, ours = [[model.get_layer(name).get_config() for name in
                   ("rescaling", "normalization", "stem_conv", "block1a_project_conv", "block2b_drop",
                    "block4a_dwconv2", "block4a_se_reduce", "top_dropout", "predictions")] for model in models]
    assert ours == real


def test_s_structure_without_top():
    # S rescales to [-1, 1]; its filters are not width-scaled.
    assert_same_structure("EfficientNetV2S", include_top=False, pooling="avg", input_shape=(32, 32, 3))


def test_b3_names_and_counts():
    # Width 1.2: EfficientNetV2 rounds filters without EfficientNet's 10% bump (16 stays 16).
    real = build(REAL, "EfficientNetV2B3", include_top=False, include_preprocessing=False, input_shape=(32, 32, 3))
    ours = build(VFW, "EfficientNetV2B3", include_top=False, include_preprocessing=False, input_shape=(32, 32, 3))
    assert [layer.name for layer in ours.layers] == [layer.name for layer in real.layers]
    assert (ours.name, ours.count_params()) == (real.name, real.count_params())


def test_preprocess_input_is_identity():
    images = np.zeros((1, 2, 2, 3), "float32")
    assert VFW.keras.applications.efficientnet_v2.preprocess_input(images) is images
