"""``ZeroRedundancyOptimizer``: each process keeps the optimizer state of its shard of the parameters only.

The parameters are split over the processes (largest first, each to the process holding the fewest elements so
far, as torch's partition).  ``step()`` runs a local optimizer over this process's shard, then every process
broadcasts its shard's new values, so every replica ends the step with the same parameters (the gradients must
already be the same everywhere, e.g. averaged by DDP).  ``consolidate_state_dict(to)`` gathers the shards'
states on one process, whose ``state_dict()`` is then the whole optimizer's state (indexed as a plain
optimizer's over every parameter).
"""

import itertools

from vfw.core.tensor import Tensor as CoreTensor
from vfw.frontends.torch import _dispatch
from vfw.frontends.torch.distributed._c10d import resolve_group
from vfw.frontends.torch.distributed.algorithms.join import Join, Joinable, JoinHook
from vfw.frontends.torch.optim.optimizer import Optimizer

__all__ = ["ZeroRedundancyOptimizer"]


def _typename(value):
    from vfw.frontends.torch._config import typename

    return typename(value)


class _ZeROJoinHook(JoinHook):
    """A joined process keeps stepping (its shard still has to be broadcast to the others)."""

    def __init__(self, zero):
        if not isinstance(zero, ZeroRedundancyOptimizer):
            raise AssertionError("ZeRO join hook requires passing in a ZeroRedundancyOptimizer instance as the state")
        self.zero = zero

    def main_hook(self):
        self.zero.step()


