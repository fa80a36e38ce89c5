"""TensorFlow's counter-based random streams: Philox4x32-10 and the distributions TF draws from it.

Every TF random op on the CPU reads 32-bit words from Philox4x32-10 (Salmon et al., "Parallel
random numbers: as easy as 1, 2, 3", SC 2011): a 64-bit key and a 128-bit counter; each counter
value gives one *block* of four words, and a stream is the blocks of consecutive counter values.
Seeds only choose the key and the starting counter; the rest is fixed by how each distribution
turns words into values and how many blocks each op reserves, all reproduced here (observed
against TF 2.21):

* uniform floats keep a word's low mantissa bits under the exponent of 1.0 and subtract 1
  (float32: 23 bits of one word; float16/bfloat16: 10/7 bits of one word; float64: 52 bits of
  two words);
* integers in ``[lo, hi)`` are ``lo + word % (hi - lo)`` in the unsigned type of their width
  (64-bit ones from two words, low word first); "full range" integers are the words themselves;
* normals are Box-Muller pairs: two words (float32, float16, bfloat16) or four (float64) give two
  values ``(r sin t, r cos t)``, the first uniform floored at 1e-7;
* a truncated normal keeps Box-Muller values with ``|x| < 2``; each group of outputs (four, two in
  float64) starts at its own counter, ``256`` outputs' worth of blocks after the previous group's
  (so groups do not depend on each other's rejections).

Philox runs vectorized on arrays of uint32 words, each round one uint64 product per word pair.
Uniform and integer values are TF's to the bit.  The float32 Box-Muller values are TF's to the bit
for about 99% of values and within a few units in the last place for the rest: TF takes the
logarithm, sine and cosine in float32 from the C library (whose results are not always correctly
rounded), while here they are computed in float64 and rounded once; float64 normals differ in the
last bit about as rarely (numpy's float64 logarithm against the C library's).  float16 and bfloat16
normals are rounded from float32 values and, in practice, equal TF's.
"""

import functools
import sys

import ml_dtypes
import numpy as np

_S32 = np.uint64(32)
_MULTIPLIERS = np.array([[0xD2511F53], [0xCD9E8D57]], np.uint64)
_LOW, _HIGH = (0, 1) if sys.byteorder == "little" else (1, 0)  # the uint32 halves of a uint64
_CHUNK = 16384  # counters per pass of the rounds
_W0 = 0x9E3779B9
_W1 = 0xBB67AE85
_MASK32 = 0xFFFFFFFF
_MASK64 = (1 << 64) - 1
_MASK128 = (1 << 128) - 1

# The key and the mixing round stateless ops use to turn a seed pair into a key and counter.
_SEED_KEY = 0x02461E29_3EC8F720

BF16 = np.dtype(ml_dtypes.bfloat16)
F16 = np.dtype(np.float16)
F32 = np.dtype(np.float32)
F64 = np.dtype(np.float64)

# Blocks a stateful op reserves per output element, and the spacing of truncated-normal groups.
RESERVED_PER_OUTPUT = 256
TRUNCATION = 2.0
_NORMAL_FLOOR = 1.0e-7


@functools.lru_cache(maxsize=256)
def _round_keys(key):
    """The keys of the ten Philox rounds for the 64-bit ``key``: ``(10, 2, 1)`` uint32 (words 0 and 1)."""
    k0, k1 = key & _MASK32, (key >> 32) & _MASK32
    return np.array([[[(k0 + r * _W0) & _MASK32], [(k1 + r * _W1) & _MASK32]] for r in range(10)], np.uint32)


def philox(even, odd, key):
    """Philox4x32-10 of counters given as their words 0 and 2 (``even``) and 1 and 3 (``odd``).

    Parameters
    ----------
    even, odd : numpy.ndarray
        ``(2, n)`` uint32.
    key : int
        64-bit key.

    Returns
    -------
    numpy.ndarray
        ``(n, 4)`` uint32: the block of each counter.

    A round multiplies words 0 and 2 by the two Philox constants (one uint64 product each); the
    products' high halves, crossed and xored with words 1 and 3 and the round key, become words 0
    and 2, their low halves (crossed) words 1 and 3.
    """
    n = even.shape[1]
    keys = _round_keys(key)
    out = np.empty((n, 4), np.uint32)
    for start in range(0, n, _CHUNK):  # chunks that stay in cache through the ten rounds
        e = even[:, start:start + _CHUNK].copy()
        m = e.shape[1]
        # Two product buffers, used in turn: a round reads the previous round's low halves from the other.
        products = (np.empty((2, m), np.uint64), np.empty((2, m), np.uint64))
        halves = [p.view(np.uint32).reshape(2, m, 2)[::-1] for p in products]
        o = odd[:, start:start + _CHUNK]
        for r, round_key in enumerate(keys):
            np.multiply(e, _MULTIPLIERS, out=products[r & 1])
            np.bitwise_xor(halves[r & 1][:, :, _HIGH], o, out=e)
            e ^= round_key
            o = halves[r & 1][:, :, _LOW]
        out[start:start + m, 0::2] = e.T
        out[start:start + m, 1::2] = o.T
    return out


