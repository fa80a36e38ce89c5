"""Classification losses: SoftmaxCrossEntropyLoss and NegativeLogLikelihoodLoss (ONNX semantics).

Both take scores/log-probabilities shaped (N, C) or (N, C, d1, ..., dk) and integer labels shaped (N) or
(N, d1, ..., dk), an optional per-class weight of shape (C,), ``ignore_index`` and ``reduction``.  Half-precision
inputs are computed in float32 and the results cast back; outputs have the dtype of the scores.
"""

import functools

import numpy as np

from vfw.core import dtypes as dt
from vfw.core.autograd import is_grad_enabled, register_gradient
from vfw.core.errors import IndexOutOfRangeError, ShapeError
from vfw.core.ops._common import array_of, as_array, cast_to, execute, in_dtype, int64s, padded_inputs
from vfw.core.ops.softmax import axis_max, axis_sum
from vfw.core.registry import Attr, TensorInfo, defop, describe

_F32 = dt.float32
_F64 = dt.float64


_ATTRS = {"ignore_index": Attr("int", None), "reduction": Attr("string", "mean", choices=("none", "sum", "mean"))}


def _check(op, scores, labels, weight, names):
    """Validate shapes; return C."""
    sname, lname, wname = names
    if scores.ndim < 2:
        raise ShapeError(f"{op}: {sname} must have shape (N, C) or (N, C, d1, ...), got {describe(scores)}")
    c = scores.shape[1]
    expected = scores.shape[:1] + scores.shape[2:]
    if labels.shape != expected:
        raise ShapeError(f"{op}: {lname} {describe(labels)} must have shape {expected} "
                         f"for {sname} {describe(scores)} (the {sname} shape without the class axis 1)")
    if weight is not None and weight.shape != (c,):
        raise ShapeError(f"{op}: {wname} has shape {weight.shape}, expected ({c},) for {sname} {describe(scores)}")
    return c


def label_index(shape, labels):
    """Index tuple picking ``x[n, labels[n, i...], i...]`` from an array ``x`` of ``shape`` (N, C, d1, ...).

    Advanced indexing with broadcast ranges: far cheaper than take/put_along_axis, and it works in place
    (``x[index] -= v``: each position is picked once).
    """
    rows, grids = _index_grids(shape[:1] + shape[2:])
    return (rows, labels) + grids


@functools.lru_cache(maxsize=256)
def _index_grids(dims):
    """Read-only broadcast ranges over the batch dim and the dims after the class axis (shapes repeat)."""
    k = len(dims) - 1
    ranges = [np.arange(d).reshape((1,) * i + (d,) + (1,) * (k - i)) for i, d in enumerate(dims)]
    for r in ranges:
        r.flags.writeable = False
    return ranges[0], tuple(ranges[1:])


def _log_softmax_classes(x):
    """Stable log-softmax over the class axis 1 (a fresh array): shift by the class maximum, subtract the
    log-sum-exp (softmax.py's reductions: fast for few classes and for 2-D inputs)."""
    if x.shape[1] == 0:
        return x.copy()
    logp = x - axis_max(x, 1)
    total = axis_sum(np.exp(logp), 1)
    logp -= np.log(total, out=total)
    return logp


def _negative_picked(op, logp, labels, weight, ignore_index, reduction, c, lname, cdt):
    """Loss ``-logp[n, label, ...] * weight[label]`` with ignored labels zeroed, then reduced, in dtype ``cdt``."""
    ignored = None
    if labels.size and not (0 <= np.minimum.reduce(labels, axis=None) and np.maximum.reduce(labels, axis=None) < c):
        ignored = labels == ignore_index if ignore_index is not None else None
        bad = (labels < 0) | (labels >= c)
        if ignored is not None:
            bad &= ~ignored
        if bad.any():
            where = np.argwhere(bad)
            first = tuple(int(i) for i in where[0])
            raise IndexOutOfRangeError(
                f"{op}: {lname}[{', '.join(map(str, first))}] = {int(labels[first])} is out of range for "
                f"C={c} classes (valid: 0..{c - 1}{'' if ignore_index is None else f' or ignore_index={ignore_index}'}"
                f"; {len(where)} bad label(s))")
        idx = np.where(ignored, 0, labels) if ignored is not None else labels
    elif ignore_index is not None and 0 <= ignore_index < c:
        ignored = labels == ignore_index
        idx = labels
    else:
        idx = labels
    if ignored is not None and not ignored.any():
        ignored = None
    loss = logp[label_index(logp.shape, idx)]
    loss = np.negative(loss, dtype=cdt) if loss.dtype != cdt else np.negative(loss, out=loss)
    w = None
    if weight is not None:
        w = in_dtype(weight, cdt)[idx]
        if ignored is not None:
            w[ignored] = 0
        loss *= w
    if ignored is not None:
        loss[ignored] = 0
    if reduction == "none":
        return loss
    total = np.add.reduce(loss, axis=None)
    if reduction == "sum":
        return total
    if w is not None:
        return total / np.add.reduce(w, axis=None)
    if ignored is not None:
        return total / cdt.type(loss.size - np.count_nonzero(ignored))
    return total / cdt.type(loss.size)


