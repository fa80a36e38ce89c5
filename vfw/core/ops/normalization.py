"""Normalization layers: BatchNormalization, LayerNormalization, GroupNormalization, InstanceNormalization,
MeanVarianceNormalization and LpNormalization (ONNX semantics, newest opsets).

Statistics are computed in two passes (mean, then the mean of squared deviations) in at least float32:
float16/bfloat16 inputs are widened and the result cast back once, float64 stays float64.
"""

import math

import numpy as np

from vfw.core import dtypes as dt
from vfw.core.autograd import is_grad_enabled, register_gradient
from vfw.core.errors import ShapeError
from vfw.core.ops._common import (
    array_of,
    cast_to,
    execute,
    in_dtype,
    int64s,
    normalize_axes,
    normalize_axis,
    padded_inputs,
    positive,
    require,
    same_as_first,
    unbroadcast,
)
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


def _standardize(x, eps):
    """``(x - mean) / sqrt(var + eps)`` over the last axis (rows), with each row's mean and 1/std (kept dims).

    Corrected two-pass statistics: the mean of the deviations from the first mean (its rounding error, which
    matters when values are large next to their spread) corrects both the mean and the variance.
    """
    mean = _mean(x, -1)
    d = x - mean
    offset = _mean(d, -1)
    var = np.einsum("...l,...l->...", d, d)[..., None]  # the sum of squares without a temporary array
    var /= x.shape[-1]
    var -= np.square(offset)
    np.maximum(var, 0.0, out=var)
    d -= offset
    mean += offset
    var += eps
    inv = np.sqrt(var, out=var)
    np.divide(1.0, inv, out=inv)
    d *= inv
    return d, mean, inv


def channel_moments(x, c):
    """Per-channel statistics of ``x`` (N, C, ...): ``(out, d, offset, mean, var)``, statistics of shape (C,).

    ``out`` is a new array shaped like ``x`` and ``d`` its (N, C, S) view, holding ``x`` minus an estimate of the
    mean (callers compute their result in place in ``d`` and return ``out``); ``offset`` is the mean of ``d``, so the
    centered values are ``d - offset`` (callers fold ``offset`` into their per-channel constants instead of
    making another pass); ``var`` (biased) is ``mean(d^2) - offset^2``.  The estimate is the mean of every
    8th instance: the mean of a subset holding a fraction ``f`` of the values is within ``sqrt(1/f - 1)``
    standard deviations of the full mean, so ``offset^2 <= 7 var`` (for any data) and the subtraction costs at
    most a few units in the last place, while the estimate costs an eighth of a pass.  ``einsum`` sums without
    temporaries.  An empty batch gives NaN statistics.
    """
    shape3 = (x.shape[0], c, math.prod(x.shape[2:]))
    x3 = x.reshape(shape3)
    count = shape3[0] * shape3[2]
    sample = x3[::8]
    estimate = np.einsum("ncs->c", sample)
    estimate /= sample.shape[0] * sample.shape[2]
    out = np.empty(x.shape, x.dtype)
    d = np.subtract(x3, estimate[:, None], out=out.reshape(shape3))
    offset = np.einsum("ncs->c", d)
    offset /= count
    var = np.einsum("ncs,ncs->c", d, d)
    var /= count
    var -= offset * offset
    np.maximum(var, 0.0, out=var)  # rounding could leave a constant channel's variance just below zero
    return out, d, offset, estimate + offset, var


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


# -- gradient helpers -----------------------------------------------------------------------------------------
# The makers recompute the statistics with engine ops (so that, with create_graph, the gradient is itself
# differentiable), in the dtype the kernels compute in: float64 stays, other dtypes go through float32.


def _k(value, dtype):
    """A 0-d constant of ``dtype`` (engine ops never promote)."""
    return np.asarray(value, dtype)


def _grad_dtype(*tensors):
    """The kernels' compute dtype for these inputs: float64 if any is float64, else float32."""
    return _compute_dtype(*(array_of(t) for t in tensors))


def _mean_t(x, axes, inv_n):
    """Mean of tensor ``x`` over ``axes`` (an int64 array), dims kept; ``inv_n`` is 1 / group size."""
    return execute("Mul", execute("ReduceSum", x, axes, keepdims=1), inv_n)


