"""keras.applications.imagenet_utils against real Keras 3.15.1: preprocess_input (numpy, tensors, symbolic),
decode_predictions, and the shared input-shape / classifier checks."""

import numpy as np
import pytest

from compat_tests.keras.core_harness import REAL, VFW
from vfw.frontends.tensorflow.keras.src.applications import imagenet_utils as vfw_utils

# Keras' own module (obtain_input_shape... are not public), imported after the harness quiets TensorFlow.
real_utils = REAL.keras.src.applications.imagenet_utils
MODES = ["caffe", "tf", "torch"]


def _images(dtype, data_format, ndim):
    shape = (2, 3, 4, 5) if data_format == "channels_first" else (2, 4, 5, 3)
    values = np.random.default_rng(0).integers(0, 256, shape[-ndim:])
    return values.astype(dtype)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("data_format", ["channels_last", "channels_first"])
@pytest.mark.parametrize("ndim", [3, 4])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "uint8"])
def test_preprocess_numpy(dtype, data_format, ndim, mode):
    images = _images(dtype, data_format, ndim)
    real_input, vfw_input = images.copy(), images.copy()
    expected = REAL.keras.applications.imagenet_utils.preprocess_input(real_input, data_format, mode)
    got = VFW.keras.applications.imagenet_utils.preprocess_input(vfw_input, data_format, mode)
    assert got.dtype == expected.dtype
    np.testing.assert_array_equal(got, expected)
    # Float inputs are updated in place, as Keras does.
    np.testing.assert_array_equal(vfw_input, real_input)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("data_format", ["channels_last", "channels_first"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32"])
def test_preprocess_tensor(dtype, data_format, mode):
    images = _images(dtype, data_format, 4)
    results = []
    for lib in (REAL, VFW):
        try:
            out = lib.keras.applications.imagenet_utils.preprocess_input(lib.tf.constant(images), data_format, mode)
            results.append((out.dtype.name, out.numpy()))
        except TypeError as error:  # TF refuses int tensor / float scalar
            results.append(type(error))
    if isinstance(results[0], tuple):
        assert results[1][0] == results[0][0]
        np.testing.assert_allclose(results[1][1], results[0][1], rtol=1e-6)
    else:
        assert results[1] is results[0]


@pytest.mark.parametrize("mode", MODES)
def test_preprocess_symbolic_input(mode):
    images = _images("float32", "channels_last", 4)
    outputs = []
    for lib in (REAL, VFW):
        inputs = lib.keras.Input((4, 5, 3))
        model = lib.keras.Model(inputs, lib.keras.applications.imagenet_utils.preprocess_input(inputs, mode=mode))
        outputs.append(np.asarray(model(images)))
    np.testing.assert_allclose(outputs[1], outputs[0], rtol=1e-6)


@pytest.mark.parametrize("kwargs", [dict(mode="foo"), dict(data_format="channels_middle")])
def test_preprocess_errors(kwargs):
    for lib in (REAL, VFW):
        with pytest.raises(ValueError, match="Expected"):
            lib.keras.applications.imagenet_utils.preprocess_input(np.zeros((1, 2, 2, 3)), **kwargs)


def test_decode_predictions(monkeypatch):
    index = {str(i): [f"n{i:08d}", f"class_{i}"] for i in range(1000)}
    monkeypatch.setattr(real_utils, "CLASS_INDEX", index)
    monkeypatch.setattr(vfw_utils, "CLASS_INDEX", index)
    preds = np.random.default_rng(0).random((3, 1000)).astype("float32")
    for top in (1, 5):
        expected = REAL.keras.applications.imagenet_utils.decode_predictions(preds, top=top)
        got = VFW.keras.applications.imagenet_utils.decode_predictions(preds, top=top)
        assert got == expected
    assert VFW.keras.applications.imagenet_utils.decode_predictions(VFW.tf.constant(preds), top=2) == \
        REAL.keras.applications.imagenet_utils.decode_predictions(preds, top=2)


@pytest.mark.parametrize("shape", [(2, 10), (1000,)])
def test_decode_predictions_shape_error(shape):
    for lib in (REAL, VFW):
        with pytest.raises(ValueError, match="expects a batch of predictions"):
            lib.keras.applications.imagenet_utils.decode_predictions(np.zeros(shape))


@pytest.mark.parametrize("args", [
    (None, 224, 32, "channels_last", True), (None, 224, 32, "channels_first", True),
    (None, 224, 32, "channels_last", False), (None, 224, 32, "channels_first", False),
    ((100, 100, 3), 224, 32, "channels_last", True), ((100, 100, 3), 224, 32, "channels_last", False, "imagenet"),
    ((100, 100, 3), 224, 32, "channels_last", True, "imagenet"), ((224, 224, 3), 224, 32, "channels_last", True,
                                                                   "imagenet"),
    ((100, 100, 1), 224, 32, "channels_last", False, "imagenet"), ((100, 100, 1), 224, 32, "channels_last", False),
    ((100, 100), 224, 32, "channels_last", False), ((10, 10, 3), 224, 32, "channels_last", False),
    ((None, None, 3), 224, 32, "channels_last", False), ((None, None, 3), 224, 32, "channels_last", True),
    ((3, 10, 10), 224, 32, "channels_first", False), ((4, 100, 100), 224, 32, "channels_first", False, "imagenet"),
    (None, 224, 32, "channels_last", False, "imagenet"), ((75, 80, 3), 299, 75, "channels_last", False),
])
def test_obtain_input_shape(args):
    def outcome(function):
        try:
            return function(*args)
        except ValueError as error:
            return ("ValueError", str(error))
    assert outcome(vfw_utils.obtain_input_shape) == outcome(real_utils.obtain_input_shape)


@pytest.mark.parametrize("activation, weights", [
    ("softmax", "imagenet"), (None, "imagenet"), ("relu", None), ("relu", "imagenet"), ("linear", "imagenet"),
])
def test_validate_activation(activation, weights):
    def outcome(function):
        try:
            return function(activation, weights)
        except ValueError:
            return "ValueError"
    assert outcome(vfw_utils.validate_activation) == outcome(real_utils.validate_activation)


@pytest.mark.parametrize("shape, kernel", [((7, 7, 3), 3), ((8, 8, 3), (3, 3)), ((None, None, 3), 3),
                                           ((9, 10, 3), 5)])
def test_correct_pad(shape, kernel):
    expected = real_utils.correct_pad(REAL.keras.Input(shape), kernel)
    assert vfw_utils.correct_pad(VFW.keras.Input(shape), kernel) == expected


def test_namespace():
    names = sorted(n for n in dir(VFW.keras.applications.imagenet_utils) if not n.startswith("_"))
    assert names == ["decode_predictions", "preprocess_input"]
