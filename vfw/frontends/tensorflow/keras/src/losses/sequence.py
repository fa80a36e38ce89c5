"""The CTC loss (connectionist temporal classification) of Keras: ``ctc(y_true, y_pred)``.

``y_true`` (batch, max_label_length) holds integer labels padded with 0, which is also the blank
class; ``y_pred`` (batch, time, classes) holds scores that a log-softmax normalises (as
``tf.nn.ctc_loss`` does with logits). Every sequence uses all time steps. The numbers come from
the engine's CTCLoss op (the forward-backward recursion in log space), reached through the TF
frontend's op dispatch since vfw.tensorflow has no ``tf.nn.ctc_loss`` yet.
"""

import vfw.tensorflow as tf
from vfw.frontends.tensorflow import _dispatch
from vfw.frontends.tensorflow.keras.src.backend import dtypes as backend_dtypes
from vfw.frontends.tensorflow.keras.src.losses import conventions

_BLANK = 0


def ctc(y_true, y_pred):
    """Per-sequence CTC negative log-likelihood of the labels ``y_true`` under the scores ``y_pred``.

    Parameters
    ----------
    y_true : tensor-like (batch, max_label_length)
        Integer labels; 0 pads (and is the blank class).
    y_pred : tensor-like (batch, time, classes)
        Unnormalised scores (logits) or probabilities; a log-softmax over classes is applied.

    Returns
    -------
    Tensor (batch,)
        In ``y_pred``'s float dtype (float64 is computed in float32, as Keras does).
    """
    y_true, y_pred = conventions.convert(y_true), conventions.convert(y_pred)
    if len(y_true.shape) != 2:
        raise ValueError("Targets `y_true` are expected to be a tensor of shape `(batch_size, max_length)` in "
                         f"integer format. Received: y_true.shape={tuple(y_true.shape)}")
    if len(y_pred.shape) != 3:
        raise ValueError("Logits `y_pred` are expected to be a tensor of shape `(batch_size, max_length, "
                         f"num_classes)`. Received: y_pred.shape={tuple(y_pred.shape)}")
    batch, steps = y_pred.shape[0], y_pred.shape[1]
    labels = tf.cast(y_true, "int32")
    label_lengths = tf.reduce_sum(tf.cast(tf.not_equal(labels, _BLANK), "int32"), axis=-1)
    result_dtype = backend_dtypes.result_type(conventions.dtype_name(y_pred), "float32")
    compute_dtype = "float32" if result_dtype == "float64" else result_dtype
    log_probs = tf.nn.log_softmax(tf.cast(y_pred, compute_dtype), axis=-1)
    time_major = tf.transpose(log_probs, [1, 0, 2])
    input_lengths = tf.fill([batch], steps)
    losses, _ = _dispatch.call("CTCLoss", time_major, labels, input_lengths, label_lengths, tf_op="CTCLoss",
                               blank=_BLANK, zero_infinity=0)
    return tf.cast(losses, result_dtype)