def _standardized_t(x, axes, n, eps):
    """``(xhat, inv)``: ``x`` standardized over ``axes`` (groups of ``n``) and ``1 / sqrt(var + eps)`` (kept)."""
    dtype = array_of(x).dtype
    inv_n = _k(1.0 / n if n else 0.0, dtype)
    d = execute("Sub", x, _mean_t(x, axes, inv_n))
    d = execute("Sub", d, _mean_t(d, axes, inv_n))  # corrected two-pass, as the kernels (see _standardize)
    var = _mean_t(execute("Mul", d, d), axes, inv_n)
    inv = execute("Div", _k(1.0, dtype), execute("Sqrt", execute("Add", var, _k(eps, dtype))))
    return execute("Mul", d, inv), inv


def _standardized_grad(gxhat, xhat, inv, axes, n, g_mean=None, g_inv=None):
    """Gradient with respect to ``x`` of ``xhat`` (and of the kept statistics mean and ``inv``, when given).

    ``dx = inv * (gxhat - mean(gxhat) - xhat * (mean(gxhat * xhat) + g_inv * inv / n)) + g_mean / n``: with
    ``d = x - mean``, ``d inv / d x = -inv**3 d / n`` and ``sum(d) = 0``.
    """
    inv_n = _k(1.0 / n if n else 0.0, xhat.array.dtype)
    proj = execute("ReduceSum", execute("Mul", gxhat, xhat), axes, keepdims=1)
    if g_inv is not None:
        proj = execute("Add", proj, execute("Mul", g_inv, inv))
    centered = execute("Sub", gxhat, _mean_t(gxhat, axes, inv_n))
    dx = execute("Sub", centered, execute("Mul", xhat, execute("Mul", proj, inv_n)))
    dx = execute("Mul", dx, inv)
    if g_mean is not None:
        dx = execute("Add", dx, execute("Mul", g_mean, inv_n))
    return dx


def _channel_shape(c, ndim):
    """Shape that broadcasts a per-channel vector over (N, C, ...)."""
    return int64s((c,) + (1,) * (ndim - 2))


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
        a = in_dtype(var, cdt) + epsilon
        np.sqrt(a, out=a)
        np.divide(in_dtype(scale, cdt), a, out=a)
        # (x - mean) * a + B rather than x * a + (B - mean * a): no cancellation when x is close to mean.
        y = np.subtract(in_dtype(x, cdt), in_dtype(mean, cdt).reshape(shape))
        y *= a.reshape(shape)
        y += in_dtype(b, cdt).reshape(shape)
        return _finish(y, x.dtype, None), None, None

    def training(x, scale, b, mean, var, out=None):
        c = check(x, scale, b, mean, var)
        cdt = _compute_dtype(x, scale)  # the batch statistics do not depend on input_mean's precision
        y, d, offset, cur_mean, cur_var = channel_moments(in_dtype(x, cdt), c)
        coef = cur_var + epsilon
        np.sqrt(coef, out=coef)
        np.divide(in_dtype(scale, cdt), coef, out=coef)
        # (d - offset) * coef + B, as two passes over d
        d *= coef[:, None]
        d += (in_dtype(b, cdt) - offset * coef)[:, None]
        # running = input * momentum + current * (1 - momentum), in T2's precision (at least float32).
        sdt = _compute_dtype(mean)
        run_mean = in_dtype(mean, sdt) * momentum + cur_mean.astype(sdt, copy=False) * keep
        run_var = in_dtype(var, sdt) * momentum + cur_var.astype(sdt, copy=False) * keep
        return (_finish(y, x.dtype, None), run_mean.astype(mean.dtype, copy=False),
                run_var.astype(var.dtype, copy=False))

    return training if training_mode else inference


