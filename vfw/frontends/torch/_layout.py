"""Narrow, select, diagonals, triangles, flips, rolls, repeats and atleast_nd.

``narrow``, ``select``, ``diagonal`` and ``atleast_nd`` return views of their input (``diagonal`` a strided
numpy view; under autograd it is also computed with Gather so the gradient is recorded, then
the result is pointed at the view: same values, shared memory).  Everything else here returns
new memory, as in torch.
"""

import functools

import numpy as np

from vfw.core.tensor import Tensor as CoreTensor
from vfw.frontends.torch import _traced_sizes, _traced_views
from vfw.frontends.torch._dispatch import call, cast, finish, inplace, op, type_name, view_of
from vfw.frontends.torch._grad_fn_names import names_grad_fn
from vfw.frontends.torch._shape import (
    as_view,
    engine_view,
    fresh,
    int_arg,
    permuted,
    recording,
    reshape_to,
    shape_array,
    sizes_arg,
    tensor_arg,
    transpose,
    unsqueeze,
    wrap_dim,
    wrap_dims,
)
from vfw.frontends.torch._tensor import Tensor
from vfw.frontends.torch._traced import bind_copy, own_memory

__all__ = ["narrow", "select", "diagonal", "diag", "diag_embed", "diagflat", "trace", "tril", "triu", "flip",
           "fliplr", "flipud", "roll", "rot90", "tile", "repeat_interleave", "atleast_1d", "atleast_2d", "atleast_3d"]

_INT64 = np.int64
_INT64_MIN = np.iinfo(np.int64).min
_SLICE = op("Slice")
_SQUEEZE = op("Squeeze")
_UNSQUEEZE = op("Unsqueeze")
_RESHAPE = op("Reshape", allowzero=1)
_GATHER_LAST = op("Gather", axis=-1)
_WHERE = op("Where")
_PAD = op("Pad")
_TILE = op("Tile")
_SUM = op("ReduceSum", keepdims=0)
_TRIL, _TRIU = op("Trilu", upper=0), op("Trilu", upper=1)
_ALL, _REVERSED = slice(None), slice(None, None, -1)


# -- narrow / select --------------------------------------------------------------------------
def _slice_view(x, axis, start, stop):
    """A view of ``x`` restricted to ``start:stop`` (normalized, ``start <= stop``) along ``axis``."""
    if not recording(x):
        return as_view(x, x.array[(slice(None),) * axis + (slice(start, stop),)])
    return engine_view(x, _SLICE, shape_array((start,)), shape_array((stop,)), shape_array((axis,)))


def narrow(input, dim, start, length):
    """A view of ``input`` restricted to ``length`` elements from ``start`` along ``dim``."""
    tensor_arg(input, "narrow")
    arr = input.array
    if arr.ndim == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    if isinstance(start, CoreTensor):
        if start.array.ndim != 0 or start.array.dtype.kind not in "iu":
            raise RuntimeError("start must be an 0-dim integral Tensor.")
        start = int(start.array)
    start = int_arg(start, "narrow", "start")
    length = int_arg(length, "narrow", "length")
    d = wrap_dim(dim, arr.ndim)
    n = arr.shape[d]
    if not -n <= start <= n:
        raise IndexError(f"start out of range (expected to be in range of [{-n}, {n}], but got {start})")
    if start < 0:
        start += n
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    if start + length > n:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({n}).")
    return _slice_view(input, d, start, start + length)


@names_grad_fn("SelectBackward0")
def select(input, dim, index):
    """A view of ``input`` at position ``index`` of dim ``dim`` (that dim removed)."""
    tensor_arg(input, "select")
    arr = input.array
    if arr.ndim == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = wrap_dim(dim, arr.ndim)
    if type(index) is not int:
        if isinstance(index, CoreTensor) and index.array.size == 1 and index.array.dtype.kind in "iu":
            index = int(index.array.reshape(()))
        else:
            index = int_arg(index, "select", "index")
    n = arr.shape[d]
    if not -n <= index < n:
        raise IndexError(f"select(): index {index} out of range for tensor of size {list(arr.shape)} at dimension "
                         f"{d}")
    if index < 0:
        index += n
    if not recording(input):
        return as_view(input, arr[(slice(None),) * d + (index, Ellipsis)])
    part = engine_view(input, _SLICE, shape_array((index,)), shape_array((index + 1,)), shape_array((d,)))
    axes = shape_array((d,))
    out = call(_SQUEEZE, part, axes)
    if _traced_sizes.tracing():  # a write into it is recorded through part (positions from input's shape)
        _traced_views.mark_op(out, part, lambda t: call(_SQUEEZE, t, axes))
    return view_of(input, out)


