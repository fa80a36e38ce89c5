"""SipHash-2-4 (Aumasson & Bernstein), the keyed 64-bit hash behind TF's ``to_hash_bucket_strong``.

Written from the SipHash paper: the 128-bit key ``(k0, k1)`` initialises four 64-bit words; each
8-byte little-endian message word ``m`` is absorbed as ``v3 ^= m``, two SipRounds, ``v0 ^= m``; the
message is padded with zeros to one byte short of a multiple of 8 and its length modulo 256 is the
last byte; finalisation is ``v2 ^= 0xff``, four SipRounds and the xor of the four words.

Vectorised over strings: strings with the same number of 8-byte words are hashed together, each
step one numpy operation on a column of uint64 words (wrap-around arithmetic modulo 2**64).
"""

import numpy as np

_INIT = tuple(np.uint64(c) for c in (0x736F6D6570736575, 0x646F72616E646F6D, 0x6C7967656E657261, 0x7465646279746573))


def _rotl(value, shift):
    return (value << np.uint64(shift)) | (value >> np.uint64(64 - shift))


def _sip_round(v0, v1, v2, v3):
    v0 = v0 + v1
    v1 = _rotl(v1, 13) ^ v0
    v0 = _rotl(v0, 32)
    v2 = v2 + v3
    v3 = _rotl(v3, 16) ^ v2
    v0 = v0 + v3
    v3 = _rotl(v3, 21) ^ v0
    v2 = v2 + v1
    v1 = _rotl(v1, 17) ^ v2
    v2 = _rotl(v2, 32)
    return v0, v1, v2, v3


def _padded_words(strings, words):
    """``[len(strings), words]`` uint64: each string zero-padded, its length mod 256 in the last byte."""
    data = np.zeros((len(strings), words * 8), np.uint8)
    for row, s in enumerate(strings):
        data[row, :len(s)] = np.frombuffer(s, np.uint8)
        data[row, -1] = len(s) & 0xFF
    return data.view("<u8").astype(np.uint64)


def _siphash_words(words, k0, k1):
    count = words.shape[0]
    v0, v1, v2, v3 = (np.full(count, init ^ key, np.uint64) for init, key in zip(_INIT, (k0, k1, k0, k1)))
    for column in range(words.shape[1]):
        m = words[:, column]
        v3 = v3 ^ m
        for _ in range(2):
            v0, v1, v2, v3 = _sip_round(v0, v1, v2, v3)
        v0 = v0 ^ m
    v2 = v2 ^ np.uint64(0xFF)
    for _ in range(4):
        v0, v1, v2, v3 = _sip_round(v0, v1, v2, v3)
    return v0 ^ v1 ^ v2 ^ v3


def siphash24(strings, key):
    """SipHash-2-4 of each of ``strings`` under ``key``.

    Parameters
    ----------
    strings : sequence of bytes
    key : pair of int
        ``(k0, k1)``, each taken modulo 2**64 (TF passes its int64 key attribute as uint64).

    Returns
    -------
    numpy.ndarray
        uint64 ``[len(strings)]``.
    """
    strings = list(strings)
    k0, k1 = (np.uint64(int(k) % 2**64) for k in key)
    result = np.empty(len(strings), np.uint64)
    by_words = {}
    for i, s in enumerate(strings):
        by_words.setdefault(len(s) // 8 + 1, []).append(i)
    with np.errstate(over="ignore"):
        for words, indices in by_words.items():
            result[indices] = _siphash_words(_padded_words([strings[i] for i in indices], words), k0, k1)
    return result