@register_gradient("BatchNormalization")
def _batch_norm_grad(node, gy, *_running):
    """Training mode: through the batch statistics to X, scale and B.  Inference: to all five inputs.

    A training-mode backward that is not recorded (no ``create_graph``) runs the fused BatchNormalizationGrad;
    a recorded one composes engine ops, so that it can be differentiated again.

    The running-stat outputs are treated as not differentiable (buffers, as in PyTorch and Keras): their
    gradients are ignored and input_mean/input_var get no gradient in training mode.
    """
    x, scale, b, mean, var = node.inputs
    need_x, need_scale, need_b, need_mean, need_var = node.needs_input_grad
    training = node.attrs["training_mode"]
    if training and not is_grad_enabled():  # a backward nobody differentiates: one fused kernel
        dx, dscale, db = execute("BatchNormalizationGrad", gy, x, scale, epsilon=node.attrs["epsilon"])
        return (dx if need_x else None, dscale if need_scale else None, db if need_b else None, None, None)
    x_shape = array_of(x).shape
    nd, c = len(x_shape), x_shape[1]
    cdt = _grad_dtype(x, scale, None if training else mean)  # as the kernel computes
    axes = int64s((0,) + tuple(range(2, nd)))
    per_channel = _channel_shape(c, nd)
    g = cast_to(gy, cdt)
    xs, s = cast_to(x, cdt), cast_to(scale, cdt)
    db = execute("ReduceSum", g, axes, keepdims=0) if need_b or (need_mean and not training) else None
    grads = [None] * 5
    if training:
        if need_x or need_scale:
            n = array_of(x).size // max(c, 1)
            xhat, inv = _standardized_t(xs, axes, n, node.attrs["epsilon"])
            if need_x:
                gxhat = execute("Mul", g, execute("Reshape", s, per_channel))
                grads[0] = cast_to(_standardized_grad(gxhat, xhat, inv, axes, n), x.array.dtype)
            if need_scale:
                grads[1] = cast_to(execute("ReduceSum", execute("Mul", g, xhat), axes, keepdims=0),
                                   scale.array.dtype)
    else:
        # Y = (x - mean) * a + B with a = scale * r and r = 1 / sqrt(var + eps), per channel.
        std = execute("Sqrt", execute("Add", cast_to(var, cdt), _k(node.attrs["epsilon"], cdt)))
        r = execute("Div", _k(1.0, cdt), std)
        a = execute("Mul", s, r)
        if need_x:
            grads[0] = cast_to(execute("Mul", g, execute("Reshape", a, per_channel)), x.array.dtype)
        if need_scale or need_var:
            centered = execute("Sub", xs, execute("Reshape", cast_to(mean, cdt), per_channel))
            moment = execute("ReduceSum", execute("Mul", g, centered), axes, keepdims=0)
            if need_scale:
                grads[1] = cast_to(execute("Mul", moment, r), scale.array.dtype)
            if need_var:  # d r / d var = -r**3 / 2
                dvar = execute("Mul", execute("Mul", moment, a), execute("Mul", r, r))
                grads[4] = cast_to(execute("Mul", dvar, _k(-0.5, cdt)), var.array.dtype)
        if need_mean:
            grads[3] = cast_to(execute("Neg", execute("Mul", db, a)), mean.array.dtype)
    if need_b:
        grads[2] = cast_to(db, b.array.dtype)
    return tuple(grads)


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
        y, mean, inv = _standardize(in_dtype(x, cdt).reshape(outer, math.prod(x.shape[ax:])), epsilon)
        y = y.reshape(x.shape)
        y *= scale
        if b is not None:
            y += b
        stats_shape = x.shape[:ax] + (1,) * (nd - ax)
        return (_finish(y, x.dtype, None), mean.reshape(stats_shape).astype(stash, copy=False),
                inv.reshape(stats_shape).astype(stash, copy=False))

    return kernel


def _flows(g):
    """Whether output gradient ``g`` is present and not all zeros (missing ones arrive as zeros)."""
    return g is not None and bool(array_of(g).any())


@register_gradient("LayerNormalization")
def _layer_norm_grad(node, gy, g_mean, g_inv):
    """Gradient to X, Scale and B, including what flows back through the Mean and InvStdDev outputs."""
    (x, scale, b), (need_x, need_scale, need_b) = padded_inputs(node, 3)
    cdt = _grad_dtype(x)
    g = cast_to(gy, cdt)
    grads = [None] * 3
    if (need_x or need_scale) and not is_grad_enabled() and not (_flows(g_mean) or _flows(g_inv)):
        # An unrecorded backward with nothing through the statistics: the fused kernel.
        dx, dscale = execute("LayerNormalizationGrad", gy, x, scale, axis=node.attrs["axis"],
                             epsilon=node.attrs["epsilon"])
        grads[:2] = dx if need_x else None, dscale if need_scale else None
    elif need_x or need_scale:
        x_shape = array_of(x).shape
        nd = len(x_shape)
        ax = normalize_axis("LayerNormalization", node.attrs["axis"], nd)
        axes, n = int64s(range(ax, nd)), math.prod(x_shape[ax:])
        xhat, inv = _standardized_t(cast_to(x, cdt), axes, n, node.attrs["epsilon"])
        if need_x:
            gxhat = execute("Mul", g, cast_to(scale, cdt))
            dx = _standardized_grad(gxhat, xhat, inv, axes, n, cast_to(g_mean, cdt), cast_to(g_inv, cdt))
            grads[0] = cast_to(dx, x.array.dtype)
        if need_scale:
            grads[1] = cast_to(unbroadcast(execute("Mul", g, xhat), scale.array.shape), scale.array.dtype)
    if need_b:
        grads[2] = cast_to(unbroadcast(g, b.array.shape), b.array.dtype)
    return tuple(grads)