def blocks(key, counter, offsets):
    """The Philox blocks of counters ``counter + offsets``.

    Parameters
    ----------
    key : int
        64-bit key.
    counter : int
        128-bit counter.
    offsets : numpy.ndarray
        uint64 block offsets (the counter wraps modulo 2**128).

    Returns
    -------
    numpy.ndarray
        ``(len(offsets), 4)`` uint32.
    """
    offsets = np.asarray(offsets, np.uint64).reshape(-1)
    n = offsets.size
    low = offsets + np.uint64(counter & _MASK64)
    high = (counter >> 64) & _MASK64
    even = np.empty((2, n), np.uint32)
    odd = np.empty((2, n), np.uint32)
    words_of_low = low.view(np.uint32).reshape(n, 2)
    even[0] = words_of_low[:, _LOW]
    odd[0] = words_of_low[:, _HIGH]
    carry = low < offsets
    if carry.any():
        words_of_high = (carry.astype(np.uint64) + np.uint64(high)).view(np.uint32).reshape(n, 2)
        even[1] = words_of_high[:, _LOW]
        odd[1] = words_of_high[:, _HIGH]
    else:
        even[1] = high & _MASK32
        odd[1] = high >> 32
    return philox(even, odd, key)


def words(key, counter, count, start=0):
    """The first ``count`` 32-bit words of the stream starting ``start`` blocks after ``counter`` (uint32)."""
    n_blocks = -(-count // 4)
    return blocks(key, counter, np.arange(start, start + n_blocks, dtype=np.uint64)).reshape(-1)[:count]


def advance(counter, n_blocks):
    """``counter`` moved ``n_blocks`` blocks on (modulo 2**128)."""
    return (counter + n_blocks) & _MASK128


@functools.lru_cache(maxsize=256)
def key_counter_of_seed(seed0, seed1):
    """The key and counter stateless ops derive from a seed pair (each reduced to 64 bits, int32 seeds
    sign-extended): the pair, as a counter, goes through one Philox block under a fixed key, and the
    block's words become the key (words 0-1) and the counter's high half (words 2-3)."""
    mix = [int(w) for w in blocks(_SEED_KEY, (seed0 & _MASK64) | (seed1 & _MASK64) << 64, np.zeros(1, np.uint64))[0]]
    return mix[0] | (mix[1] << 32), (mix[2] | (mix[3] << 32)) << 64


# -- words -> values -----------------------------------------------------------------------------------------------
def words_per_value(dtype):
    """32-bit words one uniform value of numpy ``dtype`` consumes."""
    return 2 if dtype.itemsize == 8 else 1


def unit_floats(w, dtype):
    """Uniform floats in [0, 1) of ``dtype`` from uint32 words (two words per float64 value)."""
    if dtype == F64:
        w = w.reshape(-1, 2)
        bits = ((w[:, 0].astype(np.uint64) & np.uint64(0xFFFFF)) << _S32) | w[:, 1].astype(np.uint64)
        return (bits | np.uint64(0x3FF0000000000000)).view(np.float64) - 1.0
    if dtype == F32:
        return ((w & np.uint32(0x7FFFFF)) | np.uint32(0x3F800000)).view(np.float32) - np.float32(1.0)
    if dtype == F16:
        half = ((w & np.uint32(0x3FF)) | np.uint32(0x3C00)).astype(np.uint16)
        return half.view(np.float16) - np.float16(1.0)
    brain = ((w & np.uint32(0x7F)) | np.uint32(0x3F80)).astype(np.uint16)
    return (brain.view(BF16).astype(np.float32) - np.float32(1.0)).astype(BF16)


def full_ints(w, dtype):
    """Integers over the whole range of ``dtype`` (32- or 64-bit) from uint32 words."""
    if dtype.itemsize == 4:
        return w.view(dtype)
    w = w.reshape(-1, 2)
    return (w[:, 0].astype(np.uint64) | (w[:, 1].astype(np.uint64) << _S32)).view(dtype)


def bounded_ints(w, dtype, low, high):
    """Integers in ``[low, high)`` of ``dtype`` (low < high) from uint32 words."""
    unsigned = np.dtype(f"u{dtype.itemsize}")
    span = unsigned.type((high - low) & ((1 << (8 * dtype.itemsize)) - 1))
    return (full_ints(w, unsigned) % span + unsigned.type(low & ((1 << (8 * dtype.itemsize)) - 1))).view(dtype)


def box_muller(w, dtype):
    """Standard normals for ``dtype``, two per Box-Muller pair of uniforms (in the order of the pairs).

    float64 values for float64, float32 values for the other float dtypes (TF computes those in float32
    and rounds afterwards).
    """
    if dtype == F64:
        w = w.reshape(-1, 4)
        u = np.maximum(unit_floats(w[:, :2].reshape(-1), F64), _NORMAL_FLOOR)
        angle = (2 * np.pi) * unit_floats(w[:, 2:].reshape(-1), F64)
        radius = np.sqrt(-2.0 * np.log(u))
        return np.stack([np.sin(angle) * radius, np.cos(angle) * radius], 1).reshape(-1)
    w = w.reshape(-1, 2)
    u = np.maximum(unit_floats(w[:, 0], F32), np.float32(_NORMAL_FLOOR))
    angle = ((2 * np.pi) * unit_floats(w[:, 1], F32).astype(np.float64)).astype(np.float32).astype(np.float64)
    radius = np.sqrt(np.float32(-2.0) * np.log(u.astype(np.float64)).astype(np.float32))
    out = np.empty((len(w), 2), np.float32)
    np.multiply(np.sin(angle).astype(np.float32), radius, out=out[:, 0])
    np.multiply(np.cos(angle).astype(np.float32), radius, out=out[:, 1])
    return out.reshape(-1)


def words_per_normal_pair(dtype):
    return 4 if dtype == F64 else 2


# -- distributions over a stream -----------------------------------------------------------------------------------
def uniform(key, counter, size, dtype):
    """``size`` uniform floats in [0, 1) of numpy ``dtype`` from the stream at ``counter``."""
    per = words_per_value(dtype)
    return unit_floats(words(key, counter, size * per), dtype)


def uniform_ints(key, counter, size, dtype, low, high):
    """``size`` integers in ``[low, high)`` of ``dtype`` (int32/int64...)."""
    return bounded_ints(words(key, counter, size * words_per_value(dtype)), dtype, low, high)


def uniform_full_ints(key, counter, size, dtype):
    """``size`` integers over the whole range of ``dtype`` (int32, int64, uint32, uint64)."""
    return full_ints(words(key, counter, size * words_per_value(dtype)), dtype)


def normal(key, counter, size, dtype):
    """``size`` standard normals of ``dtype``."""
    pairs = -(-size // 2)
    return box_muller(words(key, counter, pairs * words_per_normal_pair(dtype)), dtype)[:size].astype(dtype, copy=False)


def truncated_normal(key, counter, size, dtype):
    """``size`` standard normals of ``dtype`` conditioned on ``|x| < 2``.

    Outputs come in groups (four values, two in float64); group ``g`` reads the stream from block
    ``g * group * 256 / 4`` and keeps the first ``group`` Box-Muller values inside the bound.  All
    groups draw their first two blocks together; the few still short of values draw more.
    """
    group = 2 if dtype == F64 else 4
    n_groups = -(-size // group)
    spacing = np.uint64(group * RESERVED_PER_OUTPUT // 4)
    out = np.empty((n_groups, group), F64 if dtype == F64 else F32)
    filled = np.zeros(n_groups, np.int64)
    pending = np.arange(n_groups)
    first, count = 0, 2  # two blocks first: nearly every group finds its values there
    while pending.size:
        offsets = (pending.astype(np.uint64) * spacing)[:, None] + np.arange(first, first + count, dtype=np.uint64)
        values = box_muller(blocks(key, counter, offsets).reshape(-1), dtype).reshape(pending.size, -1)
        keep = np.abs(values) < TRUNCATION
        if first == 0:  # most groups keep the first values they draw: copied without searching
            direct = keep[:, :group].all(axis=1)
            out[direct] = values[direct, :group]
            filled[direct] = group
            pending, values, keep = pending[~direct], values[~direct], keep[~direct]
        slot = filled[pending][:, None] + np.cumsum(keep, axis=1) - 1
        rows, cols = np.nonzero(keep & (slot < group))
        out[pending[rows], slot[rows, cols]] = values[rows, cols]
        filled[pending] = np.minimum(filled[pending] + keep.sum(axis=1), group)
        pending = pending[filled[pending] < group]
        first, count = first + count, 1
    return out.reshape(-1)[:size].astype(dtype, copy=False)
