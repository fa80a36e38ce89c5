"""Lookup tables: embedding, embedding_bag and one_hot.

``embedding`` and ``embedding_bag`` run the engine's Embedding / EmbeddingBag ops (index
checks, padding rows without gradient, frequency-scaled gradients, bag reductions).
``max_norm`` renormalizes the looked-up rows of the weight in place first, as torch does
(outside autograd; a graph trace refuses it).  With ``sparse=True`` the weight's gradient is
a sparse COO tensor, as torch makes it (``vfw.torch._sparse_ops``).
"""

import numpy as np

from vfw.core import autograd
from vfw.core import dtypes as dt
from vfw.frontends._warnings import warn_for_user
from vfw.frontends.torch import _sparse_ops
from vfw.frontends.torch._dispatch import bump_version, call, cast, new_tensor, op, type_name
from vfw.frontends.torch._pointwise import _op, _run, tensor_arg

__all__ = ["embedding", "embedding_bag", "one_hot"]

_INDEX_TYPES = frozenset(np.dtype(d) for d in (np.int64, np.int32))
_I64 = np.dtype(np.int64)
_MODES = ("sum", "mean", "max")


def _check_indices(indices, fn):
    d = indices.array.dtype
    if d not in _INDEX_TYPES:
        raise RuntimeError(f"Expected tensor for argument #1 'indices' to have one of the following scalar types: "
                           f"Long, Int; but got torch.{type_name(d)}Tensor instead (while checking arguments for "
                           f"{fn})")


def _renorm_rows(weight, indices, max_norm, norm_type):
    """Scale the rows of ``weight`` that ``indices`` look up and whose ``norm_type``-norm exceeds ``max_norm``
    down to ``max_norm`` (``max_norm / (norm + 1e-7)``), in place and outside autograd."""
    w = weight.array
    rows = np.unique(indices.array)
    if rows.size and (rows[0] < 0 or rows[-1] >= w.shape[0]):
        raise IndexError("index out of range in self")
    norms = np.linalg.norm(w[rows], ord=float(norm_type), axis=1).astype(np.float64)
    big = norms > max_norm
    if big.any():
        w[rows[big]] *= (max_norm / (norms[big] + 1e-7)).astype(w.dtype)[:, None]
        bump_version(weight)


def _embedding_padding(padding_idx, num_embeddings):
    """``padding_idx`` in ``[0, num_embeddings)`` (negatives count from the end), -1 for None."""
    if padding_idx is None:
        return -1
    if not -num_embeddings <= padding_idx < num_embeddings:
        raise AssertionError("Padding_idx must be within num_embeddings")
    return padding_idx % num_embeddings


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
              sparse=False):
    """Rows of ``weight`` looked up at the indices in ``input``.

    Parameters
    ----------
    input : Tensor
        int64/int32 indices in ``[0, num_embeddings)``, any shape ``(*)``.
    weight : Tensor
        ``(num_embeddings, embedding_dim)``.
    padding_idx : int, optional
        This row gets no gradient (negative: counted from the end).
    max_norm : float, optional
        Looked-up rows whose ``norm_type``-norm exceeds it are first rescaled in ``weight`` itself.
    norm_type : float
    scale_grad_by_freq : bool
        Divide each row's gradient by how often its index occurs in ``input``.
    sparse : bool
        Make ``weight``'s gradient a sparse COO tensor (one entry per looked-up index).

    Returns
    -------
    Tensor
        ``(*, embedding_dim)``.
    """
    tensor_arg(input, "embedding", "indices", 2)
    tensor_arg(weight, "embedding", "weight", 1)
    pad = _embedding_padding(padding_idx, weight.array.shape[0]) if weight.array.ndim else -1
    _check_indices(input, "embedding")
    if weight.array.ndim != 2:
        raise RuntimeError("'weight' must be 2-D")
    if max_norm is not None:
        _renorm_rows(weight, input, max_norm, norm_type)
    if sparse and _sparse_grad_wanted(weight):
        return _sparse_ops.embedding_sparse_grad(weight, input, _dense_lookup(pad), pad, scale_grad_by_freq)
    try:
        return _run(_op("Embedding", padding_idx=pad, scale_grad_by_freq=int(bool(scale_grad_by_freq))), weight,
                    input)
    except IndexError:  # the engine names the bad index; torch's index_select says only this
        raise IndexError("index out of range in self") from None


def _sparse_grad_wanted(weight):
    # A weight computed from others passes its gradient on to their (dense) gradients: the dense lookup serves
    # (torch's sparse gradient is densified there).
    return weight.requires_grad and weight.grad_node is None and autograd.is_grad_enabled()