class ZeroRedundancyOptimizer(Optimizer, Joinable):
    """Wrap ``optimizer_class`` so that each process holds the state of its shard of ``params`` only.

    Parameters
    ----------
    params : iterable of Tensor or of dict
        The parameters (or parameter groups), the same on every process.
    optimizer_class : type
        The local optimizer (e.g. ``torch.optim.Adam``), built over this process's shard with ``**defaults``.
    process_group : ProcessGroup, optional
        The default group when ``None``.
    parameters_as_bucket_view : bool
        Accepted: the shards are broadcast parameter by parameter either way (the same values).
    overlap_with_ddp : bool
        Not provided (``True`` raises NotImplementedError).
    **defaults
        The local optimizer's hyperparameters (``lr=...``).
    """

    def __init__(self, params, optimizer_class, process_group=None, parameters_as_bucket_view=False,
                 overlap_with_ddp=False, **defaults):
        params = self._verify_and_init_params(params)
        self._verify_same_dense_param_type()
        if overlap_with_ddp:
            raise NotImplementedError("vfw does not provide ZeroRedundancyOptimizer(overlap_with_ddp=True) yet: step "
                                      "it after backward instead")
        self.initialized = False
        self._partition_parameters_cache = []
        Optimizer.__init__(self, params, defaults)
        Joinable.__init__(self)
        self.process_group = resolve_group(process_group, "ZeroRedundancyOptimizer")
        self.world_size = self.process_group.size()
        self.rank = self.process_group.rank()
        self.global_rank = self.process_group.ranks[self.rank]  # (differs from rank in a subgroup)
        self._overlap_with_ddp = False
        self._optim_defaults = defaults
        self._optim_constructor = optimizer_class
        self.optim = optimizer_class(self._partition_parameters()[self.rank], **defaults)
        self._sync_param_groups(self.optim.param_groups, self.param_groups)
        self.parameters_as_bucket_view = parameters_as_bucket_view
        self._all_state_dicts = []
        self.initialized = True

    # -- arguments -------------------------------------------------------------------------------------------
    def _verify_and_init_params(self, params):
        if isinstance(params, CoreTensor):
            raise TypeError(f"`params` argument should be an iterable of Tensors, but got {_typename(params)}")
        try:
            all_params = list(params)
        except TypeError as e:
            raise TypeError(f"`params` argument should be an iterable of Tensors or dicts, but got "
                            f"{_typename(params)}") from e
        if not all_params:
            raise ValueError("ZeroRedundancyOptimizer got an empty parameter list")
        if all(isinstance(p, CoreTensor) for p in all_params):
            self._all_params = all_params
        elif all(isinstance(p, dict) for p in all_params):
            self._all_params = []
            for group in all_params:
                if "params" not in group:
                    raise ValueError("Each parameter group passed-in via `params` must have a 'params' key mapping to "
                                     "the parameters in the group")
                self._all_params.extend(group["params"])
        else:
            raise TypeError("`params` argument should be an iterable of Tensors or dicts")
        return all_params

    def _verify_same_dense_param_type(self):
        first = _typename(self._all_params[0])
        for p in self._all_params[1:]:
            other = _typename(p)
            if other != first:
                raise ValueError(f"ZeroRedundancyOptimizer only supports using the same dense type for all parameters "
                                 f"but got both {first} and {other}")

    # -- the partition ---------------------------------------------------------------------------------------
    def _clear_cache(self):
        self._partition_parameters_cache = []

    def _partition_parameters(self, params_per_rank=None):
        """Each rank's parameter groups: copies of the groups holding that rank's shard (every rank's list, the
        same on every process).  ``params_per_rank`` gives the shards explicitly (one group only)."""
        if params_per_rank is None:
            if not self._partition_parameters_cache:
                self._partition_parameters_cache = [[] for _ in range(self.world_size)]
                sizes = [0] * self.world_size
                for group in self.param_groups:
                    shards = [[] for _ in range(self.world_size)]
                    # largest first, each to the rank holding the fewest elements so far (the lowest on a tie)
                    for p in sorted(group["params"], key=lambda t: t.numel(), reverse=True):
                        rank = sizes.index(min(sizes))
                        shards[rank].append(p)
                        sizes[rank] += p.numel()
                    self._partition_param_group(group, shards)
            return self._partition_parameters_cache
        if self._partition_parameters_cache:
            raise AssertionError("Specifying `params_per_rank` should only be done when the parameters have not been "
                                 "partitioned yet")
        if len(self.param_groups) != 1:
            raise RuntimeError("Specifying `params_per_rank` only supports a single parameter group")
        if len(params_per_rank) != self.world_size:
            raise ValueError("`params_per_rank` must have length equal to the world size")
        known = {id(p) for p in self._all_params}
        if any(id(p) not in known for shard in params_per_rank for p in shard):
            raise ValueError("Passing a new parameter in `params_per_rank` that was not passed into the "
                             "ZeroRedundancyOptimizer constructor")
        self._partition_parameters_cache = [[] for _ in range(self.world_size)]
        self._partition_param_group(self.param_groups[0], params_per_rank)
        return self._partition_parameters_cache

    def _partition_param_group(self, param_group, params_per_rank):
        for rank, params in enumerate(params_per_rank):
            shard_group = dict(param_group)
            shard_group["params"] = list(params)
            self._partition_parameters_cache[rank].append(shard_group)

    @property
    def _param_to_rank(self):
        return {p: rank for rank, groups in enumerate(self._partition_parameters()) for g in groups
                for p in g["params"]}

    @property
    def _index_to_param(self):
        return list(itertools.chain.from_iterable(g["params"] for g in self.param_groups))

    @property
    def _param_to_index(self):
        return {p: i for i, p in enumerate(self._index_to_param)}

    def add_param_group(self, param_group):
        """Add a parameter group on every process (call it on all of them): the shards are recomputed and this
        process's local optimizer gets its share of the new group."""
        super().add_param_group(param_group)
        if self.initialized:
            self._clear_cache()
            groups = self._partition_parameters()[self.rank]
            if len(groups) == len(self.optim.param_groups) + 1:
                self.optim.add_param_group(groups[-1])

    @staticmethod
    def _sync_param_groups(src_param_groups, dst_param_groups):
        """Copy every hyperparameter (all but ``params``) of ``src_param_groups`` into ``dst_param_groups``."""
        if len(src_param_groups) != len(dst_param_groups):
            raise AssertionError("Mismatch between number of source and destination parameter groups")
        for src, dst in zip(src_param_groups, dst_param_groups):
            for key in src:
                if key != "params":
                    dst[key] = src[key]

    # -- stepping ---------------------------------------------------------------------------------------------
    def step(self, closure=None, **kwargs):
        """Step the local optimizer over this process's shard, then give every process every shard's new values.

        Returns the closure's loss (if any).  Hyperparameters changed in :attr:`param_groups` (by a scheduler)
        apply to the local optimizer.
        """
        Join.notify_join_context(self)
        self._sync_param_groups(self.param_groups, self.optim.param_groups)
        loss = self.optim.step(**kwargs) if closure is None else self.optim.step(closure=closure, **kwargs)
        self._sync_param_groups(self.optim.param_groups, self.param_groups)
        self._sync_params()
        return loss

    def _sync_params(self):
        engine = self.process_group.engine
        for rank, groups in enumerate(self._partition_parameters()):
            for group in groups:
                for p in group["params"]:
                    # writes the parameter's memory beneath autograd (torch broadcasts ``param.data``)
                    engine.broadcast(p.array, rank)

    # -- Joinable ---------------------------------------------------------------------------------------------
    def join_hook(self, **kwargs):
        """The hook a joined process runs: it keeps stepping, so that its shard is still broadcast."""
        return _ZeROJoinHook(self)

    @property
    def join_device(self):
        from vfw.frontends.torch._device import device

        return device("cpu")

    @property
    def join_process_group(self):
        return self.process_group

    # -- state dicts ------------------------------------------------------------------------------------------
    def consolidate_state_dict(self, to=0):
        """Gather every shard's optimizer state on rank ``to`` (call it on every process), for
        :meth:`state_dict` there."""
        self._sync_param_groups(self.param_groups, self.optim.param_groups)
        engine = self.process_group.engine
        self._all_state_dicts = []
        for rank in range(self.world_size):
            if rank == to:
                if self.rank == to:
                    self._all_state_dicts.append(self.optim.state_dict())
                continue
            sent = engine.broadcast_object(self.optim.state_dict() if rank == self.rank else None, rank)
            if self.rank == to:
                self._all_state_dicts.append(sent)

    def state_dict(self):
        """The whole optimizer's state, indexed over every parameter as a plain optimizer's (only where
        :meth:`consolidate_state_dict` gathered it; a RuntimeError elsewhere)."""
        if not self._all_state_dicts:
            raise RuntimeError(f"Optimizer state has not been consolidated on this rank. Please call "
                               f"`consolidate_state_dict(to={self.rank})` on all ranks beforehand if you meant to "
                               "save the global state.")
        state_dict = super().state_dict()
        index = self._param_to_index
        for local, shard_groups in zip(self._all_state_dicts, self._partition_parameters()):
            for local_group, shard_group in zip(local["param_groups"], shard_groups):
                for local_index, p in zip(local_group["params"], shard_group["params"]):
                    if local_index in local["state"]:
                        state_dict["state"][index[p]] = local["state"][local_index]
        state_dict["state"] = dict(sorted(state_dict["state"].items()))
        return state_dict

    def load_state_dict(self, state_dict):
        """Load a :meth:`state_dict`: this process's local optimizer takes the state of its shard's parameters
        (the entries of other shards are set to ``None`` in ``state_dict``, as torch does)."""
        owners, params = self._param_to_rank, self._index_to_param
        for index, value in state_dict["state"].items():
            p = params[index]
            if owners[p] != self.rank:
                state_dict["state"][index] = None
            else:
                self.optim.state[p] = {k: _dispatch.as_torch(v) if isinstance(v, CoreTensor) else v
                                       for k, v in value.items()}
        super().load_state_dict(state_dict)
        self._sync_param_groups(state_dict["param_groups"], self.param_groups)
        self._sync_param_groups(self.param_groups, self.optim.param_groups)


def _name_as_torch():
    # loaded on first import, after vfw.torch named its classes as torch's: name this one the same way
    from vfw.frontends.torch import _type_names

    for cls in (ZeroRedundancyOptimizer, _ZeROJoinHook):
        _type_names.rename(cls, "torch.distributed.optim.zero_redundancy_optimizer", cls.__qualname__)


_name_as_torch()
