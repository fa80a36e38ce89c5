"""Sampled losses: tf.nn.sampled_softmax_loss and tf.nn.nce_loss.

Both score each row of ``inputs`` against its true classes and a shared set of sampled classes
(drawn by the log-uniform candidate sampler unless ``sampled_values`` are given), with TF's
composition of ops: the weight and bias rows of all classes come from one embedding lookup
(TF's "div" strategy for sharded weights), the true logits are row-wise dot products summed by a
product with a column of ones, sampled classes that are true classes of a row may be pushed to
``-FLT_MAX``, and ``log`` of the expected counts is subtracted.  Everything but the sampling is
differentiable, so gradients reach ``weights``, ``biases`` and ``inputs`` as TF's do.
"""

import numpy as np

from vfw.frontends.tensorflow import _dtypes
from vfw.frontends.tensorflow._array_ops import concat, expand_dims, reshape
from vfw.frontends.tensorflow._creation import cast, ones_like, zeros_like
from vfw.frontends.tensorflow._dispatch import convert_to_tensor, host
from vfw.frontends.tensorflow._gradients import stop_gradient
from vfw.frontends.tensorflow._linalg_ops import matmul
from vfw.frontends.tensorflow._math_binary import add, multiply, realdiv, subtract
from vfw.frontends.tensorflow._math_unary import log
from vfw.frontends.tensorflow._nn_candidates import compute_accidental_hits, log_uniform_candidate_sampler
from vfw.frontends.tensorflow._nn_losses import sigmoid_cross_entropy_with_logits, softmax_cross_entropy_with_logits
from vfw.frontends.tensorflow._nn_norm import embedding_lookup

_FLT_MAX = np.finfo(np.float32).max


def _sum_rows(x):
    """The sums of the rows of the matrix ``x`` (TF sums them with a product by a column of ones)."""
    ones = host(lambda a: np.ones((a.shape[1], 1), a.dtype), x)
    return reshape(matmul(x, ones), [-1])


def _rows(params, ids, dtype):
    """The rows of ``params`` (a tensor or a list of shards) at ``ids``, cast to ``dtype``."""
    found = embedding_lookup(params if isinstance(params, list) else [params], ids)
    return found if found.dtype == dtype else cast(found, dtype)


def _accidental_hit_mask(labels, sampled, num_true, num_sampled, dtype):
    """A ``(batch, num_sampled)`` tensor: ``-FLT_MAX`` where a sampled class is one of the row's true classes."""
    indices, ids, _ = compute_accidental_hits(labels, sampled, num_true=num_true)

    def mask(label_array, row_array, id_array):
        dense = np.zeros((label_array.shape[0], num_sampled), dtype.np)
        dense[row_array, id_array] = -_FLT_MAX  # repeated hits set the entry once, as TF's SparseToDense
        return dense
    return host(mask, labels, indices, ids)


