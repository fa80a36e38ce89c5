"""Reductions: sum, mean, prod, max/min (all overloads), amax/amin, argmax/argmin, aminmax, all/any, count_nonzero.

Every differentiable result is computed with engine ops, so gradients follow torch's:
``max(x, dim)`` sends the gradient to the returned index (a gather), while ``amax`` and
``max(x)`` split it evenly among ties (the engine's ReduceMax gradient).  When nothing
records (no autograd, no graph trace) the common float/integer cases take numpy fast
paths that compute exactly what the engine kernels compute.  The helpers for ``dim``
arguments here are shared by the statistics, scan and sorting modules.
"""

import math

import numpy as np

from vfw.core import autograd
from vfw.core import dtypes as dt
from vfw.core.graph.trace import _active as _tracing
from vfw.core.ops._common import GEMV_SUM_FROM, trailing_sum
from vfw.core.registry import get_schema
from vfw.core.tensor import Tensor as CoreTensor
from vfw.frontends.torch import _dispatch, _dtype, return_types
from vfw.frontends.torch._dispatch import as_torch, call, cast, finish, op, type_name, wrap
from vfw.frontends.torch._grad_fn_names import dim_overload, extreme_name, names_grad_fn

__all__ = ["sum", "nansum", "mean", "nanmean", "prod", "max", "min", "amax", "amin", "argmax", "argmin", "aminmax",
           "all", "any", "count_nonzero"]

_INT64 = np.dtype(np.int64)
_F32 = np.dtype(np.float32)
_HALF = frozenset({dt.float16, dt.bfloat16})
_FLOATS = dt.FLOATS
_SUMMABLE = get_schema("ReduceSum").types["T"]
_EXTREMABLE = get_schema("ReduceMax").types["T"]
_is_grad_enabled = autograd.is_grad_enabled
_NO = object()  # "argument not given" where None means something else
_new = object.__new__
_ndarray = np.ndarray
# Accumulation dtypes of the numpy fast paths (halves go through the engine, which accumulates in float32).
SUM_ACCUMULATOR = {np.dtype(t): np.dtype(t) for t in (np.float32, np.float64)}
SUM_ACCUMULATOR.update({np.dtype(t): _INT64 for t in (np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8,
                                                  np.uint16, np.uint32, np.uint64)})
FAST_FLOATS = frozenset({np.dtype(np.float32), np.dtype(np.float64)})
_FAST_EXTREME = frozenset(SUM_ACCUMULATOR)


# -- arguments shared by the family modules ---------------------------------------------
def tensor_arg(x, name, arg="input"):
    """``x`` as a torch tensor, or torch's TypeError for a non-tensor argument."""
    if isinstance(x, _dispatch.Tensor):
        return x
    if isinstance(x, CoreTensor):
        return as_torch(x)
    raise TypeError(f"{name}(): argument '{arg}' (position 1) must be Tensor, not {type(x).__name__}")


def dim_index(dim, ndim, name="op"):
    """``dim`` in ``[0, ndim)`` (a 0-d tensor takes -1 and 0), or torch's IndexError/TypeError."""
    if type(dim) is not int:
        if isinstance(dim, (bool, np.bool_)) or not isinstance(dim, (int, np.integer)):
            raise TypeError(f"{name}(): argument 'dim' must be int, not {type(dim).__name__}")
        dim = int(dim)
    n = ndim or 1
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    return dim + n if dim < 0 else dim


def dim_tuple(dim, ndim, name="op"):
    """A dim or a sequence of dims as a tuple of distinct dims in ``[0, ndim)``."""
    if isinstance(dim, (tuple, list)):
        dims = tuple(dim_index(d, ndim, name) for d in dim)
        if len(set(dims)) != len(dims):
            repeated = next(d for d in dims if dims.count(d) > 1)
            raise RuntimeError(f"dim {repeated} appears multiple times in the list of dims")
        return dims
    return (dim_index(dim, ndim, name),)


_AXES = {}


def axes_array(dims):
    """A cached read-only int64 array of ``dims`` (an engine ``axes`` input)."""
    a = _AXES.get(dims)
    if a is None:
        a = np.asarray(dims, _INT64)
        a.flags.writeable = False
        if len(_AXES) < 512:
            _AXES[dims] = a
    return a


_BOUND = {}


