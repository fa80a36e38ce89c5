"""Embedding lookups: Embedding (rows of a table at indices) and EmbeddingBag (reduced bags of rows).

ONNX expresses a lookup as Gather; these ops exist for what Gather cannot say: indices
are checked against ``[0, num_embeddings)`` (negative ones do not wrap), a padding row
gets no gradient, gradients may be scaled by the inverse frequency of each index in the
batch (PyTorch's ``scale_grad_by_freq``), and EmbeddingBag reduces variable-length bags
(given by their start offsets) by sum, mean or max without materializing the bags.

Gradients are made of engine ops (ScatterND / ScatterElements adds, Gather, Mul), so
they are traceable and differentiable again.
"""

import numpy as np

from vfw.core import dtypes as dt
from vfw.core.autograd import register_gradient, stop_gradient
from vfw.core.errors import IndexOutOfRangeError, OpInputError
from vfw.core.ops._common import array_of, execute, int64s, require
from vfw.core.ops.indexing import _filled, _scatter_add_along
from vfw.core.registry import Attr, TensorInfo, defop

_INT64 = np.dtype(np.int64)
_MODES = ("sum", "mean", "max")


def _check_table(op_type, weight):
    require(op_type, weight.ndim == 2, f"weight must be 2-D (num_embeddings, embedding_dim), got shape "
                                       f"{list(weight.shape)}")


def _check_range(op_type, indices, size):
    """Every index lies in ``[0, size)`` (no wrapping of negative indices)."""
    if indices.size and (indices.min() < 0 or indices.max() >= size):
        bad = indices[(indices < 0) | (indices >= size)].flat[0]
        raise IndexOutOfRangeError(f"{op_type}: index out of range in self (index {bad} is not in [0, {size}))")


# -- Embedding ---------------------------------------------------------------------
def _embedding_infer(attrs, infos):
    weight, indices = infos
    if weight.shape is None or indices.shape is None:
        return [TensorInfo(None, weight.dtype)]
    return [TensorInfo(tuple(indices.shape) + tuple(weight.shape[1:]), weight.dtype)]


@defop("Embedding", inputs="weight:T indices:Tind", outputs="output:T", types={"T": dt.ALL, "Tind": dt.INDEX},
       attrs={"padding_idx": Attr("int", -1), "scale_grad_by_freq": Attr("int", 0)}, infer=_embedding_infer)
def embedding(padding_idx, scale_grad_by_freq):
    """Rows of ``weight`` (num_embeddings, dim) at ``indices``: output shape ``indices.shape + (dim,)``.

    Indices must lie in ``[0, num_embeddings)``.  Only the gradient depends on the attributes:
    the row ``padding_idx`` (when >= 0) gets none, and with ``scale_grad_by_freq`` each looked-up
    row's gradient is divided by how often its index occurs in ``indices``.
    """

    def kernel(weight, indices, out=None):
        _check_table("Embedding", weight)
        _check_range("Embedding", indices, weight.shape[0])
        return np.take(weight, indices, axis=0, out=out)

    return kernel


def _row_factor(indices, num_rows, dtype, padding_idx, scale_grad_by_freq):
    """Per looked-up row: 0 at the padding index, else 1 (divided by its count with scale_grad_by_freq)."""
    factor = None
    if padding_idx >= 0:
        factor = execute("Cast", execute("Not", execute("Equal", indices, np.asarray(padding_idx, indices.dtype))),
                         to=dtype)
    if scale_grad_by_freq:
        n = indices.shape[0]
        counts = execute("ScatterElements", _filled((num_rows,), 0, dtype), indices, _filled((n,), 1, dtype),
                         axis=0, reduction="add")
        freq = execute("Gather", counts, indices, axis=0)
        factor = execute("Reciprocal", freq) if factor is None else execute("Div", factor, freq)
    return factor


@register_gradient("Embedding")
def _embedding_grad(node, g):
    weight, indices = node.inputs
    if not node.needs_input_grad[0]:
        return None, None
    shape = weight.array.shape
    n = array_of(indices).size
    flat = execute("Reshape", stop_gradient(indices), int64s((n,)))
    rows = execute("Reshape", g, int64s((n, shape[1])))
    factor = _row_factor(flat, shape[0], g.array.dtype, node.attrs["padding_idx"], node.attrs["scale_grad_by_freq"])
    if factor is not None:
        rows = execute("Mul", rows, execute("Unsqueeze", factor, int64s((1,))))
    return _scatter_add_along(shape, flat, rows, 0), None