def compute_sampled_logits(weights, biases, labels, inputs, num_sampled, num_classes, num_true=1,
                           sampled_values=None, subtract_log_q=True, remove_accidental_hits=False, seed=None):
    """The logits of the true and sampled classes of each row, and their target probabilities.

    Parameters
    ----------
    weights : Tensor or list of Tensor
        ``(num_classes, dim)`` class embeddings (a list: shards split by TF's "div" strategy).
    biases : Tensor or list of Tensor
        ``(num_classes,)`` class biases.
    labels : integer Tensor, shape ``(batch, num_true)``
    inputs : float Tensor, shape ``(batch, dim)``
    num_sampled, num_classes, num_true : int
    sampled_values : tuple of Tensor, optional
        ``(sampled_candidates, true_expected_count, sampled_expected_count)`` of a candidate sampler;
        by default the log-uniform sampler's (unique draws, ``seed``).
    subtract_log_q : bool
        Subtract the logarithm of the expected counts.
    remove_accidental_hits : bool
        Push sampled classes that are true classes of the row to ``-FLT_MAX``.

    Returns
    -------
    tuple of Tensor
        ``(logits, targets)``, both ``(batch, num_true + num_sampled)``: the true classes first
        (targets ``1 / num_true``), then the sampled ones (targets 0).
    """
    labels = convert_to_tensor(labels)
    inputs = convert_to_tensor(inputs)
    if labels.dtype != _dtypes.int64:
        labels = cast(labels, _dtypes.int64)
    labels_flat = reshape(labels, [-1])
    if sampled_values is None:
        sampled_values = log_uniform_candidate_sampler(labels, num_true, num_sampled, True, num_classes, seed=seed)
    sampled, true_expected_count, sampled_expected_count = (stop_gradient(v) for v in sampled_values)
    sampled = cast(sampled, _dtypes.int64)
    all_ids = concat([labels_flat, sampled], 0)
    n_true = labels_flat.array.shape[0]

    all_w = _rows(weights, all_ids, inputs.dtype)
    true_w, sampled_w = all_w[:n_true], all_w[n_true:]
    sampled_logits = matmul(inputs, sampled_w, transpose_b=True)
    all_b = _rows(biases, all_ids, inputs.dtype)
    true_b, sampled_b = all_b[:n_true], all_b[n_true:]

    dim = all_w.array.shape[1]
    row_dots = multiply(expand_dims(inputs, 1), reshape(true_w, [-1, num_true, dim]))
    true_logits = reshape(_sum_rows(reshape(row_dots, [-1, dim])), [-1, num_true])
    true_logits = add(true_logits, reshape(true_b, [-1, num_true]))
    sampled_logits = add(sampled_logits, sampled_b)

    if remove_accidental_hits:
        sampled_logits = add(sampled_logits,
                             _accidental_hit_mask(labels, sampled, num_true, num_sampled, sampled_logits.dtype))
    if subtract_log_q:
        true_logits = subtract(true_logits, log(true_expected_count))
        sampled_logits = subtract(sampled_logits, log(sampled_expected_count))

    logits = concat([true_logits, sampled_logits], 1)
    targets = concat([realdiv(ones_like(true_logits), num_true), zeros_like(sampled_logits)], 1)
    return logits, targets


def sampled_softmax_loss(weights, biases, labels, inputs, num_sampled, num_classes, num_true=1, sampled_values=None,
                         remove_accidental_hits=True, seed=None, name="sampled_softmax_loss"):
    """The softmax cross entropy of each row over its true classes and a sample of the other classes.

    Parameters
    ----------
    weights, biases, labels, inputs, num_sampled, num_classes, num_true, sampled_values, seed
        As ``compute_sampled_logits``.
    remove_accidental_hits : bool
        Ignore sampled classes that are true classes of the row (default True).

    Returns
    -------
    Tensor
        ``(batch,)`` losses.
    """
    logits, targets = compute_sampled_logits(weights, biases, labels, inputs, num_sampled, num_classes,
                                             num_true=num_true, sampled_values=sampled_values, subtract_log_q=True,
                                             remove_accidental_hits=remove_accidental_hits, seed=seed)
    return softmax_cross_entropy_with_logits(labels=stop_gradient(targets), logits=logits)


def nce_loss(weights, biases, labels, inputs, num_sampled, num_classes, num_true=1, sampled_values=None,
             remove_accidental_hits=False, name="nce_loss"):
    """Noise-contrastive estimation loss: logistic losses of the true classes (targets ``1 / num_true``) and the
    sampled classes (targets 0), summed per row.

    Parameters
    ----------
    weights, biases, labels, inputs, num_sampled, num_classes, num_true, sampled_values
        As ``compute_sampled_logits``.
    remove_accidental_hits : bool
        Ignore sampled classes that are true classes of the row (default False).

    Returns
    -------
    Tensor
        ``(batch,)`` losses.
    """
    logits, targets = compute_sampled_logits(weights, biases, labels, inputs, num_sampled, num_classes,
                                             num_true=num_true, sampled_values=sampled_values, subtract_log_q=True,
                                             remove_accidental_hits=remove_accidental_hits)
    return _sum_rows(sigmoid_cross_entropy_with_logits(labels=targets, logits=logits))


NAMESPACES = {"nn": ["sampled_softmax_loss", "nce_loss"]}
