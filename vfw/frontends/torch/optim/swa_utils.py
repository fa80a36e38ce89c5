"""``torch.optim.swa_utils``: stochastic weight averaging and exponential moving averages of a model's weights.

:class:`AveragedModel` keeps a copy of a model whose parameters (and, with ``use_buffers``, buffers) follow a
running average of the model's; :class:`SWALR` anneals each group's learning rate to a constant SWA rate;
:func:`update_bn` recomputes BatchNorm statistics for the averaged weights with one pass over the data.
"""

import copy
import itertools
import math

import vfw.frontends.torch as torch
from vfw.frontends.torch.autograd.grad_mode import no_grad
from vfw.frontends.torch.nn.modules.batchnorm import _BatchNorm
from vfw.frontends.torch.nn.modules.module import Module
from vfw.frontends.torch.optim._lr_base import LRScheduler, warn_outside_step

__all__ = ["AveragedModel", "SWALR", "get_ema_avg_fn", "get_ema_multi_avg_fn", "get_swa_avg_fn",
           "get_swa_multi_avg_fn", "update_bn"]


def _count(num_averaged):
    return num_averaged.item() if isinstance(num_averaged, torch.Tensor) else num_averaged


def get_ema_multi_avg_fn(decay=0.999):
    """An averaging function over lists of tensors: ``ema <- decay * ema + (1 - decay) * current`` in place
    (integer tensors get the value computed in floating point, truncated)."""
    def ema_update(ema_params, current_params, num_averaged):
        for ema, current in zip(ema_params, current_params):
            if ema.is_floating_point():
                ema.lerp_(current, 1 - decay)
            else:
                ema.copy_(decay * ema + (1 - decay) * current)
    return ema_update


def get_swa_multi_avg_fn():
    """An averaging function over lists of tensors: the running mean ``avg + (current - avg) / (n + 1)`` in place
    (integer tensors get the value computed in floating point, truncated)."""
    def swa_update(averaged_params, current_params, num_averaged):
        count = _count(num_averaged)
        for averaged, current in zip(averaged_params, current_params):
            if averaged.is_floating_point():
                averaged.lerp_(current, 1 / (count + 1))
            else:
                averaged.copy_(averaged + (current - averaged) / (count + 1))
    return swa_update


def get_ema_avg_fn(decay=0.999):
    """An averaging function of one tensor: ``decay * ema + (1 - decay) * current``."""
    def ema_update(ema_param, current_param, num_averaged):
        return decay * ema_param + (1 - decay) * current_param
    return ema_update


def get_swa_avg_fn():
    """An averaging function of one tensor: ``avg + (current - avg) / (num_averaged + 1)``."""
    def swa_update(averaged_param, current_param, num_averaged):
        return averaged_param + (current_param - averaged_param) / (num_averaged + 1)
    return swa_update


class AveragedModel(Module):
    """A deep copy of ``model`` whose weights are averaged over calls of :meth:`update_parameters`.

    Parameters
    ----------
    model : Module
        The model being trained.
    device : torch.device, optional
        Where the copy lives.
    avg_fn : callable, optional
        ``avg_fn(averaged, current, num_averaged) -> new averaged`` per tensor.
    multi_avg_fn : callable, optional
        ``multi_avg_fn(averaged_list, current_list, num_averaged)`` updating the lists in place.  Without
        either, the equal-weight running mean (SWA).
    use_buffers : bool
        Average the buffers too (and read parameters and buffers in module order); otherwise the buffers
        are copied from ``model`` at every update.
    """

    def __init__(self, model, device=None, avg_fn=None, multi_avg_fn=None, use_buffers=False):
        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise AssertionError("Only one of avg_fn and multi_avg_fn should be provided")
        self.module = copy.deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        self.register_buffer("n_averaged", torch.tensor(0, dtype=torch.long, device=device))
        self.avg_fn, self.multi_avg_fn, self.use_buffers = avg_fn, multi_avg_fn, use_buffers

    def forward(self, *args, **kwargs):
        """Run the averaged copy."""
        return self.module(*args, **kwargs)

    def update_parameters(self, model):
        """Fold ``model``'s current weights into the average (the first call copies them)."""
        if self.use_buffers:
            averaged = itertools.chain(self.module.parameters(), self.module.buffers())
            current = itertools.chain(model.parameters(), model.buffers())
        else:
            averaged, current = self.parameters(), model.parameters()
        pairs = [(a.detach(), c.detach().to(a.device)) for a, c in zip(averaged, current)]
        with torch.no_grad():
            if self.n_averaged.item() == 0:
                for a, c in pairs:
                    a.copy_(c)
            elif self.avg_fn is not None:
                for a, c in pairs:
                    a.copy_(self.avg_fn(a, c, self.n_averaged.to(a.device)))
            else:
                update = self.multi_avg_fn or get_swa_multi_avg_fn()
                update([a for a, _ in pairs], [c for _, c in pairs], self.n_averaged)
        if not self.use_buffers:
            # The buffers (BatchNorm statistics) follow the model; update_bn recomputes them for the average.
            for a, c in zip(self.module.buffers(), model.buffers()):
                a.detach().copy_(c.detach().to(a.device))
        self.n_averaged += 1


