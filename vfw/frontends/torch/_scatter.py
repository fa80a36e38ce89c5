"""Gathers and scatters: gather, scatter(_add/_reduce), index_select/add/copy/fill, take, take_along_dim, put,
index_put (the masked family lives in ``_masked``).

Results that autograd or a trace records come from engine ops (GatherElements,
ScatterElements, Gather, Compress, Where, ScatterND...) so gradients flow to ``input`` and
``src``/``source``/``value``; otherwise numpy computes the same values directly.  The checks
torch makes (index dtype, ranks, sizes, bounds, matching dtypes) happen first, with torch's
exception types.  A 0-d ``input`` is treated as 1-D of one element, as torch does.
"""

import numpy as np

from vfw.core.tensor import Tensor as CoreTensor
from vfw.frontends.torch import _dispatch
from vfw.frontends.torch._dispatch import call, wrap
from vfw.frontends.torch._grad_fn_names import names_grad_fn
from vfw.frontends.torch._indexing import (
    check_index_dtype,
    dim_of,
    fill_scalar,
    finish,
    flat_index,
    int64s,
    is_number,
    is_tracked,
    method,
    parse,
    positions,
    reshape,
    scatter_positions,
    tracing,
)
from vfw.frontends.torch._masked import broadcast_shape, fill_value, select

__all__ = ["gather", "scatter", "scatter_add", "scatter_reduce", "index_select", "index_add", "index_copy",
           "index_fill", "take", "take_along_dim", "put", "index_put", "index_put_"]

_INT64 = np.dtype(np.int64)
_INT32 = np.dtype(np.int32)
_INDEX = (_INT64, _INT32)
_BOOL = np.dtype(np.bool_)
_FULL = slice(None)
_UNSIGNED = {_INT64: np.dtype(np.uint64), _INT32: np.dtype(np.uint32)}
_tname = _dispatch.type_name


def _tensor(x, name, arg):
    if not isinstance(x, CoreTensor):
        raise TypeError(f"{name}(): argument '{arg}' must be Tensor, not {type(x).__name__}")
    return _dispatch.as_torch(x)


def _at_least_1d(t):
    return reshape(t, (1,)) if t.array.ndim == 0 else t


def _outside(a, n):
    """Whether an int index array has values outside ``[0, n)`` (one reduction: negatives view as huge)."""
    return a.size and a.view(_UNSIGNED[a.dtype]).max() >= n


def _bounds(a, n, d):
    """RuntimeError naming the first index of ``a`` outside ``[0, n)``."""
    if _outside(a, n):
        bad = a[(a >= n) | (a < 0)].flat[0]
        raise RuntimeError(f"index {bad} is out of bounds for dimension {d} with size {n}")


def _larger(ishape, shape, d):
    """Whether the index shape exceeds ``shape`` in a dim other than ``d``."""
    for k in range(len(ishape)):
        if k != d and ishape[k] > shape[k]:
            return True
    return False


