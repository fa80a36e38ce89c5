"""Classification losses: SoftmaxCrossEntropyLoss and NegativeLogLikelihoodLoss (ONNX semantics).

Both take scores/log-probabilities shaped (N, C) or (N, C, d1, ..., dk) and integer labels shaped (N) or
(N, d1, ..., dk), an optional per-class weight of shape (C,), ``ignore_index`` and ``reduction``.  Half-precision
inputs are computed in float32 and the results cast back; outputs have the dtype of the scores.
"""

import numpy as np

from vfw.core import dtypes as dt
from vfw.core.errors import IndexOutOfRangeError, ShapeError
from vfw.core.ops._common import as_array
from vfw.core.registry import Attr, TensorInfo, defop, describe

_F32 = dt.float32
_F64 = dt.float64



def _work(x, cdt):
    """``x`` in the compute dtype (no copy when it already is)."""
    return x if x.dtype == cdt else x.astype(cdt)


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
    loss = np.take_along_axis(logp, idx[:, None], axis=1)[:, 0]
    loss = np.negative(loss, dtype=cdt) if loss.dtype != cdt else np.negative(loss, out=loss)
    w = None
    if weight is not None:
        w = _work(weight, cdt)[idx]
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
        logp = scores.astype(cdt)
        # Stable log-softmax: shift by the max (initial=-inf keeps C == 0 legal), then subtract log-sum-exp.
        logp -= np.maximum.reduce(logp, axis=1, keepdims=True, initial=-np.inf)
        lse = np.exp(logp)
        lse = np.log(np.add.reduce(lse, axis=1, keepdims=True))
        logp -= lse
        loss = _negative_picked(op, logp, labels, weights, ignore_index, reduction, c, "labels", cdt)
        return as_array(loss, scores.dtype), logp.astype(scores.dtype, copy=False)

    return kernel


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
