"""tf.data batching against real TF 2.21: batch, padded_batch, unbatch, rebatch (values, specs, cardinalities,
errors), including the gathered fast path of batches of table datasets."""

import numpy as np
import pytest

from compat_tests.tensorflow.data_harness import check_dataset, no_global_seed  # noqa: F401


def _range(tf, *args):
    return tf.data.Dataset.range(*args)


def _ragged(tf, n=5):
    """Elements of growing length: [], [1], [2, 2]..."""
    return _range(tf, n).map(lambda x: tf.fill([x], x))


BATCHES = [
    ("range", lambda tf: _range(tf, 10).batch(3)),
    ("range drop", lambda tf: _range(tf, 10).batch(3, drop_remainder=True)),
    ("exact", lambda tf: _range(tf, 9).batch(3, drop_remainder=True)),
    ("bigger than data", lambda tf: _range(tf, 2).batch(5)),
    ("bigger than data drop", lambda tf: _range(tf, 2).batch(5, drop_remainder=True)),
    ("empty", lambda tf: _range(tf, 0).batch(2)),
    ("slices tuple", lambda tf: tf.data.Dataset.from_tensor_slices((np.arange(12.0).reshape(6, 2),
                                                                    np.arange(6))).batch(4)),
    ("slices dict", lambda tf: tf.data.Dataset.from_tensor_slices({"a": [1, 2, 3], "b": ["x", "y", "z"]}).batch(2)),
    ("nested", lambda tf: tf.data.Dataset.from_tensor_slices(([1, 2, 3], {"k": [[1.0], [2.0], [3.0]]})).batch(2)),
    ("strings", lambda tf: tf.data.Dataset.from_tensor_slices(["a", "bb", "c"]).batch(2)),
    ("from_tensors repeated", lambda tf: tf.data.Dataset.from_tensors([1.0, 2.0]).repeat(5).batch(2)),
    ("after take skip", lambda tf: _range(tf, 20).skip(3).take(11).batch(4)),
    ("after shard", lambda tf: _range(tf, 20).shard(3, 1).batch(2)),
    ("across repeats", lambda tf: _range(tf, 5).repeat(3).batch(4)),
    ("infinite", lambda tf: _range(tf, 5).repeat().batch(4)),
    ("of map", lambda tf: _range(tf, 7).map(lambda x: (x, tf.cast(x, tf.float32) * 0.5)).batch(3)),
    ("of batch", lambda tf: _range(tf, 10).batch(2).batch(2)),
    ("of filter", lambda tf: _range(tf, 10).filter(lambda x: x % 2 == 0).batch(2)),
    ("of zip", lambda tf: tf.data.Dataset.zip(_range(tf, 5), _range(tf, 5, 10)).batch(2)),
    ("parallel", lambda tf: _range(tf, 7).batch(3, num_parallel_calls=2, deterministic=True)),
    ("tensor size", lambda tf: _range(tf, 7).batch(tf.constant(3, tf.int64))),
    ("mismatched shapes", lambda tf: _ragged(tf).batch(3)),
    ("mismatched later", lambda tf: _range(tf, 1, 5).map(lambda x: tf.fill([tf.minimum(x, 2)], x)).batch(4)),
    ("size 0", lambda tf: _range(tf, 3).batch(0)),
    ("size -1", lambda tf: _range(tf, 3).batch(-1)),
    ("size float", lambda tf: _range(tf, 3).batch(2.5)),
]


@pytest.mark.parametrize("build", [b for _, b in BATCHES], ids=[n for n, _ in BATCHES])
def test_batch(build):
    check_dataset(build, limit=6)