def diagonal_strided(arr, offset, d1, d2):
    """The numpy view of the ``offset`` diagonal of dims ``d1``, ``d2`` (moved to the end), writable like ``arr``."""
    if arr.ndim == 2 and arr.flags.c_contiguous:  # built on the memory directly: half np.diagonal's cost
        key = (arr.shape, arr.strides, offset, d1)
        plan = _DIAGONAL_PLANS.get(key)
        if plan is None:
            plan = _diagonal_plan(arr, offset, d1, d2)
            if len(_DIAGONAL_PLANS) > 1024:
                _DIAGONAL_PLANS.clear()
            _DIAGONAL_PLANS[key] = plan
        return np.ndarray(plan[0], arr.dtype, arr, plan[1], plan[2])
    view = np.diagonal(arr, offset, d1, d2)
    if arr.flags.writeable:
        view.flags.writeable = True  # numpy marks diagonals read-only by policy; the memory is arr's
    return view


_DIAGONAL_PLANS = {}  # (shape, strides, offset, dim1) -> (shape, byte offset, strides) of a 2-D diagonal


def _diagonal_plan(arr, offset, d1, d2):
    n1, n2, s1, s2 = arr.shape[d1], arr.shape[d2], arr.strides[d1], arr.strides[d2]
    row, col = (0, offset) if offset >= 0 else (-offset, 0)
    length = max(0, min(n1 - row, n2 - col))
    return (length,), (row * s1 + col * s2) if length else 0, (s1 + s2,)


def diagonal_dims(arr, offset, dim1, dim2, name="diagonal"):
    """Normalized (offset, dim1, dim2) of a diagonal, with torch's errors."""
    ndim = arr.ndim
    d1, d2 = wrap_dim(dim1, ndim), wrap_dim(dim2, ndim)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return int_arg(offset, name, "offset"), d1, d2


def diagonal_gather(x, offset, d1, d2):
    """The diagonal as engine ops (Transpose, Reshape, Gather), so autograd and traces record it (a copy)."""
    arr = x.array
    n1, n2 = arr.shape[d1], arr.shape[d2]
    row, col = (0, offset) if offset >= 0 else (-offset, 0)
    length = max(0, min(n1 - row, n2 - col))
    keep = [i for i in range(arr.ndim) if i not in (d1, d2)]
    perm = tuple(keep + [d1, d2])
    if _traced_sizes.tracing():  # positions from the shape: an export with dynamic axes recomputes them
        return _traced_sizes.diagonal_gather(x, offset, perm, d1, d2)
    moved = x if perm == tuple(range(arr.ndim)) else call(op("Transpose", perm=perm), x)
    flat = call(_RESHAPE, moved, shape_array([arr.shape[i] for i in keep] + [n1 * n2]))
    return call(_GATHER_LAST, flat, _diagonal_index(length, n2, row * n2 + col))


@functools.lru_cache(maxsize=256)
def _diagonal_index(length, n2, start):
    """Flat positions of a diagonal in rows of ``n2`` elements (read-only: shared across calls)."""
    index = np.arange(length, dtype=_INT64) * (n2 + 1) + start
    index.flags.writeable = False
    return index


def diagonal(input, offset=0, dim1=0, dim2=1):
    """A view of the ``offset`` diagonal of dims ``dim1``, ``dim2`` (appended as the last dim)."""
    tensor_arg(input, "diagonal")
    if type(offset) is int and dim1 == 0 and dim2 == 1 and input.array.ndim > 1:
        d1, d2 = 0, 1
    else:
        offset, d1, d2 = diagonal_dims(input.array, offset, dim1, dim2)
    view = diagonal_strided(input.array, offset, d1, d2)
    if not recording(input):
        return as_view(input, view)
    out = diagonal_gather(input, offset, d1, d2)
    gathered = out.array
    out.array = view  # same values; the recorded Gather's backward reads no output
    if _traced_sizes.tracing():  # the view's value is the Gather's, not positions baked from its strides
        bind_copy(view, gathered)
        _traced_views.mark_op(out, input, lambda t: diagonal_gather(t, offset, d1, d2))
    return view_of(input, out)