# -- EmbeddingBag ------------------------------------------------------------------
def _bag_infer(attrs, infos):
    weight, indices, offsets = infos[:3]
    n = None if indices.shape is None else indices.shape[0]
    bags = None if offsets.shape is None or offsets.shape[0] is None else \
        max(offsets.shape[0] - attrs["include_last_offset"], 0)
    dim = None if weight.shape is None else weight.shape[1]
    return [TensorInfo((bags, dim), weight.dtype), TensorInfo((n,), dt.int64), TensorInfo((n,), weight.dtype),
            TensorInfo((bags, dim), dt.int64)]


def _bags(indices, offsets, include_last_offset):
    """``(starts, ends, bag)``: each bag's entry range and each entry's bag (-1: in no bag)."""
    n = indices.shape[0]
    offsets = offsets.astype(_INT64, copy=False)
    if offsets.size:
        if offsets[0] != 0:
            raise OpInputError(f"EmbeddingBag: offsets[0] has to be 0, i.e., the first sequence in the mini-batch has "
                               f"to start from position 0. However, got {offsets[0]}")
        if offsets[-1] > n:
            raise OpInputError(f"EmbeddingBag: offsets[-1] can not be greater than input's length {n} but got "
                               f"offsets[-1] of {offsets[-1]}")
        if (np.diff(offsets) < 0).any():
            raise OpInputError(f"EmbeddingBag: offsets must be non-decreasing, got {offsets.tolist()}")
    if include_last_offset:
        starts, ends = offsets[:-1], offsets[1:]
    else:
        starts, ends = offsets, np.append(offsets[1:], n)
    bag = np.full(n, -1, _INT64)
    if starts.size:
        last = ends[-1]
        bag[:last] = np.repeat(np.arange(starts.size, dtype=_INT64), ends - starts)
    return starts, ends, bag


def _segment(ufunc, values, starts, ends, fill):
    """``ufunc`` reduced over ``values[starts[b]:ends[b]]`` for each bag b (``fill`` for empty bags)."""
    out = np.full((starts.size,) + values.shape[1:], fill, values.dtype)
    lengths = ends - starts
    full = lengths > 0
    if starts.size and full.all() and (lengths == lengths[0]).all():  # equal bags back to back (2-D input)
        out[...] = ufunc.reduce(values[:ends[-1]].reshape((starts.size, lengths[0]) + values.shape[1:]), axis=1)
    elif full.any():
        # reduceat runs each start to the next one: the entries after the last bag are cut off first.  Along
        # the last axis of a contiguous array it is several times faster than along the first.
        rows = np.ascontiguousarray(np.moveaxis(values[:ends[full][-1]], 0, -1))
        out[full] = np.moveaxis(ufunc.reduceat(rows, starts[full], axis=-1), -1, 0)
    return out


@defop("EmbeddingBag", inputs="weight:T indices:Tind offsets:Tind per_sample_weights?:T",
       outputs="output:T offset2bag:int64 entry_scale:T max_indices:int64",
       types={"T": dt.FLOATS, "Tind": dt.INDEX},
       attrs={"mode": Attr("string", "mean", choices=_MODES), "padding_idx": Attr("int", -1),
              "include_last_offset": Attr("int", 0), "scale_grad_by_freq": Attr("int", 0)}, infer=_bag_infer)
