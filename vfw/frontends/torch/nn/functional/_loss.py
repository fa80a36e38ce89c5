"""Loss functions, elementwise family: l1, mse, smooth L1, Huber, soft margin, binary cross entropy (with
logits), KL divergence, Poisson and Gaussian negative log-likelihood, multi-label soft margin; and the
reduction helpers every loss family shares.

Each loss is a short composition of engine ops (so autograd and graph tracing follow), reduced by
``reduce_loss``.  ``size_average``/``reduce`` are torch's legacy arguments: when either is given it decides
the reduction (with torch's deprecation warning).  Gradients also reach the targets where torch's do.
"""

import math

import numpy as np

from vfw.core.autograd import is_grad_enabled, stop_gradient
from vfw.core.tensor import Tensor as CoreTensor
from vfw.frontends._warnings import warn_for_user
from vfw.frontends.torch._dispatch import as_torch, cast, promoted, result_dtype, type_name
from vfw.frontends.torch._grad_fn_names import names_grad_fn
from vfw.frontends.torch._linalg import run
from vfw.frontends.torch._pointwise import _op, not_implemented, tensor_arg

__all__ = ["l1_loss", "mse_loss", "smooth_l1_loss", "huber_loss", "soft_margin_loss", "binary_cross_entropy",
           "binary_cross_entropy_with_logits", "kl_div", "poisson_nll_loss", "gaussian_nll_loss",
           "multilabel_soft_margin_loss"]

_ALL = np.zeros(0, np.int64)  # ReduceSum/ReduceMean axes: every axis


# -- shared by every loss family -----------------------------------------------------------------------------
def legacy_reduction(size_average, reduce, reduction):
    """The reduction to apply: ``reduction``, unless the legacy ``size_average``/``reduce`` are given.

    torch maps them as: ``reduce=False`` -> 'none', else ``size_average=False`` -> 'sum', else 'mean' (a
    missing one counts as True), with a deprecation warning.
    """
    if size_average is None and reduce is None:
        return reduction
    keep = reduce is None or bool(reduce)
    mode = ("mean" if size_average is None or bool(size_average) else "sum") if keep else "none"
    warn_for_user(f"size_average and reduce args will be deprecated, please use reduction='{mode}' instead.")
    return mode


def checked_reduction(reduction):
    """``reduction`` validated as torch's enum lookup does ('elementwise_mean' is a deprecated 'mean')."""
    if reduction in ("none", "mean", "sum"):
        return reduction
    if reduction == "elementwise_mean":
        warn_for_user("reduction='elementwise_mean' is deprecated. Please use reduction='mean' instead.")
        return "mean"
    raise ValueError(f"{reduction} is not a valid value for reduction")


def reduction_of(size_average, reduce, reduction):
    """The validated reduction of a loss taking the legacy arguments."""
    return checked_reduction(legacy_reduction(size_average, reduce, reduction))


def reduce_loss(loss, reduction):
    """``loss`` itself ('none'), its sum or its mean (over every element; NaN when empty, as torch)."""
    if reduction == "none":
        return loss
    return run(_op("ReduceSum" if reduction == "sum" else "ReduceMean", keepdims=0), loss, _ALL)


def const(value, np_dtype):
    """A 0-d constant of ``np_dtype`` (engine ops do not promote)."""
    return np.asarray(value, np_dtype)


def floats(name, *tensors, error=RuntimeError):
    """The tensors promoted to their common dtype, which must be floating: ``(list, dtype)``.

    ``error`` is the exception type torch raises for integer inputs to ``name``.
    """
    for i, t in enumerate(tensors):
        tensor_arg(t, name, ("input", "target", "weight")[min(i, 2)], i + 1)
    d = result_dtype(*tensors)
    if d.kind != "f" and d.name != "bfloat16":
        raise error(f'"{name}" not implemented for \'{type_name(d)}\'') if error is NotImplementedError else \
            error(f"{name}: expected floating point inputs, got {type_name(d)}")
    args, d = promoted(*tensors, np_dtype=d)
    return list(args), d


