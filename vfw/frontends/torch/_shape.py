"""Shape and view ops: view, reshape, permute, transpose, squeeze, unsqueeze, flatten and in-place variants.

Where torch returns a view, so does vfw.torch: the result's array is a numpy view of the
input's memory, marked as a view (``_base``, shared version counter) so that in-place writes
through either tensor show in the other (see docs/torch_views.md).  When nothing records (no
input requires grad with grad mode on, no graph trace open) the view is taken with numpy
directly; otherwise the engine op (Reshape, Transpose, Squeeze, Unsqueeze, Slice, Expand)
runs through ``call`` so autograd records it, and those kernels return views as well.
Expanding, joining and splitting live in ``_joining.py``; narrow, select, diagonals, flips,
rolls, repeats, triangles and atleast_nd in ``_layout.py``.
"""

import math
import operator

import numpy as np

from vfw.core.autograd import is_grad_enabled as _is_grad_enabled
from vfw.core.graph.trace import _active as _tracing
from vfw.core.graph.trace import current_trace
from vfw.core.tensor import Tensor as CoreTensor
from vfw.frontends._warnings import warn_once
from vfw.frontends.torch import _dtype
from vfw.frontends.torch._dispatch import call, check_inplace, count_version, dims_of, op, stand_in, type_name, view_of
from vfw.frontends.torch._grad_fn_names import names_grad_fn, squeeze_name
from vfw.frontends.torch._tensor import Tensor

__all__ = ["reshape", "permute", "transpose", "swapaxes", "swapdims", "t", "adjoint", "movedim", "moveaxis",
           "squeeze", "unsqueeze", "flatten", "unflatten", "ravel"]

_new = object.__new__
_RESHAPE = op("Reshape", allowzero=1)  # every target dim is explicit: a 0 is a 0
_SQUEEZE = op("Squeeze")
_UNSQUEEZE = op("Unsqueeze")
_INT64 = np.int64
_NOCOPY_KW = np.lib.NumpyVersion(np.__version__) >= "2.1.0"
prod = math.prod


# -- helpers shared with _joining and _layout ----------------------------------------------------------
def recording(x):
    """Whether an op on ``x`` must run through the engine (autograd records it, or a trace is open)."""
    return bool(_tracing) or (x.requires_grad and _is_grad_enabled())


def as_view(base, array):
    """A grad-free tensor around ``array`` (a numpy view of ``base``'s memory), marked as a view of ``base``."""
    t = _new(Tensor)
    t.array = array
    t.requires_grad = False
    t.grad_node = None
    return view_of(base, t)


def engine_view(base, bound, *inputs):
    """``call(bound, base, *inputs)`` for a kernel that returns a view of ``base``, marked as one."""
    view = view_of(base, call(bound, base, *inputs))
    if _tracing:  # a write into the view is then recorded with positions from base's shape
        from vfw.frontends.torch._traced_views import mark_engine_view

        mark_engine_view(view, base, bound, inputs)
    return view


def tensor_arg(x, name, arg="input", position=1):
    """``x`` when it is a tensor, else torch's TypeError."""
    if not isinstance(x, Tensor):
        raise TypeError(f"{name}(): argument '{arg}' (position {position}) must be Tensor, not {type(x).__name__}")
    return x


def int_arg(value, name, arg):
    """``value`` as a Python int (numpy ints and one-element integer tensors too), else TypeError."""
    if type(value) is int:
        return value
    if isinstance(value, CoreTensor) and value.array.dtype.kind in "iu" and value.array.size == 1:
        return int(value.array.reshape(()))
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name}(): argument '{arg}' must be int, not {type(value).__name__}")
    return operator.index(value)


def wrap_dim(dim, ndim):
    """``dim`` in ``[0, ndim)`` (a 0-dim tensor accepts 0 and -1); IndexError as torch words it."""
    if type(dim) is not int:
        dim = int_arg(dim, "dim", "dim")
    n = ndim if ndim else 1
    if dim < -n or dim >= n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    return dim + n if dim < 0 else dim


def wrap_dims(dims, ndim):
    """A tuple/list/int of dims normalized; RuntimeError for repeats."""
    if type(dims) is int or not isinstance(dims, (tuple, list)):
        return (wrap_dim(dims, ndim),)
    out = tuple(wrap_dim(d, ndim) for d in dims)
    if len(set(out)) != len(out):
        seen = set()
        for d in out:
            if d in seen:
                raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
            seen.add(d)
    return out


