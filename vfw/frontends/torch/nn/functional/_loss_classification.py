"""Loss functions, classification family: nll_loss, cross_entropy, multi_margin_loss, multilabel_margin_loss.

``cross_entropy`` with class indices is one engine call (SoftmaxCrossEntropyLoss, whose backward is one fused
kernel), ``nll_loss`` one NegativeLogLikelihoodLoss; both take (N, C), (N, C, d1, ...) or unbatched (C,)
inputs, and class weights that, as in torch, get no gradient.  Class-probability targets, label smoothing and
the margin losses compose engine ops.
"""

import numpy as np

from vfw.core import dtypes as dt
from vfw.frontends.torch._dispatch import as_torch, cast, promoted, type_name
from vfw.frontends.torch._half_steps import applies as half_steps_apply
from vfw.frontends.torch._linalg import run
from vfw.frontends.torch._pointwise import _op, log_softmax, not_implemented, tensor_arg
from vfw.frontends.torch.nn.functional._loss import const, constant_argument, reduce_loss, reduction_of

__all__ = ["nll_loss", "cross_entropy", "multi_margin_loss", "multilabel_margin_loss"]

_I64 = np.dtype(np.int64)
_U8 = np.dtype(np.uint8)
_AXIS0 = np.array([0], np.int64)
_AXIS1 = np.array([1], np.int64)
_AXIS2 = np.array([2], np.int64)


def _is_float(d):
    return d.kind == "f" or d.name == "bfloat16"


def _class_weight(weight, x, c):
    """The (C,) class weights, checked as torch checks them (they get no gradient), or None."""
    if weight is None:
        return None
    tensor_arg(weight, "nll_loss", "weight", 3)
    w = weight.array
    if w.ndim != 1 or w.shape[0] != c:
        raise RuntimeError(f"weight tensor should be defined either for all {c} classes or no classes but got weight "
                           f"tensor of shape: {list(w.shape)}")
    if w.dtype != x.array.dtype:
        raise RuntimeError(f"expected scalar type {type_name(x.array.dtype)} but found {type_name(w.dtype)}")
    constant_argument(weight, "nll_loss_forward", "weight")
    return weight


def _int64(t):
    """Integer tensor ``t`` as int64 (an engine Cast, so that a traced graph follows its values)."""
    return t if t.array.dtype == _I64 else cast(as_torch(t), _I64)


def _check_target_dtype(t):
    if t.dtype != _I64 and t.dtype != _U8:
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got {type_name(t.dtype)}")


def _class_indices(input, target, weight, kernel):
    """``(x, labels, weight, unbatched)`` for the class-index losses, with torch's checks.

    ``x`` is (N, C, d1, ...) (an unbatched (C,) input gains a batch dim), ``labels`` the int64 class indices
    (N, d1, ...), ``weight`` the (C,) weight tensor or None.
    """
    x, t = input.array, target.array
    if x.ndim < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {x.ndim})")
    batch = t.shape[0] if t.ndim else 0
    if x.ndim == 1:  # torch's order here: the target's rank, its dtype, then its size
        if t.ndim > 1:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        _check_target_dtype(t)
        if t.ndim == 1 and batch != 1:
            raise ValueError(f"For 1D input, 1D target must have size 1, but got target size: {batch}")
    elif x.shape[0] != batch:
        raise ValueError(f"Expected input batch_size ({x.shape[0]}) to match target batch_size ({batch}).")
    elif x.ndim == 2 and t.ndim != 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    elif x.ndim > 2 and t.shape != x.shape[:1] + x.shape[2:]:
        if t.ndim != x.ndim - 1:
            raise RuntimeError(f"only batches of spatial targets supported ({x.ndim - 1}D tensors) but got targets "
                               f"of dimension: {t.ndim}")
        raise RuntimeError(f"Expected target size {list(x.shape[:1] + x.shape[2:])}, got {list(t.shape)}")
    _check_target_dtype(t)  # after the shape checks, as torch
    if not _is_float(x.dtype):
        raise not_implemented(kernel, x.dtype)
    unbatched = x.ndim == 1
    w = _class_weight(weight, input, x.shape[0] if unbatched else x.shape[1])
    labels = _int64(target)
    if unbatched:
        return run(_op("Unsqueeze"), input, _AXIS0), run(_op("Reshape"), labels, np.ones(1, np.int64)), w, True
    return input, labels, w, False


