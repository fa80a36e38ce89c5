"""tf.lookup.experimental MutableHashTable / DenseHashTable and tf.lookup.TextFileInitializer against real TF 2.21."""

import itertools

import numpy as np
import pytest

from compat_tests.tensorflow.harness import check, real, vtf

_files = itertools.count()  # TF caches text-file tables by file name: every case writes its own file


def _exported(table):
    """``export()`` sorted by key (TF exports in its hash order)."""
    keys, values = (t.numpy() for t in table.export())
    order = np.argsort(keys, kind="stable")
    return keys[order].tolist(), values[order].tolist()


def _string_table(tf):
    table = tf.lookup.experimental.MutableHashTable(tf.string, tf.int64, default_value=-1)
    table.insert(tf.constant(["a", "b", "c"]), tf.constant([1, 2, 3], tf.int64))
    return table


@pytest.mark.parametrize("fn", [
    lambda tf: _string_table(tf).lookup(tf.constant([["a", "z"], ["c", "b"]])),
    lambda tf: (_string_table(tf).size(), _string_table(tf).key_dtype, _string_table(tf).value_dtype),
    lambda tf: _string_table(tf)[tf.constant(["b"])],
    lambda tf: _string_table(tf).lookup(["c", "q"]),
])
def test_mutable_hash_table_lookup(fn):
    check(fn)


def test_mutable_hash_table_insert_remove_export():
    def run(tf):
        table = _string_table(tf)
        table.insert(tf.constant(["b", "d"]), tf.constant([20, 4], tf.int64))
        after_insert = (int(table.size()), _exported(table))
        table.remove(tf.constant(["a", "missing"]))
        after_remove = (int(table.size()), _exported(table), table.lookup(tf.constant(["a", "b"])).numpy().tolist())
        return after_insert, after_remove

    assert run(vtf) == run(real)


def test_vector_values_and_int_keys():
    def run(tf):
        table = tf.lookup.experimental.MutableHashTable(tf.int64, tf.float32, default_value=[0.0, -1.0])
        table.insert(tf.constant([5, 9], tf.int64), tf.constant([[1.0, 2.0], [3.0, 4.0]]))
        looked_up = table.lookup(tf.constant([[9], [7]], tf.int64))
        return looked_up.numpy().tolist(), list(looked_up.shape), _exported(table)

    assert run(vtf) == run(real)


def test_lookup_in_tf_function_sees_later_inserts():
    def run(tf):
        table = tf.lookup.experimental.MutableHashTable(tf.int32, tf.float32, default_value=0.0)
        find = tf.function(lambda keys: table.lookup(keys) * 2.0)
        before = find(tf.constant([1, 2])).numpy().tolist()
        table.insert(tf.constant([2]), tf.constant([1.5]))
        return before, find(tf.constant([1, 2])).numpy().tolist()

    assert run(vtf) == run(real)


def test_insert_remove_size_in_tf_function_run_at_every_call():
    def run(tf):
        table = tf.lookup.experimental.MutableHashTable(tf.int64, tf.int64, -1)

        @tf.function
        def step(keys):
            before = table.size()
            table.insert(keys, keys * 10)
            after = table.size()
            found = table.lookup(keys + 1)
            table.remove(keys[:1])
            return before, after, found, table.size()

        calls = [[x.numpy().tolist() for x in step(tf.constant(keys, tf.int64))]
                 for keys in ([1, 2], [3, 4], [2, 5], [5, 6])]  # the graph of the first call runs again
        return calls, _exported(table)

    assert run(vtf) == run(real)


@pytest.mark.parametrize("fn", [
    lambda tf: _string_table(tf).insert(tf.constant([1, 2]), tf.constant([1, 2], tf.int64)),
    lambda tf: _string_table(tf).insert(tf.constant(["a"]), tf.constant([1, 2], tf.int64)),
    lambda tf: _string_table(tf).lookup(tf.constant([1])),
    lambda tf: tf.lookup.experimental.MutableHashTable(tf.int64, tf.int64, [1, 2]).insert(
        tf.constant([1], tf.int64), tf.constant([1], tf.int64)),
])
def test_mutable_hash_table_errors(fn):
    check(fn)


def _dense(tf, **kwargs):
    arguments = dict(key_dtype=tf.int64, value_dtype=tf.int64, default_value=-1, empty_key=0, deleted_key=-1)
    arguments.update(kwargs)
    return tf.lookup.experimental.DenseHashTable(**arguments)


