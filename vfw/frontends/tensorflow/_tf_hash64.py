"""TF's legacy ``Hash64`` (the hash of ``tf.strings.to_hash_bucket``): MurmurHash64A with seed 0xDECAFCAFFE.

MurmurHash64A (Austin Appleby's published algorithm): ``h = seed ^ (n * m)``; each 8-byte
little-endian word ``k`` is mixed (``k *= m; k ^= k >> 47; k *= m``) into ``h`` (``h ^= k; h *= m``);
the 1-7 trailing bytes are xored into ``h`` as a little-endian word and multiplied by ``m``; a final
``h ^= h >> 47; h *= m; h ^= h >> 47``.  Vectorised over strings of the same length.
"""

import numpy as np

from vfw.frontends.tensorflow._farmhash import hash_by_length

_M = np.uint64(0xC6A4A7935BD1E995)
_SEED = 0xDECAFCAFFE
_SHIFT = np.uint64(47)


def _hash_equal_lengths(data):
    """Hash64 of each row of ``data`` (a ``[n, length]`` uint8 matrix)."""
    count, length = data.shape
    h = np.full(count, np.uint64(_SEED ^ ((length * int(_M)) % 2**64)), np.uint64)
    whole = length // 8 * 8
    words = np.ascontiguousarray(data[:, :whole]).view("<u8").astype(np.uint64).reshape(count, -1)
    for column in range(words.shape[1]):
        k = words[:, column] * _M
        k = (k ^ (k >> _SHIFT)) * _M
        h = (h ^ k) * _M
    if length > whole:
        tail = np.zeros((count, 8), np.uint8)
        tail[:, :length - whole] = data[:, whole:]
        h = (h ^ tail.view("<u8").astype(np.uint64).reshape(-1)) * _M
    h = (h ^ (h >> _SHIFT)) * _M
    return h ^ (h >> _SHIFT)


def hash64(strings):
    """TF's ``Hash64`` of each of ``strings`` (a sequence of bytes); uint64 ``[len(strings)]``."""
    return hash_by_length(strings, _hash_equal_lengths)