def constant_argument(t, fn, arg):
    """torch refuses a gradient-requiring argument (a weight, a target) its kernel does not differentiate."""
    if t is not None and t.requires_grad and is_grad_enabled():
        raise RuntimeError(f"The function '{fn}' is not differentiable with respect to argument '{arg}'. This input "
                           "cannot have requires_grad True.")


def _warn_sizes(input, target):
    if input.array.shape != target.array.shape:
        warn_for_user(f"Using a target size ({target.shape}) that is different to the input size ({input.shape}). "
                      "This will likely lead to incorrect results due to broadcasting. Please ensure they have the "
                      "same size.")


def _weighted(loss, weight, input, reduction, mean_by_weight):
    """``loss * weight`` reduced; 'mean' divides by ``sum(weight)`` (l1/mse) or the element count (huber)."""
    tensor_arg(weight, "loss", "weight", 6)
    if weight.array.shape != input.array.shape:
        raise ValueError("Weights and input must have the same size.")
    (loss, w), _ = promoted(loss, weight)
    weighted = run(_op("Mul"), loss, w)
    if reduction == "mean" and mean_by_weight:
        return run(_op("Div"), reduce_loss(weighted, "sum"), reduce_loss(w, "sum"))
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', 'sum'.")
    return reduce_loss(weighted, reduction)


# -- regression losses -------------------------------------------------------------------------------------
def _difference(name, kernel, input, target, error):
    """``input - target`` (broadcast, promoted) with torch's size warning; ``kernel`` and ``error`` name torch's
    error for integer inputs."""
    tensor_arg(input, name)
    tensor_arg(target, name, "target", 2)
    _warn_sizes(input, target)
    (a, b), d = floats(kernel, input, target, error=error)
    return run(_op("Sub"), a, b), d


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """Mean absolute error ``|input - target|`` (broadcast, with torch's warning when the sizes differ).

    Parameters
    ----------
    input, target : Tensor
    size_average, reduce : bool, optional
        Deprecated; see ``legacy_reduction``.
    reduction : {'mean', 'sum', 'none'}
    weight : Tensor, optional
        Elementwise weights of ``input``'s size; 'mean' then divides by their sum.
    """
    reduction = legacy_reduction(size_average, reduce, reduction)
    d, _ = _difference("l1_loss", "l1_loss", input, target, RuntimeError)
    loss = run(_op("Abs"), d)
    if weight is not None:
        return _weighted(loss, weight, input, reduction, True)
    return reduce_loss(loss, checked_reduction(reduction))


@names_grad_fn("MseLossBackward0")
def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """Mean squared error ``(input - target) ** 2`` (same arguments as ``l1_loss``)."""
    reduction = legacy_reduction(size_average, reduce, reduction)
    d, _ = _difference("mse_loss", "mse_cpu", input, target, NotImplementedError)
    loss = run(_op("Mul"), d, d)
    if weight is not None:
        return _weighted(loss, weight, input, reduction, True)
    return reduce_loss(loss, checked_reduction(reduction))


def _quadratic_then_linear(d, np_dtype, threshold, quadratic, linear):
    """``quadratic * d**2`` where ``|d| < threshold``, else ``linear * (|d| - threshold / 2)``."""
    magnitude = run(_op("Abs"), d)
    near = run(_op("Less"), magnitude, const(threshold, np_dtype))
    squared = run(_op("Mul"), run(_op("Mul"), d, d), const(quadratic, np_dtype))
    straight = run(_op("Mul"), run(_op("Sub"), magnitude, const(threshold / 2, np_dtype)), const(linear, np_dtype))
    return run(_op("Where"), near, squared, straight)


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    """Smooth L1: ``0.5 * d**2 / beta`` where ``|d| < beta``, else ``|d| - beta / 2`` (``d = input - target``).

    ``beta=0`` is the L1 loss; a negative ``beta`` is refused.
    """
    reduction = checked_reduction(legacy_reduction(size_average, reduce, reduction))
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    d, dtype = _difference("smooth_l1_loss", "smooth_l1_cpu", input, target, NotImplementedError)
    if beta == 0:
        return reduce_loss(run(_op("Abs"), d), reduction)
    return reduce_loss(_quadratic_then_linear(d, dtype, beta, 0.5 / beta, 1.0), reduction)


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    """Huber: ``0.5 * d**2`` where ``|d| < delta``, else ``delta * (|d| - delta / 2)``; ``delta`` must be > 0.

    With ``weight`` (``input``'s size) the elementwise losses are weighted; 'mean' stays the element mean.
    """
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    d, dtype = _difference("huber_loss", "huber_cpu", input, target, NotImplementedError)
    loss = _quadratic_then_linear(d, dtype, delta, 0.5, delta)
    if weight is not None:
        return _weighted(loss, weight, input, reduction, False)
    return reduce_loss(loss, checked_reduction(reduction))