def embedding_bag(mode, padding_idx, include_last_offset, scale_grad_by_freq):
    """Bags of rows of ``weight`` reduced by ``mode``: output ``(bags, dim)``.

    Bag ``b`` holds the entries ``indices[offsets[b]:offsets[b + 1]]`` (the last one runs to the
    end; with ``include_last_offset`` the last offset is the end of the last bag and later entries
    belong to no bag).  Entries equal to ``padding_idx`` (when >= 0) are left out (a mean divides
    by the other entries); empty bags give zeros.  ``per_sample_weights`` (one per entry, mode
    ``sum`` only) scale the rows before summing.  With ``scale_grad_by_freq`` (sum and mean) the
    gradient of each entry's row is divided by how often its index occurs in ``indices``.

    Outputs for the gradient: ``offset2bag`` (each entry's bag, 0 for entries in no bag),
    ``entry_scale`` (each entry's factor in the sum without ``per_sample_weights``: 0 for left-out
    entries, ``1 / count`` for a mean) and ``max_indices`` (mode ``max``: the row each maximum came
    from, -1 for empty bags; zeros otherwise).
    """

    def kernel(weight, indices, offsets, per_sample_weights=None, out=None):
        _check_table("EmbeddingBag", weight)
        require("EmbeddingBag", indices.ndim == 1 and offsets.ndim == 1,
                f"indices and offsets must be 1-D, got shapes {list(indices.shape)} and {list(offsets.shape)}")
        _check_range("EmbeddingBag", indices, weight.shape[0])
        if per_sample_weights is not None:
            require("EmbeddingBag", mode == "sum", f"per_sample_weights are only supported for mode 'sum', got "
                                                   f"'{mode}'", OpInputError)
            require("EmbeddingBag", per_sample_weights.shape == indices.shape,
                    f"per_sample_weights {list(per_sample_weights.shape)} must have the shape of indices "
                    f"{list(indices.shape)}")
        starts, ends, bag = _bags(indices, offsets, include_last_offset)
        keep = bag >= 0
        if padding_idx >= 0:
            keep &= indices != padding_idx
        rows = weight[indices]
        counts = _segment(np.add, keep.astype(_INT64), starts, ends, 0)  # entries in each bag, padding left out
        if mode == "max":
            rows[~keep] = -np.inf
            output = _segment(np.maximum, rows, starts, ends, -np.inf)
            empty = (counts == 0)[:, None]
            # The first entry of each bag holding the maximum (torch's choice among ties).
            hit = np.zeros(rows.shape, np.bool_)
            hit[keep] = rows[keep] == output[bag[keep]]
            position = np.where(hit, np.arange(indices.size)[:, None], indices.size)
            first = _segment(np.minimum, position, starts, ends, indices.size)
            max_indices = np.where(empty, -1, np.append(indices, -1)[first])
            output[np.broadcast_to(empty, output.shape)] = 0
            return output, np.maximum(bag, 0), np.zeros(indices.shape, weight.dtype), max_indices
        scale = keep.astype(weight.dtype)
        if per_sample_weights is not None or not keep.all():
            rows *= (scale if per_sample_weights is None else scale * per_sample_weights)[:, None]
        output = _segment(np.add, rows, starts, ends, 0)
        if mode == "mean":
            divisor = np.maximum(counts, 1).astype(weight.dtype)
            output /= divisor[:, None]
            scale[keep] /= divisor[bag[keep]]
        return output, np.maximum(bag, 0), scale, np.zeros((starts.size, weight.shape[1]), _INT64)

    return kernel


@register_gradient("EmbeddingBag")
def _embedding_bag_grad(node, g, *_):
    weight, indices, offsets = node.inputs[:3]
    sample_weights = node.inputs[3] if len(node.inputs) > 3 else None
    need_weight = node.needs_input_grad[0]
    need_samples = len(node.inputs) > 3 and node.needs_input_grad[3]
    if g is None or not (need_weight or need_samples):
        return None, None, None, None
    shape = weight.array.shape
    if not g.array.shape[0]:  # no bags: nothing reaches the table or the sample weights
        return (_filled(shape, 0, g.array.dtype) if need_weight else None, None, None,
                _filled(sample_weights.array.shape, 0, g.array.dtype) if need_samples else None)
    if node.attrs["mode"] == "max":
        # Each maximum's gradient goes to the row it came from; empty bags (index -1) send none.
        argmax = stop_gradient(node.output(3))
        found = execute("GreaterOrEqual", argmax, np.zeros((), _INT64))
        g = execute("Mul", g, execute("Cast", found, to=g.array.dtype))
        rows = execute("Max", argmax, np.zeros((), _INT64))
        zeros = _filled(shape, 0, g.array.dtype)
        return execute("ScatterElements", zeros, rows, g, axis=0, reduction="add"), None, None, None
    bag, scale = stop_gradient(node.output(1)), stop_gradient(node.output(2))
    entry_grads = execute("Gather", g, bag, axis=0)  # (entries, dim): each entry's bag gradient
    gw = gs = None
    if need_weight:
        factor = scale if sample_weights is None else execute("Mul", scale, sample_weights)
        if node.attrs["scale_grad_by_freq"]:
            factor = execute("Mul", factor, _row_factor(stop_gradient(indices), shape[0], g.array.dtype, -1, True))
        rows = execute("Mul", entry_grads, execute("Unsqueeze", factor, int64s((1,))))
        gw = _scatter_add_along(shape, stop_gradient(indices), rows, 0)
    if need_samples:
        looked_up = execute("Gather", weight, stop_gradient(indices), axis=0)
        dots = execute("ReduceSum", execute("Mul", entry_grads, looked_up), int64s((1,)), keepdims=0)
        gs = execute("Mul", dots, scale)
    return gw, None, None, gs
