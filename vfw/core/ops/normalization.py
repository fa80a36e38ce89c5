"""Normalization layers: BatchNormalization, LayerNormalization, GroupNormalization, InstanceNormalization,
MeanVarianceNormalization and LpNormalization (ONNX semantics, newest opsets).

Statistics are computed in two passes (mean, then the mean of squared deviations) in at least float32:
float16/bfloat16 inputs are widened and the result cast back once, float64 stays float64.
"""

import math

import numpy as np

from vfw.core import dtypes as dt
from vfw.core.errors import ShapeError
from vfw.core.ops._common import normalize_axes, normalize_axis, positive, require, same_as_first
from vfw.core.registry import Attr, TensorInfo, defop, describe

_F32 = dt.float32
_F64 = dt.float64

# ONNX TensorProto codes accepted as stash_type (LayerNormalization's U allows float and bfloat16 only).
_LN_STASH = {1: dt.float32, 16: dt.bfloat16}
_GN_STASH = {1: dt.float32, 10: dt.float16, 11: dt.float64, 16: dt.bfloat16}


def _compute_dtype(*arrays):
    """float64 if any input is float64, else float32 (half types are never computed in)."""
    for a in arrays:
        if a is not None and a.dtype == _F64:
            return _F64
    return _F32


def _work(x, cdt):
    """``x`` in the compute dtype (no copy when it already is)."""
    return x if x.dtype == cdt else x.astype(cdt)


def _finish(y, dtype, out):
    """Return ``y`` (a fresh compute-dtype array) as ``dtype``, in ``out`` when given."""
    if out is not None:
        out[...] = y
        return out
    return y if y.dtype == dtype else y.astype(dtype)


def _mean(x, axis):
    """Mean over ``axis`` (int, tuple or None), kept; an empty slice gives NaN without numpy's warning."""
    total = np.add.reduce(x, axis=axis, keepdims=True)
    total /= x.size // max(total.size, 1) if x.size else 0
    return total


def _standardize(x, axis, eps):
    """``(x - mean) / sqrt(var + eps)`` over ``axis`` (kept), with mean and 1/std; two-pass variance."""
    mean = _mean(x, axis)
    d = x - mean
    var = _mean(np.square(d), axis)
    var += eps
    inv = np.sqrt(var, out=var)
    np.divide(1.0, inv, out=inv)
    d *= inv
    return d, mean, inv


def _check_channels(op, x, params):
    """Each of ``params`` ((name, array) pairs) must have shape (C,) with C = X.shape[1]."""
    require(op, x.ndim >= 2, f"X must have rank >= 2 (N, C, ...), got {describe(x)}")
    c = x.shape[1]
    for name, p in params:
        if p.shape != (c,):
            raise ShapeError(f"{op}: {name} has shape {p.shape}, expected ({c},) for X {describe(x)} "
                             f"(C = X.shape[1] = {c} channels)")
    return c


def _check_unidirectional(op, name, p, x):
    """``p`` must broadcast to ``x``'s shape without changing it (ONNX unidirectional broadcasting)."""
    s = p.shape
    if len(s) > x.ndim or any(d != 1 and d != xd for d, xd in zip(s[::-1], x.shape[::-1])):
        raise ShapeError(f"{op}: {name} {describe(p)} is not unidirectionally broadcastable to X {describe(x)}")


# -- BatchNormalization ---------------------------------------------------------------------------------------


def _bn_infer(attrs, infos):
    x, mean = infos[0], infos[3]
    y = TensorInfo(x.shape, x.dtype)
    if not attrs["training_mode"]:
        return [y, None, None]
    return [y, TensorInfo(mean.shape, mean.dtype), TensorInfo(mean.shape, mean.dtype)]


@defop("BatchNormalization", inputs="X:T scale:T1 B:T1 input_mean:T2 input_var:T2",
       outputs="Y:T running_mean?:T2 running_var?:T2",
       types={"T": dt.FLOATS, "T1": dt.FLOATS, "T2": dt.FLOATS},
       attrs={"epsilon": Attr("float", 1e-5), "momentum": Attr("float", 0.9),
              "training_mode": Attr("int", 0, choices=(0, 1))},
       infer=_bn_infer)
