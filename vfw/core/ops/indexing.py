"""Gather/scatter and indexing ops: Gather, GatherElements, GatherND, ScatterElements, ScatterND,
NonZero, Unique, OneHot, Compress.

Index inputs may be negative (counted from the end of the axis, as in ONNX).
Kernels index with numpy advanced indexing, which accepts exactly the ONNX
range ``[-s, s-1]``; when numpy rejects an index, the kernel rebuilds the error
as an :class:`IndexOutOfRangeError` naming the op, the axis, the valid range
and the data shape.  Where ONNX leaves the result undefined (duplicate indices
in a scatter with ``reduction='none'``) the last update in row-major order of
``indices`` wins, which is what numpy assignment does.
"""

import math

import numpy as np

from vfw.core import dtypes as dt
from vfw.core.autograd import not_differentiable, register_gradient
from vfw.core.errors import DTypeError, IndexOutOfRangeError, OpInputError, ShapeError
from vfw.core.ops._common import array_of, execute, int64s, normalize_axis, require, reshape_to
from vfw.core.ops._scatter_layers import LAYERS_FROM, reduce_by_layers
from vfw.core.ops._varying_shapes import follows_runs, moved_elements_grad
from vfw.core.registry import Attr, TensorInfo, defop

_ANY = dt.FIXED_SIZE | {dt.string}  # pure data-movement ops also move strings (object arrays) and complex values
_INT64 = np.dtype(np.int64)
_REDUCE = {"add": np.add, "mul": np.multiply, "max": np.maximum, "min": np.minimum}
_REDUCTIONS = ("none",) + tuple(_REDUCE)


# -- helpers ---------------------------------------------------------------------
def _oob_error(op, values, size, axis, shape, what="indices"):
    """The IndexOutOfRangeError for ``values`` indexing an axis of ``size``, or None if all are valid."""
    values = np.asarray(values)
    bad = values[(values < -size) | (values >= size)]
    if bad.size == 0:
        return None
    if size == 0:
        return IndexOutOfRangeError(
            f"{op}: cannot index axis {axis} of data with shape {tuple(shape)}: the axis is empty "
            f"({what} has {bad.size} entries)"
        )
    return IndexOutOfRangeError(
        f"{op}: {what} value {bad.flat[0]} is out of range [{-size}, {size - 1}] for axis {axis} of data "
        f"with shape {tuple(shape)} ({bad.size} of {values.size} {what} values are out of range)"
    )


def _tuple_oob_error(op, indices, shape, first_axis=0):
    """Out-of-range error for the index tuples in the last dim of ``indices`` (GatherND, ScatterND)."""
    for j in range(indices.shape[-1]):
        axis = first_axis + j
        err = _oob_error(op, indices[..., j], shape[axis], axis, shape, what=f"indices[..., {j}]")
        if err is not None:
            return err
    return None


def _axis(op, axis, ndim):
    """``axis`` in ``[0, ndim)`` for data of rank ``ndim`` >= 1, else a ShapeError."""
    ax = axis + ndim if axis < 0 else axis
    if 0 <= ax < ndim:
        return ax
    require(op, ndim >= 1, f"axis={axis} needs an input of rank >= 1, got a scalar")
    return normalize_axis(op, axis, ndim)  # raises


def _elementwise_index(indices, axis):
    """Advanced-index tuple addressing ``data[i0, .., indices[i], .., i_{r-1}]`` for every position i of indices."""
    ndim = indices.ndim
    index = []
    for d, n in enumerate(indices.shape):
        if d == axis:
            index.append(indices)
        else:
            index.append(np.arange(n).reshape((1,) * d + (n,) + (1,) * (ndim - d - 1)))
    return tuple(index)


