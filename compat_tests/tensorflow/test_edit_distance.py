"""tf.edit_distance against real TF 2.21."""

import numpy as np
import pytest

from compat_tests.tensorflow.harness import check

CASES = {
    "strings": ([[0, 0], [0, 1], [1, 0]], [b"a", b"b", b"c"], [2, 2], [[0, 0], [1, 0], [1, 1]], [b"a", b"c", b"d"],
                [2, 3]),
    "empty_sequences": ([[0, 0, 0], [1, 0, 0]], [1, 2], [2, 1, 1], [[0, 0, 0]], [1], [2, 2, 1]),
    "longer": ([[0, i] for i in range(6)], [1, 2, 3, 4, 5, 6], [1, 6], [[0, i] for i in range(4)], [2, 3, 9, 5],
               [1, 4]),
    "unordered_indices": ([[0, 2], [0, 0], [0, 1]], [3, 1, 2], [1, 3], [[0, 1], [0, 0]], [3, 1], [1, 2]),
}


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("normalize", [True, False])
def test_edit_distance(name, normalize):
    hi, hv, hs, ti, tv, ts = CASES[name]
    dtype = object if isinstance(hv[0], bytes) else np.int64

    def fn(tf):
        h = tf.SparseTensor(np.array(hi, np.int64), np.array(hv, dtype), hs)
        t = tf.SparseTensor(np.array(ti, np.int64), np.array(tv, dtype), ts)
        return tf.edit_distance(h, t, normalize=normalize)
    check(fn)


def test_errors():
    check(lambda tf: tf.edit_distance(tf.SparseTensor([[0, 0]], [1], [1, 1]), tf.SparseTensor([[0, 0]], [1.0], [1, 1])))
    check(lambda tf: tf.edit_distance(tf.constant([1]), tf.SparseTensor([[0, 0]], [1], [1, 1])))