PADDED = [
    ("default", lambda tf: _ragged(tf).padded_batch(2)),
    ("explicit shape", lambda tf: _ragged(tf).padded_batch(2, padded_shapes=[5])),
    ("shape -1", lambda tf: _ragged(tf).padded_batch(2, padded_shapes=[-1])),
    ("shape None", lambda tf: _ragged(tf).padded_batch(2, padded_shapes=[None])),
    ("shape tensor", lambda tf: _ragged(tf).padded_batch(2, padded_shapes=tf.constant([4], tf.int64))),
    ("shape TensorShape", lambda tf: _ragged(tf).padded_batch(2, padded_shapes=tf.TensorShape([4]))),
    ("value", lambda tf: _ragged(tf).padded_batch(2, padding_values=tf.constant(-1, tf.int64))),
    ("drop", lambda tf: _ragged(tf).padded_batch(2, padded_shapes=[4], drop_remainder=True)),
    ("scalars", lambda tf: _range(tf, 5).padded_batch(2)),
    ("strings", lambda tf: tf.data.Dataset.from_tensor_slices([["a"], ["b"]]).padded_batch(2, padded_shapes=[3])),
    ("tuple", lambda tf: tf.data.Dataset.zip(_range(tf, 5), _range(tf, 5).map(lambda x: tf.fill([x], 1.0)))
     .padded_batch(2, padding_values=(np.int64(-1), 9.0))),
    ("2-d", lambda tf: _range(tf, 1, 4).map(lambda x: tf.ones(tf.stack([x, 4 - x]))).padded_batch(3)),
    ("dict", lambda tf: tf.data.Dataset.zip({"a": _ragged(tf, 3), "b": _range(tf, 3)}).padded_batch(
        3, padded_shapes={"a": [4], "b": []}, padding_values={"a": np.int64(7), "b": np.int64(0)})),
    ("too small", lambda tf: _ragged(tf).padded_batch(2, padded_shapes=[2])),
    ("python value wrong dtype", lambda tf: _ragged(tf).padded_batch(2, padding_values=-1)),
    ("float value for ints", lambda tf: _ragged(tf).padded_batch(2, padding_values=-1.0)),
    ("non-scalar value", lambda tf: _ragged(tf).padded_batch(2, padding_values=tf.constant([1, 2], tf.int64))),
    ("bad rank", lambda tf: _ragged(tf).padded_batch(2, padded_shapes=[1, 2])),
    ("incompatible known", lambda tf: tf.data.Dataset.from_tensors([1, 2, 3]).padded_batch(2, padded_shapes=[2])),
    ("larger than known", lambda tf: tf.data.Dataset.from_tensors([[1, 2]]).padded_batch(2, padded_shapes=[2, 4])),
    ("structure mismatch", lambda tf: tf.data.Dataset.zip(_range(tf, 2), _range(tf, 2)).padded_batch(
        2, padded_shapes=([],))),
    ("unknown rank", lambda tf: tf.data.Dataset.from_generator(lambda: iter([[1]]), tf.int32).padded_batch(2)),
    ("size 0", lambda tf: _ragged(tf).padded_batch(0)),
]


@pytest.mark.parametrize("build", [b for _, b in PADDED], ids=[n for n, _ in PADDED])
def test_padded_batch(build):
    check_dataset(build)


UNBATCH = [
    ("of batch", lambda tf: _range(tf, 7).batch(3).unbatch()),
    ("of batch drop", lambda tf: _range(tf, 7).batch(3, drop_remainder=True).unbatch()),
    ("slices", lambda tf: tf.data.Dataset.from_tensor_slices(np.arange(12).reshape(2, 3, 2)).unbatch()),
    ("tuple", lambda tf: tf.data.Dataset.from_tensors(([1, 2], [[1.0], [2.0]])).unbatch()),
    ("infinite", lambda tf: tf.data.Dataset.from_tensors([1, 2]).repeat().unbatch()),
    ("scalar", lambda tf: _range(tf, 3).unbatch()),
    ("mismatched dims", lambda tf: tf.data.Dataset.zip(tf.data.Dataset.from_tensors([1, 2]),
                                                       tf.data.Dataset.from_tensors([1, 2, 3])).unbatch()),
    ("experimental", lambda tf: _range(tf, 4).batch(2).apply(tf.data.experimental.unbatch())),
]


@pytest.mark.parametrize("build", [b for _, b in UNBATCH], ids=[n for n, _ in UNBATCH])
def test_unbatch(build):
    check_dataset(build, limit=8)


REBATCH = [
    ("smaller", lambda tf: _range(tf, 10).batch(4).rebatch(3)),
    ("larger", lambda tf: _range(tf, 10).batch(2).rebatch(3)),
    ("drop", lambda tf: _range(tf, 10).batch(4).rebatch(3, drop_remainder=True)),
    ("sizes list", lambda tf: _range(tf, 10).batch(4).rebatch([1, 3])),
    ("tuple", lambda tf: tf.data.Dataset.zip(_range(tf, 6), _range(tf, 6)).batch(4).rebatch(2)),
]


@pytest.mark.parametrize("build", [b for _, b in REBATCH], ids=[n for n, _ in REBATCH])
def test_rebatch(build):
    check_dataset(build)


def test_large_batched_slices():
    """The gathered path over many rows (views of the table), as model.fit consumes it."""
    x = np.random.default_rng(0).standard_normal((1000, 7)).astype(np.float32)
    y = np.arange(1000) % 10
    check_dataset(lambda tf: tf.data.Dataset.from_tensor_slices((x, y)).batch(128), limit=20)
    check_dataset(lambda tf: tf.data.Dataset.from_tensor_slices((x, y)).shuffle(1000, seed=4).batch(128), limit=20)
    check_dataset(lambda tf: tf.data.Dataset.from_tensor_slices((x, y)).shuffle(100, seed=4).batch(64).prefetch(
        tf.data.AUTOTUNE), limit=20)
