"""tf.io (TFRecordWriter, serialize_tensor/parse_tensor, parse_single_example/parse_example), tf.train.Example
messages and tf.data.TFRecordDataset against real TF 2.21."""

import os

import numpy as np
import pytest

from compat_tests.tensorflow.harness import check


def _example(tf, **features):
    """An Example of ``name=("float_list"|"int64_list"|"bytes_list", values)`` features."""
    made = {}
    for name, (kind, values) in features.items():
        list_type = {"float_list": tf.train.FloatList, "int64_list": tf.train.Int64List,
                     "bytes_list": tf.train.BytesList}[kind]
        made[name] = tf.train.Feature(**{kind: list_type(value=values)})
    return tf.train.Example(features=tf.train.Features(feature=made))


def _sparse(s):
    return (s.indices, s.values, s.dense_shape)


@pytest.mark.parametrize("value", [
    np.arange(6, dtype=np.float32).reshape(2, 3), np.float64(2.5), np.array([-5, 7], np.int64), np.int32(3),
    np.array([True, False]), np.zeros((0, 2), np.float32), np.array([[1, 2]], np.uint8), np.float16(1.5),
    np.array([b"ab", b"", b"c\x00"], dtype=object), np.array(b"x", dtype=object),
])
def test_serialize_and_parse_tensor(value):
    def fn(tf, x):
        serialized = tf.io.serialize_tensor(x)
        return serialized, tf.io.parse_tensor(serialized, x.dtype)
    check(fn, value)


@pytest.mark.parametrize("fn", [
    lambda tf: tf.io.parse_tensor(tf.io.serialize_tensor(tf.constant(1.0)), tf.int32),
    lambda tf: tf.function(lambda s: tf.io.parse_tensor(s, tf.float32) * 2)(tf.io.serialize_tensor([1.0, 4.0])),
    lambda tf: tf.io.parse_tensor(b"\x08", tf.float32),
    lambda tf: tf.io.parse_single_example(b"garbage\x01", {"x": tf.io.FixedLenFeature([], tf.float32, 0.0)}),
    lambda tf: tf.io.parse_single_example(b"", {"x": tf.io.FixedLenFeature([], tf.float32, 0.0)}),
    lambda tf: list(tf.data.Dataset.from_tensor_slices([b"\n\x05abc"]).map(
        lambda r: tf.io.parse_single_example(r, {"x": tf.io.FixedLenFeature([], tf.float32, 0.0)}))),
])
def test_parsing_checks_and_functions(fn):
    check(fn)


@pytest.mark.parametrize("features", [
    {"v": ("int64_list", [1, -2, 300, -(2 ** 63)])},
    {"f": ("float_list", [1.5, -0.1, 1e30])},
    {"b": ("bytes_list", [b"hi", b"", b"\xff\x00"])},
    {"e": ("float_list", [])},
    {},
])
def test_example_messages_serialize_as_protobuf(features):
    def fn(tf):
        example = _example(tf, **features)
        data = example.SerializeToString()
        back = tf.train.Example.FromString(data)
        kinds = {k: f.WhichOneof("kind") for k, f in back.features.feature.items()}
        values = {k: list(getattr(f, f.WhichOneof("kind")).value) for k, f in back.features.feature.items()}
        return data, back == example, kinds, values, example.ByteSize()
    check(fn)


def test_example_message_details():
    def fn(tf):
        feature = tf.train.Feature(int64_list=tf.train.Int64List(value=[3]))
        results = [feature.WhichOneof("kind"), list(feature.float_list.value), tf.train.Feature().WhichOneof("kind"),
                   tf.train.Feature().SerializeToString(), tf.train.Example().SerializeToString(),
                   tf.train.Example(features=tf.train.Features()).SerializeToString(),
                   list(tf.train.FloatList(value=[0.1]).value)]
        try:
            tf.train.BytesList(value=["text"])
        except TypeError:
            results.append("TypeError")
        return results
    check(fn)


