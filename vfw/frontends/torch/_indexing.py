"""Indexing: ``x[key]``, ``x[key] = value``, and the helpers the gather/scatter family shares.

A torch index is split into a *basic* part (ints, slices, None, Ellipsis: a view) and an
*advanced* part (integer and boolean tensors, applied to that view: a copy).  Torch applies
ints as ``select`` before the tensors, so an int never counts as an advanced index (unlike
numpy); the advanced part then follows numpy's rule: the indexed dims are replaced in place
by the broadcast index shape when the index tensors are adjacent, else moved to the front.

Without autograd and tracing, both parts run as numpy indexing; otherwise as engine ops
(Slice/Squeeze/Unsqueeze, then Gather/Compress/GatherND) so gradients flow.  Writes use the
flat positions the same parse selects (ScatterND on the flattened tensor when tracked).
"""

import math
import operator

import numpy as np

from vfw.core import autograd as _autograd
from vfw.core.graph import trace as _trace
from vfw.core.tensor import Tensor as CoreTensor
from vfw.frontends._warnings import warn_for_user
from vfw.frontends.torch import _dispatch, _traced_views
from vfw.frontends.torch._dispatch import call, op, wrap
from vfw.frontends.torch._grad_fn_names import getitem_name, names_grad_fn
from vfw.frontends.torch._traced import value_shaped

__all__ = []

_is_grad_enabled = _autograd.is_grad_enabled


def tracing():
    """Whether a graph trace is recording on this thread."""
    return _trace.current_trace() is not None


_view_of = _dispatch.view_of
_INT64 = np.dtype(np.int64)
_INT32 = np.dtype(np.int32)
_BOOL = np.dtype(np.bool_)
_UINT8 = np.dtype(np.uint8)
_FULL = slice(None)
_INDEX_DTYPES = (_INT64, _INT32)
_FAST_INDEX_DTYPES = (_INT64, _INT32, _BOOL)
_TRUE_INDEX = np.zeros(1, _INT64)  # a Python True indexes a new size-1 dim at position 0
_FALSE_INDEX = np.zeros(0, _INT64)

# kinds of index entries
_INT, _SLICE, _NONE, _ELLIPSIS, _SCALAR_BOOL, _ARRAY, _MASK = range(7)


def int64s(values):
    return np.array(values, _INT64)


def dim_of(dim, ndim):
    """``dim`` in ``[0, ndim)`` (0-d tensors accept -1 and 0), else torch's IndexError."""
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    return dim % n


def is_tracked(*tensors):
    """Whether a result computed from ``tensors`` must be recorded (autograd or an active trace)."""
    if tracing():
        return True
    if not _is_grad_enabled():
        return False
    for t in tensors:
        if isinstance(t, CoreTensor) and t.requires_grad:
            return True
    return False


_LIMITS = {}


def _limits(np_dtype):
    """(low, high, integral) of the numbers torch accepts as a fill value of ``np_dtype``."""
    limits = _LIMITS.get(np_dtype)
    if limits is None:
        if np_dtype.kind in "iu":
            info = np.iinfo(np_dtype)
            # torch lets negative values wrap into unsigned types
            limits = (-int(info.max) if np_dtype.kind == "u" else int(info.min), int(info.max), True)
        elif np_dtype.kind == "f" and np_dtype.itemsize >= 4:  # half types saturate to inf instead
            limits = (-float(np.finfo(np_dtype).max), float(np.finfo(np_dtype).max), False)
        else:
            limits = (-math.inf, math.inf, False)
        _LIMITS[np_dtype] = limits
    return limits


def fill_scalar(value, np_dtype, name="fill"):
    """A Python number as a 0-d array of ``np_dtype``, refusing what torch refuses (overflow, NaN into ints)."""
    if np_dtype == _BOOL:
        return np.asarray(bool(value))
    if isinstance(value, (bool, np.bool_)):
        return np.asarray(value, np_dtype)
    if isinstance(value, (complex, np.complexfloating)):
        if np_dtype.kind == "c":
            return np.asarray(value, np_dtype)
        raise RuntimeError(f"{name}: value cannot be converted to type {_dispatch.type_name(np_dtype)} without "
                           "overflow")
    if isinstance(value, (int, np.integer)) and not -9223372036854775808 <= value <= 9223372036854775807:
        raise ValueError(f"{name}: Overflow when unpacking long")
    low, high, integral = _limits(np_dtype)
    if not low <= value <= high and (integral or math.isfinite(value)):
        raise RuntimeError(f"{name}: value cannot be converted to type {_dispatch.type_name(np_dtype)} without "
                           "overflow")
    return _dispatch.scalar_array(value, np_dtype)