# -- diag and friends -------------------------------------------------------------------------
def _embed(x, offset, d1, d2):
    """A tensor whose ``offset`` diagonal over output dims ``d1``, ``d2`` holds ``x``'s last dim (zeros elsewhere)."""
    arr = x.array
    length = arr.shape[-1]
    n = length + abs(offset)
    rank = arr.ndim + 1
    batch = iter(arr.shape[:-1])
    shape = tuple(n if j in (d1, d2) else next(batch) for j in range(rank))
    if not recording(x):
        out = np.zeros(shape, arr.dtype)
        diagonal_strided(out, offset, d1, d2)[...] = arr
        return fresh(out)
    mask = np.zeros((length, n), np.bool_)
    mask[np.arange(length), np.arange(length) + max(offset, 0)] = True
    rows = call(_WHERE, mask, call(_UNSQUEEZE, x, shape_array((-1,))), np.zeros((), arr.dtype))
    if offset:
        rows = call(_PAD, rows, shape_array((max(-offset, 0), max(offset, 0))), None, shape_array((-2,)))
    batch = iter(range(rank - 2))
    return permuted(rows, [rank - 2 if j == d1 else rank - 1 if j == d2 else next(batch) for j in range(rank)])


def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    """A tensor with ``input``'s last dim on the ``offset`` diagonal of the new dims ``dim1``, ``dim2``."""
    tensor_arg(input, "diag_embed")
    rank = input.array.ndim + 1
    d1, d2 = wrap_dim(dim1, rank), wrap_dim(dim2, rank)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    if input.array.ndim == 0:
        raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but got -2)")
    return _embed(input, int_arg(offset, "diag_embed", "offset"), d1, d2)


def diag(input, diagonal=0, *, out=None):
    """A matrix with the 1-D ``input`` on diagonal ``diagonal``, or the diagonal (a copy) of a matrix."""
    tensor_arg(input, "diag")
    ndim = input.array.ndim
    k = int_arg(diagonal, "diag", "diagonal")
    if ndim == 1:
        result = _embed(input, k, 0, 1)
    elif ndim == 2:
        if recording(input):
            result = diagonal_gather(input, k, 0, 1)
        else:
            result = fresh(diagonal_strided(input.array, k, 0, 1).copy())
    else:
        raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {ndim}D")
    return finish(result, out, "diag")


def diagflat(input, offset=0):
    """A matrix with the flattened ``input`` on diagonal ``offset``."""
    tensor_arg(input, "diagflat")
    return _embed(reshape_to(input, (input.array.size,)), int_arg(offset, "diagflat", "offset"), 0, 1)


def trace(input):
    """The sum of the main diagonal of a matrix (integers sum to int64)."""
    tensor_arg(input, "trace")
    arr = input.array
    if arr.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {arr.ndim}")
    if arr.dtype == np.bool_:
        raise NotImplementedError("\"trace\" not implemented for 'Bool'")
    d = diagonal_gather(input, 0, 0, 1)
    return call(_SUM, d if arr.dtype.kind in "fVc" else cast(d, np.dtype(_INT64)))  # V: bfloat16, c: complex


# -- triangles --------------------------------------------------------------------------------
def _triangle(bound, input, diagonal, out, name):
    tensor_arg(input, name)
    if input.array.ndim < 2:
        raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions")
    k = int_arg(diagonal, name, "diagonal")
    arr = input.array
    if not recording(input):  # the Trilu kernel's computation, without the executor's overhead
        keep = _triangle_mask(arr.shape[-2], arr.shape[-1], k, bound is _TRIU)
        result = fresh(np.where(keep, arr, _zero(arr.dtype)))
    else:
        result = call(bound, input, np.asarray(k, _INT64))
    return result if out is None else finish(result, out, name)


