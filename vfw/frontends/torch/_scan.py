"""Scans along a dimension: cumsum, cumprod, cummax, cummin, logcumsumexp, and diff.

All run as engine ops (CumSum, and CumProd/CumMax/CumMin/LogCumSumExp of
``vfw.core.ops.scan_sort``), so they are differentiable as in torch: cummax's gradient
goes to the index it returns, cumprod's is exact where the input has zeros.
"""

import numpy as np

from vfw.core import dtypes as dt
from vfw.core.registry import get_schema
from vfw.frontends.torch import _dispatch, _dtype, return_types
from vfw.frontends.torch._dispatch import call, cast, finish, inplace, type_name
from vfw.frontends.torch._reduction import (
    SUM_ACCUMULATOR,
    axes_array,
    bound,
    dim_aliases,
    dim_index,
    idle,
    new_tensor,
    np_dtype_arg,
    tensor_arg,
)

__all__ = ["cumsum", "cumprod", "cummax", "cummin", "logcumsumexp", "diff"]

_INT64 = np.dtype(np.int64)
_FLOATS = dt.FLOATS


def _accumulated(op_type, input, dim, dtype, out, name):
    """CumSum/CumProd along ``dim``: integers and bools accumulate in int64 unless ``dtype`` is given."""
    x = tensor_arg(input, name)
    d = dim_index(dim, x.array.ndim, name)
    if dtype is None and out is None and x.array.ndim and idle(x):
        acc = SUM_ACCUMULATOR.get(x.array.dtype)
        if acc is not None:  # what the engine kernels compute, without the executor
            ufunc = np.add if op_type == "CumSum" else np.multiply
            return new_tensor(ufunc.accumulate(x.array, axis=d, dtype=acc))
    if dtype is None and isinstance(out, _dispatch.Tensor):  # torch computes in out's dtype
        dtype = _dtype._FROM_NP[out.array.dtype]
    target = np_dtype_arg(dtype, name)
    if target is not None:
        x = cast(x, target)
    elif x.array.dtype.kind in "biu":
        x = cast(x, _INT64)
    if x.array.dtype not in get_schema(op_type).types["T"]:  # small integer dtypes: wrap around like torch
        result = cast(call(bound(op_type), cast(x, _INT64), axes_array((d,))), x.array.dtype)
    else:
        result = call(bound(op_type), x, axes_array((d,)))
    return finish(result, out, name)


def cumsum(input, dim=None, *, dtype=None, out=None, **aliases):
    """Cumulative sum along ``dim`` (integers and bools give int64)."""
    if aliases:
        dim, _ = dim_aliases("cumsum", aliases, dim, None)
    return _accumulated("CumSum", input, dim, dtype, out, "cumsum")


def cumprod(input, dim=None, *, dtype=None, out=None, **aliases):
    """Cumulative product along ``dim`` (integers and bools give int64)."""
    if aliases:
        dim, _ = dim_aliases("cumprod", aliases, dim, None)
    return _accumulated("CumProd", input, dim, dtype, out, "cumprod")


def _cum_extreme(input, dim, out, op_type, name):
    x = tensor_arg(input, name)
    d = dim_index(dim, x.array.ndim, name)
    result = call(bound(op_type), x, axes_array((d,)))
    if out is not None:
        return getattr(return_types, name + "_out")(finish(result, out, name))
    return getattr(return_types, name)(result)


def cummax(input, dim=None, *, out=None, **aliases):
    """``(values, indices)``: the running maximum along ``dim`` and where it comes from (latest of ties)."""
    if aliases:
        dim, _ = dim_aliases("cummax", aliases, dim, None)
    return _cum_extreme(input, dim, out, "CumMax", "cummax")


def cummin(input, dim=None, *, out=None, **aliases):
    """``(values, indices)``: the running minimum along ``dim`` and where it comes from (latest of ties)."""
    if aliases:
        dim, _ = dim_aliases("cummin", aliases, dim, None)
    return _cum_extreme(input, dim, out, "CumMin", "cummin")


def logcumsumexp(input, dim=None, *, out=None, **aliases):
    """``log(cumsum(exp(x)))`` along ``dim``, computed stably (floating point inputs)."""
    if aliases:
        dim, _ = dim_aliases("logcumsumexp", aliases, dim, None)
    x = tensor_arg(input, "logcumsumexp")
    d = dim_index(dim, x.array.ndim, "logcumsumexp")
    if x.array.dtype not in _FLOATS:
        raise NotImplementedError(f'"logcumsumexp_out_cpu" not implemented for \'{type_name(x.array.dtype)}\'')
    return finish(call(bound("LogCumSumExp"), x, axes_array((d,))), out, "logcumsumexp")


def diff(input, n=1, dim=-1, prepend=None, append=None, **aliases):
    """The ``n``-th forward difference along ``dim`` (``prepend``/``append`` joined first); bools use xor."""
    if aliases:
        dim, _ = dim_aliases("diff", aliases, dim, None)
    x = tensor_arg(input, "diff")
    ndim = x.array.ndim
    if not ndim:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if isinstance(n, (bool, np.bool_)) or not isinstance(n, (int, np.integer)):
        raise TypeError(f"diff(): argument 'n' must be int, not {type(n).__name__}")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    d = dim_index(dim, ndim, "diff")
    parts = [x]
    for name, extra in (("prepend", prepend), ("append", append)):
        if extra is None:
            continue
        extra = tensor_arg(extra, "diff", name)
        if extra.array.ndim != ndim:
            raise RuntimeError("diff expects prepend or append to be the same dimension as input")
        for i, (a, b) in enumerate(zip(x.array.shape, extra.array.shape)):
            if i != d and a != b:
                raise RuntimeError("diff expects the shape of tensor to prepend or append to match that of input "
                                   f"except along the differencing dimension; input.size({i}) = {a}, but got "
                                   f"tensor.size({i}) = {b}")
        parts.insert(0 if name == "prepend" else len(parts), extra)
    if len(parts) > 1:
        parts, _ = _dispatch.promoted(*parts)
        x = call(bound("Concat", axis=d), *parts)
    step = bound("Xor") if x.array.dtype == np.bool_ else bound("Sub")
    axis = axes_array((d,))
    for _ in range(n):
        length = x.array.shape[d]
        if not length:
            break
        upper = call(bound("Slice"), x, axes_array((1,)), axes_array((length,)), axis)
        lower = call(bound("Slice"), x, axes_array((0,)), axes_array((length - 1,)), axis)
        x = call(step, upper, lower)
    return x


def _scan_inplace(fn, name):
    def method(self, dim, *, dtype=None):
        if dtype is not None and np_dtype_arg(dtype, name) != self.array.dtype:
            raise RuntimeError(f"Bad in-place call: input tensor dtype {_dtype._FROM_NP[self.array.dtype].name} and "
                               f"output tensor dtype {dtype.name} should match")
        return inplace(fn, self, dim, dtype=dtype, name=name)

    method.__name__ = name
    method.__doc__ = f"In-place ``{name[:-1]}`` (the result keeps this tensor's dtype)."
    return method


TENSOR_METHODS = {name: globals()[name] for name in __all__}
TENSOR_METHODS.update({"cumsum_": _scan_inplace(cumsum, "cumsum_"), "cumprod_": _scan_inplace(cumprod, "cumprod_")})