# -- logistic losses ---------------------------------------------------------------------------------------
def _softplus(x):
    """``log(1 + exp(x))`` without overflow (``-log_sigmoid(-x)``)."""
    return run(_op("Softplus"), x)


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """Two-class logistic loss ``log(1 + exp(-target * input))`` (targets +-1; broadcast)."""
    reduction = reduction_of(size_average, reduce, reduction)
    (x, y), _ = floats("soft_margin_loss", input, target)
    constant_argument(target, "soft_margin_loss", "target")
    return reduce_loss(_softplus(run(_op("Neg"), run(_op("Mul"), x, y))), reduction)


@names_grad_fn("BinaryCrossEntropyBackward0")
def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    """Binary cross entropy of probabilities ``input`` against ``target`` (same size and dtype), logs clamped
    at -100 as torch does; ``weight`` broadcasts to the target's shape."""
    tensor_arg(input, "binary_cross_entropy")
    tensor_arg(target, "binary_cross_entropy", "target", 2)
    reduction = reduction_of(size_average, reduce, reduction)
    if target.array.shape != input.array.shape:
        raise ValueError(f"Using a target size ({target.shape}) that is different to the input size "
                         f"({input.shape}) is deprecated. Please ensure they have the same size.")
    d = input.array.dtype
    if target.array.dtype != d:
        raise RuntimeError(f"Found dtype {type_name(target.array.dtype)} but expected {type_name(d)}")
    if d.kind != "f" and d.name != "bfloat16":
        raise not_implemented("binary_cross_entropy", d)
    try:
        loss = run(_op("BinaryCrossEntropy"), input, target)
    except RuntimeError as e:  # (torch's message does not name the op)
        raise RuntimeError(str(e).removeprefix("BinaryCrossEntropy: ")) from None
    if weight is not None:
        tensor_arg(weight, "binary_cross_entropy", "weight", 3)
        try:
            shape = np.broadcast_shapes(target.array.shape, weight.array.shape)
        except ValueError:
            shape = None
        if shape != target.array.shape:
            raise RuntimeError(f"output with shape {list(target.array.shape)} doesn't match the broadcast shape "
                               f"{list(weight.array.shape if shape is None else shape)}")
        loss = run(_op("Mul"), loss, cast(as_torch(weight), d))
    return reduce_loss(loss, reduction)