def _check_elementwise_shapes(op, data, indices, axis, updates=None):
    # messages are only formatted on failure: this runs on every call
    ishape, dshape = indices.shape, data.shape
    if len(ishape) != len(dshape):
        raise ShapeError(f"{op}: indices must have the rank of data: data {dshape}, indices {ishape}")
    if updates is not None and updates.shape != ishape:
        raise ShapeError(f"{op}: updates must have the shape of indices: indices {ishape}, updates {updates.shape}")
    if ishape != dshape:
        for d in range(len(dshape)):
            if d != axis and ishape[d] > dshape[d]:
                raise ShapeError(f"{op}: indices dim {d} ({ishape[d]}) exceeds data dim {d} ({dshape[d]}) "
                                 f"(only axis {axis} may differ): data {dshape}, indices {ishape}")


def _array(result, dtype):
    """``result`` as an ndarray (indexing down to one element gives a numpy scalar)."""
    return result if type(result) is np.ndarray else np.array(result, dtype=dtype)


def _known(info):
    return info is not None and info.shape is not None


# -- gradient helpers: engine ops only, so create_graph records them and tracers see them --
def _filled(shape, value, dtype):
    """A tensor of ``shape`` filled with ``value`` (ConstantOfShape)."""
    return execute("ConstantOfShape", int64s(shape), value=np.full(1, value, dtype))


def _as_float(condition, dtype):
    return execute("Cast", condition, to=dtype)


def _scatter_add_along(shape, positions, g, ax):
    """Zeros of ``shape`` with the slices of ``g`` (``shape`` with ``ax`` of length m) added along ``ax`` at
    ``positions`` (m indices; repeated positions accumulate)."""
    m = positions.array.shape[0]
    slab = shape[:ax] + (m,) + shape[ax + 1:]
    g = reshape_to(g, slab)
    # a broadcast view of one zero: the scatter's own copy is the only pass over the whole result
    zeros = execute("Expand", np.zeros((), g.array.dtype), int64s(shape))
    if ax == 0:  # whole slices: ScatterND adds them without materializing per-element indices
        if positions.array.dtype != _INT64:
            positions = execute("Cast", positions, to=_INT64)
        return execute("ScatterND", zeros, reshape_to(positions, (m, 1)), g, reduction="add")
    index = execute("Expand", reshape_to(positions, (1,) * ax + (m,) + (1,) * (len(shape) - ax - 1)), int64s(slab))
    return execute("ScatterElements", zeros, index, g, axis=ax, reduction="add")


# -- Gather ----------------------------------------------------------------------
def _gather_infer(attrs, infos):
    data, indices = infos
    if not (_known(data) and _known(indices)):
        return [TensorInfo(None, data.dtype)]
    ax = normalize_axis("Gather", attrs["axis"], len(data.shape))
    return [TensorInfo(data.shape[:ax] + indices.shape + data.shape[ax + 1:], data.dtype)]


@defop("Gather", inputs="data:T indices:Tind", outputs="output:T", types={"T": _ANY, "Tind": dt.INDEX},
       attrs={"axis": Attr("int", 0)}, infer=_gather_infer)
def gather(axis):
    """Gather slices of ``data`` along ``axis`` at ``indices`` (output rank q + r - 1)."""

    def kernel(data, indices, out=None):
        ax = _axis("Gather", axis, data.ndim)
        try:
            return _array(np.take(data, indices, axis=ax, out=out), data.dtype)
        except IndexError:
            err = _oob_error("Gather", indices, data.shape[ax], ax, data.shape)
            if err is None:
                raise
            raise err from None

    return kernel


@register_gradient("Gather")
def _gather_grad(node, g):
    data, indices = node.inputs
    if not node.needs_input_grad[0]:
        return None, None
    if follows_runs(node):  # (a traced graph whose shapes vary from run to run)
        return moved_elements_grad(data, g, lambda t: execute("Gather", t, indices, axis=node.attrs["axis"])), None
    shape = data.array.shape
    ax = normalize_axis("Gather", node.attrs["axis"], len(shape))
    positions = reshape_to(indices, (math.prod(array_of(indices).shape),))
    return _scatter_add_along(shape, positions, g, ax), None


# -- GatherElements --------------------------------------------------------------
def _elements_infer(attrs, infos):
    return [TensorInfo(infos[1].shape, infos[0].dtype)]


