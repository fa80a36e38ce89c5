"""torch.optim.lr_scheduler: learning-rate schedules over an optimizer's parameter groups.

This module holds the schedules given by a factor per epoch (step, exponential, linear,
polynomial, cosine, lambdas); cyclic and warm-restart schedules live in ``_lr_cyclic``,
combinations and ``ReduceLROnPlateau`` in ``_lr_composite``.
"""

import math
import types
from bisect import bisect_right
from collections import Counter

from vfw.frontends.torch.optim._lr_base import (  # noqa: F401  (torch's module exposes these too)
    EPOCH_DEPRECATION_WARNING,
    LRScheduler,
    _LRScheduler,
    group_values,
    warn_outside_step,
)
from vfw.frontends.torch.optim._lr_composite import ChainedScheduler, ReduceLROnPlateau, SequentialLR
from vfw.frontends.torch.optim._lr_cyclic import CosineAnnealingWarmRestarts, CyclicLR, OneCycleLR

__all__ = ["LambdaLR", "MultiplicativeLR", "StepLR", "MultiStepLR", "ConstantLR", "LinearLR", "ExponentialLR",
           "SequentialLR", "CosineAnnealingLR", "ChainedScheduler", "ReduceLROnPlateau", "CyclicLR",
           "CosineAnnealingWarmRestarts", "OneCycleLR", "PolynomialLR", "LRScheduler"]


def _scaled(optimizer, factor):
    """Each group's current lr times ``factor``."""
    return [group["lr"] * factor for group in optimizer.param_groups]


class _LambdaSchedule(LRScheduler):
    """Schedules driven by user functions of the epoch, one per group (or one for all)."""

    def __init__(self, optimizer, lr_lambda, last_epoch=-1):
        self.optimizer = optimizer
        if isinstance(lr_lambda, (list, tuple)):
            if len(lr_lambda) != len(optimizer.param_groups):
                raise ValueError(f"Expected {len(optimizer.param_groups)} lr_lambdas, but got {len(lr_lambda)}")
            self.lr_lambdas = list(lr_lambda)
        else:
            self.lr_lambdas = [lr_lambda] * len(optimizer.param_groups)
        super().__init__(optimizer, last_epoch)

    def state_dict(self):
        """Attributes except the optimizer; a lambda is saved as its ``__dict__`` when it is a callable object
        (plain functions are saved as None)."""
        state = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "lr_lambdas")}
        state["lr_lambdas"] = [None if isinstance(fn, types.FunctionType) else fn.__dict__.copy()
                               for fn in self.lr_lambdas]
        return state

    def load_state_dict(self, state_dict):
        lambdas = state_dict.pop("lr_lambdas")
        self.__dict__.update(state_dict)
        state_dict["lr_lambdas"] = lambdas
        for fn, saved in zip(self.lr_lambdas, lambdas):
            if saved is not None:
                fn.__dict__.update(saved)


class LambdaLR(_LambdaSchedule):
    """lr = initial lr times ``lr_lambda(epoch)``.

    Parameters
    ----------
    optimizer : Optimizer
    lr_lambda : callable or list of callables
        A function of the epoch (one per group, or one for all groups).
    last_epoch : int
        Index of the last epoch when resuming (default -1).
    """

    def get_lr(self):
        warn_outside_step(self)
        return [base * fn(self.last_epoch) for fn, base in zip(self.lr_lambdas, self.base_lrs)]


class MultiplicativeLR(_LambdaSchedule):
    """lr = previous lr times ``lr_lambda(epoch)`` (from the first step on).

    Parameters are those of :class:`LambdaLR`.
    """

    def __init__(self, optimizer, lr_lambda, last_epoch=-1):
        lambdas = lr_lambda if isinstance(lr_lambda, (list, tuple)) else [lr_lambda]
        for fn in lambdas:
            if not callable(fn):
                raise TypeError(f"lr_lambda should be a function, but got {type(fn).__name__}")
        super().__init__(optimizer, lr_lambda, last_epoch)

    def get_lr(self):
        warn_outside_step(self)
        if self._is_initial:
            return group_values(self.optimizer, "lr")
        return [group["lr"] * fn(self.last_epoch) for fn, group in zip(self.lr_lambdas, self.optimizer.param_groups)]


