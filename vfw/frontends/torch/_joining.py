"""Expanding, joining and splitting: expand, broadcast_*, cat/stack and friends, split/chunk/unbind, meshgrid.

Expanded tensors are numpy broadcast views of their input: read-only where elements repeat
(torch refuses most in-place writes into such tensors too), writable where nothing repeats.
Pieces of ``split``, ``chunk``, ``tensor_split`` and ``unbind`` are views of the input;
``cat`` and ``stack`` promote their inputs to one dtype (as torch does) and copy.
"""

import operator

import numpy as np

from vfw.core.autograd import is_grad_enabled as _is_grad_enabled
from vfw.core.graph.trace import _active as _tracing
from vfw.core.tensor import Tensor as CoreTensor
from vfw.frontends._warnings import warn_once
from vfw.frontends.torch import _dtype, _traced_sizes, _traced_views
from vfw.frontends.torch._dispatch import call, can_cast, cast, finish, op, type_name, view_of
from vfw.frontends.torch._grad_fn_names import names_grad_fn, split_name
from vfw.frontends.torch._layout import atleast_1d, atleast_2d, atleast_3d
from vfw.frontends.torch._shape import (
    as_view,
    engine_view,
    fresh,
    int_arg,
    permuted,
    prod,
    recording,
    reshape_to,
    shape_array,
    sizes_arg,
    tensor_arg,
    wrap_dim,
)
from vfw.frontends.torch._size import Size
from vfw.frontends.torch._tensor import Tensor

__all__ = ["broadcast_to", "broadcast_tensors", "broadcast_shapes", "cat", "concat", "concatenate", "stack",
           "hstack", "vstack", "row_stack", "dstack", "column_stack", "split", "split_with_sizes", "chunk",
           "tensor_split", "unbind", "hsplit", "vsplit", "dsplit", "meshgrid"]

_EXPAND = op("Expand")
_SLICE = op("Slice")
_SQUEEZE = op("Squeeze")
_UNSQUEEZE = op("Unsqueeze")
_RESHAPE = op("Reshape", allowzero=1)


# -- expand / broadcast -----------------------------------------------------------------------
def _type_label(arr):
    return f"torch.{type_name(arr.dtype)}Tensor"


def _expanded_shape(arr, sizes):
    shape = arr.shape
    lead = len(sizes) - len(shape)
    if lead < 0:
        raise RuntimeError(f"expand({_type_label(arr)}{{{list(shape)}}}, size={list(sizes)}): the number of sizes "
                           f"provided ({len(sizes)}) must be greater or equal to the number of dimensions in the "
                           f"tensor ({len(shape)})")
    target = []
    for i, s in enumerate(sizes):
        if i < lead:
            if s == -1:
                raise RuntimeError(f"The expanded size of the tensor (-1) isn't allowed in a leading, non-existing "
                                   f"dimension {i}")
        else:
            d = shape[i - lead]
            if s == -1:
                s = d
            elif s != d and d != 1:
                raise RuntimeError(f"The expanded size of the tensor ({s}) must match the existing size ({d}) at "
                                   f"non-singleton dimension {i}.  Target sizes: {list(sizes)}.  Tensor sizes: "
                                   f"{list(shape)}")
        if s < 0:
            raise RuntimeError(f"expand: invalid size {s} at dimension {i} of target sizes {list(sizes)}")
        target.append(s)
    return tuple(target)


def _expand_to(x, sizes):
    """A view of ``x`` broadcast to ``sizes`` (torch's expand sizes: -1 keeps a dim).

    Read-only where elements repeat, as numpy broadcast views are; writable where nothing repeats.
    """
    arr = x.array
    key = (arr.shape, arr.strides, sizes)
    plan = _PLANS.get(key)
    if plan is None:
        plan = _expand_plan(arr, sizes)
        if len(_PLANS) > 1024:
            _PLANS.clear()
        _PLANS[key] = plan
    target, repeats, strides = plan
    if not repeats:
        return reshape_to(x, target) if target != arr.shape else permuted(x, tuple(range(arr.ndim)))
    if recording(x):
        return engine_view(x, _EXPAND, shape_array(target))
    if strides is None:
        return as_view(x, np.broadcast_to(arr, target))
    out = np.ndarray(target, arr.dtype, arr, 0, strides)  # np.broadcast_to's view at a quarter of its cost
    out.flags.writeable = False
    return as_view(x, out)


