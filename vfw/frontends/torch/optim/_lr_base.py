"""torch.optim.lr_scheduler.LRScheduler: the base of the learning-rate schedulers.

A scheduler writes a new ``lr`` into every parameter group of its optimizer at each
``step()``. Most schedulers compute it from the groups' current values (the *chainable*
form, so several schedulers can act on one optimizer); given an explicit epoch, those that
have one use their *closed form* instead (a function of ``base_lrs`` and the epoch), with
torch's deprecation warning. ``state_dict()`` is the scheduler's attributes (except the
optimizer), as in torch.
"""

import functools
import weakref

from vfw.core.tensor import Tensor as CoreTensor
from vfw.frontends._warnings import warn_for_user
from vfw.frontends.torch.optim.optimizer import Optimizer

EPOCH_DEPRECATION_WARNING = (
    "The epoch parameter in `scheduler.step()` was not necessary and is being deprecated where possible. Please use "
    "`scheduler.step()` to step the scheduler. During the deprecation, if epoch is different from None, the closed "
    "form is used instead of the new chainable form, where available. Please open an issue if you are unable to "
    "replicate your use case: https://github.com/pytorch/pytorch/issues/new/choose.")


def per_group(name, optimizer, value):
    """``value`` for each parameter group: a list/tuple of one value per group, or one value for all."""
    if isinstance(value, (list, tuple)):
        if len(value) != len(optimizer.param_groups):
            raise ValueError(f"{name} must have the same length as optimizer.param_groups. {name} has {len(value)} "
                             f"values, param_groups has {len(optimizer.param_groups)}.")
        return [_copy(v) for v in value]
    return [_copy(value)] * len(optimizer.param_groups)


def _copy(value):
    return value.clone() if isinstance(value, CoreTensor) else value


def group_values(optimizer, key):
    """The ``key`` entry of every parameter group (tensors copied)."""
    return [_copy(group[key]) for group in optimizer.param_groups]


def set_group_value(group, key, value):
    """Set ``group[key]``, filling a tensor-valued entry in place."""
    current = group[key]
    if isinstance(current, CoreTensor):
        current.fill_(float(value))
    else:
        group[key] = value


def _track_optimizer_steps(optimizer):
    """Make ``optimizer.step`` note that it ran (a scheduler stepping first is warned about)."""
    if hasattr(optimizer.step, "_wrapped_by_lr_sched"):
        return
    step = optimizer.step.__func__
    owner = weakref.ref(optimizer)

    @functools.wraps(step)
    def noted_step(*args, **kwargs):
        opt = owner()
        opt._opt_called = True
        return step(opt, *args, **kwargs)

    noted_step._wrapped_by_lr_sched = True
    optimizer.step = noted_step


class _Flag:
    """Set a boolean attribute of a scheduler inside a ``with`` block."""

    def __init__(self, scheduler, name):
        self.scheduler, self.name = scheduler, name

    def __enter__(self):
        setattr(self.scheduler, self.name, True)
        return self

    def __exit__(self, *exc):
        setattr(self.scheduler, self.name, False)


def computing_lr(scheduler):
    """The block in which ``get_lr()`` runs as part of ``step()`` (outside it, ``get_lr`` warns)."""
    return _Flag(scheduler, "_get_lr_called_within_step")


def initial_mode(scheduler):
    """The block of the scheduler's first step, run by its constructor."""
    return _Flag(scheduler, "_is_initial")


def warn_outside_step(scheduler):
    """torch's warning for ``get_lr()`` called directly."""
    if not scheduler._get_lr_called_within_step:
        warn_for_user("To get the last learning rate computed by the scheduler, please use `get_last_lr()`.",
                      UserWarning)


def check_optimizer(optimizer):
    if not isinstance(optimizer, Optimizer):
        raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")


class LRScheduler:
    """Base class of learning-rate schedulers.

    Parameters
    ----------
    optimizer : Optimizer
        The optimizer whose groups' ``lr`` the scheduler sets.
    last_epoch : int
        The index of the last epoch when resuming (default -1: start; then every group
        needs the ``initial_lr`` a fresh scheduler records).
    """

    _get_lr_called_within_step = False
    _is_initial = False

    def __init__(self, optimizer, last_epoch=-1):
        check_optimizer(optimizer)
        self.optimizer = optimizer
        if last_epoch == -1:
            for group in optimizer.param_groups:
                group.setdefault("initial_lr", _copy(group["lr"]))
        else:
            for i, group in enumerate(optimizer.param_groups):
                if "initial_lr" not in group:
                    raise KeyError(
                        f"param 'initial_lr' is not specified in param_groups[{i}] when resuming scheduler with "
                        "last_epoch >= 0.\nThis typically happens when:\n1. You're trying to resume training from a "
                        "checkpoint but haven't properly loaded the optimizer state\n2. You're using last_epoch >= 0 "
                        "for a fresh training run (not recommended)")
        self.base_lrs = group_values(optimizer, "initial_lr")
        self.last_epoch = last_epoch
        _track_optimizer_steps(optimizer)
        self._initial_step()

    def _initial_step(self):
        """The constructor's step: sets the epoch-0 learning rates."""
        self._step_count = 0
        with initial_mode(self):
            self.step()

    def state_dict(self):
        """The scheduler's attributes except the optimizer."""
        return {key: value for key, value in self.__dict__.items() if key != "optimizer"}

    def load_state_dict(self, state_dict):
        """Restore attributes saved by ``state_dict()``."""
        self.__dict__.update(state_dict)

    def get_last_lr(self):
        """The learning rates of the groups set by the last ``step()``."""
        return self._last_lr

    def get_lr(self):
        """The learning rates of the current epoch (computed by ``step()``)."""
        raise NotImplementedError

    def step(self, epoch=None):
        """Advance one epoch (or jump to ``epoch``, deprecated) and set the groups' learning rates."""
        if self._step_count == 1:
            if not hasattr(self.optimizer.step, "_wrapped_by_lr_sched"):
                warn_for_user("Seems like `optimizer.step()` has been overridden after learning rate scheduler "
                              "initialization. Please, make sure to call `optimizer.step()` before "
                              "`lr_scheduler.step()`. See more details at "
                              "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate", UserWarning)
            elif not getattr(self.optimizer, "_opt_called", False):
                warn_for_user("Detected call of `lr_scheduler.step()` before `optimizer.step()`. In PyTorch 1.1.0 and "
                              "later, you should call them in the opposite order: `optimizer.step()` before "
                              "`lr_scheduler.step()`.  Failure to do this will result in PyTorch skipping the first "
                              "value of the learning rate schedule. See more details at "
                              "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate", UserWarning)
        self._step_count += 1
        if epoch is not None:
            warn_for_user(EPOCH_DEPRECATION_WARNING, UserWarning)
        self._update_lr(epoch)

    def _update_lr(self, epoch=None):
        with computing_lr(self):
            if epoch is None:
                self.last_epoch += 1
                lrs = self.get_lr()
            else:
                self.last_epoch = epoch
                closed_form = getattr(self, "_get_closed_form_lr", None)
                lrs = closed_form() if closed_form is not None else self.get_lr()
        groups = self.optimizer.param_groups
        if len(lrs) != len(groups):
            raise ValueError(f"{type(self).__name__}: get_lr() returned {len(lrs)} learning rates for "
                             f"{len(groups)} parameter groups")
        for group, lr in zip(groups, lrs):
            set_group_value(group, "lr", lr)
        self._last_lr = group_values(self.optimizer, "lr")


class _LRScheduler(LRScheduler):
    """The former name of :class:`LRScheduler`."""
