"""torch.optim.RMSprop (centered, with momentum)."""

from vfw.frontends.torch.optim import _functional
from vfw.frontends.torch.optim._inplace import (
    InPlaceOptimizer,
    check_at_least_zero,
    check_lr,
    next_step,
    scalar,
    step_counter,
    zeros_like,
)

__all__ = ["RMSprop"]


class RMSprop(InPlaceOptimizer):
    """RMSprop, as ``torch.optim.RMSprop``.

    Parameters
    ----------
    params : iterable
        Tensors, parameter-group dicts or ``(name, tensor)`` pairs.
    lr : float or Tensor
        Learning rate (default 1e-2).
    alpha : float
        Smoothing constant of the squared-gradient average (default 0.99).
    eps : float
        Added to the denominator (default 1e-8).
    weight_decay : float
        L2 penalty (default 0).
    momentum : float
        Momentum factor (default 0).
    centered : bool
        Normalize by the estimated variance of the gradient instead of its second moment.
    capturable, foreach, maximize, differentiable
        As in torch.
    """

    _rule = staticmethod(_functional.rmsprop)

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0, centered=False,
                 capturable=False, foreach=None, maximize=False, differentiable=False):
        check_lr(lr)
        check_at_least_zero("epsilon value", eps)
        check_at_least_zero("momentum value", momentum)
        check_at_least_zero("weight_decay value", weight_decay)
        check_at_least_zero("alpha value", alpha)
        defaults = {"lr": lr, "momentum": momentum, "alpha": alpha, "eps": eps, "centered": centered,
                    "weight_decay": weight_decay, "capturable": capturable, "foreach": foreach, "maximize": maximize,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    _group_defaults = (
        ("momentum", 0), ("centered", False), ("foreach", None),
        ("maximize", False), ("differentiable", False), ("capturable", False))

    def _hyperparameters(self, group):
        return {"lr": scalar(group["lr"]), "alpha": group["alpha"], "eps": group["eps"],
                "weight_decay": group["weight_decay"], "momentum": group["momentum"], "centered": group["centered"],
                "maximize": group["maximize"]}

    def _init_state(self, state, p, group):
        state["step"] = step_counter()
        state["square_avg"] = zeros_like(p)
        if group["momentum"] > 0:
            state["momentum_buffer"] = zeros_like(p)
        if group["centered"]:
            state["grad_avg"] = zeros_like(p)

    def _prepare(self, p, g, state, hyper):
        next_step(state)
        grad_avg = state["grad_avg"].array if hyper["centered"] else None
        buf = state["momentum_buffer"].array if hyper["momentum"] > 0 else None
        return (p, g, state["square_avg"].array, grad_avg, buf), hyper