_PLANS = {}  # (shape, strides, sizes) -> (target shape, whether elements repeat, strides for C-contiguous input)


def _expand_plan(arr, sizes):
    target = _expanded_shape(arr, sizes)
    repeats = prod(target) != arr.size
    strides = None
    if repeats and arr.flags.c_contiguous:
        strides = (0,) * (len(target) - arr.ndim) + tuple(0 if d == 1 else s for d, s in zip(arr.shape, arr.strides))
    return target, repeats, strides


@names_grad_fn("ExpandBackward0")
def _expand(self, *sizes, **kwargs):
    """A view of ``self`` broadcast to ``sizes`` (-1 keeps a dim; new dims are added in front)."""
    if kwargs:
        if sizes or set(kwargs) != {"size"}:
            raise TypeError(f"expand() got an unexpected keyword argument '{next(iter(kwargs))}'")
        sizes = (kwargs["size"],)
    return _expand_to(self, sizes_arg(sizes, "expand"))


@names_grad_fn("ExpandBackward0")
def _expand_as(self, other):
    """``self.expand(other.size())``."""
    return _expand_to(self, tensor_arg(other, "expand_as", "other").array.shape)


@names_grad_fn("ExpandBackward0")
def broadcast_to(input, size):
    """``input.expand(size)``."""
    tensor_arg(input, "broadcast_to")
    return _expand_to(input, sizes_arg((size,), "broadcast_to"))


def broadcast_shapes(*shapes):
    """The torch.Size that tensors of ``shapes`` broadcast to (ints count as 1-D shapes)."""
    dims = []
    for s in shapes:
        dims.append((operator.index(s),) if not isinstance(s, (tuple, list)) else tuple(operator.index(d) for d in s))
    rank = max((len(s) for s in dims), default=0)
    result = [1] * rank
    for s in dims:
        for i, d in enumerate(s):
            if d < 0:
                raise ValueError("Attempting to broadcast a dimension with negative length!")
            j = rank - len(s) + i
            if result[j] == 1:
                result[j] = d
    for k, s in enumerate(dims):
        for i, d in enumerate(s):
            j = rank - len(s) + i
            if d != 1 and d != result[j]:
                raise RuntimeError(f"Attempting to broadcast a dimension of length {d} at {i - len(s)}! Mismatching "
                                   f"argument at index {k} had {tuple(s)}; but expected shape should be "
                                   f"broadcastable to {result}")
    return Size(result)


