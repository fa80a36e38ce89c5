"""torch.optim.Muon: momentum whose update is orthogonalized by a Newton-Schulz iteration (2-D parameters)."""

import math

import ml_dtypes
import numpy as np

from vfw.core.tensor import Tensor as CoreTensor
from vfw.frontends.torch import _dispatch
from vfw.frontends.torch.autograd import grad_mode
from vfw.frontends.torch.optim.optimizer import Optimizer

__all__ = ["Muon"]

_BFLOAT16 = np.dtype(ml_dtypes.bfloat16)
_ADJUST_LR_FNS = (None, "original", "match_rms_adamw")


def _bf16(x):
    """``x`` rounded to bfloat16 (nearest, ties to even), returned as float32 values."""
    return np.asarray(x).astype(_BFLOAT16).astype(np.float32)


def orthogonalize(update, ns_coefficients, ns_steps, eps):
    """The Newton-Schulz approximation of ``U V^T`` (``update = U S V^T``), in bfloat16 as torch computes it.

    ``X`` (the update in bfloat16, transposed when it has more rows than columns, divided by its Frobenius
    norm clamped to ``eps``) takes ``ns_steps`` quintic steps ``X <- a X + (b A + c A A) X`` with ``A = X X^T``;
    every product and sum is rounded to bfloat16 as torch's bfloat16 matmul/addmm round (float32 inside).

    Returns a float32 array holding bfloat16 values, shaped like ``update``.
    """
    if ns_steps >= 100:
        raise ValueError("Number of steps must be less than 100 for computational efficiency")
    if update.ndim != 2:
        raise ValueError("Input tensor gradient must be a 2D matrix")
    if len(ns_coefficients) != 3:
        raise ValueError("Coefficients must be a tuple of exactly 3 values")
    a, b, c = ns_coefficients
    tall = update.shape[0] > update.shape[1]
    x = _bf16(update.T if tall else update)
    norm = _bf16(np.sqrt(np.sum(x * x, dtype=np.float32)))
    x = _bf16(x / np.float32(max(norm, eps)))
    for _ in range(ns_steps):
        gram = _bf16(x @ x.T)
        gram_update = _bf16(np.float32(b) * gram + np.float32(c) * (gram @ gram))
        x = _bf16(np.float32(a) * x + gram_update @ x)
    return x.T if tall else x


def _lerp(start, end, weight):
    """torch's ``lerp``: ``start + weight (end - start)``, from ``end``'s side when ``weight >= 0.5``."""
    if weight < 0.5:
        return start + weight * (end - start)
    return end - (end - start) * (1 - weight)


def _adjusted_lr(lr, adjust_lr_fn, shape):
    """The learning rate scaled for a ``(rows, cols)`` parameter: ``sqrt(max(1, rows / cols))`` ("original",
    the default) or ``0.2 sqrt(max(rows, cols))`` ("match_rms_adamw", the RMS of AdamW's updates)."""
    rows, cols = shape[:2]
    if adjust_lr_fn in (None, "original"):
        return lr * math.sqrt(max(1, rows / cols))
    return lr * 0.2 * math.sqrt(max(rows, cols))


class Muon(Optimizer):
    """Muon, as ``torch.optim.Muon``, for 2-D parameters (use another optimizer for biases and embeddings).

    Per step and parameter ``p`` with gradient ``g``: ``B <- lerp(B, g, 1 - momentum)``; the update is
    ``lerp(g, B, momentum)`` (``nesterov``) or ``B``, orthogonalized by :func:`orthogonalize`; then
    ``p <- p (1 - lr weight_decay) - lr' update`` with ``lr'`` the learning rate adjusted for ``p``'s shape.

    Parameters
    ----------
    params : iterable
        2-D tensors, parameter-group dicts or ``(name, tensor)`` pairs.
    lr : float
        Learning rate (default 1e-3).
    weight_decay : float
        Decoupled weight decay (default 0.1).
    momentum : float
        Momentum factor (default 0.95).
    nesterov : bool
        Nesterov momentum (default True).
    ns_coefficients : tuple of 3 floats
        ``(a, b, c)`` of the Newton-Schulz step (default ``(3.4445, -4.775, 2.0315)``).
    eps : float
        Lower bound of the norm the update is divided by (default 1e-7).
    ns_steps : int
        Newton-Schulz steps (default 5; at most 99).
    adjust_lr_fn : str, optional
        ``"original"`` (default) or ``"match_rms_adamw"``.
    """

    def __init__(self, params, lr=1e-3, weight_decay=0.1, momentum=0.95, nesterov=True,
                 ns_coefficients=(3.4445, -4.775, 2.0315), eps=1e-7, ns_steps=5, adjust_lr_fn=None):
        if isinstance(lr, CoreTensor) and lr.array.size != 1:
            raise ValueError("Tensor lr must be 1-element")
        for what, value in (("Learning rate", lr), ("momentum", momentum), ("weight decay", weight_decay)):
            if not 0.0 <= value:
                raise ValueError(f"{what} should be >= 0 but is: {value}")
        if adjust_lr_fn not in _ADJUST_LR_FNS:
            raise ValueError(f"Adjust learning rate function {adjust_lr_fn} is not supported")
        defaults = {"lr": lr, "weight_decay": weight_decay, "momentum": momentum, "nesterov": nesterov,
                    "ns_coefficients": ns_coefficients, "eps": eps, "ns_steps": ns_steps,
                    "adjust_lr_fn": adjust_lr_fn}
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                if p.dim() != 2:
                    raise ValueError(f"Muon only supports 2D parameters whereas we found a parameter with size: "
                                     f"{p.size()}")

    def step(self, closure=None):
        """One Muon step over the parameters that have gradients; returns ``closure()``'s loss if given."""
        loss = self._closure_loss(closure)
        with grad_mode.no_grad():
            for group in self.param_groups:
                lr = float(group["lr"].array) if isinstance(group["lr"], CoreTensor) else group["lr"]
                momentum = group["momentum"]
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    self._update(p, p.grad.array, self.state[p], group, lr, momentum)
        return loss

    def _update(self, p, grad, state, group, lr, momentum):
        param = p.array
        if "momentum_buffer" not in state:
            state["momentum_buffer"] = _dispatch.wrap(np.zeros_like(param))
        buf = state["momentum_buffer"].array
        buf[...] = _lerp(buf, grad, 1 - momentum)
        update = _lerp(grad, buf, momentum) if group["nesterov"] else buf
        ortho = orthogonalize(update, group["ns_coefficients"], group["ns_steps"], group["eps"])
        param *= param.dtype.type(1 - lr * group["weight_decay"])
        param -= param.dtype.type(_adjusted_lr(lr, group["adjust_lr_fn"], param.shape)) * ortho.astype(param.dtype)
        _dispatch.bump_version(p)
        _dispatch.bump_version(state["momentum_buffer"])