def is_number(value):
    return isinstance(value, (int, float, complex, np.number, np.bool_))


def check_index_dtype(index, allowed, exc, message):
    if index.array.dtype not in allowed:
        raise exc(message.format(_dispatch.type_name(index.array.dtype)))


def finish(result, out, name):
    """``result``, or written into ``out`` (whose dtype must be the result's, as these torch ops require)."""
    if out is not None and isinstance(out, CoreTensor) and out.array.dtype != result.array.dtype:
        raise RuntimeError(f"{name}(): expected out tensor to have dtype {_dispatch.type_name(result.array.dtype)}, "
                           f"but got {_dispatch.type_name(out.array.dtype)} instead")
    return _dispatch.finish(result, out, name)


def method(fn):
    """``fn`` as a Tensor method: torch's methods take no ``out=``."""
    def bound(self, *args, **kwargs):
        if "out" in kwargs:
            raise TypeError(f"{fn.__name__}() got an unexpected keyword argument 'out'")
        return fn(self, *args, **kwargs)
    bound.__name__ = fn.__name__
    bound.__doc__ = fn.__doc__
    return bound


_BASES = {}


def flat_index(i, d, shape):
    """Flat positions, in a C-ordered array of ``shape``, of ``x[..., i[pos], ...]`` (``i`` along ``d``).

    ``i`` holds in-range values and is no larger than ``shape`` in the other dims.  The offsets
    of the other dims are cached per shape (for small indices: they are reused in loops).
    """
    plan = _BASES.get((i.shape, shape, d))
    if plan is None:
        strides = [math.prod(shape[k + 1:]) for k in range(len(shape))]
        base = np.zeros(i.shape, _INT64)
        for k, n in enumerate(i.shape):
            if k != d and n > 1:
                base = base + np.arange(0, n * strides[k], strides[k]).reshape((n,) + (1,) * (i.ndim - k - 1))
        plan = (base, strides[d])
        if i.size <= 4096:
            if len(_BASES) > 256:
                _BASES.clear()
            _BASES[(i.shape, shape, d)] = plan
    base, stride = plan
    return base + (i if stride == 1 else i * stride)


# -- parsing a torch index --------------------------------------------------------------
def _as_items(key):
    if type(key) is tuple:
        return key
    if type(key) is list and len(key) < 32 and any(
            k is None or k is Ellipsis or isinstance(k, (list, tuple, slice, CoreTensor, np.ndarray)) for k in key):
        warn_for_user("Using a non-tuple sequence for multidimensional indexing is deprecated and will be changed "
                      "in pytorch 2.9; use x[tuple(seq)] instead of x[seq]. In pytorch 2.9 this will be interpreted "
                      "as tensor index, x[torch.tensor(seq)], which will result either in an error or a different "
                      "result", UserWarning)
        return tuple(key)
    return (key,)


def _classify(k):
    """(kind, payload) of one index entry."""
    t = type(k)
    if t is int:
        return _INT, k
    if t is slice:
        step = k.step
        if step is not None:
            step = operator.index(step)
            if step == 0:
                raise ValueError("slice step cannot be zero")
            if step < 0:
                raise ValueError("step must be greater than zero")
        return _SLICE, k
    if k is None:
        return _NONE, None
    if k is Ellipsis:
        return _ELLIPSIS, None
    if t is bool or t is np.bool_:
        return _SCALAR_BOOL, bool(k)
    if isinstance(k, CoreTensor):
        a = k.array
    elif isinstance(k, np.ndarray):
        a = k
    elif isinstance(k, (list, tuple, range)):  # torch reads any Python sequence, range included, as a tensor
        a = _dispatch.array_from(list(k)) if len(k) else np.zeros(0, _INT64)
        if a.dtype != _BOOL:  # torch reads Python sequences as long tensors (floats truncated)
            a = a.astype(_INT64)
    elif isinstance(k, (float, np.floating)):
        raise IndexError("only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are "
                         f"valid indices (got {type(k).__name__})")
    elif hasattr(k, "__index__"):
        return _INT, operator.index(k)
    else:
        raise TypeError(f"only integers, slices (`:`), ellipsis (`...`), None, bools and integer or boolean "
                        f"tensors are valid indices (got {type(k).__name__})")
    if a.dtype == _UINT8:
        warn_for_user("indexing with dtype torch.uint8 is now deprecated, please use a dtype torch.bool instead.",
                      UserWarning)
        a = a.astype(_BOOL)
    if a.dtype == _BOOL:
        return (_SCALAR_BOOL, bool(a)) if a.ndim == 0 else (_MASK, a)
    if a.dtype not in _INDEX_DTYPES:
        raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    return (_INT, int(a)) if a.ndim == 0 else (_ARRAY, a)