def test_dense_hash_table():
    def run(tf):
        table = _dense(tf)
        table.insert(tf.constant([5, 6, 7], tf.int64), tf.constant([50, 60, 70], tf.int64))
        table.erase(tf.constant([5], tf.int64))
        table.insert_or_assign(tf.constant([7], tf.int64), tf.constant([71], tf.int64))
        strings = _dense(tf, key_dtype=tf.string, value_dtype=tf.float32, default_value=0.5, empty_key="",
                         deleted_key="$")
        strings.insert(["a"], [1.0])
        return (int(table.size()), table.lookup(tf.constant([5, 6, 7], tf.int64)).numpy().tolist(),
                table[tf.constant([6], tf.int64)].numpy().tolist(), strings.lookup(["a", "b"]).numpy().tolist())

    assert run(vtf) == run(real)


@pytest.mark.parametrize("fn", [
    lambda tf: _dense(tf).insert(tf.constant([0], tf.int64), tf.constant([1], tf.int64)),
    lambda tf: _dense(tf).insert(tf.constant([-1], tf.int64), tf.constant([1], tf.int64)),
    lambda tf: _dense(tf).lookup(tf.constant([3, 0], tf.int64)),
    lambda tf: _dense(tf).remove(tf.constant([-1], tf.int64)),
    lambda tf: _dense(tf, deleted_key=0),
])
def test_dense_hash_table_errors(fn):
    check(fn)


def _vocabulary_file(tmp_path, text):
    path = tmp_path / f"vocabulary_{next(_files)}.txt"
    path.write_text(text)
    return str(path)


TEXT = "cat\t3\ndog\t5\nemu\t7\n"


@pytest.mark.parametrize("text, make, keys", [
    (TEXT, lambda tf, p: tf.lookup.StaticHashTable(tf.lookup.TextFileInitializer(p, tf.string, 0, tf.int64, 1), -1),
     ["dog", "x", "cat"]),
    (TEXT, lambda tf, p: tf.lookup.StaticHashTable(tf.lookup.TextFileInitializer(
        p, tf.string, tf.lookup.TextFileIndex.WHOLE_LINE, tf.int64, tf.lookup.TextFileIndex.LINE_NUMBER), -1),
     ["dog\t5", "dog"]),
    (TEXT, lambda tf, p: tf.lookup.StaticHashTable(tf.lookup.TextFileInitializer(
        p, tf.string, 0, tf.int64, -1, vocab_size=2, value_index_offset=10), -1), ["dog", "emu"]),
    (TEXT, lambda tf, p: tf.lookup.StaticVocabularyTable(tf.lookup.TextFileInitializer(
        p, tf.string, 0, tf.int64, tf.lookup.TextFileIndex.LINE_NUMBER), 2), ["emu", "zebra", "cat"]),
    ("a,1.5\nb,-2\n", lambda tf, p: tf.lookup.StaticHashTable(tf.lookup.TextFileInitializer(
        p, tf.string, 0, tf.float32, 1, delimiter=","), -1.0), ["b", "a", "c"]),
    ("a  b\nc d\n", lambda tf, p: tf.lookup.StaticHashTable(tf.lookup.TextFileInitializer(
        p, tf.string, 2, tf.string, 0, delimiter=" "), "?"), ["b", "d"]),
])
def test_text_file_initializer(tmp_path, text, make, keys):
    path = _vocabulary_file(tmp_path, text)
    check(lambda tf: (make(tf, path).lookup(tf.constant(keys)), make(tf, path).size()))


def test_text_file_initializer_int64_keys(tmp_path):
    path = _vocabulary_file(tmp_path, TEXT)

    def make(tf):
        initializer = tf.lookup.TextFileInitializer(path, tf.int64, 1, tf.string, 0)
        return initializer.key_dtype, initializer.value_dtype, tf.lookup.StaticHashTable(initializer, "?").lookup(
            tf.constant([5, 4], tf.int64))

    check(make)


@pytest.mark.parametrize("args, kwargs", [
    (("string", 0, "int64", 1), {"vocab_size": 5}),
    (("string", 0, "int64", 3), {}),
    (("int32", -1, "int64", 1), {}),
    (("int64", -3, "int64", 1), {}),
    (("string", 0, "float32", -2), {}),
    (("int64", -1, "string", -1), {}),
    (("int64", -2, "int64", 1), {}),
    (("string", 0, "int64", 1), {"vocab_size": 0}),
])
def test_text_file_initializer_errors(tmp_path, args, kwargs):
    path = _vocabulary_file(tmp_path, TEXT)
    key_dtype, key_index, value_dtype, value_index = args

    def make(tf):
        initializer = tf.lookup.TextFileInitializer(path, getattr(tf, key_dtype), key_index, getattr(tf, value_dtype),
                                                    value_index, **kwargs)
        return tf.lookup.StaticHashTable(initializer, "" if value_dtype == "string" else -1).size()

    check(make)


def test_text_file_initializer_missing_file(tmp_path):
    path = str(tmp_path / "absent.txt")
    check(lambda tf: tf.lookup.StaticHashTable(tf.lookup.TextFileInitializer(path, tf.string, 0, tf.int64, 1), -1))