def _dense_lookup(pad):
    return lambda weight, input: _run(_op("Embedding", padding_idx=pad, scale_grad_by_freq=0), weight, input)


def _bag_padding(padding_idx, num_embeddings):
    if padding_idx is None:
        return -1
    if not -num_embeddings <= padding_idx < num_embeddings:
        raise RuntimeError(f"padding_idx must be within the number of embeddings, {-num_embeddings} through "
                           f"{num_embeddings - 1}, but got {padding_idx}")
    return padding_idx % num_embeddings


def _bag_arguments(input, weight, offsets, per_sample_weights, mode, scale_grad_by_freq, sparse, include_last_offset):
    """torch's checks of embedding_bag's arguments; returns 1-D ``(input, offsets, per_sample_weights)``."""
    if per_sample_weights is not None and tuple(input.shape) != tuple(per_sample_weights.shape):
        raise ValueError(f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) is not None, then it "
                         f"must have the same shape as the input ({input.shape})")
    if weight.array.ndim != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension {weight.array.ndim}")
    ndim = input.array.ndim
    if ndim == 2:
        if offsets is not None:
            raise ValueError(f"if input is 2D, then offsets has to be None, as input is treated is a mini-batch of "
                             f"fixed length sequences. However, found offsets of type {type(offsets)}")
        rows, length = input.array.shape  # each row a bag (also with include_last_offset: its end is added)
        offsets = new_tensor(np.arange(rows + include_last_offset, dtype=input.array.dtype) * length)
        input = input.reshape(-1)
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
    elif ndim == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if tensor_arg(offsets, "embedding_bag", "offsets", 3).array.ndim != 1:
            raise ValueError("offsets has to be a 1D Tensor")
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {ndim}")
    if mode not in _MODES:
        raise ValueError("mode has to be one of sum, mean or max")
    if mode == "max" and scale_grad_by_freq:
        raise ValueError("max mode does not support scaling the gradient by the frequency")
    if mode == "max" and sparse:
        raise ValueError("max mode does not support sparse weights")
    return input, offsets, per_sample_weights


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2, scale_grad_by_freq=False, mode="mean",
                  sparse=False, per_sample_weights=None, include_last_offset=False, padding_idx=None):
    """Sums, means or maxima of bags of embedding rows, without materializing the bags.

    Parameters
    ----------
    input : Tensor
        int64/int32 indices: ``(B, L)`` (B bags of L entries) or 1-D with ``offsets``.
    weight : Tensor
        ``(num_embeddings, embedding_dim)``, floating.
    offsets : Tensor, optional
        1-D, for 1-D ``input``: where each bag starts (non-decreasing, ``offsets[0] == 0``).
    max_norm, norm_type, scale_grad_by_freq, sparse
        As :func:`embedding` (``max`` supports neither frequency scaling nor ``sparse``).
    mode : str
        ``'sum'``, ``'mean'`` or ``'max'``.
    per_sample_weights : Tensor, optional
        Shaped like ``input``; each entry's row is scaled by it (mode ``'sum'`` only).
    include_last_offset : bool
        ``offsets`` has one more entry: the end of the last bag.
    padding_idx : int, optional
        Entries with this index are left out (a mean divides by the others; empty bags give zeros).

    Returns
    -------
    Tensor
        ``(B, embedding_dim)``.
    """
    tensor_arg(input, "embedding_bag")
    tensor_arg(weight, "embedding_bag", "weight", 2)
    if weight.array.dtype == _I64 and input.is_floating_point():
        warn_for_user("Argument order of nn.functional.embedding_bag was changed. Usage `embedding_bag(weight, input, "
                      "...)` is deprecated, and should now be `embedding_bag(input, weight, ...)`.")
        weight, input = input, weight
    if sparse and mode != "max" and _sparse_grad_wanted(weight):
        if max_norm is not None:
            _renorm_rows(weight, input, max_norm, norm_type)
        _check_indices(input, "embedding_bag")
        pad = _bag_padding(padding_idx, weight.array.shape[0])
        try:
            return _sparse_ops.embedding_bag_sparse_grad(
                embedding_bag, _dense_lookup(-1), input, weight, pad, scale_grad_by_freq, offsets=offsets, mode=mode,
                per_sample_weights=per_sample_weights, include_last_offset=include_last_offset)
        except IndexError as e:  # torch reports an index outside the table as a RuntimeError here
            raise RuntimeError(str(e)) from None
    listed_bags = input.array.ndim == 1  # 2-D input: offsets made here, the last one the number of entries
    input, offsets, per_sample_weights = _bag_arguments(input, weight, offsets, per_sample_weights, mode,
                                                        scale_grad_by_freq, sparse, bool(include_last_offset))
    if max_norm is not None:
        _renorm_rows(weight, input, max_norm, norm_type)
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(f"embedding_bag: per_sample_weights was not None. per_sample_weights is only "
                                  f"supported for mode='sum' (got mode='{mode}'). Please open a feature request on "
                                  f"GitHub.")
    pad = _bag_padding(padding_idx, weight.array.shape[0])
    _check_indices(input, "embedding_bag")
    if offsets.array.dtype not in _INDEX_TYPES:
        raise RuntimeError(f"Expected tensor for argument #2 'offsets' to have one of the following scalar types: "
                           f"Long, Int; but got torch.{type_name(offsets.array.dtype)}Tensor instead (while checking "
                           f"arguments for embedding_bag)")
    _check_table_dtypes(weight, per_sample_weights)
    offsets = cast(offsets, input.array.dtype)  # the op takes one index dtype for both
    # torch's CPU kernels read a last offset below the number of entries their own way: with a padding
    # index, for max or for float64 weights the last bag runs to the end of the entries (the last offset is
    # only checked); else a mean divides the last bag's sum by its count up to the end.
    last_offset = include_last_offset and listed_bags and offsets.array.size > 1
    to_end = last_offset and (pad >= 0 or mode == "max" or weight.array.dtype == np.float64)
    divide = last_offset and not to_end and mode == "mean" and offsets.array[-1] < input.array.size
    if to_end:
        if offsets.array[-1] > input.array.size:
            raise RuntimeError(f"offsets[-1] can not be greater than input's length {input.array.size} but got "
                               f"offsets[-1] of {offsets.array[-1]}")
        offsets, include_last_offset = _offsets_slice(offsets, 0, -1), False
    bag = op("EmbeddingBag", mode="sum" if divide else mode, padding_idx=pad,
             include_last_offset=int(bool(include_last_offset)), scale_grad_by_freq=int(bool(scale_grad_by_freq)))
    try:
        out = call(bag, weight, input, offsets, per_sample_weights)[0]
    except IndexError as e:  # torch reports an index outside the table as a RuntimeError here
        raise RuntimeError(str(e)) from None
    if divide:  # the bags' counts, the last one up to the end of the entries
        ends = call("Concat", _offsets_slice(offsets, 1, -1), cast(call("Shape", input), offsets.array.dtype), axis=0)
        counts = call("Max", call("Sub", ends, _offsets_slice(offsets, 0, -1)), np.ones((), offsets.array.dtype))
        out = call("Div", out, call("Unsqueeze", cast(counts, out.array.dtype), np.array([1], _I64)))
    return out


