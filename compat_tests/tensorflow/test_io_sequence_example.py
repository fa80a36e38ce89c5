"""tf.train.SequenceExample / FeatureLists / FeatureList and tf.io.parse_single_sequence_example /
parse_sequence_example against real TF: wire bytes (single-entry maps: protobuf orders map entries by hash),
round trips, context and sequence features (FixedLenSequenceFeature, VarLenFeature, allow_missing, padding and
lengths), errors, and parsing inside tf.function."""

import pytest

from compat_tests.tensorflow.harness import check


def _parts(result):
    """Parsed feature dicts with SparseTensors as ``(indices, values, dense_shape)`` (comparable)."""
    return tuple({k: (v.indices, v.values, v.dense_shape) if hasattr(v, "indices") else v for k, v in part.items()}
                 for part in result)


def _int64(tf, values):
    return tf.train.Feature(int64_list=tf.train.Int64List(value=values))


def _floats(tf, values):
    return tf.train.Feature(float_list=tf.train.FloatList(value=values))


def _sequence(tf, tokens, weights, words=None, context_id=None):
    lists = {"tok": tf.train.FeatureList(feature=[_int64(tf, t) for t in tokens]),
             "w": tf.train.FeatureList(feature=[_floats(tf, x) for x in weights])}
    if words is not None:
        lists["word"] = tf.train.FeatureList(feature=[tf.train.Feature(bytes_list=tf.train.BytesList(value=w))
                                                      for w in words])
    context = None
    if context_id is not None:
        context = tf.train.Features(feature={"id": _int64(tf, [context_id]), "score": _floats(tf, [0.5, 1.5])})
    return tf.train.SequenceExample(context=context, feature_lists=tf.train.FeatureLists(feature_list=lists))


def test_wire_bytes_and_round_trip():
    def fn(tf):
        one = tf.train.SequenceExample(
            context=tf.train.Features(feature={"id": _int64(tf, [7, -1])}),
            feature_lists=tf.train.FeatureLists(feature_list={
                "tok": tf.train.FeatureList(feature=[_int64(tf, [1, 2]), _floats(tf, [0.25]), tf.train.Feature()])}))
        data = one.SerializeToString()
        back = tf.train.SequenceExample.FromString(data)
        empty = tf.train.SequenceExample()
        set_empty = tf.train.SequenceExample(context=tf.train.Features(), feature_lists=tf.train.FeatureLists())
        steps = back.feature_lists.feature_list["tok"].feature
        return (data, back == one, [s.WhichOneof("kind") for s in steps], list(steps[0].int64_list.value),
                list(back.context.feature["id"].int64_list.value), empty.SerializeToString(),
                set_empty.SerializeToString(), back.ByteSize(), tf.train.FeatureList().SerializeToString(),
                len(_sequence(tf, [[1]], [[2.0]], context_id=3).SerializeToString()))

    check(fn)


def test_single_sequence_example():
    def fn(tf):
        data = _sequence(tf, [[1, 2], [3, 4], [5, 6]], [[1.0, 2.0], [], [3.0]], words=[[b"a"], [b"bc"], [b""]],
                         context_id=9).SerializeToString()
        return _parts(tf.io.parse_single_sequence_example(
            data,
            context_features={"id": tf.io.FixedLenFeature([], tf.int64),
                              "score": tf.io.VarLenFeature(tf.float32),
                              "missing": tf.io.FixedLenFeature([2], tf.float32, default_value=[1.0, 2.0])},
            sequence_features={"tok": tf.io.FixedLenSequenceFeature([2], tf.int64),
                               "w": tf.io.VarLenFeature(tf.float32),
                               "word": tf.io.FixedLenSequenceFeature([], tf.string),
                               "absent": tf.io.FixedLenSequenceFeature([3], tf.float32, allow_missing=True),
                               "absent_sparse": tf.io.VarLenFeature(tf.int64)}))

    check(fn)


def test_batched_sequence_examples():
    def fn(tf):
        records = [_sequence(tf, [[1], [2], [3]], [[1.0, 2.0], [], [3.0]], context_id=1).SerializeToString(),
                   _sequence(tf, [[4]], [[5.0, 6.0, 7.0]], context_id=2).SerializeToString(),
                   _sequence(tf, [], [], context_id=3).SerializeToString()]
        return _parts(tf.io.parse_sequence_example(
            tf.constant(records),
            context_features={"id": tf.io.FixedLenFeature([1], tf.int64), "score": tf.io.VarLenFeature(tf.float32)},
            sequence_features={"tok": tf.io.FixedLenSequenceFeature([], tf.int64),
                               "w": tf.io.VarLenFeature(tf.float32)}))

    check(fn)


@pytest.mark.parametrize("case", ["wrong_kind", "missing_list", "wrong_count", "default_value", "no_features",
                                  "missing_context", "sequence_fixed_len_feature"])
