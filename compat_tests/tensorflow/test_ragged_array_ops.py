"""tf.ragged.boolean_mask/stack/stack_dynamic_partitions/cross/row_splits_to_segment_ids/segment_ids_to_row_splits,
RaggedTensor.to_sparse, tf.map_fn over ragged tensors and tf.strings.reduce_join of ragged tensors against TF 2.21."""

import numpy as np
import pytest

tf_real = pytest.importorskip("tensorflow")

import vfw.tensorflow as vtf  # noqa: E402


def _outcome(tf, fn):
    """``fn(tf)`` as comparable data: (ragged or dense, values as lists, dtype, shape), or the exception's class
    and the head of its message (without TF's function-node prefix)."""
    try:
        result = fn(tf)
    except Exception as error:  # noqa: BLE001  (the exception is the compared outcome)
        return type(error).__name__, str(error).split("}} ")[-1][:30]
    return [_plain(tf, r) for r in (result if isinstance(result, tuple) else (result,))]


def _plain(tf, value):
    if isinstance(value, tf.RaggedTensor):
        return "ragged", value.to_list(), value.dtype.name, value.shape.as_list()
    if isinstance(value, tf.SparseTensor):
        return "sparse", [_plain(tf, t) for t in (value.indices, value.values, value.dense_shape)]
    return "dense", np.asarray(value.numpy()).tolist(), value.dtype.name, value.shape.as_list()


def _check(fn):
    assert _outcome(vtf, fn) == _outcome(tf_real, fn)


def _rc(tf, *args, **kwargs):
    return tf.ragged.constant(*args, **kwargs)


def _mask(tf, data, mask):
    return tf.ragged.boolean_mask(data, mask)


def _stack(tf, values, **kwargs):
    return tf.ragged.stack(values, **kwargs)


