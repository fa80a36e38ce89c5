"""tf.io.encode_jpeg and the JPEG-quality image ops against TF 2.21: TF decodes vfw's JPEGs with the same error as
its own, and vfw's decoder reads vfw's bytes exactly as TF's."""

import numpy as np
import pytest

from compat_tests.tensorflow.harness import check

real_tf = pytest.importorskip("tensorflow")
import vfw.tensorflow as vtf  # noqa: E402


def _image(shape, seed=0):
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:shape[0], 0:shape[1]]
    smooth = np.stack([yy * 5, xx * 4, (yy + xx) * 3], -1)[..., :shape[2]]
    return np.clip(smooth + rng.integers(0, 25, shape), 0, 255).astype(np.uint8)


@pytest.mark.parametrize("shape", [(37, 53, 3), (16, 16, 3), (5, 3, 3), (29, 40, 1), (64, 8, 3)])
@pytest.mark.parametrize("options", [{}, {"quality": 50}, {"quality": 10, "chroma_downsampling": False},
                                     {"quality": 100}, {"quality": 0}])
def test_encode_jpeg_decodes_like_tf_own(shape, options):
    image = _image(shape)
    ours = vtf.io.encode_jpeg(image, **options).numpy()
    theirs = real_tf.io.encode_jpeg(image, **options).numpy()
    assert ours[:2] == b"\xff\xd8" and ours[-2:] == b"\xff\xd9"
    decoded_ours = real_tf.io.decode_jpeg(ours).numpy()
    decoded_theirs = real_tf.io.decode_jpeg(theirs).numpy()
    assert decoded_ours.shape == decoded_theirs.shape == shape
    error_ours = np.abs(decoded_ours.astype(int) - image).mean()
    error_theirs = np.abs(decoded_theirs.astype(int) - image).mean()
    assert error_ours <= error_theirs * 1.1 + 0.3
    assert np.abs(decoded_ours.astype(int) - decoded_theirs).mean() <= max(1.0, error_theirs * 0.5)


_DECODE_CASES = [(shape, options) for shape in [(37, 53, 3), (16, 16, 3), (29, 40, 1), (64, 8, 3), (5, 3, 3)]
                 for options in [{}, {"quality": 10, "chroma_downsampling": False}, {"quality": 100}]]


@pytest.mark.parametrize("shape, options", _DECODE_CASES)
def test_vfw_decodes_vfw_jpeg_as_tf(shape, options):
    ours = vtf.io.encode_jpeg(_image(shape), **options).numpy()
    for kwargs in ({}, {"dct_method": "INTEGER_ACCURATE"}, {"channels": 1}, {"channels": 3}):
        np.testing.assert_array_equal(vtf.io.decode_jpeg(ours, **kwargs).numpy(),
                                      real_tf.io.decode_jpeg(ours, **kwargs).numpy())


def test_encode_jpeg_header_fields():
    image = _image((20, 30, 3))
    data = vtf.io.encode_jpeg(image, density_unit="cm", x_density=72, y_density=96, xmp_metadata="<x/>").numpy()
    assert data[6:11] == b"JFIF\x00" and data[13] == 2
    assert int.from_bytes(data[14:16], "big") == 72 and int.from_bytes(data[16:18], "big") == 96
    assert b"http://ns.adobe.com/xap/1.0/\x00<x/>" in data
    np.testing.assert_array_equal(real_tf.io.extract_jpeg_shape(data).numpy(), [20, 30, 3])
    assert vtf.image.encode_jpeg is vtf.io.encode_jpeg


def test_encode_jpeg_errors():
    check(lambda tf, x: tf.io.encode_jpeg(x, format="grayscale"), _image((4, 4, 3)))
    check(lambda tf, x: tf.io.encode_jpeg(x, format="rgb"), _image((4, 4, 1)))
    check(lambda tf, x: tf.io.encode_jpeg(x, quality=101), _image((4, 4, 3)))
    check(lambda tf, x: tf.io.encode_jpeg(x[..., :2]), _image((4, 4, 3)))
    check(lambda tf, x: tf.io.encode_jpeg(x[..., 0]), _image((4, 4, 3)))


@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
@pytest.mark.parametrize("channels", [1, 3])
def test_adjust_jpeg_quality_close_to_tf(dtype, channels):
    image = _image((24, 33, channels), seed=1)
    if dtype == np.float32:
        image = image.astype(np.float32) / 255
    want = real_tf.image.adjust_jpeg_quality(image, 40).numpy()
    got = vtf.image.adjust_jpeg_quality(image, 40).numpy()
    assert got.dtype == want.dtype and got.shape == want.shape
    scale = 255 if dtype == np.float32 else 1
    assert np.abs(got.astype(np.float64) * scale - want.astype(np.float64) * scale).mean() < 2.0
    check(lambda tf, x: tf.image.adjust_jpeg_quality(x, 40), np.zeros((2, 4, 4, 3), np.float32))


def test_stateless_random_jpeg_quality_uses_tf_quality():
    image = _image((16, 24, 3), seed=2)
    seed = (4, 9)
    quality = int(real_tf.random.stateless_uniform([], seed, 20, 90, dtype="int32"))
    want = vtf.image.adjust_jpeg_quality(image, quality).numpy()
    np.testing.assert_array_equal(vtf.image.stateless_random_jpeg_quality(image, 20, 90, seed).numpy(), want)
    check(lambda tf, x: tf.image.stateless_random_jpeg_quality(x, 50, 40, seed), image)
    check(lambda tf, x: tf.image.random_jpeg_quality(x, -1, 40), image)


def test_decode_and_crop_jpeg():
    data = np.array(real_tf.io.encode_jpeg(_image((30, 41, 3))).numpy(), dtype=object)
    check(lambda tf, d: tf.io.decode_and_crop_jpeg(d, [3, 5, 20, 30]), data)
    check(lambda tf, d: tf.image.decode_and_crop_jpeg(d, [0, 0, 30, 41], channels=1), data)
    check(lambda tf, d: tf.io.decode_and_crop_jpeg(d, [20, 5, 20, 30]), data)
