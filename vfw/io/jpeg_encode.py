"""Baseline JPEG encoding (ITU T.81 sequential Huffman) with numpy, as ``tf.io.encode_jpeg`` writes it.

Gray images are one component; RGB is converted to YCbCr (JFIF's matrix) with the chroma at full resolution
(4:4:4) or averaged over 2x2 pixels (4:2:0).  Blocks go through a DCT and the IJG quality-scaled Annex K
quantisation tables.  Colour conversion, chroma averaging, the DCT and the quantiser's rounding use libjpeg's
fixed-point arithmetic (its default "islow" integer DCT), so the coefficients, hence the decoded pixels, are
those of TF's encoder.  The Huffman tables are built for each image from its symbol
counts (Annex K.2: optimal code lengths limited to 16 bits, the all-ones code reserved), which any baseline
decoder reads from the DHT segments.  Everything but the final bit packing works on all blocks at once, and the
packing itself is vectorised over the bits.  The bytes differ from libjpeg's (its Huffman tables are the standard
ones); decoders give the same image.
"""

import heapq
import struct

import numpy as np

from vfw.io.jpeg import _ZIGZAG

# Annex K.1 tables (luminance, chrominance) in natural (row-major) order, the 50% quality of the IJG scaling.
_LUMA_QUANT = np.array([
    16, 11, 10, 16, 24, 40, 51, 61, 12, 12, 14, 19, 26, 58, 60, 55, 14, 13, 16, 24, 40, 57, 69, 56,
    14, 17, 22, 29, 51, 87, 80, 62, 18, 22, 37, 56, 68, 109, 103, 77, 24, 35, 55, 64, 81, 104, 113, 92,
    49, 64, 78, 87, 103, 121, 120, 101, 72, 92, 95, 98, 112, 100, 103, 99])
_CHROMA_QUANT = np.array([
    17, 18, 24, 47, 99, 99, 99, 99, 18, 21, 26, 66, 99, 99, 99, 99, 24, 26, 56, 99, 99, 99, 99, 99,
    47, 66, 99, 99, 99, 99, 99, 99] + [99] * 32)
_DENSITY_UNITS = {"": 0, "in": 1, "cm": 2}


def _fixed(x, bits):
    """``x`` in fixed point with ``bits`` fraction bits, rounded as libjpeg's ``FIX`` macro."""
    return int(x * (1 << bits) + 0.5)


def _descale(x, bits):
    """``x / 2**bits`` rounded half up (libjpeg's ``DESCALE``)."""
    return (x + (1 << (bits - 1))) >> bits


# The integer DCT: Loeffler, Ligtenberg and Moschytz's factorisation with 13-bit constants; the row pass keeps
# 2 extra bits of precision, the column pass removes them, leaving the coefficients scaled by 8.
_CONST_BITS, _PASS1_BITS = 13, 2
_C = {name: _fixed(value, _CONST_BITS) for name, value in {
    "0_298631336": 0.298631336, "0_390180644": 0.390180644, "0_541196100": 0.541196100, "0_765366865": 0.765366865,
    "0_899976223": 0.899976223, "1_175875602": 1.175875602, "1_501321110": 1.501321110, "1_847759065": 1.847759065,
    "1_961570560": 1.961570560, "2_053119869": 2.053119869, "2_562915447": 2.562915447,
    "3_072711026": 3.072711026}.items()}


def _fdct_pass(d, first):
    """One 1-D pass of the integer DCT over the last axis of ``d`` (int64 ``[..., 8]``)."""
    even_shift, odd_shift = (0, _CONST_BITS - _PASS1_BITS) if first else (_PASS1_BITS, _CONST_BITS + _PASS1_BITS)
    tmp0, tmp1, tmp2, tmp3 = (d[..., i] + d[..., 7 - i] for i in range(4))
    tmp7, tmp6, tmp5, tmp4 = (d[..., i] - d[..., 7 - i] for i in range(4))
    tmp10, tmp13, tmp11, tmp12 = tmp0 + tmp3, tmp0 - tmp3, tmp1 + tmp2, tmp1 - tmp2
    out = [None] * 8
    if first:
        out[0], out[4] = (tmp10 + tmp11) << _PASS1_BITS, (tmp10 - tmp11) << _PASS1_BITS
    else:
        out[0], out[4] = _descale(tmp10 + tmp11, even_shift), _descale(tmp10 - tmp11, even_shift)
    z1 = (tmp12 + tmp13) * _C["0_541196100"]
    out[2] = _descale(z1 + tmp13 * _C["0_765366865"], odd_shift)
    out[6] = _descale(z1 - tmp12 * _C["1_847759065"], odd_shift)
    z1, z2, z3, z4 = tmp4 + tmp7, tmp5 + tmp6, tmp4 + tmp6, tmp5 + tmp7
    z5 = (z3 + z4) * _C["1_175875602"]
    tmp4, tmp5 = tmp4 * _C["0_298631336"], tmp5 * _C["2_053119869"]
    tmp6, tmp7 = tmp6 * _C["3_072711026"], tmp7 * _C["1_501321110"]
    z1, z2 = z1 * -_C["0_899976223"], z2 * -_C["2_562915447"]
    z3, z4 = z3 * -_C["1_961570560"] + z5, z4 * -_C["0_390180644"] + z5
    out[7] = _descale(tmp4 + z1 + z3, odd_shift)
    out[5] = _descale(tmp5 + z2 + z4, odd_shift)
    out[3] = _descale(tmp6 + z2 + z3, odd_shift)
    out[1] = _descale(tmp7 + z1 + z4, odd_shift)
    return np.stack(out, axis=-1)