def _finish(loss, reduction, unbatched):
    """An unbatched 'none' loss is 0-d."""
    if unbatched and reduction == "none":
        return run(_op("Reshape"), loss, np.zeros(0, np.int64))
    return loss


def _engine_loss(op_type, x, labels, w, ignore_index, reduction):
    bound = _op(op_type, ignore_index=int(ignore_index), reduction=reduction)
    try:
        return run(bound, x, labels) if w is None else run(bound, x, labels, w)
    except IndexError:
        # torch names the first bad target (in memory order) only; the engine's message says more
        arr = np.asarray(getattr(labels, "array", labels))
        bad = ((arr < 0) | (arr >= x.shape[1 if x.ndim > 1 else 0])) & (arr != ignore_index)
        if not bad.any():
            raise
        raise IndexError(f"Target {int(arr[bad].flat[0])} is out of bounds.") from None


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
    """Negative log-likelihood of log-probabilities ``input`` (N, C, ...) at the class indices ``target``.

    Parameters
    ----------
    input : Tensor
        (N, C), (N, C, d1, ...) or unbatched (C,).
    target : Tensor
        int64 (or uint8) class indices in [0, C), shape (N,), (N, d1, ...) or ().
    weight : Tensor, optional
        (C,) class weights; 'mean' divides by the summed weights of the non-ignored targets.
    ignore_index : int
        Targets equal to it contribute nothing.
    size_average, reduce : bool, optional
        Deprecated (see ``legacy_reduction``).
    reduction : {'mean', 'sum', 'none'}
    """
    tensor_arg(input, "nll_loss_nd")
    tensor_arg(target, "nll_loss_nd", "target", 2)
    reduction = reduction_of(size_average, reduce, reduction)
    x, labels, w, unbatched = _class_indices(input, target, weight, "nll_loss_out_frame")
    return _finish(_engine_loss("NegativeLogLikelihoodLoss", x, labels, w, ignore_index, reduction), reduction,
                   unbatched)


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean",
                  label_smoothing=0.0):
    """Cross entropy between ``softmax(input)`` over dim 1 (dim 0 unbatched) and the target.

    The target holds class indices (as ``nll_loss``), or class probabilities shaped like ``input``.
    ``label_smoothing`` in [0, 1] mixes the target with the uniform distribution over the C classes.
    """
    tensor_arg(input, "cross_entropy_loss")
    tensor_arg(target, "cross_entropy_loss", "target", 2)
    reduction = reduction_of(size_average, reduce, reduction)
    if label_smoothing > 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    if input.array.shape == target.array.shape:
        return _cross_entropy_probabilities(input, target, weight, ignore_index, reduction, label_smoothing)
    x, labels, w, unbatched = _class_indices(input, target, weight, "log_softmax_lastdim_kernel_impl")
    if label_smoothing > 0:
        loss = _smoothed_cross_entropy(x, labels, w, ignore_index, reduction, label_smoothing)
    elif half_steps_apply(x):  # torch's log_softmax rounds some steps to half, then nll_loss reads it
        loss = _engine_loss("NegativeLogLikelihoodLoss", _log_softmax(x, 1), labels, w, ignore_index, reduction)
    else:
        loss = _engine_loss("SoftmaxCrossEntropyLoss", x, labels, w, ignore_index, reduction)[0]
    return _finish(loss, reduction, unbatched)


def _log_softmax(x, axis):
    """``log_softmax`` along ``axis`` (half inputs with torch's rounding steps, see ``_half_steps``)."""
    return log_softmax(x, axis) if half_steps_apply(x) else run(_op("LogSoftmax", axis=axis), x)


def _smoothed_cross_entropy(x, labels, w, ignore_index, reduction, smoothing):
    """``(1 - s) * nll + s / C * (-sum_c w_c * logp_c)``, the second term reduced like the first."""
    c = x.array.shape[1]
    d = x.array.dtype
    logp = _log_softmax(x, 1)
    nll = _engine_loss("NegativeLogLikelihoodLoss", logp, labels, w, ignore_index, reduction)
    if w is not None:
        logp = run(_op("Mul"), logp, run(_op("Reshape"), w, np.array((c,) + (1,) * (x.array.ndim - 2), np.int64)))
    # Ignored positions count nothing; 'mean' divides by the summed weights (or the count) of the others.
    kept = run(_op("Cast", to=dt.onnx_code(d)), run(_op("Not"), run(_op("Equal"), labels, const(ignore_index, _I64))))
    smooth = run(_op("Mul"), run(_op("ReduceSum", keepdims=0), logp, _AXIS1), kept)
    if reduction == "mean":
        if w is not None:  # the weight of each kept label (ignored ones read class 0, then count 0)
            safe = run(_op("Where"), run(_op("Equal"), kept, const(0, d)), const(0, _I64), labels)
            kept = run(_op("Mul"), run(_op("Gather", axis=0), w, safe), kept)
        smooth = run(_op("Div"), reduce_loss(smooth, "sum"), reduce_loss(kept, "sum"))
    else:
        smooth = reduce_loss(smooth, reduction)
    return run(_op("Sub"), run(_op("Mul"), nll, const(1 - smoothing, d)),
               run(_op("Mul"), smooth, const(smoothing / c, d)))


