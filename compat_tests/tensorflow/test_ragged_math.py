"""Ragged math and structure (elementwise ops, reductions, concat, tf.ragged.range, constructors, indexing), against
real TF 2.21."""

import numpy as np
import pytest

from compat_tests.tensorflow.harness import assert_same, error_kind, real, vtf


def _array(value):
    array = np.asarray(value.numpy())
    return ("ndarray", str(array.dtype), array.shape, array)


def comparable(x):
    """A result in the harness's ``assert_same`` form: a ragged tensor as its dtype, static shape, ragged rank, row
    splits and flat values; a tensor as its dtype, shape and values."""
    if isinstance(x, (real.RaggedTensor, vtf.RaggedTensor)):
        return ("tuple", [("value", "ragged"), ("value", x.dtype.name), ("value", tuple(x.shape.as_list())),
                          ("value", x.ragged_rank), ("list", [_array(s) for s in x.nested_row_splits]),
                          _array(x.flat_values)])
    if isinstance(x, (real.Tensor, vtf.Tensor)):
        return ("tensor", x.dtype.name, tuple(x.shape.as_list()), np.asarray(x.numpy()))
    if isinstance(x, (list, tuple)):
        return ("list", [comparable(v) for v in x])
    return ("value", x)


def same(fn):
    """``fn(tf)`` alike in real TF and vfw (values within float tolerance), or the same kind of error."""
    outcomes = []
    for lib in (real, vtf):
        try:
            outcomes.append((comparable(fn(lib)), None))
        except Exception as e:  # noqa: BLE001  (an error is a result to compare)
            outcomes.append((None, e))
    (want, werr), (got, gerr) = outcomes
    if werr is not None:
        assert gerr is not None, f"tf raised {type(werr).__name__}: {werr}; vfw returned {got!r}"
        assert error_kind(gerr) == error_kind(werr), f"tf: {werr!r}; vfw: {gerr!r}"
        return
    if gerr is not None:
        raise AssertionError(f"vfw raised {gerr!r}; tf returned {want!r}") from gerr
    assert_same(want, got)


def rf(tf):
    return tf.ragged.constant([[1.0, 2.0], [], [4.0, 5.0, 6.0]])


def rq(tf):
    return tf.ragged.constant([[0.5, 1.0], [], [3.0, 0.25, 2.0]])


def ri(tf):
    return tf.ragged.constant([[1, 2], [], [4, 5, 6]])


def r3(tf):
    return tf.ragged.constant([[[1, 2], [3]], [[4]], [[5, 6, 7], [], [8]]])


def r_inner(tf):
    return tf.RaggedTensor.from_row_lengths(tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]), [2, 0, 1])


# -- operators and elementwise ops -------------------------------------------------------------------------------
@pytest.mark.parametrize("fn", [
    lambda tf: rf(tf) + 1, lambda tf: 2 * rf(tf), lambda tf: rf(tf) - rq(tf), lambda tf: rf(tf) / rq(tf),
    lambda tf: rf(tf) * rq(tf), lambda tf: -rf(tf), lambda tf: rf(tf) // 2, lambda tf: rf(tf) ** 2,
    lambda tf: 1 - rf(tf), lambda tf: 6 / rf(tf), lambda tf: abs(-rf(tf)), lambda tf: rf(tf) > 2,
    lambda tf: ri(tf) % 3, lambda tf: (ri(tf) > 1) & (ri(tf) < 5), lambda tf: ~(ri(tf) > 1),
    lambda tf: rf(tf) + tf.constant([[1.0], [2.0], [3.0]]), lambda tf: rf(tf) + tf.constant(2.0),
    lambda tf: r_inner(tf) * tf.constant([10.0, 100.0]), lambda tf: r3(tf) * 2,
    lambda tf: r3(tf) + r3(tf),
    # errors: other partitions, dtypes, shapes
    lambda tf: rf(tf) + tf.ragged.constant([[1.0], [2.0], [3.0]]),
    lambda tf: rf(tf) + tf.ragged.constant([[1.0], [2.0]]),
    lambda tf: rf(tf) + tf.constant([1.0, 2.0, 3.0]),
    lambda tf: rf(tf) + ri(tf),
])
def test_operators(fn):
    same(fn)