def _offsets_slice(offsets, start, end):
    return call("Slice", offsets, np.array([start], _I64), np.array([end], _I64))


def _check_table_dtypes(weight, per_sample_weights):
    d = weight.array.dtype
    if d not in dt.FLOATS:
        raise RuntimeError(f"Expected tensor for argument #1 'weight' to have one of the following scalar types: "
                           f"Half, BFloat16, Float, Double; but got torch.{type_name(d)}Tensor instead (while "
                           f"checking arguments for embedding_bag)")
    if per_sample_weights is not None and per_sample_weights.array.dtype != d:
        raise RuntimeError(f"Expected tensor for argument #1 'weight' to have the same type as tensor for argument "
                           f"#1 'per_sample_weights'; but type torch.{type_name(d)}Tensor does not equal "
                           f"torch.{type_name(per_sample_weights.array.dtype)}Tensor (while checking arguments for "
                           f"embedding_bag)")


def one_hot(input, num_classes=-1):
    """int64 one-hot vectors of the class indices in ``input``: shape ``input.shape + (num_classes,)``.

    Parameters
    ----------
    input : Tensor
        int64 class indices (non-negative).
    num_classes : int
        -1: one more than the largest index.
    """
    x = tensor_arg(input, "one_hot")
    a = x.array
    if a.dtype != _I64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if num_classes == -1:
        if not a.size:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        num_classes = int(a.max()) + 1
    if a.size:
        if a.min() < 0:
            raise RuntimeError("Class values must be non-negative.")
        if a.max() >= num_classes:
            raise RuntimeError("Class values must be smaller than num_classes.")
    return _run(_op("OneHot", axis=-1), x, np.asarray(num_classes, _I64), np.array([0, 1], _I64))