def batch_normalization(epsilon, momentum, training_mode):
    """Batch normalization over all axes but 1; batch statistics and running-stat updates in training mode.

    Returns ``(Y, running_mean, running_var)``; the last two are ``None`` in inference mode.
    """
    op = "BatchNormalization"
    keep = 1.0 - momentum

    def check(x, scale, b, mean, var):
        return _check_channels(op, x, (("scale", scale), ("B", b), ("input_mean", mean), ("input_var", var)))

    def inference(x, scale, b, mean, var, out=None):
        c = check(x, scale, b, mean, var)
        cdt = _compute_dtype(x, scale, mean)
        shape = (c,) + (1,) * (x.ndim - 2)
        a = _work(var, cdt) + epsilon
        np.sqrt(a, out=a)
        np.divide(_work(scale, cdt), a, out=a)
        # (x - mean) * a + B rather than x * a + (B - mean * a): no cancellation when x is close to mean.
        y = np.subtract(_work(x, cdt), _work(mean, cdt).reshape(shape))
        y *= a.reshape(shape)
        y += _work(b, cdt).reshape(shape)
        return _finish(y, x.dtype, None), None, None

    def training(x, scale, b, mean, var, out=None):
        c = check(x, scale, b, mean, var)
        cdt = _compute_dtype(x, scale, mean)
        shape = (c,) + (1,) * (x.ndim - 2)
        axes = (0,) + tuple(range(2, x.ndim))
        xs = _work(x, cdt)
        cur_mean = _mean(xs, axes)
        d = xs - cur_mean
        cur_var = _mean(np.square(d), axes)
        coef = cur_var + epsilon
        np.sqrt(coef, out=coef)
        np.divide(_work(scale, cdt).reshape(shape), coef, out=coef)
        d *= coef
        d += _work(b, cdt).reshape(shape)
        # running = input * momentum + current * (1 - momentum), in T2's precision (at least float32).
        sdt = _compute_dtype(mean)
        run_mean = _work(mean, sdt) * momentum + cur_mean.reshape(c).astype(sdt, copy=False) * keep
        run_var = _work(var, sdt) * momentum + cur_var.reshape(c).astype(sdt, copy=False) * keep
        return (_finish(d, x.dtype, None), run_mean.astype(mean.dtype, copy=False),
                run_var.astype(var.dtype, copy=False))

    return training if training_mode else inference


# -- LayerNormalization ---------------------------------------------------------------------------------------


def _ln_infer(attrs, infos):
    x = infos[0]
    stash = _LN_STASH[attrs["stash_type"]]
    if x.shape is None:
        stats = TensorInfo(None, stash)
    else:
        ax = normalize_axis("LayerNormalization", attrs["axis"], len(x.shape))
        stats = TensorInfo(x.shape[:ax] + (1,) * (len(x.shape) - ax), stash)
    return [TensorInfo(x.shape, x.dtype), stats, stats]


@defop("LayerNormalization", inputs="X:T Scale:T B?:T", outputs="Y:T Mean?:U InvStdDev?:U",
       types={"T": dt.FLOATS, "U": frozenset(_LN_STASH.values())},
       attrs={"axis": Attr("int", -1), "epsilon": Attr("float", 1e-5),
              "stash_type": Attr("int", 1, choices=tuple(_LN_STASH))},
       infer=_ln_infer)
def layer_normalization(axis, epsilon, stash_type):
    """Normalize over axes [axis, rank) then scale and shift; also returns Mean and InvStdDev (stash_type dtype)."""
    op = "LayerNormalization"
    stash = _LN_STASH[stash_type]

    def kernel(x, scale, b=None, out=None):
        nd = x.ndim
        ax = normalize_axis(op, axis, nd)
        _check_unidirectional(op, "Scale", scale, x)
        if b is not None:
            _check_unidirectional(op, "B", b, x)
        cdt = _F64 if x.dtype == _F64 else _F32
        outer = math.prod(x.shape[:ax])
        y, mean, inv = _standardize(_work(x, cdt).reshape(outer, math.prod(x.shape[ax:])), 1, epsilon)
        y = y.reshape(x.shape)
        y *= scale
        if b is not None:
            y += b
        stats_shape = x.shape[:ax] + (1,) * (nd - ax)
        return (_finish(y, x.dtype, None), mean.reshape(stats_shape).astype(stash, copy=False),
                inv.reshape(stats_shape).astype(stash, copy=False))

    return kernel


# -- GroupNormalization / InstanceNormalization ---------------------------------------------------------------