def test_errors(case):
    def fn(tf):
        data = _sequence(tf, [[1], [2], [3]], [[1.0], [2.0]]).SerializeToString()
        sequence_features = {
            "wrong_kind": {"tok": tf.io.FixedLenSequenceFeature([], tf.float32)},
            "missing_list": {"zz": tf.io.FixedLenSequenceFeature([], tf.float32)},
            "wrong_count": {"tok": tf.io.FixedLenSequenceFeature([2], tf.int64)},
            "default_value": {"tok": tf.io.FixedLenSequenceFeature([], tf.int64, default_value=0)},
            "sequence_fixed_len_feature": {"tok": tf.io.FixedLenFeature([], tf.int64)},
        }.get(case)
        context_features = {"c": tf.io.FixedLenFeature([], tf.int64)} if case == "missing_context" else None
        return tf.io.parse_single_sequence_example(data, context_features=context_features,
                                                   sequence_features=sequence_features)

    check(fn)


def test_spec_tuples():
    def fn(tf):
        seq = tf.io.FixedLenSequenceFeature([2], tf.int64)
        sparse = tf.io.SparseFeature(["i"], "v", tf.float32, [5])
        return (tuple(seq), seq.allow_missing, seq.default_value, tuple(sparse), sparse.already_sorted,
                isinstance(seq, tuple), repr(seq))

    check(fn)


def test_inside_tf_function():
    def fn(tf):
        spec = {"tok": tf.io.FixedLenSequenceFeature([], tf.int64)}

        @tf.function
        def parse(records):
            _, features, lengths = tf.io.parse_sequence_example(records, sequence_features=spec)
            return features["tok"] * 2, lengths["tok"]

        first = [_sequence(tf, [[1], [2]], []).SerializeToString(), _sequence(tf, [[3]], []).SerializeToString()]
        second = [_sequence(tf, [[5], [6], [7]], []).SerializeToString(), _sequence(tf, [], []).SerializeToString()]
        return parse(tf.constant(first)), parse(tf.constant(second))

    check(fn)


def _example(tf, features):
    return tf.train.Example(features=tf.train.Features(feature=features)).SerializeToString()


def _records(tf):
    return [_example(tf, {"s": _floats(tf, [1, 2, 3, 4]), "idx": _int64(tf, [3, 0]), "val": _floats(tf, [5.0, 6.0]),
                          "col": _int64(tf, [1, 2]),
                          "word": tf.train.Feature(bytes_list=tf.train.BytesList(value=[b"a", b"b"]))}),
            _example(tf, {"s": _floats(tf, [7, 8]), "idx": _int64(tf, [1]), "val": _floats(tf, [9.0]),
                          "col": _int64(tf, [0])}),
            _example(tf, {})]


def test_example_sequence_and_sparse_features():
    def fn(tf):
        records = _records(tf)
        batch = tf.io.parse_example(tf.constant(records), {
            "s": tf.io.FixedLenSequenceFeature([2], tf.float32, allow_missing=True, default_value=-1.0),
            "flat": tf.io.FixedLenSequenceFeature([], tf.int64, allow_missing=True),
            "word": tf.io.FixedLenSequenceFeature([], tf.string, allow_missing=True),
            "sp": tf.io.SparseFeature("idx", "val", tf.float32, 5),
            "sp2": tf.io.SparseFeature(["idx", "col"], "val", tf.float32, [5, 3]),
        })
        single = tf.io.parse_single_example(records[0], {
            "s": tf.io.FixedLenSequenceFeature([], tf.float32, allow_missing=True),
            "sp": tf.io.SparseFeature("idx", "val", tf.float32, 5, already_sorted=True),
            "small": tf.io.SparseFeature("idx", "val", tf.float32, 2),
        })
        return _parts([batch, single])

    check(fn)


@pytest.mark.parametrize("case", ["not_allow_missing", "stride", "sparse_lengths", "sparse_missing_values"])
def test_example_spec_errors(case):
    def fn(tf):
        record = _records(tf)[0]
        spec = {"not_allow_missing": tf.io.FixedLenSequenceFeature([], tf.float32),
                "stride": tf.io.FixedLenSequenceFeature([3], tf.float32, allow_missing=True),
                "sparse_lengths": tf.io.SparseFeature("idx", "s", tf.float32, 5),
                "sparse_missing_values": tf.io.SparseFeature("idx", "zz", tf.float32, 5)}[case]
        return _parts([tf.io.parse_example(tf.constant([record]), {"f": spec})])

    check(fn)


def test_example_sequence_feature_in_tf_function():
    def fn(tf):
        spec = {"s": tf.io.FixedLenSequenceFeature([2], tf.float32, allow_missing=True)}
        parse = tf.function(lambda records: tf.io.parse_example(records, spec)["s"] + 1.0)
        records = _records(tf)
        return parse(tf.constant(records[:2])), parse(tf.constant(records[1:]))

    check(fn)
