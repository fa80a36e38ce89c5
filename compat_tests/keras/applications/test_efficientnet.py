"""keras.applications.efficientnet against real Keras 3.15.1: structure, parameter counts, outputs."""

import numpy as np

from compat_tests.keras.applications.families_b_harness import assert_same_model, build
from compat_tests.keras.core_harness import VFW


def test_b7_counts():
    # Real Keras 3.15.1 gives 813 layers, 64097687 parameters, 709 trainable weights, blocks up to 7d
    # (building it there too would double this test's time).
    ours = build(VFW, "EfficientNetB7", include_top=False, input_shape=(32, 32, 3))
    assert (ours.name, len(ours.layers), ours.count_params(), len(ours.trainable_weights)) == (
        "efficientnetb7", 813, 64097687, 709)
    assert ours.layers[-4].name == "block7d_add"


def test_b0_model_and_layer_configs():
    models = assert_same_model("EfficientNetB0", (32, 32, 3), classifier_activation=None, classes=5)
    real, ours = [[model.get_layer(name).get_config() for name in
                   ("rescaling", "normalization", "stem_conv_pad", "block2a_dwconv", "block2b_drop",
                    "block1a_se_reduce", "top_dropout", "predictions")] for model in models]
    assert ours == real


def test_preprocess_input_is_identity():
    images = np.random.default_rng(0).uniform(0, 255, size=(1, 2, 2, 3)).astype("float32")
    assert VFW.keras.applications.efficientnet.preprocess_input(images) is images
