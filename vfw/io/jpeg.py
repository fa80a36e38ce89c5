"""Baseline JPEG decoding (ITU T.81 sequential Huffman) with numpy, pixel-exact with libjpeg-turbo's defaults.

The entropy decoding is one tight Python loop over the coded coefficients (each Huffman code's length depends on
the bits before it).  Everything after it runs on all blocks at once: dequantisation, the integer "slow" inverse
DCT (the Loeffler-Ligtenberg-Moschytz factorisation in 13-bit fixed point with 2 extra bits between the passes,
as libjpeg's ``ISLOW`` method), the "fancy" triangle-filter chroma upsampling and the fixed-point YCbCr -> RGB
conversion (16-bit fractions rounded per term, as libjpeg's tables).

Supported: 8-bit baseline and extended sequential frames (SOF0/SOF1), gray and 3-component YCbCr images, any
sampling factors (2x horizontal and/or vertical chroma with the triangle filter, other ratios by replication),
interleaved and single-component scans, restart intervals.  Progressive and arithmetic-coded files raise
:class:`JPEGError`.
"""

import struct

import numpy as np

SOI = b"\xff\xd8"
# Zigzag position -> natural (row-major) position of the 64 coefficients of a block.
_ZIGZAG = np.array([0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5, 12, 19, 26, 33, 40, 48, 41, 34, 27,
                    20, 13, 6, 7, 14, 21, 28, 35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51, 58,
                    59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63])
_SOF_NAMES = {0xC2: "progressive", 0xC3: "lossless", 0xC5: "differential", 0xC6: "differential progressive",
              0xC7: "differential lossless", 0xC9: "arithmetic-coded", 0xCA: "arithmetic-coded progressive",
              0xCB: "arithmetic-coded lossless", 0xCD: "arithmetic-coded differential",
              0xCE: "arithmetic-coded differential progressive", 0xCF: "arithmetic-coded differential lossless"}


class JPEGError(ValueError):
    """Data that is not a JPEG this decoder reads (the frontends translate it to their error type)."""


class _Component:
    __slots__ = ("ident", "h", "v", "table", "quant", "coefficients", "blocks_w", "blocks_h")

    def __init__(self, ident, h, v, table):
        self.ident, self.h, self.v, self.table = ident, h, v, table
        self.quant = None
        self.coefficients = None


