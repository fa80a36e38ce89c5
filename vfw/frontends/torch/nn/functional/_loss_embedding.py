"""Loss functions, embedding and ranking family: hinge_embedding_loss, margin_ranking_loss,
cosine_embedding_loss, triplet_margin_loss, triplet_margin_with_distance_loss.

Compositions of engine ops; targets of +-1 select terms through constant masks (they get no gradient where
torch gives them none).
"""

import numpy as np

from vfw.frontends.torch._dispatch import as_torch, promoted
from vfw.frontends.torch._dtype import default_float_np
from vfw.frontends.torch._linalg import run
from vfw.frontends.torch._numeric import pairwise_distance
from vfw.frontends.torch._pointwise import _op, tensor_arg
from vfw.frontends.torch.nn.functional._loss import checked_reduction, const, floats, reduce_loss, reduction_of

__all__ = ["hinge_embedding_loss", "margin_ranking_loss", "cosine_embedding_loss", "triplet_margin_loss",
           "triplet_margin_with_distance_loss"]

_EPSILON = 1e-12  # added to the squared norms of cosine_embedding_loss (torch's constant)


def _where_target(target, value, values, np_dtype):
    """``values`` where ``target == value``, else 0 (broadcast; engine ops, so a traced graph follows the target)."""
    hit = run(_op("Equal"), target, const(value, target.array.dtype))
    return run(_op("Where"), hit, values, const(0, np_dtype))


def _unless_target(target, value, values, np_dtype):
    """``values`` where ``target != value``, else 0."""
    hit = run(_op("Equal"), target, const(value, target.array.dtype))
    return run(_op("Where"), hit, const(0, np_dtype), values)


def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None, reduction="mean"):
    """``input`` where ``target == 1``, ``max(0, margin - input)`` where ``target == -1`` (other target values
    add both terms, as torch's formula does)."""
    reduction = reduction_of(size_average, reduce, reduction)
    (x, y), d = floats("hinge_embedding_loss", input, target)
    clamped = run(_op("Relu"), run(_op("Sub"), const(margin, d), x))
    return reduce_loss(run(_op("Add"), _unless_target(y, 1, clamped, d), _unless_target(y, -1, x, d)), reduction)


def margin_ranking_loss(input1, input2, target, margin=0, size_average=None, reduce=None, reduction="mean"):
    """``max(0, -target * (input1 - input2) + margin)`` (broadcast; the three must have the same rank)."""
    reduction = reduction_of(size_average, reduce, reduction)
    for i, (t, arg) in enumerate(((input1, "input1"), (input2, "input2"), (target, "target"))):
        tensor_arg(t, "margin_ranking_loss", arg, i + 1)
    if not input1.array.ndim == input2.array.ndim == target.array.ndim:
        raise RuntimeError(f"margin_ranking_loss : All input tensors should have same dimension but got sizes: "
                           f"input1: {input1.shape}, input2: {input2.shape}, target: {target.shape} ")
    (a, b, y), d = floats("margin_ranking_loss", input1, input2, target)
    gap = run(_op("Mul"), run(_op("Neg"), y), run(_op("Sub"), a, b))
    return reduce_loss(run(_op("Relu"), run(_op("Add"), gap, const(margin, d))), reduction)


def cosine_embedding_loss(input1, input2, target, margin=0, size_average=None, reduce=None, reduction="mean"):
    """``1 - cos(input1, input2)`` where ``target == 1``, ``max(0, cos - margin)`` where ``target == -1``.

    Inputs are (N, D) with a (N,) target, or (D,) with a 0-d target; the cosine is taken along D.
    """
    reduction = reduction_of(size_average, reduce, reduction)
    for i, (t, arg) in enumerate(((input1, "input1"), (input2, "input2"), (target, "target"))):
        tensor_arg(t, "cosine_embedding_loss", arg, i + 1)
    rank = target.array.ndim
    if rank > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if input1.array.ndim != rank + 1 or input2.array.ndim != rank + 1:
        raise RuntimeError(f"{rank}D target tensor expects {rank + 1}D input tensors, but found inputs with sizes "
                           f"{list(input1.array.shape)} and {list(input2.array.shape)}.")
    (a, b), d = promoted(input1, input2)
    if d.kind in "iub":
        (a, b), d = promoted(input1, input2, np_dtype=default_float_np())
    axis = np.array([rank], np.int64)

    def total(u, v):
        return run(_op("ReduceSum", keepdims=0), run(_op("Mul"), u, v), axis)

    squares = run(_op("Mul"), run(_op("Add"), total(a, a), const(_EPSILON, d)),
                  run(_op("Add"), total(b, b), const(_EPSILON, d)))
    cos = run(_op("Div"), total(a, b), run(_op("Sqrt"), squares))
    similar = _where_target(target, 1, run(_op("Sub"), const(1, d), cos), d)
    dissimilar = _where_target(target, -1, run(_op("Relu"), run(_op("Sub"), cos, const(margin, d))), d)
    return reduce_loss(run(_op("Add"), similar, dissimilar), reduction)


def _same_rank(anchor, positive, negative):
    ranks = [t.array.ndim for t in (anchor, positive, negative)]
    if not ranks[0] == ranks[1] == ranks[2]:
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have the same number of "
                           f"dimensions, but got: anchor {ranks[0]}D, positive {ranks[1]}D, and negative "
                           f"{ranks[2]}D inputs")


def _triplet(distance, anchor, positive, negative, margin, swap, reduction):
    """``max(0, margin + d(a, p) - d(a, n))``, with ``d(a, n)`` replaced by ``min(d(a, n), d(p, n))`` on swap."""
    d_pos = as_torch(distance(anchor, positive))
    d_neg = as_torch(distance(anchor, negative))
    if swap:
        d_neg = run(_op("Min"), *promoted(d_neg, as_torch(distance(positive, negative)))[0])
    (d_pos, d_neg), d = promoted(d_pos, d_neg)
    loss = run(_op("Relu"), run(_op("Sub"), run(_op("Add"), d_pos, const(margin, d)), d_neg))
    return reduce_loss(loss, reduction)


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False, size_average=None,
                        reduce=None, reduction="mean"):
    """Triplet loss with the ``p``-norm pairwise distance (``eps`` added to the differences); ``margin`` > 0.

    Inputs are (N, D) or (D,) (broadcast); ``swap`` uses the positive-negative distance when it is smaller.
    """
    reduction = reduction_of(size_average, reduce, reduction)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    for i, (t, arg) in enumerate(((anchor, "anchor"), (positive, "positive"), (negative, "negative"))):
        tensor_arg(t, "triplet_margin_loss", arg, i + 1)
    _same_rank(anchor, positive, negative)
    return _triplet(lambda u, v: pairwise_distance(u, v, p, eps), anchor, positive, negative, margin, swap,
                    reduction)


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None, margin=1.0,
                                      swap=False, reduction="mean"):
    """Triplet loss with any ``distance_function(x1, x2) -> Tensor`` (default: the Euclidean pairwise distance)."""
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    for i, (t, arg) in enumerate(((anchor, "anchor"), (positive, "positive"), (negative, "negative"))):
        tensor_arg(t, "triplet_margin_with_distance_loss", arg, i + 1)
    _same_rank(anchor, positive, negative)
    return _triplet(pairwise_distance if distance_function is None else distance_function, anchor, positive,
                    negative, margin, swap, checked_reduction(reduction))
