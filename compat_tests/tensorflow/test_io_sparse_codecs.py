"""tf.io.serialize_sparse / serialize_many_sparse / deserialize_many_sparse (TF's bytes), decode_compressed,
matching_files and decode_json_example against real TF."""

import base64
import gzip
import json
import os
import zlib

import numpy as np
import pytest

from compat_tests.tensorflow.harness import check


def _parts(sp):
    return sp.indices, sp.values, sp.dense_shape


@pytest.mark.parametrize("values, dense_shape, indices", [
    (np.array([1.5, 2.5], np.float32), [3, 4], [[0, 1], [2, 0]]),
    (np.array([1, -2, 3], np.int64), [2, 3, 4], [[0, 0, 1], [1, 2, 0], [1, 2, 3]]),
    (np.array([b"ab", b"", b"cde"], object), [2, 5], [[0, 1], [1, 0], [1, 4]]),
    (np.array([True], bool), [7], [[3]]),
    (np.zeros(0, np.float64), [2, 2], np.zeros((0, 2), np.int64)),
])
def test_serialize_sparse(values, dense_shape, indices):
    def fn(tf):
        sp = tf.sparse.SparseTensor(np.asarray(indices, np.int64), values, dense_shape)
        out = [tf.io.serialize_sparse(sp)]
        if len(dense_shape) > 1:
            many = tf.io.serialize_many_sparse(sp)
            out += [many, _parts(tf.io.deserialize_many_sparse(many, tf.as_dtype(values.dtype)))]
        return out

    check(fn)


def test_deserialize_rows_of_other_shapes():
    def fn(tf):
        first = tf.io.serialize_sparse(tf.sparse.SparseTensor([[0, 1], [2, 0]], [1.5, 2.5], [3, 4]))
        second = tf.io.serialize_sparse(tf.sparse.SparseTensor([[4, 0]], [7.0], [5, 2]))
        return _parts(tf.io.deserialize_many_sparse(tf.stack([first, second]), tf.float32))

    check(fn)


@pytest.mark.parametrize("case", ["dtype", "rank1"])
def test_sparse_serialization_errors(case):
    def fn(tf):
        if case == "dtype":
            many = tf.io.serialize_many_sparse(tf.sparse.SparseTensor([[0, 0]], tf.constant([1], tf.int64), [2, 2]))
            return tf.io.deserialize_many_sparse(many, tf.float32)
        return tf.io.serialize_many_sparse(tf.sparse.SparseTensor([[1]], [1.0], [3]))

    check(fn)


def test_decode_compressed():
    texts = [b"hello", b"", b"x" * 1000]

    def fn(tf):
        return (tf.io.decode_compressed(tf.constant([zlib.compress(t) for t in texts]), "ZLIB"),
                tf.io.decode_compressed(gzip.compress(b"hello"), compression_type="GZIP"),
                tf.io.decode_compressed(tf.constant([[b"raw", b"text"]])))

    check(fn)


@pytest.mark.parametrize("data, kind", [(b"junk", "ZLIB"), (b"junk", "GZIP"), (b"x", "BAD")])
def test_decode_compressed_errors(data, kind):
    check(lambda tf: tf.io.decode_compressed(data, kind))


def test_matching_files(tmp_path):
    for name in ("b.txt", "a.txt", "c.csv"):
        (tmp_path / name).write_text("x")
    base = str(tmp_path)

    def fn(tf):
        return (tf.io.matching_files(os.path.join(base, "*.txt")),
                tf.io.matching_files([os.path.join(base, "*.csv"), os.path.join(base, "a*"), os.path.join(base, "*")]),
                tf.io.matching_files(os.path.join(base, "nothing", "*")),
                tf.io.match_filenames_once(os.path.join(base, "*.txt")).numpy(),
                tf.io.match_filenames_once([os.path.join(base, "*.csv")]).trainable)

    check(fn)


def _json_of_example(tf):
    return json.dumps({"features": {"feature": {
        "a": {"int64List": {"value": ["1", "-2", 3]}},
        "b": {"bytesList": {"value": [base64.b64encode(b"hi").decode(), ""]}},
        "c": {"floatList": {"value": [1.5, "NaN", "-Infinity"]}},
        "d": {"int64_list": {}},
        "e": {}}}})


def test_decode_json_example():
    def fn(tf):
        text = _json_of_example(tf)
        decoded = tf.io.decode_json_example([text, "{}", '{"features": {}}'])
        parsed = tf.io.parse_single_example(decoded[0], {"a": tf.io.VarLenFeature(tf.int64),
                                                         "c": tf.io.FixedLenFeature([3], tf.float32)})
        return decoded, parsed["a"].values, parsed["c"], tf.io.decode_json_example(text)

    check(fn)


@pytest.mark.parametrize("text", ["{bad", '{"x": 1}', '{"features": {"feature": {"a": {"int64List": '
                                                             '{"value": ["z"]}}}}}'])
def test_decode_json_example_errors(text):
    check(lambda tf: tf.io.decode_json_example(text))


def test_inside_tf_function():
    def fn(tf):
        @tf.function
        def decode(data):
            return tf.strings.length(tf.io.decode_compressed(data, "ZLIB"))

        return decode(tf.constant([zlib.compress(b"abc")])), decode(tf.constant([zlib.compress(b"abcdef")]))

    check(fn)