class StepLR(LRScheduler):
    """Multiply the lr by ``gamma`` every ``step_size`` epochs.

    Parameters
    ----------
    optimizer : Optimizer
    step_size : int
        Period of the decay, in epochs.
    gamma : float
        Decay factor (default 0.1).
    last_epoch : int
        Index of the last epoch when resuming (default -1).
    """

    def __init__(self, optimizer, step_size, gamma=0.1, last_epoch=-1):
        self.step_size = step_size
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        warn_outside_step(self)
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return group_values(self.optimizer, "lr")
        return _scaled(self.optimizer, self.gamma)

    def _get_closed_form_lr(self):
        return [base * self.gamma ** (self.last_epoch // self.step_size) for base in self.base_lrs]


class MultiStepLR(LRScheduler):
    """Multiply the lr by ``gamma`` at each milestone epoch (a repeated milestone multiplies repeatedly).

    Parameters
    ----------
    optimizer : Optimizer
    milestones : iterable of int
        Epochs at which to decay.
    gamma : float
        Decay factor (default 0.1).
    last_epoch : int
        Index of the last epoch when resuming (default -1).
    """

    def __init__(self, optimizer, milestones, gamma=0.1, last_epoch=-1):
        self.milestones = Counter(milestones)
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        warn_outside_step(self)
        if self.last_epoch not in self.milestones:
            return group_values(self.optimizer, "lr")
        return _scaled(self.optimizer, self.gamma ** self.milestones[self.last_epoch])

    def _get_closed_form_lr(self):
        passed = bisect_right(sorted(self.milestones.elements()), self.last_epoch)
        return [base * self.gamma ** passed for base in self.base_lrs]


class ConstantLR(LRScheduler):
    """Scale the lr by ``factor`` until epoch ``total_iters``, then restore it.

    Parameters
    ----------
    optimizer : Optimizer
    factor : float
        In [0, 1] (default 1/3).
    total_iters : int
        Epochs with the scaled lr (default 5).
    last_epoch : int
        Index of the last epoch when resuming (default -1).
    """

    def __init__(self, optimizer, factor=1.0 / 3, total_iters=5, last_epoch=-1):
        if factor > 1.0 or factor < 0:
            raise ValueError("Constant multiplicative factor expected to be between 0 and 1.")
        self.factor = factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        warn_outside_step(self)
        if self.last_epoch == 0:
            return _scaled(self.optimizer, self.factor)
        if self.last_epoch != self.total_iters:
            return group_values(self.optimizer, "lr")
        return _scaled(self.optimizer, 1.0 / self.factor)

    def _get_closed_form_lr(self):
        done = self.last_epoch >= self.total_iters
        return [base * (self.factor + done * (1 - self.factor)) for base in self.base_lrs]


class LinearLR(LRScheduler):
    """Scale the lr by a factor going linearly from ``start_factor`` to ``end_factor`` over ``total_iters``.

    Parameters
    ----------
    optimizer : Optimizer
    start_factor : float
        In (0, 1] (default 1/3).
    end_factor : float
        In [0, 1] (default 1).
    total_iters : int
        Epochs of the ramp (default 5).
    last_epoch : int
        Index of the last epoch when resuming (default -1).
    """

    def __init__(self, optimizer, start_factor=1.0 / 3, end_factor=1.0, total_iters=5, last_epoch=-1):
        if start_factor > 1.0 or start_factor <= 0:
            raise ValueError("Starting multiplicative factor expected to be greater than 0 and less or equal to 1.")
        if end_factor > 1.0 or end_factor < 0:
            raise ValueError("Ending multiplicative factor expected to be between 0 and 1.")
        self.start_factor = start_factor
        self.end_factor = end_factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        warn_outside_step(self)
        if self.last_epoch == 0:
            return _scaled(self.optimizer, self.start_factor)
        if self._is_initial or self.last_epoch > self.total_iters:
            return group_values(self.optimizer, "lr")
        span = self.end_factor - self.start_factor
        # the ratio of this epoch's factor to the previous one's
        previous = self.total_iters * self.start_factor + (self.last_epoch - 1) * span
        return _scaled(self.optimizer, 1.0 + span / previous)

    def _get_closed_form_lr(self):
        span = self.end_factor - self.start_factor
        return [base * (self.start_factor + span * min(self.total_iters, self.last_epoch) / self.total_iters)
                for base in self.base_lrs]


class ExponentialLR(LRScheduler):
    """Multiply the lr by ``gamma`` every epoch.

    Parameters
    ----------
    optimizer : Optimizer
    gamma : float
        Decay factor.
    last_epoch : int
        Index of the last epoch when resuming (default -1).
    """

    def __init__(self, optimizer, gamma, last_epoch=-1):
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        warn_outside_step(self)
        if self._is_initial:
            return group_values(self.optimizer, "lr")
        return _scaled(self.optimizer, self.gamma)

    def _get_closed_form_lr(self):
        return [base * self.gamma ** self.last_epoch for base in self.base_lrs]


class PolynomialLR(LRScheduler):
    """Decay the lr as ``(1 - epoch / total_iters) ** power`` until ``total_iters`` (then 0).

    Parameters
    ----------
    optimizer : Optimizer
    total_iters : int
        Epochs of the decay (default 5).
    power : float
        Power of the polynomial (default 1).
    last_epoch : int
        Index of the last epoch when resuming (default -1).
    """

    def __init__(self, optimizer, total_iters=5, power=1.0, last_epoch=-1):
        self.total_iters = total_iters
        self.power = power
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        warn_outside_step(self)
        if self._is_initial or self.last_epoch > self.total_iters:
            return group_values(self.optimizer, "lr")
        ratio = (1.0 - self.last_epoch / self.total_iters) / (1.0 - (self.last_epoch - 1) / self.total_iters)
        return _scaled(self.optimizer, ratio ** self.power)

    def _get_closed_form_lr(self):
        return [base * (1.0 - min(self.total_iters, self.last_epoch) / self.total_iters) ** self.power
                for base in self.base_lrs]


class CosineAnnealingLR(LRScheduler):
    """Anneal the lr from its initial value to ``eta_min`` along a half cosine of period ``T_max``.

    The chainable form keeps following the cosine (back up after ``T_max``), as torch's does.

    Parameters
    ----------
    optimizer : Optimizer
    T_max : int
        Half period, in epochs.
    eta_min : float
        Minimum learning rate (default 0).
    last_epoch : int
        Index of the last epoch when resuming (default -1).
    """

    def __init__(self, optimizer, T_max, eta_min=0.0, last_epoch=-1):  # noqa: N803  (torch's names)
        self.T_max = T_max
        self.eta_min = eta_min
        super().__init__(optimizer, last_epoch)

    def _at(self, base, epoch):
        return self.eta_min + (base - self.eta_min) * (1 + math.cos(epoch * math.pi / self.T_max)) / 2

    def get_lr(self):
        warn_outside_step(self)
        epoch, groups = self.last_epoch, self.optimizer.param_groups
        if self._is_initial:
            return group_values(self.optimizer, "lr")
        if self._step_count == 1 and epoch > 0:  # resumed: start on the curve
            return [self._at(base, epoch) for base in self.base_lrs]
        if (epoch - 1 - self.T_max) % (2 * self.T_max) == 0:  # past the minimum: climb back
            return [group["lr"] + (base - self.eta_min) * (1 - math.cos(math.pi / self.T_max)) / 2
                    for base, group in zip(self.base_lrs, groups)]
        ratio = (1 + math.cos(math.pi * epoch / self.T_max)) / (1 + math.cos(math.pi * (epoch - 1) / self.T_max))
        return [ratio * (group["lr"] - self.eta_min) + self.eta_min for group in groups]

    def _get_closed_form_lr(self):
        return [self.eta_min + (base - self.eta_min) * (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2
                for base in self.base_lrs]
