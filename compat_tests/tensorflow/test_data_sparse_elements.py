"""tf.data datasets whose elements hold tf.SparseTensor components, against real TF (eager iteration)."""

import pytest

from compat_tests.tensorflow.data_harness import check_value


def _sparse(tf, rank=2):
    if rank == 2:
        return tf.SparseTensor([[0, 1], [2, 0], [2, 3]], [1.0, 2.0, 3.0], [3, 4])
    if rank == 3:
        return tf.SparseTensor([[0, 1, 1], [1, 0, 2], [1, 1, 0]], [1, 2, 3], [2, 2, 3])
    return tf.SparseTensor([[0]] if rank == 1 else tf.zeros([0, 0], tf.int64), [1.0] if rank == 1 else [],
                           [2] if rank == 1 else [])


def _parts(tf, structure):
    """A structure with every SparseTensor as its three tensors (comparable by the data harness)."""
    return tf.nest.map_structure(
        lambda x: ("sparse", x.indices, x.values, x.dense_shape) if isinstance(x, tf.SparseTensor) else x,
        structure)


def _summary(tf, dataset):
    return repr(dataset.element_spec), int(dataset.cardinality()), [_parts(tf, e) for e in dataset]


@pytest.mark.parametrize("rank", [0, 1, 2, 3])
def test_from_tensors(rank):
    check_value(lambda tf: _summary(tf, tf.data.Dataset.from_tensors((_sparse(tf, rank), 1))))
    check_value(lambda tf: _summary(tf, tf.data.Dataset.from_tensors({"s": _sparse(tf, rank), "n": [1.0]})))


@pytest.mark.parametrize("rank", [0, 1, 2, 3])
def test_from_tensor_slices(rank):
    check_value(lambda tf: _summary(tf, tf.data.Dataset.from_tensor_slices(_sparse(tf, rank))))


def test_from_tensor_slices_structures():
    check_value(lambda tf: _summary(tf, tf.data.Dataset.from_tensor_slices({"s": _sparse(tf), "d": tf.zeros([3])})))
    check_value(lambda tf: _summary(tf, tf.data.Dataset.from_tensor_slices((_sparse(tf, 3), [5, 6]))))
    check_value(lambda tf: _summary(tf, tf.data.Dataset.from_tensor_slices((_sparse(tf), tf.zeros([2])))))


@pytest.mark.parametrize("drop_remainder", [False, True])
@pytest.mark.parametrize("rank", [2, 3])
def test_batch_and_unbatch(rank, drop_remainder):
    def batched(tf):
        return tf.data.Dataset.from_tensor_slices((_sparse(tf, rank), tf.range(_sparse(tf, rank).shape[0]))).batch(
            2, drop_remainder=drop_remainder)
    check_value(lambda tf: _summary(tf, batched(tf)))
    check_value(lambda tf: _summary(tf, batched(tf).unbatch()))


def test_concatenate_and_batch_of_different_shapes():
    def build(tf, second):
        first = tf.data.Dataset.from_tensors(tf.SparseTensor([[0, 1]], [1.0], [2, 3]))
        return first.concatenate(tf.data.Dataset.from_tensors(second))
    for second in ([[3, 0], [0, 2]], [2.0, 3.0], [4, 2]), ([[0]], [2.0], [4]):
        check_value(lambda tf, parts=second: _summary(tf, build(tf, tf.SparseTensor(*parts))))
        check_value(lambda tf, parts=second: _summary(tf, build(tf, tf.SparseTensor(*parts)).batch(2)))


def test_iterators_and_single_element():
    check_value(lambda tf: _parts(tf, tf.data.Dataset.from_tensor_slices(_sparse(tf)).take(1).get_single_element()))
    check_value(lambda tf: _parts(tf, iter(tf.data.Dataset.from_tensor_slices(_sparse(tf))).get_next()))
    check_value(lambda tf: _parts(tf, iter(tf.data.Dataset.from_tensors(_sparse(tf))).get_next_as_optional()
                                  .get_value()))
    check_value(lambda tf: repr(iter(tf.data.Dataset.from_tensors(_sparse(tf))).get_next_as_optional()
                                .element_spec))
    check_value(lambda tf: _summary(tf, tf.data.Dataset.from_tensor_slices(_sparse(tf)).skip(1).repeat(2)))


@pytest.mark.parametrize("indices", [[[0, 1], [0, 1]], [[1, 1], [0, 2]], [[0, 1], [0, 0]], [[0, 1], [1, 0]]])
def test_slices_need_ordered_indices(indices):
    check_value(lambda tf: _summary(tf, tf.data.Dataset.from_tensor_slices(tf.SparseTensor(indices, [1.0, 2.0],
                                                                                           [3, 4]))))
