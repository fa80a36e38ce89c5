"""torch.optim.Adagrad."""

from vfw.frontends.torch.optim import _functional, _sparse_updates
from vfw.frontends.torch.optim._inplace import (
    InPlaceOptimizer,
    check_at_least_zero,
    check_fused,
    check_lr,
    next_step,
    scalar,
    step_counter,
    zeros_like,
)

__all__ = ["Adagrad"]


class Adagrad(InPlaceOptimizer):
    """Adagrad, as ``torch.optim.Adagrad`` (state is created for every parameter at construction).

    Parameters
    ----------
    params : iterable
        Tensors, parameter-group dicts or ``(name, tensor)`` pairs.
    lr : float or Tensor
        Learning rate (default 1e-2).
    lr_decay : float
        The learning rate at step t is ``lr / (1 + (t - 1) * lr_decay)`` (default 0).
    weight_decay : float
        L2 penalty (default 0).
    initial_accumulator_value : float
        Starting value of the sum of squared gradients (default 0).
    eps : float
        Added to the denominator (default 1e-10).
    foreach, maximize, differentiable, fused
        As in torch; ``foreach`` and ``fused`` run the same single-tensor numpy update.
    """

    _rule = staticmethod(_functional.adagrad)

    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0, eps=1e-10,
                 foreach=None, *, maximize=False, differentiable=False, fused=None):
        check_lr(lr)
        check_at_least_zero("lr_decay value", lr_decay)
        check_at_least_zero("weight_decay value", weight_decay)
        check_at_least_zero("initial_accumulator_value value", initial_accumulator_value)
        check_at_least_zero("epsilon value", eps)
        defaults = {"lr": lr, "lr_decay": lr_decay, "eps": eps, "weight_decay": weight_decay,
                    "initial_accumulator_value": initial_accumulator_value, "foreach": foreach, "maximize": maximize,
                    "differentiable": differentiable, "fused": fused}
        super().__init__(params, defaults)
        check_fused(fused, foreach, differentiable)
        for group in self.param_groups:
            for p in group["params"]:
                self._init_state(self.state[p], p, group)

    _group_defaults = (("foreach", None), ("maximize", False), ("differentiable", False), ("fused", None))

    def _hyperparameters(self, group):
        return {"lr": scalar(group["lr"]), "lr_decay": group["lr_decay"], "eps": group["eps"],
                "weight_decay": group["weight_decay"], "maximize": group["maximize"]}

    def _init_state(self, state, p, group):
        state["step"] = step_counter(fused=bool(group["fused"]))
        # torch starts late-added parameters from the optimizer's default, not their group's value
        state["sum"] = zeros_like(p, self.defaults["initial_accumulator_value"])

    def _prepare(self, p, g, state, hyper):
        return (p, g, state["sum"].array), dict(hyper, step=next_step(state))

    def _sparse_step(self, p, grad, state, hyper):
        _sparse_updates.adagrad(p, grad, state["sum"].array, step=next_step(state), **hyper)