@functools.lru_cache(maxsize=256)
def _triangle_mask(rows, cols, k, upper):
    offset = np.arange(cols)[None, :] - np.arange(rows)[:, None]
    return offset >= k if upper else offset <= k


@functools.lru_cache(maxsize=64)
def _zero(dtype):
    return np.zeros((), dtype)


@names_grad_fn("TrilBackward0")
def tril(input, diagonal=0, *, out=None):
    """The lower triangle (on and below diagonal ``diagonal``) of the last two dims; zeros elsewhere."""
    return _triangle(_TRIL, input, diagonal, out, "tril")


@names_grad_fn("TriuBackward0")
def triu(input, diagonal=0, *, out=None):
    """The upper triangle (on and above diagonal ``diagonal``) of the last two dims; zeros elsewhere."""
    return _triangle(_TRIU, input, diagonal, out, "triu")


def _tril_(self, diagonal=0):
    return inplace(tril, self, diagonal, name="tril_")


def _triu_(self, diagonal=0):
    return inplace(triu, self, diagonal, name="triu_")


# -- flips and rolls --------------------------------------------------------------------------
@names_grad_fn("FlipBackward0")
def _flipped(x, dims):
    """``x`` reversed along ``dims`` (normalized), as a new tensor."""
    arr = x.array
    if not dims or arr.ndim == 0:
        return x.clone()
    if not recording(x):
        index = [_ALL] * arr.ndim
        for d in dims:
            index[d] = _REVERSED
        return fresh(arr[tuple(index)].copy())
    k = len(dims)
    out = call(_SLICE, x, shape_array((-1,) * k), shape_array((_INT64_MIN,) * k), shape_array(dims),
               shape_array((-1,) * k))
    return own_memory(out)  # torch's flip copies; the Slice kernel returned a view of x


def flip(input, dims):
    """A copy of ``input`` reversed along ``dims``."""
    tensor_arg(input, "flip")
    if not isinstance(dims, (tuple, list)):
        raise TypeError(f"flip(): argument 'dims' (position 2) must be tuple of ints, not {type(dims).__name__}")
    return _flipped(input, wrap_dims(dims, input.array.ndim))


def _flip_method(self, *dims, **kwargs):
    if kwargs:
        if dims or set(kwargs) != {"dims"}:
            raise TypeError(f"flip() got an unexpected keyword argument '{next(iter(kwargs))}'")
        dims = (kwargs["dims"],)
    if not dims:
        raise TypeError("flip() missing 1 required positional arguments: \"dims\"")
    return _flipped(self, wrap_dims(sizes_arg(dims, "flip", "dims"), self.array.ndim))


def fliplr(input):
    """``input`` reversed along dim 1 (a copy)."""
    tensor_arg(input, "fliplr")
    if input.array.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return _flipped(input, (1,))


def flipud(input):
    """``input`` reversed along dim 0 (a copy)."""
    tensor_arg(input, "flipud")
    if input.array.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return _flipped(input, (0,))


def _as_list(value, name, arg):
    if isinstance(value, (tuple, list)):
        return list(sizes_arg((value,), name, arg))
    return [int_arg(value, name, arg)]


@names_grad_fn("RollBackward0")
def roll(input, shifts, dims=None):
    """A copy of ``input`` rolled by ``shifts`` along ``dims`` (the flattened tensor when ``dims`` is None)."""
    tensor_arg(input, "roll")
    arr = input.array
    shifts = _as_list(shifts, "roll", "shifts")
    dims = [] if dims is None else _as_list(dims, "roll", "dims")
    if not shifts:
        raise RuntimeError("`shifts` required")
    if len(shifts) != len(dims) and not (len(shifts) == 1 and not dims):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}")
    if dims and arr.ndim == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    dims = [wrap_dim(d, arr.ndim) for d in dims]
    if not recording(input):
        y, moved = (arr if dims else arr.reshape(-1)), False
        for s, d in zip(shifts, dims or [0]):  # np.roll, without its 4 us of Python
            n = y.shape[d]
            s = s % n if n else 0
            if s:
                lead = (_ALL,) * d
                y, moved = np.concatenate((y[lead + (slice(n - s, None),)], y[lead + (slice(0, n - s),)]), d), True
        return fresh(y.reshape(arr.shape) if moved else arr.copy())
    x = input if dims else call(_RESHAPE, input, shape_array((arr.size,)))
    for s, d in zip(shifts, dims or [0]):
        n = x.array.shape[d]
        s = s % n if n else 0
        if s:
            axes = shape_array((d,))
            head = call(_SLICE, x, shape_array((n - s,)), shape_array((n,)), axes)
            rest = call(_SLICE, x, shape_array((0,)), shape_array((n - s,)), axes)
            x = call(op("Concat", axis=d), head, rest)
    if not dims:
        x = call(_RESHAPE, x, shape_array(arr.shape))
    return input.clone() if np.may_share_memory(x.array, arr) else x


