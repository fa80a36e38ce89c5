"""torch.optim.SparseAdam: Adam for sparse gradients (vfw has no sparse tensors, so every step refuses)."""

from vfw.frontends.torch.optim._inplace import check_betas, check_lr
from vfw.frontends.torch.optim.optimizer import Optimizer

__all__ = ["SparseAdam"]


class SparseAdam(Optimizer):
    """``torch.optim.SparseAdam``: constructed and checked as in torch; ``step`` raises torch's error for the
    dense gradients vfw produces (use :class:`Adam`).
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
        """Refuse the (dense) gradients: RuntimeError as torch raises."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            if any(p.grad is not None for p in group["params"]):
                raise RuntimeError("SparseAdam does not support dense gradients, please consider Adam instead")
        return loss
