"""torch.optim.SparseAdam: Adam's moments kept and applied at the rows a sparse gradient touches."""

import numpy as np

from vfw.frontends.torch import _dispatch
from vfw.frontends.torch.optim import _sparse_updates
from vfw.frontends.torch.optim._inplace import check_betas, check_lr
from vfw.frontends.torch.optim.optimizer import Optimizer

__all__ = ["SparseAdam"]


class SparseAdam(Optimizer):
    """Adam for sparse gradients (``nn.Embedding(sparse=True)``), as ``torch.optim.SparseAdam``: only the rows a
    gradient has entries for update their moments and move; dense gradients are refused.

    Parameters
    ----------
    params : iterable
        Tensors, parameter-group dicts or ``(name, tensor)`` pairs.
    lr : float
        Learning rate (default 1e-3).
    betas : (float, float)
        Decay rates of the first and second moments (default (0.9, 0.999)).
    eps : float
        Added to the denominator (default 1e-8).
    maximize : bool
        Maximize the objective instead of minimizing.

    State per parameter: ``step`` (int), ``exp_avg`` and ``exp_avg_sq`` (dense, shaped like the parameter).
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, maximize=False):
        check_lr(lr)
        if not 0.0 < lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 < eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        check_betas(betas)
        super().__init__(params, {"lr": lr, "betas": betas, "eps": eps, "maximize": maximize})

    def step(self, closure=None):
        """Perform one optimization step (``closure`` re-evaluates the model and returns the loss)."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            for p in group["params"]:
                grad = p.grad
                if grad is None:
                    continue
                if not getattr(grad, "is_sparse", False):
                    raise RuntimeError("SparseAdam does not support dense gradients, please consider Adam instead")
                state = self.state[p]
                if not state:
                    state["step"] = 0
                    state["exp_avg"] = _dispatch.wrap(np.zeros_like(p.array))
                    state["exp_avg_sq"] = _dispatch.wrap(np.zeros_like(p.array))
                state["step"] += 1
                _sparse_updates.sparse_adam(p, grad, state["exp_avg"].array, state["exp_avg_sq"].array,
                                            step=state["step"], lr=float(group["lr"]), beta1=beta1, beta2=beta2,
                                            eps=group["eps"], maximize=group.get("maximize", False))
                _dispatch.bump_version(p)
        return loss
