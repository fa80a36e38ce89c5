"""``Tensor.unfold``: sliding windows along a dimension, as a view sharing the input's memory."""

import numpy as np

from vfw.core.autograd import is_grad_enabled
from vfw.core.graph.trace import _active as _tracing
from vfw.frontends.torch import _dispatch
from vfw.frontends.torch._reduction import dim_index

__all__ = []  # a Tensor method only


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
    flat = _dispatch.call(_dispatch.op("Reshape", allowzero=1), base, np.array([-1], np.int64))
    positions = _dispatch.flat_positions(base, _dispatch.wrap(windows), "unfold")
    result = _dispatch.call(_dispatch.op("Gather", axis=0), flat, positions)
    result.array = windows
    return _dispatch.view_of(self, result) if base is self else result  # a copy's windows: no shared memory


TENSOR_METHODS = {"unfold": _unfold}