def _fdct(blocks):
    """8x the 2-D DCT of int64 blocks ``[..., 8, 8]`` (rows then columns), as libjpeg's islow method computes it."""
    rows = _fdct_pass(blocks, first=True)
    return np.swapaxes(_fdct_pass(np.swapaxes(rows, -1, -2), first=False), -1, -2)


def quant_table(base, quality):
    """IJG scaling of a base table to ``quality`` (1-100; 0 acts as 1), entries clamped to [1, 255]."""
    quality = max(int(quality), 1)
    scale = 5000 // quality if quality < 50 else 200 - 2 * quality
    return np.clip((base * scale + 50) // 100, 1, 255)


def _blocks(plane):
    """``(rows, cols, 8, 8)`` blocks of a plane whose sides are multiples of 8."""
    h, w = plane.shape
    return plane.reshape(h // 8, 8, w // 8, 8).swapaxes(1, 2)


def _quantized(plane, table):
    """Zigzag-ordered quantised DCT coefficients ``(rows, cols, 64)`` int64 of a level-shifted plane."""
    coefficients = _fdct(_blocks(plane.astype(np.int64) - 128))
    # libjpeg divides the 8x-scaled coefficient by 8x the table entry, rounding halves away from zero
    divisor = 8 * table.reshape(8, 8).astype(np.int64)
    quantized = np.sign(coefficients) * ((np.abs(coefficients) + divisor // 2) // divisor)
    return quantized.reshape(*quantized.shape[:2], 64)[..., _ZIGZAG].astype(np.int64)


def _padded(image, multiple):
    """``image`` extended to sides that are multiples of ``multiple`` by repeating its last row and column."""
    h, w = image.shape[:2]
    return np.pad(image, ((0, -h % multiple), (0, -w % multiple), (0, 0)), mode="edge")


def _ycbcr(rgb):
    """Y, Cb, Cr int64 planes of uint8 RGB, in libjpeg's 16-bit fixed point (Cb/Cr rounded half down)."""
    r, g, b = np.moveaxis(rgb.astype(np.int64), -1, 0)
    half, offset = 1 << 15, 128 << 16

    def mix(kr, kg, kb):  # libjpeg rounds each weight's magnitude, then applies its sign
        return sum(int(np.sign(k)) * _fixed(abs(k), 16) * c for k, c in ((kr, r), (kg, g), (kb, b)))

    y = (mix(0.299, 0.587, 0.114) + half) >> 16
    cb = (mix(-0.16874, -0.33126, 0.5) + offset + half - 1) >> 16
    cr = (mix(0.5, -0.41869, -0.08131) + offset + half - 1) >> 16
    return [y, cb, cr]


def _downsampled(plane):
    """2x2 averages of a chroma plane with libjpeg's bias alternating 1, 2 along each row (no drift to one side)."""
    sums = plane.reshape(plane.shape[0] // 2, 2, plane.shape[1] // 2, 2).sum(axis=(1, 3))
    bias = 1 + np.arange(sums.shape[1]) % 2
    return (sums + bias) >> 2


def _categories(values):
    """JPEG magnitude categories (bit lengths of |v|) and the category's extra bits (ones' complement below 0)."""
    magnitude = np.abs(values)
    size = np.zeros(values.shape, np.int64)
    nonzero = magnitude > 0
    size[nonzero] = np.floor(np.log2(magnitude[nonzero])).astype(np.int64) + 1
    extra = np.where(values < 0, values + (1 << size) - 1, values)
    return size, extra


def _events(blocks):
    """The coded events of blocks ``(n, 64)`` (in scan order, one component): arrays ``(block, position,
    symbol, extra, extra_length)`` for the DC difference (symbol = its category) and the AC run/size symbols,
    ZRLs and EOBs, sorted by block then position."""
    n = len(blocks)
    dc = blocks[:, 0]
    dc_size, dc_extra = _categories(np.diff(dc, prepend=0))
    ac = blocks[:, 1:]
    rows, cols = np.nonzero(ac)
    previous = np.full(len(rows), -1)
    same_block = np.zeros(len(rows), bool)
    same_block[1:] = rows[1:] == rows[:-1]
    previous[same_block] = cols[:-1][same_block[1:]]
    run = cols - previous - 1
    size, extra = _categories(ac[rows, cols])
    zrl_counts = run // 16
    zrl_rows = np.repeat(rows, zrl_counts)
    zrl_positions = np.repeat(cols, zrl_counts) - 0.5  # before their coefficient
    last = np.full(n, -1)
    last[rows] = cols  # nonzero() is row-major: the last write is each row's last column
    eob_rows = np.nonzero(last < 62)[0]
    block = np.concatenate([np.arange(n), rows, zrl_rows, eob_rows])
    position = np.concatenate([np.full(n, -1.0), cols, zrl_positions, np.full(len(eob_rows), 63.0)])
    symbol = np.concatenate([dc_size, (run % 16) * 16 + size, np.full(len(zrl_rows), 0xF0),
                             np.zeros(len(eob_rows), np.int64)])
    extra_values = np.concatenate([dc_extra, extra, np.zeros(len(zrl_rows) + len(eob_rows), np.int64)])
    extra_lengths = np.concatenate([dc_size, size, np.zeros(len(zrl_rows) + len(eob_rows), np.int64)])
    order = np.lexsort((position, block))
    is_dc = np.concatenate([np.ones(n, bool), np.zeros(len(block) - n, bool)])
    return block[order], position[order], symbol[order], extra_values[order], extra_lengths[order], is_dc[order]


def _code_lengths(counts):
    """Huffman code lengths (<= 16 bits) of the symbols with nonzero ``counts`` (256 slots), T.81 Annex K.2:
    a reserved one-count symbol keeps the all-ones code unused; over-long codes are folded by K.3's rule."""
    used = [s for s in range(256) if counts[s]]
    heap = [(float(counts[s]), s, [s]) for s in used] + [(0.5, 256, [256])]  # the reserved symbol: deepest
    heapq.heapify(heap)
    depth = dict.fromkeys([*used, 256], 0)
    while len(heap) > 1:
        weight_a, key_a, members_a = heapq.heappop(heap)
        weight_b, key_b, members_b = heapq.heappop(heap)
        for s in members_a + members_b:
            depth[s] += 1
        heapq.heappush(heap, (weight_a + weight_b, min(key_a, key_b), members_a + members_b))
    bits = np.zeros(64, np.int64)
    for s in depth:
        bits[depth[s]] += 1
    for i in range(63, 16, -1):  # K.3: move over-long codes up
        while bits[i] > 0:
            j = i - 2
            while bits[j] == 0:
                j -= 1
            bits[i] -= 2
            bits[i - 1] += 1
            bits[j + 1] += 2
            bits[j] -= 1
    i = 16
    while bits[i] == 0:
        i -= 1
    bits[i] -= 1  # drop the reserved symbol's code
    ordered = sorted(used, key=lambda s: (depth[s], s))
    return bits[1:17], ordered


def _huffman(counts):
    """``(bits, symbols, codes, lengths)``: the DHT counts and symbols, and code/length lookup arrays."""
    bits, symbols = _code_lengths(counts)
    codes = np.zeros(256, np.int64)
    lengths = np.zeros(256, np.int64)
    code, k = 0, 0
    for length in range(1, 17):
        for _ in range(bits[length - 1]):
            codes[symbols[k]], lengths[symbols[k]] = code, length
            code += 1
            k += 1
        code <<= 1
    return bits, symbols, codes, lengths


def _pack(values, lengths):
    """Bytes of the bit strings ``values`` (each ``lengths`` bits, MSB first), padded with ones, 0xFF stuffed."""
    total = int(lengths.sum())
    starts = np.cumsum(lengths) - lengths
    owner = np.repeat(np.arange(len(lengths)), lengths)
    shift = np.repeat(lengths, lengths) - 1 - (np.arange(total) - np.repeat(starts, lengths))
    bits = (values[owner] >> shift) & 1
    bits = np.concatenate([bits, np.ones(-total % 8, np.int64)]).astype(np.uint8)
    packed = np.packbits(bits)
    return np.insert(packed, np.nonzero(packed == 0xFF)[0] + 1, 0).tobytes()


def _segment(marker, payload):
    return struct.pack(">BBH", 0xFF, marker, len(payload) + 2) + payload


def encode(image, quality=95, chroma_downsampling=True, density_unit="in", x_density=300, y_density=300,
           xmp_metadata=b""):
    """Baseline JPEG bytes of ``image`` ``[h, w, 1 or 3]`` uint8 (gray or RGB)."""
    h, w, channels = image.shape
    subsampled = channels == 3 and chroma_downsampling
    mcu = 16 if subsampled else 8
    padded = _padded(image, mcu)
    tables = [quant_table(_LUMA_QUANT, quality), quant_table(_CHROMA_QUANT, quality)]
    if channels == 1:
        planes, factors = [padded[..., 0].astype(np.int64)], [1]
    else:
        y, cb, cr = _ycbcr(padded)
        if subsampled:
            # libjpeg averages the rows of the image (the last one doubled when the height is odd), then pads the
            # averaged plane to whole blocks by repeating its last row
            rows = h + h % 2
            cb, cr = (np.pad(_downsampled(p[:rows]), ((0, (p.shape[0] - rows) // 2), (0, 0)), mode="edge")
                      for p in (cb, cr))
        planes, factors = [y, cb, cr], [2 if subsampled else 1, 1, 1]
    mcu_rows, mcu_cols = padded.shape[0] // mcu, padded.shape[1] // mcu
    # per component: its blocks grouped per MCU (row-major inside an MCU), in MCU scan order
    scan_blocks = []
    for index, (plane, f) in enumerate(zip(planes, factors)):
        q = _quantized(plane, tables[min(index, 1)])
        grouped = q.reshape(mcu_rows, f, mcu_cols, f, 64).transpose(0, 2, 1, 3, 4)
        scan_blocks.append(grouped.reshape(mcu_rows * mcu_cols, f * f, 64))
    segments = [b"\xff\xd8", _segment(0xE0, b"JFIF\x00\x01\x01" + struct.pack(
        ">BHHBB", _DENSITY_UNITS[density_unit], x_density, y_density, 0, 0))]
    if xmp_metadata:
        segments.append(_segment(0xE1, b"http://ns.adobe.com/xap/1.0/\x00" + xmp_metadata))
    segments.append(_segment(0xDB, b"".join(bytes([t]) + tables[t][_ZIGZAG].astype(np.uint8).tobytes()
                                             for t in range(min(channels, 2)))))
    segments.append(_segment(0xC0, struct.pack(">BHHB", 8, h, w, channels) + b"".join(
        struct.pack(">BBB", c + 1, f * 16 + f, min(c, 1)) for c, f in enumerate(factors))))
    events = []
    for index, grouped in enumerate(scan_blocks):
        flat = grouped.reshape(-1, 64)
        block, position, symbol, extra, extra_length, is_dc = _events(flat)
        per_mcu = grouped.shape[1]
        # the block's place in the interleaved scan: MCU, component, block within the MCU
        mcu_index, within = np.divmod(block, per_mcu)
        events.append((mcu_index, index, within, position, symbol, extra, extra_length, is_dc, min(index, 1)))
    huffman = {}
    for table_class in range(min(channels, 2)):
        for dc in (True, False):
            counts = np.zeros(256, np.int64)
            for e in events:
                if e[8] == table_class:
                    np.add.at(counts, e[4][e[7] == dc], 1)
            huffman[table_class, dc] = _huffman(counts)
    dht = b""
    for (table_class, dc), (bits, symbols, _, _) in huffman.items():
        dht += bytes([(0 if dc else 16) + table_class]) + bits.astype(np.uint8).tobytes() + bytes(symbols)
    segments.append(_segment(0xC4, dht))
    segments.append(_segment(0xDA, bytes([channels]) + b"".join(
        bytes([c + 1, min(c, 1) * 16 + min(c, 1)]) for c in range(channels)) + b"\x00\x3f\x00"))
    keys, values, lengths = [], [], []
    for mcu_index, component, within, position, symbol, extra, extra_length, is_dc, table_class in events:
        dc_table, ac_table = huffman[table_class, True], huffman[table_class, False]
        code = np.where(is_dc, dc_table[2][symbol], ac_table[2][symbol])
        code_length = np.where(is_dc, dc_table[3][symbol], ac_table[3][symbol])
        keys.append(np.stack([mcu_index, np.full(len(symbol), component), within, position]))
        values.append((code << extra_length) | extra)
        lengths.append(code_length + extra_length)
    keys = np.concatenate(keys, axis=1)
    order = np.lexsort(keys[::-1])
    segments.append(_pack(np.concatenate(values)[order], np.concatenate(lengths)[order]))
    segments.append(b"\xff\xd9")
    return b"".join(segments)