# -- gather ---------------------------------------------------------------------------------
def gather(input, dim, index, *, sparse_grad=False, out=None):
    """``out[i][j] = input[index[i][j]][j]`` (for ``dim=0``); the output is shaped like ``index``."""
    input = _tensor(input, "gather", "input")
    index = _tensor(index, "gather", "index")
    check_index_dtype(index, _INDEX, RuntimeError, "gather(): Expected dtype int32/int64 for index")
    d = dim_of(dim, input.array.ndim)
    x, i = input.array, index.array
    if max(i.ndim, 1) != max(x.ndim, 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
    xs, ishape = x.shape or (1,), i.shape or (1,)
    if _larger(ishape, xs, d):
        k = next(k for k in range(len(xs)) if k != d and ishape[k] > xs[k])
        raise RuntimeError(f"Size does not match at dimension {k} expected index {list(i.shape)} to be no larger "
                           f"than self {list(x.shape)} apart from dimension {d}")
    _bounds(i, xs[d], d)
    if not is_tracked(input):
        return finish(wrap(x.reshape(-1)[flat_index(i.reshape(ishape), d, xs)].reshape(i.shape)), out, "gather")
    result = call("GatherElements", _at_least_1d(input), _at_least_1d(index), axis=d)  # a traced index stays one
    if i.ndim == 0:
        result = reshape(result, ())
    return finish(result, out, "gather")


# -- scatter --------------------------------------------------------------------------------
def _scatter_checks(name, input, dim, index, src):
    """Validated ``(dim, index array as rank >= 1, src tensor cut to the index shape or None)``."""
    check_index_dtype(index, _INDEX, RuntimeError, name + "(): Expected dtype int64 for index")
    x, i = input.array, index.array
    d = dim_of(dim, x.ndim)
    xs, ishape = x.shape or (1,), i.shape or (1,)
    if i.size == 0:
        return d, None, None
    if len(ishape) != len(xs):
        raise RuntimeError("Index tensor must have the same number of dimensions as self tensor")
    if src is not None:
        ss = src.array.shape or (1,)
        if len(ss) != len(xs):
            raise RuntimeError("Index tensor must have the same number of dimensions as src tensor")
    else:
        ss = ishape
    if _larger(ishape, xs, d) or _larger(ishape, ss, -1):
        detail = "" if src is None else f" and to be no larger size than src {list(src.array.shape)}"
        raise RuntimeError(f"Expected index {list(i.shape)} to be no larger than self {list(x.shape)} apart from "
                           f"dimension {d}{detail}")
    _bounds(i, xs[d], d)
    i = i.reshape(ishape)
    if src is not None and ss != ishape:
        if is_tracked(src):
            src = call("Slice", _at_least_1d(src), int64s([0] * len(ishape)), int64s(ishape))
        else:
            src = wrap(src.array.reshape(ss)[tuple(slice(0, n) for n in ishape)])
    return d, i, src


_AT = {"add": np.add, "mul": np.multiply, "max": np.maximum, "min": np.minimum}


def _scatter_into(input, d, i, updates, reduction, index=None):
    """ScatterElements of ``updates`` (tensor or array) into ``input`` along ``d`` at ``i`` (numpy when nothing
    records; the op reads the ``index`` tensor when given, so a traced index stays a graph value)."""
    if not is_tracked(input, updates):
        x = input.array
        u = updates.array if isinstance(updates, CoreTensor) else updates
        if u.ndim:
            u = u.reshape(i.shape)
        result = x.flatten()
        flat = flat_index(i, d, x.shape or (1,))
        if reduction == "none":
            result[flat] = u
        else:
            _AT[reduction].at(result, flat, u)
        return wrap(result.reshape(x.shape))
    if isinstance(updates, CoreTensor):
        updates = _at_least_1d(updates)
    elif updates.shape != i.shape:
        updates = np.full(i.shape, updates)
    positions = i if index is None else _at_least_1d(index)
    result = call("ScatterElements", _at_least_1d(input), positions, updates, axis=d, reduction=reduction)
    return reshape(result, ()) if input.array.ndim == 0 else result


def _src_or_value(name, input, src, value):
    if src is not None and value is not None:
        raise TypeError(f"{name}() received an invalid combination of arguments: both src and value")
    if src is None:
        src = value
    if src is None:
        raise TypeError(f"{name}() missing required argument 'src' or 'value'")
    if isinstance(src, CoreTensor):
        if src.array.dtype != input.array.dtype:
            raise RuntimeError(f"{name}(): Expected self.dtype to be equal to src.dtype")
        return _dispatch.as_torch(src), None
    if not is_number(src):
        raise TypeError(f"{name}(): argument 'src' must be Tensor or Number, not {type(src).__name__}")
    return None, fill_scalar(src, input.array.dtype, name)


_SCATTER_REDUCE = {None: "none", "add": "add", "multiply": "mul"}


def scatter(input, dim, index, src=None, value=None, *, reduce=None, out=None):
    """``input`` with ``src`` (tensor) or ``value`` (number) written along ``dim`` at ``index``.

    ``reduce='add'`` / ``'multiply'`` combine with the existing values instead.
    """
    input = _tensor(input, "scatter", "input")
    index = _tensor(index, "scatter", "index")
    if reduce not in _SCATTER_REDUCE:
        raise RuntimeError("reduce argument must be either add or multiply.")
    src, scalar = _src_or_value("scatter", input, src, value)
    d, i, src = _scatter_checks("scatter", input, dim, index, src)
    if i is None:
        return finish(input.clone(), out, "scatter")
    updates = src if src is not None else scalar
    return finish(_scatter_into(input, d, i, updates, _SCATTER_REDUCE[reduce], index), out, "scatter")


def scatter_add(input, dim, index, src, *, out=None):
    """``input`` with ``src`` added along ``dim`` at ``index`` (repeated indices accumulate)."""
    input = _tensor(input, "scatter_add", "input")
    index = _tensor(index, "scatter_add", "index")
    src = _tensor(src, "scatter_add", "src")
    if src.array.dtype != input.array.dtype:
        raise RuntimeError("scatter_add(): Expected self.dtype to be equal to src.dtype")
    d, i, src = _scatter_checks("scatter_add", input, dim, index, src)
    if i is None:
        return finish(input.clone(), out, "scatter_add")
    return finish(_scatter_into(input, d, i, src, "add", index), out, "scatter_add")


_REDUCE_OPS = {"sum": "add", "prod": "mul", "amax": "max", "amin": "min"}


def _identity(reduce, np_dtype):
    """The neutral element of ``reduce`` in ``np_dtype`` (what excluded self entries are replaced by)."""
    if reduce in ("sum", "mean"):
        return np.zeros((), np_dtype)
    if reduce == "prod":
        return np.ones((), np_dtype)
    if np_dtype.kind == "b":
        return np.asarray(reduce == "amin")
    if np_dtype.kind in "iu":
        info = np.iinfo(np_dtype)
        return np.asarray(info.min if reduce == "amax" else info.max, np_dtype)
    return np.asarray(-np.inf if reduce == "amax" else np.inf).astype(np_dtype)


def scatter_reduce(input, dim, index, src, reduce, *, include_self=True, out=None):
    """``input`` with ``src`` reduced into it along ``dim`` at ``index``: sum, prod, mean, amax or amin.

    ``include_self=False`` leaves the existing values of the positions written to out of the reduction.
    """
    input = _tensor(input, "scatter_reduce", "input")
    index = _tensor(index, "scatter_reduce", "index")
    src = _tensor(src, "scatter_reduce", "src")
    # torch's forward also takes "max" and "min" (not named in its message) for amax and amin
    reduce = {"max": "amax", "min": "amin"}.get(reduce, reduce)
    if reduce not in ("sum", "prod", "mean", "amax", "amin"):
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
    if src.array.dtype != input.array.dtype:
        raise RuntimeError("scatter_reduce(): Expected self.dtype to be equal to src.dtype")
    np_dtype = input.array.dtype
    if reduce == "mean" and np_dtype.kind == "b":
        raise NotImplementedError('"scatter_gather_tensor_cpu_reduce_mean" not implemented for \'Bool\'')
    d, i, src = _scatter_checks("scatter_reduce", input, dim, index, src)
    if i is None:
        return finish(input.clone(), out, "scatter_reduce")
    base = input
    if not include_self:  # the positions written to start from the reduction's neutral element
        base = _scatter_into(base, d, i, _identity(reduce, np_dtype), "none", index)
    if reduce != "mean":
        result = _scatter_into(base, d, i, src, _REDUCE_OPS[reduce], index)
    else:
        total = _scatter_into(base, d, i, src, "add", index)
        counts = np.full(input.array.shape or (1,), 1 if include_self else 0, np_dtype)
        np.add.at(counts.reshape(-1), flat_index(i, d, counts.shape), np.ones((), np_dtype))
        counts = np.maximum(counts, np.ones((), np_dtype)).reshape(input.array.shape)  # untouched: value / 1
        if np_dtype.kind in "iu":  # torch floors integer means
            total = call("Sub", total, call("Mod", total, counts))
        result = call("Div", total, counts)
    return finish(result, out, "scatter_reduce")


# -- index_* along one dim --------------------------------------------------------------------
def _vector_index(index, message):
    if index.array.ndim > 1:
        raise IndexError(message.format(index.array.ndim, _tname(index.array.dtype), list(index.array.shape)))
    return index.array.reshape(-1)


@names_grad_fn("IndexSelectBackward0")
def index_select(input, dim, index, *, out=None):
    """The slices of ``input`` along ``dim`` at the positions in the 1-D ``index``."""
    input = _tensor(input, "index_select", "input")
    index = _tensor(index, "index_select", "index")
    check_index_dtype(index, _INDEX, RuntimeError, "index_select(): Expected dtype int32 or int64 for index")
    d = dim_of(dim, input.array.ndim)
    a = _vector_index(index, "index_select(): Index is supposed to be a vector")
    if input.array.ndim == 0:
        if a.size != 1:
            raise RuntimeError(f"index_select(): Index to scalar can have only 1 value, got {a.size} value(s)")
    n = input.array.shape[d] if input.array.ndim else 1
    if _outside(a, n):
        if d == 0:
            raise IndexError("index out of range in self")
        bad = a[(a >= n) | (a < 0)].flat[0]
        raise RuntimeError(f"INDICES element is out of DATA bounds, id={bad} axis_dim={n}")
    if not is_tracked(input):
        x = input.array
        return finish(wrap(x[(_FULL,) * d + (a,)] if x.ndim else x.copy()), out, "index_select")
    result = call("Gather", _at_least_1d(input), _at_least_1d(index), axis=d)  # a traced index stays one
    if input.array.ndim == 0:
        result = reshape(result, ())
    return finish(result, out, "index_select")


def _along(a, d, shape):
    """``a`` (1-D positions along ``d``) broadcast to ``shape``, as ScatterElements indices: an Expand op, so a trace
    records the shape (torch.onnx.export rebuilds it from dynamic axes) rather than the expanded positions."""
    return call("Expand", a.reshape((1,) * d + (a.size,) + (1,) * (len(shape) - d - 1)), np.asarray(shape, np.int64))


def _put_slices(input, d, a, src, reduction):
    """``input`` with the slices of ``src`` (``len(a)`` along ``d``) written (or added) at positions ``a``."""
    if not is_tracked(input, src):
        x, u = input.array, src.array
        result = x.reshape(x.shape or (1,)).copy()
        key = (_FULL,) * d + (a,)
        if reduction == "none":
            result[key] = u.reshape(u.shape or (1,))
        else:
            np.add.at(result, key, u.reshape(u.shape or (1,)))
        return wrap(result.reshape(x.shape))
    return _scatter_into(input, d, _along(a, d, src.array.shape or (1,)), src, reduction)


def index_add(input, dim, index, source, *, alpha=1, out=None):
    """``input`` with ``alpha * source`` slices added along ``dim`` at ``index`` (repeats accumulate)."""
    input = _tensor(input, "index_add", "input")
    index = _tensor(index, "index_add", "index")
    source = _tensor(source, "index_add", "source")
    check_index_dtype(index, _INDEX, RuntimeError, "index_add_(): Expected dtype int32/int64 for index but got: {}")
    x, s = input.array, source.array
    d = dim_of(dim, x.ndim)
    a = _vector_index(index, "index_add_(): Index is supposed to be a vector, but got dim: {} with type: {} and "
                             "size: {}")
    if s.dtype != x.dtype:
        raise RuntimeError(f"index_add_(): self ({_tname(x.dtype)}) and source ({_tname(s.dtype)}) must have the "
                           "same scalar type")
    if s.ndim == 0 and a.size != 1:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    if s.ndim and d >= s.ndim:
        raise RuntimeError(f"index_add_(): Indexing dim {d} is out of bounds of the source tensor with dim {s.ndim}")
    if s.ndim and s.shape[d] != a.size:
        raise RuntimeError(f"index_add_(): Number of indices ({a.size}) should be equal to source.size(dim): "
                           f"({s.shape[d]}), for dim: {d}")
    if s.ndim != x.ndim or any(m != k for i, (m, k) in enumerate(zip(x.shape, s.shape)) if i != d):
        raise RuntimeError(f"source tensor shape must match self tensor shape, excluding the specified dimension. "
                           f"Got self.shape = {list(x.shape)} source.shape = {list(s.shape)}")
    if x.ndim == 0:
        if a.size and (a.max() > 0 or a.min() < 0):
            raise IndexError("index out of range in self")
    else:
        _bounds(a, x.shape[d], d)
    if alpha != 1:
        source = call("Mul", source, fill_scalar(alpha, x.dtype, "index_add"))
    return finish(_put_slices(input, d, a, source, "add"), out, "index_add")


def index_copy(input, dim, index, source, *, out=None):
    """``input`` with its slices along ``dim`` at ``index`` replaced by those of ``source``."""
    input = _tensor(input, "index_copy", "input")
    index = _tensor(index, "index_copy", "index")
    source = _tensor(source, "index_copy", "source")
    check_index_dtype(index, (_INT64,), RuntimeError, "index_copy_(): Expected a long tensor for index, but got {}")
    x, s = input.array, source.array
    d = dim_of(dim, x.ndim)
    if index.array.ndim > 1:
        raise IndexError(f"index_copy_(): Index should have dimension 1 or 0 (got {index.array.ndim})")
    a = index.array.reshape(-1)
    if s.dtype != x.dtype:
        raise RuntimeError(f"index_copy_(): self and source expected to have the same dtype, but got (self) "
                           f"{_tname(x.dtype)} and (source) {_tname(s.dtype)}")
    if x.ndim and s.ndim and x.ndim != s.ndim:
        raise IndexError(f"index_copy_(): When source and destination are not scalars, their dimensionality must "
                         f"match. Source dimensionality ({s.ndim}), destination dimensionality ({x.ndim})")
    count = s.shape[d] if s.ndim else 1
    if count != a.size:
        raise IndexError(f"index_copy_(): Number of indices ({a.size}) should be equal to source.size(dim) ({count})")
    xs, ss = x.shape or (1,), s.shape or (1,)
    if ss[:d] + ss[d + 1:] != xs[:d] + xs[d + 1:]:
        raise RuntimeError(f"index_copy_(): Source/destination tensor must have same slice shapes: destination "
                           f"{list(x.shape)}, source {list(s.shape)}, dimension {d}")
    n = xs[d]
    if a.size and (a.max() >= n or a.min() < 0):
        bad = a[(a >= n) | (a < 0)].flat[0]
        raise IndexError(f"index_copy_(): index {bad} is out of bounds for dimension {d} with size {n}")
    return finish(_put_slices(input, d, a, source, "none"), out, "index_copy")


def index_fill(input, dim, index, value):
    """``input`` with its slices along ``dim`` at ``index`` (negative counts from the end) set to ``value``."""
    input = _tensor(input, "index_fill", "input")
    index = _tensor(index, "index_fill", "index")
    check_index_dtype(index, (_INT64,), IndexError, "index_fill_(): Expected dtype int64 for index.")
    d = dim_of(dim, input.array.ndim)
    if index.array.ndim > 1:
        raise RuntimeError("Index has to be a vector/scalar")
    value = fill_value(input, value, "index_fill_")
    a = index.array.reshape(-1)
    shape = input.array.shape
    n = (shape or (1,))[d]
    hit = np.zeros(n, np.bool_)
    try:
        hit[a] = True
    except IndexError:
        bad = a[(a >= n) | (a < -n)].flat[0]
        raise IndexError(f"index {bad} is out of bounds for dimension {d} with size {n}") from None
    return select(hit.reshape((n,) + (1,) * (len(shape) - d - 1)) if shape else hit.reshape(()), value, input)


# -- take / put / index_put -----------------------------------------------------------------
def _flat_index(index, n, name):
    """Check a ``take``/``put`` index: int64, values in ``[-n, n)``."""
    if not isinstance(index, CoreTensor):
        raise TypeError(f"{name}(): argument 'index' must be Tensor, not {type(index).__name__}")
    check_index_dtype(index, (_INT64,), RuntimeError, name + "(): Expected a long tensor for index, but got {}")
    a = index.array
    if a.size and (a.max() >= n or a.min() < -n):
        bad = a[(a >= n) | (a < -n)].flat[0]
        raise IndexError(f"out of range: tried to access index {bad} on a tensor of {n} elements.")
    return a


def take(input, index, *, out=None):
    """Elements of the flattened ``input`` at ``index`` (negative counts from the end); shaped like ``index``."""
    input = _tensor(input, "take", "input")
    x = input.array
    if not is_tracked(input) and isinstance(index, CoreTensor) and index.array.dtype == _INT64:
        try:
            return finish(wrap(x.reshape(-1)[index.array]), out, "take")
        except IndexError:
            pass  # the check below raises torch's message
    a = _flat_index(index, x.size, "take")
    return finish(call("Gather", reshape(input, (x.size,)), a, axis=0), out, "take")


def take_along_dim(input, indices, dim=None, *, out=None):
    """Values of ``input`` at ``indices`` along ``dim`` (other dims broadcast); flattened when ``dim`` is None."""
    input = _tensor(input, "take_along_dim", "input")
    if not isinstance(indices, CoreTensor):
        raise TypeError(f"take_along_dim(): argument 'indices' must be Tensor, not {type(indices).__name__}")
    check_index_dtype(indices, (_INT64,), RuntimeError,
                      "torch.take_along_dim(): dtype of indices should be Long but got {}")
    if dim is None:
        n = input.array.size
        a = indices.array.reshape(-1)
        if a.size and (a.max() >= n or a.min() < 0):  # the flattened form takes no negative indices
            bad = a[(a >= n) | (a < 0)].flat[0]
            raise RuntimeError(f"index {bad} is out of bounds for dimension 0 with size {n}")
        return finish(call("Gather", reshape(input, (n,)), a, axis=0), out, "take_along_dim")
    ndim = input.array.ndim
    if indices.array.ndim != ndim:
        raise RuntimeError(f"torch.take_along_dim(): input and indices should have the same number of dimensions, "
                           f"but got {ndim} dimensions for input, and {indices.array.ndim} dimensions for indices")
    d = dim_of(dim, ndim)
    if ndim == 0:
        return finish(input.clone(), out, "take_along_dim")
    x, a = input.array, indices.array
    n = x.shape[d]
    if a.size:
        low, high = a.min(), a.max()
        if high >= n or low < -n:
            bad = a[(a >= n) | (a < -n)].flat[0]
            raise RuntimeError(f"index {bad} is out of bounds for dimension {d} with size {n}")
        if low < 0:
            a = np.where(a < 0, a + n, a)
    if x.shape[:d] + x.shape[d + 1:] != a.shape[:d] + a.shape[d + 1:]:  # the other dims broadcast
        common = list(broadcast_shape(x.shape[:d] + (1,) + x.shape[d + 1:], a.shape[:d] + (1,) + a.shape[d + 1:]))
        x_shape = tuple(common[:d] + [x.shape[d]] + common[d + 1:])
        a = np.broadcast_to(a, tuple(common[:d] + [a.shape[d]] + common[d + 1:]))
        if x_shape != x.shape:
            if is_tracked(input):
                input = call("Expand", input, int64s(x_shape))
            else:
                x = np.broadcast_to(x, x_shape)
    if not is_tracked(input):
        return finish(wrap(x.reshape(-1)[flat_index(a, d, x.shape)]), out, "take_along_dim")
    return finish(call("GatherElements", input, a, axis=d), out, "take_along_dim")


def put(input, index, source, accumulate=False):
    """``input`` with ``source`` written (or added, ``accumulate``) at flat positions ``index``."""
    input = _tensor(input, "put", "input")
    source = _tensor(source, "put", "source")
    n = input.array.size
    a = _flat_index(index, n, "put_")
    if source.array.dtype != input.array.dtype:
        raise RuntimeError(f"put_(): self and source expected to have the same dtype, but got self.dtype = "
                           f"{_tname(input.array.dtype)} and source.dtype = "
                           f"{_tname(source.array.dtype)}")
    if source.array.size != a.size:
        raise IndexError(f"put_(): Expected source and index to have the same number of elements, but got "
                         f"source.numel() = {source.array.size}, index.numel() = {a.size}")
    if tracing():  # the positions of each graph run's index
        flat = reshape(index, (a.size,))
        pos = call("Where", call("Less", flat, np.zeros((), _INT64)), call("Add", flat, np.asarray(n, _INT64)), flat)
    else:
        pos = np.where(a < 0, a + n, a).reshape(-1)
    return scatter_positions(input, pos, reshape(source, (a.size,)), "add" if accumulate else "none", "put_")


@names_grad_fn("IndexPutBackward0")
def index_put(input, indices, values, accumulate=False):
    """``input`` with ``values`` written at ``input[indices]`` (added there, duplicates included, if ``accumulate``)."""
    input = _tensor(input, "index_put", "input")
    if not isinstance(indices, (tuple, list)):
        raise TypeError(f"index_put(): argument 'indices' must be tuple of Tensors, not {type(indices).__name__}")
    for i, t in enumerate(indices):
        if not isinstance(t, CoreTensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got {type(t).__name__}")
    if not isinstance(values, CoreTensor):
        raise TypeError(f"index_put(): argument 'values' (position 2) must be Tensor, not {type(values).__name__}")
    if values.array.dtype != input.array.dtype:
        raise RuntimeError(f"Index put requires the source and destination dtypes match, got "
                           f"{_tname(input.array.dtype)} for the destination and "
                           f"{_tname(values.array.dtype)} for the source.")
    if len(indices) > max(input.array.ndim, 1):
        raise IndexError(f"too many indices for tensor of dimension {input.array.ndim} (got {len(indices)})")
    basic, adv = parse(input.array.shape, tuple(indices))
    pos = positions(input.array.shape, basic, adv, like=input)
    return scatter_positions(input, pos, values, "add" if accumulate else "none", "index_put_")


def index_put_(input, indices, values, accumulate=False):
    """In-place ``index_put``."""
    return _dispatch.inplace(index_put, input, indices, values, accumulate, name="index_put_")


def _inplace(fn, name):
    def method(self, *args, **kwargs):
        return _dispatch.inplace(fn, self, *args, name=name, **kwargs)
    method.__name__ = name
    method.__doc__ = f"In-place ``{fn.__name__}``."
    return method


def _scatter_method(self, dim, index, src=None, value=None, *, reduce=None):
    return scatter(self, dim, index, src, value, reduce=reduce)


TENSOR_METHODS = {
    "gather": method(gather), "scatter": _scatter_method, "scatter_": _inplace(_scatter_method, "scatter_"),
    "scatter_add": method(scatter_add), "scatter_add_": _inplace(scatter_add, "scatter_add_"),
    "scatter_reduce": method(scatter_reduce), "scatter_reduce_": _inplace(scatter_reduce, "scatter_reduce_"),
    "index_select": method(index_select),
    "index_add": method(index_add), "index_add_": _inplace(index_add, "index_add_"),
    "index_copy": method(index_copy), "index_copy_": _inplace(index_copy, "index_copy_"),
    "index_fill": index_fill, "index_fill_": _inplace(index_fill, "index_fill_"),
    "take": method(take), "take_along_dim": method(take_along_dim), "put": put, "put_": _inplace(put, "put_"),
    "index_put": index_put, "index_put_": index_put_,
}
