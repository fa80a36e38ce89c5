"""FarmHash ``Fingerprint64`` (the "farmhashna" 64-bit hash), the hash behind TF's ``to_hash_bucket_fast``.

Vectorised over strings of equal length: ``fingerprint64`` groups its byte strings by length and runs
the length's branch (0-16, 17-32, 33-64 bytes, or the 64-byte block loop) on a ``[strings, length]``
uint8 matrix, so each arithmetic step is one numpy operation on a column of uint64 words.  All
arithmetic is modulo 2**64 (numpy's uint64 wrap-around); words are read little-endian.
"""

import numpy as np

_K0 = np.uint64(0xC3A5C85C97CB3127)
_K1 = np.uint64(0xB492B66FBE98F273)
_K2 = np.uint64(0x9AE16A3B2F90404F)
_SEED = np.uint64(81)


def _u64(value):
    return np.uint64(value)


def _fetch(data, offset, width):
    """The little-endian ``width``-byte words at byte ``offset`` of each row of ``data`` ``[n, length]``, as uint64."""
    return np.ascontiguousarray(data[:, offset:offset + width]).view(f"<u{width}").reshape(-1).astype(np.uint64)


def _fetch64(data, offset):
    return _fetch(data, offset, 8)


def _rotate(value, shift):
    return (value >> _u64(shift)) | (value << _u64(64 - shift)) if shift else value


def _shift_mix(value):
    return value ^ (value >> _u64(47))


def _hash_len16(u, v, mul):
    a = (u ^ v) * mul
    a ^= a >> _u64(47)
    b = (v ^ a) * mul
    b ^= b >> _u64(47)
    return b * mul


def _hash_len0to16(data, length):
    count = data.shape[0]
    if length >= 8:
        mul = _K2 + _u64(length * 2)
        a = _fetch64(data, 0) + _K2
        b = _fetch64(data, length - 8)
        c = _rotate(b, 37) * mul + a
        d = (_rotate(a, 25) + b) * mul
        return _hash_len16(c, d, mul)
    if length >= 4:
        mul = _K2 + _u64(length * 2)
        a = _fetch(data, 0, 4)
        return _hash_len16(_u64(length) + (a << _u64(3)), _fetch(data, length - 4, 4), mul)
    if length > 0:
        a, b, c = (data[:, i].astype(np.uint64) for i in (0, length >> 1, length - 1))
        y = (a + (b << _u64(8))) & _u64(0xFFFFFFFF)
        z = (_u64(length) + (c << _u64(2))) & _u64(0xFFFFFFFF)
        return _shift_mix(y * _K2 ^ z * _K0) * _K2
    return np.full(count, _K2, np.uint64)


def _hash_len17to32(data, length):
    mul = _K2 + _u64(length * 2)
    a = _fetch64(data, 0) * _K1
    b = _fetch64(data, 8)
    c = _fetch64(data, length - 8) * mul
    d = _fetch64(data, length - 16) * _K2
    return _hash_len16(_rotate(a + b, 43) + _rotate(c, 30) + d, a + _rotate(b + _K2, 18) + c, mul)


def _hash_len33to64(data, length):
    mul = _K2 + _u64(length * 2)
    a = _fetch64(data, 0) * _K2
    b = _fetch64(data, 8)
    c = _fetch64(data, length - 8) * mul
    d = _fetch64(data, length - 16) * _K2
    y = _rotate(a + b, 43) + _rotate(c, 30) + d
    z = _hash_len16(y, a + _rotate(b + _K2, 18) + c, mul)
    e = _fetch64(data, 16) * mul
    f = _fetch64(data, 24)
    g = (y + _fetch64(data, length - 32)) * mul
    h = (z + _fetch64(data, length - 24)) * mul
    return _hash_len16(_rotate(e + f, 43) + _rotate(g, 30) + h, e + _rotate(f + a, 18) + g, mul)


def _weak_hash_len32_with_seeds(data, offset, a, b):
    """The pair of 64-bit values mixing the 32 bytes at ``offset`` with seeds ``a``, ``b``."""
    w, x, y, z = (_fetch64(data, offset + 8 * i) for i in range(4))
    a = a + w
    b = _rotate(b + a + z, 21)
    c = a
    a = a + x + y
    b = b + _rotate(a, 44)
    return a + z, b + c


def _block_round(data, start, x, y, z, v, w, mul, final):
    """One 64-byte round of the long-input loop at byte ``start``; the last round (``final``) weighs in by 9."""
    x = _rotate(x + y + v[0] + _fetch64(data, start + 8), 37) * mul
    y = _rotate(y + v[1] + _fetch64(data, start + 48), 42) * mul
    x ^= w[1] * _u64(9) if final else w[1]
    y = y + (v[0] * _u64(9) if final else v[0]) + _fetch64(data, start + 40)
    z = _rotate(z + w[0], 33) * mul
    v = _weak_hash_len32_with_seeds(data, start, v[1] * mul, x + w[0])
    w = _weak_hash_len32_with_seeds(data, start + 32, z + w[1], y + _fetch64(data, start + 16))
    return z, y, x, v, w  # x and z swap places after each round


def _hash_long(data, length):
    count = data.shape[0]
    zeros = np.zeros(count, np.uint64)
    x = np.full(count, _SEED, np.uint64)
    y = np.full(count, _SEED * _K1 + _u64(113), np.uint64)
    z = _shift_mix(y * _K2 + _u64(113)) * _K2
    v, w = (zeros, zeros), (zeros, zeros)
    x = x * _K2 + _fetch64(data, 0)
    for start in range(0, ((length - 1) // 64) * 64, 64):
        x, y, z, v, w = _block_round(data, start, x, y, z, v, w, _K1, final=False)
    mul = _K1 + ((z & _u64(0xFF)) << _u64(1))
    w0 = w[0] + _u64((length - 1) & 63)
    v0 = v[0] + w0
    w = (w0 + v0, w[1])
    v = (v0, v[1])
    x, y, z, v, w = _block_round(data, length - 64, x, y, z, v, w, mul, final=True)
    return _hash_len16(_hash_len16(v[0], w[0], mul) + _shift_mix(y) * _K0 + z,
                       _hash_len16(v[1], w[1], mul) + x, mul)


def _hash_equal_lengths(data):
    """Fingerprint64 of each row of ``data`` (a ``[n, length]`` uint8 matrix)."""
    length = data.shape[1]
    if length <= 16:
        return _hash_len0to16(data, length)
    if length <= 32:
        return _hash_len17to32(data, length)
    if length <= 64:
        return _hash_len33to64(data, length)
    return _hash_long(data, length)


def fingerprint64(strings):
    """FarmHash Fingerprint64 of each of ``strings``.

    Parameters
    ----------
    strings : sequence of bytes
        Byte strings (any lengths).

    Returns
    -------
    numpy.ndarray
        uint64 ``[len(strings)]``.
    """
    return hash_by_length(strings, _hash_equal_lengths)


def hash_by_length(strings, hash_rows):
    """``hash_rows(data)`` of each of ``strings`` (bytes), uint64 ``[len(strings)]``: the strings of each length are
    hashed together as the rows of one ``[n, length]`` uint8 matrix (vectorised; 64-bit arithmetic wraps)."""
    strings = list(strings)
    result = np.empty(len(strings), np.uint64)
    by_length = {}
    for i, s in enumerate(strings):
        by_length.setdefault(len(s), []).append(i)
    with np.errstate(over="ignore"):
        for length, indices in by_length.items():
            data = np.frombuffer(b"".join(strings[i] for i in indices), np.uint8).reshape(len(indices), length)
            result[indices] = hash_rows(data)
    return result
