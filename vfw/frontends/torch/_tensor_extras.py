"""Tensor methods around memory and layout that dense CPU tensors answer simply, and a few functional aliases.

``nonzero_static``, ``as_strided_`` / ``as_strided_scatter``, ``new_empty_strided``, ``dim_order``,
``const_data_ptr``, ``as_subclass``, the dense answers of ``dense_dim`` / ``sparse_dim`` / ``to_dense``,
``is_set_to``, ``pin_memory`` (no accelerator: torch's RuntimeError), ``register_post_accumulate_grad_hook``,
and the methods ``prelu`` / ``hardshrink`` (``torch.nn.functional``'s).
"""

import numpy as np

from vfw.frontends.torch import _config, _creation, _dispatch, _dtype, _joining, _memory_layout, _searching, _strided
from vfw.frontends.torch._index_builders import _scatter_into_copy
from vfw.frontends.torch._pointwise import tensor_arg
from vfw.frontends.torch._shape import _rebind
from vfw.frontends.torch._tensor import _Handle

__all__ = ["nonzero_static", "as_strided_scatter"]

_AMBIGUOUS = "The tensor does not have unique dim order, or cannot map to exact one of the given memory formats."
_NOT_UNIQUE = "The tensor does not have unique dim order."
_FORMAT_ORDERS = {"contiguous_format": None, "channels_last": (0, 2, 3, 1), "channels_last_3d": (0, 2, 3, 4, 1)}


def nonzero_static(input, *, size, fill_value=-1):
    """The ``(size, ndim)`` int64 indices of the first ``size`` non-zero elements of ``input`` (row-major order);
    rows past the non-zero count hold ``fill_value``."""
    tensor_arg(input, "nonzero_static")
    if not isinstance(size, (int, np.integer)) or size < 0:
        raise RuntimeError("nonzero_static: 'size' must be an non-negative integer")
    found = _searching.nonzero(input)[:size]
    missing = size - found.shape[0]
    if not missing:
        return found
    padding = _creation.full((missing, found.shape[1]), fill_value, dtype=_dtype.int64)
    return _joining.cat([found, padding])


def as_strided_scatter(input, src, size, stride, storage_offset=None):
    """A copy of ``input`` (same strides) whose elements at ``input.as_strided(size, stride, storage_offset)`` are
    ``src``; differentiable in both (overlapping positions take one of their ``src`` values)."""
    tensor_arg(input, "as_strided_scatter")
    tensor_arg(src, "as_strided_scatter", "src", 2)
    return _scatter_into_copy(input, src, lambda copy: _strided.as_strided(copy, size, stride, storage_offset),
                              "as_strided_scatter")


def _as_strided_(self, size, stride, storage_offset=None):
    """``self`` becomes the strided view ``self.as_strided(size, stride, storage_offset)`` (in place)."""
    return _rebind(self, _strided.as_strided, "as_strided_", size, stride, storage_offset)


def _new_empty_strided(self, size, stride, dtype=None, device=None, requires_grad=False, layout=None,
                       pin_memory=False):
    """``torch.empty_strided`` with ``self``'s dtype unless ``dtype`` is given."""
    return _strided.empty_strided(size, stride, dtype=self.dtype if dtype is None else dtype, layout=layout,
                                  device=device, requires_grad=requires_grad, pin_memory=pin_memory)


def _laid_out_as(arr, name):
    """Whether ``arr`` is dense in the memory format ``name`` (strides of size-1 dims do not matter)."""
    order = _FORMAT_ORDERS[name]
    if order is None:
        return arr.flags.c_contiguous
    if len(order) != arr.ndim:
        return False
    wanted = _memory_layout.strides_for_order(arr.shape, order[::-1])
    return all(n == 1 or s == w for n, s, w in zip(arr.shape, _memory_layout.element_strides(arr), wanted))


def _format_order(name, ndim):
    return _FORMAT_ORDERS[name] or tuple(range(ndim))


