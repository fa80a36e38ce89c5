"""tf.sparse.cross and tf.sparse.cross_hashed against real TF 2.21: sparse and dense string/integer inputs, input
order, separators, FarmHash-based hashing with buckets and keys, empty rows and errors."""

import numpy as np
import pytest

from compat_tests.tensorflow.harness import check


def parts(st):
    return st.indices, st.values, st.dense_shape


def inputs(tf):
    a = tf.sparse.SparseTensor([[0, 0], [1, 0], [1, 1]], ["a", "b", "c"], [2, 2])
    d = tf.constant([["d"], ["e"]])
    i = tf.constant([[1, 2], [3, -4]], tf.int64)
    empty_row = tf.sparse.SparseTensor([[1, 0], [1, 2]], tf.constant([7, 9], tf.int64), [2, 3])
    return {"a": a, "d": d, "i": i, "empty_row": empty_row, "i32": tf.constant([[5], [6]]),
            "f": tf.constant([[1.0, 2.0], [3.0, 4.0]])}


CASES = [["a", "d"], ["a", "d", "i"], ["d", "a"], ["i", "a", "d"], ["a"], ["i"], ["empty_row", "d"],
         ["a", "i32"], ["a", "f"], ["d", "i"]]


@pytest.mark.parametrize("names", CASES)
def test_cross(names):
    check(lambda tf: parts(tf.sparse.cross([inputs(tf)[n] for n in names])))
    check(lambda tf: parts(tf.sparse.cross([inputs(tf)[n] for n in names], separator="#")))


@pytest.mark.parametrize("names", CASES)
@pytest.mark.parametrize("num_buckets, hash_key", [(0, None), (100, None), (7, 123), (0, 2**40 + 5)])
def test_cross_hashed(names, num_buckets, hash_key):
    check(lambda tf: parts(tf.sparse.cross_hashed([inputs(tf)[n] for n in names], num_buckets=num_buckets,
                                                  hash_key=hash_key)))


def test_empty_and_errors():
    check(lambda tf: parts(tf.sparse.cross([])))
    check(lambda tf: parts(tf.sparse.cross([tf.sparse.SparseTensor(np.zeros([0, 2], np.int64),
                                                                   tf.constant([], tf.string), [2, 3]),
                                            tf.constant([["d"], ["e"]])])))
    check(lambda tf: tf.sparse.cross([inputs(tf)["a"], tf.constant([["x"]])]))  # batch sizes
    check(lambda tf: tf.sparse.cross(inputs(tf)["a"]))  # not a list
    check(lambda tf: parts(tf.sparse.cross((inputs(tf)["a"], inputs(tf)["d"]))))  # a tuple is accepted