CASES = {
    "to_sparse": lambda tf: _rc(tf, [[1, 2], [3]]).to_sparse(),
    "to_sparse_rank3": lambda tf: _rc(tf, [[[1, 2], [3]], []]).to_sparse(),
    "mask_dense_2d": lambda tf: _mask(tf, tf.constant([[1, 2, 3], [4, 5, 6]]),
                                                       tf.constant([[True, False, True], [False, False, True]])),
    "mask_dense_rows": lambda tf: _mask(tf, tf.constant([[1, 2, 3], [4, 5, 6]]), tf.constant([True, False])),
    "mask_ragged": lambda tf: _mask(tf, _rc(tf, [[1, 2, 3], [4]]), _rc(tf, [[True, False, True], [False]])),
    "mask_ragged_rows": lambda tf: _mask(tf, _rc(tf, [[1, 2, 3], [4]]), tf.constant([False, True])),
    "mask_vector": lambda tf: _mask(tf, tf.constant([1, 2, 3]), tf.constant([True, False, True])),
    "mask_bad_shape": lambda tf: _mask(tf, tf.constant([[1, 2, 3], [4, 5, 6]]),
                                                        tf.constant([[True, False], [False, True]])),
    "mask_not_bool": lambda tf: _mask(tf, tf.constant([[1, 2, 3], [4, 5, 6]]), tf.constant([[1, 0, 1]])),
    "mask_inner_dense": lambda tf: _mask(tf, tf.constant([[[1, 2], [3, 4]], [[5, 6], [7, 8]]]),
                                                          tf.constant([[True, False], [False, True]])),
    "mask_3d": lambda tf: _mask(tf, tf.constant([[[1, 2], [3, 4]], [[5, 6], [7, 8]]]),
                                                 tf.constant([[[True, False], [False, True]], [[True, True],
                                                                                               [False, False]]])),
    "mask_splits_differ": lambda tf: _mask(tf, _rc(tf, [[1, 2, 3], [4]]), _rc(tf, [[True, False], [False]])),
    "mask_ragged3_rows": lambda tf: _mask(tf, _rc(tf, [[[1, 2], [3]], [[4]]]), tf.constant([True, False])),
    "mask_ragged3": lambda tf: _mask(tf, _rc(tf, [[[1, 2], [3]], [[4]]]), _rc(tf, [[True, False], [True]])),
    "mask_ragged3_3d": lambda tf: _mask(tf, _rc(tf, [[[1, 2], [3]], [[4]]]),
                                                         _rc(tf, [[[True, False], [True]], [[False]]])),
    "mask_scalar": lambda tf: _mask(tf, tf.constant(1), tf.constant(True)),
    "mask_lists": lambda tf: _mask(tf, [[1., 2.], [3., 4.]], [[True, False], [True, True]]),
    "stack_vectors": lambda tf: _stack(tf, [tf.constant([1, 2]), tf.constant([3])]),
    "stack_ragged": lambda tf: _stack(tf, [_rc(tf, [[1, 2], [3]]), _rc(tf, [[4]])]),
    "stack_ragged_axis1": lambda tf: _stack(tf, [_rc(tf, [[1, 2], [3]]), _rc(tf, [[4], [5, 6]])], axis=1),
    "stack_dense": lambda tf: _stack(tf, [tf.constant([[1, 2], [3, 4]]), tf.constant([[5, 6]])]),
    "stack_dense_axis1": lambda tf: _stack(tf, [tf.constant([[1, 2], [3, 4]]), tf.constant([[5, 6], [7, 8]])],
                                                    axis=1),
    "stack_dense_same": lambda tf: _stack(tf, [tf.constant([[1, 2], [3, 4]]), tf.constant([[5, 6], [7, 8]])]),
    "stack_dtypes": lambda tf: _stack(tf, [tf.constant([1, 2]), tf.constant([3.])]),
    "stack_one": lambda tf: _stack(tf, [tf.constant([1, 2])]),
    "stack_tensor": lambda tf: _stack(tf, tf.constant([1, 2])),
    "stack_axis2": lambda tf: _stack(tf, [_rc(tf, [[1, 2], [3]]), _rc(tf, [[4], [5, 6]])], axis=2),
    "stack_axis_last": lambda tf: _stack(tf, [_rc(tf, [[1, 2], [3]]), _rc(tf, [[4], [5, 6]])], axis=-1),
    "stack_nrows": lambda tf: _stack(tf, [_rc(tf, [[1, 2], [3]]), _rc(tf, [[4], [5, 6], [7]])], axis=1),
    "stack_mixed": lambda tf: _stack(tf, [_rc(tf, [[1, 2], [3]]), tf.constant([[4, 5]])]),
    "stack_mixed_axis1": lambda tf: _stack(tf, [_rc(tf, [[1, 2], [3]]), tf.constant([[4, 5], [6, 7]])], axis=1),
    "stack_lists": lambda tf: _stack(tf, [[1, 2], [3]]),
    "stack_empty": lambda tf: _stack(tf, []),
    "stack_scalars": lambda tf: _stack(tf, [tf.constant(1), tf.constant(2)]),
    "stack_vec_axis1": lambda tf: _stack(tf, [tf.constant([1]), tf.constant([2])], axis=1),
    "stack_vec_axis2": lambda tf: _stack(tf, [tf.constant([1]), tf.constant([2])], axis=2),
    "stack_ranks": lambda tf: _stack(tf, [_rc(tf, [[1, 2], [3]]), _rc(tf, [[[4]]])]),
    "stack_r3_axis1": lambda tf: _stack(tf, [_rc(tf, [[[1, 2], [3]], [[4]]]), _rc(tf, [[[5]], [[6, 7]]])], axis=1),
    "stack_r3_axis2": lambda tf: _stack(tf, [_rc(tf, [[[1, 2], [3]], [[4]]]), _rc(tf, [[[5], [6]], [[7]]])], axis=2),
    "stack_r3_axis3": lambda tf: _stack(tf, [_rc(tf, [[[1, 2], [3]], [[4]]]), _rc(tf, [[[5, 6], [7]], [[8]]])],
                                                 axis=3),
    "segment_ids": lambda tf: tf.ragged.row_splits_to_segment_ids([0, 2, 2, 5]),
    "segment_ids_int32": lambda tf: tf.ragged.row_splits_to_segment_ids(tf.constant([0, 2, 2, 5], tf.int32)),
    "segment_ids_out_type": lambda tf: tf.ragged.row_splits_to_segment_ids([0, 2, 2, 5], out_type=tf.int32),
    "segment_ids_matrix": lambda tf: tf.ragged.row_splits_to_segment_ids([[0, 2]]),
    "segment_ids_none": lambda tf: tf.ragged.row_splits_to_segment_ids([0]),
    "segment_ids_float": lambda tf: tf.ragged.row_splits_to_segment_ids([0., 1.]),
    "row_splits": lambda tf: tf.ragged.segment_ids_to_row_splits([0, 0, 2, 2, 2, 3]),
    "row_splits_num": lambda tf: tf.ragged.segment_ids_to_row_splits([0, 0, 2], num_segments=5),
    "row_splits_int32": lambda tf: tf.ragged.segment_ids_to_row_splits(tf.constant([0, 0, 2])),
    "row_splits_out_type": lambda tf: tf.ragged.segment_ids_to_row_splits(tf.constant([0, 0, 2]), out_type=tf.int64),
    "row_splits_matrix": lambda tf: tf.ragged.segment_ids_to_row_splits([[0, 0, 2]]),
    "row_splits_unsorted": lambda tf: tf.ragged.segment_ids_to_row_splits([0, 3, 1]),
    "row_splits_empty": lambda tf: tf.ragged.segment_ids_to_row_splits([], num_segments=2),
    "row_splits_float": lambda tf: tf.ragged.segment_ids_to_row_splits([0., 1.]),
    "partitions": lambda tf: tf.ragged.stack_dynamic_partitions(tf.constant([1, 2, 3, 4, 5]),
                                                                tf.constant([0, 2, 0, 1, 2]), 3),
    "partitions_rows": lambda tf: tf.ragged.stack_dynamic_partitions(tf.constant([[1, 2], [3, 4]]),
                                                                     tf.constant([1, 1]), 3),
    "partitions_ragged": lambda tf: tf.ragged.stack_dynamic_partitions(_rc(tf, [[1, 2], [3]]), tf.constant([1, 0]), 2),
    "partitions_too_big": lambda tf: tf.ragged.stack_dynamic_partitions(tf.constant([1, 2, 3]), tf.constant([0, 5, 0]),
                                                                        3),
    "partitions_negative": lambda tf: tf.ragged.stack_dynamic_partitions(tf.constant([1, 2, 3]),
                                                                         tf.constant([0, -1, 0]), 3),
    "cross": lambda tf: tf.ragged.cross([_rc(tf, [["a", "b"], ["c"]]), _rc(tf, [["d"], ["e", "f"]])]),
    "cross_dense_int": lambda tf: tf.ragged.cross([_rc(tf, [["a", "b"], ["c"]]), tf.constant([["d"], ["e"]]),
                                                   tf.constant([[1], [2]], tf.int64)]),
    "cross_sparse": lambda tf: tf.ragged.cross([_rc(tf, [["a", "b"], ["c"]]),
                                                tf.sparse.from_dense(tf.constant([["x", ""], ["y", "z"]]))]),
    "constant_empty": lambda tf: _rc(tf, [], ragged_rank=1),
    "constant_empty_row": lambda tf: _rc(tf, [[]], ragged_rank=1),
}

