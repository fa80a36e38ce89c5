"""Loss functions: ctc_loss (connectionist temporal classification) over the engine's CTCLoss op."""

import numpy as np

from vfw.core.tensor import Tensor as CoreTensor
from vfw.frontends.torch._dispatch import as_torch, cast, type_name, wrap
from vfw.frontends.torch._linalg import run
from vfw.frontends.torch._pointwise import _op, not_implemented, tensor_arg
from vfw.frontends.torch.nn.functional._loss import checked_reduction, reduce_loss

__all__ = ["ctc_loss"]

_NATIVE = frozenset(np.dtype(d) for d in (np.float32, np.float64))
_INDEX = frozenset(np.dtype(d) for d in (np.int32, np.int64))
_I64 = np.dtype(np.int64)
_ONE = np.ones(1, np.int64)



def _lengths(lengths, name, position):
    """Lengths given as an integer tensor (int32 and int64 are kept: the engine op reads both) or a tuple/list of
    ints, as a torch tensor."""
    if isinstance(lengths, CoreTensor):
        if lengths.array.dtype.kind not in "iu":
            raise RuntimeError(f"{name} must be integral")
        return as_torch(lengths) if lengths.array.dtype in _INDEX else cast(as_torch(lengths), _I64)
    if isinstance(lengths, (tuple, list)) and all(isinstance(v, (int, np.integer)) and not isinstance(v, bool)
                                                  for v in lengths):
        return wrap(np.asarray(lengths, np.int64).reshape(len(lengths)))
    raise TypeError(f"ctc_loss(): argument '{name}' (position {position}) must be tuple of ints or Tensor, not "
                    f"{type(lengths).__name__}")


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean", zero_infinity=False):
    """The CTC loss of label sequences ``targets`` under per-step log-probabilities ``log_probs``.

    Parameters
    ----------
    log_probs : Tensor
        (T, N, C) (or unbatched (T, C)) log-probabilities, e.g. from ``log_softmax(dim=2)``.
    targets : Tensor
        Padded (N, S) or concatenated (sum(target_lengths),) class indices (unbatched: the target_length labels,
        or (1, S) padded); never ``blank``.
    input_lengths, target_lengths : Tensor or tuple of ints
        (N,) steps and labels per sequence.
    blank : int
        The blank class.
    reduction : {'mean', 'sum', 'none'}
        'mean' divides each loss by its target length (at least 1), then averages over the batch.
    zero_infinity : bool
        Replace infinite losses (no possible alignment) and their gradients by 0.
    """
    tensor_arg(log_probs, "ctc_loss", "log_probs")
    tensor_arg(targets, "ctc_loss", "targets", 2)
    il = _lengths(input_lengths, "input_lengths", 3)
    tl = _lengths(target_lengths, "target_lengths", 4)
    reduction = checked_reduction(reduction)
    d = log_probs.array.dtype
    if d not in _NATIVE:
        raise not_implemented("ctc_loss_cpu", d)
    unbatched = log_probs.array.ndim == 2
    if unbatched:
        log_probs = run(_op("Unsqueeze"), log_probs, np.array([1], np.int64))
    elif log_probs.array.ndim != 3:
        raise RuntimeError(f"ctc_loss: log_probs must be (T, N, C) or unbatched (T, C), got shape "
                           f"{list(log_probs.array.shape)}")
    n = log_probs.array.shape[1]
    if il.array.shape not in ((n,), () if unbatched else (n,)):
        raise RuntimeError("input_lengths must be of size batch_size")
    if tl.array.shape not in ((n,), () if unbatched else (n,)):
        raise RuntimeError("target_lengths must be of size batch_size")
    if unbatched:  # 0-d lengths
        il, tl = (run(_op("Reshape"), v, _ONE) for v in (il, tl))
    kind = targets.array.dtype
    if kind not in _INDEX:
        if kind.kind not in "iuf" and kind.name != "bfloat16":
            raise RuntimeError(f"ctc_loss: targets must be integral, got {type_name(kind)}")
        targets = cast(as_torch(targets), _I64)  # torch reads float targets as class indices too
    loss, _ = run(_op("CTCLoss", blank=int(blank), zero_infinity=int(bool(zero_infinity))), log_probs, targets, il,
                  tl)
    if reduction == "mean":
        per_label = run(_op("Div"), loss, run(_op("Max"), cast(tl, d), np.ones((), d)))
        return reduce_loss(per_label, "mean")
    if unbatched and reduction == "none":
        return run(_op("Reshape"), loss, np.zeros(0, np.int64))
    return reduce_loss(loss, reduction)
