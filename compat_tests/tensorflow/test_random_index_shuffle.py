"""``tf.random.experimental.index_shuffle`` against real TF 2.21: TF's exact permutations for many indices, seeds,
ranges and dtypes (cycle walking in 16-bit blocks of small ranges, power-of-two ranges), errors, tf.function."""

import numpy as np
import pytest

from compat_tests.tensorflow.harness import check, real, vtf

_INDEX_DTYPES = [np.int32, np.uint32, np.int64, np.uint64]
_TOP = {np.int32: 2**31 - 1, np.uint32: 2**32 - 1, np.int64: 2**63 - 1, np.uint64: 2**64 - 1}
# Ranges across TF's block sizes: tiny (16-bit blocks walked far), powers of two and their neighbours (the
# float log2 sizing), 17 to 64 bits.
_MAX_INDICES = [1, 2, 3, 9, 255, 4095, 4096, 65535, 65536, 65537, 131071, 2**20, 2**24 + 3, 2**31 - 1, 2**32 - 1,
                2**40 + 17, 2**62, 2**63 - 1, 2**64 - 1]


def _shuffled(lib, index, seed, max_index):
    return lib.random.experimental.index_shuffle(index, seed, max_index)


@pytest.mark.parametrize("dtype, max_index", [(dtype, max_index) for dtype in _INDEX_DTYPES
                                               for max_index in _MAX_INDICES if max_index <= _TOP[dtype]])
def test_permutation_positions(dtype, max_index):
    rng = np.random.default_rng(max_index % 1000)
    count = min(max_index + 1, 64)
    index = np.array(rng.choice(max_index + 1, size=count, replace=False) if max_index < 2**62
                     else [int(v) for v in rng.integers(0, 2**62, size=count)] + [max_index], dtype=dtype)
    for seed_dtype in (np.int32, np.int64, np.uint32, np.uint64):
        seed = rng.integers(-2**31 if np.dtype(seed_dtype).kind == "i" else 0, 2**31, size=2).astype(seed_dtype)
        check(_shuffled, index, seed, np.array(max_index, dtype=dtype))


def test_whole_small_ranges_are_permutations():
    for max_index in (0, 1, 5, 31):
        for seed in ([5, 9], [0, 0], [-7, 123456789]):
            check(_shuffled, np.arange(max_index + 1, dtype=np.int32), seed, max_index)


def test_python_scalars_and_broadcast():
    check(_shuffled, 3, [1, 2], 10)
    check(_shuffled, np.array([0, 5, 7], np.int64), [4, 2**40], np.array([7, 9, 100], np.int64))
    check(_shuffled, 2, [1, 2], np.array([3, 4, 5], np.int32))
    # A seed of shape [2, 3] padded to [3, 3] is three keys (TF's padding of the first dimension).
    check(_shuffled, np.array([0, 1, 2], np.int32), np.array([[1, 2, 3], [4, 5, 6]], np.int32), 10)


@pytest.mark.parametrize("index, seed, max_index", [
    (5, [1, 2], 3),
    (-1, [1, 2], 3),
    (3, [1, 2], -1),
    ([-1, 5], [1, 2], [-3, 3]),
    ([5, -1], [1, 2], [-3, 3]),
    ([5, 1], [1, 2], [3, -3]),
    (0, [1, 2, 3], 10),
    (0, [1], 10),
    (0, [[1, 2], [3, 4]], 10),
    ([[0, 1]], [1, 2], 10),
    ([1, 2], [1, 2], [5, 6, 7]),
    (0, 5, 10),
    (0, [1.0, 2.0], 10),
    (0.5, [1, 2], 10),
])
def test_errors(index, seed, max_index):
    check(_shuffled, index, seed, max_index)


def test_error_messages():
    messages = []
    for lib in (real, vtf):
        with pytest.raises(lib.errors.InvalidArgumentError) as caught:
            _shuffled(lib, [5, 1], [1, 2], [3, -3])
        messages.append(str(caught.value).split("}} ")[-1].split(" [Op:")[0])
    assert messages[0] == messages[1] == "max_index must be >= index, but 3 < 5"


def test_dtype_errors():
    check(_shuffled, np.array(0, np.int16), [1, 2], np.array(4, np.int16))
    check(_shuffled, 0, np.array([1, 2], np.int8), 4)
    check(_shuffled, np.array(0, np.int64), [1, 2], np.array(4, np.int32))


def test_inside_tf_function():
    def run(lib, index, max_index):
        return lib.function(lambda i, m: _shuffled(lib, i, [3, 4], m))(index, max_index)

    check(run, np.arange(8, dtype=np.int32), np.array(7, np.int32))
    check(run, np.arange(8, dtype=np.int32), np.array(5000, np.int32))