@defop("GatherElements", inputs="data:T indices:Tind", outputs="output:T", types={"T": _ANY, "Tind": dt.INDEX},
       attrs={"axis": Attr("int", 0)}, infer=_elements_infer)
def gather_elements(axis):
    """``output[i][j][k] = data[indices[i][j][k]][j][k]`` (for axis 0); output is shaped like ``indices``.

    Dims of ``indices`` other than ``axis`` may be smaller than those of ``data`` (as in
    onnxruntime and ``torch.gather``); the ONNX reference requires them equal.
    """

    def kernel(data, indices, out=None):
        ax = _axis("GatherElements", axis, data.ndim)
        _check_elementwise_shapes("GatherElements", data, indices, ax)
        try:
            return data[_elementwise_index(indices, ax)]
        except IndexError:
            err = _oob_error("GatherElements", indices, data.shape[ax], ax, data.shape)
            if err is None:
                raise
            raise err from None

    return kernel


@register_gradient("GatherElements")
def _gather_elements_grad(node, g):
    data, indices = node.inputs
    if not node.needs_input_grad[0]:
        return None, None
    return execute("ScatterElements", _filled(data.array.shape, 0, g.array.dtype), indices, g,
                   axis=node.attrs["axis"], reduction="add"), None


# -- GatherND --------------------------------------------------------------------
def _nd_check(op, data, indices, b):
    """``indices.shape[-1]`` after checking the GatherND/ScatterND shape rules (messages built on failure only)."""
    dshape, ishape = data.shape, indices.shape
    r, q = len(dshape), len(ishape)
    if r < 1 or q < 1:
        raise ShapeError(f"{op}: data and indices must have rank >= 1: data {dshape}, indices {ishape}")
    if b >= min(q, r):
        raise ShapeError(f"{op}: batch_dims={b} must be less than the ranks of data ({r}) and indices ({q})")
    if b and dshape[:b] != ishape[:b]:
        raise ShapeError(f"{op}: the first batch_dims={b} dims of data and indices must match: "
                         f"data {dshape}, indices {ishape}")
    k = ishape[-1]
    if not 1 <= k <= r - b:
        raise ShapeError(f"{op}: indices.shape[-1]={k} must be in [1, {r - b}] (rank of data minus batch_dims): "
                         f"data {dshape}, indices {ishape}")
    return k


def _batch_grids(batch, rank):
    """Aranges over the leading batch dims, shaped to broadcast against arrays of ``rank``."""
    return tuple(np.arange(n).reshape((1,) * i + (n,) + (1,) * (rank - i - 1)) for i, n in enumerate(batch))


def _gather_nd_infer(attrs, infos):
    data, indices = infos
    b = attrs["batch_dims"]
    if not (_known(data) and _known(indices)) or indices.shape[-1] is None:
        return [TensorInfo(None, data.dtype)]
    k = indices.shape[-1]
    batch = tuple(d if d is not None else i for d, i in zip(data.shape[:b], indices.shape[:b]))
    return [TensorInfo(batch + indices.shape[b:-1] + data.shape[b + k:], data.dtype)]


@defop("GatherND", inputs="data:T indices:int64", outputs="output:T", types={"T": _ANY},
       attrs={"batch_dims": Attr("int", 0, check=lambda v: None if v >= 0 else "must be >= 0")},
       infer=_gather_nd_infer)
def gather_nd(batch_dims):
    """Gather slices of ``data`` addressed by the index tuples in the last dim of ``indices``."""
    b = batch_dims

    def kernel(data, indices, out=None):
        k = _nd_check("GatherND", data, indices, b)
        index = tuple(indices[..., j] for j in range(k))
        if b:
            index = _batch_grids(data.shape[:b], indices.ndim - 1) + index
        try:
            return _array(data[index], data.dtype)
        except IndexError:
            err = _tuple_oob_error("GatherND", indices, data.shape, b)
            if err is None:
                raise
            raise err from None

    return kernel


