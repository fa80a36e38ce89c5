"""Uncompressed BMP decoding with numpy (8-bit samples, 24-bit BGR and 32-bit BGRA rows, as TensorFlow reads)."""

import struct

import numpy as np

SIGNATURE = b"BM"


class BMPError(ValueError):
    """Data that is not a BMP this decoder reads (the frontends translate it to their error type)."""


def decode(data):
    """``[height, width, channels]`` uint8 pixels of BMP bytes: 8-bit files give their raw 1-channel samples,
    24-bit ones RGB, 32-bit ones RGBA (rows bottom-up unless the height is negative).

    Raises
    ------
    BMPError
        For data that is not a BMP, or one with an unsupported bit depth or truncated pixels.
    """
    data = bytes(data)
    if data[:2] != SIGNATURE or len(data) < 30:
        raise BMPError("not a BMP file")
    (offset,) = struct.unpack("<i", data[10:14])
    width, height = struct.unpack("<ii", data[18:26])
    (bits,) = struct.unpack("<h", data[28:30])
    channels = bits // 8
    if bits % 8 or channels not in (1, 3, 4):
        raise BMPError(f"Number of channels must be 1, 3 or 4, was {channels}")
    if width <= 0 or height == 0:
        raise BMPError(f"BMP width must be positive and height nonzero, got {width}x{height}")
    rows = abs(height)
    stride = (channels * width + 3) // 4 * 4  # rows are padded to 4 bytes
    if offset < 0 or offset + stride * rows > len(data):
        raise BMPError("BMP pixel data is truncated")
    pixels = np.frombuffer(data, np.uint8, stride * rows, offset).reshape(rows, stride)[:, :channels * width]
    pixels = pixels.reshape(rows, width, channels)
    if height > 0:
        pixels = pixels[::-1]
    if channels >= 3:
        pixels = pixels[..., [2, 1, 0, 3][:channels]]
    return np.ascontiguousarray(pixels)
