"""torch.optim.RAdam: rectified Adam."""

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

__all__ = ["RAdam"]


class RAdam(InPlaceOptimizer):
    """RAdam, as ``torch.optim.RAdam``.

    Parameters
    ----------
    params : iterable
        Tensors, parameter-group dicts or ``(name, tensor)`` pairs.
    lr : float or Tensor
        Learning rate (default 1e-3).
    betas : (float, float)
        Decay rates of the running averages (default (0.9, 0.999)).
    eps : float
        Added to the denominator (default 1e-8).
    weight_decay : float
        L2 penalty (default 0), or decoupled decay with ``decoupled_weight_decay`` (RAdamW).
    decoupled_weight_decay, foreach, maximize, capturable, differentiable
        As in torch.
    """

    _rule = staticmethod(_functional.radam)

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, decoupled_weight_decay=False,
                 *, foreach=None, maximize=False, capturable=False, differentiable=False):
        check_lr(lr)
        check_at_least_zero("epsilon value", eps)
        check_betas(betas)
        check_at_least_zero("weight_decay value", weight_decay)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay, "maximize": maximize,
                    "foreach": foreach, "capturable": capturable, "decoupled_weight_decay": decoupled_weight_decay,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    _group_defaults = (
        ("foreach", None), ("maximize", False),
        ("differentiable", False), ("decoupled_weight_decay", False), ("capturable", False))

    def _hyperparameters(self, group):
        beta1, beta2 = group["betas"]
        return {"lr": scalar(group["lr"]), "beta1": beta1, "beta2": beta2, "eps": group["eps"],
                "weight_decay": group["weight_decay"], "decoupled": group["decoupled_weight_decay"],
                "maximize": group["maximize"]}

    def _init_state(self, state, p, group):
        state["step"] = step_counter()
        state["exp_avg"] = zeros_like(p)
        state["exp_avg_sq"] = zeros_like(p)

    def _prepare(self, p, g, state, hyper):
        return (p, g, state["exp_avg"].array, state["exp_avg_sq"].array), dict(hyper, step=next_step(state))