@register_gradient("GatherND")
def _gather_nd_grad(node, g):
    data, indices = node.inputs
    if not node.needs_input_grad[0]:
        return None, None
    b = node.attrs["batch_dims"]
    if b:  # ScatterND has no batch_dims: prefix each index tuple with its batch coordinates
        ishape = array_of(indices).shape
        lead = ishape[:-1]
        grids = [np.broadcast_to(a, lead) for a in _batch_grids(ishape[:b], len(lead))]
        indices = execute("Concat", np.stack(grids, axis=-1).astype(_INT64), indices, axis=-1)
    return execute("ScatterND", _filled(data.array.shape, 0, g.array.dtype), indices, g, reduction="add"), None


# -- ScatterElements / ScatterND ---------------------------------------------------
def _like_data(attrs, infos):
    return [TensorInfo(infos[0].shape, infos[0].dtype)]


def _scatter(out, index, updates, reduce, oob):
    """Apply ``updates`` at ``index`` into ``out`` (a copy of data) in place."""
    try:
        if reduce is None:
            out[index] = updates
        elif updates.size < LAYERS_FROM:
            reduce.at(out, index, updates)
        else:
            reduce_by_layers(reduce, out, index, updates)
    except IndexError:
        err = oob()
        if err is None:
            raise
        raise err from None
    return out


def _complex_reduction_check(op_type, reduction):
    """``check(dtype)``: complex data take reductions ``none`` and ``add`` only (the others order values)."""
    complex_ok = reduction in ("none", "add")

    def check(dtype):
        if not complex_ok and dtype.kind == "c":
            raise DTypeError(f"{op_type}: reduction={reduction!r} is not defined for {dtype} data")

    return check


@defop("ScatterElements", inputs="data:T indices:Tind updates:T", outputs="output:T",
       types={"T": dt.FIXED_SIZE, "Tind": dt.INDEX},
       attrs={"axis": Attr("int", 0), "reduction": Attr("string", "none", choices=_REDUCTIONS)},
       infer=_like_data)
def scatter_elements(axis, reduction):
    """Copy of ``data`` with ``updates`` written (or reduced) at ``indices`` along ``axis``.

    Dims of ``indices`` other than ``axis`` may be smaller than those of ``data`` (as in
    onnxruntime and ``torch.scatter``).  Duplicate indices with ``reduction='none'``: the last
    update wins.  Complex values (gradients of complex gathers) take ``none`` and ``add`` only.
    """
    reduce = _REDUCE.get(reduction)
    check_dtype = _complex_reduction_check("ScatterElements", reduction)

    def kernel(data, indices, updates, out=None):
        check_dtype(data.dtype)
        ax = _axis("ScatterElements", axis, data.ndim)
        _check_elementwise_shapes("ScatterElements", data, indices, ax, updates)
        return _scatter(data.copy(), _elementwise_index(indices, ax), updates, reduce,
                        lambda: _oob_error("ScatterElements", indices, data.shape[ax], ax, data.shape))

    return kernel


@defop("ScatterND", inputs="data:T indices:int64 updates:T", outputs="output:T", types={"T": dt.FIXED_SIZE},
       attrs={"reduction": Attr("string", "none", choices=_REDUCTIONS)}, infer=_like_data)
def scatter_nd(reduction):
    """Copy of ``data`` with slices addressed by the index tuples of ``indices`` replaced by (or reduced with)
    ``updates``.  Duplicate index tuples with ``reduction='none'``: the last update wins.  Complex values
    (torch's writes into complex tensors) take ``none`` and ``add`` only."""
    reduce = _REDUCE.get(reduction)
    check_dtype = _complex_reduction_check("ScatterND", reduction)

    def kernel(data, indices, updates, out=None):
        check_dtype(data.dtype)
        k = _nd_check("ScatterND", data, indices, 0)
        expected = indices.shape[:-1] + data.shape[k:]
        if updates.shape != expected:
            raise ShapeError(f"ScatterND: updates must have shape indices.shape[:-1] + data.shape[{k}:] = {expected}: "
                             f"data {data.shape}, indices {indices.shape}, updates {updates.shape}")
        index = tuple(indices[..., j] for j in range(k))
        return _scatter(data.copy(), index, updates, reduce,
                        lambda: _tuple_oob_error("ScatterND", indices, data.shape))

    return kernel


