"""tf.nn.embedding_lookup_sparse and tf.nn.safe_embedding_lookup_sparse: bags of ids (a SparseTensor, one bag per
row) combined into one embedding per row by a weighted sum, mean or sqrt-n mean.

As TF does, the distinct ids are looked up once with ``tf.nn.embedding_lookup`` (so the gradient with respect to
the parameters is an ``IndexedSlices`` of those ids) and the looked-up rows combined with segment sums.
"""

import numpy as np

from vfw.frontends.tensorflow._dispatch import call, convert_to_tensor, wrap
from vfw.frontends.tensorflow._math_binary import divide_no_nan
from vfw.frontends.tensorflow._nn_norm import embedding_lookup
from vfw.frontends.tensorflow._op_support import reshape
from vfw.frontends.tensorflow._sparse_ops import fill_empty_rows, retain, take
from vfw.frontends.tensorflow._sparse_ops import reshape as sparse_reshape
from vfw.frontends.tensorflow._sparse_reduce import _segment_sum
from vfw.frontends.tensorflow._sparse_tensor import SparseTensor, dense_shape_of

_COMBINERS = ("mean", "sqrtn", "sum")


def _first_appearance_unique(values):
    """The distinct values in order of first appearance and each value's position among them (``tf.unique``)."""
    distinct, first, inverse = np.unique(values, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    return distinct[order], rank[inverse.reshape(-1)]


def embedding_lookup_sparse(params, sp_ids, sp_weights, combiner=None, max_norm=None, name=None,
                            allow_fast_lookup=False):
    """One combined embedding per row of ``sp_ids``.

    Parameters
    ----------
    params : Tensor or list of Tensor
        The embedding table ``[vocab, d...]`` (or its shards).
    sp_ids : SparseTensor ``[rows, max_ids]`` of int32/int64 ids, rows in order.
    sp_weights : SparseTensor of the same indices with float weights, or None (all weights 1).
    combiner : {"mean", "sqrtn", "sum"}, optional
        Weighted sum divided by the sum of the weights ("mean", the default), by the square root of the sum
        of squared weights ("sqrtn"), or not divided ("sum").
    max_norm : float, optional
        Looked-up rows with a larger L2 norm are scaled down to it.

    Returns
    -------
    Tensor ``[last non-empty row + 1, d...]`` (empty rows are zero).
    """
    combiner = "mean" if combiner is None else combiner
    if combiner not in _COMBINERS:
        raise ValueError(f"combiner must be one of 'mean', 'sqrtn' or 'sum', got {combiner}")
    if not isinstance(sp_ids, SparseTensor):
        raise TypeError("sp_ids must be SparseTensor")
    if sp_weights is not None and not isinstance(sp_weights, SparseTensor):
        raise TypeError("sp_weights must be either None or SparseTensor")
    segments = sp_ids.indices.array[:, 0]
    count = int(segments[-1]) + 1 if segments.size else 0
    distinct, position = _first_appearance_unique(np.asarray(sp_ids.values.array))
    embeddings = embedding_lookup(params, wrap(distinct.astype(sp_ids.values.array.dtype)), max_norm=max_norm)
    rows = take(embeddings, position)
    if sp_weights is None:
        total = _segment_sum(rows, segments, count)
        if combiner == "sum":
            return total
        sizes = np.bincount(segments, minlength=count).astype(rows.array.dtype)
        divisor = sizes if combiner == "mean" else np.sqrt(sizes)
        return divide_no_nan(total, wrap(divisor.reshape((count,) + (1,) * (rows.array.ndim - 1))))
    weights = convert_to_tensor(sp_weights.values, dtype=rows.dtype)
    column = reshape(weights, [weights.array.shape[0]] + [1] * (rows.array.ndim - 1))
    total = _segment_sum(call("Mul", rows, column, tf_op="Mul"), segments, count)
    if combiner == "sum":
        return total
    if combiner == "mean":
        divisor = _segment_sum(weights, segments, count)
    else:
        divisor = call("Sqrt", _segment_sum(call("Mul", weights, weights, tf_op="Mul"), segments, count),
                       tf_op="Sqrt")
    return divide_no_nan(total, reshape(divisor, [count] + [1] * (rows.array.ndim - 1)))


def safe_embedding_lookup_sparse(embedding_weights, sparse_ids, sparse_weights=None, combiner="mean",
                                 default_id=None, max_norm=None, name=None, allow_fast_lookup=False):
    """``embedding_lookup_sparse`` that tolerates invalid ids and empty rows.

    Ids below 0 (and, with weights, entries of weight <= 0) are dropped; a row left empty gets the
    embedding of ``default_id``, or zeros when it is None. ``sparse_ids`` may have rank > 2: the output
    is ``sparse_ids.dense_shape[:-1] + embedding dims``.
    """
    if embedding_weights is None:
        raise ValueError(f"Missing embedding_weights {embedding_weights}.")
    if isinstance(embedding_weights, (list, tuple)) and not embedding_weights:
        raise ValueError(f"Missing embedding_weights {embedding_weights}.")
    shape = dense_shape_of(sparse_ids)
    leading = shape[:-1]
    flat_shape = [int(np.prod(leading, dtype=np.int64)), shape[-1]]
    ids = sparse_reshape(sparse_ids, flat_shape)
    weights = None if sparse_weights is None else sparse_reshape(sparse_weights, flat_shape)
    keep = np.asarray(ids.values.array) >= 0
    if weights is not None:
        keep &= np.asarray(weights.values.array) > 0
    ids = retain(ids, keep)
    if weights is not None:
        weights = retain(weights, keep)
        weights, _ = fill_empty_rows(weights, 1.0)
    ids, empty_rows = fill_empty_rows(ids, 0 if default_id is None else default_id)
    result = embedding_lookup_sparse(embedding_weights, ids, weights, combiner=combiner, max_norm=max_norm)
    if default_id is None:
        kept = (~empty_rows.array).astype(result.array.dtype).reshape((-1,) + (1,) * (result.array.ndim - 1))
        result = call("Mul", result, kept, tf_op="Mul")
    return reshape(result, list(leading) + list(result.array.shape[1:]))


NAMESPACES = {"nn": ["embedding_lookup_sparse", "safe_embedding_lookup_sparse"]}
TENSOR_METHODS = {}