def rot90(input, k=1, dims=(0, 1)):
    """A copy of ``input`` rotated by ``k`` quarter turns in the plane of ``dims`` (from dims[0] toward dims[1])."""
    tensor_arg(input, "rot90")
    ndim = input.array.ndim
    dims = _as_list(dims, "rot90", "dims")
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if ndim < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {ndim}")
    d0, d1 = wrap_dim(dims[0], ndim), wrap_dim(dims[1], ndim)
    if d0 == d1:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {dims[0]} and dim1 = {dims[1]}")
    k = int_arg(k, "rot90", "k") % 4
    if k == 1:
        return transpose(_flipped(input, (d1,)), d0, d1)
    if k == 2:
        return _flipped(input, (d0, d1))
    if k == 3:
        return transpose(_flipped(input, (d0,)), d0, d1)
    return input.clone()


# -- repeats ----------------------------------------------------------------------------------
def _repeat(self, *sizes, **kwargs):
    """``self`` tiled ``sizes[i]`` times along each dim (extra leading sizes add dims)."""
    if kwargs:
        if sizes or set(kwargs) != {"repeats"}:
            raise TypeError(f"repeat() got an unexpected keyword argument '{next(iter(kwargs))}'")
        sizes = (kwargs["repeats"],)
    if not sizes:
        raise TypeError("repeat() missing 1 required positional arguments: \"repeats\"")
    sizes = sizes_arg(sizes, "repeat", "repeats")
    shape = self.array.shape
    if len(sizes) < len(shape):
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number of dimensions of "
                           "tensor")
    padded = (1,) * (len(sizes) - len(shape)) + shape
    target = [a * b for a, b in zip(padded, sizes)]
    for d in target:
        if d < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {d}: {target}")
    return call(_TILE, reshape_to(self, padded), shape_array(sizes))


def tile(input, dims):
    """``input`` repeated ``dims[i]`` times along each dim (``dims`` padded with leading 1s to the rank)."""
    tensor_arg(input, "tile")
    if not isinstance(dims, (tuple, list)):
        raise TypeError(f"tile(): argument 'dims' (position 2) must be tuple of ints, not {type(dims).__name__}")
    dims = sizes_arg((dims,), "tile", "dims")
    return _repeat(input, (1,) * (input.array.ndim - len(dims)) + dims)


def _tile_method(self, *dims, **kwargs):
    if kwargs:
        if dims or set(kwargs) != {"dims"}:
            raise TypeError(f"tile() got an unexpected keyword argument '{next(iter(kwargs))}'")
        dims = (kwargs["dims"],)
    if not dims:
        raise TypeError('tile() missing 1 required positional arguments: "dims"')
    return tile(self, sizes_arg(dims, "tile", "dims"))


def _repeat_counts(repeats, n, d):
    """The per-element repeat counts (an int64 array of length ``n``), with torch's checks."""
    if isinstance(repeats, CoreTensor):
        r = repeats.array
        if r.dtype.kind not in "iu":
            raise NotImplementedError(f"\"repeat_interleave_cpu\" not implemented for '{type_name(r.dtype)}'")
        if r.ndim > 1:
            raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
        if r.size != 1 and r.size != n:
            raise RuntimeError(f"repeats must have the same size as input along dim, but got repeats.size(0) = "
                               f"{r.size} and input.size({d}) = {n}")
        if (r < 0).any():
            raise RuntimeError("repeats can not be negative")
        return np.broadcast_to(r.reshape(-1).astype(_INT64), (n,))
    count = int_arg(repeats, "repeat_interleave", "repeats")
    if count < 0:
        raise RuntimeError("Repeats must be non-negative")
    return np.full(n, count, _INT64)