def parse(shape, key, check=True):
    """Split a torch index on a tensor of ``shape`` into ``(basic, advanced)``.

    ``basic`` is a tuple of in-range non-negative ints, slices and None (no Ellipsis) for numpy;
    ``advanced`` lists ``(dim, array)`` over the basic result: int arrays and bool masks (covering
    ``mask.ndim`` dims).  A bool scalar becomes a None in ``basic`` indexed by a length-1 (True)
    or empty (False) int array, which is what it means.  ``check=False`` skips the bounds and
    broadcast checks of the int arrays (for numpy, which makes them itself).
    """
    items = [_classify(k) for k in _as_items(key)]
    ndim = len(shape)
    used = 0
    for kind, p in items:
        if kind <= _SLICE or kind == _ARRAY:
            used += 1
        elif kind == _MASK:
            used += p.ndim
    if used > ndim:
        if ndim == 0:
            raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` "
                             "in C++ to convert a 0-dim tensor to a number")
        raise IndexError(f"too many indices for tensor of dimension {ndim}")
    basic, adv = [], []
    dim = out = 0
    expanded = False
    for kind, p in items:
        if kind == _INT:
            n = shape[dim]
            if not -n <= p < n:
                raise IndexError(f"index {p} is out of bounds for dimension {dim} with size {n}")
            basic.append(p + n if p < 0 else p)
            dim += 1
        elif kind == _SLICE:
            basic.append(p)
            dim += 1
            out += 1
        elif kind == _NONE:
            basic.append(None)
            out += 1
        elif kind == _ELLIPSIS:
            if not expanded:  # torch expands the first Ellipsis; later ones take no dims
                rest = ndim - used
                basic.extend([_FULL] * rest)
                dim += rest
                out += rest
                expanded = True
        elif kind == _SCALAR_BOOL:
            basic.append(None)
            adv.append((out, _TRUE_INDEX if p else _FALSE_INDEX))
            out += 1
        elif kind == _ARRAY:
            n = shape[dim]
            if check and p.size and (p.max() >= n or p.min() < -n):
                bad = p[(p >= n) | (p < -n)].flat[0]
                raise IndexError(f"index {bad} is out of bounds for dimension {len(adv)} with size {n}")
            basic.append(_FULL)
            adv.append((out, p))
            dim += 1
            out += 1
        else:
            for j, m in enumerate(p.shape):
                if m != shape[dim + j]:
                    raise IndexError(f"The shape of the mask {list(p.shape)} at index {j} does not match the shape "
                                     f"of the indexed tensor {list(shape)} at index {dim + j}")
            basic.extend([_FULL] * p.ndim)
            adv.append((out, p))
            dim += p.ndim
            out += p.ndim
    if check and len(adv) > 1:
        shapes = [a.shape if a.dtype != _BOOL else (int(np.count_nonzero(a)),) for _, a in adv]
        try:
            np.broadcast_shapes(*shapes)
        except ValueError:
            raise IndexError("shape mismatch: indexing tensors could not be broadcast together with shapes "
                             + ", ".join(str(list(s)) for s in shapes)) from None
    return tuple(basic), adv


def numpy_index(arr, basic, adv):
    """``arr`` indexed by a parsed index with numpy (a view when there is no advanced part)."""
    view = arr[basic + (Ellipsis,)]  # the Ellipsis keeps an all-int index a 0-d view, not a scalar
    if not adv:
        return view
    return view[_advanced_key(adv)]


def _advanced_key(adv):
    parts = []
    pos = 0
    for d, a in adv:
        parts.extend([_FULL] * (d - pos))
        parts.append(a)
        pos = d + (a.ndim if a.dtype == _BOOL else 1)
    return tuple(parts)


def positions(shape, basic, adv, like=None):
    """Flat positions (int64) of the elements a parsed index selects, shaped like the selection: an array, or
    under a graph trace a tensor computed with engine ops from the shape of ``like`` (the tensor indexed) and
    the index tensors, so that graphs recompute it from each run's shape and index values."""
    if not tracing():
        return numpy_index(np.arange(int(np.prod(shape, dtype=np.int64)), dtype=_INT64).reshape(shape), basic, adv)
    selected = _engine_basic(_traced_grid(like), basic)
    return _engine_advanced(selected, adv) if adv else selected


def _traced_grid(t):
    """The flat positions of ``t``'s elements shaped like ``t``, made by ops on its shape: a trace recomputes
    them for each run's shape (an exported model with dynamic axes, ``y[:, 0] = 0`` included)."""
    shape = call("Shape", t)
    count = call("ReduceProd", shape, keepdims=0)
    return call(_RESHAPE_OP, call("Range", np.zeros((), _INT64), count, np.ones((), _INT64)), shape)


# -- engine path (autograd, tracing) ------------------------------------------------------
_SLICE_OP = op("Slice")
_SQUEEZE_OP = op("Squeeze")
_UNSQUEEZE_OP = op("Unsqueeze")
_RESHAPE_OP = op("Reshape")
_IDENTITY_OP = op("Identity")


def reshape(t, shape):
    return call(_RESHAPE_OP, t, int64s(shape))


def _engine_basic(t, basic):
    shape = t.array.shape
    starts, ends, axes, steps, squeeze, unsqueeze = [], [], [], [], [], []
    dim = out = 0
    for k in basic:
        if k is None:
            unsqueeze.append(out)
            out += 1
        elif type(k) is slice:
            if k.start is not None or k.stop is not None or k.step is not None:
                start, stop, step = k.indices(shape[dim])
                starts.append(start)
                ends.append(max(stop, start))
                axes.append(dim)
                steps.append(step)
            dim += 1
            out += 1
        else:
            starts.append(k)
            ends.append(k + 1)
            axes.append(dim)
            steps.append(1)
            squeeze.append(dim)
            dim += 1
    if starts:
        plan = np.array((starts, ends, axes, steps), _INT64)
        t = call(_SLICE_OP, t, plan[0], plan[1], plan[2], plan[3])
    if squeeze:
        t = call(_SQUEEZE_OP, t, int64s(squeeze))
    if unsqueeze:
        t = call(_UNSQUEEZE_OP, t, int64s(unsqueeze))
    return t


def _engine_advanced(t, adv):
    shape = t.array.shape
    if len(adv) == 1:
        d, a = adv[0]
        if a.dtype != _BOOL:
            return call("Gather", t, a, axis=d)
        k = a.ndim
        if k != 1:
            t = reshape(t, shape[:d] + (int(np.prod(shape[d:d + k], dtype=np.int64)),) + shape[d + k:])
        return value_shaped(call("Compress", t, a.reshape(-1), axis=d), (d,))
    dims, index = _stacked_index(adv)
    rest = [i for i in range(len(shape)) if i not in dims]
    perm = dims + rest
    if perm != sorted(perm):
        t = call("Transpose", t, perm=perm)
    t = call("GatherND", t, index)
    first = dims[0]
    if first and dims == list(range(first, first + len(dims))):  # adjacent: the result dims stay in place
        nb = index.array.ndim - 1
        rank = t.array.ndim
        t = call("Transpose", t, perm=list(range(nb, nb + first)) + list(range(nb)) + list(range(nb + first, rank)))
    return t


def _stacked_index(adv):
    """``(dims, index)``: the dims several advanced indices address and their coordinates, broadcast together
    and stacked along a new last axis (a GatherND index), with engine ops: under a graph trace they are
    recomputed from the index values (a mask's true positions included) on every run."""
    dims, columns = [], []
    for d, a in adv:
        if a.dtype == _BOOL:
            coords = value_shaped(call("NonZero", a), (1,))
            dims.extend(range(d, d + a.ndim))
            columns.extend(call("Gather", coords, np.asarray(i, _INT64), axis=0) for i in range(a.ndim))
        else:
            dims.append(d)
            columns.append(_dispatch.cast(wrap(a), _INT64))
    common = columns[0]
    for c in columns[1:]:  # Expand broadcasts both ways: the shape all of them broadcast to
        common = call("Expand", common, call("Shape", c))
    shape = call("Shape", common)
    last = int64s([-1])
    return dims, call("Concat", *[call("Unsqueeze", call("Expand", c, shape), last) for c in columns], axis=-1)


def engine_index(t, basic, adv):
    """``t`` indexed by a parsed index with engine ops (differentiable; results equal ``numpy_index``)."""
    view = _engine_basic(t, basic)
    if adv:
        return _engine_advanced(view, adv)
    if view is t:
        view = call(_IDENTITY_OP, t)
    if tracing():  # a write into the view is then recorded with positions from t's shape
        _traced_views.mark(view, t, basic)
    return _view_of(t, view)


# -- x[key] -------------------------------------------------------------------------------
def _basic_key(key):
    """``key`` as a numpy index when it is a plain basic index torch and numpy agree on, else None."""
    tk = type(key)
    if tk is tuple:
        ellipsis = False
        for k in key:
            tk = type(k)
            if tk is slice:
                step = k.step
                if step is not None and (type(step) is not int or step <= 0):
                    return None
            elif k is Ellipsis:
                if ellipsis:
                    return None
                ellipsis = True
            elif tk is not int and k is not None:
                return None
        return key if ellipsis else key + (Ellipsis,)
    if tk is int or tk is slice and (key.step is None or type(key.step) is int and key.step > 0) or key is None:
        return (key, Ellipsis)
    if key is Ellipsis:
        return key
    return None


def _array_key(key):
    """``key`` as a numpy index when it holds tensors of ndim >= 1 and no ints or bools (numpy then agrees)."""
    if type(key) is not tuple:
        return None
    out = []
    ellipsis = False
    for k in key:
        if isinstance(k, CoreTensor):
            a = k.array
            if not a.ndim or a.dtype not in _FAST_INDEX_DTYPES:
                return None
            out.append(a)
        elif type(k) is slice:
            if k.step is not None and (type(k.step) is not int or k.step <= 0):
                return None
            out.append(k)
        elif k is None:
            out.append(k)
        elif k is Ellipsis and not ellipsis:
            ellipsis = True
            out.append(k)
        else:
            return None
    return tuple(out)


def _with_torch_newaxis_strides(arr, np_key, view):
    """``view`` (``arr[np_key]``, a basic index) with torch's strides for the dims ``None`` inserted: torch
    unsqueezes as it walks the key, so a new dim's stride is the size times the stride of the source dim that
    follows it (1 at the end) where numpy gives 0."""
    if type(np_key) is not tuple or None not in np_key:
        return view
    strides = list(view.strides)
    consumed = sum(1 for k in np_key if k is not None and k is not Ellipsis)
    src = pos = 0
    for k in np_key:
        if k is None:
            strides[pos] = arr.shape[src] * arr.strides[src] if src < arr.ndim else arr.itemsize
            pos += 1
        elif k is Ellipsis:
            src += arr.ndim - consumed
            pos += arr.ndim - consumed
        else:  # an int drops its dim, a slice keeps it
            src += 1
            pos += type(k) is slice
    if tuple(strides) == view.strides:
        return view
    return np.lib.stride_tricks.as_strided(view, view.shape, strides, writeable=view.flags.writeable)


@names_grad_fn(getitem_name)
def getitem(self, key):
    """``self[key]`` with torch semantics: views for basic indices, copies for tensor indices."""
    if (not self.requires_grad or not _is_grad_enabled()) and not tracing():
        np_key = _basic_key(key)
        try:
            if np_key is not None:
                return _view_of(self, wrap(_with_torch_newaxis_strides(self.array, np_key, self.array[np_key])))
            if isinstance(key, CoreTensor) and key.array.ndim and key.array.dtype in _FAST_INDEX_DTYPES:
                return wrap(self.array[key.array])  # one int tensor or mask: numpy and torch agree
            np_key = _array_key(key)
            if np_key is not None:
                return wrap(self.array[np_key])
        except IndexError:
            pass  # out of range, too many indices, mask shape: the parse below raises torch's error
        basic, adv = parse(self.array.shape, key, check=False)
        try:
            result = wrap(numpy_index(self.array, basic, adv))
        except IndexError as e:
            parse(self.array.shape, key)  # raises torch's message
            raise IndexError(str(e)) from None
        return result if adv else _view_of(self, result)
    basic, adv = parse(self.array.shape, key)
    return engine_index(self, basic, adv)


def _value_for(self, value, name):
    """The value of an assignment into ``self``: a tensor, or a 0-d array of ``self``'s dtype."""
    if isinstance(value, CoreTensor):
        return _dispatch.as_torch(value)
    if is_number(value):
        return fill_scalar(value, self.array.dtype, name)
    kind = type(value).__name__ if type(value).__module__ == "builtins" else \
        f"{type(value).__module__}.{type(value).__name__}"
    raise TypeError(f"can't assign a {kind} to a {self.type()}")


def _broadcast_into(value, shape, name, like=None):
    """``value`` (tensor) broadcast to ``shape`` as torch's copy_ does (extra leading 1-dims dropped): to the
    shape of the tensor ``like`` when given (a shape a graph may change from run to run)."""
    vshape = value.array.shape
    extra = len(vshape) - len(shape)
    if extra > 0 and all(d == 1 for d in vshape[:extra]):
        vshape = vshape[extra:]
        value = reshape(value, vshape)
    try:
        ok = np.broadcast_shapes(vshape, shape) == tuple(shape)
    except ValueError:
        ok = False
    if not ok:
        raise RuntimeError(f"{name}: shape mismatch: value tensor of shape {list(value.array.shape)} cannot be "
                           f"broadcast to indexing result of shape {list(shape)}")
    if vshape != tuple(shape):
        value = call("Expand", value, int64s(shape) if like is None else call("Shape", like))
    return value


def scatter_positions(self, pos, value, reduction, name):
    """``self`` (engine path) with ``value`` written (or added) at flat positions ``pos`` (an array, or a tensor
    from ``positions``): the new tensor."""
    value = _dispatch.cast(_dispatch.to_tensor(value), self.array.dtype)
    traced = isinstance(pos, CoreTensor)
    value = _broadcast_into(value, pos.array.shape if traced else pos.shape, name, pos if traced else None)
    flat = reshape(self, (-1,))
    column = reshape(pos, (-1, 1)) if traced else pos.reshape(-1, 1)
    new = call("ScatterND", flat, column, reshape(value, (-1,)), reduction=reduction)
    return call(_RESHAPE_OP, new, call("Shape", self)) if traced else reshape(new, self.array.shape)


def setitem(self, key, value):
    """``self[key] = value``: writes into ``self``'s memory, or records the write when autograd tracks it."""
    _dispatch.check_inplace(self, "__setitem__")
    value = _value_for(self, value, "__setitem__")
    if is_tracked(self, value):  # computed out of place with engine ops, then assigned
        basic, adv = parse(self.array.shape, key)
        src = _dispatch.snapshot(self)
        pos = positions(self.array.shape, basic, adv, like=src)
        before = self.grad_node
        _dispatch.assign(self, scatter_positions(src, pos, value, "none", "__setitem__"), "__setitem__")
        node = self.grad_node  # torch's name for the node of the write (a view's base is named where it is written)
        if node is not None and node is not before and getattr(self, "_base", None) is None:
            node.display_name = "IndexPutBackward0" if adv else "torch::autograd::CopySlices"
        return
    v = value.array if isinstance(value, CoreTensor) else value
    arr = self.array
    np_key = _basic_key(key)
    target = adv_key = None
    if np_key is not None:
        try:
            target = arr[np_key]
        except IndexError:
            pass  # the parse below raises torch's error
    else:
        adv_key = _array_key((key,) if isinstance(key, CoreTensor) else key)
        if adv_key is not None:
            target = arr
    if target is None:
        basic, adv = parse(arr.shape, key, check=False)
        target = arr[basic + (Ellipsis,)]
        adv_key = _advanced_key(adv) if adv else None
    if type(v) is np.ndarray and np.may_share_memory(arr, v) and _overlaps(target, v, adv_key is not None):
        raise RuntimeError("unsupported operation: some elements of the input tensor and the written-to tensor refer "
                           "to a single memory location. Please clone() the tensor before performing the operation.")
    try:
        if adv_key is not None:
            target[adv_key] = v
        else:
            target[...] = v
    except ValueError as e:
        raise RuntimeError(f"__setitem__: {e}") from None
    except IndexError as e:
        parse(arr.shape, key)  # raises torch's message
        raise IndexError(str(e)) from None
    _dispatch.bump_version(self)


def _overlaps(target, v, adv):
    """Whether writing ``v`` (sharing memory with the tensor) is refused as torch refuses it."""
    if adv:  # index_put refuses any value aliasing the tensor
        return True
    same = target.__array_interface__["data"][0] == v.__array_interface__["data"][0] and \
        target.shape == v.shape and target.strides == v.strides
    return not same and np.shares_memory(target, v)


TENSOR_METHODS = {"__getitem__": getitem, "__setitem__": setitem}