def _scatter_grads(node, g, scatter, gather):
    """Gradients of ScatterElements/ScatterND for data and updates.

    ``scatter(x, u, reduction)`` scatters ``u`` into ``x`` at the node's indices and ``gather(x)`` picks
    the entry of ``x`` that each update lands on.  As in torch's ``scatter_reduce``: ``none`` gives the
    data the gradient where no update landed and each winning (last) update its position's gradient;
    ``mul`` handles zero updates without dividing by them; ``max``/``min`` share a position's gradient
    evenly among the data entry and updates equal to the result.
    """
    data, _, updates = node.inputs
    need_data, _, need_updates = node.needs_input_grad
    reduction = node.attrs["reduction"]
    dtype = g.array.dtype
    dshape, ushape = array_of(data).shape, array_of(updates).shape
    gd = gu = None
    if reduction == "add":
        gd = g if need_data else None
        gu = gather(g) if need_updates else None
    elif reduction == "none":
        if need_data:
            gd = scatter(g, _filled(ushape, 0, dtype), "none")
        if need_updates:  # duplicates: the update whose id survives the scatter is the one that was written
            ids = np.arange(math.prod(ushape), dtype=_INT64).reshape(ushape)
            winner = gather(scatter(_filled(dshape, -1, _INT64), ids, "none"))
            gu = execute("Mul", gather(g), _as_float(execute("Equal", winner, ids), dtype))
    elif reduction == "mul":
        if need_data:
            gd = execute("Mul", g, scatter(_filled(dshape, 1, dtype), updates, "mul"))
        if need_updates:
            # d out / d u_i = data * prod_{j != i} u_j: divide by u_i only where it is non-zero and no other
            # update of its position is zero; a zero u_i gets the product of the others if it is the only zero.
            is_zero = execute("Equal", updates, np.zeros((), dtype))
            safe = execute("Add", updates, _as_float(is_zero, dtype))
            rest = scatter(data, safe, "mul")
            n_zero = gather(scatter(_filled(dshape, 0, _INT64), execute("Cast", is_zero, to=_INT64), "add"))
            divide = execute("And", execute("Not", is_zero), execute("Equal", n_zero, np.zeros((), _INT64)))
            keep = execute("And", is_zero, execute("Equal", n_zero, np.ones((), _INT64)))
            coef = execute("Add", execute("Div", _as_float(divide, dtype), safe), _as_float(keep, dtype))
            gu = execute("Mul", gather(execute("Mul", g, rest)), coef)
    else:  # max, min
        out = node.output(0)
        hit_data = _as_float(execute("Equal", data, out), dtype)
        hit_updates = _as_float(execute("Equal", updates, gather(out)), dtype)
        share = execute("Div", g, execute("Add", hit_data, scatter(_filled(dshape, 0, dtype), hit_updates, "add")))
        gd = execute("Mul", share, hit_data) if need_data else None
        gu = execute("Mul", gather(share), hit_updates) if need_updates else None
    return gd, None, gu


@register_gradient("ScatterElements")
def _scatter_elements_grad(node, g):
    indices, axis = node.inputs[1], node.attrs["axis"]

    def scatter(x, u, reduction):
        return execute("ScatterElements", x, indices, u, axis=axis, reduction=reduction)

    def gather(x):
        return execute("GatherElements", x, indices, axis=axis)

    return _scatter_grads(node, g, scatter, gather)


@register_gradient("ScatterND")
def _scatter_nd_grad(node, g):
    indices = node.inputs[1]

    def scatter(x, u, reduction):
        return execute("ScatterND", x, indices, u, reduction=reduction)

    def gather(x):
        return execute("GatherND", x, indices)

    return _scatter_grads(node, g, scatter, gather)


# -- NonZero ---------------------------------------------------------------------
def _nonzero_infer(attrs, infos):
    x = infos[0]
    if x.shape is None:
        return [TensorInfo(None, _INT64)]
    return [TensorInfo((len(x.shape), None), _INT64)]


