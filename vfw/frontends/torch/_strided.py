"""Strided views over a tensor's memory: ``as_strided``, ``empty_strided`` and ``Tensor.unfold``.

Under autograd a strided view is recorded as a gather of the input's elements (the result keeps
the memory view, so writes through it still reach the input).
"""

import numpy as np

from vfw.core.autograd import is_grad_enabled
from vfw.core.graph.trace import _active as _tracing
from vfw.frontends.torch import _device, _dispatch, _dtype
from vfw.frontends.torch._reduction import dim_index

__all__ = ["as_strided", "empty_strided"]


def _unfold(self, dimension, size, step):
    """Windows of ``size`` elements every ``step`` along ``dimension``, as a new last dimension (a view)."""
    arr = self.array
    d = dim_index(dimension, arr.ndim, "unfold") if arr.ndim else 0
    n = arr.shape[d] if arr.ndim else 1
    if size > n:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {n} but size is {size}")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0")
    if not arr.ndim:
        return _dispatch.view_of(self, _dispatch.wrap(arr.reshape(1)))
    stride = arr.strides[d]
    shape = arr.shape[:d] + ((n - size) // step + 1,) + arr.shape[d + 1:] + (size,)
    strides = arr.strides[:d] + (stride * step,) + arr.strides[d + 1:] + (stride,)
    windows = np.lib.stride_tricks.as_strided(arr, shape, strides, writeable=arr.flags.writeable)
    if not (_tracing or (self.requires_grad and is_grad_enabled())):
        return _dispatch.view_of(self, _dispatch.wrap(windows))
    # Recorded as a gather of the (contiguous) input's elements; the result keeps the memory view.
    base = self if arr.flags.c_contiguous else self.contiguous()
    if base is not self:
        windows = np.lib.stride_tricks.as_strided(base.array, shape, base.array.strides[:d] + (
            base.array.strides[d] * step,) + base.array.strides[d + 1:] + (base.array.strides[d],))
    result = _gathered(base, windows, "unfold")
    return _dispatch.view_of(self, result) if base is self else result  # a copy's windows: no shared memory


def _gathered(base, view, name):
    """A tensor over the numpy ``view`` of ``base``'s memory whose history is a gather of those elements."""
    positions = _dispatch.flat_positions(base, _dispatch.wrap(view), name)
    if positions.size and (positions.min() < 0 or positions.max() >= base.array.size):
        raise RuntimeError(f"{name}: under autograd vfw.torch needs the view inside the input's own elements")
    flat = _dispatch.call(_dispatch.op("Reshape", allowzero=1), base, np.array([-1], np.int64))
    result = _dispatch.call(_dispatch.op("Gather", axis=0), flat, positions)
    result.array = view
    return result


def _storage(t):
    """The ndarray that owns ``t``'s memory."""
    mem = t.array
    while isinstance(mem.base, np.ndarray):
        mem = mem.base
    return mem


def _strided(mem, size, stride, offset, name):
    """A numpy view of ``mem`` (a flat C-contiguous storage) with torch-style element strides."""
    if len(size) != len(stride):
        raise RuntimeError(f"{name}: mismatch in length of strides and shape")
    if any(s < 0 for s in stride) or offset < 0:
        raise RuntimeError(f"{name}: negative strides and storage offsets are not supported")
    need = offset + (1 + sum((n - 1) * s for n, s in zip(size, stride)) if all(size) else 0)
    item = mem.itemsize
    if need > mem.size:
        raise RuntimeError(f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset {offset}, and "
                           f"itemsize {item} requiring a storage size of {need * item} are out of bounds for storage "
                           f"of size {mem.size * item}")
    flat = mem.reshape(-1)
    return np.lib.stride_tricks.as_strided(flat[offset:], size, [s * item for s in stride],
                                           writeable=mem.flags.writeable)


def as_strided(input, size, stride, storage_offset=None):
    """Tensor: a view of ``input``'s storage with the given sizes, element strides and offset."""
    size, stride = _dispatch.dims_of((size,)), _dispatch.dims_of((stride,))
    mem = _storage(input)
    if not mem.flags.c_contiguous:
        raise RuntimeError("as_strided: vfw.torch needs the tensor's storage to be one contiguous block")
    offset = input.storage_offset() if storage_offset is None else int(storage_offset)
    view = _strided(mem, size, stride, offset, "as_strided")
    if not (_tracing or (input.requires_grad and is_grad_enabled())):
        return _dispatch.view_of(input, _dispatch.wrap(view))
    if not input.array.flags.c_contiguous:
        raise RuntimeError("as_strided: under autograd vfw.torch needs a contiguous input")
    return _dispatch.view_of(input, _gathered(input, view, "as_strided"))


def empty_strided(size, stride, *, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False):
    """Tensor: uninitialised values laid out with the given element strides."""
    _device.check(device)
    size, stride = _dispatch.dims_of((size,)), _dispatch.dims_of((stride,))
    np_dtype = _dtype.default_float_np() if dtype is None else _dtype.to_np(dtype)
    need = 1 + sum((n - 1) * s for n, s in zip(size, stride)) if all(size) else 0
    t = _dispatch.wrap(_strided(np.empty(need, np_dtype), size, stride, 0, "empty_strided"))
    return t.requires_grad_(requires_grad) if requires_grad else t


TENSOR_METHODS = {"unfold": _unfold, "as_strided": as_strided}
