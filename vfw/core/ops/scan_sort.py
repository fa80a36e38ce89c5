"""Scans beyond CumSum: CumProd, CumMax, CumMin and LogCumSumExp.

ONNX has no operators for these; they follow CumSum's conventions (the axis is a 0-d
or one-element int input, ``reverse`` scans from the end) so frontends use them the same
way (``torch.cumprod``, ``torch.cummax``, ``torch.logcumsumexp``).  float16/bfloat16
inputs are scanned in float32 and rounded once at the end, as the reductions do.

* CumMax/CumMin also return, for each position, the int64 index of the element the
  running extreme came from: the *last* index where the running extreme was reached
  (ties move the index forward), and the index of the latest NaN once NaN is seen, which
  then stays the running value (the NaN propagation and indices torch.cummax gives).
* LogCumSumExp accumulates with ``logaddexp``, so it is exact to rounding where a shifted
  ``log(cumsum(exp(x - max)))`` would underflow for elements far below the maximum.
"""

import ml_dtypes
import numpy as np

from vfw.core import dtypes as dt
from vfw.core.autograd import register_gradient
from vfw.core.errors import OpInputError
from vfw.core.ops._common import array_of, conj, execute, int64s, normalize_axis, scalar
from vfw.core.registry import Attr, TensorInfo, defop, describe

_HALF = frozenset({dt.float16, dt.bfloat16})
_F32 = dt.float32
_INT64 = dt.int64
_PROD_TYPES = frozenset({dt.uint32, dt.uint64, dt.int32, dt.int64}) | dt.FLOATS
_EXTREME_TYPES = dt.NUMERIC | dt.BOOL
_REVERSE = {"reverse": Attr("int", 0, choices=(0, 1))}


def _axis_of(op_type, axis, ndim):
    if axis.size != 1:
        raise OpInputError(f"{op_type}: input 'axis' must hold one value, got {describe(axis)}")
    return normalize_axis(op_type, int(axis.reshape(())), ndim)


def _flip(ax):
    return (slice(None),) * ax + (slice(None, None, -1),)


def _same_as_first(attrs, infos):
    return [TensorInfo(infos[0].shape, infos[0].dtype)]


def _with_indices(attrs, infos):
    return [TensorInfo(infos[0].shape, infos[0].dtype), TensorInfo(infos[0].shape, _INT64)]


def _scan(ufunc, x, ax, reverse):
    """``ufunc.accumulate`` of ``x`` along ``ax`` (from the end when ``reverse``), halves in float32."""
    work = x.astype(_F32) if x.dtype in _HALF else x
    if reverse:
        flip = _flip(ax)
        result = ufunc.accumulate(work[flip], axis=ax)[flip]
    else:
        result = ufunc.accumulate(work, axis=ax)
    return np.ascontiguousarray(result, dtype=x.dtype)


# -- CumProd -------------------------------------------------------------------------------
@defop("CumProd", inputs="x:T axis:T2", outputs="y:T", types={"T": _PROD_TYPES | dt.COMPLEX, "T2": dt.INDEX},
       attrs=_REVERSE, infer=_same_as_first)
def cumprod(reverse):
    """Cumulative product along the axis given as input (from the end when ``reverse``)."""

    def kernel(x, axis, out=None):
        ax = _axis_of("CumProd", axis, x.ndim)
        if not x.ndim:
            return x.copy()
        return _scan(np.multiply, x, ax, reverse)

    return kernel


@register_gradient("CumProd")
def _cumprod_grad(node, g):
    # Scanning forward, d y_j / d x_k = prod_{i <= j, i != k} x_i for k <= j.  Before the first
    # zero that is y_j / x_k, so grad_k = revcumsum(g * y)_k / x_k.  At the first zero z,
    # grad_z = sum_{j >= z} g_j * cumprod(x with x_z := 1)_j.  After it every term holds x_z = 0.
    # Reverse scans swap the two directions.  Branch-free, so it differentiates again.  Complex: the
    # products (y, x, the skipped cumprod) enter conjugated.
    x, axis = node.inputs
    if not node.needs_input_grad[0]:
        return None, None
    if not x.array.ndim:
        return g, None
    axis = array_of(axis)
    rev = node.attrs["reverse"]
    dtype = x.array.dtype
    one, zero = scalar(1, dtype), scalar(0, dtype)
    is_zero = execute("Equal", x, zero)
    zeros_so_far = execute("CumSum", execute("Cast", is_zero, to=_INT64), axis, reverse=rev)
    before = execute("Equal", zeros_so_far, scalar(0, _INT64))
    first = execute("And", is_zero, execute("Equal", zeros_so_far, scalar(1, _INT64)))
    later_sum = execute("CumSum", execute("Mul", g, conj(node.output(0))), axis, reverse=1 - rev)
    ahead = execute("Div", later_sum, conj(execute("Where", before, x, one)))
    skipped = execute("CumProd", execute("Where", first, one, x), axis, reverse=rev)
    terms = execute("Where", before, zero, execute("Mul", g, conj(skipped)))
    at_zero = execute("ReduceSum", terms, int64s(axis.reshape(1)), keepdims=1)
    return execute("Where", before, ahead, execute("Where", first, at_zero, zero)), None


