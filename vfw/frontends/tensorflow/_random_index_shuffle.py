"""``tf.random.experimental.index_shuffle``: the position of an index in a seeded permutation of [0, max_index].

TF's RandomIndexShuffle kernel encrypts the index with a reduced Simon block cipher (4 rounds, three 32-bit key
words from the seed, a fourth from Simon's key schedule) over the smallest even number of bits, at least 16, that
``ceil(log2(max_index))`` asks for, and re-encrypts ("cycle walking") until the value is at most ``max_index``.
The block size comes from a floating-point ``log2``, so a ``max_index`` that is a power of two does not fit: its
block drops the top value, as in TF.

The Python function pads the seed's first dimension with one entry of 498247692 (TF's arbitrary constant) to
make the three key words of the raw op: a seed of shape [2] gives one key; other shapes fail with TF's errors.
"""

import numpy as np

from vfw.frontends.tensorflow._dispatch import convert_to_tensor, host, kernel_type_name, op_error
from vfw.frontends.tensorflow._op_support import attr_error, matching, shape_text

_TF_OP = "RandomIndexShuffle"
_ALLOWED = (np.dtype(np.int32), np.dtype(np.uint32), np.dtype(np.int64), np.dtype(np.uint64))
_ALLOWED_TEXT = "int32, uint32, int64, uint64"
_SEED_PAD = 498247692
_MIN_BLOCK_BITS = 16
# Simon's key schedule constant and the low bit of its z sequence (the only one 4 rounds use).
_SCHEDULE_CONSTANT = 0xFFFFFFFC
_Z_LOW_BIT = 1
# Walking a cycle step by step is cheap when at least this share of the block's values are in range; below it
# (16-bit blocks of small ranges) the whole block's permutation is followed by pointer jumping.
_DIRECT_WALK_MIN_SHARE = 1 / 16


def _rotl(x, r, width, mask):
    return ((x << np.uint64(r)) | (x >> (width - np.uint64(r)))) & mask


def _rotr(x, r, width, mask):
    return ((x >> np.uint64(r)) | (x << (width - np.uint64(r)))) & mask


def _simon_f(x, width, mask):
    return (_rotl(x, 1, width, mask) & _rotl(x, 8, width, mask)) ^ _rotl(x, 2, width, mask)


def _round_keys(key, width, mask):
    """The 4 round keys of each row of ``key`` (uint64 [n, 3]) for words of ``width`` bits."""
    k0, k1, k2 = (key[:, i] & mask for i in range(3))
    k3 = (np.uint64(_SCHEDULE_CONSTANT) & mask) ^ np.uint64(_Z_LOW_BIT) ^ k0 ^ _rotr(k2, 3, width, mask) \
        ^ _rotr(k2, 4, width, mask)
    return ((k0, k1), (k2, k3))


def _encrypt(value, keys, width, mask):
    """Simon encryption of ``value`` (uint64) under ``keys`` (pairs of round keys) with words of ``width`` bits."""
    left = (value >> width) & mask
    right = value & mask
    for first, second in keys:
        left = left ^ _simon_f(right, width, mask) ^ first
        right = right ^ _simon_f(left, width, mask) ^ second
    return (left << width) | right


def _block_bits(max_index):
    """TF's block size per ``max_index`` (uint64): ``ceil(log2(max))`` of the float value, made even, >= 16."""
    with np.errstate(divide="ignore"):
        bits = np.ceil(np.log2(max_index.astype(np.float64)))
    bits = np.maximum(bits, 0).astype(np.uint64)
    return np.maximum(bits + bits % np.uint64(2), np.uint64(_MIN_BLOCK_BITS))


def _walk_through_block(start, key, width, max_index):
    """Continue the cycle walk from the out-of-range values ``start`` (one key row, one word width): the whole
    block's permutation is built and each value's next in-range successor found by pointer jumping."""
    mask = np.uint64((1 << width) - 1)
    w = np.uint64(width)
    keys = _round_keys(key[None, :], w, mask)
    target = _encrypt(np.arange(1 << (2 * width), dtype=np.uint64), keys, w, mask)
    done = target <= max_index
    while not done[start].all():
        # Every value not yet done skips to where its out-of-range successor's walk has reached.
        target, done = np.where(done, target, target[target]), done | done[target]
    return target[start]


