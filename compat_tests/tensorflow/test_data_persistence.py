"""tf.data.Dataset.save / load / snapshot against real TF 2.21.

Each library saves and loads its own directory (vfw's format is its own: see ``_persistence``), and
the loaded datasets must match: element spec, cardinality, elements (sorted where TF's shard reading
order is not deterministic).
"""

import os

import numpy as np
import pytest

from compat_tests.tensorflow.data_harness import LIBS, check_value, describe
from compat_tests.tensorflow.harness import real, vtf


def _pipelines(tf):
    return {
        "tensors": tf.data.Dataset.from_tensor_slices(np.arange(12, dtype=np.float32).reshape(6, 2)),
        "structure": tf.data.Dataset.from_tensor_slices(
            ({"x": np.arange(8).reshape(4, 2), "s": [b"a", b"bc", b"", b"def"]}, [1.5, 2.5, 3.5, 4.5])),
        "batched_unknown_dim": tf.data.Dataset.range(7).batch(3),
        "mapped": tf.data.Dataset.range(5).map(lambda x: (x * 2, tf.strings.as_string(x))),
    }


def _keyed(structure):
    """``structure`` (an element or element spec) with each dict as its (key, value) pairs in key order: the key
    order of a loaded dataset's dicts in TF follows Python's string hashing (it changes with PYTHONHASHSEED), so
    only the pairs are TF's behaviour."""
    if isinstance(structure, dict):
        return [(key, _keyed(structure[key])) for key in sorted(structure)]
    if isinstance(structure, tuple):
        return tuple(_keyed(value) for value in structure)
    return structure


@pytest.mark.parametrize("compression", [None, "GZIP"])
@pytest.mark.parametrize("pipeline", ["tensors", "structure", "batched_unknown_dim", "mapped"])
def test_save_load_round_trip(tmp_path, pipeline, compression):
    def saved_and_loaded(tf):
        path = str(tmp_path / tf.__name__.split(".")[0])
        _pipelines(tf)[pipeline].save(path, compression=compression)
        loaded = tf.data.Dataset.load(path, compression=compression)
        return [_keyed(e) for e in loaded], _keyed(loaded.element_spec), loaded.cardinality()

    check_value(saved_and_loaded)


def test_load_with_element_spec_and_cardinality(tmp_path):
    def loaded(tf):
        path = str(tmp_path / tf.__name__.split(".")[0])
        tf.data.Dataset.range(5).save(path)
        dataset = tf.data.Dataset.load(path, element_spec=tf.TensorSpec([], tf.int64))
        return dataset.cardinality(), list(dataset.as_numpy_iterator())

    check_value(loaded)


def test_shard_func_and_reader_func(tmp_path):
    results = []
    for tf in LIBS:
        path = str(tmp_path / tf.__name__.split(".")[0])
        dataset = tf.data.Dataset.range(10).map(lambda x: (x, x * 10))
        dataset.save(path, shard_func=lambda x, y: x % 3)
        loaded = tf.data.Dataset.load(path)
        single = tf.data.Dataset.load(path, reader_func=lambda shards: shards.interleave(
            lambda shard: shard, cycle_length=1))
        results.append((sorted(describe(e) for e in loaded), sorted(describe(e) for e in single),
                        describe(loaded.element_spec)))
    assert results[0] == results[1]


def test_load_missing_directory_is_not_found(tmp_path):
    check_value(lambda tf: list(tf.data.Dataset.load(str(tmp_path / "missing"))))


def test_load_never_unpickles(tmp_path):
    """Object arrays (which need pickle) in a shard file are refused, not executed."""
    path = str(tmp_path / "evil")
    vtf.data.Dataset.from_tensor_slices([1, 2]).save(path)
    with open(os.path.join(path, "shard_0.npz"), "wb") as f:
        np.savez(f, e0_c0=np.array([object()], dtype=object))
    with pytest.raises(ValueError, match="pickle"):
        list(vtf.data.Dataset.load(path))


def test_snapshot_writes_then_reads(tmp_path):
    results = []
    for tf in LIBS:
        path = str(tmp_path / tf.__name__.split(".")[0])
        calls = []

        def traced(x, calls=calls):
            calls.append(1)
            return x

        source = tf.data.Dataset.from_tensor_slices(np.arange(6, dtype=np.int32))
        snapshot = source.snapshot(path)
        first = list(snapshot.as_numpy_iterator())
        second = list(snapshot.as_numpy_iterator())
        reread = list(source.snapshot(path).as_numpy_iterator())
        results.append((first, second, reread, describe(snapshot.element_spec), int(snapshot.cardinality())))
        assert os.listdir(path)
    assert results[0] == results[1]


def test_snapshot_directory_holds_one_snapshot(tmp_path):
    """A documented difference: vfw keeps one snapshot per directory, so another pipeline given the same
    directory reads the stored elements (TF keys snapshots by pipeline fingerprint and would recompute)."""
    path = str(tmp_path / "vfw")
    assert list(vtf.data.Dataset.range(3).snapshot(path).as_numpy_iterator()) == [0, 1, 2]
    assert list(vtf.data.Dataset.range(10, 15).snapshot(path).as_numpy_iterator()) == [0, 1, 2]


def test_snapshot_unfinished_iteration_writes_nothing(tmp_path):
    for tf in (real, vtf):
        path = str(tmp_path / tf.__name__.split(".")[0])
        snapshot = tf.data.Dataset.range(5).snapshot(path)
        iterator = iter(snapshot)
        next(iterator)
        del iterator
        assert [int(x) for x in snapshot] == [0, 1, 2, 3, 4]