@names_grad_fn("BinaryCrossEntropyWithLogitsBackward0")
def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None, reduction="mean",
                                     pos_weight=None):
    """Binary cross entropy of ``sigmoid(input)``, computed stably from the logits.

    ``loss = (1 - target) * input + (1 + (pos_weight - 1) * target) * log(1 + exp(-input))``, times ``weight``;
    ``pos_weight`` (broadcast along the last dim) weighs the positive term.
    """
    tensor_arg(input, "binary_cross_entropy_with_logits")
    tensor_arg(target, "binary_cross_entropy_with_logits", "target", 2)
    reduction = reduction_of(size_average, reduce, reduction)
    if target.array.shape != input.array.shape:
        raise ValueError(f"Target size ({target.shape}) must be the same as input size ({input.shape})")
    if input.array.dtype.kind in "iub":
        raise not_implemented("log_sigmoid_cpu", input.array.dtype)
    (x, y), d = promoted(input, target)
    if d.kind in "iub" or target.array.dtype.kind in "iub":
        raise RuntimeError(f"result type {type_name(d)} can't be cast to the desired output type "
                           f"{type_name(target.array.dtype)}")
    constant_argument(weight, "binary_cross_entropy_with_logits", "weight")
    constant_argument(pos_weight, "binary_cross_entropy_with_logits", "pos_weight")
    one = const(1, d)
    loss = run(_op("Mul"), run(_op("Sub"), one, y), x)
    log_sigmoid = _softplus(run(_op("Neg"), x))  # -log(sigmoid(x))
    if pos_weight is not None:
        tensor_arg(pos_weight, "binary_cross_entropy_with_logits", "pos_weight", 7)
        pw = cast(as_torch(pos_weight), d)
        log_sigmoid = run(_op("Mul"), run(_op("Add"), run(_op("Mul"), run(_op("Sub"), pw, one), y), one),
                          log_sigmoid)
    loss = run(_op("Add"), loss, log_sigmoid)
    if weight is not None:
        tensor_arg(weight, "binary_cross_entropy_with_logits", "weight", 3)
        loss = run(_op("Mul"), loss, cast(as_torch(weight), d))
    return reduce_loss(loss, reduction)


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    """One-vs-all logistic loss over the last (class) dim, averaged over the C classes: shape ``input.shape[:-1]``
    for 'none'.  ``weight`` (broadcast) weighs each class."""
    reduction = legacy_reduction(size_average, reduce, reduction)
    (x, y), d = floats("multilabel_soft_margin_loss", input, target)
    positive = run(_op("Mul"), y, _softplus(run(_op("Neg"), x)))
    negative = run(_op("Mul"), run(_op("Sub"), const(1, d), y), _softplus(x))
    loss = run(_op("Add"), positive, negative)
    if weight is not None:
        tensor_arg(weight, "multilabel_soft_margin_loss", "weight", 3)
        (loss, w), d = promoted(loss, weight)
        loss = run(_op("Mul"), loss, w)
    classes = x.array.shape[-1] if x.array.ndim else 1
    axis = np.array([max(x.array.ndim - 1, 0)], np.int64)
    loss = run(_op("Div"), run(_op("ReduceSum", keepdims=0), loss, axis), const(classes, d))
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not valid")
    return reduce_loss(loss, reduction)


# -- distributions -----------------------------------------------------------------------------------------
def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    """Pointwise KL divergence ``target * (log(target) - input)`` (``input`` holds log-probabilities; with
    ``log_target`` the target does too: ``exp(target) * (target - input)``).

    'batchmean' divides the sum by the batch size (the KL divergence's definition); 'mean' divides by the
    element count and warns as torch does.
    """
    tensor_arg(input, "kl_div")
    tensor_arg(target, "kl_div", "target", 2)
    if size_average is not None or reduce is not None:
        reduction = legacy_reduction(size_average, reduce, reduction)
    elif reduction == "mean":
        warn_for_user("reduction: 'mean' divides the total loss by both the batch size and the support size."
                      "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
                      "'mean' will be changed to behave the same as 'batchmean' in the next major release.")
    mode = "sum" if reduction == "batchmean" else checked_reduction(reduction)
    if input.array.dtype.kind in "iub" or target.array.dtype.kind in "iub":
        raise RuntimeError("kl_div: Integral inputs not supported.")
    (x, y), d = promoted(input, target)
    if log_target:
        loss = run(_op("Mul"), run(_op("Exp"), y), run(_op("Sub"), y, x))
    else:
        # target * log(target) is 0 at target == 0 (torch's xlogy), whose target gradient is NaN there, as torch's.
        entropy = run(_op("Mul"), y, run(_op("Log"), y))
        entropy = run(_op("Where"), run(_op("Equal"), y, const(0, d)), const(0, d), entropy)
        loss = run(_op("Sub"), entropy, run(_op("Mul"), y, x))
    loss = reduce_loss(loss, mode)
    if reduction == "batchmean" and input.array.ndim:
        loss = run(_op("Div"), loss, const(input.array.shape[0], d))
    return loss


