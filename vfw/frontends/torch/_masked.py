"""Masked ops: masked_fill, masked_select, masked_scatter (and the fill-value and select helpers the
scatter family shares).

As in ``_scatter``: engine ops (Where, Compress, ScatterND) when autograd or a trace records,
numpy otherwise; torch's checks and exception types first.
"""

import numpy as np

from vfw.core.tensor import Tensor as CoreTensor
from vfw.frontends.torch import _dispatch
from vfw.frontends.torch._dispatch import call, wrap
from vfw.frontends.torch._grad_fn_names import masked_fill_name, names_grad_fn
from vfw.frontends.torch._indexing import (
    fill_scalar,
    finish,
    int64s,
    is_number,
    is_tracked,
    method,
    reshape,
    scatter_positions,
    tracing,
)
from vfw.frontends.torch._pointwise import tensor_arg
from vfw.frontends.torch._traced import value_shaped

__all__ = ["masked_fill", "masked_select", "masked_scatter"]

_BOOL = np.dtype(np.bool_)
_tname = _dispatch.type_name


# masked_fill's error names the mask's C++ element type (masked_scatter's names torch's scalar type)
_CPP_TYPE_NAMES = {"float16": "c10::Half", "bfloat16": "c10::BFloat16", "float32": "float", "float64": "double",
                   "int8": "signed char", "uint8": "unsigned char", "int16": "short int", "int32": "int",
                   "int64": "long int", "uint16": "short unsigned int", "uint32": "unsigned int",
                   "uint64": "long unsigned int", "complex64": "c10::complex<float>",
                   "complex128": "c10::complex<double>"}


def _check_mask(mask, name, message):
    if not isinstance(mask, CoreTensor):
        raise TypeError(f"{name}(): argument 'mask' (position 1) must be Tensor, not {type(mask).__name__}")
    if mask.array.dtype != _BOOL:
        dtype = mask.array.dtype
        raise RuntimeError(message.format(_CPP_TYPE_NAMES.get(dtype.name, _tname(dtype)) if name == "masked_fill"
                                          else _tname(dtype)))


def fill_value(input, value, name):
    """A fill value as an engine input of ``input``'s dtype: a 0-d array, or a 0-d tensor cast (recorded)."""
    if isinstance(value, CoreTensor):
        if value.array.ndim != 0:
            raise RuntimeError(f"{name} only supports a 0-dimensional value tensor, but got tensor with "
                               f"{value.array.ndim} dimension(s).")
        return _dispatch.cast(_dispatch.as_torch(value), input.array.dtype)
    if not is_number(value):
        raise TypeError(f"{name}(): argument 'value' must be Number, not {type(value).__name__}")
    return fill_scalar(value, input.array.dtype, name)


def broadcast_shape(a, b):
    """The broadcast of shapes ``a`` and ``b``, or torch's RuntimeError naming the first mismatching dim."""
    mismatch = _dispatch.broadcast_mismatch([a, b])
    if mismatch:
        raise RuntimeError(mismatch)
    return np.broadcast_shapes(a, b)


def select(condition, value, input):
    """``Where(condition, value, input)``: numpy when nothing records (``value`` a 0-d array or tensor)."""
    if is_tracked(input, value):
        return call("Where", condition, value, input)
    v = value.array if isinstance(value, CoreTensor) else value
    c = condition.array if isinstance(condition, CoreTensor) else condition
    return wrap(np.where(c, v, input.array))


@names_grad_fn(masked_fill_name)
def masked_fill(input, mask, value):
    """``input`` with ``value`` where the boolean ``mask`` (broadcast) is True."""
    input = tensor_arg(input, "masked_fill")
    _check_mask(mask, "masked_fill", "masked_fill_ only supports boolean masks, but got mask with dtype {}")
    value = fill_value(input, value, "masked_fill_")
    if mask.array.shape != input.array.shape:
        broadcast_shape(mask.array.shape, input.array.shape)  # (torch names the mask first)
    return select(mask, value, input)


def masked_select(input, mask, *, out=None):
    """The elements of ``input`` where ``mask`` is True (both broadcast), as a 1-D tensor."""
    input = tensor_arg(input, "masked_select")
    _check_mask(mask, "masked_select", "masked_select: expected BoolTensor for mask")
    x, m = input.array, mask.array
    if not is_tracked(input):
        if x.shape != m.shape:
            shape = broadcast_shape(m.shape, x.shape)
            x, m = np.broadcast_to(x, shape), np.broadcast_to(m, shape)
        return finish(wrap(x[m]), out, "masked_select")
    shape = broadcast_shape(m.shape, x.shape)
    if x.shape != shape:
        input = call("Expand", input, int64s(shape))
    m = np.broadcast_to(m, shape).reshape(-1)
    return finish(value_shaped(call("Compress", input, m), (0,)), out, "masked_select")


def masked_scatter(input, mask, source):
    """``input`` with the True positions of ``mask`` filled, in order, by the first elements of ``source``."""
    input = tensor_arg(input, "masked_scatter")
    source = tensor_arg(source, "masked_scatter", "source", 3)
    _check_mask(mask, "masked_scatter", "masked_scatter_ only supports boolean masks, but got mask with dtype {}")
    if source.array.dtype != input.array.dtype:
        raise RuntimeError(f"masked_scatter: expected self and source to have same dtypes but got "
                           f"{_tname(input.array.dtype)} and {_tname(source.array.dtype)}")
    shape = broadcast_shape(mask.array.shape, input.array.shape)
    flat_mask = np.broadcast_to(mask.array, shape).reshape(-1)
    pos = np.flatnonzero(flat_mask)
    n = pos.size
    if source.array.size < n:
        raise RuntimeError("Number of elements of source < number of ones in mask")
    if input.array.shape != shape:
        input = call("Expand", input, int64s(shape))
    src = reshape(source, (source.array.size,))
    if tracing():  # positions and count from the mask of each graph run
        traced_mask = reshape(call("Expand", mask, int64s(shape)), (-1,))
        pos = value_shaped(call("Compress", np.arange(flat_mask.size, dtype=np.int64), traced_mask), (0,))
        return scatter_positions(input, pos, call("Slice", src, int64s([0]), call("Shape", pos)), "none",
                                 "masked_scatter")
    if src.array.shape[0] != n:
        src = call("Slice", src, int64s([0]), int64s([n]))
    return scatter_positions(input, pos, src, "none", "masked_scatter")


def _masked_fill_(self, mask, value):
    if isinstance(mask, CoreTensor) and mask.array.shape != self.array.shape:
        broadcast_shape(self.array.shape, mask.array.shape)  # (in place, torch names ``self`` first)
    return _dispatch.inplace(masked_fill, self, mask, value, name="masked_fill_")


def _masked_scatter_(self, mask, source):
    return _dispatch.inplace(masked_scatter, self, mask, source, name="masked_scatter_")


TENSOR_METHODS = {"masked_fill": masked_fill, "masked_fill_": _masked_fill_, "masked_select": method(masked_select),
                  "masked_scatter": masked_scatter, "masked_scatter_": _masked_scatter_}