@defop("NonZero", inputs="X:T", outputs="Y:int64", types={"T": dt.ALL}, infer=_nonzero_infer)
def nonzero():
    """Indices of the non-zero elements, int64 of shape [rank, n] (row-major order).

    A scalar gives shape [0, n] with n = 1 if it is non-zero, else 0 (as ONNX specifies).
    """

    def kernel(x, out=None):
        if x.ndim == 0:
            return np.zeros((0, int(bool(x))), _INT64)
        return np.array(np.nonzero(x), dtype=_INT64)

    return kernel


# -- Unique ----------------------------------------------------------------------
def _unique_infer(attrs, infos):
    x = infos[0]
    axis = attrs["axis"]
    vec = TensorInfo((None,), _INT64)
    if x.shape is None:
        return [TensorInfo(None if axis is not None else (None,), x.dtype), vec, vec, vec]
    if axis is None:
        n = None if None in x.shape else int(np.prod(x.shape, dtype=np.int64))
        y = (None,)
    else:
        ax = normalize_axis("Unique", axis, len(x.shape))
        n = x.shape[ax]
        y = x.shape[:ax] + (None,) + x.shape[ax + 1:]
    return [TensorInfo(y, x.dtype), vec, TensorInfo((n,), _INT64), vec]


@defop("Unique", inputs="X:T", outputs="Y:T indices?:int64 inverse_indices?:int64 counts?:int64",
       types={"T": dt.ALL}, attrs={"axis": Attr("int", None), "sorted": Attr("int", 1, choices=(0, 1))},
       infer=_unique_infer)
def unique(axis, sorted):
    """Unique elements (or slices along ``axis``): Y, first-occurrence indices, inverse indices, counts.

    ``sorted=1`` orders Y ascending (slices lexicographically); ``sorted=0`` in order of first
    occurrence.  NaNs compare equal to each other (as numpy.unique does).
    """

    def kernel(x, out=None):
        if axis is None:
            ax = None
            x = x.reshape(-1)
        else:
            ax = _axis("Unique", axis, x.ndim)
        if x.shape[ax or 0] == 0:
            empty = np.zeros(0, _INT64)
            return x.copy(), empty, empty.copy(), empty.copy()
        y, first, inverse, counts = np.unique(x, return_index=True, return_inverse=True, return_counts=True,
                                              axis=ax)
        first = first.astype(_INT64, copy=False)
        inverse = inverse.reshape(-1).astype(_INT64, copy=False)
        counts = counts.astype(_INT64, copy=False)
        if not sorted:
            order = np.argsort(first, kind="stable")
            rank = np.empty_like(order)
            rank[order] = np.arange(order.size)
            y = np.take(y, order, axis=ax or 0)
            first, counts, inverse = first[order], counts[order], rank[inverse].astype(_INT64, copy=False)
        return y, first, inverse, counts

    return kernel


# -- OneHot ----------------------------------------------------------------------
_ONEHOT_IDX = dt.INTS | {dt.float16, dt.float32, dt.float64}


def _onehot_depth(op, depth):
    if depth.size != 1:
        raise ShapeError(f"{op}: depth must hold exactly one value, got shape {depth.shape}")
    value = depth.reshape(-1)[0].item()
    if not (math.isfinite(value) and value >= 0):
        raise OpInputError(f"{op}: depth must be a non-negative number, got {value}")
    return int(value)


def _onehot_infer(attrs, infos):
    indices, depth, values = infos
    if not _known(indices):
        return [TensorInfo(None, values.dtype)]
    ax = normalize_axis("OneHot", attrs["axis"], len(indices.shape) + 1)
    n = None if depth.value is None else _onehot_depth("OneHot", np.asarray(depth.value))
    return [TensorInfo(indices.shape[:ax] + (n,) + indices.shape[ax:], values.dtype)]


@defop("OneHot", inputs="indices:T1 depth:T2 values:T3", outputs="output:T3",
       types={"T1": _ONEHOT_IDX, "T2": _ONEHOT_IDX, "T3": dt.ALL}, attrs={"axis": Attr("int", -1)},
       infer=_onehot_infer, value_inputs=("depth",))
