"""tf.image.resize's area / lanczos / gaussian / mitchellcubic methods and antialiasing, and ScaleAndTranslate,
against real TF 2.21."""

import numpy as np
import pytest

from compat_tests.tensorflow.harness import check, check_grad

pytest.importorskip("tensorflow")

METHODS = ["area", "lanczos3", "lanczos5", "gaussian", "mitchellcubic", "bilinear", "bicubic", "nearest"]
SIZES = [(3, 9), (9, 4), (1, 1), (5, 7), (11, 13), (2, 20)]


def _images(shape, dtype="float32", seed=0):
    values = np.random.default_rng(seed).uniform(0, 255, shape)
    return values.astype(dtype)


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("antialias", [False, True])
@pytest.mark.parametrize("size", SIZES)
def test_resize_methods(method, antialias, size):
    check(lambda tf, x: tf.image.resize(x, size, method=method, antialias=antialias), _images((2, 5, 7, 3)),
          rtol=1e-5, atol=1e-3)


@pytest.mark.parametrize("method", ["area", "lanczos3", "gaussian", "mitchellcubic", "bilinear"])
@pytest.mark.parametrize("shape", [(1, 6, 3), (1, 1, 2), (17, 3, 1)])
@pytest.mark.parametrize("dtype", ["uint8", "float64", "float16", "int32"])
def test_resize_dtypes_unbatched(method, shape, dtype):
    check(lambda tf, x: tf.image.resize(x, (4, 5), method=method, antialias=True), _images(shape, dtype),
          rtol=1e-5, atol=1e-3)


@pytest.mark.parametrize("method", ["lanczos5", "area", "gaussian"])
def test_resize_preserve_aspect_ratio(method):
    check(lambda tf, x: tf.image.resize(x, (4, 12), method=method, preserve_aspect_ratio=True),
          _images((1, 8, 5, 2)), rtol=1e-5, atol=1e-3)


@pytest.mark.parametrize("method,antialias", [("lanczos3", False), ("lanczos5", True), ("gaussian", True),
                                              ("mitchellcubic", False), ("bilinear", True), ("bicubic", True)])
def test_resize_gradients(method, antialias):
    check_grad(lambda tf, x: tf.image.resize(x, (3, 8), method=method, antialias=antialias) ** 2,
               _images((2, 6, 5, 2)) / 255, rtol=1e-5, atol=1e-5)


def test_resize_area_has_no_gradient():
    import tensorflow

    import vfw.frontends.tensorflow as vtf
    for lib in (tensorflow, vtf):
        images = lib.constant(_images((1, 6, 5, 1)))
        with lib.GradientTape() as tape:
            tape.watch(images)
            resized = lib.image.resize(images, (3, 4), method="area")
        with pytest.raises(LookupError, match="ResizeArea"):
            tape.gradient(resized, images)


def test_resize_methods_through_crop_or_pad_and_pad():
    check(lambda tf, x: tf.image.resize_with_pad(x, 6, 9, method="lanczos3", antialias=True),
          _images((1, 5, 7, 2)), rtol=1e-5, atol=1e-3)


@pytest.mark.parametrize("kernel_type", ["lanczos1", "lanczos3", "lanczos5", "gaussian", "box", "triangle",
                                         "keyscubic", "mitchellcubic"])
@pytest.mark.parametrize("antialias", [False, True])
@pytest.mark.parametrize("size,scale,translation", [((4, 9), (0.6, 1.3), (0.0, 0.0)),
                                                    ((7, 6), (1.7, 0.35), (-1.25, 2.5)),
                                                    ((3, 3), (0.2, 3.0), (0.5, -4.0))])
def test_scale_and_translate(kernel_type, antialias, size, scale, translation):
    import tensorflow

    import vfw.frontends.tensorflow._image_scale as image_scale
    images = _images((2, 5, 7, 2))
    want = tensorflow.raw_ops.ScaleAndTranslate(images=images, size=size, scale=scale, translation=translation,
                                                kernel_type=kernel_type, antialias=antialias).numpy()
    got = image_scale.scale_and_translate(images, size, scale, translation, kernel_type, antialias)
    assert got.dtype.name == "float32"
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-5, atol=1e-3)


@pytest.mark.parametrize("kwargs,message", [({"kernel_type": "foo"}, "Unrecognized kernel type"),
                                            ({"size": [3]}, "two elements"),
                                            ({"scale": [0.0, 1.0]}, "greater than zero")])
def test_scale_and_translate_errors(kwargs, message):
    import tensorflow

    import vfw.frontends.tensorflow as vtf
    import vfw.frontends.tensorflow._image_scale as image_scale
    arguments = {"images": _images((1, 4, 4, 1)), "size": [3, 3], "scale": [0.7, 0.7], "translation": [0.0, 0.0]}
    arguments.update(kwargs)
    with pytest.raises(tensorflow.errors.InvalidArgumentError, match=message):
        tensorflow.raw_ops.ScaleAndTranslate(**arguments)
    with pytest.raises(vtf.errors.InvalidArgumentError, match=message):
        image_scale.scale_and_translate(**arguments)