def broadcast_tensors(*tensors):
    """Views of ``tensors`` broadcast to their common shape."""
    for i, x in enumerate(tensors):
        if not isinstance(x, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got {type(x).__name__}")
    rank = max((x.array.ndim for x in tensors), default=0)
    target = [1] * rank
    for x in tensors:
        shape = x.array.shape
        for i, d in enumerate(shape):
            j = rank - len(shape) + i
            if d != 1:
                if target[j] != 1 and target[j] != d:
                    raise RuntimeError(f"The size of tensor a ({target[j]}) must match the size of tensor b ({d}) at "
                                       f"non-singleton dimension {j}")
                target[j] = d
    target = tuple(target)
    # torch returns a tensor that already has the shape itself, not a view of it
    return tuple(x if x.array.shape == target else _expand_to(x, target) for x in tensors)


# -- cat / stack ------------------------------------------------------------------------------
def _tensor_list(tensors, name):
    if not isinstance(tensors, (tuple, list)):
        raise TypeError(f"{name}(): argument 'tensors' (position 1) must be tuple of Tensors, not "
                        f"{type(tensors).__name__}")
    for i, x in enumerate(tensors):
        if not isinstance(x, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got {type(x).__name__}")
    return tensors


def _scan(tensors, name):
    """One pass over a cat/stack argument: (arrays, promoted dtype or None when all agree, engine must record)."""
    if type(tensors) is not list and type(tensors) is not tuple:
        _tensor_list(tensors, name)
    arrays = []
    first = promoted = None
    record = bool(_tracing)
    for x in tensors:
        if not isinstance(x, Tensor):
            _tensor_list(tensors, name)
        a = x.array
        if first is None:
            first = a.dtype
        elif a.dtype != first:
            promoted = _dtype.promote_types(promoted or first, a.dtype)
        if x.requires_grad and not record:
            record = _is_grad_enabled()
        arrays.append(a)
    return arrays, promoted, record


def _concat_errors(tensors, dim, skipped):
    """Raise torch's error for tensors that cannot be concatenated along ``dim`` (normalized)."""
    ref = None
    for i, x in enumerate(tensors):
        if i in skipped:
            continue
        shape = x.array.shape
        if ref is None:
            ref = shape
        elif len(shape) != len(ref):
            raise RuntimeError(f"Tensors must have same number of dimensions: got {len(ref)} and {len(shape)}")
        else:
            for k, (a, b) in enumerate(zip(ref, shape)):
                if k != dim and a != b:
                    raise RuntimeError(f"Sizes of tensors must match except in dimension {dim}. Expected size {a} but "
                                       f"got size {b} for tensor number {i} in the list.")


def _check_out(out, dtype):
    if isinstance(out, CoreTensor) and not can_cast(dtype, out.array.dtype):
        raise TypeError(f"torch.cat(): input types can't be cast to the desired output type "
                        f"{type_name(out.array.dtype)}")


def cat(tensors, dim=0, *, axis=None, out=None):
    """The tensors joined along ``dim`` (promoted to one dtype; 1-D empty tensors are skipped, as torch does)."""
    arrays, promoted, record = _scan(tensors, "cat")
    if not arrays:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    dtype = promoted or arrays[0].dtype
    if axis is not None:
        dim = axis
    if out is not None:
        _check_out(out, dtype)
    skipped = ()
    for a in arrays:
        if a.ndim <= 1 and a.size <= 1:  # one check on the fast path for 0-dim and empty 1-D tensors
            skipped = _skipped(arrays)
            break
    if skipped:
        if len(skipped) == len(arrays):
            return finish(fresh(np.empty((0,), dtype)), out, "cat")
        arrays = [a for i, a in enumerate(arrays) if i not in skipped]
    nd = arrays[0].ndim
    d = dim if type(dim) is int and 0 <= dim < nd else wrap_dim(dim, nd)
    if not record:
        if promoted is not None:
            arrays = [a if a.dtype == dtype else a.astype(dtype) for a in arrays]
        try:
            result = fresh(np.concatenate(arrays, d))
        except ValueError:
            _concat_errors(tensors, d, skipped)
            raise
    else:
        _concat_errors(tensors, d, skipped)
        parts = [cast(x, dtype) for i, x in enumerate(tensors) if i not in skipped]
        result = call(op("Concat", axis=d), *parts)
    return result if out is None else finish(result, out, "cat")


def _skipped(arrays):
    """Positions of the empty 1-D tensors cat skips; torch's error for a 0-dim tensor."""
    skipped = set()
    for i, a in enumerate(arrays):
        if a.ndim == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be concatenated")
        if a.ndim == 1 and not a.size:
            skipped.add(i)
    return skipped


def concat(tensors, dim=0, *, axis=None, out=None):
    """Alias of ``cat``."""
    return cat(tensors, dim, axis=axis, out=out)


def concatenate(tensors, axis=0, *, dim=None, out=None):
    """Alias of ``cat`` (numpy's argument name)."""
    return cat(tensors, axis if dim is None else dim, out=out)


@names_grad_fn("StackBackward0")
def stack(tensors, dim=0, *, out=None):
    """The tensors (all of one shape) joined along a new dim ``dim``."""
    arrays, promoted, record = _scan(tensors, "stack")
    if not arrays:
        raise RuntimeError("stack expects a non-empty TensorList")
    dtype = promoted or arrays[0].dtype
    shape = arrays[0].shape
    for i, a in enumerate(arrays):
        if a.shape != shape:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got {list(shape)} at entry 0 and "
                               f"{list(a.shape)} at entry {i}")
    d = wrap_dim(dim, len(shape) + 1)
    if out is not None:
        _check_out(out, dtype)
    if not record:
        y = np.empty(shape[:d] + (len(arrays),) + shape[d:], dtype)
        moved = y if d == 0 else np.moveaxis(y, d, 0)
        for i, a in enumerate(arrays):  # faster than np.stack for the usual few tensors
            moved[i] = a
        result = fresh(y)
    elif d < len(shape):  # join along d, then split d into (count, size): two recorded ops for any count
        joined = call(op("Concat", axis=d), *[cast(x, dtype) for x in tensors])
        result = call(_RESHAPE, joined, shape_array(shape[:d] + (len(arrays),) + shape[d:]))
    else:
        axes = shape_array((d,))
        result = call(op("Concat", axis=d), *[call(_UNSQUEEZE, cast(x, dtype), axes) for x in tensors])
    return result if out is None else finish(result, out, "stack")


def _nonempty(tensors, name):
    _tensor_list(tensors, name)
    if not tensors:
        raise RuntimeError(f"{name} expects a non-empty TensorList")
    return tensors


def hstack(tensors, *, out=None):
    """Tensors joined column-wise: along dim 1, or dim 0 for 1-D tensors (0-dim ones count as 1-D)."""
    parts = atleast_1d(_nonempty(tensors, "hstack"))
    return cat(parts, 0 if parts[0].array.ndim == 1 else 1, out=out)


def vstack(tensors, *, out=None):
    """Tensors joined row-wise (along dim 0, after making each at least 2-D)."""
    return cat(atleast_2d(_nonempty(tensors, "vstack")), 0, out=out)


def row_stack(tensors, *, out=None):
    """Alias of ``vstack``."""
    return cat(atleast_2d(_nonempty(tensors, "row_stack")), 0, out=out)


def dstack(tensors, *, out=None):
    """Tensors joined depth-wise (along dim 2, after making each at least 3-D)."""
    return cat(atleast_3d(_nonempty(tensors, "dstack")), 2, out=out)


def column_stack(tensors, *, out=None):
    """Tensors joined as columns: 0-dim and 1-D tensors become columns, others join along dim 1."""
    parts = [reshape_to(x, (x.array.size, 1)) if x.array.ndim <= 1 else x
             for x in _nonempty(tensors, "column_stack")]
    return cat(parts, 1, out=out)


# -- split / chunk / unbind -------------------------------------------------------------------
def _pieces(x, d, bounds):
    """Views of ``x`` at ``start:stop`` along dim ``d`` for each (start, stop) in ``bounds`` (normalized)."""
    arr = x.array
    lead = (slice(None),) * d
    if not recording(x):
        return tuple([as_view(x, arr[lead + (slice(a, b),)]) for a, b in bounds])
    axes = shape_array((d,))
    return tuple([engine_view(x, _SLICE, shape_array((a,)), shape_array((b,)), axes) for a, b in bounds])


def _partition(x, d, sizes):
    bounds, start = [], 0
    for s in sizes:
        bounds.append((start, start + s))
        start += s
    return _pieces(x, d, bounds)


def _int_or_tensor(value):
    if isinstance(value, CoreTensor) and value.array.ndim == 0 and value.array.dtype.kind in "iu":
        return int(value.array)
    return value


@names_grad_fn(split_name)
def split(tensor, split_size_or_sections, dim=0):
    """Views of ``tensor`` in pieces of ``split_size`` (the last may be smaller) or of the given sizes."""
    tensor_arg(tensor, "split")
    size = _int_or_tensor(split_size_or_sections)
    if isinstance(size, (tuple, list)):
        return split_with_sizes(tensor, size, dim)
    if isinstance(size, (bool, np.bool_)) or not isinstance(size, (int, np.integer)):
        raise TypeError(f"split_with_sizes(): argument 'split_sizes' (position 2) must be tuple of ints, not "
                        f"{type(size).__name__}")
    size = int(size)
    arr = tensor.array
    if arr.ndim == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    d = wrap_dim(dim, arr.ndim)
    n = arr.shape[d]
    if size < 0:
        raise RuntimeError(f"split expects split_size be non-negative, but got split_size={size}")
    if size == 0 and n:
        raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension size of {n}")
    count = max(-(-n // size), 1) if size else 1
    return _partition(tensor, d, [size] * (count - 1) + [n - size * (count - 1)])


def _split_method(self, split_size, dim=0):
    return split(self, split_size, dim)


def split_with_sizes(input, split_sizes, dim=0):
    """Views of ``input`` in pieces of the given sizes along ``dim`` (they must sum to its size)."""
    tensor_arg(input, "split_with_sizes")
    if not isinstance(split_sizes, (tuple, list)):
        raise TypeError(f"split_with_sizes(): argument 'split_sizes' (position 1) must be tuple of ints, not "
                        f"{type(split_sizes).__name__}")
    sizes = sizes_arg((split_sizes,), "split_with_sizes", "split_sizes")
    arr = input.array
    if arr.ndim == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    d = wrap_dim(dim, arr.ndim)
    if any(s < 0 for s in sizes):
        raise RuntimeError(f"split_with_sizes expects split_sizes have only non-negative entries, but got "
                           f"split_sizes={list(sizes)}")
    if sum(sizes) != arr.shape[d]:
        raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {arr.shape[d]} (input tensor's "
                           f"size at dimension {d}), but got split_sizes={list(sizes)}")
    return _partition(input, d, sizes)


@names_grad_fn("SplitBackward0")
def chunk(input, chunks, dim=0):
    """Views of ``input`` in ``chunks`` pieces of ceil(size / chunks) (fewer when they run out)."""
    tensor_arg(input, "chunk")
    chunks = int_arg(chunks, "chunk", "chunks")
    arr = input.array
    if arr.ndim == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    d = wrap_dim(dim, arr.ndim)
    n = arr.shape[d]
    size = -(-n // chunks)
    if n == 0:
        return _partition(input, d, [0] * chunks)
    count = -(-n // size)
    return _partition(input, d, [size] * (count - 1) + [n - size * (count - 1)])


def tensor_split(input, indices_or_sections=None, dim=0, *, sections=None, indices=None,
                 tensor_indices_or_sections=None):
    """Views of ``input``: ``sections`` near-equal pieces, or the pieces between ``indices`` (Python slicing)."""
    tensor_arg(input, "tensor_split")
    spec = _first(indices_or_sections, sections, indices, tensor_indices_or_sections)
    arr = input.array
    if arr.ndim == 0:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims")
    d = wrap_dim(dim, arr.ndim)
    n = arr.shape[d]
    if isinstance(spec, CoreTensor):
        if spec.array.dtype != np.int64:
            raise RuntimeError(f"tensor_split expected tensor_indices_or_sections to have dtype of long, but got "
                               f"{type_name(spec.array.dtype)}")
        if spec.array.ndim > 1:
            raise RuntimeError(f"tensor_split expected tensor_indices_or_sections to be a zero-dimensional or "
                               f"one-dimensional tensor, but got a tensor with {spec.array.ndim} dims")
        spec = spec.array.tolist()
    if isinstance(spec, (tuple, list)):
        bounds, prev = [], 0
        for idx in list(sizes_arg((spec,), "tensor_split", "indices")) + [None]:
            start, stop, _ = slice(prev, idx).indices(n)
            bounds.append((start, max(start, stop)))
            prev = idx
        return _pieces(input, d, bounds)
    count = int_arg(spec, "tensor_split", "sections")
    if count <= 0:
        raise RuntimeError(f"number of sections must be larger than 0, got {count}")
    q, r = divmod(n, count)
    return _partition(input, d, [q + 1] * r + [q] * (count - r))


@names_grad_fn("UnbindBackward0")
def unbind(input, dim=0):
    """Views of each slice of ``input`` along ``dim`` (that dim removed)."""
    tensor_arg(input, "unbind")
    arr = input.array
    if arr.ndim == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    d = wrap_dim(dim, arr.ndim)
    n = arr.shape[d]
    lead = (slice(None),) * d
    if not recording(input):
        return tuple([as_view(input, arr[lead + (i, Ellipsis)]) for i in range(n)])
    axes = shape_array((d,))
    pieces = _partition(input, d, [1] * n)
    views = tuple([view_of(input, call(_SQUEEZE, p, axes)) for p in pieces])
    if _traced_sizes.tracing():  # a write into one is recorded through its piece (positions from input's shape)
        for view, piece in zip(views, pieces):
            _traced_views.mark_op(view, piece, lambda t: call(_SQUEEZE, t, axes))
    return views


def _first(*specs):
    """The one of torch's alternative argument names that was given."""
    return next((s for s in specs if s is not None), None)


def _split_along(input, spec, name, min_ndim, dim):
    arr = input.array
    if arr.ndim < min_ndim:
        raise RuntimeError(f"torch.{name} requires a tensor with at least {min_ndim} dimension, but got a tensor "
                           f"with {arr.ndim} dimensions!")
    if isinstance(spec, (tuple, list)):
        return tensor_split(input, spec, dim)
    if isinstance(spec, (bool, np.bool_)) or not isinstance(spec, (int, np.integer)):
        raise TypeError(f"{name}() received an invalid combination of arguments - got ({type(spec).__name__}), but "
                        "expected one of: (int sections), (tuple of ints indices)")
    n = arr.shape[dim]
    if spec == 0 or n % spec:
        raise RuntimeError(f"torch.{name} attempted to split along dimension {dim}, but the size of the dimension "
                           f"{n} is not divisible by the split_size {spec}!")
    return tensor_split(input, int(spec), dim)


def hsplit(input, indices_or_sections=None, *, sections=None, indices=None):
    """``tensor_split`` along dim 1 (dim 0 for 1-D tensors); a number of sections must divide the size."""
    tensor_arg(input, "hsplit")
    spec = _first(indices_or_sections, sections, indices)
    return _split_along(input, spec, "hsplit", 1, 1 if input.array.ndim > 1 else 0)


def vsplit(input, indices_or_sections=None, *, sections=None, indices=None):
    """``tensor_split`` along dim 0 of a tensor of at least 2 dims."""
    tensor_arg(input, "vsplit")
    return _split_along(input, _first(indices_or_sections, sections, indices), "vsplit", 2, 0)


def dsplit(input, indices_or_sections=None, *, sections=None, indices=None):
    """``tensor_split`` along dim 2 of a tensor of at least 3 dims."""
    tensor_arg(input, "dsplit")
    return _split_along(input, _first(indices_or_sections, sections, indices), "dsplit", 3, 2)


# -- meshgrid ---------------------------------------------------------------------------------
def meshgrid(*tensors, indexing=None):
    """Coordinate grids of 0-dim/1-D tensors: views expanded to the grid shape (``indexing`` 'ij' or 'xy')."""
    if len(tensors) == 1 and isinstance(tensors[0], (tuple, list)):
        tensors = tensors[0]
    _tensor_list(tensors, "meshgrid")
    if not tensors:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    for x in tensors:
        if x.array.ndim > 1:
            raise RuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got a tensor of "
                               f"shape {list(x.array.shape)}")
        if x.array.dtype != tensors[0].array.dtype:
            raise RuntimeError("meshgrid expects all tensors to have the same dtype")
    if indexing is None:
        warn_once("torch.meshgrid: in an upcoming release, it will be required to pass the indexing argument.",
                      UserWarning)
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: {indexing}')
    n = len(tensors)
    position = list(range(n))
    if indexing == "xy" and n >= 2:
        position[0], position[1] = 1, 0
    shape = [0] * n
    for x, p in zip(tensors, position):
        shape[p] = x.array.size
    shape = tuple(shape)
    grids = []
    for x, p in zip(tensors, position):
        along = [1] * n
        along[p] = x.array.size
        grids.append(_expand_to(reshape_to(x, tuple(along)), shape))
    return tuple(grids)


TENSOR_METHODS = {
    "expand": _expand, "expand_as": _expand_as, "broadcast_to": broadcast_to, "split": _split_method,
    "split_with_sizes": split_with_sizes, "chunk": chunk, "tensor_split": tensor_split, "unbind": unbind,
    "hsplit": hsplit, "vsplit": vsplit, "dsplit": dsplit,
    "unsafe_split": _split_method, "unsafe_split_with_sizes": split_with_sizes, "unsafe_chunk": chunk,
}
