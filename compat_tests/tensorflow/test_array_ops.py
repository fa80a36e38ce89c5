"""Reshaping and joining array ops of vfw.tensorflow against real TF 2.21 (values, dtypes, errors, gradients)."""

import numpy as np
import pytest

from compat_tests.tensorflow.harness import arrays, check, check_grad

X23 = np.arange(6, dtype=np.float32).reshape(2, 3)
X234 = arrays((2, 3, 4))


@pytest.mark.parametrize("case", [
    lambda tf: tf.reshape(tf.range(6), [4]), lambda tf: tf.reshape(tf.range(6), [-1, 4]),
    lambda tf: tf.reshape(tf.range(6), [-1, -1]), lambda tf: tf.reshape(tf.range(6), [-2, 3]),
    lambda tf: tf.reshape(tf.range(6), [2.5, 3]), lambda tf: tf.reshape(tf.zeros([0, 3]), [-1, 0]),
    lambda tf: tf.reshape(tf.zeros([0, 3]), [0, -1]), lambda tf: tf.reshape(tf.range(6), [3, -1]),
    lambda tf: tf.reshape(tf.range(6), tf.constant([2, 3], tf.int64)), lambda tf: tf.reshape(tf.range(1), []),
    lambda tf: tf.reshape([[1, 2], [3, 4]], [4]), lambda tf: tf.reshape(tf.range(6), (1, 2, 1, 3)),
    lambda tf: tf.reshape(tf.range(6), tf.TensorShape([6, 1])), lambda tf: tf.reshape(tf.constant(["a", "b"]), [2, 1]),
])
def test_reshape(case):
    check(case)


def test_reshape_error_message():
    import vfw.tensorflow as tf
    with pytest.raises(tf.errors.InvalidArgumentError, match="Input to reshape is a tensor with 6 values, but the "
                                                            r"requested shape has 4 \[Op:Reshape\]"):
        tf.reshape(tf.range(6), [4])


@pytest.mark.parametrize("case", [
    lambda tf: tf.transpose(tf.zeros([2, 3]), [0, 1, 2]), lambda tf: tf.transpose(tf.zeros([2, 3]), [0, 0]),
    lambda tf: tf.transpose(tf.zeros([2, 3]), [0, 2]), lambda tf: tf.transpose(tf.zeros([2, 3]), [-1, 0]),
    lambda tf: tf.transpose(tf.reshape(tf.range(24), [2, 3, 4])),
    lambda tf: tf.transpose(tf.reshape(tf.range(24), [2, 3, 4]), perm=[1, 2, 0]),
    lambda tf: tf.transpose(tf.constant([[1 + 2j, 3j]]), conjugate=True), lambda tf: tf.transpose(3),
    lambda tf: tf.transpose(tf.constant([[1.5, 2]]), conjugate=True),
    lambda tf: tf.expand_dims(tf.zeros([2, 3]), 3), lambda tf: tf.expand_dims(tf.zeros([2, 3]), -4),
    lambda tf: tf.expand_dims(tf.zeros([2, 3]), [1]), lambda tf: tf.expand_dims(tf.zeros([2, 3]), [1, 2]),
    lambda tf: tf.expand_dims(tf.zeros([2, 3]), 1.0), lambda tf: tf.expand_dims(tf.zeros([2, 3]), -1),
    lambda tf: tf.expand_dims(3, 0), lambda tf: tf.expand_dims(tf.zeros([2, 3]), tf.constant(2)),
    lambda tf: tf.squeeze(tf.zeros([2, 1]), 0), lambda tf: tf.squeeze(tf.zeros([2, 1]), 2),
    lambda tf: tf.squeeze(tf.zeros([2, 1]), [1, 1]), lambda tf: tf.squeeze(tf.zeros([2, 1]), -1),
    lambda tf: tf.squeeze(tf.zeros([1, 1])), lambda tf: tf.squeeze(tf.zeros([1, 2, 1, 3, 1]), [0, -1]),
    lambda tf: tf.squeeze(tf.zeros([2, 3])), lambda tf: tf.squeeze([[1], [2]]),
])
def test_transpose_expand_squeeze(case):
    check(case)


