"""``torch.nn.functional.linear_cross_entropy``: cross entropy of ``linear(input, linear_weight, linear_bias)``.

vfw computes torch's reference path (logits, then ``cross_entropy``); torch's memory-saving chunked path
(``options`` not None) gives the same loss but is not implemented: ``options`` must be None.
"""

import math

from vfw.frontends.torch._pointwise import tensor_arg
from vfw.frontends.torch.nn.functional._linear import linear
from vfw.frontends.torch.nn.functional._loss_classification import cross_entropy

__all__ = ["linear_cross_entropy"]


def _check_shapes(input, linear_weight, linear_bias):
    """``(batch_shape, in_features, num_classes, out_features)`` of valid operands; torch's RuntimeErrors."""
    if not 1 <= input.dim() <= 2:
        raise RuntimeError(f"expected input with dimensionality 1 or 2, got {input.dim()}")
    if linear_weight.dim() < 2:
        raise RuntimeError(f"expected linear_weight with dimensionality at least 2, got {linear_weight.dim()}")
    batch_shape, in_features = tuple(input.shape[:-1]), input.shape[-1]
    if in_features != linear_weight.shape[-1]:
        raise RuntimeError(f"expected equal input and linear_weight last dimensions (in_features), got "
                           f"{in_features} and {linear_weight.shape[-1]}, respectively")
    num_classes, out_features = linear_weight.shape[0], tuple(linear_weight.shape[1:-1])
    if linear_bias is not None and tuple(linear_bias.shape) != (num_classes, *out_features):
        raise RuntimeError(f"expected linear_bias shape {(num_classes, *out_features)}, got "
                           f"{tuple(linear_bias.shape)}")
    if out_features and not batch_shape:
        raise RuntimeError(f"K-dimensional loss defined by linear_weight shape {tuple(linear_weight.shape)} requires "
                           f"batched input, (N, {in_features}), got unbatched input with shape {tuple(input.shape)}")
    return batch_shape, in_features, num_classes, out_features


def linear_cross_entropy(input, linear_weight, target, *, linear_bias=None, weight=None, reduction="mean",
                         ignore_index=None, label_smoothing=0.0, options=None):
    """Cross entropy between ``input`` mapped linearly to logits and ``target``.

    Parameters
    ----------
    input : Tensor
        ``(in_features,)`` or ``(N, in_features)``.
    linear_weight : Tensor
        ``(C, in_features)``, or ``(C, d_1, ..., d_K, in_features)`` for a K-dimensional loss (batched input only).
    target : Tensor
        Class indices ``()``, ``(N,)`` or ``(N, d_1, ..., d_K)`` (int64), or class probabilities shaped like the
        logits ``(*batch, C, d_1, ..., d_K)``.
    linear_bias : Tensor, optional
        ``(C, d_1, ..., d_K)``.
    weight : Tensor, optional
        ``(C,)`` class weights.
    reduction : str
        ``'none'`` | ``'mean'`` | ``'sum'``.
    ignore_index : int, optional
        A class index whose entries do not count (None: -100); not allowed with probability targets.
    label_smoothing : float
    options : None
        torch's chunking options; vfw has only the reference path.

    Returns
    -------
    Tensor
        The loss: a scalar, or per element of the batch and the K dims for ``reduction='none'``.
    """
    for position, (name, value) in enumerate((("input", input), ("linear_weight", linear_weight),
                                              ("target", target)), 1):
        tensor_arg(value, "linear_cross_entropy", name, position)
    if options is not None:
        raise NotImplementedError("linear_cross_entropy: vfw has no chunked path; pass options=None (the same loss)")
    batch_shape, in_features, num_classes, out_features = _check_shapes(input, linear_weight, linear_bias)
    logits_shape = (*batch_shape, num_classes, *out_features)
    if tuple(target.shape) == logits_shape and ignore_index is not None:
        raise RuntimeError("ignore_index cannot be specified when target contains probabilities")
    if out_features:  # torch's linear takes a 2-D weight: flatten classes and K dims into one output axis
        flat_outputs = math.prod(out_features) * num_classes
        linear_weight = linear_weight.reshape(flat_outputs, in_features)
        linear_bias = None if linear_bias is None else linear_bias.reshape(flat_outputs)
    logits = linear(input, linear_weight, linear_bias).reshape(logits_shape)
    return cross_entropy(logits, target, weight=weight, reduction=reduction,
                         ignore_index=-100 if ignore_index is None else ignore_index, label_smoothing=label_smoothing)
