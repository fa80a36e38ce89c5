"""torch.optim.Adamax."""

from vfw.frontends.torch.optim import _functional
from vfw.frontends.torch.optim._inplace import (
    InPlaceOptimizer,
    check_at_least_zero,
    check_betas,
    check_lr,
    next_step,
    scalar,
    step_counter,
    zeros_like,
)

__all__ = ["Adamax"]


class Adamax(InPlaceOptimizer):
    """Adamax (Adam with the infinity norm), as ``torch.optim.Adamax``.

    Parameters
    ----------
    params : iterable
        Tensors, parameter-group dicts or ``(name, tensor)`` pairs.
    lr : float or Tensor
        Learning rate (default 2e-3).
    betas : (float, float)
        Decay rates of the gradient average and of the infinity norm (default (0.9, 0.999)).
    eps : float
        Added to the norm (default 1e-8).
    weight_decay : float
        L2 penalty (default 0).
    foreach, maximize, differentiable, capturable
        As in torch.
    """

    _rule = staticmethod(_functional.adamax)

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, foreach=None, *,
                 maximize=False, differentiable=False, capturable=False):
        check_lr(lr)
        check_at_least_zero("epsilon value", eps)
        check_betas(betas)
        check_at_least_zero("weight_decay value", weight_decay)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay, "foreach": foreach,
                    "maximize": maximize, "differentiable": differentiable, "capturable": capturable}
        super().__init__(params, defaults)

    _group_defaults = (("foreach", None), ("maximize", False), ("differentiable", False), ("capturable", False))

    def _hyperparameters(self, group):
        beta1, beta2 = group["betas"]
        return {"lr": scalar(group["lr"]), "beta1": beta1, "beta2": beta2, "eps": group["eps"],
                "weight_decay": group["weight_decay"], "maximize": group["maximize"]}

    def _init_state(self, state, p, group):
        state["step"] = step_counter()
        state["exp_avg"] = zeros_like(p)
        state["exp_inf"] = zeros_like(p)

    def _prepare(self, p, g, state, hyper):
        return (p, g, state["exp_avg"].array, state["exp_inf"].array), dict(hyper, step=next_step(state))