@pytest.mark.parametrize("case", [
    lambda tf: tf.concat([tf.zeros([2, 3]), tf.zeros([2, 2])], 0), lambda tf: tf.concat([tf.zeros([2]),
                                                                                          tf.zeros([2, 2])], 0),
    lambda tf: tf.concat([tf.zeros([2, 3]), tf.zeros([2, 2])], 2), lambda tf: tf.concat([tf.zeros([]),
                                                                                          tf.zeros([])], 0),
    lambda tf: tf.concat([tf.zeros([2]), tf.zeros([2], tf.int32)], 0), lambda tf: tf.concat([tf.zeros([2]), [1, 2]], 0),
    lambda tf: tf.concat([[1, 2], [1.5]], 0), lambda tf: tf.concat([], 0), lambda tf: tf.concat([[1, 2]], 0),
    lambda tf: tf.concat(tf.zeros([2, 3]), 0), lambda tf: tf.concat([tf.zeros([2, 3]), tf.ones([2, 2])], -1),
    lambda tf: tf.concat([tf.range(3), tf.range(2), tf.range(0)], axis=0),
    lambda tf: tf.concat([tf.constant(["a"]), tf.constant(["b", "c"])], 0),
    lambda tf: tf.stack([tf.zeros([2]), tf.zeros([3])]), lambda tf: tf.stack([tf.zeros([2]), tf.zeros([2])], 2),
    lambda tf: tf.stack([tf.zeros([2]), tf.zeros([2], tf.int32)]), lambda tf: tf.stack([tf.zeros([2]), [1, 2]]),
    lambda tf: tf.stack([[1, 2], [1.5, 2]]), lambda tf: tf.stack([1, 2.5]), lambda tf: tf.stack([]),
    lambda tf: tf.stack(tf.reshape(tf.range(6), [2, 3])), lambda tf: tf.stack([tf.range(3), tf.range(3)], axis=1),
    lambda tf: tf.stack([tf.range(3), tf.range(3)], axis=-1), lambda tf: tf.stack([[1, 2], [3, 4]], axis=1),
    lambda tf: tf.stack([[1, 2], [3, 4]], axis=-1), lambda tf: tf.parallel_stack([tf.range(2), tf.range(2)]),
    lambda tf: tf.unstack(tf.zeros([2, 3]), axis=2), lambda tf: tf.unstack(tf.zeros([2, 3]), num=3),
    lambda tf: tf.unstack(tf.zeros([])), lambda tf: tf.unstack(tf.zeros([0, 2])),
    lambda tf: tf.unstack(tf.reshape(tf.range(6), [2, 3]), axis=1), lambda tf: tf.unstack([[1, 2]], axis=-1),
])
def test_concat_stack_unstack(case):
    check(case)


@pytest.mark.parametrize("case", [
    lambda tf: tf.split(tf.zeros([5, 2]), 2), lambda tf: tf.split(tf.zeros([5, 2]), [2, 2]),
    lambda tf: tf.split(tf.zeros([5, 2]), [2, -1, -1]), lambda tf: tf.split(tf.zeros([5, 2]), [2, 4, -1]),
    lambda tf: tf.split(tf.zeros([5, 2]), [6, -1]), lambda tf: tf.split(tf.zeros([5, 2]), 0),
    lambda tf: tf.split(tf.zeros([5, 2]), []), lambda tf: tf.split(tf.zeros([5, 2]), 2, axis=2),
    lambda tf: tf.split(tf.zeros([6, 2]), tf.constant(3)), lambda tf: tf.split(tf.range(6), tf.constant([1, 5])),
    lambda tf: tf.split(tf.zeros([6, 2]), [3], num=2), lambda tf: tf.split(tf.range(6), [1, 2, -1], num=3),
    lambda tf: tf.split(tf.reshape(tf.range(12), [2, 6]), 3, axis=-1),
    lambda tf: tf.split(tf.reshape(tf.range(12), [2, 6]), [0, 6], axis=1),
    lambda tf: tf.tile(tf.zeros([2]), [1, 2]), lambda tf: tf.tile(tf.zeros([2]), [-1]), lambda tf: tf.tile(3, []),
    lambda tf: tf.tile(tf.reshape(tf.range(6), [2, 3]), [2, 3]), lambda tf: tf.tile([[1, 2]], tf.constant([2, 0])),
])
def test_split_tile(case):
    check(case)


