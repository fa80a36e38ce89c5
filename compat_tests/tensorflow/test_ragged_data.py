"""tf.RaggedTensorSpec and ragged tensors through tf.data, against real TF 2.21."""

import numpy as np
import pytest

from compat_tests.tensorflow.harness import error_kind, real, vtf


def describe(x):
    """A comparable form of a result of either library: ragged tensors by their repr, dtype, shape and ragged rank,
    tensors by dtype, shape and values, specs and datasets by their reprs (and elements)."""
    if isinstance(x, (real.RaggedTensor, vtf.RaggedTensor)):
        return ("ragged", repr(x), x.dtype.name, x.shape.as_list(), x.ragged_rank, x.to_list())
    if isinstance(x, (real.Tensor, vtf.Tensor)):
        return ("tensor", x.dtype.name, x.shape.as_list(), np.asarray(x.numpy()).tolist())
    if isinstance(x, (real.data.Dataset, vtf.data.Dataset)):
        return ("dataset", repr(x), repr(x.element_spec), int(x.cardinality()), [describe(e) for e in x])
    if isinstance(x, (real.RaggedTensorSpec, vtf.RaggedTensorSpec, real.TensorSpec, vtf.TensorSpec)):
        return ("spec", repr(x))
    if isinstance(x, np.ndarray):
        return ("ndarray", str(x.dtype), x.shape, repr(x))
    if isinstance(x, (tuple, list)):
        return (type(x).__name__, [describe(v) for v in x])
    if isinstance(x, dict):
        return ("dict", [(k, describe(v)) for k, v in x.items()])
    return ("value", type(x).__name__, x)


def same(fn):
    """``fn(tf)`` described alike in real TF and vfw (or the same kind of error)."""
    outcomes = []
    for lib in (real, vtf):
        try:
            outcomes.append((describe(fn(lib)), None))
        except Exception as e:  # noqa: BLE001  (an error is a result to compare)
            outcomes.append((None, e))
    (want, werr), (got, gerr) = outcomes
    if werr is not None:
        assert gerr is not None, f"tf raised {type(werr).__name__}: {werr}; vfw returned {got!r}"
        assert error_kind(gerr) == error_kind(werr), f"tf: {werr!r}; vfw: {gerr!r}"
        return
    if gerr is not None:
        raise AssertionError(f"vfw raised {gerr!r}; tf returned {want!r}") from gerr
    assert got == want, f"\nvfw: {got}\ntf:  {want}"


def ragged(tf):
    return tf.ragged.constant([[1, 2], [3], [4, 5, 6]])


def ragged3(tf):
    return tf.ragged.constant([[[1, 2], [3]], [[4]], [[5, 6, 7], [], [8]]])


# -- RaggedTensorSpec -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("make", [
    lambda tf: tf.RaggedTensorSpec([None, None], tf.float32),
    lambda tf: tf.RaggedTensorSpec([2, None, 3]),
    lambda tf: tf.RaggedTensorSpec([2, None, None], ragged_rank=1),
    lambda tf: tf.RaggedTensorSpec([None, None], tf.int32, row_splits_dtype=tf.int32),
    lambda tf: tf.RaggedTensorSpec.from_value(ragged(tf)),
    lambda tf: tf.RaggedTensorSpec.from_value(ragged3(tf)),
    lambda tf: tf.RaggedTensorSpec(),
    lambda tf: tf.RaggedTensorSpec([2], ragged_rank=1),
    lambda tf: tf.RaggedTensorSpec([2, None], ragged_rank=2),
])
def test_spec_repr_and_errors(make):
    same(make)


def test_spec_properties():
    same(lambda tf: (lambda s: (s.shape.as_list(), s.dtype.name, s.ragged_rank, s.row_splits_dtype.name,
                                s.flat_values_spec))(tf.RaggedTensorSpec([None, None, 4], tf.int64, 1)))


def test_spec_compatibility_and_equality():
    same(lambda tf: [tf.RaggedTensorSpec([None, None], tf.int32).is_compatible_with(ragged(tf)),
                     tf.RaggedTensorSpec([None, None], tf.float32).is_compatible_with(ragged(tf)),
                     tf.RaggedTensorSpec([2, None], tf.int32).is_compatible_with(ragged(tf)),
                     tf.RaggedTensorSpec([None, None]) == tf.RaggedTensorSpec([None, None]),
                     tf.RaggedTensorSpec([None, None]) == tf.RaggedTensorSpec([None, None], tf.int32),
                     hash(tf.RaggedTensorSpec([3, None])) == hash(tf.RaggedTensorSpec([3, None])),
                     tf.RaggedTensorSpec([2, None]).most_specific_common_supertype([tf.RaggedTensorSpec([3, None])]),
                     tf.RaggedTensorSpec([None, None]).value_type.__name__])


# -- reprs of ragged values ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("pylist", [[[]], [[], [1]], [[[1, 2], [3]], [[5], [6, 7]]], [[1.5, 2.25]] * 3,
                                    [list(range(30)), [1]], [[[1.0]]], [[[1, 2], [3, 4]], [[5, 6]]],
                                    [["a", "b"], ["c"]]])
def test_ragged_repr_and_numpy(pylist):
    same(lambda tf: [tf.ragged.constant(pylist), tf.ragged.constant(pylist).numpy()])


