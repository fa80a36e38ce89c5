"""Small torch.* functions and legacy Tensor methods: ``torch.fill``/``fill_``/``zero_``/``detach``, the ``is_*``
queries, ``constant_pad_nd``, global switches (``set_warn_always``, ``set_flush_denormal``,
``set_default_tensor_type``), and ``Tensor.apply_``/``map_``/``map2_``/``new``/``resize``/``resize_as``/``set_``.
"""

import numpy as np

from vfw.core.tensor import Tensor as CoreTensor
from vfw.frontends._warnings import warn_for_user
from vfw.frontends.torch import _dispatch, _dtype
from vfw.frontends.torch._pointwise import tensor_arg
from vfw.frontends.torch._size import Size

__all__ = [
    "constant_pad_nd", "detach", "detach_", "fill", "fill_", "get_device", "is_conj", "is_inference",
    "is_neg", "is_same_size", "is_signed", "is_warn_always_enabled", "resize_as_", "set_default_tensor_type",
    "set_flush_denormal", "set_warn_always", "zero_",
]

_warn_always = [False]
_warned_default_tensor_type = []


def _fill_value(value, name):
    if isinstance(value, CoreTensor) and value.dim() != 0:
        raise RuntimeError(f"{name} only supports 0-dimension value tensor but got tensor with {value.dim()} "
                           "dimensions.")
    return value


def fill(input, value):
    """A tensor like ``input`` filled with ``value`` (a number or a 0-d tensor, differentiable)."""
    tensor_arg(input, "fill")
    value = _fill_value(value, "fill_")
    if isinstance(value, CoreTensor):
        return value.to(input.dtype).expand(input.shape).clone()
    return input.detach().clone().fill_(value)


def fill_(input, value):
    """``input.fill_(value)``."""
    return tensor_arg(input, "fill_").fill_(_fill_value(value, "fill_"))


def zero_(input):
    """``input.zero_()``."""
    return tensor_arg(input, "zero_").zero_()


def detach(input):
    """``input.detach()``."""
    return tensor_arg(input, "detach").detach()


def detach_(input):
    """``input.detach_()``."""
    return tensor_arg(input, "detach_").detach_()


def is_conj(input):
    """bool: False (vfw has no complex tensors, so no lazy conjugation)."""
    tensor_arg(input, "is_conj")
    return False


def is_neg(input):
    """bool: False (no lazily negated complex views)."""
    tensor_arg(input, "is_neg")
    return False


def is_inference(input):
    """bool: whether ``input`` was made in inference mode."""
    return tensor_arg(input, "is_inference").is_inference()


def is_signed(input):
    """bool: whether ``input``'s dtype is signed."""
    return tensor_arg(input, "is_signed").is_signed()


def is_same_size(input, other):
    """bool: whether both tensors have the same shape."""
    return tuple(tensor_arg(input, "is_same_size").shape) == tuple(tensor_arg(other, "is_same_size", "other", 2).shape)


def get_device(input):
    """int: -1 (the CPU)."""
    return tensor_arg(input, "get_device").get_device()


def resize_as_(input, the_template, *, memory_format=None):
    """``input.resize_as_(the_template)``."""
    return tensor_arg(input, "resize_as_").resize_as_(the_template)


def constant_pad_nd(input, pad, value=0):
    """Pad (or, with negative amounts, crop) the last ``len(pad) // 2`` dims: ``(left, right)`` of the last dim
    first."""
    from vfw.frontends.torch.nn.functional._vision import pad as _pad  # nn imports this package
    return _pad(tensor_arg(input, "constant_pad_nd"), list(pad), mode="constant", value=value)


def set_warn_always(b):
    """Make warnings that torch gives once per process show every time (a flag vfw keeps for queries)."""
    _warn_always[0] = bool(b)


def is_warn_always_enabled():
    """bool: the flag of :func:`set_warn_always`."""
    return _warn_always[0]


def set_flush_denormal(mode):
    """bool: whether the requested mode is supported. numpy keeps denormal numbers, so only ``False`` (the default,
    denormals kept) is."""
    return not mode


def set_default_tensor_type(t):
    """Deprecated: make the dtype of ``t`` (a legacy type such as ``torch.DoubleTensor`` or its name) the default
    floating point dtype."""
    if _warn_always[0] or not _warned_default_tensor_type:
        _warned_default_tensor_type.append(True)  # once per process, as torch (unless set_warn_always)
        warn_for_user("torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use "
                      "torch.set_default_dtype() and torch.set_default_device() as alternatives.", UserWarning)
    from vfw.frontends.torch import _legacy_types  # imports the Tensor class, as this module's importers do
    if isinstance(t, str):
        name = t.removeprefix("torch.")
        if not hasattr(_legacy_types, name):
            raise AttributeError(f"module 'torch' has no attribute '{name}'")
        t = getattr(_legacy_types, name)
    if not isinstance(t, _legacy_types._LegacyType):
        raise TypeError(f"invalid type: '{t}'")
    legacy = t
    dtype = _dtype.from_numpy_dtype(legacy.np_dtype)
    if not dtype.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    _dtype.set_default_dtype(dtype)