@pytest.mark.parametrize("case", [
    lambda tf: tf.pad(tf.reshape(tf.range(6), [2, 3]), [[1, 1], [2, 2]], "REFLECT"),
    lambda tf: tf.pad(tf.zeros([2, 3]), [[2, 1], [2, 2]], "REFLECT"),
    lambda tf: tf.pad(tf.reshape(tf.range(6), [2, 3]), [[2, 1], [2, 3]], "SYMMETRIC"),
    lambda tf: tf.pad(tf.zeros([2, 3]), [[3, 1], [2, 2]], "SYMMETRIC"), lambda tf: tf.pad(tf.zeros([2, 3]), [[1, 1]]),
    lambda tf: tf.pad(tf.zeros([2, 3]), [[1, 1], [-1, 0]]),
    lambda tf: tf.pad(tf.zeros([2, 3]), [[1, 1], [0, 0]], "foo"),
    lambda tf: tf.pad(tf.reshape(tf.range(6), [2, 3]), [[1, 0], [0, 2]], "reflect"),
    lambda tf: tf.pad(tf.zeros([2, 3]), [[1, 1], [0, 0]], constant_values=1.5),
    lambda tf: tf.pad(tf.zeros([2, 3], tf.int32), [[1, 1], [0, 0]], constant_values=1.5),
    lambda tf: tf.pad(tf.zeros([2, 3]), [[1, 1], [0, 0]], constant_values=tf.constant(1, tf.int32)),
    lambda tf: tf.pad(tf.zeros([2, 3]), [[1, 1], [0, 0]], "REFLECT", constant_values=1),
    lambda tf: tf.pad(tf.zeros([2, 3]), [[1.5, 1], [0, 0]]), lambda tf: tf.pad(tf.zeros([2, 3]), [1, 1, 0, 0]),
    lambda tf: tf.pad(tf.constant(["a"]), [[1, 1]]),
    lambda tf: tf.pad(tf.constant(["a"]), [[1, 1]], constant_values="z"),
    lambda tf: tf.pad(tf.constant([True]), [[1, 1]]), lambda tf: tf.pad(tf.range(4), tf.constant([[2, 3]], tf.int64)),
    lambda tf: tf.pad(tf.range(1), [[0, 0]], "REFLECT"), lambda tf: tf.pad(tf.range(1), [[1, 1]], "SYMMETRIC"),
    lambda tf: tf.pad(tf.zeros([2, 0]), [[1, 1], [1, 1]]), lambda tf: tf.pad(3, []),
])
def test_pad(case):
    check(case)


@pytest.mark.parametrize("case", [
    lambda tf: tf.reverse(tf.zeros([2, 3]), [2]), lambda tf: tf.reverse(tf.zeros([2, 3]), [0, 0]),
    lambda tf: tf.reverse(tf.reshape(tf.range(6), [2, 3]), [-1]), lambda tf: tf.reverse(tf.zeros([2, 3]), 1),
    lambda tf: tf.reverse(tf.zeros([2, 3]), []), lambda tf: tf.reverse(tf.reshape(tf.range(6), [2, 3]), [1, 0]),
    lambda tf: tf.roll(tf.range(5), 2, 0), lambda tf: tf.roll(tf.range(5), [2, 1], [0, 0]),
    lambda tf: tf.roll(tf.range(5), [2, 1], 0), lambda tf: tf.roll(tf.range(5), 2, 1),
    lambda tf: tf.roll(tf.range(5), -7, -1), lambda tf: tf.roll(tf.reshape(tf.range(12), [3, 4]), [1, -1], [0, 1]),
    lambda tf: tf.roll(tf.zeros([0, 2]), 1, 0),
    lambda tf: tf.broadcast_to(tf.zeros([2, 3]), [3, 3]), lambda tf: tf.broadcast_to(tf.zeros([2, 1]), [2, 2, 3]),
    lambda tf: tf.broadcast_to(tf.zeros([2, 1]), [1]), lambda tf: tf.broadcast_to(1, [2]),
    lambda tf: tf.broadcast_to(tf.zeros([2, 1]), [2, -1]), lambda tf: tf.broadcast_to(tf.range(3), [2, 3]),
    lambda tf: tf.broadcast_to(tf.range(3), tf.constant([2, 3], tf.int64)),
    lambda tf: tf.repeat(tf.range(3), 2), lambda tf: tf.repeat(tf.reshape(tf.range(6), [2, 3]), [1, 2], axis=0),
    lambda tf: tf.repeat(tf.reshape(tf.range(6), [2, 3]), [1, 2, 3], axis=1),
    lambda tf: tf.repeat(tf.reshape(tf.range(6), [2, 3]), [1, 2], axis=1),
    lambda tf: tf.repeat(tf.reshape(tf.range(6), [2, 3]), [-1, 2], axis=0),
    lambda tf: tf.repeat(tf.reshape(tf.range(6), [2, 3]), 2, axis=2),
    lambda tf: tf.repeat(tf.reshape(tf.range(6), [2, 3]), [2]),
    lambda tf: tf.repeat(tf.reshape(tf.range(6), [2, 3]), [2], axis=1), lambda tf: tf.repeat(3, 2),
    lambda tf: tf.repeat(tf.range(3), 2.5), lambda tf: tf.repeat(tf.range(3), 2, axis=-1),
])
def test_reverse_roll_broadcast_repeat(case):
    check(case)


