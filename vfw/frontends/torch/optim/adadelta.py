"""torch.optim.Adadelta."""

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

__all__ = ["Adadelta"]


class Adadelta(InPlaceOptimizer):
    """Adadelta, as ``torch.optim.Adadelta``.

    Parameters
    ----------
    params : iterable
        Tensors, parameter-group dicts or ``(name, tensor)`` pairs.
    lr : float or Tensor
        Scale of the delta before it is applied (default 1.0).
    rho : float
        Decay rate of the running averages (default 0.9).
    eps : float
        Added inside the square roots (default 1e-6).
    weight_decay : float
        L2 penalty (default 0).
    foreach, capturable, maximize, differentiable
        As in torch.
    """

    _rule = staticmethod(_functional.adadelta)
    _scratch_count = 3
    _capturable_message = ("If capturable=True, params and state_steps must be on supported devices: "
                           "['cuda', 'xpu', 'hpu', 'privateuseone'].")

    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *, capturable=False,
                 maximize=False, differentiable=False):
        check_lr(lr)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        check_at_least_zero("epsilon value", eps)
        check_at_least_zero("weight_decay value", weight_decay)
        defaults = {"lr": lr, "rho": rho, "eps": eps, "weight_decay": weight_decay, "maximize": maximize,
                    "capturable": capturable, "foreach": foreach, "differentiable": differentiable}
        super().__init__(params, defaults)

    _group_defaults = (("foreach", None), ("maximize", False), ("differentiable", False), ("capturable", False))

    def _hyperparameters(self, group):
        return {"lr": scalar(group["lr"]), "rho": group["rho"], "eps": group["eps"],
                "weight_decay": group["weight_decay"], "maximize": group["maximize"]}

    def _init_state(self, state, p, group):
        state["step"] = step_counter()
        state["square_avg"] = zeros_like(p)
        state["acc_delta"] = zeros_like(p)

    def _prepare(self, p, g, state, hyper):
        next_step(state)
        return (p, g, state["square_avg"].array, state["acc_delta"].array), hyper
