"""tf.nn losses against real TF: values, dtypes, shape and label errors, gradients for logits and float labels."""

import numpy as np
import pytest

from compat_tests.tensorflow.harness import arrays, check, check_grad

DTYPES = ["float32", "float64", "float16", "bfloat16", "int32", "int64", "int8", "bool"]
LOGITS = np.array([[-1.0, 0.0, 2.0], [3.0, -4.0, 5.0]], np.float32)
PROBS = np.array([[0.2, 0.3, 0.5], [1.0, 0.0, 0.0]], np.float32)


def check_values_and_grads(fn, *args, **kwargs):
    """``check`` (errors included), then ``check_grad`` when real TF computed a result."""
    if check(fn, *args, **kwargs) is not None:
        check_grad(fn, *args, **kwargs)


# -- sigmoid and weighted cross entropy --------------------------------------------------------------
@pytest.mark.parametrize("shapes", [((2, 3), (2, 3)), ((2, 3), (3,)), ((), ()), ((0, 2), (0, 2))])
def test_sigmoid_cross_entropy(shapes):
    labels = arrays(shapes[1], seed=1, low=0, high=1)
    check_values_and_grads(lambda tf, z, x: tf.nn.sigmoid_cross_entropy_with_logits(labels=z, logits=x),
                           labels, arrays(shapes[0], low=-30, high=30))


def test_sigmoid_cross_entropy_arguments():
    check(lambda tf, x: tf.nn.sigmoid_cross_entropy_with_logits(logits=x), LOGITS)
    check(lambda tf, x: tf.nn.sigmoid_cross_entropy_with_logits(labels=x), LOGITS)
    check(lambda tf, x: tf.nn.sigmoid_cross_entropy_with_logits([[1, 0, 0], [0, 1, 0]], x), LOGITS)
    check(lambda tf, x: tf.nn.sigmoid_cross_entropy_with_logits(tf.ones([2, 3], tf.float64), x), LOGITS)
    check(lambda tf, x: tf.nn.sigmoid_cross_entropy_with_logits([[1.0, 0, 0], [0, 1, 0]], x), LOGITS)
    check_grad(lambda tf, x: tf.nn.sigmoid_cross_entropy_with_logits(tf.zeros_like(x), x),
               np.array([0.0, -0.0, 1.0], np.float32))


@pytest.mark.parametrize("dtype", DTYPES)
def test_cross_entropy_dtypes(dtype):
    def cast(tf, x):
        return tf.cast(x, dtype)
    check(lambda tf, z, x: tf.nn.sigmoid_cross_entropy_with_logits(cast(tf, z), cast(tf, x)), PROBS, LOGITS)
    check(lambda tf, z, x: tf.nn.weighted_cross_entropy_with_logits(cast(tf, z), cast(tf, x), 2.0), PROBS, LOGITS)
    check(lambda tf, z, x: tf.nn.softmax_cross_entropy_with_logits(cast(tf, z), cast(tf, x)), PROBS, LOGITS)
    check(lambda tf, x: tf.nn.sparse_softmax_cross_entropy_with_logits([0, 2], cast(tf, x)), LOGITS)
    check(lambda tf, z, x: tf.nn.log_poisson_loss(cast(tf, z), cast(tf, x)), PROBS, LOGITS)
    check(lambda tf, x: tf.nn.l2_loss(cast(tf, x)), LOGITS)


@pytest.mark.parametrize("pos_weight", [2.0, 0.5, "tensor"])
def test_weighted_cross_entropy(pos_weight):
    def case(tf, z, x):
        q = tf.constant([1.0, 2.0, 3.0]) if pos_weight == "tensor" else pos_weight
        return tf.nn.weighted_cross_entropy_with_logits(z, x, q)
    check_values_and_grads(case, PROBS, arrays((2, 3), low=-30, high=30))
    check(lambda tf, x: tf.nn.weighted_cross_entropy_with_logits(tf.ones([3]), x, 2.0), LOGITS)


# -- softmax cross entropies ------------------------------------------------------------------------------
@pytest.mark.parametrize("case", [
    ((2, 3), (2, 3), -1), ((2, 3), (1, 3), -1), ((1, 3), (2, 3), -1), ((2, 3), (2, 3), 0), ((2, 3, 2), (2, 3, 2), 1),
    ((3,), (3,), -1), ((2, 3), (2, 4), -1), ((), (), -1), ((0, 3), (0, 3), -1),
])
def test_softmax_cross_entropy(case):
    logits_shape, labels_shape, axis = case
    labels = arrays(labels_shape, seed=1, low=0, high=1)
    if labels_shape != logits_shape and len(labels_shape) == len(logits_shape):
        # Broadcast labels: TF's own gradient fails (it reshapes the labels' gradient wrongly); values only.
        check(lambda tf, z, x: tf.nn.softmax_cross_entropy_with_logits(z, x, axis=axis), labels,
              arrays(logits_shape, low=-5, high=5))
        return
    check_values_and_grads(lambda tf, z, x: tf.nn.softmax_cross_entropy_with_logits(z, x, axis=axis),
                           labels, arrays(logits_shape, low=-5, high=5))


