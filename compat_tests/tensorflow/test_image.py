"""tf.image (resize, flips, rot90, central_crop, adjust_brightness/contrast, convert_image_dtype) against real
TF 2.21: values, dtypes, shapes, error kinds and resize gradients."""

import numpy as np
import pytest

from compat_tests.tensorflow.harness import check, check_grad

RNG = np.random.default_rng(0)
BATCH = RNG.uniform(0, 255, (2, 5, 7, 3)).astype(np.float32)
SIZES = [(3, 4), (9, 13), (5, 7), (1, 1), (10, 3)]


@pytest.mark.parametrize("method", ["bilinear", "nearest", "bicubic"])
@pytest.mark.parametrize("size", SIZES, ids=str)
@pytest.mark.parametrize("dtype", ["float32", "uint8", "int32", "float64", "float16"])
def test_resize(method, size, dtype):
    check(lambda tf: tf.image.resize(BATCH.astype(dtype), size, method=method), rtol=1e-5, atol=1e-3)


@pytest.mark.parametrize("method", ["bilinear", "nearest", "bicubic"])
def test_resize_unbatched_and_gradient(method):
    check(lambda tf: tf.image.resize(BATCH[0], (4, 9), method=method), atol=1e-3)
    check_grad(lambda tf, x: tf.image.resize(x, (4, 9), method=method) * tf.range(9.0)[:, None], BATCH[:1] / 255)


@pytest.mark.parametrize("shape,size", [((5, 7, 3), (2, 9)), ((4, 3, 1), (2, 9)), ((6, 5, 1), (4, 4)),
                                        ((7, 5, 1), (5, 100))], ids=str)
def test_resize_preserve_aspect_ratio(shape, size):
    check(lambda tf: tf.image.resize(np.ones(shape, np.float32), size, preserve_aspect_ratio=True))


def test_resize_errors():
    check(lambda tf: tf.image.resize(BATCH, (2, 9), method="foo"))
    check(lambda tf: tf.image.resize(BATCH[0, 0], (2, 9)))


@pytest.mark.parametrize("fn", ["flip_left_right", "flip_up_down"])
def test_flips(fn):
    check(lambda tf: getattr(tf.image, fn)(BATCH))
    check(lambda tf: getattr(tf.image, fn)(BATCH[0]))


@pytest.mark.parametrize("k", range(-1, 6))
def test_rot90(k):
    check(lambda tf: tf.image.rot90(BATCH, k))
    check(lambda tf: tf.image.rot90(BATCH[1], k))


@pytest.mark.parametrize("fraction", [0.1, 0.3, 0.5, 0.77, 1.0, 0.0])
def test_central_crop(fraction):
    check(lambda tf: tf.image.central_crop(BATCH, fraction))
    check(lambda tf: tf.image.central_crop(BATCH[0], fraction))


@pytest.mark.parametrize("delta", [0.1, -0.3])
def test_adjust_brightness(delta):
    check(lambda tf: tf.image.adjust_brightness(BATCH / 255, delta))
    check(lambda tf: tf.image.adjust_brightness(BATCH.astype(np.uint8), delta))


@pytest.mark.parametrize("factor", [0.5, 2.0])
def test_adjust_contrast(factor):
    check(lambda tf: tf.image.adjust_contrast(BATCH, factor), atol=1e-4)
    check(lambda tf: tf.image.adjust_contrast(BATCH[0], factor), atol=1e-4)


CONVERT_VALUES = {"uint8": np.array([0, 1, 127, 128, 255], np.uint8),
                  "int32": np.array([0, 5, 2 ** 30, 2 ** 31 - 1], np.int32),
                  "int16": np.array([0, 300, 32767], np.int16),
                  "float32": np.array([-0.2, 0, 0.3, 0.5, 0.999, 1.0, 1.3], np.float32),
                  "float64": np.array([0, 0.25, 1.0])}


@pytest.mark.parametrize("source", list(CONVERT_VALUES))
@pytest.mark.parametrize("target", ["uint8", "int32", "int16", "uint16", "float32", "float16", "float64"])
@pytest.mark.parametrize("saturate", [False, True])
def test_convert_image_dtype(source, target, saturate):
    check(lambda tf: tf.image.convert_image_dtype(CONVERT_VALUES[source], getattr(tf, target), saturate=saturate))


def test_convert_to_tensor_hint_applies_to_numpy_arrays():
    # TF 2.21 converts numpy arrays to the hint when it can, like Python values
    check(lambda tf: tf.convert_to_tensor(np.zeros(3), dtype_hint=tf.float32))
    check(lambda tf: tf.convert_to_tensor(np.zeros(3, np.int32), dtype_hint=tf.float16))