@pytest.mark.parametrize("fn", [
    lambda tf: tf.math.log(rf(tf)), lambda tf: tf.abs(-rf(tf)), lambda tf: tf.cast(rf(tf), tf.int32),
    lambda tf: tf.exp(rf(tf)), lambda tf: tf.sqrt(rf(tf)), lambda tf: tf.math.square(rf(tf)),
    lambda tf: tf.nn.relu(rf(tf) - 3), lambda tf: tf.nn.sigmoid(rf(tf)), lambda tf: tf.math.is_nan(rf(tf)),
    lambda tf: tf.zeros_like(rf(tf)), lambda tf: tf.ones_like(ri(tf)), lambda tf: tf.math.floor(rf(tf) / 2),
    lambda tf: tf.add(rf(tf), rq(tf)), lambda tf: tf.maximum(rf(tf), 3.0), lambda tf: tf.math.pow(rf(tf), 2.0),
    lambda tf: tf.equal(ri(tf), 2), lambda tf: tf.math.logical_not(ri(tf) > 1), lambda tf: tf.identity(r3(tf)),
    lambda tf: tf.math.tanh(r_inner(tf)),
    lambda tf: tf.math.log(ri(tf)),
    lambda tf: tf.add(rf(tf), ri(tf)),
])
def test_elementwise_ops(fn):
    same(fn)


def test_dispatching_keeps_dense_behaviour_and_names():
    same(lambda tf: [tf.add(tf.constant([1, 2]), 3), tf.reduce_sum(tf.constant([[1.0, 2.0]]), axis=1),
                     tf.concat([tf.constant([1]), tf.constant([2])], 0), tf.math.log(tf.constant(2.0))])
    for name in ("add", "reduce_sum", "abs", "concat", "cast"):
        assert getattr(vtf, name).__name__ == name
    assert vtf.math.add is vtf.add and vtf.nn.sigmoid is vtf.math.sigmoid


# -- reductions ----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("op", ["reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod"])
@pytest.mark.parametrize("axis", [None, 0, 1, -1])
@pytest.mark.parametrize("make", [rf, ri])
def test_reductions(op, axis, make):
    same(lambda tf: getattr(tf, op)(make(tf), axis=axis))


@pytest.mark.parametrize("fn", [
    lambda tf: tf.reduce_sum(ri(tf), axis=1, keepdims=True),
    lambda tf: tf.reduce_any(ri(tf) > 4, axis=1), lambda tf: tf.reduce_all(ri(tf) > 1, axis=1),
    lambda tf: tf.reduce_sum(r3(tf), axis=2), lambda tf: tf.reduce_max(r3(tf), axis=-1),
    lambda tf: tf.reduce_sum(r_inner(tf), axis=2), lambda tf: tf.reduce_mean(r_inner(tf), axis=1),
    lambda tf: tf.reduce_sum(r3(tf)),
    lambda tf: tf.reduce_sum(rf(tf), axis=2),
])
def test_reduction_cases(fn):
    same(fn)


def test_reduction_gradients():
    def fn(tf):
        x = tf.constant([1.0, 2.0, 4.0, 5.0, 6.0])
        with tf.GradientTape() as tape:
            tape.watch(x)
            r = tf.RaggedTensor.from_row_splits(x, [0, 2, 2, 5])
            loss = tf.reduce_sum(tf.reduce_mean(r * r, axis=1)[::2]) + tf.reduce_sum(tf.reduce_max(r, axis=1))
        return tape.gradient(loss, x)
    same(fn)


def test_concat_and_slice_gradients():
    def fn(tf):
        x = tf.constant([1.0, 2.0, 4.0, 5.0, 6.0])
        with tf.GradientTape() as tape:
            tape.watch(x)
            r = tf.RaggedTensor.from_row_splits(x, [0, 2, 2, 5])
            joined = tf.concat([r, r * 3.0], axis=0) + 0.0
            side = tf.concat([r, r * r], axis=1)
            loss = tf.reduce_sum(tf.reduce_sum(joined, axis=1) * tf.range(6.0)) + tf.reduce_sum(side[:, 1:] * 2.0)
        return tape.gradient(loss, x)
    same(fn)


# -- concat ------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("fn", [
    lambda tf: tf.concat([rf(tf), rq(tf)], axis=0), lambda tf: tf.concat([rf(tf), rq(tf)], axis=1),
    lambda tf: tf.concat([rf(tf), rq(tf), rf(tf)], axis=-1), lambda tf: tf.concat([r3(tf), r3(tf)], axis=0),
    lambda tf: tf.concat([rf(tf), tf.constant([[7.0, 8.0]])], axis=0),
    lambda tf: tf.concat([rf(tf), tf.ragged.constant([[1.0]])], axis=1),
    lambda tf: tf.concat([rf(tf), ri(tf)], axis=0),
])
def test_concat(fn):
    same(fn)


