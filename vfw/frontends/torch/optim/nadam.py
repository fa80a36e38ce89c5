"""torch.optim.NAdam: Adam with Nesterov momentum."""

import numpy as np

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

__all__ = ["NAdam"]


class NAdam(InPlaceOptimizer):
    """NAdam, as ``torch.optim.NAdam``.

    Parameters
    ----------
    params : iterable
        Tensors, parameter-group dicts or ``(name, tensor)`` pairs.
    lr : float or Tensor
        Learning rate (default 2e-3).
    betas : (float, float)
        Decay rates of the running averages (default (0.9, 0.999)).
    eps : float
        Added to the denominator (default 1e-8).
    weight_decay : float
        L2 penalty (default 0), or decoupled decay with ``decoupled_weight_decay`` (NAdamW).
    momentum_decay : float
        Decay of the momentum schedule (default 4e-3).
    decoupled_weight_decay, foreach, maximize, capturable, differentiable
        As in torch.
    """

    _rule = staticmethod(_functional.nadam)
    _capturable_message = ("If capturable=True, params, mu_products and state_steps must be on supported devices: "
                           "['cuda', 'xpu', 'hpu', 'privateuseone', 'xla'].")

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, momentum_decay=4e-3,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False):
        check_lr(lr)
        check_at_least_zero("epsilon value", eps)
        check_betas(betas)
        check_at_least_zero("weight_decay value", weight_decay)
        check_at_least_zero("momentum_decay value", momentum_decay)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "momentum_decay": momentum_decay, "decoupled_weight_decay": decoupled_weight_decay,
                    "maximize": maximize, "foreach": foreach, "capturable": capturable,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    _group_defaults = (
        ("maximize", False), ("foreach", None),
        ("capturable", False), ("differentiable", False), ("decoupled_weight_decay", False))

    def _hyperparameters(self, group):
        beta1, beta2 = group["betas"]
        return {"lr": scalar(group["lr"]), "beta1": beta1, "beta2": beta2, "eps": group["eps"],
                "weight_decay": group["weight_decay"], "momentum_decay": group["momentum_decay"],
                "decoupled": group["decoupled_weight_decay"], "maximize": group["maximize"]}

    def _init_state(self, state, p, group):
        state["step"] = step_counter()
        state["mu_product"] = step_counter(value=1.0)
        state["exp_avg"] = zeros_like(p)
        state["exp_avg_sq"] = zeros_like(p)

    def _prepare(self, p, g, state, hyper):
        step = next_step(state)
        kwargs = dict(hyper, step=step)
        decay = kwargs.pop("momentum_decay")
        mu = kwargs["mu"] = _functional.nadam_momentum(hyper["beta1"], decay, step)
        kwargs["mu_next"] = _functional.nadam_momentum(hyper["beta1"], decay, step + 1)
        product = state["mu_product"].array
        np.multiply(product, mu, out=product)  # accumulated in float32, as torch's 0-d tensor is
        kwargs["mu_product"] = float(product)
        return (p, g, state["exp_avg"].array, state["exp_avg_sq"].array), kwargs
