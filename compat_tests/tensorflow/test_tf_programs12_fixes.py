"""Fixes found running round 12 of the TF/Keras programs (compat_tests/programs/tf_more11) under vfw, against real
TF 2.21: ``tf.io.encode_jpeg`` computes libjpeg's coefficients (fixed-point colour conversion, biased 2x2 chroma
averages padded by rows, the islow integer DCT, rounding quantiser), so a decoder gives TF's pixels, and with it
``tf.image.adjust_jpeg_quality`` / ``stateless_random_jpeg_quality``."""

import numpy as np
import pytest

from compat_tests.tensorflow.harness import check

real_tf = pytest.importorskip("tensorflow")
import vfw.tensorflow as vtf  # noqa: E402


def _image(shape, smooth, seed=0):
    x = np.random.default_rng(seed).uniform(size=shape)
    if smooth:
        x = np.cumsum(np.cumsum(x, 0), 1)
        x /= x.max()
    return (x * 255).astype(np.uint8)


@pytest.mark.parametrize("shape", [(8, 8, 3), (10, 13, 3), (17, 9, 3), (1, 1, 3), (31, 33, 3), (7, 5, 1)])
@pytest.mark.parametrize("smooth", [False, True])
@pytest.mark.parametrize("options", [{}, {"quality": 1}, {"quality": 50}, {"quality": 100},
                                     {"quality": 70, "chroma_downsampling": False}])
def test_encode_jpeg_decodes_to_tf_pixels(shape, smooth, options):
    image = _image(shape, smooth)
    ours = vtf.io.encode_jpeg(image, **options).numpy()
    theirs = real_tf.io.encode_jpeg(image, **options).numpy()
    np.testing.assert_array_equal(real_tf.io.decode_jpeg(ours).numpy(), real_tf.io.decode_jpeg(theirs).numpy())


def test_jpeg_quality_ops_match_tf():
    image = np.random.default_rng(1).uniform(size=(2, 8, 8, 3)).astype(np.float32)
    check(lambda tf, x: tf.image.adjust_jpeg_quality(x, 70), image)
    check(lambda tf, x: tf.image.stateless_random_jpeg_quality(x[0], 50, 90, seed=(1, 2)), image)


def _traced(tf, body, *args):
    """``body``'s static shapes while tf.function traces it, and its results on ``args``."""
    shapes = []

    @tf.function
    def run(*xs):
        results = body(tf, *xs)
        shapes.extend(r.shape for r in results)
        return results

    return run(*args), shapes


def test_random_image_ops_in_tf_function_keep_tf_static_shapes():
    def body(tf, image, seed):
        hue = tf.image.stateless_random_hue(image, 0.2, seed=seed)
        crop = tf.image.stateless_random_crop(hue, [3, 4, 3], seed=seed)
        return hue, crop, tf.slice(image, seed[:1] * 0 + [1, 0, 0], [2, -1, 3]), tf.image.adjust_jpeg_quality(crop, 80)

    image = np.random.default_rng(2).uniform(size=(6, 5, 3)).astype(np.float32)
    check(lambda tf, x, s: _traced(tf, body, x, s), image, np.array([3, 4], np.int32))


def test_decoded_image_sizes_follow_each_call_in_tf_function():
    def run(tf, small, large):
        def body(tf, contents):
            return (tf.io.decode_jpeg(contents, channels=3), tf.io.decode_jpeg(contents), tf.io.decode_png(
                tf.io.encode_png(tf.io.decode_jpeg(contents, channels=1)), channels=1),
                tf.io.decode_image(contents, channels=3, expand_animations=False))

        traced = []

        @tf.function
        def decode(contents):
            results = body(tf, contents)
            traced.append([r.shape for r in results])
            return results

        return [decode(tf.io.encode_jpeg(x)) for x in (small, large)], traced

    rng = np.random.default_rng(3)
    check(run, rng.integers(0, 255, (4, 4, 3)).astype(np.uint8), rng.integers(0, 255, (6, 5, 3)).astype(np.uint8))


def test_adjust_jpeg_quality_of_unknown_channels_in_tf_function():
    def body(tf, image, size):
        return (tf.image.adjust_jpeg_quality(tf.slice(image, [0, 0, 0], size), 60),)

    image = np.random.default_rng(4).uniform(size=(6, 7, 3)).astype(np.float32)
    check(lambda tf, x, size: _traced(tf, body, x, size), image, np.array([4, 5, 3], np.int32))