@pytest.mark.parametrize("case", [
    lambda tf: tf.sequence_mask([1, 3, 0]), lambda tf: tf.sequence_mask([1, 3, 0], 5),
    lambda tf: tf.sequence_mask([[1], [2]], 3, dtype=tf.float32), lambda tf: tf.sequence_mask([1.5, 2]),
    lambda tf: tf.sequence_mask(tf.constant([1, 2], tf.int64)), lambda tf: tf.sequence_mask([1, -2], 3),
    lambda tf: tf.sequence_mask(2, 3), lambda tf: tf.sequence_mask([1, 3], [3]),
    lambda tf: tf.sequence_mask([2, 1], tf.constant(4), dtype=tf.int32),
    lambda tf: tf.meshgrid([1, 2], [3, 4, 5]), lambda tf: tf.meshgrid([1, 2], [3, 4, 5], indexing="ij"),
    lambda tf: tf.meshgrid([1, 2], [3., 4, 5]), lambda tf: tf.meshgrid([1, 2], indexing="x"),
    lambda tf: tf.meshgrid(), lambda tf: tf.meshgrid([[1, 2]], [3]), lambda tf: tf.meshgrid([1., 2.]),
    lambda tf: tf.meshgrid([1, 2], [3, 4, 5], [6, 7, 8, 9]),
    lambda tf: tf.meshgrid([1, 2], [3, 4, 5], [6, 7, 8, 9], indexing="ij"),
    lambda tf: tf.reverse_sequence(tf.reshape(tf.range(12), [3, 4]), [1, 4, 3], seq_axis=1),
    lambda tf: tf.reverse_sequence(tf.reshape(tf.range(12), [3, 4]), [1, 5, 3], seq_axis=1),
    lambda tf: tf.reverse_sequence(tf.reshape(tf.range(12), [3, 4]), [1, 2], seq_axis=1),
    lambda tf: tf.reverse_sequence(tf.reshape(tf.range(12), [3, 4]), [1, 2, 0, 4], seq_axis=0, batch_axis=1),
    lambda tf: tf.reverse_sequence(tf.reshape(tf.range(12), [3, 4]), [1, 2, -1], seq_axis=1),
    lambda tf: tf.reverse_sequence(tf.reshape(tf.range(12), [3, 4]), [1, 2, 1]),
    lambda tf: tf.reverse_sequence(tf.reshape(tf.range(24), [2, 3, 4]), tf.constant([3, 1], tf.int64), seq_axis=2),
    lambda tf: tf.reverse_sequence(tf.reshape(tf.range(24), [2, 3, 4]), [2, 0, 1, 2], seq_axis=1, batch_axis=2),
])
def test_masks_grids_sequences(case):
    check(case)


@pytest.mark.parametrize("case", [
    lambda tf: tf.nn.space_to_depth(tf.reshape(tf.range(32), [2, 2, 4, 2]), 2),
    lambda tf: tf.nn.depth_to_space(tf.reshape(tf.range(32), [2, 1, 2, 8]), 2),
    lambda tf: tf.nn.space_to_depth(tf.reshape(tf.range(54), [1, 3, 6, 3]), 3),
    lambda tf: tf.nn.space_to_depth(tf.zeros([1, 3, 4, 1]), 2),
    lambda tf: tf.nn.depth_to_space(tf.zeros([1, 3, 4, 3]), 2),
    lambda tf: tf.nn.space_to_depth(tf.zeros([3, 4, 1]), 2), lambda tf: tf.nn.depth_to_space(tf.zeros([1, 2, 2, 4]), 1),
])
def test_space_depth(case):
    check(case)


