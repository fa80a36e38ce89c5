"""``torch.distributed.algorithms.join``: training on uneven inputs with the :class:`Join` context manager.

A process that runs out of inputs leaves the ``with`` body and, in :meth:`Join.__exit__`, keeps shadowing the
collectives the others still run (each :class:`Joinable`'s :class:`JoinHook` ``main_hook``) until every process
has joined; then each hook's ``post_hook`` runs.  Every iteration, a joinable still training calls
:meth:`Join.notify_join_context`, whose all-reduce of ones meets the joined processes' all-reduce of zeros: the
sum counts the processes that have not joined.
"""

import abc
import warnings

__all__ = ["Join", "JoinHook", "Joinable"]


class JoinHook:
    """What a joined process runs for one :class:`Joinable`: ``main_hook`` once per iteration the others still
    train, then ``post_hook(is_last_joiner)`` once every process has joined.  Both do nothing by default."""

    def main_hook(self):
        """Shadow one iteration's collectives of the processes still training."""

    def post_hook(self, is_last_joiner):
        """Run after every process joined; ``is_last_joiner`` is whether this process was among the last."""


class _JoinConfig:
    def __init__(self, enable, throw_on_early_termination, is_first_joinable):
        self.enable = enable
        self.throw_on_early_termination = throw_on_early_termination
        self.is_first_joinable = is_first_joinable

    @staticmethod
    def construct_disabled_join_config():
        return _JoinConfig(enable=False, throw_on_early_termination=False, is_first_joinable=False)


class Joinable(abc.ABC):
    """A class whose per-iteration collectives a :class:`Join` context can shadow (DDP, ZeroRedundancyOptimizer).

    Subclasses call ``Joinable.__init__`` and define :meth:`join_hook`, :attr:`join_device` and
    :attr:`join_process_group`.
    """

    @abc.abstractmethod
    def __init__(self):
        super().__init__()
        self._join_config = _JoinConfig.construct_disabled_join_config()

    @abc.abstractmethod
    def join_hook(self, **kwargs):
        """The :class:`JoinHook` that shadows this joinable's collectives (``kwargs`` from :class:`Join`)."""

    @property
    @abc.abstractmethod
    def join_device(self):
        """The device of the join context's own collectives."""

    @property
    @abc.abstractmethod
    def join_process_group(self):
        """The process group the joinable's collectives run on."""


class Join:
    """Context manager for uneven inputs: processes that finish early shadow the others' collectives.

    Parameters
    ----------
    joinables : list of Joinable
        Every joinable taking part (at least one; all on one process group and device).  The first one notifies
        the context each iteration.
    enable : bool
        ``False``: the context does nothing (inputs known to be even).
    throw_on_early_termination : bool
        Raise a RuntimeError on every process as soon as one runs out of inputs, instead of shadowing.
    **kwargs
        Passed to each joinable's ``join_hook`` (e.g. ``divide_by_initial_world_size`` for DDP).
    """

    def __init__(self, joinables, enable=True, throw_on_early_termination=False, **kwargs):
        if len(joinables) == 0:
            raise ValueError("The join context manager requires at least one joinable")
        self._joinables = joinables
        self._join_hooks = [joinable.join_hook(**kwargs) for joinable in joinables]
        self._enable = enable
        self._throw_on_early_termination = throw_on_early_termination
        for i, joinable in enumerate(joinables):
            joinable._join_config = _JoinConfig(enable, throw_on_early_termination, is_first_joinable=i == 0)
        self._process_group, self._device = None, None
        for joinable in joinables:
            group = joinable.join_process_group
            if self._process_group is None:
                self._process_group = group
            elif group is not self._process_group:
                raise ValueError("Using join context manager with multiple process groups")
            self._device = joinable.join_device
        from vfw.frontends.torch import distributed

        self._rank = distributed.get_rank(self._process_group)

    def __enter__(self):
        pass

    def __exit__(self, exc_type, exc_value, traceback):
        if not self._enable or exc_type is not None:
            return  # an exception in the body propagates; nothing is shadowed
        is_last_joiner, shadowed = True, 0
        while self._count_not_joined() > 0:
            if shadowed > 1000:
                warnings.warn(f"Detected uneven input skew of greater than 1000. This means that rank {self._rank} "
                              "has at least 1000 fewer inputs than other currently-active ranks. This level of skew "
                              "could lead to performance degradation during training.", stacklevel=2)
            if self._throw_on_early_termination:
                self._signal_termination()
            for hook in self._join_hooks:
                hook.main_hook()
            is_last_joiner = False
            shadowed += 1
        for hook in self._join_hooks:
            hook.post_hook(is_last_joiner)

    def _all_reduce_one(self, value):
        from vfw.frontends.torch import distributed
        from vfw.frontends.torch._creation import full

        flag = full((1,), float(value))
        distributed.all_reduce(flag, group=self._process_group)
        return flag.item()

    def _count_not_joined(self):
        # meets notify_join_context's all-reduce of ones on the processes still training
        return self._all_reduce_one(0)

    def _signal_termination(self):
        # meets notify_join_context's second all-reduce (of zeros) on the processes still training
        self._all_reduce_one(1)
        raise RuntimeError(f"Rank {self._rank} exhausted all inputs.")

    @staticmethod
    def notify_join_context(joinable):
        """Called by ``joinable`` once per iteration, before its collectives: tells the joined processes that this
        one has not joined (only the context's first joinable does it; ``None`` otherwise).

        Returns
        -------
        Work or None
            The async all-reduce that counts the processes not joined (DDP divides by it when
            ``divide_by_initial_world_size=False``).
        """
        if not hasattr(joinable, "_join_config"):
            raise AssertionError(f"Check that the {type(joinable)} constructor calls the ``Joinable`` constructor")
        config = joinable._join_config
        if not config.is_first_joinable or not config.enable:
            return None
        from vfw.frontends.torch import distributed
        from vfw.frontends.torch._creation import ones, zeros

        group = joinable.join_process_group
        count = ones(1)
        work = distributed.all_reduce(count, group=group, async_op=True)
        if config.throw_on_early_termination:
            flag = zeros(1)
            distributed.all_reduce(flag, group=group)
            if flag.item():
                raise RuntimeError("Detected at least one rank that exhausted inputs. Throwing across all ranks.")
        return work
