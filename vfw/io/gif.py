"""GIF decoding with numpy: every frame composed onto the logical screen (as TensorFlow's decoder does).

The LZW decompression is one sequential Python loop over the codes (each code's meaning depends on the table
built by the codes before it); colour lookup, de-interlacing and composition are vectorised.
"""

import struct

import numpy as np

SIGNATURES = (b"GIF87a", b"GIF89a")
# Interlaced rows: every 8th from 0, every 8th from 4, every 4th from 2, every 2nd from 1.
_PASSES = ((0, 8), (4, 8), (2, 4), (1, 2))


class GIFError(ValueError):
    """Data that is not a valid GIF (the frontends translate it to their error type)."""


def _color_table(data, pos, flags):
    if not flags & 0x80:
        return None, pos
    size = 3 << ((flags & 7) + 1)
    table = np.frombuffer(data[pos:pos + size], np.uint8)
    if len(table) != size:
        raise GIFError("GIF color table is truncated")
    return table.reshape(-1, 3), pos + size


def _sub_blocks(data, pos):
    """The concatenated data sub-blocks from ``pos`` and the position after their terminator."""
    pieces = []
    while True:
        if pos >= len(data):
            raise GIFError("GIF data is truncated")
        size = data[pos]
        if size == 0:
            return b"".join(pieces), pos + 1
        pieces.append(data[pos + 1:pos + 1 + size])
        pos += 1 + size


def _lzw_decode(stream, min_code_size, count):
    """The first ``count`` colour indices of GIF LZW ``stream`` (variable-width codes, LSB first)."""
    if not 1 <= min_code_size <= 11:
        raise GIFError(f"invalid GIF LZW minimum code size {min_code_size}")
    padded = np.frombuffer(stream + b"\0\0\0", np.uint8).astype(np.int32)
    window = (padded[:-2] | padded[1:-1] << 8 | padded[2:] << 16).tolist()  # 24 bits from each byte on
    clear, end = 1 << min_code_size, (1 << min_code_size) + 1
    roots = [bytes([i]) for i in range(clear)] + [b"", b""]
    table = list(roots)
    width, bit, limit = min_code_size + 1, 0, 8 * len(stream)
    previous = None
    out, produced = [], 0
    while produced < count and bit + width <= limit:
        code = window[bit >> 3] >> (bit & 7) & ((1 << width) - 1)
        bit += width
        if code == clear:
            table = list(roots)
            width, previous = min_code_size + 1, None
            continue
        if code == end:
            break
        if code < len(table):
            entry = table[code]
            if previous is not None:
                table.append(previous + entry[:1])
        elif code == len(table) and previous is not None:
            entry = previous + previous[:1]
            table.append(entry)
        else:
            raise GIFError("GIF LZW code out of range")
        out.append(entry)
        produced += len(entry)
        previous = entry
        if len(table) == 1 << width and width < 12:
            width += 1
    indices = np.frombuffer(b"".join(out), np.uint8)[:count]
    if len(indices) < count:  # a short frame keeps zeros (color 0) in its missing pixels, as giflib's fill
        indices = np.concatenate([indices, np.zeros(count - len(indices), np.uint8)])
    return indices


def decode(data):
    """``[frames, height, width, 3]`` uint8 RGB frames of GIF bytes.

    Each frame starts as a copy of the previous one (zeros for the first) and its image's pixels are drawn over
    it, except pixels of the transparent colour index; images are clipped to the logical screen.

    Raises
    ------
    GIFError
        For data that is not a valid GIF.
    """
    data = bytes(data)
    if data[:6] not in SIGNATURES:
        raise GIFError("not a GIF file (bad signature)")
    width, height, flags = struct.unpack("<HHB", data[6:11])
    global_table, pos = _color_table(data, 13, flags)
    frames, transparent = [], None
    canvas = np.zeros((height, width, 3), np.uint8)
    while pos < len(data):
        block = data[pos]
        if block == 0x3B:  # trailer
            break
        if block == 0x21:  # extension: a graphic control one sets the next image's transparent index
            label = data[pos + 1]
            body, pos = _sub_blocks(data, pos + 2)
            if label == 0xF9 and len(body) >= 4:
                transparent = body[3] if body[0] & 1 else None
            continue
        if block != 0x2C:
            raise GIFError(f"unknown GIF block type 0x{block:02x}")
        left, top, image_w, image_h, image_flags = struct.unpack("<HHHHB", data[pos + 1:pos + 10])
        local_table, pos = _color_table(data, pos + 10, image_flags)
        table = local_table if local_table is not None else global_table
        if table is None:
            raise GIFError("GIF image has no color table")
        if pos >= len(data):
            raise GIFError("GIF data is truncated")
        min_code_size = data[pos]
        stream, pos = _sub_blocks(data, pos + 1)
        indices = _lzw_decode(stream, min_code_size, image_w * image_h)
        indices = indices.reshape(image_h, image_w)
        if image_flags & 0x40:
            order = np.concatenate([np.arange(start, image_h, step) for start, step in _PASSES])
            interlaced = np.empty_like(indices)
            interlaced[order] = indices
            indices = interlaced
        canvas = canvas.copy()
        rows, cols = max(0, min(image_h, height - top)), max(0, min(image_w, width - left))
        indices = indices[:rows, :cols]
        drawn = indices[indices != transparent] if transparent is not None else indices.reshape(-1)
        if drawn.max(initial=0) >= len(table):
            raise GIFError(f"Found color index {int(drawn.max())} outside of color map range {len(table)}")
        region = canvas[top:top + rows, left:left + cols]
        if transparent is None:
            region[...] = table[indices]
        else:
            region[indices != transparent] = table[drawn]
        frames.append(canvas)
        transparent = None
    if not frames:
        raise GIFError("GIF has no image")
    return np.stack(frames)