# -- gradients ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("fn", [
    lambda tf, x: tf.reshape(x, [4, -1]), lambda tf, x: tf.transpose(x, [2, 0, 1]), lambda tf, x: tf.transpose(x),
    lambda tf, x: tf.expand_dims(x, 1), lambda tf, x: tf.squeeze(tf.expand_dims(x, 0)),
    lambda tf, x: tf.concat([x, x * 2.0], 1), lambda tf, x: tf.stack([x, x * 3.0], axis=2),
    lambda tf, x: tf.unstack(x, axis=1), lambda tf, x: tf.split(x, [1, 3], axis=2), lambda tf, x: tf.split(x, 2),
    lambda tf, x: tf.tile(x, [1, 2, 3]), lambda tf, x: tf.pad(x, [[0, 1], [2, 0], [1, 1]], constant_values=3.0),
    lambda tf, x: tf.pad(x, [[1, 1], [2, 1], [0, 3]], "REFLECT"),
    lambda tf, x: tf.pad(x, [[2, 1], [3, 2], [4, 1]], "SYMMETRIC"), lambda tf, x: tf.reverse(x, [0, 2]),
    lambda tf, x: tf.roll(x, [1, -2], [1, 2]), lambda tf, x: tf.broadcast_to(x[:, :1], [3, 2, 5, 4]),
    lambda tf, x: tf.repeat(x, [1, 0, 3], axis=1), lambda tf, x: tf.repeat(x, 2),
    lambda tf, x: tf.meshgrid(tf.reshape(x, [-1])[:3], tf.reshape(x, [-1])[3:7]),
    lambda tf, x: tf.reverse_sequence(x, [3, 1], seq_axis=2),
    lambda tf, x: tf.nn.depth_to_space(tf.reshape(x, [1, 2, 3, 4]), 2),
    lambda tf, x: tf.nn.space_to_depth(tf.reshape(x, [1, 2, 6, 2]), 2),
])
def test_gradients(fn):
    check_grad(fn, X234)


def test_views_do_not_leak_between_results():
    check(lambda tf, x: [tf.reshape(x, [3, 2]), tf.transpose(x), x], X23)


@pytest.mark.parametrize("case", [
    lambda tf: tf.space_to_batch_nd(tf.reshape(tf.range(16.), [1, 4, 4, 1]), [2, 2], [[0, 0], [0, 0]]),
    lambda tf: tf.space_to_batch_nd(tf.reshape(tf.range(16.), [1, 4, 4, 1]), [2, 2], [[1, 1], [0, 2]]),
    lambda tf: tf.space_to_batch_nd(tf.reshape(tf.range(16.), [1, 4, 4, 1]), [3, 2], [[0, 0], [0, 0]]),
    lambda tf: tf.space_to_batch_nd(tf.reshape(tf.range(48), [2, 6, 2, 2]), [3], [[0, 0]]),
    lambda tf: tf.space_to_batch_nd(tf.reshape(tf.range(24), [2, 3, 4]), [1, 2], [[1, 0], [0, 2]]),
    lambda tf: tf.batch_to_space(tf.reshape(tf.range(16.), [4, 2, 2, 1]), [2, 2], [[0, 0], [1, 1]]),
    lambda tf: tf.batch_to_space(tf.reshape(tf.range(16.), [4, 2, 2, 1]), [2, 2], [[0, 0], [1, 2]]),
    lambda tf: tf.batch_to_space(tf.reshape(tf.range(48), [6, 2, 2, 2]), [3], [[1, 2]]),
    lambda tf: tf.batch_to_space(tf.reshape(tf.range(12), [3, 2, 2]), [2], [[0, 0]]),
    lambda tf: tf.space_to_batch(tf.reshape(tf.range(16.), [1, 4, 4, 1]), [2, 2], [[0, 0], [0, 0]]),
    lambda tf: tf.nn.space_to_batch(tf.reshape(tf.range(16.), [1, 4, 4, 1]), [2, 2], [[0, 0], [0, 0]]),
    lambda tf: tf.required_space_to_batch_paddings([5, 7], [2, 3]),
    lambda tf: tf.required_space_to_batch_paddings([5, 7], [2, 3], base_paddings=[[1, 0], [0, 2]]),
])
def test_space_batch(case):
    check(case)


@pytest.mark.parametrize("fn", [
    lambda tf, x: tf.space_to_batch_nd(tf.reshape(x, [1, 4, 6, 1]), [2, 3], [[1, 1], [0, 3]]),
    lambda tf, x: tf.batch_to_space(tf.reshape(x, [4, 2, 3, 1]), [2, 2], [[1, 0], [0, 2]]),
])
def test_space_batch_gradients(fn):
    check_grad(fn, X234)
