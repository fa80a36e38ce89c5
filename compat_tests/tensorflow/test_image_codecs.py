"""tf.io JPEG / GIF / BMP decoding and decode_image dispatch of vfw vs real TensorFlow 2.21: the same pixels
(exactly) for files TF and Pillow write, and the same error classes."""

import io
import os

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
rtf = pytest.importorskip("tensorflow")
Image = pytest.importorskip("PIL.Image")

import vfw.tensorflow as vtf  # noqa: E402

from compat_tests.tensorflow.harness import check  # noqa: E402

RNG = np.random.default_rng(7)


def _picture(height, width, channels, kind):
    """Random noise (worst case for the IDCT's rounding) or blocky smooth content plus noise."""
    if kind == "noise":
        return RNG.integers(0, 256, (height, width, channels), dtype=np.uint8)
    coarse = np.kron(RNG.random((height // 8 + 2, width // 8 + 2, channels)), np.ones((8, 8, 1)))
    return (coarse[:height, :width] * 200 + RNG.random((height, width, channels)) * 55).astype(np.uint8)


def _same_pixels(data, **kwargs):
    want = rtf.io.decode_jpeg(data, **kwargs).numpy()
    got = vtf.io.decode_jpeg(data, **kwargs).numpy()
    assert got.dtype == want.dtype and got.shape == want.shape, (got.shape, want.shape)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("shape", [(16, 16, 3), (37, 53, 3), (23, 41, 1), (9, 70, 3)])
@pytest.mark.parametrize("quality", [10, 75, 95, 100])
@pytest.mark.parametrize("kind", ["noise", "smooth"])
def test_decode_jpeg_written_by_tf(shape, quality, kind):
    image = _picture(*shape, kind)
    for chroma_downsampling in (True, False):
        data = rtf.io.encode_jpeg(image, quality=quality, chroma_downsampling=chroma_downsampling).numpy()
        _same_pixels(data)
        _same_pixels(data, dct_method="INTEGER_ACCURATE")
        _same_pixels(data, dct_method="INTEGER_FAST", fancy_upscaling=False)
        for channels in (1, 3):
            _same_pixels(data, channels=channels)


def _pillow_jpeg(image, **options):
    buffer = io.BytesIO()
    Image.fromarray(image.squeeze(-1) if image.shape[-1] == 1 else image).save(buffer, "JPEG", **options)
    return buffer.getvalue()


@pytest.mark.parametrize("options", [
    {"subsampling": 1, "quality": 80},  # 4:2:2
    {"subsampling": 2, "quality": 60, "optimize": True},  # 4:2:0, optimised Huffman tables
    {"subsampling": 0, "quality": 90, "restart_marker_blocks": 3},
    {"subsampling": 2, "quality": 70, "restart_marker_rows": 1, "exif": b"Exif\0\0" + bytes(40)},
    {"quality": 50, "comment": "vfw"},
])
def test_decode_jpeg_written_by_pillow(options):
    for shape in ((45, 67, 3), (16, 8, 3)):
        data = _pillow_jpeg(_picture(*shape, "smooth"), **options)
        _same_pixels(data)
        _same_pixels(data, dct_method="INTEGER_ACCURATE", channels=1)
    _same_pixels(_pillow_jpeg(_picture(30, 21, 1, "noise"), **options), channels=3)


def test_progressive_jpeg_is_refused_clearly():
    data = _pillow_jpeg(_picture(16, 16, 3, "smooth"), progressive=True)
    with pytest.raises(vtf.errors.InvalidArgumentError, match="progressive"):
        vtf.io.decode_jpeg(data)


def _gif(frames, **options):
    buffer = io.BytesIO()
    frames[0].save(buffer, "GIF", save_all=len(frames) > 1, append_images=frames[1:], **options)
    return buffer.getvalue()


def _gif_cases():
    noise = [Image.fromarray(_picture(37, 53, 3, "noise")).convert("P") for _ in range(3)]
    base = _picture(40, 30, 3, "smooth")
    moving = []
    for i in range(4):  # frames differing in a small region: Pillow writes cropped, transparent frames
        frame = base.copy()
        frame[5 + i:15 + i, 3:20] = RNG.integers(0, 256, 3)
        moving.append(Image.fromarray(frame).quantize(64))
    return [_gif(noise, duration=10, loop=0), _gif(moving, duration=10, optimize=True, disposal=1),
            _gif([Image.fromarray(base).convert("P")], interlace=True),
            _gif([Image.fromarray(base[..., 0])]), _gif([Image.fromarray(base).convert("P")], transparency=3)]


def test_decode_gif_and_decode_image():
    for data in _gif_cases():
        for fn in (lambda tf, d: tf.io.decode_gif(d), lambda tf, d: tf.io.decode_image(d),
                   lambda tf, d: tf.io.decode_image(d, expand_animations=False),
                   lambda tf, d: tf.image.decode_image(d, channels=3, dtype=tf.float32),
                   lambda tf, d: tf.io.decode_png(d), lambda tf, d: tf.io.decode_jpeg(d)):
            check(lambda tf, fn=fn, d=data: fn(tf, d))


def _bmp(image):
    buffer = io.BytesIO()
    Image.fromarray(image.squeeze(-1) if image.shape[-1] == 1 else image).save(buffer, "BMP")
    return buffer.getvalue()


@pytest.mark.parametrize("channels", [1, 3, 4])
def test_decode_bmp(channels):
    data = _bmp(_picture(5, 7, channels, "noise"))
    flipped = bytearray(data)  # a negative height: rows stored top-down
    flipped[22:26] = (-5).to_bytes(4, "little", signed=True)
    for contents in (data, bytes(flipped)):
        for want in (0, 3, 4):
            check(lambda tf, c=contents, w=want: tf.io.decode_bmp(c, channels=w))
            check(lambda tf, c=contents, w=want: tf.io.decode_image(c, channels=w))


def test_decode_image_dispatch_and_errors():
    jpeg = rtf.io.encode_jpeg(_picture(12, 10, 3, "smooth")).numpy()
    png = rtf.io.encode_png(_picture(12, 10, 4, "noise")).numpy()
    bmp = _bmp(_picture(4, 6, 3, "noise"))
    gif = _gif_cases()[0]
    for data in (jpeg, png, bmp, gif, b"not an image"):
        for op in ("decode_jpeg", "decode_png", "decode_gif", "decode_bmp"):
            check(lambda tf, d=data, o=op: getattr(tf.io, o)(d))
        for channels in (0, 1, 2, 3, 4):
            check(lambda tf, d=data, c=channels: tf.io.decode_image(d, channels=c))
            check(lambda tf, d=data, c=channels: tf.io.decode_image(d, channels=c, dtype=tf.uint16))
        check(lambda tf, d=data: tf.io.decode_image(d, dtype=tf.float16))
        check(lambda tf, d=data: tf.io.is_jpeg(d))
        check(lambda tf, d=data: tf.image.extract_jpeg_shape(d, output_type=tf.int64))
    check(lambda tf: tf.io.extract_jpeg_shape(rtf.io.encode_jpeg(np.zeros((5, 9, 1), np.uint8)).numpy()))


def test_decode_jpeg_in_a_tf_function():
    files = [rtf.io.encode_jpeg(_picture(8 + i, 11, 3, "smooth")).numpy() for i in range(3)]
    decode = vtf.function(lambda contents: vtf.image.decode_jpeg(contents, channels=3))
    for data in files:
        np.testing.assert_array_equal(decode(vtf.constant(data)).numpy(), rtf.io.decode_jpeg(data, channels=3).numpy())