def _shuffle(index, key, max_index):
    """TF's new positions (uint64) of ``index`` for keys ``key`` (uint64 [n, 3]) and ``max_index`` (uint64 [n])."""
    bits = _block_bits(max_index)
    width = bits // np.uint64(2)
    mask = (np.uint64(1) << width) - np.uint64(1)
    keys = _round_keys(key, width, mask)
    result = _encrypt(index, keys, width, mask)
    pending = (result > max_index) & (max_index != 0)
    small = pending & ((max_index.astype(np.float64) + 1) < _DIRECT_WALK_MIN_SHARE * 2.0 ** bits)
    rows = np.flatnonzero(small)
    # Only 16-bit blocks are walked this way; rows of one key and range share their block's walk.
    groups, group_of_row = np.unique(np.column_stack([key[rows], max_index[rows]]), axis=0, return_inverse=True)
    for g, (k0, k1, k2, top) in enumerate(groups):
        members = rows[group_of_row.reshape(-1) == g]
        result[members] = _walk_through_block(result[members], np.array([k0, k1, k2]), _MIN_BLOCK_BITS // 2, top)
    pending &= ~small
    while pending.any():
        rows = np.flatnonzero(pending)
        row_keys = tuple((a[rows], b[rows]) for a, b in keys)
        result[rows] = _encrypt(result[rows], row_keys, width[rows], mask[rows])
        pending[rows] = result[rows] > max_index[rows]
    result[max_index == 0] = 0  # TF's kernel answers 0 before any encryption
    return result


def _checked_values(index, max_index):
    """TF's per-element value checks, in its order (element by element: index, max_index, their order)."""
    signed = index.dtype.kind == "i"
    bad = (index > max_index) | ((index < 0) | (max_index < 0) if signed else False)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        if signed and index[i] < 0:
            raise op_error(f"index must be >= 0 but was {index[i]}", _TF_OP)
        if signed and max_index[i] < 0:
            raise op_error(f"max_index must be >= 0 but was {max_index[i]}", _TF_OP)
        raise op_error(f"max_index must be >= index, but {max_index[i]} < {index[i]}", _TF_OP)


def _check_shapes(index, seed, max_index, count):
    if not (index.ndim == 0 or (index.ndim == 1 and index.shape[0] == count)):
        raise op_error("Index bust be a scalar or vector.", _TF_OP)
    if not ((seed.ndim == 1 and seed.shape[0] == 3) or (seed.ndim == 2 and seed.shape == (count, 3))):
        raise op_error(f"Seed must be a vector of size [3] or a matrix of size [{count}, 3] but got "
                       f"{shape_text(seed.shape)}.", _TF_OP)
    if not (max_index.ndim == 0 or (max_index.ndim == 1 and max_index.shape[0] == count)):
        raise op_error("Maxval must be a scalar or a vector of the same size as index but got "
                       f"{shape_text(max_index.shape)}", _TF_OP)


def index_shuffle(index, seed, max_index):
    """The position of ``index`` in a pseudorandom permutation of ``[0, ..., max_index]`` fixed by ``seed``.

    Parameters
    ----------
    index : int or integer tensor, scalar or shape [n]
        int32, uint32, int64 or uint64 values in ``[0, max_index]``.
    seed : shape-[2] sequence or tensor of int32, uint32, int64 or uint64
        The permutation's seed (TF's raw op key is the seed after one padding word).
    max_index : int or tensor, scalar or shape [n]
        The inclusive upper bound, of ``index``'s dtype.

    Returns
    -------
    Tensor
        Of ``index``'s dtype: a scalar when every input is (``seed`` of shape [2]), else shape [n].

    Raises
    ------
    InvalidArgumentError
        Dtypes, shapes or values TF's kernel refuses (negative values, ``index > max_index``...), with TF's messages.
    """
    seed = convert_to_tensor(seed)
    if seed.array.ndim == 0:
        raise op_error(f"The first dimension of paddings must be the rank of inputs[1,2] {shape_text(())}", "PadV2")
    index, max_index = matching(_TF_OP, index, max_index)
    for t, attr in ((index, "dtype"), (seed, "Tseed")):
        if t.array.dtype not in _ALLOWED:
            raise attr_error(_TF_OP, attr, kernel_type_name(t.dtype), _ALLOWED_TEXT)
    seed_shape = (seed.array.shape[0] + 1,) + seed.array.shape[1:]
    count = max(index.array.size, max_index.array.size, int(np.prod(seed_shape)) // 3)
    _check_shapes(index.array, np.empty(seed_shape, dtype=np.uint8), max_index.array, count)
    scalar = index.array.ndim == 0 and len(seed_shape) == 1 and max_index.array.ndim == 0

    def compute(index_array, seed_array, max_array):
        indices, maxima = np.broadcast_to(index_array, (count,)), np.broadcast_to(max_array, (count,))
        _checked_values(indices, maxima)
        padded = np.concatenate([np.full((1,) + seed_array.shape[1:], _SEED_PAD, seed_array.dtype), seed_array])
        # The key words are the seed's values cast to uint32 (two's complement, the low 32 bits).
        key = np.broadcast_to(padded.reshape(-1, 3).astype(np.uint64) & np.uint64(0xFFFFFFFF), (count, 3))
        result = _shuffle(indices.astype(np.uint64), key, maxima.astype(np.uint64))
        return result.astype(index_array.dtype).reshape(index_array.shape if scalar else (count,))

    return host(compute, index, seed, max_index)


NAMESPACES = {"random.experimental": ["index_shuffle"]}
