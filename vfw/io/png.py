"""PNG encoding and decoding with zlib and numpy.

Encoding writes every row with filter 0 (None), 8 or 16 bits per sample, color types gray (0), gray+alpha (4),
RGB (2), RGBA (6).  Decoding reads the chunks (CRCs checked), inflates the IDAT stream and undoes the row filters
one anti-diagonal of pixels at a time (a pixel depends on its left, upper and upper-left neighbours, so every
pixel of a diagonal is reconstructed at once), for bit depths 1-16, all color types (palettes expanded, ``tRNS``
to an alpha channel for palette images) and Adam7 interlacing.
"""

import struct
import zlib

import numpy as np

SIGNATURE = b"\x89PNG\r\n\x1a\n"
_COLOR_TYPES = {1: 0, 2: 4, 3: 2, 4: 6}  # channels -> color type
_SAMPLES = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}  # color type -> samples per pixel
# Adam7 passes: (first row, first column, row step, column step).
_ADAM7 = [(0, 0, 8, 8), (0, 4, 8, 8), (4, 0, 8, 4), (0, 2, 4, 4), (2, 0, 4, 2), (0, 1, 2, 2), (1, 0, 2, 1)]


class PNGError(ValueError):
    """Data that is not a valid PNG image (the frontends translate it to their error type)."""


def _chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def encode(image, compression=-1):
    """PNG bytes of ``image`` (``[height, width, channels]`` uint8 or uint16, 1 to 4 channels).

    Parameters
    ----------
    image : numpy.ndarray
    compression : int
        zlib level, -1 (default) to 9.
    """
    height, width, channels = image.shape
    depth = 16 if image.dtype == np.uint16 else 8
    rows = image.astype(">u2" if depth == 16 else np.uint8).reshape(height, -1).view(np.uint8)
    raw = np.concatenate([np.zeros((height, 1), np.uint8), rows], axis=1)
    header = struct.pack(">IIBBBBB", width, height, depth, _COLOR_TYPES[channels], 0, 0, 0)
    return b"".join([SIGNATURE, _chunk(b"IHDR", header), _chunk(b"IDAT", zlib.compress(raw.tobytes(), compression)),
                     _chunk(b"IEND", b"")])


def _chunks(data):
    if data[:8] != SIGNATURE:
        raise PNGError("not a PNG file (bad signature)")
    pos, out = 8, []
    while pos + 12 <= len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + length]
        (crc,) = struct.unpack(">I", data[pos + 8 + length:pos + 12 + length] or b"\0\0\0\0")
        if len(body) != length or zlib.crc32(kind + body) != crc:
            raise PNGError(f"PNG chunk {kind!r} is truncated or its CRC does not match")
        out.append((kind, body))
        pos += 12 + length
        if kind == b"IEND":
            break
    return out


def _paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = np.abs(p - a), np.abs(p - b), np.abs(p - c)
    return np.where((pa <= pb) & (pa <= pc), a, np.where(pb <= pc, b, c))


def _unfilter(raw, height, row_bytes, unit):
    """Reconstructed bytes ``[height, row_bytes]`` of filtered scanlines ``raw`` (``unit`` bytes per pixel)."""
    lines = raw.reshape(height, row_bytes + 1)
    kinds = lines[:, 0]
    if (kinds > 4).any():
        raise PNGError(f"unknown PNG filter type {int(kinds.max())}")
    columns = row_bytes // unit
    data = lines[:, 1:].reshape(height, columns, unit).astype(np.int32)
    if not kinds.any():
        return data.reshape(height, row_bytes).astype(np.uint8)
    out = np.zeros((height + 1, columns + 1, unit), np.int32)  # a zero row above and column left of the image
    for diagonal in range(height + columns - 1):
        r = np.arange(max(0, diagonal - columns + 1), min(height, diagonal + 1))
        c = diagonal - r
        x, left, up, corner = data[r, c], out[r + 1, c], out[r, c + 1], out[r, c]
        kind = kinds[r][:, None]
        predictor = np.select([kind == 1, kind == 2, kind == 3, kind == 4],
                              [left, up, (left + up) >> 1, _paeth(left, up, corner)], 0)
        out[r + 1, c + 1] = (x + predictor) & 0xFF
    return out[1:, 1:].reshape(height, row_bytes).astype(np.uint8)


