"""tf.lookup static tables, tf.ragged.constant / map_flat_values and the hash ops over ragged tensors against real
TF 2.21."""

import numpy as np
import pytest

from compat_tests.tensorflow.harness import check

WORDS = np.array(["cat", "dog", "emu", "cat", "yak", ""], dtype=object)


def _ragged(r):
    """A ragged result in a comparable form: its rows, dtype and row lengths."""
    return (r.to_list(), r.dtype, r.row_lengths())


def _vocabulary(tf, keys=("cat", "dog", "emu"), values=None, buckets=3, **kwargs):
    values = tf.constant([4, 0, 7], tf.int64) if values is None else values
    return tf.lookup.StaticVocabularyTable(tf.lookup.KeyValueTensorInitializer(list(keys), values), buckets, **kwargs)


def _hash_table(tf, keys=("cat", "dog"), values=(1.5, -2.0), default=-1.0):
    return tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(list(keys), list(values)), default)


@pytest.mark.parametrize("fn", [
    lambda tf, x: _hash_table(tf).lookup(x),
    lambda tf, x: _hash_table(tf).lookup(tf.reshape(x, [2, 3])),
    lambda tf, x: _hash_table(tf)[x[1]],
    lambda tf, x: (_hash_table(tf).size(), _hash_table(tf).default_value),
    lambda tf, x: (_hash_table(tf).key_dtype, _hash_table(tf).value_dtype),
    lambda tf, x: _hash_table(tf, values=(3, 4), default=0).lookup(x),
    lambda tf, x: _hash_table(tf, values=(3, 4), default=0.5),
    lambda tf, x: _hash_table(tf, keys=("a", "b", "a"), values=(1, 2, 1), default=0).lookup(tf.constant(["a", "c"])),
    lambda tf, x: _hash_table(tf, keys=("a", "b", "a"), values=(1, 2, 3), default=0),
    lambda tf, x: _hash_table(tf).lookup(tf.constant([1, 2])),
    lambda tf, x: tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(
        tf.constant([3, 9, -4], tf.int64), ["x", "y", "z"]), "none").lookup(tf.constant([[9, 5], [-4, 3]], tf.int64)),
    lambda tf, x: _vocabulary(tf).lookup(x),
    lambda tf, x: (_vocabulary(tf).size(), _vocabulary(tf).key_dtype, _vocabulary(tf).value_dtype),
    lambda tf, x: _vocabulary(tf, buckets=1).lookup(tf.constant(["zebra", "cat", "x" * 40])),
    lambda tf, x: _vocabulary(tf, keys=(), values=tf.zeros([0], tf.int64), buckets=5).lookup(x),
    lambda tf, x: _vocabulary(tf, keys=tf.constant([5, 7, 9], tf.int64)).lookup(tf.constant([9, 6, 100, -3, 1234567],
                                                                                           tf.int64)),
    lambda tf, x: _vocabulary(tf, keys=tf.constant([5, 7, 9], tf.int64), lookup_key_dtype=tf.int32).lookup(
        tf.constant([9, 6, 100], tf.int32)),
    lambda tf, x: _vocabulary(tf).lookup(tf.constant([1, 2])),
    lambda tf, x: _vocabulary(tf, values=[0, 1, 2]),
    lambda tf, x: _vocabulary(tf, keys=tf.constant([5, 7, 9])),
    lambda tf, x: _vocabulary(tf, buckets=0),
])
def test_static_tables(fn):
    check(fn, WORDS)


def test_lookups_run_in_functions_and_dataset_maps():
    def fn(tf, x):
        table = _vocabulary(tf)
        ids = tf.function(lambda s: table.lookup(s) * 2)
        mapped = tf.data.Dataset.from_tensor_slices(x).map(lambda s: (table.lookup(s), _hash_table(tf).lookup(s)))
        return ids(x), ids(tf.constant(["emu", "owl"])), [list(e) for e in mapped]
    check(fn, WORDS)


@pytest.mark.parametrize("fn", [
    lambda tf, r: _ragged(_vocabulary(tf).lookup(r)),
    lambda tf, r: _ragged(_hash_table(tf).lookup(r)),
    lambda tf, r: _ragged(tf.strings.to_hash_bucket_fast(r, 5)),
    lambda tf, r: _ragged(tf.strings.to_hash_bucket_strong(r, 5, [1, 2])),
    lambda tf, r: _ragged(tf.strings.to_hash_bucket(r, 5)),
    lambda tf, r: _ragged(tf.ragged.map_flat_values(tf.strings.length, r)),
    lambda tf, r: _ragged(tf.ragged.map_flat_values(tf.strings.join, [r, r], separator="-")),
    lambda tf, r: _ragged(tf.ragged.map_flat_values(tf.add, tf.strings.length(r.flat_values) * 0 + 1,
                                                    tf.ragged.map_flat_values(tf.strings.length, r))),
    lambda tf, r: tf.ragged.map_flat_values(tf.add, tf.constant(1), 2),
    lambda tf, r: tf.ragged.map_flat_values(tf.strings.join, [r, tf.strings.split(tf.constant(["a b c", "d e"]))]),
    lambda tf, r: tf.ragged.map_flat_values(tf.strings.join, [r, tf.strings.split(tf.constant(["a", "b c d e"]))]),
    lambda tf, r: tf.ragged.map_flat_values(tf.strings.join, [r, tf.strings.split(tf.constant(["a", "b c", "d e"]))]),
    lambda tf, r: tf.ragged.map_flat_values(tf.strings.join, [r, tf.strings.split(tf.constant(["a", "b", "c"]))]),
])
def test_ragged_dispatch(fn):
    check(lambda tf: fn(tf, tf.strings.split(tf.constant(["cat dog", "", "emu yak cat"]))))


@pytest.mark.parametrize("value, kwargs", [
    ([[1, 2], [3]], {}), ([[[1, 2], [3, 4]], [[5, 6]]], {}), ([[], [1.5]], {}), ([[]], {}), ([], {}),
    ([["a", "bc"], []], {}), ([[1, [2]]], {}), (5, {}), ([[True], [False, True]], {}),
    ([[1, 2], [3]], {"dtype": "float32"}), ([[[1, 2], [3, 4]], [[5, 6]]], {"ragged_rank": 1}),
    ([[1, 2], [3]], {"ragged_rank": 3}), ([[1, 2], [3]], {"ragged_rank": 0}),
])
def test_ragged_constant(value, kwargs):
    def fn(tf):
        r = tf.ragged.constant(value, **kwargs)
        if not hasattr(r, "flat_values"):
            return r
        return r.to_list(), r.dtype, r.shape, r.ragged_rank, r.flat_values, [s for s in r.nested_row_splits]
    check(fn)
