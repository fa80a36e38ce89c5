"""torch.optim.Rprop: resilient backpropagation (per-element step sizes adapted from gradient signs)."""

import numpy as np

from vfw.frontends.torch.optim._inplace import InPlaceOptimizer, check_lr, next_step, scalar, step_counter, zeros_like

__all__ = ["Rprop"]


def rprop(p, g, prev, step_size, *, etaminus, etaplus, step_size_min, step_size_max, maximize, s):
    """One Rprop update: a step size grows by ``etaplus`` while the gradient keeps its sign and shrinks by
    ``etaminus`` when it flips (that element then skips its step and forgets its gradient)."""
    grad = s[0]  # a copy: elements whose sign flipped are zeroed
    if maximize:
        np.negative(g, out=grad)
    else:
        np.copyto(grad, g)
    factor = np.sign(np.multiply(grad, prev, out=s[1]), out=s[1])
    flipped = factor < 0
    factor[factor > 0] = etaplus
    factor[flipped] = etaminus
    factor[factor == 0] = 1
    step_size *= factor
    np.clip(step_size, step_size_min, step_size_max, out=step_size)
    grad[flipped] = 0
    np.copyto(prev, grad)
    np.sign(grad, out=s[1])
    s[1] *= step_size
    p -= s[1]


class Rprop(InPlaceOptimizer):
    """Rprop, as ``torch.optim.Rprop``.

    Parameters
    ----------
    params : iterable
        Tensors, parameter-group dicts or ``(name, tensor)`` pairs.
    lr : float or Tensor
        The initial step size of every element (default 1e-2).
    etas : (float, float)
        ``(etaminus, etaplus)``: step size factors after a sign flip / a kept sign (default (0.5, 1.2)).
    step_sizes : (float, float)
        The smallest and largest step size (default (1e-6, 50)).
    capturable, foreach, maximize, differentiable
        As in torch.
    """

    _rule = staticmethod(rprop)

    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *, capturable=False, foreach=None,
                 maximize=False, differentiable=False):
        check_lr(lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        defaults = {"lr": lr, "etas": etas, "step_sizes": step_sizes, "foreach": foreach, "maximize": maximize,
                    "differentiable": differentiable, "capturable": capturable}
        super().__init__(params, defaults)

    _group_defaults = (("foreach", None), ("maximize", False), ("differentiable", False), ("capturable", False))

    def _hyperparameters(self, group):
        (etaminus, etaplus), (low, high) = group["etas"], group["step_sizes"]
        return {"etaminus": etaminus, "etaplus": etaplus, "step_size_min": low, "step_size_max": high,
                "maximize": group["maximize"]}

    def _init_state(self, state, p, group):
        state["step"] = step_counter()
        state["prev"] = zeros_like(p)
        state["step_size"] = zeros_like(p, scalar(group["lr"]))

    def _prepare(self, p, g, state, hyper):
        next_step(state)
        return (p, g, state["prev"].array, state["step_size"].array), hyper
