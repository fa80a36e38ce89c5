"""torch.optim.ASGD: averaged stochastic gradient descent."""

import numpy as np

from vfw.frontends.torch import _dispatch
from vfw.frontends.torch.optim._functional import effective_grad, fused_multiply_add
from vfw.frontends.torch.optim._inplace import (
    InPlaceOptimizer,
    check_at_least_zero,
    check_lr,
    next_step,
    scalar,
    step_counter,
    zeros_like,
)

__all__ = ["ASGD"]


def asgd(p, g, ax, *, eta, mu, lambd, weight_decay, maximize, s):
    """One ASGD update with this step's ``eta`` and ``mu``: decay and descend ``p``, then move the average ``ax``
    towards it (``mu`` = 1: ``ax`` becomes ``p``)."""
    grad = effective_grad(g, p, maximize, weight_decay, s[0], fused=False)
    p *= 1 - lambd * eta
    np.copyto(p, fused_multiply_add(grad, -eta, p, out=s[1]))
    if mu != 1:
        np.subtract(p, ax, out=s[1])
        s[1] *= np.float32(mu)
        ax += s[1]
    else:
        np.copyto(ax, p)


class ASGD(InPlaceOptimizer):
    """Averaged SGD, as ``torch.optim.ASGD``: ``state['ax']`` holds the running average of the parameter.

    Parameters
    ----------
    params : iterable
        Tensors, parameter-group dicts or ``(name, tensor)`` pairs.
    lr : float or Tensor
        Learning rate (default 1e-2); step ``t`` uses ``lr / (1 + lambd * lr * t) ** alpha``.
    lambd : float
        Decay term (default 1e-4).
    alpha : float
        Power of the learning rate's decay (default 0.75).
    t0 : float
        The step at which averaging starts (default 1e6).
    weight_decay : float
        L2 penalty (default 0).
    foreach, maximize, differentiable, capturable
        As in torch.
    """

    _rule = staticmethod(asgd)

    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0, foreach=None, maximize=False,
                 differentiable=False, capturable=False):
        check_lr(lr)
        check_at_least_zero("weight_decay value", weight_decay)
        defaults = {"lr": lr, "lambd": lambd, "alpha": alpha, "t0": t0, "weight_decay": weight_decay,
                    "foreach": foreach, "maximize": maximize, "differentiable": differentiable,
                    "capturable": capturable}
        super().__init__(params, defaults)

    _group_defaults = (("foreach", None), ("maximize", False), ("differentiable", False), ("capturable", False))

    def _hyperparameters(self, group):
        return {"lr": scalar(group["lr"]), "lambd": group["lambd"], "alpha": group["alpha"], "t0": group["t0"],
                "weight_decay": group["weight_decay"], "maximize": group["maximize"]}

    def _init_state(self, state, p, group):
        state["step"] = step_counter()
        state["eta"] = step_counter(value=scalar(group["lr"]))
        state["mu"] = step_counter(value=1.0)
        state["ax"] = zeros_like(p)

    def _prepare(self, p, g, state, hyper):
        step = next_step(state)
        eta, mu = float(state["eta"].array), float(state["mu"].array)
        lr, lambd = hyper["lr"], hyper["lambd"]
        # The next step's eta and mu, kept (rounded) in the state's 0-d tensors as torch keeps them.
        state["eta"].array[...] = lr / ((1 + lambd * lr * step) ** hyper["alpha"])
        state["mu"].array[...] = 1 / max(1, step - hyper["t0"])
        _dispatch.bump_version(state["eta"])
        _dispatch.bump_version(state["mu"])
        return (p, g, state["ax"].array), {"eta": eta, "mu": mu, "lambd": lambd,
                                           "weight_decay": hyper["weight_decay"], "maximize": hyper["maximize"]}