def bound(op_type, **attrs):
    """A bound engine op, cached per attribute values for this module family's hot paths."""
    key = (op_type, *attrs.values())
    b = _BOUND.get(key)
    if b is None:
        b = _BOUND[key] = op(op_type, **attrs)
    return b


def dim_aliases(name, aliases, dim, keepdim):
    """``(dim, keepdim)`` with torch's numpy-style keywords ``axis=`` and ``keepdims=`` applied
    (``keepdim=None``: the function has no ``keepdim``)."""
    for key, value in aliases.items():
        if key == "axis":
            dim = value
        elif key == "keepdims" and keepdim is not None:
            keepdim = value
        else:
            raise TypeError(f"{name}() got an unexpected keyword argument '{key}'")
    return dim, keepdim


def np_dtype_arg(dtype, name):
    if dtype is None:
        return None
    if not isinstance(dtype, _dtype.dtype):
        raise TypeError(f"{name}(): argument 'dtype' must be torch.dtype, not {type(dtype).__name__}")
    return dtype.np


def requires_grad(x):
    """Whether an op on ``x`` is recorded for autograd now."""
    return x.requires_grad and _is_grad_enabled()


def idle(x):
    """Whether an op on the torch tensor ``x`` records nothing (no autograd, no graph trace).

    Then the numpy fast paths may run: they compute exactly what the engine kernels compute,
    without the executor's per-call cost.
    """
    return type(x) is _dispatch.Tensor and not (_tracing or (x.requires_grad and _is_grad_enabled()))


def new_tensor(result):
    """A torch tensor around a numpy result (full reductions give numpy scalars)."""
    t = _new(_dispatch.Tensor)
    t.array = result if type(result) is _ndarray else np.asarray(result)
    t.requires_grad = False
    t.grad_node = None
    return t


def fast_axis(dim, ndim, name):
    """The numpy ``axis`` for ``dim`` (None: all dims), validated as torch does."""
    if dim is None:
        return None
    if type(dim) is int:
        d = dim_index(dim, ndim, name)
        return d if ndim else None
    if isinstance(dim, (tuple, list)) and not dim:
        return None
    dims = dim_tuple(dim, ndim, name)
    return dims if ndim else None


def reduce_over(op_type, x, dim, keepdim, name):
    """``op_type`` (a Reduce* engine op) over ``dim`` (None, an int or a sequence; ``()`` means all)."""
    keep = 1 if keepdim else 0
    if dim is None or (isinstance(dim, (tuple, list)) and not dim):
        return call(bound(op_type, keepdims=keep), x)
    ndim = x.array.ndim
    dims = (dim_index(dim, ndim, name),) if type(dim) is int else dim_tuple(dim, ndim, name)
    if not ndim:
        return call(bound(op_type, keepdims=keep), x)
    return call(bound(op_type, keepdims=keep), x, axes_array(dims))


def reduced_dims(x, dim, name):
    """The dims ``dim`` names (all of them for None or ``()``)."""
    ndim = x.array.ndim
    if dim is None or (isinstance(dim, (tuple, list)) and not dim):
        return tuple(range(ndim))
    return dim_tuple(dim, ndim, name)


def _int_to_long(x):
    return cast(x, _INT64) if x.array.dtype.kind in "biu" else x


def _summed(op_type, x, dim, keepdim, dtype, name):
    """A sum-like reduction: integers and bools accumulate in int64 unless ``dtype`` says otherwise."""
    target = np_dtype_arg(dtype, name)
    if target is not None:
        x = cast(x, target)
    elif x.array.dtype.kind in "biu":
        x = cast(x, _INT64)
    if x.array.dtype not in _SUMMABLE:
        result = reduce_over(op_type, cast(x, _INT64), dim, keepdim, name)
        return cast(result, target if target is not None else _INT64)
    return reduce_over(op_type, x, dim, keepdim, name)


# -- sums and means -------------------------------------------------------------------
def _out_dtype(out):
    """The dtype a sum-like reduction computes in when given ``out=`` (torch uses ``out``'s)."""
    return _dtype._FROM_NP[out.array.dtype] if isinstance(out, CoreTensor) else None


def _no_dim(name, keepdim):
    """torch's ``sum``/``mean``/``prod`` take ``keepdim`` only together with ``dim``."""
    if keepdim is not _NO:
        raise TypeError(f"{name}() received an invalid combination of arguments - got (Tensor, keepdim=bool), but "
                        f"expected one of: (Tensor input, *, torch.dtype dtype = None) or (Tensor input, dim, bool "
                        "keepdim = False, *, torch.dtype dtype = None)")
    return None, False


