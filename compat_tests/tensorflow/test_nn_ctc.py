"""tf.nn.ctc_loss (dense and sparse labels) against TF 2.21: values, gradients, errors."""

import numpy as np
import pytest

from compat_tests.tensorflow.harness import check, check_grad

RNG = np.random.default_rng(0)
LOGITS = RNG.normal(size=(7, 3, 5)).astype("float32")
LABELS = np.array([[1, 2, 2, 0], [3, 1, 0, 0], [4, 3, 4, 4]], "int32")
LABEL_LENGTH = np.array([3, 2, 4], "int32")
LOGIT_LENGTH = np.array([7, 4, 7], "int32")


@pytest.mark.parametrize("blank_index", [None, 0, -1, 2])
def test_ctc_loss_time_major(blank_index):
    check_grad(lambda tf, x: tf.nn.ctc_loss(LABELS, x, LABEL_LENGTH, LOGIT_LENGTH, blank_index=blank_index), LOGITS,
               rtol=1e-5, atol=1e-5)


def test_ctc_loss_batch_major_and_lengths():
    batch_major = np.transpose(LOGITS, (1, 0, 2)).copy()
    check_grad(lambda tf, x: tf.nn.ctc_loss(LABELS, x, np.array([1, 0, 2]), np.array([3, 5, 7]),
                                            logits_time_major=False), batch_major, rtol=1e-5, atol=1e-5)
    check_grad(lambda tf, x: tf.nn.ctc_loss(LABELS[:, :2], x, np.array([2, 2, 1]), np.array([7, 7, 7]),
                                            logits_time_major=False), batch_major, rtol=1e-5, atol=1e-5)


def test_ctc_loss_dtypes():
    check(lambda tf, x: tf.nn.ctc_loss(LABELS, x, LABEL_LENGTH, LOGIT_LENGTH), LOGITS.astype("float16"),
          rtol=1e-3, atol=1e-2)
    check(lambda tf, x: tf.nn.ctc_loss(LABELS.astype("int64"), x, LABEL_LENGTH.astype("int64"), LOGIT_LENGTH), LOGITS)


def test_ctc_loss_without_alignment_is_infinite():
    # TF's dense path returns a large finite number (log of 1e-307 per missing alignment); vfw returns the
    # exact +inf, as TF's sparse CTC kernel does.
    import vfw.tensorflow as tf

    loss = tf.nn.ctc_loss(np.array([[4, 4, 4]]), LOGITS[:4, :1], np.array([3]), np.array([4]))
    assert np.isinf(loss.numpy()).all()


# A row's stored values in order, whatever their columns (row 1 skips column 0)
SPARSE_LABELS = ([[0, 0], [0, 1], [0, 3], [1, 1], [2, 0], [2, 1], [2, 2], [2, 3]], [1, 2, 2, 3, 4, 3, 4, 4], [3, 5])


@pytest.mark.parametrize("blank_index", [0, -1, 2])
def test_ctc_loss_sparse_labels(blank_index):
    check_grad(lambda tf, x: tf.nn.ctc_loss(tf.SparseTensor(*SPARSE_LABELS), x, None, LOGIT_LENGTH,
                                            blank_index=blank_index), LOGITS, rtol=1e-5, atol=1e-5)
    batch_major = np.transpose(LOGITS, (1, 0, 2)).copy()
    check(lambda tf, x: tf.nn.ctc_loss(tf.SparseTensor(*SPARSE_LABELS), x, LABEL_LENGTH, LOGIT_LENGTH,
                                       logits_time_major=False, blank_index=blank_index), batch_major, rtol=1e-5)


@pytest.mark.parametrize("case", ["sparse without blank_index", "sparse row without labels",
                                  "dense without label_length"])
def test_ctc_loss_label_errors(case):
    def fn(tf, x):
        if case == "dense without label_length":
            return tf.nn.ctc_loss(LABELS, x, None, LOGIT_LENGTH)
        if case == "sparse without blank_index":
            return tf.nn.ctc_loss(tf.SparseTensor(*SPARSE_LABELS), x, None, LOGIT_LENGTH)
        return tf.nn.ctc_loss(tf.SparseTensor([[0, 0], [2, 1]], [1, 2], [3, 2]), x, None, LOGIT_LENGTH, blank_index=0)

    check(fn, LOGITS)