def sizes_arg(args, name, arg="size"):
    """Sizes given as ``f(2, 3)``, ``f((2, 3))``, ``f([2, 3])`` or ``f(torch.Size)`` as a tuple of ints."""
    if len(args) == 1 and type(args[0]) is not int and isinstance(args[0], (tuple, list)):
        args = args[0]
    for d in args:
        if type(d) is not int:
            return tuple(_size_item(d, i, name, arg) for i, d in enumerate(args))
    return tuple(args)


def _size_item(d, i, name, arg):
    if type(d) is int:
        return d
    if isinstance(d, CoreTensor) and d.array.size == 1 and d.array.dtype.kind in "iu":
        return int(d.array.reshape(()))
    if isinstance(d, (bool, np.bool_)) or not isinstance(d, (int, np.integer)):
        raise TypeError(f"{name}(): argument '{arg}' must be tuple of ints, but found element of type "
                        f"{type(d).__name__} at pos {i}")
    return operator.index(d)


def infer_size(sizes, numel):
    """torch's shape inference for view/reshape: one -1 is solved for; errors as torch words them."""
    if -1 not in sizes and prod(sizes) == numel and (not sizes or min(sizes) >= 0):
        return sizes
    infer = -1
    known = 1
    for i, d in enumerate(sizes):
        if d >= 0:
            known *= d
        elif d == -1:
            if infer >= 0:
                raise RuntimeError("only one dimension can be inferred")
            infer = i
        else:
            raise RuntimeError(f"invalid shape dimension {d} at index {i} of shape {list(sizes)}")
    if infer < 0:
        if known != numel:
            raise RuntimeError(f"shape '{list(sizes)}' is invalid for input of size {numel}")
        return sizes
    if known == 0 and numel == 0:
        raise RuntimeError(f"cannot reshape tensor of 0 elements into shape {list(sizes)} because the unspecified "
                           "dimension size -1 can be any value and is ambiguous")
    if known == 0 or numel % known:
        raise RuntimeError(f"shape '{list(sizes)}' is invalid for input of size {numel}")
    out = list(sizes)
    out[infer] = numel // known
    return tuple(out)


def _nocopy_reshape(arr, target):
    """``arr`` reshaped to ``target`` without copying, or None when the strides do not allow it."""
    if arr.flags.c_contiguous:
        return arr.reshape(target)
    try:
        if _NOCOPY_KW:
            return arr.reshape(target, copy=False)
        out = arr.view()
        out.shape = target
        return out
    except (ValueError, AttributeError):
        return None


def shape_array(shape):
    """A read-only 1-D int64 array of ``shape`` (the shape-like inputs of engine ops), made once per value."""
    key = tuple(shape)
    out = _SHAPE_ARRAYS.get(key)
    if out is None:
        out = np.array(key, _INT64)
        out.flags.writeable = False
        if len(_SHAPE_ARRAYS) > 4096:
            _SHAPE_ARRAYS.clear()
        _SHAPE_ARRAYS[key] = out
    return out


_SHAPE_ARRAYS = {}


# -- view / reshape ---------------------------------------------------------------------------
def _view(self, *shape, dtype=None, size=None):
    """A view with another shape (one -1 inferred) or another dtype; shares memory with ``self``.

    Raises RuntimeError when the strides do not allow a view (use ``reshape``).
    """
    if dtype is None and len(shape) == 1 and isinstance(shape[0], _dtype.dtype):
        dtype = shape[0]
        shape = ()
    if dtype is not None:
        if shape or size is not None:
            raise TypeError("view() received an invalid combination of arguments")
        return _view_dtype(self, dtype)
    if size is not None:
        shape = (size,)
    if not shape:
        raise TypeError("view() received an invalid combination of arguments - got (), but expected one of: "
                        "(torch.dtype dtype), (tuple of ints size)")
    arr = self.array
    target = infer_size(sizes_arg(shape, "view"), arr.size)
    new = _nocopy_reshape(arr, target)
    if new is None:
        raise RuntimeError("view size is not compatible with input tensor's size and stride (at least one dimension "
                           "spans across two contiguous subspaces). Use .reshape(...) instead.")
    if not recording(self):
        return as_view(self, new)
    return engine_view(self, _RESHAPE, shape_array(target))