@names_grad_fn(dim_overload("SumBackward0", "SumBackward1"))
def sum(input, dim=_NO, keepdim=_NO, *, dtype=None, out=None, **aliases):  # noqa: A001
    """Sum over ``dim`` (an int, a tuple, or None for all); integers and bools give int64."""
    if aliases:
        dim, keepdim = dim_aliases("sum", aliases, dim, keepdim)
    if dtype is None and out is None and idle(input) and (dim is not _NO or keepdim is _NO):
        a = input.array
        acc = SUM_ACCUMULATOR.get(a.dtype)
        if acc is not None:
            axis = None if dim is _NO else fast_axis(dim, a.ndim, "sum")
            keep = keepdim is not _NO and bool(keepdim)
            total = trailing_sum(a, axis, keep) if a.size >= GEMV_SUM_FROM else None
            return new_tensor(np.add.reduce(a, axis=axis, dtype=acc, keepdims=keep) if total is None else total)
    x = input if type(input) is _dispatch.Tensor else tensor_arg(input, "sum")
    if dim is _NO:
        dim, keepdim = _no_dim("sum", keepdim)
    elif keepdim is _NO:
        keepdim = False
    if out is not None and dtype is None:
        dtype = _out_dtype(out)
    if dtype is None and x.array.dtype in _FLOATS:
        result = reduce_over("ReduceSum", x, dim, keepdim, "sum")
    else:
        result = _summed("ReduceSum", x, dim, keepdim, dtype, "sum")
    return result if out is None else finish(result, out, "sum")


def nansum(input, dim=None, keepdim=False, *, dtype=None, out=None, **aliases):
    """Sum treating NaN as zero."""
    if aliases:
        dim, keepdim = dim_aliases("nansum", aliases, dim, keepdim)
    x = tensor_arg(input, "nansum")
    if out is not None and dtype is None:
        dtype = _out_dtype(out)
    if x.array.dtype in _FLOATS:
        if dtype is not None and dtype.np not in _FLOATS:
            raise NotImplementedError(f'"nansum_cpu" not implemented for \'{type_name(dtype.np)}\'')
        x = call(bound("Where"), call(bound("IsNaN"), x), np.zeros((), x.array.dtype), x)
    return finish(_summed("ReduceSum", x, dim, keepdim, dtype, "nansum"), out, "nansum")


def _float_input(x, dtype, name):
    target = np_dtype_arg(dtype, name)
    if target is not None:
        if target not in _FLOATS:
            raise RuntimeError(f"{name}(): could not infer output dtype. Optional dtype must be either a floating "
                               f"point or complex dtype. Got: {type_name(target)}")
        return cast(x, target)
    if x.array.dtype not in _FLOATS and x.array.dtype.kind != "c":
        raise RuntimeError(f"{name}(): could not infer output dtype. Input dtype must be either a floating point or "
                           f"complex dtype. Got: {type_name(x.array.dtype)}")
    return x


@names_grad_fn(dim_overload("MeanBackward0", "MeanBackward1"))
def mean(input, dim=_NO, keepdim=_NO, *, dtype=None, out=None, **aliases):
    """Mean over ``dim``; floating point inputs only (or a floating ``dtype``)."""
    if aliases:
        dim, keepdim = dim_aliases("mean", aliases, dim, keepdim)
    if dtype is None and out is None and idle(input) and (dim is not _NO or keepdim is _NO):
        a = input.array
        if a.dtype in FAST_FLOATS:
            axis = None if dim is _NO else fast_axis(dim, a.ndim, "mean")
            count = a.size if axis is None else a.shape[axis] if type(axis) is int else \
                math.prod(a.shape[d] for d in axis)
            keep = keepdim is not _NO and bool(keepdim)
            total = trailing_sum(a, axis, keep) if a.size >= GEMV_SUM_FROM else None
            if total is None:
                total = np.add.reduce(a, axis=axis, dtype=a.dtype, keepdims=keep)
            return new_tensor(np.true_divide(total, count, dtype=a.dtype))
    x = _float_input(tensor_arg(input, "mean"), dtype, "mean")
    if dim is _NO:
        dim, keepdim = _no_dim("mean", keepdim)
    elif keepdim is _NO:
        keepdim = False
    return finish(reduce_over("ReduceMean", x, dim, keepdim, "mean"), out, "mean")


