"""keras.applications.inception_resnet_v2 against real Keras 3.15.1: structure, counts, outputs."""

import numpy as np

from compat_tests.keras.applications.families_b_harness import assert_same_model, assert_same_structure, summary_lines
from compat_tests.keras.core_harness import REAL, VFW


def test_model_and_scale_layers():
    models = assert_same_model("InceptionResNetV2", (75, 75, 3), classifier_activation=None, classes=4)
    real, ours = [[(type(model.get_layer(name)).__name__, model.get_layer(name).get_config())
                   for name in ("custom_scale_layer", "custom_scale_layer_39", "block8_10_conv", "conv_7b_bn")]
                  for model in models]
    assert ours == real
    assert summary_lines(models[1]) == summary_lines(models[0])


def test_headless_max_pooling():
    assert_same_structure("InceptionResNetV2", include_top=False, pooling="max", input_shape=(75, 75, 3))


def test_preprocess_input():
    images = np.random.default_rng(0).uniform(0, 255, size=(2, 4, 4, 3)).astype("float32")
    expected = REAL.keras.applications.inception_resnet_v2.preprocess_input(images.copy())
    got = VFW.keras.applications.inception_resnet_v2.preprocess_input(images.copy())
    np.testing.assert_allclose(got, expected, rtol=1e-6)