def test_softmax_cross_entropy_labels_conversion():
    check(lambda tf, x: tf.nn.softmax_cross_entropy_with_logits([[1, 0, 0], [0, 1, 0]], x), LOGITS)
    check(lambda tf, x: tf.nn.softmax_cross_entropy_with_logits(tf.ones([2, 3], tf.float64), x), LOGITS)
    # Labels that are not distributions: TF's logits gradient is still softmax - labels.
    check_grad(lambda tf, z, x: tf.nn.softmax_cross_entropy_with_logits(z, x), 3 * PROBS, LOGITS)
    check_grad(lambda tf, x: tf.nn.softmax_cross_entropy_with_logits(tf.ones([2, 3], tf.float16), x),
               LOGITS.astype(np.float16))


@pytest.mark.parametrize("case", [
    ([0, 2], (2, 3)), ([[0, 1], [2, 2]], (2, 2, 3)), (1, (3,)), ([0, 3], (2, 3)), ([0, -1], (2, 3)),
    ([0, 1, 2], (2, 3)), ([[0], [1]], (2, 3)), (1, ()), ([], (0, 3)),
])
def test_sparse_softmax_cross_entropy(case):
    labels, shape = case
    check_values_and_grads(lambda tf, x: tf.nn.sparse_softmax_cross_entropy_with_logits(labels, x),
                           arrays(shape, low=-5, high=5))


@pytest.mark.parametrize("label_dtype", ["int32", "int64", "float32", "int16", "uint8"])
def test_sparse_softmax_cross_entropy_label_dtypes(label_dtype):
    check(lambda tf, x: tf.nn.sparse_softmax_cross_entropy_with_logits(tf.cast([0, 1], label_dtype), x), LOGITS)


def test_sparse_softmax_cross_entropy_half():
    check_grad(lambda tf, x: tf.nn.sparse_softmax_cross_entropy_with_logits([0, 2], x), LOGITS.astype(np.float16))


# -- log-Poisson, l2 ------------------------------------------------------------------------------------
@pytest.mark.parametrize("full", [False, True])
def test_log_poisson_loss(full):
    targets = np.array([[0.5, 2.0, 3.0], [4.0, 1.5, 7.0]], np.float32)
    check_values_and_grads(lambda tf, t, c: tf.nn.log_poisson_loss(t, c, compute_full_loss=full), targets, LOGITS)
    edge = np.array([[0.0, 0.5, 2.0], [3.0, -1.0, 1.0]], np.float32)  # 0, 1 and negative targets
    check(lambda tf, t, c: tf.nn.log_poisson_loss(t, c, compute_full_loss=full), edge, LOGITS)
    check(lambda tf, c: tf.nn.log_poisson_loss(tf.ones([3]), c, compute_full_loss=full), LOGITS)


@pytest.mark.parametrize("shape", [(2, 3), (), (0,), (4, 1, 2)])
def test_l2_loss(shape):
    check_values_and_grads(lambda tf, x: tf.nn.l2_loss(x), arrays(shape))


# -- distribution helpers -------------------------------------------------------------------------------
@pytest.mark.parametrize("case", [
    dict(), dict(global_batch_size=6), dict(sample_weight=[1.0, 0.0, 2.0]), dict(sample_weight=2),
    dict(global_batch_size=2.5), dict(global_batch_size=[6]), dict(global_batch_size=np.int64(4)),
])
def test_compute_average_loss(case):
    check_values_and_grads(lambda tf, x: tf.nn.compute_average_loss(x, **case), np.array([1.0, 2, 3], np.float32))


@pytest.mark.parametrize("weights", [[1.0, 2.0], [[1.0], [2.0]], [1.0, 2, 3], [[[1.0]], [[2.0]]], 3.0])
def test_compute_average_loss_weight_ranks(weights):
    check_values_and_grads(lambda tf, x: tf.nn.compute_average_loss(x, sample_weight=weights),
                           np.array([[1.0, 2], [3, 4]], np.float32))


@pytest.mark.parametrize("dtype", DTYPES + ["uint8", "uint32"])
def test_average_and_regularization_loss_dtypes(dtype):
    x = np.array([1.0, 2.0, 3.0], np.float32)
    check(lambda tf, x: tf.nn.compute_average_loss(tf.cast(x, dtype)), x)
    check(lambda tf, x: tf.nn.scale_regularization_loss(tf.cast(x, dtype)), x)


def test_compute_average_loss_scalar_and_float64_weights():
    check(lambda tf: tf.nn.compute_average_loss(1.0))
    check(lambda tf: tf.nn.compute_average_loss(tf.constant([1.0, 2.0], tf.float64), sample_weight=[0.1, 0.3]))


@pytest.mark.parametrize("value", [[1.0, 2.0], 3.0, np.ones((2, 2), np.float32)], ids=repr)
def test_scale_regularization_loss(value):
    check(lambda tf: tf.nn.scale_regularization_loss(value))
    check_grad(lambda tf, x: tf.nn.scale_regularization_loss(x), np.asarray(value, np.float32))