# --- legacy Tensor methods ----------------------------------------------------------------------------------------

def _map_in_place(self, name, fn, *others):
    """Write ``fn(self_element, *other_elements)`` (Python numbers) into every element of ``self``."""
    if self.requires_grad:
        raise RuntimeError(f"Can't call {name}() on Variable that requires grad. Use var.detach().{name}() instead.")
    _dispatch.check_writeable(self, name)
    arrays = [np.broadcast_to(o.array, self.array.shape) for o in others]
    values = self.array
    for index in np.ndindex(values.shape):
        values[index] = fn(values[index].item(), *(a[index].item() for a in arrays))
    _dispatch.bump_version(self)
    return self


def _apply_(self, callable):
    """Replace each element ``v`` by ``callable(v)`` (a Python function; slow, CPU only)."""
    return _map_in_place(self, "apply_", callable)


def _map_(self, tensor, callable):
    """Replace each element ``v`` by ``callable(v, w)``, ``w`` the element of ``tensor`` (broadcast to ``self``)."""
    return _map_in_place(self, "map_", callable, tensor)


def _map2_(self, x, y, callable):
    """Replace each element ``v`` by ``callable(v, a, b)`` with the elements of ``x`` and ``y``."""
    return _map_in_place(self, "map2_", callable, x, y)


def _new(self, *args, device=None):
    """Legacy constructor of ``self``'s dtype: ``new()`` (empty), ``new(*sizes)`` / ``new(Size)``
    (uninitialized), ``new(data)`` (a copy of nested sequences) or ``new(tensor)`` (an alias of a tensor of the same
    dtype)."""
    dtype = self.array.dtype
    if len(args) == 1 and isinstance(args[0], CoreTensor):
        if args[0].array.dtype != dtype:
            raise TypeError(f"expected {_dispatch.type_name(dtype)} tensor (got "
                            f"{_dispatch.type_name(args[0].array.dtype)})")
        return _dispatch.wrap(args[0].array)
    if len(args) == 1 and not isinstance(args[0], (int, np.integer, Size)):
        return _dispatch.wrap(_dispatch.array_from(args[0], dtype))
    return _dispatch.wrap(np.empty(_dispatch.dims_of(args) if args else (0,), dtype))


def _autograd_resize(self, shape):
    count = int(np.prod(shape, dtype=np.int64))
    if count != self.numel():
        raise RuntimeError(f"requested resize to {'x'.join(map(str, shape))} ({count} elements in total), but the "
                           f"given tensor has a size of {'x'.join(map(str, self.shape))} ({self.numel()} elements). "
                           "autograd's resize can only change the shape of a given tensor, while preserving the number "
                           "of elements")
    return self.reshape(shape)


def _resize(self, *sizes):
    """Deprecated out-of-place resize: a reshape (same number of elements) that warns."""
    warn_for_user("non-inplace resize is deprecated", UserWarning)
    return _autograd_resize(self, _dispatch.dims_of(sizes))


def _resize_as(self, tensor):
    """Deprecated out-of-place ``resize_as``: a reshape to ``tensor``'s shape that warns."""
    warn_for_user("non-inplace resize_as is deprecated", UserWarning)
    return _autograd_resize(self, tuple(tensor.shape))


def _set_(self, source=None, *args, **kwargs):
    """Make ``self`` share ``source``'s memory and shape (no argument: an empty tensor); basic form only (no
    storage offset or strides)."""
    if args or kwargs:
        raise NotImplementedError("Tensor.set_ with a storage offset, size or stride is not supported by vfw.torch")
    if source is not None and source.array.dtype != self.array.dtype:
        raise RuntimeError(f"Could not set tensor of type {_dispatch.type_name(source.array.dtype)} to a tensor of "
                           f"type {_dispatch.type_name(self.array.dtype)}")
    self.array = np.empty(0, self.array.dtype) if source is None else source.array
    _dispatch.bump_version(self)
    return self


def _volatile(self):
    """Always False: the pre-0.4 ``volatile`` flag is gone (``torch.no_grad()`` replaced it); torch warns on reading
    it."""
    warn_for_user("volatile was removed (Variable.volatile is always False)", UserWarning)
    return False


TENSOR_METHODS = {"apply_": _apply_, "map_": _map_, "map2_": _map2_, "new": _new, "resize": _resize,
                  "resize_as": _resize_as, "set_": _set_, "volatile": property(_volatile)}