def repeat_interleave(input, repeats=None, dim=None, *, output_size=None):
    """Each element of ``input`` repeated ``repeats`` times along ``dim`` (the flattened input when None).

    ``torch.repeat_interleave(counts)`` alone gives ``arange(len(counts))`` repeated by ``counts``.
    """
    tensor_arg(input, "repeat_interleave")
    if repeats is None:
        r = input.array
        if r.ndim != 1:
            raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
        if r.dtype.kind not in "iu":
            raise NotImplementedError(f"\"repeat_interleave_cpu\" not implemented for '{type_name(r.dtype)}'")
        if (r < 0).any():
            raise RuntimeError("repeats can not be negative")
        result = np.repeat(np.arange(r.size, dtype=r.dtype), r)
        _check_output_size(output_size, result.size)
        return fresh(result)
    if dim is None:
        x, d = reshape_to(input, (input.array.size,)), 0
    else:
        if type(dim) is not int and not isinstance(dim, (np.integer, CoreTensor)):
            raise TypeError(f"repeat_interleave() received an invalid combination of arguments - got dim of type "
                            f"{type(dim).__name__}")
        if input.array.ndim == 0:
            raise IndexError(f"Dimension out of range (expected to be in range of [-1, 0], but got {dim})")
        x, d = input, wrap_dim(dim, input.array.ndim)
    n = x.array.shape[d]
    counts = _repeat_counts(repeats, n, d)
    total = int(counts.sum())
    _check_output_size(output_size, total)
    if not recording(x):
        return fresh(np.repeat(x.array, counts, axis=d))
    if not isinstance(repeats, CoreTensor) and _traced_sizes.tracing():
        # one count for all: indices from the shape, so an export with dynamic axes recomputes them
        return call(op("Gather", axis=d), x, _traced_sizes.repeat_index(x, d, int(counts[0]) if n else 0))
    return call(op("Gather", axis=d), x, np.repeat(np.arange(n, dtype=_INT64), counts))


def _check_output_size(output_size, total):
    if output_size is not None and output_size != total:
        raise RuntimeError(f"repeat_interleave: Invalid output_size, expected {total} but got {output_size}")


# -- atleast_nd -------------------------------------------------------------------------------
def _atleast(tensors, ndim, name):
    single = len(tensors) == 1 and isinstance(tensors[0], Tensor)
    if len(tensors) == 1 and isinstance(tensors[0], (tuple, list)):
        tensors = tensors[0]
    out = []
    for x in tensors:
        if not isinstance(x, Tensor):
            raise TypeError(f"{name}() received an invalid combination of arguments - got ({type(x).__name__})")
        n = x.array.ndim
        if n >= ndim:
            out.append(x)
        elif n == 0:
            out.append(reshape_to(x, (1,) * ndim))
        elif n == 1 and ndim == 2:
            out.append(reshape_to(x, (1, x.array.size)))
        elif n == 1:
            out.append(reshape_to(x, (1, x.array.size, 1)))
        else:
            out.append(unsqueeze(x, 2))
    return out[0] if single else tuple(out)


def atleast_1d(*tensors):
    """Each tensor with at least 1 dim (0-dim ones become views of shape (1,))."""
    return _atleast(tensors, 1, "atleast_1d")


def atleast_2d(*tensors):
    """Each tensor with at least 2 dims (views of shape (1, n) or (1, 1))."""
    return _atleast(tensors, 2, "atleast_2d")


def atleast_3d(*tensors):
    """Each tensor with at least 3 dims (views of shape (1, n, 1), (m, n, 1) or (1, 1, 1))."""
    return _atleast(tensors, 3, "atleast_3d")


TENSOR_METHODS = {
    "narrow": narrow, "select": select, "diagonal": diagonal, "diag": diag, "diag_embed": diag_embed,
    "diagflat": diagflat, "trace": trace, "tril": tril, "triu": triu, "tril_": _tril_, "triu_": _triu_,
    "flip": _flip_method, "fliplr": fliplr, "flipud": flipud, "roll": roll, "rot90": rot90, "repeat": _repeat,
    "tile": _tile_method, "repeat_interleave": repeat_interleave,
}