class _Frame:
    """What the SOF segment says: size, components and their MCU-padded block grids."""

    def __init__(self, body, marker):
        precision, self.height, self.width, count = struct.unpack(">BHHB", body[:6])
        if precision != 8:
            raise JPEGError(f"Unsupported JPEG data precision {precision}")
        if count not in (1, 3):
            raise JPEGError(f"Unsupported JPEG color: {count} components")
        if self.height == 0 or self.width == 0:
            raise JPEGError("Empty JPEG image (DNL not supported)")
        self.components = []
        for i in range(count):
            ident, factors, table = body[6 + 3 * i], body[7 + 3 * i], body[8 + 3 * i]
            h, v = factors >> 4, factors & 15
            if not (1 <= h <= 4 and 1 <= v <= 4):
                raise JPEGError(f"Bogus sampling factors {h}x{v}")
            self.components.append(_Component(ident, h, v, table))
        self.h_max = max(c.h for c in self.components)
        self.v_max = max(c.v for c in self.components)
        self.mcus_w = -(-self.width // (8 * self.h_max))
        self.mcus_h = -(-self.height // (8 * self.v_max))
        for c in self.components:
            c.blocks_w, c.blocks_h = self.mcus_w * c.h, self.mcus_h * c.v
            c.coefficients = np.zeros(c.blocks_h * c.blocks_w * 64, np.int32)

    def plane_size(self, c):
        """Rows and columns of component ``c``'s own samples (T.81 A.1.1)."""
        return -(-self.height * c.v // self.v_max), -(-self.width * c.h // self.h_max)


def _huffman_table(counts, symbols):
    """A 65536-entry lookup: the next 16 bits -> ``code length << 8 | symbol`` (0 for no code)."""
    table = np.zeros(1 << 16, np.int32)
    code, k = 0, 0
    for length in range(1, 17):
        for _ in range(counts[length - 1]):
            if code >= 1 << length:
                raise JPEGError("Bogus Huffman table definition")
            shift = 16 - length
            table[code << shift:(code + 1) << shift] = length << 8 | symbols[k]
            code, k = code + 1, k + 1
        code <<= 1
    return table.tolist()


def _entropy_segments(data, pos):
    """The scan's entropy-coded bytes from ``pos`` (stuffed zeros removed), the start of each restart interval
    in it, and the position of the marker that ends the scan."""
    segments, starts, length = [], [0], 0
    while True:
        end = data.find(b"\xff", pos)
        while end >= 0 and end + 1 < len(data) and data[end + 1] in (0x00, 0xFF):
            if data[end + 1] == 0xFF:  # fill bytes before a marker
                end = data.find(b"\xff", end + 1)
                continue
            end = data.find(b"\xff", end + 2)
        if end < 0 or end + 1 >= len(data):
            end = len(data)
        piece = data[pos:end].replace(b"\xff\x00", b"\xff")
        segments.append(piece)
        length += len(piece)
        if end < len(data) and 0xD0 <= data[end + 1] <= 0xD7:
            starts.append(length)
            pos = end + 2
            continue
        return b"".join(segments), starts, end


def _decode_scan(frame, scan, tables, data, pos, restart_interval):
    """Decodes one sequential scan's coefficients into its components; returns the position after it."""
    stream, starts, end = _entropy_segments(data, pos)
    # Zero bits past the end, as libjpeg reads a truncated scan (with a warning only).
    padded = np.frombuffer(stream + bytes(64), np.uint8).astype(np.int32)
    window = (padded[:-2] << 16 | padded[1:-1] << 8 | padded[2:]).tolist()  # 24 bits from each byte on
    parts = []
    for c, dc_id, ac_id in scan:
        if dc_id not in tables[0] or ac_id not in tables[1]:
            raise JPEGError("Huffman table 0x%02x was not defined" % (dc_id if dc_id not in tables[0] else ac_id))
        if len(scan) == 1:  # non-interleaved: one block per MCU, over the component's own extent
            rows, cols = frame.plane_size(c)
            grid = np.arange(-(-rows // 8))[:, None] * c.blocks_w + np.arange(-(-cols // 8))
            offsets = grid.reshape(-1, 1) * 64
        else:
            mcu_rows = np.arange(frame.mcus_h)[:, None, None, None] * c.v + np.arange(c.v)[None, None, :, None]
            mcu_cols = np.arange(frame.mcus_w)[None, :, None, None] * c.h + np.arange(c.h)[None, None, None, :]
            offsets = ((mcu_rows * c.blocks_w + mcu_cols) * 64).reshape(frame.mcus_h * frame.mcus_w, -1)
        parts.append((tables[0][dc_id], tables[1][ac_id], offsets.tolist(), c))
    mcu_count = len(parts[0][2])
    interval = restart_interval or mcu_count
    bit = 0
    out_index = [[] for _ in parts]
    out_value = [[] for _ in parts]
    predictors = [0] * len(parts)
    for mcu in range(mcu_count):
        if mcu and mcu % interval == 0:
            segment = mcu // interval
            bit = 8 * starts[segment] if segment < len(starts) else 8 * len(stream)
            predictors = [0] * len(parts)
        for p, (dc_table, ac_table, offsets, _) in enumerate(parts):
            indices, values = out_index[p], out_value[p]
            for base in offsets[mcu]:
                entry = dc_table[window[bit >> 3] >> (8 - (bit & 7)) & 0xFFFF]
                if not entry:
                    raise JPEGError("Corrupt JPEG data: bad Huffman code")
                bit += entry >> 8
                size = entry & 15
                if size:
                    value = window[bit >> 3] >> (24 - (bit & 7) - size) & ((1 << size) - 1)
                    bit += size
                    if value < 1 << (size - 1):
                        value -= (1 << size) - 1
                    predictors[p] += value
                indices.append(base)
                values.append(predictors[p])
                k = 1
                while k < 64:
                    entry = ac_table[window[bit >> 3] >> (8 - (bit & 7)) & 0xFFFF]
                    if not entry:
                        raise JPEGError("Corrupt JPEG data: bad Huffman code")
                    bit += entry >> 8
                    symbol = entry & 255
                    size = symbol & 15
                    if size:
                        k += symbol >> 4
                        value = window[bit >> 3] >> (24 - (bit & 7) - size) & ((1 << size) - 1)
                        bit += size
                        if value < 1 << (size - 1):
                            value -= (1 << size) - 1
                        indices.append(base + k)
                        values.append(value)
                        k += 1
                    elif symbol == 0xF0:
                        k += 16
                    else:
                        break
                if k > 64:
                    raise JPEGError("Corrupt JPEG data: coefficient index past 63")
    for p, (_, _, _, c) in enumerate(parts):
        c.coefficients[np.array(out_index[p], np.int64)] = out_value[p]
    return end


def _parse(data):
    """The frame of JPEG bytes ``data`` with every component's quantised coefficients decoded."""
    if data[:2] != SOI:
        first, second = (data + b"\0\0")[:2]
        raise JPEGError(f"Not a JPEG file: starts with 0x{first:02x} 0x{second:02x}")
    pos, frame, quant, tables, restart_interval = 2, None, {}, ({}, {}), 0
    seen_scan = False
    while True:
        marker_at = data.find(b"\xff", pos)
        while 0 <= marker_at < len(data) - 1 and data[marker_at + 1] == 0xFF:
            marker_at += 1
        if marker_at < 0 or marker_at + 1 >= len(data):
            if seen_scan:
                return frame
            raise JPEGError("Premature end of JPEG file")
        marker = data[marker_at + 1]
        pos = marker_at + 2
        if marker == 0xD9:  # EOI
            if not seen_scan:
                raise JPEGError("JPEG datastream contains no image")
            return frame
        if 0xD0 <= marker <= 0xD7 or marker in (0x01, 0x00):
            continue
        if pos + 2 > len(data):
            raise JPEGError("Premature end of JPEG file")
        (length,) = struct.unpack(">H", data[pos:pos + 2])
        body = data[pos + 2:pos + length]
        if len(body) != length - 2:
            raise JPEGError("Premature end of JPEG file")
        pos += length
        if marker in (0xC0, 0xC1):
            frame = _Frame(body, marker)
        elif marker in _SOF_NAMES:
            raise JPEGError(f"Unsupported JPEG process: {_SOF_NAMES[marker]} (SOF type 0x{marker:02x})")
        elif marker == 0xC4:  # DHT
            at = 0
            while at < len(body):
                kind, ident = body[at] >> 4, body[at] & 15
                counts = body[at + 1:at + 17]
                total = sum(counts)
                tables[kind & 1][ident] = _huffman_table(counts, body[at + 17:at + 17 + total])
                at += 17 + total
        elif marker == 0xDB:  # DQT
            at = 0
            while at < len(body):
                wide, ident = body[at] >> 4, body[at] & 15
                size = 128 if wide else 64
                values = np.frombuffer(body[at + 1:at + 1 + size], ">u2" if wide else np.uint8).astype(np.int32)
                natural = np.zeros(64, np.int32)
                natural[_ZIGZAG] = values
                quant[ident] = natural
                at += 1 + size
        elif marker == 0xDD:  # DRI
            (restart_interval,) = struct.unpack(">H", body[:2])
        elif marker == 0xDA:  # SOS
            if frame is None:
                raise JPEGError("Scan before the frame header (SOF)")
            by_id = {c.ident: c for c in frame.components}
            scan = []
            for i in range(body[0]):
                c = by_id.get(body[1 + 2 * i])
                if c is None:
                    raise JPEGError(f"Invalid component ID {body[1 + 2 * i]} in SOS")
                if c.quant is None:
                    if c.table not in quant:
                        raise JPEGError(f"Quantization table 0x{c.table:02x} was not defined")
                    c.quant = quant[c.table]
                scan.append((c, body[2 + 2 * i] >> 4, body[2 + 2 * i] & 15))
            try:
                pos = _decode_scan(frame, scan, tables, data, pos, restart_interval)
            except IndexError:
                raise JPEGError("Corrupt JPEG data: premature end of data segment") from None
            seen_scan = True


# libjpeg's ISLOW constants: cosine products in units of 2**-13.
_CONST_BITS, _PASS1_BITS = 13, 2
(_F0298, _F0390, _F0541, _F0765, _F0899, _F1175, _F1501, _F1847, _F1961, _F2053, _F2562, _F3072) = (
    2446, 3196, 4433, 6270, 7373, 9633, 12299, 15137, 16069, 16819, 20995, 25172)


def _idct_1d(x, shift):
    """One pass of the integer "slow" IDCT along axis -2 of ``x`` (``[..., 8, n]`` int64), each output rounded
    and shifted right by ``shift`` bits."""
    x0, x1, x2, x3, x4, x5, x6, x7 = (x[..., i, :] for i in range(8))
    z1 = (x2 + x6) * _F0541
    even2 = z1 - x6 * _F1847
    even3 = z1 + x2 * _F0765
    even0 = (x0 + x4) << _CONST_BITS
    even1 = (x0 - x4) << _CONST_BITS
    t10, t13, t11, t12 = even0 + even3, even0 - even3, even1 + even2, even1 - even2
    z1, z2, z3, z4 = x7 + x1, x5 + x3, x7 + x3, x5 + x1
    z5 = (z3 + z4) * _F1175
    z1, z2 = z1 * -_F0899, z2 * -_F2562
    z3, z4 = z3 * -_F1961 + z5, z4 * -_F0390 + z5
    odd0 = x7 * _F0298 + z1 + z3
    odd1 = x5 * _F2053 + z2 + z4
    odd2 = x3 * _F3072 + z2 + z3
    odd3 = x1 * _F1501 + z1 + z4
    out = np.stack([t10 + odd3, t11 + odd2, t12 + odd1, t13 + odd0, t13 - odd0, t12 - odd1, t11 - odd2,
                    t10 - odd3], axis=-2)
    return (out + (1 << (shift - 1))) >> shift


def _range_limit(values):
    """libjpeg's sample range limiting of IDCT outputs (before the +128 level shift): clamped to [-128, 127] for
    values within [-512, 511]; wider ones (only from corrupt data) wrap as its 10-bit masked table does."""
    masked = (values + 128) & 1023
    return np.where(masked < 256, masked, np.where(masked < 640, 255, 0)).astype(np.uint8)


# libjpeg's IFAST (Arai-Agui-Nakajima) method: its dequantisation multipliers fold in the AA&N column/row scale
# factors (2**14 * s[i] * s[j], s[0] = 1, s[k] = sqrt(2) cos(k pi / 16)) and 2 fraction bits; its 4 products
# are in units of 2**-8 and every shift truncates instead of rounding.
_AAN_FACTORS = np.array([1.0] + [np.sqrt(2) * np.cos(k * np.pi / 16) for k in range(1, 8)])
_AAN_SCALES = np.round(16384 * np.outer(_AAN_FACTORS, _AAN_FACTORS)).astype(np.int64).reshape(64)
_F1082, _F1414, _F1847_FAST, _F2613 = 277, 362, 473, 669


def _idct_fast_1d(x):
    """One pass of the integer "fast" IDCT along axis -2 of ``x`` (``[..., 8, n]`` int64), unshifted."""
    x0, x1, x2, x3, x4, x5, x6, x7 = (x[..., i, :] for i in range(8))
    t10, t11, t13 = x0 + x4, x0 - x4, x2 + x6
    t12 = ((x2 - x6) * _F1414 >> 8) - t13
    even0, even3, even1, even2 = t10 + t13, t10 - t13, t11 + t12, t11 - t12
    z13, z10, z11, z12 = x5 + x3, x5 - x3, x1 + x7, x1 - x7
    odd7 = z11 + z13
    odd11 = (z11 - z13) * _F1414 >> 8
    z5 = (z10 + z12) * _F1847_FAST >> 8
    odd10 = (z12 * _F1082 >> 8) - z5
    odd12 = (z10 * -_F2613 >> 8) + z5
    odd6 = odd12 - odd7
    odd5 = odd11 - odd6
    odd4 = odd10 + odd5
    return np.stack([even0 + odd7, even1 + odd6, even2 + odd5, even3 - odd4, even3 + odd4, even2 - odd5,
                     even1 - odd6, even0 - odd7], axis=-2)


def _component_samples(c, rows, cols, fast):
    """Component ``c``'s ``[rows, cols]`` uint8 samples: its coefficients dequantised and inverse transformed
    (libjpeg's IFAST method when ``fast``, else ISLOW)."""
    natural = np.zeros((c.blocks_h * c.blocks_w, 64), np.int64)
    natural[:, _ZIGZAG] = c.coefficients.reshape(-1, 64)
    if fast:
        natural *= (c.quant * _AAN_SCALES + 2048) >> 12
        columns = _idct_fast_1d(natural.reshape(-1, 8, 8))
        samples = _idct_fast_1d(columns.swapaxes(-1, -2)).swapaxes(-1, -2) >> (_PASS1_BITS + 3)
    else:
        natural *= c.quant
        columns = _idct_1d(natural.reshape(-1, 8, 8), _CONST_BITS - _PASS1_BITS)
        samples = _idct_1d(columns.swapaxes(-1, -2), _CONST_BITS + _PASS1_BITS + 3).swapaxes(-1, -2)
    samples = _range_limit(samples)
    plane = samples.reshape(c.blocks_h, c.blocks_w, 8, 8).swapaxes(1, 2).reshape(c.blocks_h * 8, c.blocks_w * 8)
    return plane[:rows, :cols]


def _fancy_columns(plane):
    """``plane`` (int32) doubled in width by the triangle filter: each output weighs its nearer input 3/4 and
    the other neighbour 1/4 (edges repeat), rounding alternately down and up as libjpeg's h2v1 upsampler."""
    left = np.concatenate([plane[:, :1], plane[:, :-1]], axis=1)
    right = np.concatenate([plane[:, 1:], plane[:, -1:]], axis=1)
    out = np.empty((plane.shape[0], 2 * plane.shape[1]), np.int32)
    out[:, 0::2] = (3 * plane + left + 1) >> 2
    out[:, 1::2] = (3 * plane + right + 2) >> 2
    return out


def _upsample(plane, h_factor, v_factor, fancy):
    """Chroma ``plane`` (uint8) enlarged ``h_factor`` x ``v_factor`` times: by libjpeg's triangle filters for
    the 2x cases when ``fancy``, else (and for other ratios) by replicating samples. As libjpeg, a plane at most 2
    samples wide is never filtered (the triangle filter needs a middle column)."""
    if h_factor == v_factor == 1:
        return plane
    if not fancy or plane.shape[1] <= 2 or h_factor not in (1, 2) or v_factor not in (1, 2):
        return plane.repeat(v_factor, axis=0).repeat(h_factor, axis=1)
    samples = plane.astype(np.int32)
    if v_factor == 1:
        return _fancy_columns(samples).astype(np.uint8)
    above = np.concatenate([samples[:1], samples[:-1]], axis=0)
    below = np.concatenate([samples[1:], samples[-1:]], axis=0)
    # Rows first: 3 * nearer row + other row (in units of 1/4), kept unrounded for the h2v2 filter.
    sums = np.empty((2 * samples.shape[0], samples.shape[1]), np.int32)
    sums[0::2] = 3 * samples + above
    sums[1::2] = 3 * samples + below
    if h_factor == 1:  # libjpeg-turbo's h1v2: bias 1 for the upper output row, 2 for the lower
        bias = np.tile(np.array([[1], [2]], np.int32), (samples.shape[0], 1))
        return ((sums + bias) >> 2).astype(np.uint8)
    left = np.concatenate([sums[:, :1], sums[:, :-1]], axis=1)
    right = np.concatenate([sums[:, 1:], sums[:, -1:]], axis=1)
    out = np.empty((sums.shape[0], 2 * sums.shape[1]), np.int32)
    out[:, 0::2] = (3 * sums + left + 8) >> 4
    out[:, 1::2] = (3 * sums + right + 7) >> 4
    return out.astype(np.uint8)


def _fix16(x):
    return int(x * 65536 + 0.5)


_CHROMA = np.arange(256, dtype=np.int64) - 128
_CR_R = (_fix16(1.40200) * _CHROMA + 32768) >> 16
_CB_B = (_fix16(1.77200) * _CHROMA + 32768) >> 16
_CR_G = -_fix16(0.71414) * _CHROMA
_CB_G = -_fix16(0.34414) * _CHROMA + 32768


def _ycc_to_rgb(y, cb, cr):
    """``[h, w, 3]`` uint8 RGB of full-size Y, Cb, Cr planes by libjpeg's fixed-point tables (16-bit)."""
    luma = y.astype(np.int64)
    red = luma + _CR_R[cr]
    green = luma + ((_CB_G[cb] + _CR_G[cr]) >> 16)
    blue = luma + _CB_B[cb]
    return np.clip(np.stack([red, green, blue], axis=-1), 0, 255).astype(np.uint8)


def decode(data, gray=False, fancy_upsampling=True, fast_idct=False):
    """``[height, width, channels]`` uint8 pixels of baseline JPEG bytes: 1 channel for gray files (or with
    ``gray``: the luma of color files, unconverted), else 3 (RGB).

    Parameters
    ----------
    data : bytes
    gray : bool
        Return only the Y plane of a color file.
    fancy_upsampling : bool
        Triangle-filter chroma upsampling (libjpeg's default); False replicates chroma samples.
    fast_idct : bool
        libjpeg's IFAST inverse DCT (less accurate) instead of ISLOW.

    Raises
    ------
    JPEGError
        For data that is not a JPEG, or one this decoder does not support (progressive, arithmetic, 12-bit...).
    """
    frame = _parse(bytes(data))
    first = frame.components[0]
    luma = _component_samples(first, *frame.plane_size(first), fast_idct)
    if first.h != frame.h_max or first.v != frame.v_max:
        luma = _upsample(luma, frame.h_max // first.h, frame.v_max // first.v, fancy_upsampling)
    luma = luma[:frame.height, :frame.width]
    if len(frame.components) == 1 or gray:
        return luma[..., None]
    planes = []
    for c in frame.components[1:]:
        if frame.h_max % c.h or frame.v_max % c.v:
            raise JPEGError(f"Unsupported JPEG sampling factors {c.h}x{c.v} (max {frame.h_max}x{frame.v_max})")
        samples = _component_samples(c, *frame.plane_size(c), fast_idct)
        plane = _upsample(samples, frame.h_max // c.h, frame.v_max // c.v, fancy_upsampling)
        planes.append(plane[:frame.height, :frame.width])
    return _ycc_to_rgb(luma, *planes)


def image_shape(data):
    """``(height, width, components)`` from the frame header of JPEG bytes, without decoding the scans."""
    data = bytes(data)
    if data[:2] != SOI:
        raise JPEGError("Not a JPEG file")
    pos = 2
    while pos + 4 <= len(data):
        if data[pos] != 0xFF:
            raise JPEGError("Corrupt JPEG data: expected a marker")
        marker = data[pos + 1]
        if marker == 0xFF:
            pos += 1
            continue
        (length,) = struct.unpack(">H", data[pos + 2:pos + 4])
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            _, height, width, count = struct.unpack(">BHHB", data[pos + 4:pos + 10])
            return height, width, count
        pos += 2 + length
    raise JPEGError("JPEG has no frame header")