def _view_dtype(self, dtype):
    arr = self.array
    np_dtype = _dtype.to_np(dtype)
    old, new = arr.dtype.itemsize, np_dtype.itemsize
    if old != new:
        what = f"to view {type_name(arr.dtype)} as {type_name(np_dtype)} (different element sizes)"
        if arr.ndim == 0:
            raise RuntimeError(f"self.dim() cannot be 0 {what}")
        strides = [s // old for s in arr.strides]
        if strides[-1] != 1 and arr.shape[-1] != 1:
            raise RuntimeError(f"self.stride(-1) must be 1 {what}, but got {strides[-1]}")
        if new > old:
            ratio = new // old
            if arr.shape[-1] % ratio:
                raise RuntimeError(f"self.size(-1) must be divisible by {ratio} {what}, but got {arr.shape[-1]}")
            offset = self.storage_offset()
            if offset % ratio:
                raise RuntimeError(f"self.storage_offset() must be divisible by {ratio} {what}, but got {offset}")
            for i, s in enumerate(strides[:-1]):
                if s % ratio:
                    raise RuntimeError(f"self.stride({i}) must be divisible by {ratio} {what}, but got {s}")
    try:
        return as_view(self, arr.view(np_dtype))
    except ValueError as e:
        raise RuntimeError(f"view(): cannot view {type_name(arr.dtype)} as {type_name(np_dtype)}: {e}") from None


def reshape(input, shape):
    """``input`` with another shape (one -1 inferred): a view when the strides allow, else a copy."""
    tensor_arg(input, "reshape")
    if not isinstance(shape, (tuple, list)):
        raise TypeError(f"reshape(): argument 'shape' (position 2) must be tuple of ints, not {type(shape).__name__}")
    return reshape_to(input, sizes_arg((shape,), "reshape", "shape"))


def _reshape_method(self, *shape, **kwargs):
    if kwargs:
        if shape or set(kwargs) != {"shape"}:
            raise TypeError(f"reshape() got an unexpected keyword argument '{next(iter(kwargs))}'")
        shape = (kwargs["shape"],)
    if not shape:
        raise TypeError("reshape() missing 1 required positional arguments: \"shape\"")
    return reshape_to(self, sizes_arg(shape, "reshape", "shape"))


def reshape_to(x, sizes):
    """``x`` reshaped to ``sizes`` (one -1 allowed): a view when the strides allow, else a copy."""
    arr = x.array
    target = infer_size(sizes, arr.size)
    if not recording(x):
        new = arr.reshape(target)
        if arr.flags.c_contiguous or np.may_share_memory(new, arr):
            return as_view(x, new)
        return fresh(new)
    if _nocopy_reshape(arr, target) is None:
        return call(_RESHAPE, x, shape_array(target))
    return engine_view(x, _RESHAPE, shape_array(target))


def fresh(array):
    """A new grad-free tensor around ``array`` (memory of its own)."""
    t = _new(Tensor)
    t.array = array
    t.requires_grad = False
    t.grad_node = None
    return t


def _view_as(self, other):
    """``self.view(other.size())``."""
    return _view(self, tensor_arg(other, "view_as", "other").array.shape)


def _reshape_as(self, other):
    """``self.reshape(other.size())``."""
    return reshape_to(self, tensor_arg(other, "reshape_as", "other").array.shape)


# -- permutations -----------------------------------------------------------------------------
def permuted(x, perm):
    """``x`` with its dims in the order ``perm`` (already normalized): a view."""
    if not recording(x):
        return as_view(x, x.array.transpose(perm))
    return engine_view(x, op("Transpose", perm=tuple(perm)))


def permute(input, *dims, **kwargs):
    """A view of ``input`` with its dimensions reordered as ``dims``."""
    tensor_arg(input, "permute")
    if kwargs:
        if dims or set(kwargs) != {"dims"}:
            raise TypeError(f"permute() got an unexpected keyword argument '{next(iter(kwargs))}'")
        dims = (kwargs["dims"],)
    if len(dims) == 1 and isinstance(dims[0], (tuple, list)):
        dims = dims[0]
    ndim = input.array.ndim
    key = (ndim, tuple(dims))
    perm = _PERMS.get(key)
    if perm is None or not all(type(d) is int for d in dims):  # 2.0 == 2 would hit the cache
        perm = _checked_perm(dims, ndim)
        if len(_PERMS) > 1024:
            _PERMS.clear()
        _PERMS[key] = perm
    return permuted(input, perm)


_PERMS = {}  # (ndim, dims as given) -> normalized permutation: validation once per spelling


def _checked_perm(dims, ndim):
    if len(dims) != ndim:
        raise RuntimeError(f"permute(sparse_coo): number of dimensions in the tensor input does not match the length "
                           f"of the desired ordering of dimensions i.e. input.dim() = {ndim} is not equal to "
                           f"len(dims) = {len(dims)}")
    perm = tuple(wrap_dim(d, ndim) for d in dims)
    if len(set(perm)) != ndim:
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    return perm


@names_grad_fn("TransposeBackward0")
def transpose(input, dim0, dim1):
    """A view of ``input`` with dims ``dim0`` and ``dim1`` swapped."""
    tensor_arg(input, "transpose")
    ndim = input.array.ndim
    d0, d1 = wrap_dim(dim0, ndim), wrap_dim(dim1, ndim)
    if not recording(input):
        return as_view(input, input.array.swapaxes(d0, d1) if ndim else input.array.view())
    perm = list(range(ndim))
    perm[d0], perm[d1] = d1, d0
    return engine_view(input, op("Transpose", perm=tuple(perm)))


@names_grad_fn("TransposeBackward0")
def swapaxes(input, axis0, axis1):
    """Alias of ``transpose``."""
    return transpose(input, axis0, axis1)


def swapdims(input, dim0, dim1):
    """Alias of ``transpose``."""
    return transpose(input, dim0, dim1)


@names_grad_fn("TBackward0")
def t(input):
    """The transpose of a matrix (tensors of fewer than 2 dims are returned as a view)."""
    tensor_arg(input, "t")
    ndim = input.array.ndim
    if ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {ndim}D")
    return transpose(input, 0, ndim - 1 if ndim else 0)


def _T(self):  # noqa: N802  (torch's name)
    ndim = self.array.ndim
    if ndim == 0:
        warn_once("Tensor.T is deprecated on 0-D tensors. This function is the identity in these cases.",
                      UserWarning)
    elif ndim != 2:
        warn_once("The use of `x.T` on tensors of dimension other than 2 to reverse their shape is deprecated "
                      "and it will throw an error in a future release. Consider `x.mT` to transpose batches of "
                      "matrices or `x.permute(*torch.arange(x.ndim - 1, -1, -1))` to reverse the dimensions of a "
                      "tensor.", UserWarning)
    return permuted(self, tuple(range(ndim - 1, -1, -1)))


def _H(self):  # noqa: N802
    ndim = self.array.ndim
    if ndim not in (0, 2):
        hint = " For batches of matrices, consider using tensor.mH" if ndim > 2 else ""
        raise RuntimeError(f"tensor.H is only supported on matrices (2-D tensors). Got {ndim}-D tensor.{hint}")
    if ndim == 0:
        warn_once("Tensor.H is deprecated on 0-D tensors. Consider using x.conj().", UserWarning)
    return _conjugated(permuted(self, tuple(range(ndim - 1, -1, -1))))


def _conjugated(transposed):
    """A conjugate transpose from a transpose: the view itself when real, a conjugated copy when complex
    (vfw's conjugates are copies, not torch's lazily conjugated views)."""
    return call(op("Conj"), transposed) if transposed.array.dtype.kind == "c" else transposed


def _matrix_transpose(self, name, what):
    ndim = self.array.ndim
    if ndim == 0:
        warn_once(f"{what} is deprecated on 0-D tensors. Consider using x.conj().", UserWarning, key=what)
        return permuted(self, ())
    if ndim == 1:
        raise RuntimeError(f"{name} is only supported on matrices or batches of matrices. Got 1-D tensor.")
    return transpose(self, -2, -1)


def _mT(self):  # noqa: N802
    ndim = self.array.ndim
    if ndim == 0:
        warn_once("Tensor.mT is deprecated on 0-D tensors. This function is the identity in these cases.",
                      UserWarning)
        return permuted(self, ())
    return _matrix_transpose(self, "tensor.mT", "Tensor.mT")


def _conjugate_transpose(self, name, what):
    return _conjugated(_matrix_transpose(self, name, what))


def _mH(self):  # noqa: N802
    return _conjugate_transpose(self, "tensor.mH", "Tensor.mH")


def adjoint(input):
    """The conjugate transpose of the last two dims (a view for real tensors, a copy for complex ones)."""
    tensor_arg(input, "adjoint")
    return _conjugate_transpose(input, "tensor.adjoint()", "adjoint()")


def movedim(input, source, destination):
    """A view of ``input`` with the dims ``source`` moved to the positions ``destination``."""
    tensor_arg(input, "movedim")
    if type(source) is int and type(destination) is int:  # the common spelling, without the list work
        ndim = input.array.ndim
        src, dst = wrap_dim(source, ndim), wrap_dim(destination, ndim)
        perm = list(range(ndim))
        if ndim:
            perm.insert(dst, perm.pop(src))
        return permuted(input, perm)
    src_seq, dst_seq = isinstance(source, (tuple, list)), isinstance(destination, (tuple, list))
    if src_seq != dst_seq:
        raise TypeError(f"movedim() received an invalid combination of arguments - got ({type(source).__name__}, "
                        f"{type(destination).__name__})")
    source = list(source) if src_seq else [source]
    destination = list(destination) if dst_seq else [destination]
    if len(source) != len(destination):
        raise RuntimeError(f"movedim: Invalid source or destination dims: source ({source} dims) should contain the "
                           f"same number of dims as destination ({destination} dims)")
    ndim = input.array.ndim
    src = [wrap_dim(d, ndim) for d in source]
    dst = [wrap_dim(d, ndim) for d in destination]
    if len(set(src)) != len(src):
        raise RuntimeError(f"movedim: repeated dim in `source` ({source})")
    if len(set(dst)) != len(dst):
        raise RuntimeError(f"movedim: repeated dim in `destination` ({destination})")
    if not ndim:
        return permuted(input, ())
    perm = [-1] * ndim
    for s, d in zip(src, dst):
        perm[d] = s
    rest = iter(d for d in range(ndim) if d not in src)
    perm = [p if p >= 0 else next(rest) for p in perm]
    return permuted(input, perm)


def moveaxis(input, source, destination):
    """Alias of ``movedim``."""
    return movedim(input, source, destination)


# -- squeeze / unsqueeze / flatten ----------------------------------------------------------------
_ALL = object()


@names_grad_fn(squeeze_name)
def squeeze(input, dim=_ALL):
    """A view of ``input`` without its size-1 dims (only those in ``dim`` when given; others are kept)."""
    tensor_arg(input, "squeeze")
    arr = input.array
    if dim is _ALL:
        axes = tuple(i for i, d in enumerate(arr.shape) if d == 1)
    elif dim is None:
        raise TypeError("squeeze() received an invalid combination of arguments - got (NoneType)")
    else:
        axes = tuple(d for d in wrap_dims(dim, arr.ndim) if arr.ndim and arr.shape[d] == 1)
    if not recording(input):
        return as_view(input, arr.squeeze(axes) if axes else arr.view())
    if not axes:
        return engine_view(input, _RESHAPE, shape_array(arr.shape))
    return engine_view(input, _SQUEEZE, shape_array(axes))


def unsqueeze(input, dim):
    """A view of ``input`` with a size-1 dim inserted at position ``dim``."""
    tensor_arg(input, "unsqueeze")
    if type(dim) is not int:
        if isinstance(dim, (bool, np.bool_, tuple, list, float)) or not isinstance(dim, (int, np.integer)):
            raise TypeError(f"unsqueeze(): argument 'dim' (position 1) must be int, not {type(dim).__name__}")
        dim = int(dim)
    arr = input.array
    d = wrap_dim(dim, arr.ndim + 1)
    if not recording(input):
        shape = arr.shape
        return as_view(input, arr.reshape(shape[:d] + (1,) + shape[d:]))
    return engine_view(input, _UNSQUEEZE, shape_array((d,)))


def flatten(input, start_dim=0, end_dim=-1):
    """``input`` with dims ``start_dim..end_dim`` merged into one (a view when the strides allow)."""
    tensor_arg(input, "flatten")
    arr = input.array
    ndim = arr.ndim
    if start_dim == 0 and end_dim == -1 and ndim > 1 and arr.flags.c_contiguous and not recording(input):
        return as_view(input, arr.reshape(-1))  # the usual call, straight to the view
    start, end = wrap_dim(start_dim, ndim), wrap_dim(end_dim, ndim)
    if start > end:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if ndim == 0:
        return reshape_to(input, (1,))
    if start == end:
        return input
    shape = arr.shape
    return reshape_to(input, shape[:start] + (prod(shape[start:end + 1]),) + shape[end + 1:])


def unflatten(input, dim, sizes):
    """A view of ``input`` with dim ``dim`` split into ``sizes`` (one -1 inferred)."""
    tensor_arg(input, "unflatten")
    arr = input.array
    if arr.ndim == 0:
        raise RuntimeError("unflatten got an unexpected error:\nDimension specified as 0 but tensor has no "
                           "dimensions")
    d = wrap_dim(dim, arr.ndim)
    sizes = sizes_arg((sizes,), "unflatten", "sizes")
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    n = arr.shape[d]
    if -1 not in sizes and prod(sizes) != n:
        raise RuntimeError(f"unflatten: Provided sizes {list(sizes)} don't multiply up to the size of dim {d} ({n}) "
                           "in the input tensor")
    try:
        inner = infer_size(sizes, n)
    except RuntimeError as e:
        if sizes.count(-1) > 1 or n == 0:
            raise RuntimeError(f"unflatten got an unexpected error:\n{e}") from None
        raise RuntimeError(f"unflatten: Provided sizes {list(sizes)} don't multiply up to the size of dim {d} ({n}) "
                           "in the input tensor") from None
    return reshape_to(input, arr.shape[:d] + inner + arr.shape[d + 1:])


def ravel(input):
    """``input`` flattened to 1-D: a view when it is contiguous, else a copy."""
    tensor_arg(input, "ravel")
    if input.array.flags.c_contiguous:
        return reshape_to(input, (input.array.size,))
    return reshape_to(input.contiguous(), (input.array.size,))


# -- in-place shape changes -------------------------------------------------------------------
def _rebind(self, fn, name, *args):
    """``self`` takes the shape (and autograd node) of ``fn(self, *args)``: torch's in-place view ops."""
    check_inplace(self, name)
    result = fn(stand_in(self), *args)
    self.array = result.array
    if _tracing:
        trace = current_trace()
        if trace is not None:  # later reads of self see the reshaped value
            trace.rebind(self, trace.name_of(result))
    if result.grad_node is not None:
        self.grad_node = result.grad_node
        self.grad_slot = result.grad_slot
    count_version(self)
    return self


def _squeeze_(self, dim=_ALL):
    return _rebind(self, squeeze, "squeeze_", dim)


def _unsqueeze_(self, dim):
    return _rebind(self, unsqueeze, "unsqueeze_", dim)


def _t_(self):
    return _rebind(self, t, "t_")


def _transpose_(self, dim0, dim1):
    return _rebind(self, transpose, "transpose_", dim0, dim1)


def _resize_(self, *sizes, memory_format=None):
    """Give ``self`` the size ``sizes`` in place: the data in row-major order is kept as far as it goes."""
    shape = dims_of(sizes)
    if self.requires_grad:
        raise RuntimeError("cannot resize variables that require grad")
    arr = self.array
    n = prod(shape)
    if n == arr.size and arr.flags.c_contiguous:
        self.array = arr.reshape(shape)  # same memory: views and base stay shared
    else:  # new memory; torch leaves values past the old data uninitialised
        new = np.empty(shape, arr.dtype)
        k = min(n, arr.size)
        new.reshape(-1)[:k] = arr.reshape(-1)[:k]
        self.array = new
    count_version(self)
    return self


def _resize_as_(self, the_template, memory_format=None):
    return _resize_(self, *the_template.array.shape)


TENSOR_METHODS = {
    "view": _view, "view_as": _view_as, "reshape": _reshape_method, "reshape_as": _reshape_as,
    "permute": permute, "transpose": transpose, "swapaxes": swapaxes, "swapdims": swapdims, "t": t,
    "adjoint": adjoint, "movedim": movedim, "moveaxis": moveaxis, "squeeze": squeeze, "unsqueeze": unsqueeze,
    "flatten": flatten, "unflatten": unflatten, "ravel": ravel,
    "squeeze_": _squeeze_, "unsqueeze_": _unsqueeze_, "t_": _t_, "transpose_": _transpose_,
    "swapaxes_": _transpose_, "swapdims_": _transpose_, "resize_": _resize_, "resize_as_": _resize_as_,
    "T": property(_T, doc="The tensor with its dims reversed (a view; deprecated by torch beyond 2-D)."),
    "mT": property(_mT, doc="The last two dims transposed (a view)."),
    "H": property(_H, doc="The conjugate transpose of a matrix (a view when real, a copy when complex)."),
    "mH": property(_mH, doc="The conjugate transpose of the last two dims (a view when real, a copy when complex)."),
}