def nanmean(input, dim=None, keepdim=False, *, dtype=None, out=None, **aliases):
    """Mean of the non-NaN elements (NaN where there are none)."""
    if aliases:
        dim, keepdim = dim_aliases("nanmean", aliases, dim, keepdim)
    x = tensor_arg(input, "nanmean")
    if x.array.dtype not in _FLOATS:
        raise RuntimeError(f"nanmean(): expected input to have floating point or complex dtype but got "
                           f"{type_name(x.array.dtype)}")
    x = _float_input(x, dtype, "nanmean")
    nan = call(bound("IsNaN"), x)
    total = reduce_over("ReduceSum", call(bound("Where"), nan, np.zeros((), x.array.dtype), x), dim, keepdim, "nanmean")
    count = reduce_over("ReduceSum", cast(call(bound("Not"), nan), x.array.dtype), dim, keepdim, "nanmean")
    return finish(call(bound("Div"), total, count), out, "nanmean")


@names_grad_fn(dim_overload("ProdBackward0", "ProdBackward1"))
def prod(input, dim=_NO, keepdim=_NO, *, dtype=None, out=None, **aliases):
    """Product of all elements, or over one ``dim``; integers and bools give int64."""
    if aliases:
        dim, keepdim = dim_aliases("prod", aliases, dim, keepdim)
    x = tensor_arg(input, "prod")
    if dim is _NO:
        dim, keepdim = _no_dim("prod", keepdim)
    elif isinstance(dim, (bool, np.bool_)) or not isinstance(dim, (int, np.integer)):
        raise TypeError(f"prod() received an invalid combination of arguments - got (Tensor, {type(dim).__name__}),"
                        " but expected one of: (Tensor input, *, torch.dtype dtype = None) or (Tensor input, int dim,"
                        " bool keepdim = False, *, torch.dtype dtype = None)")
    elif keepdim is _NO:
        keepdim = False
    if dtype is None and out is None and idle(x):
        acc = SUM_ACCUMULATOR.get(x.array.dtype)
        if acc is not None:
            return new_tensor(np.multiply.reduce(x.array, axis=fast_axis(dim, x.array.ndim, "prod"), dtype=acc,
                                                 keepdims=bool(keepdim)))
    if out is not None and dtype is None:
        dtype = _out_dtype(out)
    return finish(_summed("ReduceProd", x, dim, keepdim, dtype, "prod"), out, "prod")


# -- max / min ---------------------------------------------------------------------------
def refuse_complex(x, error, message):
    """torch's refusal of a complex ``x`` by an ordering op: ``error(message)``, the kernel's dtype name filled
    in where ``message`` has ``{}``."""
    if x.array.dtype.kind == "c":
        raise error(message.format(type_name(x.array.dtype)))


def _extreme_all(x, op_type, name):
    """``max(x)`` / ``min(x)``: the extreme element (gradient split evenly among ties)."""
    if not x.array.size:
        raise RuntimeError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0. Specify the "
                           "reduction dim with the 'dim' argument.")
    return _extreme_reduce(op_type, x, None, False, name)


def _extreme_reduce(op_type, x, dim, keepdim, name):
    if x.array.dtype in _EXTREMABLE:
        return reduce_over(op_type, x, dim, keepdim, name)
    wide = _int_to_long(x)  # int16/uint16: the engine's ReduceMax/Min lack them
    return cast(reduce_over(op_type, wide, dim, keepdim, name), x.array.dtype)


def check_nonempty(x, dims, name):
    for d in dims:
        if x.array.ndim and not x.array.shape[d]:
            raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")


def _extreme_dim(x, dim, keepdim, name, largest=True):
    """``(values, indices)`` of the first maximum (minimum) along ``dim``; the gradient goes to that index."""
    arr = x.array
    d = dim_index(dim, arr.ndim, name)
    if not arr.ndim:
        return call(bound("Identity"), x), wrap(np.zeros((), _INT64))
    check_nonempty(x, (d,), name)
    keys = cast(x, np.dtype(np.uint8)) if arr.dtype == np.bool_ else x
    arg = "ArgMax" if largest else "ArgMin"
    if requires_grad(x) or arr.dtype not in _EXTREMABLE:
        idx = call(bound(arg, axis=d, keepdims=1), keys)
        values = call(bound("GatherElements", axis=d), x, idx)
        if not keepdim:
            values = call(bound("Squeeze"), values, axes_array((d,)))
            idx = wrap(idx.array.reshape(values.array.shape))
        return values, idx
    values = reduce_over("ReduceMax" if largest else "ReduceMin", x, d, keepdim, name)
    return values, call(bound(arg, axis=d, keepdims=1 if keepdim else 0), keys)