def _cross_entropy_probabilities(input, target, weight, ignore_index, reduction, smoothing):
    """Cross entropy against class probabilities (``target`` shaped like ``input``); weights are differentiable."""
    if not _is_float(target.array.dtype):
        raise RuntimeError(f"Expected floating point type for target with class probabilities, got "
                           f"{type_name(target.array.dtype)}")
    if ignore_index != -100:
        raise RuntimeError("ignore_index is not supported for floating point target")
    x = input.array
    if not _is_float(x.dtype):
        raise not_implemented("log_softmax_lastdim_kernel_impl", x.dtype)
    class_dim = 0 if x.ndim == 1 else 1
    c = x.shape[class_dim]
    logp = _log_softmax(input, class_dim)
    tensors = [logp, target]
    if weight is not None:
        tensor_arg(weight, "cross_entropy_loss", "weight", 3)
        if weight.array.ndim != 1 or weight.array.shape[0] != c:
            raise RuntimeError(f"cross_entropy: weight tensor should be defined either for all {c} classes or no "
                               f"classes but got weight tensor of shape: {list(weight.array.shape)}")
        tensors.append(run(_op("Reshape"), weight, np.array((c,) + (1,) * (x.ndim - class_dim - 1), np.int64)))
    tensors, d = promoted(*tensors)
    logp, y = tensors[:2]
    if smoothing > 0:
        y = run(_op("Add"), run(_op("Mul"), y, const(1 - smoothing, d)), const(smoothing / c, d))
    product = run(_op("Mul"), logp, y)
    if weight is not None:
        product = run(_op("Mul"), product, tensors[2])
    loss = run(_op("Neg"), run(_op("ReduceSum", keepdims=0), product, np.array([class_dim], np.int64)))
    if reduction == "mean":
        return run(_op("Div"), reduce_loss(loss, "sum"), const(x.size // c if c else 0, d))
    return reduce_loss(loss, reduction)


# -- margin losses -------------------------------------------------------------------------------------------
def _margin_problem(input, target, kernel):
    """``(x, t)``: the input as (N, C) and the int64 target, with the rank/dtype checks of torch's margin losses."""
    x, t = input.array, target.array
    if x.ndim > 2 or (x.ndim == 2 and x.shape[1] == 0):
        raise RuntimeError(f"Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
                           f"{list(x.shape)}")
    if not _is_float(x.dtype):
        raise not_implemented(kernel, x.dtype)
    if t.dtype != _I64:
        raise RuntimeError(f"expected scalar type Long but found {type_name(t.dtype)}")
    x2 = input if x.ndim == 2 else run(_op("Reshape"), input, np.array([1, -1], np.int64))
    return x2, t


def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None, reduce=None,
                      reduction="mean"):
    """Multi-class hinge loss: ``sum_{i != y} w[y] * max(0, margin - x[y] + x[i]) ** p / C`` per sample.

    ``input`` is (N, C) or (C,), ``target`` the int64 class index of each sample; ``p`` is 1 or 2.
    """
    tensor_arg(input, "multi_margin_loss")
    tensor_arg(target, "multi_margin_loss", "target", 2)
    reduction = reduction_of(size_average, reduce, reduction)
    if p != 1 and p != 2:
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None:
        tensor_arg(weight, "multi_margin_loss", "weight", 5)
        if weight.array.ndim != 1:
            raise ValueError("weight must be one-dimensional")
    x2, t = _margin_problem(input, target, "multi_margin_loss_cpu_kernel")
    n, c = x2.array.shape
    if (input.array.ndim == 2 and t.shape != (n,)) or (input.array.ndim < 2 and t.size != 1):
        raise RuntimeError(f"multi_margin_loss: target tensor should be 1-D with size equal to the number of input "
                           f"samples (batch size). Expected target size [{n}], but got {list(t.shape)}. Input has "
                           f"shape {list(input.array.shape)}.")
    if t.size and (t.min() < 0 or t.max() >= c):
        raise RuntimeError("target out of range")
    d = x2.array.dtype
    labels = run(_op("Reshape"), target, np.array([n, 1], np.int64))
    scale = const(1 / c, d)
    if weight is not None:
        if weight.array.shape[0] != c:
            raise RuntimeError(f"inconsistent weight size, expected {c} but got {list(weight.array.shape)}")
        if weight.array.dtype != d:
            raise RuntimeError(f"expected scalar type {type_name(d)} but found {type_name(weight.array.dtype)}")
        constant_argument(weight, "multi_margin_loss", "weight")
        scale = run(_op("Mul"), run(_op("Gather", axis=0), weight, labels), scale)
    # Coefficient of each hinge: w[y] / C for the other classes, 0 for the target class itself.
    coefficients = run(_op("Where"), run(_op("Equal"), labels, np.arange(c, dtype=np.int64)), const(0, d), scale)
    picked = run(_op("GatherElements", axis=1), x2, labels)
    hinge = run(_op("Relu"), run(_op("Add"), run(_op("Sub"), x2, picked), const(margin, d)))
    if p == 2:
        hinge = run(_op("Mul"), hinge, hinge)
    loss = run(_op("ReduceSum", keepdims=0), run(_op("Mul"), hinge, coefficients), _AXIS1)
    if reduction == "none":
        return run(_op("Reshape"), loss, np.array(t.shape, np.int64))
    return reduce_loss(loss, reduction)


def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """Multi-label hinge loss: ``sum_{j in targets, i not in targets} max(0, 1 - (x[j] - x[i])) / C`` per sample.

    ``target`` (int64, ``input``'s shape) lists each sample's classes, ended by the first -1.
    """
    tensor_arg(input, "multilabel_margin_loss")
    tensor_arg(target, "multilabel_margin_loss", "target", 2)
    reduction = reduction_of(size_average, reduce, reduction)
    x2, t = _margin_problem(input, target, "multilabel_margin_loss_forward_out_frame")
    if t.shape != input.array.shape:
        raise RuntimeError(f"inconsistent target size: {list(t.shape)} for input of size: {list(input.array.shape)}")
    n, c = x2.array.shape
    if t.size and (t.min() < -1 or t.max() >= c):
        raise RuntimeError("argument #2 'target' is out of range")
    d = x2.array.dtype
    to_d = dt.onnx_code(d)
    labels = run(_op("Reshape"), target, np.array([n, c], np.int64))
    # The classes listed before the first -1, counted (a class listed twice counts twice, as torch's loop does).
    ended = run(_op("CumSum"), run(_op("Cast", to=dt.onnx_code(_I64)), run(_op("Equal"), labels, const(-1, _I64))),
                const(1, _I64))
    listed = run(_op("Unsqueeze"), run(_op("Equal"), ended, const(0, _I64)), _AXIS2)
    matches = run(_op("And"), run(_op("Equal"), run(_op("Unsqueeze"), labels, _AXIS2), np.arange(c, dtype=np.int64)),
                  listed)  # [n, k, class]
    counts = run(_op("ReduceSum", keepdims=0), run(_op("Cast", to=to_d), matches), _AXIS1)
    others = run(_op("Cast", to=to_d), run(_op("Equal"), counts, const(0, d)))
    coefficients = run(_op("Div"), run(_op("Mul"), run(_op("Unsqueeze"), counts, _AXIS2),
                                       run(_op("Unsqueeze"), others, _AXIS1)), const(c, d))  # [n, j listed, i not]
    # margin[n, j, i] = 1 - x[n, j] + x[n, i]
    gap = run(_op("Sub"), run(_op("Unsqueeze"), x2, _AXIS1), run(_op("Unsqueeze"), x2, _AXIS2))
    hinge = run(_op("Relu"), run(_op("Add"), gap, const(1, d)))
    loss = run(_op("ReduceSum", keepdims=0), run(_op("Mul"), hinge, coefficients), np.array([1, 2], np.int64))
    if reduction == "none" and input.array.ndim < 2:
        return run(_op("Reshape"), loss, np.zeros(0, np.int64))
    return reduce_loss(loss, reduction)