def one_hot(axis):
    """One-hot encoding of ``indices`` along a new axis of size ``depth``; ``values`` = [off_value, on_value].

    Negative indices count from ``depth``; indices outside ``[-depth, depth-1]`` give an all-off row.
    Float indices are truncated toward zero.
    """

    cache = {}  # (depth, trailing rank) -> positions along the one-hot axis, shaped to broadcast

    def kernel(indices, depth, values, out=None):
        n = _onehot_depth("OneHot", depth)
        if values.size != 2:
            raise ShapeError(f"OneHot: values must hold [off_value, on_value], got shape {values.shape}")
        rank = indices.ndim
        ax = axis + rank + 1 if axis < 0 else axis
        if not 0 <= ax <= rank:
            normalize_axis("OneHot", axis, rank + 1)  # raises
        idx = indices
        if idx.dtype.kind != "u":
            idx = idx.astype(_INT64, copy=False)
            idx = np.where(idx < 0, idx + n, idx)
        key = (n, rank - ax)
        positions = cache.get(key)
        if positions is None:
            if len(cache) > 32:
                cache.clear()
            positions = cache[key] = np.arange(n).reshape((n,) + (1,) * (rank - ax))
        hot = idx.reshape(idx.shape[:ax] + (1,) + idx.shape[ax:]) == positions
        values = values.reshape(-1)
        return np.where(hot, values[1:], values[:1])

    return kernel


# -- Compress --------------------------------------------------------------------
def _compress_count(condition, n):
    return int(np.count_nonzero(np.asarray(condition).reshape(-1)[:n])) if n is not None else None


def _compress_infer(attrs, infos):
    data, cond = infos
    axis = attrs["axis"]
    if not _known(data):
        return [TensorInfo(None if axis is not None else (None,), data.dtype)]
    if axis is None:
        size = None if None in data.shape else int(np.prod(data.shape, dtype=np.int64))
        n = None if cond.value is None else _compress_count(cond.value, size)
        return [TensorInfo((n,), data.dtype)]
    ax = normalize_axis("Compress", axis, len(data.shape))
    n = None if cond.value is None else _compress_count(cond.value, data.shape[ax])
    return [TensorInfo(data.shape[:ax] + (n,) + data.shape[ax + 1:], data.dtype)]


@defop("Compress", inputs="input:T condition:bool", outputs="output:T", types={"T": _ANY},
       attrs={"axis": Attr("int", None)}, infer=_compress_infer, value_inputs=("condition",))
def compress(axis):
    """Slices of ``input`` along ``axis`` (the flattened input without ``axis``) where ``condition`` is true.

    ``condition`` may be shorter than the axis (missing entries count as false); entries beyond the
    axis must be false.
    """

    def kernel(data, condition, out=None):
        if condition.ndim != 1:
            raise ShapeError(f"Compress: condition must be 1-D, got shape {condition.shape}")
        if axis is None:
            ax, n = None, data.size
        else:
            ax = _axis("Compress", axis, data.ndim)
            n = data.shape[ax]
        if condition.shape[0] > n:
            require("Compress", not condition[n:].any(),
                    f"condition (length {condition.shape[0]}) selects positions beyond the {n} entries of "
                    f"input {data.shape} along axis {axis}")
            condition = condition[:n]
        return np.compress(condition, data, axis=ax)

    return kernel


@register_gradient("Compress")
def _compress_grad(node, g):
    data, condition = node.inputs
    if not node.needs_input_grad[0]:
        return None, None
    axis = node.attrs["axis"]
    shape = data.array.shape
    ax = 0 if axis is None else normalize_axis("Compress", axis, len(shape))
    # NonZero of the condition: the kernel already checked that entries beyond the axis are false
    positions = reshape_to(execute("NonZero", condition), (g.array.shape[ax],))
    if axis is None:
        flat = _scatter_add_along((math.prod(shape),), positions, g, 0)
        return reshape_to(flat, shape), None
    return _scatter_add_along(shape, positions, g, ax), None


not_differentiable("NonZero", "Unique", "OneHot")