def _max_min(input, dim, keepdim, out, other, name, largest):
    if keepdim is _NO:
        keepdim = False
    elif dim is _NO:
        raise TypeError(f"{name}() received an invalid combination of arguments - got (Tensor, keepdim=bool), but "
                        "expected one of: (Tensor input), (Tensor input, Tensor other), (Tensor input, int dim, "
                        "bool keepdim = False)")
    if other is None and out is None and idle(input) and not isinstance(dim, CoreTensor):
        a = input.array
        if a.dtype in _FAST_EXTREME and a.size:
            reduce = np.maximum.reduce if largest else np.minimum.reduce
            if dim is _NO:
                return new_tensor(reduce(a, axis=None))
            if type(dim) is int and a.ndim:
                d = dim_index(dim, a.ndim, name)
                keep = bool(keepdim)
                arg = np.argmax if largest else np.argmin
                return getattr(return_types, name)((new_tensor(reduce(a, axis=d, keepdims=keep)),
                                                    new_tensor(arg(a, axis=d, keepdims=keep))))
    x = tensor_arg(input, name)
    if other is None and isinstance(dim, CoreTensor):
        dim, other = _NO, dim
    if other is not None:
        if dim is not _NO:
            raise TypeError(f"{name}() received an invalid combination of arguments - got (Tensor, dim, other)")
        return finish(_binary_extreme(x, tensor_arg(other, name, "other"), largest), out, name)
    if dim is _NO:
        refuse_complex(x, NotImplementedError, f'"{name}_all" not implemented for \'{{}}\'')
        return finish(_extreme_all(x, "ReduceMax" if largest else "ReduceMin", name), out, name)
    refuse_complex(x, RuntimeError, f"{name}(): does not support complex input")
    if dim is None:
        raise TypeError(f"{name}() received an invalid combination of arguments - got (Tensor, NoneType), but "
                        "expected one of: (Tensor input), (Tensor input, Tensor other), (Tensor input, int dim, "
                        "bool keepdim = False)")
    values, indices = _extreme_dim(x, dim, keepdim, name, largest)
    if out is not None:
        finish((values, indices), out, name)
        return getattr(return_types, name + "_out")(out)
    return getattr(return_types, name)((values, indices))


def _binary_extreme(a, b, largest):
    """Elementwise maximum/minimum with torch's promotion (NaN propagates; ties split the gradient)."""
    (a, b), np_dtype = _dispatch.promoted(a, b)
    op_type = "Max" if largest else "Min"
    if np_dtype == np.bool_:
        u8 = np.dtype(np.uint8)
        return cast(call(bound(op_type), cast(a, u8), cast(b, u8)), np_dtype)
    return call(bound(op_type), a, b)


@names_grad_fn(extreme_name("Max"))
def max(input, dim=_NO, keepdim=_NO, *, out=None, other=None, **aliases):  # noqa: A001
    """``max(x)``: the largest element; ``max(x, dim, keepdim)``: ``(values, indices)``
    (first index of ties); ``max(x, other)``: the elementwise maximum."""
    if aliases:
        dim, keepdim = dim_aliases("max", aliases, dim, keepdim)
    return _max_min(input, dim, keepdim, out, other, "max", True)


@names_grad_fn(extreme_name("Min"))
def min(input, dim=_NO, keepdim=_NO, *, out=None, other=None, **aliases):  # noqa: A001
    """``min(x)``, ``min(x, dim, keepdim)`` -> ``(values, indices)``, or ``min(x, other)``."""
    if aliases:
        dim, keepdim = dim_aliases("min", aliases, dim, keepdim)
    return _max_min(input, dim, keepdim, out, other, "min", False)


