"""tf.data over files against real TF 2.21: TextLineDataset (plain, gzip, zlib, several files, interleaved reads,
missing files) and Dataset.list_files (sorted, seeded shuffle, no match)."""

import gzip
import zlib

import pytest

from compat_tests.tensorflow.data_harness import check_dataset, check_value, no_global_seed  # noqa: F401


@pytest.fixture
def files(tmp_path):
    contents = {"b.txt": b"a\nbb\r\n\nccc", "a.txt": b"x\ny\n", "empty.txt": b"", "c.log": b"1\n2\n3\n4\n"}
    for name, content in contents.items():
        (tmp_path / name).write_bytes(content)
    (tmp_path / "d.gz").write_bytes(gzip.compress(b"g1\ng2\n"))
    (tmp_path / "e.z").write_bytes(zlib.compress(b"z1\nz2"))
    return tmp_path


def test_text_line_dataset(files):
    paths = [str(files / n) for n in ("b.txt", "a.txt", "empty.txt", "c.log")]
    check_dataset(lambda tf: tf.data.TextLineDataset(paths[0]))
    check_dataset(lambda tf: tf.data.TextLineDataset(paths))
    check_dataset(lambda tf: tf.data.TextLineDataset(tf.constant(paths[1:])))
    check_dataset(lambda tf: tf.data.TextLineDataset(paths, num_parallel_reads=2))
    check_dataset(lambda tf: tf.data.TextLineDataset(paths, num_parallel_reads=3).batch(3))
    check_dataset(lambda tf: tf.data.TextLineDataset(str(files / "d.gz"), compression_type="GZIP"))
    check_dataset(lambda tf: tf.data.TextLineDataset(str(files / "e.z"), compression_type="ZLIB"))
    check_dataset(lambda tf: tf.data.TextLineDataset(str(files / "missing.txt")))
    check_dataset(lambda tf: tf.data.Dataset.from_tensor_slices(paths).interleave(tf.data.TextLineDataset,
                                                                                  cycle_length=2))
    check_dataset(lambda tf: tf.data.Dataset.from_tensor_slices(paths[:2]).flat_map(
        lambda p: tf.data.TextLineDataset(p).map(lambda line: (p, line))))


def test_list_files(files):
    check_dataset(lambda tf: tf.data.Dataset.list_files(str(files / "*.txt"), shuffle=False))
    check_dataset(lambda tf: tf.data.Dataset.list_files(str(files / "*"), seed=3))
    check_value(lambda tf: (lambda d: [list(d), list(d)])(tf.data.Dataset.list_files(str(files / "*"), seed=5)))
    check_dataset(lambda tf: tf.data.Dataset.list_files([str(files / "*.log"), str(files / "a*")], shuffle=False))
    check_dataset(lambda tf: tf.data.Dataset.list_files(str(files / "*.none")))
