"""torch.optim.Adam (with AMSGrad and decoupled weight decay)."""

from vfw.core.tensor import Tensor as CoreTensor
from vfw.frontends.torch.optim import _functional
from vfw.frontends.torch.optim._inplace import (
    InPlaceOptimizer,
    check_at_least_zero,
    check_betas,
    check_fused,
    check_lr,
    next_step,
    scalar,
    step_counter,
    zeros_like,
)

__all__ = ["Adam"]


class Adam(InPlaceOptimizer):
    """Adam, as ``torch.optim.Adam``.

    Parameters
    ----------
    params : iterable
        Tensors, parameter-group dicts or ``(name, tensor)`` pairs.
    lr : float or Tensor
        Learning rate (default 1e-3).
    betas : (float, float)
        Decay rates of the running averages of the gradient and its square (default (0.9, 0.999)).
    eps : float
        Added to the denominator (default 1e-8).
    weight_decay : float
        L2 penalty (default 0); with ``decoupled_weight_decay`` it shrinks the parameters instead (AdamW).
    amsgrad : bool
        Use the maximum of the past squared-gradient averages (AMSGrad).
    foreach, maximize, capturable, differentiable, fused, decoupled_weight_decay
        As in torch; ``foreach`` and ``fused`` run the same single-tensor numpy update.
    """

    _rule = staticmethod(_functional.adam)
    _sparse_refusal = "Adam does not support sparse gradients, please consider SparseAdam instead"

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, *, foreach=None,
                 maximize=False, capturable=False, differentiable=False, fused=None, decoupled_weight_decay=False):
        if isinstance(lr, CoreTensor):
            if foreach and not capturable:
                raise ValueError("lr as a Tensor is not supported for capturable=False and foreach=True")
        check_lr(lr)
        check_at_least_zero("epsilon value", eps)
        check_betas(betas)
        check_at_least_zero("weight_decay value", weight_decay)
        if not (all(isinstance(b, float) for b in betas[:2]) or all(isinstance(b, CoreTensor) for b in betas[:2])):
            raise ValueError("betas must be either both floats or both Tensors")
        for i in (0, 1):
            if isinstance(betas[i], CoreTensor):
                if not capturable and foreach:
                    raise ValueError(f"betas[{i}] as a Tensor is not supported for capturable=False and foreach=True")
                if betas[i].array.size != 1:
                    raise ValueError(f"Tensor betas[{i}] must be 1-element")
        defaults = {"lr": lr, "betas": tuple(betas), "eps": eps, "weight_decay": weight_decay, "amsgrad": amsgrad,
                    "maximize": maximize, "foreach": foreach, "capturable": capturable,
                    "differentiable": differentiable, "fused": fused, "decoupled_weight_decay": decoupled_weight_decay}
        super().__init__(params, defaults)
        check_fused(fused, foreach, differentiable)

    _group_defaults = (
        ("amsgrad", False), ("maximize", False), ("foreach", None),
        ("capturable", False), ("differentiable", False), ("decoupled_weight_decay", False), ("fused", None))

    def _hyperparameters(self, group):
        beta1, beta2 = group["betas"]
        return {"lr": scalar(group["lr"]), "beta1": scalar(beta1), "beta2": scalar(beta2), "eps": group["eps"],
                "weight_decay": scalar(group["weight_decay"]), "decoupled": group["decoupled_weight_decay"],
                "amsgrad": group["amsgrad"], "maximize": group["maximize"]}

    def _init_state(self, state, p, group):
        state["step"] = step_counter(fused=bool(group["fused"] or group["capturable"]))
        state["exp_avg"] = zeros_like(p)
        state["exp_avg_sq"] = zeros_like(p)
        if group["amsgrad"]:
            state["max_exp_avg_sq"] = zeros_like(p)

    def _prepare(self, p, g, state, hyper):
        max_sq = state["max_exp_avg_sq"].array if hyper["amsgrad"] else None
        return (p, g, state["exp_avg"].array, state["exp_avg_sq"].array, max_sq), dict(hyper, step=next_step(state))