SPECS = {
    "fixed": lambda tf: {"x": tf.io.FixedLenFeature([2], tf.float32), "n": tf.io.FixedLenFeature([], tf.int64),
                         "s": tf.io.FixedLenFeature([1], tf.string)},
    "default": lambda tf: {"w": tf.io.FixedLenFeature([], tf.float32, default_value=0.5),
                           "m": tf.io.FixedLenFeature([2, 1], tf.int64, default_value=[[7], [8]])},
    "varlen": lambda tf: {"x": tf.io.VarLenFeature(tf.float32), "s": tf.io.VarLenFeature(tf.string),
                          "q": tf.io.VarLenFeature(tf.int64)},
    "missing": lambda tf: {"q": tf.io.FixedLenFeature([], tf.int64)},
    "wrong_kind": lambda tf: {"n": tf.io.FixedLenFeature([], tf.float32)},
    "wrong_count": lambda tf: {"x": tf.io.FixedLenFeature([3], tf.float32)},
}


def _records(tf):
    return [_example(tf, x=("float_list", [1.0, 2.0]), n=("int64_list", [4]), s=("bytes_list", [b"a"])),
            _example(tf, x=("float_list", [-3.0, 0.5]), n=("int64_list", [-1]), s=("bytes_list", [b"bcd"]),
                     w=("float_list", [2.0]), m=("int64_list", [1, 2]))]


@pytest.mark.parametrize("spec", sorted(SPECS))
def test_parse_single_example(spec):
    def fn(tf):
        parsed = [tf.io.parse_single_example(e.SerializeToString(), SPECS[spec](tf)) for e in _records(tf)]
        return [{k: _sparse(v) if hasattr(v, "indices") else v for k, v in p.items()} for p in parsed]
    check(fn)


@pytest.mark.parametrize("spec", sorted(SPECS))
def test_parse_example_batch(spec):
    def fn(tf):
        batch = tf.constant([e.SerializeToString() for e in _records(tf)])
        parsed = tf.io.parse_example(batch, SPECS[spec](tf))
        return {k: _sparse(v) if hasattr(v, "indices") else v for k, v in parsed.items()}
    check(fn)


@pytest.mark.parametrize("options", [None, "GZIP", "ZLIB"])
def test_tfrecord_files_round_trip(tmp_path, options):
    def fn(tf):
        path = os.path.join(tmp_path, f"{tf.__name__}-{options}.tfrecord")
        with tf.io.TFRecordWriter(path, options=options) as writer:
            for e in _records(tf):
                writer.write(e.SerializeToString())
            writer.write(b"raw bytes")
            writer.write("text")
        size = os.path.getsize(path) if options is None else None
        dataset = tf.data.TFRecordDataset([path, path], compression_type=options)
        parsed = dataset.take(2).map(lambda r: tf.io.parse_single_example(r, SPECS["fixed"](tf)))
        # Examples of several features: protobuf writes map entries in its hash order, so compare them parsed.
        records = [r.numpy() for r in dataset]
        examples = [(len(r), tf.train.Example.FromString(r) == e) for r, e in zip(records[:2], _records(tf))]
        return (size, examples, records[2:4], len(records), str(dataset.element_spec),
                [sorted(p.items()) for p in parsed])
    check(fn)


def test_tfrecord_checks(tmp_path):
    path = os.path.join(tmp_path, "corrupt.tfrecord")

    def fn(tf):
        with tf.io.TFRecordWriter(path) as writer:
            writer.write(b"payload")
        with open(path, "r+b") as f:
            f.seek(14)
            f.write(b"X")
        results = []
        for bad in (lambda: list(tf.data.TFRecordDataset(path)),
                    lambda: list(tf.data.TFRecordDataset(os.path.join(tmp_path, "missing"))),
                    lambda: tf.io.TFRecordWriter(path).write(tf.constant(b"x"))):
            try:
                bad()
            except Exception as e:  # noqa: BLE001  (the exception class is the result)
                results.append(type(e).__name__)
        return results
    check(fn)