def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None,
                     reduction="mean"):
    """Poisson negative log-likelihood: ``exp(input) - target * input`` (``log_input``) or
    ``input - target * log(input + eps)``; ``full`` adds Stirling's approximation of ``log(target!)`` where
    target > 1."""
    reduction = reduction_of(size_average, reduce, reduction)
    (x, y), d = floats("poisson_nll_loss", input, target)
    if log_input:
        loss = run(_op("Sub"), run(_op("Exp"), x), run(_op("Mul"), y, x))
    else:
        loss = run(_op("Sub"), x, run(_op("Mul"), y, run(_op("Log"), run(_op("Add"), x, const(eps, d)))))
    if full:
        # y*log(y) - y + log(2*pi*y)/2 where y > 1, else 0 (a target gradient of 0 * log(0) = NaN at y == 0, as
        # torch's masked formula gives).
        log_y = run(_op("Log"), y)
        stirling = run(_op("Add"), run(_op("Sub"), run(_op("Mul"), y, log_y), y),
                       run(_op("Mul"), run(_op("Add"), log_y, const(math.log(2 * math.pi), d)), const(0.5, d)))
        loss = run(_op("Add"), loss, run(_op("Where"), run(_op("Greater"), y, const(1, d)), stirling, const(0, d)))
    return reduce_loss(loss, reduction)


def _gaussian_variance(input, var):
    """``var`` as a tensor broadcastable to ``input`` (torch's accepted shapes), checked non-negative."""
    if not isinstance(var, CoreTensor):
        if not isinstance(var, float):
            raise TypeError(f"gaussian_nll_loss(): var must be a Tensor or a float, not {type(var).__name__}")
        if var < 0:
            raise ValueError("var has negative entry/entries")
        return run(_op("Expand"), const(var, input.array.dtype), np.asarray(input.array.shape, np.int64))
    if np.any(var.array < 0):
        raise ValueError("var has negative entry/entries")
    in_shape, var_shape = input.array.shape, var.array.shape
    if var_shape == in_shape:
        return var
    if in_shape[:-1] == var_shape:  # one variance per sample: broadcast over the last dim
        return run(_op("Unsqueeze"), var, np.array([-1], np.int64))
    if len(in_shape) == len(var_shape) and sum(v for i, v in zip(in_shape, var_shape) if i != v) == 1:
        return var  # one mismatched dim, of size 1
    raise ValueError("var is of incorrect size")


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    """Gaussian negative log-likelihood ``(log(var) + (input - target)**2 / var) / 2`` (+ ``log(2 pi) / 2``
    with ``full``).

    ``var`` has ``input``'s shape, or one dim fewer, or one dim of size 1 (homoscedastic), or is a float; it is
    clamped at ``eps`` for the computation while its gradient passes through unclamped, as torch does.
    """
    tensor_arg(input, "gaussian_nll_loss")
    tensor_arg(target, "gaussian_nll_loss", "target", 2)
    var = _gaussian_variance(input, var)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not valid")
    (x, y, v), d = floats("gaussian_nll_loss", input, target, var)
    # torch clamps a clone in place without recording the clamp: the value becomes max(var, eps), the gradient
    # passes through unclamped.  Here: var + (max(var, eps) - var) with the difference cut from the graph (exactly
    # var where var >= eps; within a rounding of eps below), which traces as plain ops.
    fixed = stop_gradient(v)
    v = run(_op("Add"), v, stop_gradient(run(_op("Sub"), run(_op("Max"), fixed, const(eps, d)), fixed)))
    diff = run(_op("Sub"), x, y)
    loss = run(_op("Add"), run(_op("Log"), v), run(_op("Div"), run(_op("Mul"), diff, diff), v))
    loss = run(_op("Mul"), loss, const(0.5, d))
    if full:
        loss = run(_op("Add"), loss, const(0.5 * math.log(2 * math.pi), d))
    return reduce_loss(loss, reduction)
