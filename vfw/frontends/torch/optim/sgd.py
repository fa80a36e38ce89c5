"""torch.optim.SGD: stochastic gradient descent with optional (Nesterov) momentum."""

import numpy as np

from vfw.frontends.torch import _dispatch
from vfw.frontends.torch.optim import _functional, _sparse_updates
from vfw.frontends.torch.optim._inplace import InPlaceOptimizer, check_at_least_zero, check_fused, check_lr, scalar

__all__ = ["SGD"]


class SGD(InPlaceOptimizer):
    """Stochastic gradient descent, as ``torch.optim.SGD``.

    Parameters
    ----------
    params : iterable
        Tensors, parameter-group dicts or ``(name, tensor)`` pairs.
    lr : float or Tensor
        Learning rate (default 1e-3).
    momentum : float
        Momentum factor (default 0).
    dampening : float
        Dampening of the momentum (default 0).
    weight_decay : float
        L2 penalty added to the gradient (default 0).
    nesterov : bool
        Nesterov momentum (needs momentum > 0 and no dampening).
    maximize : bool
        Maximize the objective instead of minimizing.
    foreach, differentiable, fused : bool or None
        Accepted as torch does; every setting runs the same single-tensor numpy update.
    """

    _rule = staticmethod(_functional.sgd)

    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False, *, maximize=False,
                 foreach=None, differentiable=False, fused=None):
        check_lr(lr)
        check_at_least_zero("momentum value", momentum)
        check_at_least_zero("weight_decay value", weight_decay)
        defaults = {"lr": lr, "momentum": momentum, "dampening": dampening, "weight_decay": weight_decay,
                    "nesterov": nesterov, "maximize": maximize, "foreach": foreach, "differentiable": differentiable,
                    "fused": fused}
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)
        check_fused(fused, foreach, differentiable)

    _group_defaults = (
        ("nesterov", False), ("maximize", False), ("foreach", None), ("differentiable", False), ("fused", False))

    def _keeps_state(self, group):
        return group["momentum"] != 0

    def _scratch_needed(self, group):
        return 2 if group["momentum"] else 1

    def _hyperparameters(self, group):
        return {"lr": scalar(group["lr"]), "momentum": group["momentum"], "dampening": group["dampening"],
                "nesterov": group["nesterov"], "weight_decay": scalar(group["weight_decay"]),
                "maximize": group["maximize"]}

    def _init_state(self, state, p, group):
        pass  # the momentum buffer starts as the first gradient (see _prepare)

    def _prepare(self, p, g, state, hyper):
        if state is None:
            return (p, g, None), hyper
        buf = state.get("momentum_buffer")
        if buf is not None:
            return (p, g, buf.array), hyper
        buf = np.empty_like(p)
        state["momentum_buffer"] = _dispatch.wrap(buf)
        return (p, g, buf), dict(hyper, first=True)

    def _sparse_step(self, p, grad, state, hyper):
        _sparse_updates.sgd(p, grad, {} if state is None else state, **hyper)