def _samples(raw, height, width, depth, samples):
    """Unfiltered samples ``[height, width, samples]`` (uint8 or uint16) of one (sub)image's scanlines."""
    bits = width * samples * depth
    row_bytes = (bits + 7) // 8
    rows = _unfilter(raw, height, row_bytes, max(1, samples * depth // 8))
    if depth == 16:
        values = rows.view(">u2").astype(np.uint16)
    elif depth == 8:
        values = rows
    else:
        values = np.unpackbits(rows, axis=1)[:, :bits].reshape(height, -1, depth)
        values = (values * (1 << np.arange(depth - 1, -1, -1, dtype=np.uint8))).sum(axis=-1, dtype=np.uint8)
    return values.reshape(height, width, samples)


def decode(data):
    """The image of PNG bytes: ``(pixels [height, width, channels], depth)`` with ``depth`` the file's bit depth,
    uint8 pixels for depths up to 8 (gray samples of depth < 8 scaled to 0-255, as libpng does) and uint16 for
    depth 16.  Palette images become 8-bit RGB (RGBA with a ``tRNS`` chunk).

    Raises
    ------
    PNGError
        For data that is not a valid PNG.
    """
    chunks = _chunks(bytes(data))
    if not chunks or chunks[0][0] != b"IHDR":
        raise PNGError("PNG has no IHDR chunk")
    width, height, depth, color, _, _, interlace = struct.unpack(">IIBBBBB", chunks[0][1])
    if color not in _SAMPLES or depth not in (1, 2, 4, 8, 16):
        raise PNGError(f"unsupported PNG color type {color} / bit depth {depth}")
    samples = _SAMPLES[color]
    try:
        raw = np.frombuffer(zlib.decompress(b"".join(body for kind, body in chunks if kind == b"IDAT")), np.uint8)
    except zlib.error as e:
        raise PNGError(f"PNG image data is corrupt: {e}") from None
    try:
        if interlace:
            image = np.zeros((height, width, samples), np.uint16 if depth == 16 else np.uint8)
            pos = 0
            for row0, col0, row_step, col_step in _ADAM7:
                sub_h, sub_w = len(range(row0, height, row_step)), len(range(col0, width, col_step))
                if sub_h and sub_w:
                    size = sub_h * ((sub_w * samples * depth + 7) // 8 + 1)
                    image[row0::row_step, col0::col_step] = _samples(raw[pos:pos + size], sub_h, sub_w, depth, samples)
                    pos += size
        else:
            image = _samples(raw[:height * ((width * samples * depth + 7) // 8 + 1)], height, width, depth, samples)
    except ValueError as e:
        raise PNGError(f"PNG image data is truncated: {e}") from None
    if color == 3:
        palette = np.frombuffer(next((b for k, b in chunks if k == b"PLTE"), b""), np.uint8).reshape(-1, 3)
        alpha = next((b for k, b in chunks if k == b"tRNS"), None)
        if alpha is not None:
            opacity = np.full(len(palette), 255, np.uint8)
            opacity[:len(alpha)] = np.frombuffer(alpha, np.uint8)[:len(palette)]
            palette = np.concatenate([palette, opacity[:, None]], axis=1)
        if image.max(initial=0) >= len(palette):
            raise PNGError("PNG palette index out of range")
        return palette[image[..., 0]], depth
    if depth < 8:
        image = (image.astype(np.uint16) * 255 // ((1 << depth) - 1)).astype(np.uint8)
    return image, depth