def _dim_order(self, *, ambiguity_check=False):
    """The dims from the outermost to the innermost in memory (a tuple of ints).

    ``ambiguity_check=True`` raises RuntimeError when the order is not unique (a dim of size 1, equal strides,
    a broadcast dim); a list of memory formats accepts a non-unique order when the tensor is laid out in
    exactly one of them, and returns that format's order.
    """
    is_format_list = isinstance(ambiguity_check, (list, tuple)) and all(
        isinstance(f, _config.memory_format) and f._name in _FORMAT_ORDERS for f in ambiguity_check)
    if not isinstance(ambiguity_check, bool) and not is_format_list:
        raise TypeError("The ambiguity_check argument must be a bool or a list of memory formats.")
    arr = self.array
    shape, strides = arr.shape, _memory_layout.element_strides(arr)
    laid_out = [name for name in _FORMAT_ORDERS if _laid_out_as(arr, name)]
    order = (_format_order(laid_out[0], arr.ndim) if laid_out
             else tuple(reversed(_memory_layout.dims_by_stride(shape, strides))))
    if ambiguity_check is False:
        return order
    if any(s == 0 and n > 1 for n, s in zip(shape, strides)):
        raise RuntimeError(_NOT_UNIQUE)
    spread = [s for n, s in zip(shape, strides) if n != 0]
    if 1 not in shape and len(set(spread)) == len(spread):
        return order
    if is_format_list:
        matching = [f._name for f in ambiguity_check if f._name in laid_out]
        if len(matching) == 1:
            return _format_order(matching[0], arr.ndim)
    raise RuntimeError(_AMBIGUOUS)


def _const_data_ptr(self):
    """int: the address of the first element (``data_ptr``; vfw does not track read-only access)."""
    return self.data_ptr()


def _as_subclass(self, cls):
    """The same memory (and autograd history: an alias) as an instance of the Tensor subclass ``cls``."""
    if not (isinstance(cls, type) and issubclass(cls, _dispatch.Tensor)):
        raise TypeError("Creating a Tensor subclass from a class that does not inherit from Tensor is not possible. "
                        "Make sure your class inherits from Tensor.")
    source = _dispatch.call("Identity", self) if self.requires_grad else self
    out = object.__new__(cls)
    out.array = self.array
    out.requires_grad = source.requires_grad
    out.grad_node = source.grad_node
    if source.grad_node is not None:
        out.grad_slot = source.grad_slot
    return _dispatch.view_of(self, out)


def _dense_dim(self):
    """int: the number of dense dims (all of a dense tensor's)."""
    return self.array.ndim


def _sparse_dim(self):
    """int: the number of sparse dims (0: vfw tensors are dense)."""
    return 0


def _to_dense(self, dtype=None, *, masked_grad=None):
    """``self`` (already dense), or a copy in ``dtype``."""
    return self if dtype is None or dtype == self.dtype else self.to(dtype)


def _is_set_to(self, tensor):
    """bool: whether ``tensor`` has the same memory, storage offset, sizes and strides as ``self``."""
    tensor_arg(tensor, "is_set_to", "tensor")
    a, b = self.array, tensor.array
    return (_strided._storage(self) is _strided._storage(tensor) and a.ctypes.data == b.ctypes.data
            and a.shape == b.shape and a.strides == b.strides and a.dtype == b.dtype)


def _pin_memory(self, device=None):
    """No accelerator, so no pinned memory: torch's RuntimeError."""
    raise RuntimeError("Cannot access accelerator device when none is available.")


def _register_post_accumulate_grad_hook(self, hook):
    """Call ``hook(self)`` after ``backward()`` has accumulated this leaf's ``.grad``.

    Returns a handle whose ``remove()`` unregisters the hook.
    """
    if not self.requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    if self.grad_node is not None:
        raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
    hooks = self.__dict__.setdefault("_post_accumulate_grad_hooks", [])
    hooks.append(hook)
    return _Handle(hooks, hook)


def _prelu(self, weight):
    from vfw.frontends.torch.nn import functional as F  # nn imports the tensor modules
    return F.prelu(self, weight)


def _hardshrink(self, lambd=0.5):
    from vfw.frontends.torch.nn import functional as F
    return F.hardshrink(self, lambd)


TENSOR_METHODS = {
    "nonzero_static": nonzero_static, "as_strided_scatter": as_strided_scatter, "as_strided_": _as_strided_,
    "new_empty_strided": _new_empty_strided, "dim_order": _dim_order, "const_data_ptr": _const_data_ptr,
    "as_subclass": _as_subclass, "dense_dim": _dense_dim, "sparse_dim": _sparse_dim, "to_dense": _to_dense,
    "is_set_to": _is_set_to, "pin_memory": _pin_memory,
    "register_post_accumulate_grad_hook": _register_post_accumulate_grad_hook,
    "prelu": _prelu, "hardshrink": _hardshrink,
}