_WORDS = [["a", "b"], [], ["c"]]
JOINS = {
    "axis1": dict(axis=1), "axis-1_sep": dict(axis=-1, separator="-"), "keepdims": dict(axis=1, keepdims=True),
    "all": dict(), "axis0": dict(axis=0), "axis0_sep": dict(axis=0, separator="+"), "axis2": dict(axis=2),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_ragged_functions(case):
    _check(CASES[case])


@pytest.mark.parametrize("arguments", sorted(JOINS))
def test_reduce_join(arguments):
    _check(lambda tf: tf.strings.reduce_join(_rc(tf, _WORDS), **JOINS[arguments]))


@pytest.mark.parametrize("axis", [-1, 2])
def test_reduce_join_rank3(axis):
    _check(lambda tf: tf.strings.reduce_join(_rc(tf, [[["a", "b"], ["c"]], [["d"]]]), axis=axis, separator=" "))
    _check(lambda tf: tf.strings.reduce_join(_rc(tf, [[["a", "b"], ["c", "d"]], [["e", "f"]]], ragged_rank=1),
                                             axis=axis))


MAPS = {
    "sum": lambda tf, rt: tf.map_fn(tf.reduce_sum, rt, fn_output_signature=tf.int32),
    "sum_spec": lambda tf, rt: tf.map_fn(tf.reduce_sum, rt, fn_output_signature=tf.TensorSpec([], tf.int32)),
    "double_ragged": lambda tf, rt: tf.map_fn(lambda x: x * 2, rt,
                                              fn_output_signature=tf.RaggedTensorSpec(shape=[None], dtype=tf.int32)),
    "double_default": lambda tf, rt: tf.map_fn(lambda x: x * 2, rt),
    "scalar_as_ragged": lambda tf, rt: tf.map_fn(tf.reduce_sum, rt),
    "first": lambda tf, rt: tf.map_fn(lambda x: x[:1], rt, fn_output_signature=tf.int32),
    "tuple_out": lambda tf, rt: tf.map_fn(lambda x: (tf.reduce_sum(x), x + 1), rt,
                                          fn_output_signature=(tf.int32, tf.RaggedTensorSpec([None], tf.int32))),
    "tuple_in": lambda tf, rt: tf.map_fn(lambda x: tf.reduce_sum(x[0]) + x[1], (rt, tf.constant([10, 20, 30])),
                                         fn_output_signature=tf.int32),
    "rank3_sum": lambda tf, rt: tf.map_fn(tf.reduce_sum, tf.ragged.constant([[[1], [2, 3]], [[4]]]),
                                          fn_output_signature=tf.int32),
    "rank3_identity": lambda tf, rt: tf.map_fn(lambda x: x, tf.ragged.constant([[[1], [2, 3]], [[4]]]),
                                               fn_output_signature=tf.RaggedTensorSpec([None, None], tf.int32,
                                                                                       ragged_rank=1)),
    "rank3_default": lambda tf, rt: tf.map_fn(lambda x: x, tf.ragged.constant([[[1], [2, 3]], [[4]]])),
    "dense_to_ragged": lambda tf, rt: tf.map_fn(lambda x: tf.RaggedTensor.from_tensor(tf.reshape(x, [1, -1])),
                                                tf.constant([[1, 2], [3, 4]]),
                                                fn_output_signature=tf.RaggedTensorSpec([None, None], tf.int32,
                                                                                        ragged_rank=1)),
    "empty": lambda tf, rt: tf.map_fn(tf.reduce_sum, tf.ragged.constant([], dtype=tf.int32, ragged_rank=1),
                                      fn_output_signature=tf.int32),
}


@pytest.mark.parametrize("case", sorted(MAPS))
def test_map_fn_ragged(case):
    _check(lambda tf: MAPS[case](tf, tf.ragged.constant([[1, 2], [3], [4, 5, 6]])))


def _gradient(tf, fn):
    """The gradient of ``reduce_sum(fn(ragged) ** 2)`` (ragged results: of their flat values) for the flat
    values of a float ragged tensor."""
    flat = tf.constant([1., 2., 3., 4., 5.])
    with tf.GradientTape() as tape:
        tape.watch(flat)
        result = fn(tf, tf.RaggedTensor.from_row_lengths(flat, [2, 0, 3]))
        values = result.flat_values if isinstance(result, tf.RaggedTensor) else result
        loss = tf.reduce_sum(values * values)
    return tf.convert_to_tensor(tape.gradient(loss, flat)).numpy().tolist()


GRADIENTS = {
    "map_fn": lambda tf, rt: tf.map_fn(lambda r: tf.reduce_sum(r * r), rt, fn_output_signature=tf.float32),
    "map_fn_ragged": lambda tf, rt: tf.map_fn(lambda r: r * 3., rt,
                                              fn_output_signature=tf.RaggedTensorSpec([None], tf.float32)),
    "boolean_mask": lambda tf, rt: tf.ragged.boolean_mask(rt, tf.ragged.constant([[True, False], [], [False, True,
                                                                                                        True]])),
    "boolean_mask_rows": lambda tf, rt: tf.ragged.boolean_mask(rt, tf.constant([False, True, True])),
    "stack": lambda tf, rt: tf.ragged.stack([rt, rt * 2.]),
    "stack_axis1": lambda tf, rt: tf.ragged.stack([rt, rt * 2.], axis=1),
    "partitions": lambda tf, rt: tf.ragged.stack_dynamic_partitions(rt, tf.constant([1, 0, 1]), 2),
}


@pytest.mark.parametrize("case", sorted(GRADIENTS))
def test_gradients(case):
    assert _gradient(vtf, GRADIENTS[case]) == _gradient(tf_real, GRADIENTS[case])


def test_dense_boolean_mask_gradient():
    def gradient(tf):
        x = tf.constant([[1., 2.], [3., 4.]])
        with tf.GradientTape() as tape:
            tape.watch(x)
            loss = tf.reduce_sum(tf.ragged.boolean_mask(x, tf.constant([[True, False], [True, True]])).flat_values ** 2)
        return tape.gradient(loss, x).numpy().tolist()
    assert gradient(vtf) == gradient(tf_real)


def test_namespace():
    public = {n for n in dir(tf_real.ragged) if not n.startswith("_")}
    assert public - set(dir(vtf.ragged)) == {"cross_hashed"}
