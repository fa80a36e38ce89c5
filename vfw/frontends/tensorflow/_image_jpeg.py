"""JPEG encoding for ``tf.io`` / ``tf.image``: ``encode_jpeg``, ``adjust_jpeg_quality``, ``random_jpeg_quality``,
``stateless_random_jpeg_quality`` and ``decode_and_crop_jpeg`` (the encoder is ``vfw.io.jpeg_encode``).

The encoder is baseline JPEG with per-image Huffman tables: its bytes differ from TF's libjpeg output, but the
quantisation (IJG tables, quality scaling) is TF's, so decoded images carry the same JPEG error.  Progressive
output is written as baseline (any decoder reads it the same way).
"""

import numpy as np

from vfw.frontends.tensorflow import _dtypes, _image_codec, _image_ops, _random_ops, _random_stateless
from vfw.frontends.tensorflow._dispatch import convert_to_tensor, host, op_error
from vfw.io import jpeg_encode

_FORMAT_CHANNELS = {"grayscale": 1, "rgb": 3}


def _encoded(pixels, quality, format, chroma_downsampling, density_unit, x_density, y_density, xmp, tf_op):
    if pixels.ndim != 3:
        raise op_error(f"image must be 3-dimensional[{','.join(map(str, pixels.shape))}]", tf_op)
    if format in _FORMAT_CHANNELS and pixels.shape[-1] != _FORMAT_CHANNELS[format]:
        raise op_error(f"format {format} expects {_FORMAT_CHANNELS[format]} channels, got "
                       f"[{','.join(map(str, pixels.shape))}]", tf_op)
    if pixels.shape[-1] not in (1, 3):
        raise op_error(f"image must have 1 or 3 channels, got [{','.join(map(str, pixels.shape))}]", tf_op)
    if not 0 <= quality <= 100:
        raise op_error(f"quality must be in [0,100], got {quality}", tf_op)
    if pixels.shape[0] >= 1 << 16 or pixels.shape[1] >= 1 << 16:
        raise op_error(f"image too large to encode: [{','.join(map(str, pixels.shape))}]", tf_op)
    return np.array(jpeg_encode.encode(np.ascontiguousarray(pixels), quality, chroma_downsampling, density_unit,
                                       x_density, y_density, xmp), dtype=object)


def encode_jpeg(image, format="", quality=95, progressive=False, optimize_size=False, chroma_downsampling=True,
                density_unit="in", x_density=300, y_density=300, xmp_metadata="", name=None):
    """JPEG string (scalar) of ``image`` ``[height, width, 1 or 3]`` uint8.

    Parameters
    ----------
    format : {"", "grayscale", "rgb"}
        "" takes the image's channels; the others require 1 or 3 of them.
    quality : int
        0-100, IJG scaling of the standard tables.
    progressive, optimize_size : bool
        Accepted; the output is baseline with image-optimised Huffman tables either way.
    chroma_downsampling : bool
        4:2:0 chroma (else 4:4:4).
    density_unit, x_density, y_density
        The JFIF header's pixel density ("in" or "cm").
    xmp_metadata : str
        Written as an XMP APP1 segment when not empty.
    """
    if format not in ("", "grayscale", "rgb"):
        raise ValueError(f"Value for attr 'format' of \"{format}\" is not in the list of allowed values: \"\", "
                         f"\"grayscale\", \"rgb\"")
    if density_unit not in ("in", "cm"):
        raise ValueError(f"Value for attr 'density_unit' of \"{density_unit}\" is not in the list of allowed "
                         f"values: \"in\", \"cm\"")
    image = convert_to_tensor(image, dtype=_dtypes.uint8)
    xmp = xmp_metadata.encode() if isinstance(xmp_metadata, str) else bytes(xmp_metadata)
    options = (int(quality), format, bool(chroma_downsampling), density_unit, int(x_density), int(y_density), xmp)
    return host(lambda pixels: _encoded(pixels, *options, "EncodeJpeg"), image)


