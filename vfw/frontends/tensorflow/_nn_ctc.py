"""tf.nn.ctc_loss: connectionist temporal classification loss of dense (padded) or sparse label batches.

The loss is ``-log p(labels | logits)`` summed over every alignment of the labels to the frames, computed
by the forward (alpha) recursion in log space over the extended label sequence ``blank, l1, blank, l2,
..., blank``: frame by frame, vectorised over the batch and the label positions, with tf ops so that tapes
differentiate it.  SparseTensor labels (TF's CTCLoss kernel: each row's stored values in order, whatever their
columns) are laid out densely first.
"""

import numpy as np

import vfw.frontends.tensorflow as tf
from vfw.frontends.tensorflow._dispatch import convert_to_tensor, op_error
from vfw.frontends.tensorflow._sparse_tensor import SparseTensor

# Log-probability of an unreachable state: finite (so that log-sum-exp and its gradient stay free of NaN),
# yet far below any reachable log-probability; losses this large mean "no alignment" and become +inf.
_UNREACHABLE = -1e30


def _logaddexp3(a, b, c):
    """Elementwise log(exp(a) + exp(b) + exp(c))."""
    top = tf.maximum(tf.maximum(a, b), c)
    return top + tf.math.log(tf.exp(a - top) + tf.exp(b - top) + tf.exp(c - top))


def _dense_labels(labels):
    """``(labels, label_length)`` of a SparseTensor of label sequences: row ``b`` holds its stored values in
    order, padded with zeros; TF's kernel refuses a row without labels."""
    rows = labels.indices.numpy()[:, 0]
    counts = np.bincount(rows, minlength=int(labels.dense_shape.numpy()[0]))
    empty = np.flatnonzero(counts == 0)
    if empty.size:
        raise op_error(f"Labels length is zero in batch {empty[0]}", "CTCLoss")
    order = np.argsort(rows, kind="stable")
    starts = np.cumsum(counts) - counts
    dense = np.zeros((counts.size, counts.max()), np.int32)
    dense[rows[order], np.arange(rows.size) - starts[rows[order]]] = labels.values.numpy()[order]
    return tf.constant(dense), tf.constant(counts.astype(np.int32))


def ctc_loss(labels, logits, label_length, logit_length, logits_time_major=True, unique=None, blank_index=None,
             name=None):
    """Per-example CTC negative log-likelihoods.

    Parameters
    ----------
    labels : int tensor, shape (batch, max_label_length), or tf.SparseTensor
        Dense label sequences, padded past ``label_length``; or sparse ones (``label_length`` is then ignored and
        ``blank_index`` required).
    logits : float tensor, shape (frames, batch, classes) (``(batch, frames, classes)`` if not
        ``logits_time_major``)
        Unnormalized log-probabilities.
    label_length, logit_length : int tensors, shape (batch,)
        The lengths of each label sequence and of each example's frames.
    blank_index : int, optional
        The blank class (default 0; negative values count from ``classes``).

    Returns
    -------
    Tensor, shape (batch,), of ``logits``' dtype (16-bit floats compute in float32).
    """
    if unique is not None:
        raise NotImplementedError("tf.nn.ctc_loss: `unique` is not supported by vfw.")
    if isinstance(labels, (list, tuple)) and not labels:
        raise ValueError("tf.nn.ctc_loss: `labels` is empty.")
    if isinstance(labels, SparseTensor):
        if blank_index is None:
            raise ValueError("Argument `blank_index` must be provided when `labels` is a `SparseTensor`.")
        labels, label_length = _dense_labels(labels)
    elif label_length is None:
        raise ValueError("Attempt to convert a value (None) with an unsupported type (<class 'NoneType'>) to a Tensor.")
    logits = convert_to_tensor(logits)
    out_dtype = logits.dtype
    if out_dtype.name in ("float16", "bfloat16"):
        logits = tf.cast(logits, "float32")
    if not logits_time_major:
        logits = tf.transpose(logits, [1, 0, 2])
    labels = tf.cast(convert_to_tensor(labels), "int32")
    label_length = tf.cast(convert_to_tensor(label_length), "int32")
    logit_length = tf.cast(convert_to_tensor(logit_length), "int32")
    frames, batch, classes = logits.shape.as_list()
    blank = 0 if blank_index is None else blank_index % classes
    if blank:
        # TF moves the blank class to the front and shifts the classes below it up by one, so a label equal
        # to the blank index reads as the class just below it.
        labels = tf.where(tf.equal(labels, blank), labels - 1, labels)
    width = labels.shape[1]
    positions = 2 * width + 1

    log_probs = tf.nn.log_softmax(logits, axis=-1)
    # Extended labels: blanks at even positions, the labels at odd ones.
    extended = tf.reshape(tf.stack([tf.fill([batch, width], blank), labels], axis=2), [batch, 2 * width])
    extended = tf.concat([extended, tf.fill([batch, 1], blank)], axis=1)
    # The skip transition s-2 -> s is allowed into a label that differs from the label two positions back.
    previous = tf.concat([tf.fill([batch, 2], blank), extended[:, :-2]], axis=1)
    can_skip = tf.not_equal(extended, blank) & tf.not_equal(extended, previous)
    valid = tf.range(positions)[None, :] < 2 * label_length[:, None] + 1
    unreachable = tf.fill([batch, positions], tf.constant(_UNREACHABLE, logits.dtype))

    def emissions(t):
        return tf.gather(log_probs[t], extended, axis=1, batch_dims=1)

    start = tf.range(positions)[None, :] < 2
    alpha = tf.where(start & valid, emissions(0), unreachable)
    pad1 = tf.fill([batch, 1], tf.constant(_UNREACHABLE, logits.dtype))
    pad2 = tf.fill([batch, 2], tf.constant(_UNREACHABLE, logits.dtype))
    for t in range(1, frames):
        stay = alpha
        step = tf.concat([pad1, alpha[:, :-1]], axis=1)
        skip = tf.where(can_skip, tf.concat([pad2, alpha[:, :-2]], axis=1), unreachable)
        advanced = tf.where(valid, _logaddexp3(stay, step, skip) + emissions(t), unreachable)
        alpha = tf.where((t < logit_length)[:, None], advanced, alpha)
    last = 2 * label_length
    final_blank = tf.gather(alpha, last[:, None], axis=1, batch_dims=1)[:, 0]
    final_label = tf.gather(alpha, tf.maximum(last - 1, 0)[:, None], axis=1, batch_dims=1)[:, 0]
    final_label = tf.where(label_length > 0, final_label, tf.constant(_UNREACHABLE, logits.dtype))
    top = tf.maximum(final_blank, final_label)
    loss = -(top + tf.math.log(tf.exp(final_blank - top) + tf.exp(final_label - top)))
    loss = tf.where(loss > -_UNREACHABLE / 2, tf.constant(np.inf, loss.dtype), loss)
    return tf.cast(loss, out_dtype) if loss.dtype != out_dtype else loss


NAMESPACES = {"nn": ["ctc_loss"]}
TENSOR_METHODS = {}
