"""Fixes found running round 15 of the TF/Keras programs (compat_tests/programs/tf_more15) under vfw, against real
TF 2.21: ``tf.math.bincount`` inside tf.function and tf.data maps, whose number of bins follows each call's values
(vfw pinned it to the traced one and showed it as a known static dim); ``lookup`` of SparseTensor keys by the
static tables; ``StaticHashTable.export``."""

import numpy as np
import pytest

from compat_tests.tensorflow.harness import LIBS, check

real_tf = pytest.importorskip("tensorflow")


def _bincounts(tf, calls):
    @tf.function
    def counts(x, w):
        rows = tf.reshape(x, [2, -1])
        return (tf.math.bincount(x), tf.math.bincount(x, minlength=5), tf.math.bincount(x, maxlength=2, weights=w),
                tf.math.bincount(rows, axis=-1, binary_output=True), tf.math.bincount(x, minlength=3, maxlength=3))

    return [counts(tf.constant(x, tf.int32), tf.ones([len(x)])) for x in calls]


def test_bincount_in_tf_function_follows_each_call():
    # the largest value (so the number of bins) changes from call to call of one traced function
    check(_bincounts, [[1, 1, 3, 0], [0, 0, 6, 2], [4, 0], []])


def test_bincount_negative_in_tf_function():
    check(_bincounts, [[1, 1, 3, 0], [1, -1]])


def test_bincount_static_shapes():
    def shapes(tf):
        @tf.function(input_signature=[tf.TensorSpec([None], tf.int32)])
        def counts(x):
            return tf.math.bincount(x), tf.math.bincount(x, minlength=7, maxlength=7, dtype=tf.float32)

        ds = tf.data.Dataset.from_tensor_slices(np.array([[1, 2], [5, 0]], np.int32))
        ds = ds.map(lambda v: tf.math.bincount(v))
        return ([o.shape for o in counts.get_concrete_function().structured_outputs], ds.element_spec.shape,
                [v for v in ds], counts(tf.constant([4, 1])))

    check(shapes)


def test_bincount_tf_function_of_constants_keeps_shape():
    def known(tf):
        @tf.function
        def counts():
            out = tf.math.bincount(tf.constant([0, 3, 3]), minlength=2)
            return out, out.shape

        return counts()

    for lib in LIBS:  # both libraries agree on the static shape of constants' counts
        assert known(lib)[0].shape == (4,)
    check(known)


def _tables(tf):
    hashed = tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(["b", "a", "c"], [1, 2, 3]), -1)
    vocab = tf.lookup.StaticVocabularyTable(
        tf.lookup.KeyValueTensorInitializer(["a", "b"], tf.constant([0, 1], tf.int64)), num_oov_buckets=2)
    return hashed, vocab


def test_lookup_of_sparse_keys():
    def case(tf):
        hashed, vocab = _tables(tf)
        keys = tf.sparse.from_dense(tf.constant([["a", ""], ["", "q"], ["c", "b"]]))
        out = [hashed.lookup(keys), vocab[keys]]
        return [(type(o).__name__, o.indices, o.values, o.dense_shape) for o in out]

    check(case)


def test_static_hash_table_export():
    def case(tf):
        hashed, _ = _tables(tf)
        keys, values = hashed.export()
        # TF lists a hash map's entries in an unspecified order: compare the pairs sorted by key
        order = np.argsort(keys.numpy())
        return keys.dtype, values.dtype, keys.shape, keys.numpy()[order].tolist(), values.numpy()[order].tolist()

    check(case)
