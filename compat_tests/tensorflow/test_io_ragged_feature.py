"""tf.io.RaggedFeature in parse_single_example / parse_example against TF 2.21 (values compared through
``to_list()`` and the flat values' dtype: vfw's ragged tensors keep int64 row splits)."""

import numpy as np
import pytest

tf_real = pytest.importorskip("tensorflow")

import vfw.tensorflow as vtf  # noqa: E402

_FEATURES = {"v": ("float", [1, 2, 3, 4, 5, 6]), "l": ("int64", [2, 0, 3, 1]), "s": ("int64", [0, 2, 2, 5, 6]),
             "ids": ("int64", [0, 0, 2, 2, 2, 3]), "st": ("int64", [0, 2, 2, 5]), "lim": ("int64", [2, 2, 5, 6]),
             "w": ("bytes", [b"a", b"bc"]), "f": ("float", [2, 0, 3, 1]), "bad": ("int64", [2, 0, 0])}
_OTHER = {"v": ("float", [7]), "l": ("int64", [0, 1]), "s": ("int64", [0, 0, 1]), "ids": ("int64", [1]),
          "st": ("int64", [0, 0]), "lim": ("int64", [0, 1]), "w": ("bytes", [b"q"])}


def _example(features):
    """The serialized Example of ``features`` (built by real TF)."""
    lists = {"float": ("float_list", tf_real.train.FloatList), "int64": ("int64_list", tf_real.train.Int64List),
             "bytes": ("bytes_list", tf_real.train.BytesList)}
    feature = {key: tf_real.train.Feature(**{lists[kind][0]: lists[kind][1](value=values)})
               for key, (kind, values) in features.items()}
    return tf_real.train.Example(features=tf_real.train.Features(feature=feature)).SerializeToString()


def _plain(value):
    """A parse result as comparable Python data: ragged tensors as (nested lists, dtype name), tensors too."""
    if hasattr(value, "to_list"):
        return "ragged", value.to_list(), value.dtype.name, value.shape.rank
    return "dense", value.numpy().tolist(), value.dtype.name, tuple(value.shape)


def _outcome(tf, make_features, serialized, batched):
    try:
        features = make_features(tf)
        parse = tf.io.parse_example if batched else tf.io.parse_single_example
        return {key: _plain(value) for key, value in parse(serialized, features).items()}
    except Exception as error:  # noqa: BLE001  (the exception class is the compared outcome)
        return type(error).__name__


def _check(make_features, batched=False, examples=None):
    serialized = examples if examples is not None else ([_example(_FEATURES), _example(_OTHER)] if batched
                                                         else _example(_FEATURES))
    expected = _outcome(tf_real, make_features, serialized, batched)
    assert _outcome(vtf, make_features, serialized, batched) == expected


def _ragged(partitions, dtype="float32", value_key="v", **kwargs):
    def make(tf):
        rf = tf.io.RaggedFeature
        return {"x": rf(dtype, value_key=value_key, partitions=[getattr(rf, kind)(arg) for kind, arg in partitions],
                        **kwargs)}
    return make


@pytest.mark.parametrize("batched", [False, True])
@pytest.mark.parametrize("partitions", [
    [], [("RowLengths", "l")], [("RowSplits", "s")], [("ValueRowIds", "ids")], [("RowStarts", "st")],
    [("RowLimits", "lim")], [("UniformRowLength", 2)], [("UniformRowLength", 1)],
    [("UniformRowLength", 2), ("RowLengths", "l")],
])
def test_partitions(partitions, batched):
    _check(_ragged(partitions), batched)


def test_missing_partition_feature():
    # no row lengths: no rows (TF does not check the values against the partition unless validate=True)
    _check(_ragged([("RowLengths", "nope")]))


@pytest.mark.parametrize("batched", [False, True])
def test_values_and_keys(batched):
    _check(lambda tf: {"v": tf.io.RaggedFeature("float32"), "w": tf.io.RaggedFeature("string"),
                       "nope": tf.io.RaggedFeature("int64")}, batched)
    _check(_ragged([], dtype="int64"), batched)  # a float feature read as int64
    _check(_ragged([("RowLengths", "f")]), batched)  # float partition values
    _check(lambda tf: {**_ragged([("RowLengths", "l")])(tf),
                       "y": tf.io.FixedLenFeature([4], "int64", default_value=[0] * 4)}, batched)


@pytest.mark.parametrize("partitions", [[("RowSplits", "lim")], [("ValueRowIds", "l")], [("UniformRowLength", 4)],
                                        [("RowLengths", "bad")]])
def test_validation(partitions):
    _check(_ragged(partitions, validate=True))


def test_empty_batch():
    _check(_ragged([]), batched=True, examples=np.array([], object))
    _check(_ragged([("RowLengths", "l")]), batched=True, examples=np.array([], object))


@pytest.mark.parametrize("arguments", [
    dict(dtype="int32"), dict(dtype="float32", row_splits_dtype="float32"), dict(dtype="float32", value_key=3),
    dict(dtype="float32", value_key=""), dict(dtype="float32", partitions=["a"]), dict(dtype="string"),
    dict(dtype="float32", partitions=[("x",)])])
def test_constructor(arguments):
    def build(tf):
        try:
            feature = tf.io.RaggedFeature(**arguments)
            return (feature.dtype.name, feature.value_key, feature.partitions, feature.row_splits_dtype.name,
                    feature.validate, feature._fields)
        except Exception as error:  # noqa: BLE001
            return type(error).__name__, str(error).split(";")[0].split(" in (")[0]
    assert build(vtf) == build(tf_real)


def test_repr_and_partition_types():
    rf, real = vtf.io.RaggedFeature, tf_real.io.RaggedFeature
    assert repr(rf(vtf.float32)) == repr(real(tf_real.float32))
    assert repr(rf.RowSplits("x")) == repr(real.RowSplits("x"))
    assert repr(rf.UniformRowLength(2)) == repr(real.UniformRowLength(2))
    assert repr(rf("int64", partitions=[rf.RowLengths("a")], row_splits_dtype="int64")) == \
        repr(real("int64", partitions=[real.RowLengths("a")], row_splits_dtype="int64"))