def _grouped(x, scale, bias, groups, eps, cdt, out):
    """Normalize ``x`` (N, C, ...) over each instance's channel groups, then per-channel ``scale``/``bias``."""
    n, c = x.shape[:2]
    s = math.prod(x.shape[2:])
    y, _, _ = _standardize(_work(x, cdt).reshape(n, groups, (c // groups) * s), 2, eps)
    y = y.reshape(n, c, s)
    y *= scale.reshape(c, 1)
    y += bias.reshape(c, 1)
    return _finish(y.reshape(x.shape), x.dtype, out)


@defop("GroupNormalization", inputs="X:T scale:T bias:T", outputs="Y:T", types={"T": dt.FLOATS},
       attrs={"num_groups": Attr("int", check=positive), "epsilon": Attr("float", 1e-5),
              "stash_type": Attr("int", 1, choices=tuple(_GN_STASH))},
       infer=same_as_first)
def group_normalization(num_groups, epsilon, stash_type):
    """Normalize each instance over groups of channels (opset 21: per-channel scale and bias of shape [C])."""
    op = "GroupNormalization"
    wide = _GN_STASH[stash_type] == _F64

    def kernel(x, scale, bias, out=None):
        c = _check_channels(op, x, (("scale", scale), ("bias", bias)))
        if c % num_groups:
            raise ShapeError(f"{op}: num_groups={num_groups} does not divide the C={c} channels of X {describe(x)}")
        cdt = _F64 if wide or x.dtype == _F64 else _F32
        return _grouped(x, scale, bias, num_groups, epsilon, cdt, out)

    return kernel


@defop("InstanceNormalization", inputs="input:T scale:T B:T", outputs="output:T", types={"T": dt.FLOATS},
       attrs={"epsilon": Attr("float", 1e-5)}, infer=same_as_first)
def instance_normalization(epsilon):
    """Normalize each instance and channel over the spatial axes, then per-channel scale and shift."""
    op = "InstanceNormalization"

    def kernel(x, scale, b, out=None):
        c = _check_channels(op, x, (("scale", scale), ("B", b)))
        return _grouped(x, scale, b, c, epsilon, _F64 if x.dtype == _F64 else _F32, out)

    return kernel


# -- MeanVarianceNormalization / LpNormalization --------------------------------------------------------------


@defop("MeanVarianceNormalization", inputs="X:T", outputs="Y:T", types={"T": dt.FLOATS},
       attrs={"axes": Attr("ints", (0, 2, 3))}, infer=same_as_first)
def mean_variance_normalization(axes):
    """``(X - E[X]) / (sqrt(E[(X - E[X])^2]) + 1e-9)`` over ``axes`` (empty axes: all axes, as ReduceMean)."""
    op = "MeanVarianceNormalization"
    by_rank = {}

    def kernel(x, out=None):
        ax = by_rank.get(x.ndim)
        if ax is None:
            ax = by_rank[x.ndim] = normalize_axes(op, axes, x.ndim) if axes else None
        xs = _work(x, _F64 if x.dtype == _F64 else _F32)
        d = xs - _mean(xs, ax)
        std = _mean(np.square(d), ax)
        np.sqrt(std, out=std)
        std += 1e-9  # ONNX's function body adds its epsilon to the standard deviation
        d /= std
        return _finish(d, x.dtype, out)

    return kernel


@defop("LpNormalization", inputs="input:T", outputs="output:T", types={"T": dt.FLOATS},
       attrs={"axis": Attr("int", -1), "p": Attr("int", 2, choices=(1, 2))}, infer=same_as_first)
def lp_normalization(axis, p):
    """``input / Lp_norm(input, axis)`` with p in {1, 2}; slices whose norm is zero give zeros."""
    op = "LpNormalization"

    def kernel(x, out=None):
        ax = normalize_axis(op, axis, x.ndim)
        cdt = _F64 if x.dtype == _F64 else _F32
        xs = _work(x, cdt)
        if p == 1:
            norm = np.add.reduce(np.abs(xs), axis=ax, keepdims=True)
        else:
            norm = np.sqrt(np.add.reduce(np.square(xs), axis=ax, keepdims=True))
        norm[norm == 0] = np.inf  # x / inf == 0 for the (all-zero) slices of a zero norm
        if out is not None and out.dtype == cdt:
            return np.divide(xs, norm, out=out)
        return _finish(xs / norm, x.dtype, out)

    return kernel
