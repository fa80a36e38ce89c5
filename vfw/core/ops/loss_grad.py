"""Fused backward kernels of the classification losses: SoftmaxCrossEntropyLossGrad and
NegativeLogLikelihoodLossGrad.

The gradient makers in ``loss.py`` call these when nothing records the backward (grad mode off, i.e. no
``create_graph``): one kernel instead of a dozen engine ops over the (N, C, ...) scores, which is what a
training step pays for its loss.  When the backward is itself differentiated, the makers compose engine ops
instead, so these ops have no gradient.

Both losses are ``sum_n a_n * (-logp[n, label_n])`` after reduction, with per-position coefficients
``a_n = g * w[label_n]`` (0 where the label is ``ignore_index``), divided by ``sum_n w[label_n]`` for 'mean'
(``g`` is the output gradient: one number, or one per position for 'none').  Half-precision inputs are computed
in float32; the gradient has the dtype of the op's float input.
"""

import numpy as np

from vfw.core import dtypes as dt
from vfw.core.autograd import not_differentiable
from vfw.core.errors import ShapeError
from vfw.core.ops._common import in_dtype
from vfw.core.ops.loss import label_index
from vfw.core.registry import Attr, TensorInfo, defop, describe

_F32 = dt.float32
_F64 = dt.float64
_ATTRS = {"ignore_index": Attr("int", None), "reduction": Attr("string", "mean", choices=("none", "sum", "mean"))}


def _label_coefficients(op, dy, labels, weight, ignore_index, reduction, shape, cdt):
    """``(a, idx)``: the coefficient of ``-logp`` at each position and the labels with ignored ones set to 0."""
    if labels.shape != shape[:1] + shape[2:]:
        raise ShapeError(f"{op}: labels {describe(labels)} do not fit scores of shape {shape}")
    ignored = None
    if ignore_index is not None:
        ignored = labels == ignore_index
        if not np.count_nonzero(ignored):
            ignored = None
    idx = labels if ignored is None else np.where(ignored, 0, labels)
    a = np.ones(labels.shape, cdt) if weight is None else in_dtype(weight, cdt)[idx]
    if ignored is not None:
        a[ignored] = 0
    g = in_dtype(dy, cdt)
    if reduction == "mean":
        g = g / np.add.reduce(a, axis=None)
    elif reduction == "none" and g.shape != labels.shape:
        raise ShapeError(f"{op}: dY {describe(dy)} must have the labels' shape {labels.shape} for reduction 'none'")
    a *= g
    return a, idx


def _compute_dtype(x):
    return _F64 if x.dtype == _F64 else _F32


def _grad_infer(position):
    def infer(attrs, infos):
        return [TensorInfo(infos[position].shape, infos[position].dtype)]

    return infer


@defop("SoftmaxCrossEntropyLossGrad", inputs="dY:T log_prob:T labels:Tind weights?:T dlog_prob?:T",
       outputs="dscores:T", types={"T": dt.FLOATS, "Tind": dt.INDEX}, attrs=_ATTRS, infer=_grad_infer(1))
def softmax_cross_entropy_loss_grad(ignore_index, reduction):
    """SoftmaxCrossEntropyLoss's backward (engine op): d scores from dY, the log_prob output and its gradient.

    ``dscores = a * (softmax - onehot(labels)) + dlog_prob - softmax * sum_c(dlog_prob)``.
    """
    op = "SoftmaxCrossEntropyLossGrad"

    def kernel(dy, log_prob, labels, weights=None, dlog_prob=None, out=None):
        cdt = _compute_dtype(log_prob)
        a, idx = _label_coefficients(op, dy, labels, weights, ignore_index, reduction, log_prob.shape, cdt)
        d = np.exp(in_dtype(log_prob, cdt))
        # The autograd passes zeros for an unused log_prob output: its term is skipped then.
        if dlog_prob is not None and dlog_prob.any():
            g = in_dtype(dlog_prob, cdt)
            d *= a[:, None] - np.add.reduce(g, axis=1, keepdims=True)
            d += g
        else:
            d *= a[:, None]
        d[label_index(d.shape, idx)] -= a
        return d.astype(log_prob.dtype, copy=False)

    return kernel


@defop("NegativeLogLikelihoodLossGrad", inputs="dY:T input:T target:Tind weight?:T", outputs="dinput:T",
       types={"T": dt.FLOATS, "Tind": dt.INDEX}, attrs=_ATTRS, infer=_grad_infer(1))
def negative_log_likelihood_loss_grad(ignore_index, reduction):
    """NegativeLogLikelihoodLoss's backward (engine op): ``-a`` at each label position, 0 elsewhere.

    ``input`` gives the shape and dtype only.
    """
    op = "NegativeLogLikelihoodLossGrad"

    def kernel(dy, x, target, weight=None, out=None):
        cdt = _compute_dtype(x)
        a, idx = _label_coefficients(op, dy, target, weight, ignore_index, reduction, x.shape, cdt)
        d = np.zeros(x.shape, x.dtype)
        d[label_index(d.shape, idx)] = np.negative(a)
        return d

    return kernel


not_differentiable("SoftmaxCrossEntropyLossGrad", "NegativeLogLikelihoodLossGrad")