# -- datasets -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("build", [
    lambda tf: tf.data.Dataset.from_tensor_slices(ragged(tf)),
    lambda tf: tf.data.Dataset.from_tensor_slices(ragged3(tf)),
    lambda tf: tf.data.Dataset.from_tensors(ragged(tf)),
    lambda tf: tf.data.Dataset.from_tensor_slices({"a": ragged(tf), "b": [1, 2, 3]}),
    lambda tf: tf.data.Dataset.from_tensor_slices((ragged(tf), tf.ragged.constant([[1.0], [], [2.0, 3.0, 4.0]]))),
    lambda tf: tf.data.Dataset.from_tensor_slices(ragged(tf)).batch(2),
    lambda tf: tf.data.Dataset.from_tensor_slices(ragged(tf)).batch(2, drop_remainder=True),
    lambda tf: tf.data.Dataset.from_tensor_slices(ragged3(tf)).batch(2),
    lambda tf: tf.data.Dataset.from_tensors(ragged(tf)).batch(2),
    lambda tf: tf.data.Dataset.from_tensors(ragged(tf)).unbatch(),
    lambda tf: tf.data.Dataset.from_tensor_slices(ragged(tf)).batch(2).unbatch(),
    lambda tf: tf.data.Dataset.from_tensor_slices(ragged3(tf)).batch(2).unbatch(),
    lambda tf: tf.data.Dataset.from_tensor_slices(ragged(tf)).batch(2).rebatch(1),
    lambda tf: tf.data.Dataset.from_tensor_slices(ragged(tf)).ragged_batch(2),
    lambda tf: tf.data.Dataset.from_tensor_slices(["a b", "c d e", "f"]).batch(2).map(tf.strings.split),
    lambda tf: tf.data.Dataset.from_tensor_slices(["a b", "c d e", "f"]).batch(2).map(tf.strings.split).unbatch(),
    lambda tf: tf.data.Dataset.from_tensor_slices(["a b", "c d e", "f"]).map(tf.strings.split),
    lambda tf: tf.data.Dataset.from_tensor_slices(["a b", "c d e", "f"]).map(tf.strings.split).batch(2),
    lambda tf: tf.data.Dataset.from_tensor_slices(["a b", "c d e", "f"]).map(tf.strings.split).ragged_batch(2),
    lambda tf: tf.data.Dataset.from_tensor_slices(["a b", "c d e", "f"]).map(tf.strings.split).padded_batch(2),
    lambda tf: tf.data.Dataset.from_tensor_slices(ragged(tf)).map(lambda r: r * 2),
    lambda tf: tf.data.Dataset.from_tensor_slices(ragged(tf)).batch(2).map(lambda r: (r.row_lengths(), r)),
    lambda tf: tf.data.Dataset.from_tensor_slices(ragged(tf)).batch(2).map(lambda r: r.to_tensor()),
    lambda tf: tf.data.Dataset.range(4).map(lambda x: tf.range(x)).ragged_batch(2),
    lambda tf: tf.data.Dataset.range(4).map(lambda x: tf.range(x)).ragged_batch(3, drop_remainder=True),
    lambda tf: tf.data.Dataset.range(4).map(lambda x: tf.range(x)).padded_batch(2),
    lambda tf: tf.data.Dataset.range(4).map(lambda x: tf.range(x)).batch(2),
    lambda tf: tf.data.Dataset.range(3).ragged_batch(2),
    lambda tf: tf.data.Dataset.range(3).map(lambda x: tf.zeros([2, 3])).ragged_batch(2),
    lambda tf: tf.data.Dataset.range(3).map(lambda x: tf.zeros([2, x])).ragged_batch(2),
    lambda tf: tf.data.Dataset.range(3).map(lambda x: tf.zeros([x, 2])).ragged_batch(2),
    lambda tf: tf.data.Dataset.range(3).map(lambda x: tf.zeros([x, 2])).ragged_batch(2).unbatch(),
    lambda tf: tf.data.Dataset.range(3).map(lambda x: (tf.range(x), x)).ragged_batch(2),
    lambda tf: tf.data.Dataset.from_tensor_slices(ragged(tf)).shuffle(3, seed=1).take(2).repeat(2),
    lambda tf: tf.data.Dataset.from_tensor_slices(ragged(tf)).filter(lambda r: tf.size(r) > 1),
])
def test_dataset(build):
    same(build)


def test_as_numpy_iterator():
    same(lambda tf: [list(tf.data.Dataset.from_tensor_slices(ragged(tf)).as_numpy_iterator()),
                     list(tf.data.Dataset.from_tensor_slices(ragged(tf)).batch(2).as_numpy_iterator()),
                     list(tf.data.Dataset.from_tensors(ragged(tf)).as_numpy_iterator())])


def test_text_pipeline():
    """split -> lookup -> ragged_batch -> to_tensor, as a text model's input pipeline."""
    def build(tf):
        table = tf.lookup.StaticHashTable(
            tf.lookup.KeyValueTensorInitializer(["the", "cat", "sat"], tf.constant([1, 2, 3], tf.int64)), 0)
        lines = tf.data.Dataset.from_tensor_slices(["the cat sat", "the dog", "cat"])
        tokens = lines.map(tf.strings.split).map(table.lookup).ragged_batch(2)
        return [tokens, tokens.map(lambda r: r.to_tensor())]
    same(build)