# -- gradients ------------------------------------------------------------------------------------------------
# Both losses are sums of ``-w[label] * logp[n, label, ...]`` over the non-ignored positions (divided by the
# summed picked weights, or their count, for 'mean').  The makers write that with a one-hot mask of the labels
# built by engine ops (Equal against the class indices), so they trace and differentiate again like any op.
_AXIS1 = int64s((1,))
_ALL = int64s(())  # ReduceSum over every axis


def _one_hot(labels, c, ignore_index, dtype):
    """(N, C, d1, ...) mask in ``dtype``: 1 where the class axis equals the label, 0 on ignored positions."""
    shape = array_of(labels).shape
    classes = np.arange(c, dtype=array_of(labels).dtype).reshape((1, c) + (1,) * (len(shape) - 1))
    if ignore_index is not None and 0 <= ignore_index < c:
        # No label the kernel accepted is negative unless it equals ignore_index (not in [0, C) here), so
        # -1 in the ignored class's slot matches nothing and ignored positions get an all-zero row.
        classes[0, ignore_index] = -1
    hit = execute("Equal", execute("Unsqueeze", labels, _AXIS1), classes)
    return execute("Cast", hit, to=dtype)


def _picked_grads(node, g_loss, logp, weight, need_logp, need_weight, cdt):
    """``(d loss / d logp, d loss / d weight)`` for the picked-log-probability losses, given ``logp`` in ``cdt``.

    With ``w_n`` the picked weight (0 where ignored) and ``D = sum(w_n)`` for 'mean', the loss is
    ``sum_n w_n * (-logp_n) [/ D]``: ``d/d logp = -coef * w_n`` at the label, ``d/d weight[k]`` sums
    ``coef * (-logp_n [- loss])`` over the positions labelled k.
    """
    labels, reduction = node.inputs[1], node.attrs["reduction"]
    logp_shape = array_of(logp).shape
    c = logp_shape[1]
    mask = _one_hot(labels, c, node.attrs["ignore_index"], cdt)
    if weight is None:
        picked_w = execute("ReduceSum", mask, _AXIS1, keepdims=0)
    else:
        w = execute("Reshape", cast_to(weight, cdt), int64s((1, c) + (1,) * (len(logp_shape) - 2)))
        picked_w = execute("ReduceSum", execute("Mul", mask, w), _AXIS1, keepdims=0)
    coef = cast_to(g_loss, cdt)
    if reduction == "mean":
        denom = execute("ReduceSum", picked_w, _ALL, keepdims=0)
        coef = execute("Div", coef, denom)
    dlogp = dweight = None
    if need_logp:
        dlogp = execute("Neg", execute("Mul", execute("Unsqueeze", execute("Mul", coef, picked_w), _AXIS1), mask))
    if need_weight:
        nll = execute("Neg", execute("ReduceSum", execute("Mul", mask, logp), _AXIS1, keepdims=0))
        if reduction == "mean":  # the weights are in the denominator too
            loss = execute("Div", execute("ReduceSum", execute("Mul", picked_w, nll), _ALL, keepdims=0), denom)
            nll = execute("Sub", nll, loss)
        per_position = execute("Unsqueeze", execute("Mul", coef, nll), _AXIS1)
        axes = int64s((0,) + tuple(range(2, len(logp_shape))))
        dweight = cast_to(execute("ReduceSum", execute("Mul", mask, per_position), axes, keepdims=0),
                          weight.array.dtype)
    return dlogp, dweight


def _loss_shape(attrs, scores, labels):
    if attrs["reduction"] != "none":
        return ()
    if labels.shape is not None:
        return labels.shape
    return None if scores.shape is None else scores.shape[:1] + scores.shape[2:]