# -- GroupNormalization / InstanceNormalization ---------------------------------------------------------------


def _grouped(x, scale, bias, groups, eps, cdt, out):
    """Normalize ``x`` (N, C, ...) over each instance's channel groups, then per-channel ``scale``/``bias``."""
    n, c = x.shape[:2]
    s = math.prod(x.shape[2:])
    y, _, _ = _standardize(in_dtype(x, cdt).reshape(n, groups, (c // groups) * s), eps)
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


def _grouped_grad(node, gy, groups, cdt):
    """Gradients of :func:`_grouped` to X, scale and bias.

    The statistics of each (instance, group) are recomputed on X viewed as (N, groups, C / groups * spatial).
    """
    x, scale, bias = node.inputs
    need_x, need_scale, need_bias = node.needs_input_grad
    x_shape = array_of(x).shape
    nd, (batch, c) = len(x_shape), x_shape[:2]
    axes = int64s((0,) + tuple(range(2, nd)))
    g = cast_to(gy, cdt)
    grads = [None] * 3
    if (need_x or need_scale) and not is_grad_enabled():
        # An unrecorded backward: the fused layer-norm kernel over (N, groups, C / groups, spatial)
        grouped = int64s((batch, groups, c // groups, math.prod(x_shape[2:])))
        dx, dscale = execute("LayerNormalizationGrad", execute("Reshape", g, grouped),
                             execute("Reshape", cast_to(x, cdt), grouped),
                             execute("Reshape", cast_to(scale, cdt), int64s((1, groups, c // groups, 1))),
                             axis=2, epsilon=node.attrs["epsilon"])
        grads[0] = cast_to(execute("Reshape", dx, int64s(x_shape)), x.array.dtype) if need_x else None
        grads[1] = cast_to(execute("Reshape", dscale, int64s((c,))), scale.array.dtype) if need_scale else None
    elif need_x or need_scale:
        n = (c // groups) * math.prod(x_shape[2:])
        grouped, group_axis = int64s((batch, groups, n)), int64s((2,))
        xhat, inv = _standardized_t(execute("Reshape", cast_to(x, cdt), grouped), group_axis, n, node.attrs["epsilon"])
        if need_x:
            gxhat = execute("Mul", g, execute("Reshape", cast_to(scale, cdt), _channel_shape(c, nd)))
            dx = _standardized_grad(execute("Reshape", gxhat, grouped), xhat, inv, group_axis, n)
            grads[0] = cast_to(execute("Reshape", dx, int64s(x_shape)), x.array.dtype)
        if need_scale:
            xhat = execute("Reshape", xhat, int64s(x_shape))
            grads[1] = cast_to(execute("ReduceSum", execute("Mul", g, xhat), axes, keepdims=0), scale.array.dtype)
    if need_bias:
        grads[2] = cast_to(execute("ReduceSum", g, axes, keepdims=0), bias.array.dtype)
    return tuple(grads)


@register_gradient("GroupNormalization")
def _group_norm_grad(node, gy):
    wide = _GN_STASH[node.attrs["stash_type"]] == _F64
    return _grouped_grad(node, gy, node.attrs["num_groups"], _F64 if wide else _grad_dtype(node.inputs[0]))


@register_gradient("InstanceNormalization")
def _instance_norm_grad(node, gy):
    x = node.inputs[0]
    return _grouped_grad(node, gy, array_of(x).shape[1], _grad_dtype(x))


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
        xs = in_dtype(x, _F64 if x.dtype == _F64 else _F32)
        d = xs - _mean(xs, ax)
        std = _mean(np.square(d), ax)
        np.sqrt(std, out=std)
        std += 1e-9  # ONNX's function body adds its epsilon to the standard deviation
        d /= std
        return _finish(d, x.dtype, out)

    return kernel


def _nonzero(t):
    """``t`` with its zeros replaced by ones: a safe divisor where the quotient is multiplied by zero anyway."""
    return execute("Where", execute("Equal", t, _k(0.0, t.array.dtype)), _k(1.0, t.array.dtype), t)


@register_gradient("MeanVarianceNormalization")
def _mean_variance_norm_grad(node, gy):
    """``dx = c (g - mean(g)) - y mean(g y) / s`` with ``s`` the standard deviation and ``c = 1 / (s + 1e-9)``.

    Over a constant slice (``s = 0``) the output is ``(x - mean) * 1e9`` to first order, so only the first
    term remains; the second is kept finite there by dividing by 1 instead of 0 (``y`` is 0 there).
    """
    x = node.inputs[0]
    cdt = _grad_dtype(x)
    axes = node.attrs["axes"]
    shape = x.array.shape
    ax = normalize_axes("MeanVarianceNormalization", axes, len(shape)) if axes else tuple(range(len(shape)))
    n = math.prod(shape[a] for a in ax)
    ax, inv_n = int64s(ax), _k(1.0 / n if n else 0.0, cdt)
    xs, g = cast_to(x, cdt), cast_to(gy, cdt)
    d = execute("Sub", xs, _mean_t(xs, ax, inv_n))
    std = execute("Sqrt", _mean_t(execute("Mul", d, d), ax, inv_n))
    coef = execute("Div", _k(1.0, cdt), execute("Add", std, _k(1e-9, cdt)))
    y = execute("Mul", d, coef)
    dx = execute("Mul", execute("Sub", g, _mean_t(g, ax, inv_n)), coef)
    proj = execute("Div", _mean_t(execute("Mul", g, y), ax, inv_n), _nonzero(std))
    return (cast_to(execute("Sub", dx, execute("Mul", y, proj)), x.array.dtype),)


@defop("LpNormalization", inputs="input:T", outputs="output:T", types={"T": dt.FLOATS},
       attrs={"axis": Attr("int", -1), "p": Attr("int", 2, choices=(1, 2))}, infer=same_as_first)
def lp_normalization(axis, p):
    """``input / Lp_norm(input, axis)`` with p in {1, 2}; slices whose norm is zero give zeros."""
    op = "LpNormalization"

    def kernel(x, out=None):
        ax = normalize_axis(op, axis, x.ndim)
        cdt = _F64 if x.dtype == _F64 else _F32
        xs = in_dtype(x, cdt)
        if p == 1:
            norm = np.add.reduce(np.abs(xs), axis=ax, keepdims=True)
        else:
            norm = np.sqrt(np.add.reduce(np.square(xs), axis=ax, keepdims=True))
        norm[norm == 0] = np.inf  # x / inf == 0 for the (all-zero) slices of a zero norm
        if out is not None and out.dtype == cdt:
            return np.divide(xs, norm, out=out)
        return _finish(xs / norm, x.dtype, out)

    return kernel


@register_gradient("LpNormalization")
def _lp_norm_grad(node, gy):
    """``dx = (g - u sum(g y)) / norm`` with ``u = y`` for p=2 and ``sign(x)`` for p=1.

    Slices whose norm is zero have zero output in the kernel (their norm is taken as inf) and get a zero
    gradient here for the same reason (the function has no derivative there).
    """
    x = node.inputs[0]
    cdt = _grad_dtype(x)
    ax = int64s((normalize_axis("LpNormalization", node.attrs["axis"], x.array.ndim),))
    xs, g = cast_to(x, cdt), cast_to(gy, cdt)
    if node.attrs["p"] == 1:
        norm = execute("ReduceSum", execute("Abs", xs), ax, keepdims=1)
    else:
        norm = execute("Sqrt", execute("ReduceSum", execute("Mul", xs, xs), ax, keepdims=1))
    norm = execute("Where", execute("Equal", norm, _k(0.0, cdt)), _k(np.inf, cdt), norm)
    y = execute("Div", xs, norm)
    u = y if node.attrs["p"] == 2 else execute("Sign", xs)
    proj = execute("ReduceSum", execute("Mul", g, y), ax, keepdims=1)
    dx = execute("Div", execute("Sub", g, execute("Mul", u, proj)), norm)
    return (cast_to(dx, x.array.dtype),)
