"""keras.ops.image (resize, color conversions) and Resizing's interpolations against real Keras 3.15.1 on TF."""

import os

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
keras = pytest.importorskip("keras")

from vfw.frontends.tensorflow import keras as vkeras  # noqa: E402


def _images(shape, dtype="float32", seed=0, high=255.0):
    return np.random.default_rng(seed).uniform(0, high, shape).astype(dtype)


def _same(call, *args, rtol=1e-5, atol=1e-3, **kwargs):
    """``call(keras module)`` in real Keras and vfw: same values and dtype, or the same exception type."""
    try:
        want = call(keras, *args, **kwargs)
    except Exception as error:  # noqa: BLE001 - the oracle's exception type is what vfw must raise
        with pytest.raises(Exception) as raised:
            call(vkeras, *args, **kwargs)
        assert type(raised.value).__name__ == type(error).__name__, raised.value
        return
    got = call(vkeras, *args, **kwargs)
    assert str(got.dtype).split(".")[-1].replace("'>", "") == str(want.dtype).split(".")[-1].replace("'>", "")
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=rtol, atol=atol)


@pytest.mark.parametrize("interpolation", ["bilinear", "nearest", "lanczos3", "lanczos5", "bicubic", "area",
                                           "gaussian", "mitchellcubic"])
@pytest.mark.parametrize("antialias", [False, True])
@pytest.mark.parametrize("data_format", ["channels_last", "channels_first"])
def test_resize(interpolation, antialias, data_format):
    _same(lambda k: k.ops.image.resize(_images((2, 5, 7, 3)), (4, 9), interpolation=interpolation,
                                       antialias=antialias, data_format=data_format))


@pytest.mark.parametrize("aspect", ["crop_to_aspect_ratio", "pad_to_aspect_ratio"])
@pytest.mark.parametrize("data_format", ["channels_last", "channels_first"])
@pytest.mark.parametrize("dtype,fill_value", [("uint8", 3), ("uint8", 3.0), ("float32", 3.0)])
@pytest.mark.parametrize("shape,size", [((6, 9, 3), (4, 4)), ((2, 3, 9, 7), (5, 2))])
def test_resize_aspect_ratio(aspect, data_format, dtype, fill_value, shape, size):
    _same(lambda k: k.ops.image.resize(_images(shape, dtype), size, interpolation="area",
                                       data_format=data_format, fill_value=fill_value, **{aspect: True}))


@pytest.mark.parametrize("kwargs", [{"fill_mode": "reflect"}, {"size": (3,)}, {"crop_to_aspect_ratio": True,
                                                                              "pad_to_aspect_ratio": True}])
def test_resize_errors(kwargs):
    arguments = {"size": (3, 3), **kwargs}
    _same(lambda k: k.ops.image.resize(_images((5, 5, 3)), **arguments))


def test_resize_rank_error():
    _same(lambda k: k.ops.image.resize(_images((5, 5)), (3, 3)))


@pytest.mark.parametrize("interpolation", ["lanczos3", "lanczos5", "area", "bicubic", "gaussian"])
@pytest.mark.parametrize("antialias", [False, True])
def test_resizing_layer(interpolation, antialias):
    _same(lambda k: k.layers.Resizing(3, 8, interpolation=interpolation, antialias=antialias)(
        _images((2, 6, 5, 3), "uint8")))


@pytest.mark.parametrize("function", ["rgb_to_grayscale", "rgb_to_hsv", "hsv_to_rgb"])
@pytest.mark.parametrize("data_format", ["channels_last", "channels_first"])
@pytest.mark.parametrize("shape", [(2, 4, 5, 3), (3, 4, 3), (4, 3, 3, 3)])
def test_color_conversions(function, data_format, shape):
    _same(lambda k: getattr(k.ops.image, function)(_images(shape, high=1.0), data_format=data_format))


@pytest.mark.parametrize("function", ["rgb_to_grayscale", "rgb_to_hsv"])
def test_color_conversion_errors(function):
    _same(lambda k: getattr(k.ops.image, function)(_images((4, 5, 3), "int32")))
    _same(lambda k: getattr(k.ops.image, function)(_images((5, 3))))


def test_symbolic_resize():
    for k in (keras, vkeras):
        inputs = k.Input((6, 8, 3))
        assert tuple(k.ops.image.resize(inputs, (3, 4), interpolation="area").shape) == (None, 3, 4, 3)