def _sce_infer(attrs, infos):
    scores, labels = infos[:2]
    return [TensorInfo(_loss_shape(attrs, scores, labels), scores.dtype), TensorInfo(scores.shape, scores.dtype)]


def _nll_infer(attrs, infos):
    scores, labels = infos[:2]
    return [TensorInfo(_loss_shape(attrs, scores, labels), scores.dtype)]


@defop("SoftmaxCrossEntropyLoss", inputs="scores:T labels:Tind weights?:T", outputs="output:T log_prob?:T",
       types={"T": dt.FLOATS, "Tind": dt.INDEX}, attrs=_ATTRS, infer=_sce_infer)
def softmax_cross_entropy_loss(ignore_index, reduction):
    """Cross entropy of softmax(scores) over axis 1 against integer labels; also returns the log-softmax."""
    op = "SoftmaxCrossEntropyLoss"
    names = ("scores", "labels", "weights")

    def kernel(scores, labels, weights=None, out=None):
        c = _check(op, scores, labels, weights, names)
        cdt = _F64 if scores.dtype == _F64 else _F32
        logp = _log_softmax_classes(in_dtype(scores, cdt))
        loss = _negative_picked(op, logp, labels, weights, ignore_index, reduction, c, "labels", cdt)
        return as_array(loss, scores.dtype), logp.astype(scores.dtype, copy=False)

    return kernel


@register_gradient("SoftmaxCrossEntropyLoss")
def _softmax_cross_entropy_grad(node, g_loss, g_logp):
    """Gradient to scores (through the loss and the log_prob output) and to weights (labels get none)."""
    (scores, labels, weights), (need_scores, _, need_weights) = padded_inputs(node, 3)
    scores_dtype = array_of(scores).dtype
    cdt = _F64 if scores_dtype == _F64 else _F32
    if scores_dtype == cdt:
        logp = node.output(1)
    else:  # log_prob was rounded to half precision: recompute it in float32
        logp = execute("LogSoftmax", cast_to(scores, cdt), axis=1)
    if not (need_weights or is_grad_enabled()):  # a backward nobody differentiates: one fused kernel
        dscores = execute("SoftmaxCrossEntropyLossGrad", cast_to(g_loss, cdt), logp, labels, cast_to(weights, cdt),
                          cast_to(g_logp, cdt), **node.attrs)
        return cast_to(dscores, scores_dtype), None, None
    dlogp, dweights = _picked_grads(node, g_loss, logp, weights, need_scores, need_weights, cdt)
    dscores = None
    if need_scores:
        dlogp = execute("Add", dlogp, cast_to(g_logp, cdt))
        # log-softmax backward: dlogp - softmax * sum_c(dlogp)
        total = execute("ReduceSum", dlogp, _AXIS1, keepdims=1)
        dscores = cast_to(execute("Sub", dlogp, execute("Mul", execute("Exp", logp), total)), scores_dtype)
    return dscores, None, dweights


@defop("NegativeLogLikelihoodLoss", inputs="input:T target:Tind weight?:T", outputs="loss:T",
       types={"T": dt.FLOATS, "Tind": dt.INDEX}, attrs=_ATTRS, infer=_nll_infer)
def negative_log_likelihood_loss(ignore_index, reduction):
    """Negative log-likelihood of log-probabilities ``input`` (class axis 1) at integer ``target`` labels."""
    op = "NegativeLogLikelihoodLoss"
    names = ("input", "target", "weight")

    def kernel(x, target, weight=None, out=None):
        c = _check(op, x, target, weight, names)
        cdt = _F64 if x.dtype == _F64 else _F32
        loss = _negative_picked(op, x, target, weight, ignore_index, reduction, c, "target", cdt)
        return as_array(loss, x.dtype)

    return kernel


@register_gradient("NegativeLogLikelihoodLoss")
def _negative_log_likelihood_grad(node, g_loss):
    """Gradient to input and weight (target gets none)."""
    (x, target, weight), (need_x, _, need_weight) = padded_inputs(node, 3)
    if not (need_weight or is_grad_enabled()):  # a backward nobody differentiates: one fused kernel
        return execute("NegativeLogLikelihoodLossGrad", g_loss, x, target, weight, **node.attrs), None, None
    x_dtype = array_of(x).dtype
    cdt = _F64 if x_dtype == _F64 else _F32
    dx, dweight = _picked_grads(node, g_loss, cast_to(x, cdt), weight, need_x, need_weight, cdt)
    return (None if dx is None else cast_to(dx, x_dtype)), None, dweight