def _amax_amin(input, dim, keepdim, out, op_type, name):
    if out is None and idle(input):
        a = input.array
        if a.dtype in _FAST_EXTREME and a.size:
            reduce = np.maximum.reduce if op_type == "ReduceMax" else np.minimum.reduce
            return new_tensor(reduce(a, axis=fast_axis(dim, a.ndim, name), keepdims=bool(keepdim)))
    x = tensor_arg(input, name)
    refuse_complex(x, NotImplementedError, f'"{name[1:]}_values_cpu" not implemented for \'{{}}\'')
    dims = reduced_dims(x, dim, name)
    if not x.array.size and (dim is None or isinstance(dim, (tuple, list)) and not dim):
        raise RuntimeError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0. Specify the "
                           "reduction dim with the 'dim' argument.")
    check_nonempty(x, dims, name)
    if out is not None and isinstance(out, CoreTensor) and out.array.dtype != x.array.dtype:
        raise RuntimeError(f"Expected the dtype for input and out to match, but got {type_name(x.array.dtype)} for "
                           f"input's dtype and {type_name(out.array.dtype)} for out's dtype.")
    return finish(_extreme_reduce(op_type, x, dim, keepdim, name), out, name)


@names_grad_fn("AmaxBackward0")
def amax(input, dim=(), keepdim=False, *, out=None, **aliases):
    """Maximum over ``dim`` (all dims by default); the gradient is split evenly among ties."""
    if aliases:
        dim, keepdim = dim_aliases("amax", aliases, dim, keepdim)
    return _amax_amin(input, dim, keepdim, out, "ReduceMax", "amax")


@names_grad_fn("AminBackward0")
def amin(input, dim=(), keepdim=False, *, out=None, **aliases):
    """Minimum over ``dim`` (all dims by default); the gradient is split evenly among ties."""
    if aliases:
        dim, keepdim = dim_aliases("amin", aliases, dim, keepdim)
    return _amax_amin(input, dim, keepdim, out, "ReduceMin", "amin")


def aminmax(input, *, dim=None, keepdim=False, out=None, **aliases):
    """``(min, max)`` over ``dim`` (all elements when None)."""
    if aliases:
        dim, keepdim = dim_aliases("aminmax", aliases, dim, keepdim)
    x = tensor_arg(input, "aminmax")
    refuse_complex(x, NotImplementedError, '"aminmax_cpu" not implemented for \'{}\'')
    if dim is None:
        if not x.array.size:
            raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the operation has no "
                               "identity.")
    else:
        d = dim_index(dim, x.array.ndim, "aminmax")
        check_nonempty(x, (d,), "aminmax")
    result = (_extreme_reduce("ReduceMin", x, dim, keepdim, "aminmax"),
              _extreme_reduce("ReduceMax", x, dim, keepdim, "aminmax"))
    if out is not None:
        return return_types.aminmax_out(finish(result, out, "aminmax"))
    return return_types.aminmax(result)


def _arg_extreme(input, dim, keepdim, out, op_type, name):
    if out is None and type(input) is _dispatch.Tensor and not _tracing:  # integer results: no autograd
        a = input.array
        if a.dtype in _FAST_EXTREME and a.dtype != np.bool_ and a.ndim and a.size:
            find = np.argmax if op_type == "ArgMax" else np.argmin
            if dim is None:
                index = np.asarray(find(a), _INT64)
                return new_tensor(index.reshape((1,) * a.ndim) if keepdim else index)
            if type(dim) is int:
                return new_tensor(find(a, axis=dim_index(dim, a.ndim, name), keepdims=bool(keepdim)))
    x = tensor_arg(input, name)
    arr = x.array
    if arr.dtype == np.bool_:
        raise RuntimeError(f"{name}(): does not support bool input")
    refuse_complex(x, RuntimeError, f"{name}(): does not support complex input")
    if dim is None:
        if not arr.size:
            raise IndexError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0.")
        flat = call(bound("Reshape"), x, axes_array((-1,)))
        result = call(bound(op_type, axis=0, keepdims=0), flat)
        if keepdim:
            result = wrap(result.array.reshape((1,) * arr.ndim))
        return finish(result, out, name)
    d = dim_index(dim, arr.ndim, name)
    check_nonempty(x, (d,), name)
    return finish(call(bound(op_type, axis=d, keepdims=1 if keepdim else 0), x), out, name)


def argmax(input, dim=None, keepdim=False, *, out=None, **aliases):
    """Index (int64) of the first maximum along ``dim``, or in the flattened tensor when ``dim`` is None."""
    if aliases:
        dim, keepdim = dim_aliases("argmax", aliases, dim, keepdim)
    return _arg_extreme(input, dim, keepdim, out, "ArgMax", "argmax")