def adjust_jpeg_quality(image, jpeg_quality, dct_method="", name=None):
    """``image`` (3-D, 1 or 3 channels) JPEG-encoded at ``jpeg_quality`` and decoded again, in its own dtype
    (floats are converted to uint8 and back as ``convert_image_dtype`` with saturation)."""
    image = convert_to_tensor(image)
    original = image.dtype
    pixels = _image_ops.convert_image_dtype(image, _dtypes.uint8, saturate=True)
    quality = convert_to_tensor(jpeg_quality, dtype=_dtypes.int32)
    tf_op = "EncodeJpegVariableQuality"

    def run(array, quality_array):
        if quality_array.ndim != 0:
            raise op_error(f"quality must be scalar: [{','.join(map(str, quality_array.shape))}]", tf_op)
        return _encoded(array, int(quality_array), "", True, "in", 300, 300, b"", tf_op)

    encoded = host(run, pixels, quality)
    decoded = _image_codec.decode_jpeg(encoded, channels=image.shape[-1] or 0, dct_method=dct_method)
    return _image_ops.convert_image_dtype(decoded, original, saturate=True)


def _check_quality_range(low, high):
    if low < 0 or high < 0 or low > 100 or high > 100:
        raise ValueError("jpeg_quality must be in the interval [0, 100].")
    if low >= high:
        raise ValueError("`min_jpeg_quality` must be less than `max_jpeg_quality`.")


def random_jpeg_quality(image, min_jpeg_quality, max_jpeg_quality, seed=None):
    """:func:`adjust_jpeg_quality` at a quality drawn uniformly from ``[min_jpeg_quality, max_jpeg_quality)``
    (``tf.random.uniform`` with ``seed``, TF's draw)."""
    _check_quality_range(min_jpeg_quality, max_jpeg_quality)
    quality = _random_ops.uniform([], min_jpeg_quality, max_jpeg_quality, seed=seed, dtype=_dtypes.int32)
    return adjust_jpeg_quality(image, quality)


def stateless_random_jpeg_quality(image, min_jpeg_quality, max_jpeg_quality, seed):
    """:func:`adjust_jpeg_quality` at a quality drawn from ``[min_jpeg_quality, max_jpeg_quality)`` by
    ``tf.random.stateless_uniform`` with ``seed`` (TF's quality for the same seed)."""
    _check_quality_range(min_jpeg_quality, max_jpeg_quality)
    quality = _random_stateless.stateless_uniform([], seed, min_jpeg_quality, max_jpeg_quality, dtype=_dtypes.int32)
    return adjust_jpeg_quality(image, quality)


def decode_and_crop_jpeg(contents, crop_window, channels=0, ratio=1, fancy_upscaling=True,
                         try_recover_truncated=False, acceptable_fraction=1, dct_method="", name=None):
    """The ``crop_window`` ``[y, x, height, width]`` (int32) window of the decoded JPEG ``contents``: the same
    pixels as decoding and then cropping."""
    image = _image_codec.decode_jpeg(contents, channels, ratio, fancy_upscaling, try_recover_truncated,
                                     acceptable_fraction, dct_method)
    window = convert_to_tensor(crop_window, dtype=_dtypes.int32)

    def crop(pixels, window_array):
        if window_array.shape != (4,):
            raise op_error(f"crop_window must be shape [4], got [{','.join(map(str, window_array.shape))}]",
                           "DecodeAndCropJpeg")
        top, left, height, width = (int(v) for v in window_array)
        if top < 0 or left < 0 or height <= 0 or width <= 0 or top + height > pixels.shape[0] or \
                left + width > pixels.shape[1]:
            raise op_error("Invalid JPEG data or crop window.", "DecodeAndCropJpeg")
        return pixels[top:top + height, left:left + width]

    return host(crop, image, window)


NAMESPACES = {"io": ["decode_and_crop_jpeg", "encode_jpeg"],
              "image": ["adjust_jpeg_quality", "decode_and_crop_jpeg", "encode_jpeg", "random_jpeg_quality",
                        "stateless_random_jpeg_quality"]}
TENSOR_METHODS = {}