# -- CumMax / CumMin -----------------------------------------------------------------------
def _extreme_factory(op_type, ufunc):
    def factory():
        def kernel(x, axis, out=None):
            ax = _axis_of(op_type, axis, x.ndim)
            if not x.ndim:
                return x.copy(), np.zeros((), _INT64)
            values = _scan(ufunc, x, ax, False)
            # An element equal to the running extreme (or a NaN) moves the index to itself;
            # a running maximum of those positions is then the index of the latest one.
            hit = x == values
            if x.dtype.kind == "f" or x.dtype in _HALF:
                hit |= np.isnan(x)
            shape = [1] * x.ndim
            shape[ax] = x.shape[ax]
            positions = np.arange(x.shape[ax], dtype=_INT64).reshape(shape)
            indices = np.maximum.accumulate(np.where(hit, positions, 0), axis=ax)
            return values, indices

        return kernel

    factory.__doc__ = (f"Running {ufunc.__name__[:3]}imum along the axis and the int64 index it comes from "
                       "(latest of ties; NaN propagates).")
    factory.__name__ = op_type
    return factory


for _name, _ufunc in (("CumMax", np.maximum), ("CumMin", np.minimum)):
    defop(_name, inputs="x:T axis:T2", outputs="values:T indices:int64", types={"T": _EXTREME_TYPES, "T2": dt.INDEX},
          infer=_with_indices)(_extreme_factory(_name, _ufunc))


@register_gradient("CumMax", "CumMin")
def _cum_extreme_grad(node, g_values, g_indices):
    # values_j = x[indices_j]: each output's gradient goes to the element it came from.
    x, axis = node.inputs
    if not node.needs_input_grad[0]:
        return None, None
    if not x.array.ndim:
        return g_values, None
    zeros = execute("ConstantOfShape", int64s(x.array.shape), value=np.zeros(1, x.array.dtype))
    ax = int(array_of(axis).reshape(()))
    return execute("ScatterElements", zeros, node.output(1), g_values, axis=ax, reduction="add"), None


# -- LogCumSumExp --------------------------------------------------------------------------
@defop("LogCumSumExp", inputs="x:T axis:T2", outputs="y:T", types={"T": dt.FLOATS, "T2": dt.INDEX},
       attrs=_REVERSE, infer=_same_as_first)
def logcumsumexp(reverse):
    """``log(cumsum(exp(x)))`` along the axis given as input, computed stably (from the end when ``reverse``)."""

    def kernel(x, axis, out=None):
        ax = _axis_of("LogCumSumExp", axis, x.ndim)
        if not x.ndim:
            return x.copy()
        return _scan(np.logaddexp, x, ax, reverse)

    return kernel


@register_gradient("LogCumSumExp")
def _logcumsumexp_grad(node, g):
    # grad_k = sum_{j >= k} g_j exp(x_k - y_j), summed in log space for the positive and the
    # negative parts of g separately (each a LogCumSumExp the other way), so nothing overflows.
    # Where a part has no terms, its log is the lowest finite value rather than -inf: -inf there
    # would meet -inf outputs in the next derivative's (-inf) - (-inf).
    x, axis = node.inputs
    if not node.needs_input_grad[0]:
        return None, None
    dtype = x.array.dtype
    y = node.output(0)
    other_way = 1 - node.attrs["reverse"]
    one, none = scalar(1, dtype), scalar(ml_dtypes.finfo(dtype).min, dtype)
    parts = []
    for select, sign in (("Greater", g), ("Less", execute("Neg", g))):
        mask = execute(select, g, scalar(0, dtype))
        log_part = execute("Where", mask, execute("Log", execute("Where", mask, sign, one)), none)
        summed = execute("LogCumSumExp", execute("Sub", log_part, y), array_of(axis), reverse=other_way)
        parts.append(execute("Exp", execute("Add", x, summed)))
    return execute("Sub", parts[0], parts[1]), None