@no_grad()
def update_bn(loader, model, device=None):
    """Recompute the running statistics of ``model``'s BatchNorm layers with one pass over ``loader``.

    Parameters
    ----------
    loader : iterable
        Batches: tensors, or lists/tuples whose first element is the input.
    model : Module
        The model (usually an :class:`AveragedModel`).
    device : torch.device, optional
        Where to move each input.
    """
    momenta = {}
    for module in model.modules():
        if isinstance(module, _BatchNorm):
            module.reset_running_stats()
            momenta[module] = module.momentum
    if not momenta:
        return
    was_training = model.training
    model.train()
    for module in momenta:
        module.momentum = None  # a cumulative average over the pass
    for batch in loader:
        if isinstance(batch, (list, tuple)):
            batch = batch[0]
        if device is not None:
            batch = batch.to(device)
        model(batch)
    for module, momentum in momenta.items():
        module.momentum = momentum
    model.train(was_training)


class SWALR(LRScheduler):
    """Anneal each group's learning rate to ``swa_lr`` over ``anneal_epochs`` epochs, then keep it.

    Parameters
    ----------
    optimizer : Optimizer
    swa_lr : float or list of float
        The final rate (one for all groups or one per group).
    anneal_epochs : int
        How many epochs the annealing takes (0: at once).
    anneal_strategy : {'cos', 'linear'}
        The shape of the annealing.
    last_epoch : int
        Index of the last epoch when resuming.
    """

    def __init__(self, optimizer, swa_lr, anneal_epochs=10, anneal_strategy="cos", last_epoch=-1):
        swa_lrs = swa_lr if isinstance(swa_lr, (list, tuple)) else [swa_lr] * len(optimizer.param_groups)
        if len(swa_lrs) != len(optimizer.param_groups):
            raise ValueError(f"swa_lr must have the same length as optimizer.param_groups. swa_lr has {len(swa_lrs)} "
                             f"values, param_groups has {len(optimizer.param_groups)}.")
        for group, lr in zip(optimizer.param_groups, swa_lrs):
            group["swa_lr"] = lr
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}")
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got {anneal_epochs}")
        self.anneal_func = self._cosine_anneal if anneal_strategy == "cos" else self._linear_anneal
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    @staticmethod
    def _linear_anneal(t):
        return t

    @staticmethod
    def _cosine_anneal(t):
        return (1 - math.cos(math.pi * t)) / 2

    @staticmethod
    def _start_lr(lr, swa_lr, alpha):
        """The rate annealing started from, given the current ``lr`` reached at fraction ``alpha``."""
        return swa_lr if alpha == 1 else (lr - alpha * swa_lr) / (1 - alpha)

    def get_lr(self):
        """The rates of this epoch: the annealing's start recovered from the current rates, moved to ``alpha``."""
        warn_outside_step(self)
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        span = max(1, self.anneal_epochs)
        previous_alpha = self.anneal_func(max(0, min(1, (step - 1) / span)))
        alpha = self.anneal_func(max(0, min(1, step / span)))
        return [group["swa_lr"] * alpha + self._start_lr(group["lr"], group["swa_lr"], previous_alpha) * (1 - alpha)
                for group in self.optimizer.param_groups]