# -- tf.ragged.range and constructors ---------------------------------------------------------------------------
@pytest.mark.parametrize("fn", [
    lambda tf: tf.ragged.range([3, 1, 2]), lambda tf: tf.ragged.range([1, 2], [4, 3]),
    lambda tf: tf.ragged.range([0, 1], 5, 2), lambda tf: tf.ragged.range(3),
    lambda tf: tf.ragged.range([1.5, 2.0], 3.0), lambda tf: tf.ragged.range(tf.constant([3, 1], tf.int64)),
    lambda tf: tf.ragged.range([5, 4], 0, -2), lambda tf: tf.ragged.range([1, 2], 4, 0),
])
def test_ragged_range(fn):
    same(fn)


@pytest.mark.parametrize("fn", [
    lambda tf: tf.RaggedTensor.from_value_rowids([1, 2, 3, 4], [0, 0, 2, 2], nrows=4),
    lambda tf: tf.RaggedTensor.from_value_rowids([1, 2, 3, 4], [0, 0, 2, 2]),
    lambda tf: tf.RaggedTensor.from_nested_row_splits([1, 2, 3, 4, 5], [[0, 2, 3], [0, 2, 3, 5]]),
    lambda tf: tf.RaggedTensor.from_nested_row_lengths([1, 2, 3, 4, 5], [[2, 1], [2, 1, 2]]),
    lambda tf: r3(tf).nested_row_lengths(), lambda tf: rf(tf).value_rowids(),
    lambda tf: rf(tf).bounding_shape(), lambda tf: r3(tf).bounding_shape(), lambda tf: rf(tf).bounding_shape(axis=1),
    lambda tf: r3(tf).bounding_shape(out_type=tf.int32), lambda tf: r_inner(tf).bounding_shape(),
    lambda tf: r3(tf).merge_dims(0, 1), lambda tf: r3(tf).merge_dims(1, 2), lambda tf: r3(tf).merge_dims(0, 2),
    lambda tf: r3(tf).merge_dims(0, -1), lambda tf: r_inner(tf).merge_dims(1, 2), lambda tf: rf(tf).merge_dims(0, 1),
    lambda tf: rf(tf).with_values(rf(tf).values * 2), lambda tf: r3(tf).with_values(r3(tf).values),
    lambda tf: r3(tf).with_flat_values(r3(tf).flat_values * 2),
    lambda tf: rf(tf).to_tensor(shape=[2, 4]), lambda tf: rf(tf).to_tensor(default_value=-1.0, shape=[None, 2]),
    lambda tf: r3(tf).to_tensor(shape=[2, 2, 2]),
])
def test_structure(fn):
    same(fn)


# -- indexing ------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("key", [(slice(None), slice(None, 1)), (slice(None), slice(1, None)),
                                 (slice(1, None), slice(-1, None)), (slice(None), slice(-2, None)),
                                 (slice(None), slice(1, 2)), (slice(None), 0), (1, slice(None)), (2, slice(1, None)),
                                 (0, 1)])
def test_getitem(key):
    same(lambda tf: rf(tf)[key])


@pytest.mark.parametrize("key", [(slice(None), slice(None), slice(None, 1)), (0, slice(1, None)),
                                 (2, slice(None), slice(1, None)), (slice(1, None), slice(None, 2))])
def test_getitem_rank3(key):
    same(lambda tf: r3(tf)[key])


# -- repr ----------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("make", [ri, r3, lambda tf: tf.ragged.constant([[[1, 2], [3, 4]], [[5, 6]]]),
                                  lambda tf: ri(tf) * 2, lambda tf: tf.ragged.range([2, 0, 3])])
def test_repr(make):
    assert repr(make(vtf)) == repr(make(real))
    assert str(make(vtf)) == str(make(real))


@pytest.mark.parametrize("fn", [
    lambda tf: tf.RaggedTensor.from_tensor(tf.constant([[1, 0, 0], [2, 3, 0], [0, 0, 0], [4, 0, 5]]), padding=0),
    lambda tf: tf.RaggedTensor.from_tensor(tf.constant([[[1, 1], [0, 0]], [[0, 0], [0, 0]], [[2, 0], [0, 0]]]),
                                           padding=[0, 0]),
    lambda tf: tf.RaggedTensor.from_tensor(tf.constant([[1.5, -1.0], [-1.0, -1.0]]), padding=-1.0),
    lambda tf: tf.RaggedTensor.from_tensor(tf.constant([[1, 0]]), lengths=[1], padding=0),
    lambda tf: tf.RaggedTensor.from_tensor(tf.constant([[1, 0]]), padding=[0, 0]),
])
def test_from_tensor_padding(fn):
    same(fn)