def argmin(input, dim=None, keepdim=False, *, out=None, **aliases):
    """Index (int64) of the first minimum along ``dim``, or in the flattened tensor."""
    if aliases:
        dim, keepdim = dim_aliases("argmin", aliases, dim, keepdim)
    return _arg_extreme(input, dim, keepdim, out, "ArgMin", "argmin")


# -- logical reductions ------------------------------------------------------------------
def _nonzero_mask(x):
    """Engine ops: where ``x`` is non-zero (NaN included), as a bool tensor."""
    if x.array.dtype == np.bool_:
        return x
    return call(bound("Not"), call(bound("Equal"), x, np.zeros((), x.array.dtype)))


def _logical(input, dim, keepdim, out, ufunc, op_type, name):
    # Boolean results never carry gradients: numpy directly, unless a graph trace must see the values.
    x = tensor_arg(input, name)
    arr = x.array
    axis = None if dim is None else reduced_dims(x, dim, name) if arr.ndim else ()
    if _tracing:
        result = _nonzero_mask(x)
        if axis != ():
            axes = () if axis is None else (axes_array(axis),)
            result = call(bound(op_type, keepdims=1 if keepdim else 0), result, *axes)
        if arr.dtype == np.uint8:  # torch keeps uint8 for uint8 inputs
            result = cast(result, np.dtype(np.uint8))
    else:
        truth = arr if arr.dtype == np.bool_ else arr != 0
        values = np.asarray(ufunc.reduce(truth, axis=axis, keepdims=bool(keepdim)))
        if keepdim and axis is None:
            values = values.reshape((1,) * arr.ndim)
        if arr.dtype == np.uint8:  # torch keeps uint8 for uint8 inputs
            values = values.astype(np.uint8)
        result = wrap(values)
    if out is not None and isinstance(out, CoreTensor) and out.array.dtype != result.array.dtype:
        raise RuntimeError(f"{name} only supports bool tensor for result, got: {type_name(out.array.dtype)}")
    return finish(result, out, name)


def all(input, dim=None, keepdim=False, *, out=None, **aliases):  # noqa: A001
    """Whether every element (over ``dim``) is non-zero: bool (uint8 for uint8 input)."""
    if aliases:
        dim, keepdim = dim_aliases("all", aliases, dim, keepdim)
    return _logical(input, dim, keepdim, out, np.logical_and, "ReduceMin", "all")


def any(input, dim=None, keepdim=False, *, out=None, **aliases):  # noqa: A001
    """Whether some element (over ``dim``) is non-zero: bool (uint8 for uint8 input)."""
    if aliases:
        dim, keepdim = dim_aliases("any", aliases, dim, keepdim)
    return _logical(input, dim, keepdim, out, np.logical_or, "ReduceMax", "any")


def count_nonzero(input, dim=None, **aliases):
    """Number of non-zero elements (int64) over ``dim`` (an int or a tuple) or in total."""
    if aliases:
        dim, _ = dim_aliases("count_nonzero", aliases, dim, None)
    x = tensor_arg(input, "count_nonzero")
    arr = x.array
    axis = None if dim is None else reduced_dims(x, dim, "count_nonzero") if arr.ndim else None
    if _tracing:  # engine ops, so graphs recompute it from the values
        axes = () if axis is None else (axes_array(axis),)
        return call(bound("ReduceSum", keepdims=0), cast(_nonzero_mask(x), _INT64), *axes)
    return wrap(np.asarray(np.count_nonzero(arr, axis=axis), _INT64))


def _sum_to_size(self, *size):
    """``self`` summed down to ``size`` (which must broadcast to ``self``'s shape), as autograd reduces
    a broadcast gradient."""
    if not size:
        raise TypeError('sum_to_size() missing 1 required positional arguments: "size"')
    target = _dispatch.dims_of(size)
    shape = self.array.shape
    try:
        fits = np.broadcast_shapes(target, shape) == shape
    except ValueError:
        fits = False
    if not fits:
        raise RuntimeError(f"size {{{list(target)}}} is not expandable to size {{{list(shape)}}}.")
    lead = len(shape) - len(target)
    axes = tuple(range(lead)) + tuple(lead + i for i, n in enumerate(target) if n == 1 and shape[lead + i] != 1)
    if not axes:
        return self
    return sum(self, axes, keepdim=True).reshape(target)


TENSOR_METHODS = {name: globals()[name] for name in __all__}
TENSOR_METHODS["sum_to_size"] = _sum_to_size
