"""torch.distributed's group and environment utilities, debug levels and exception classes.

A group's ranks are its members' global ranks in sorted order (group rank ``k`` is the ``k``-th smallest); a
process outside a group holds torch's ``GroupMember.NON_GROUP_MEMBER`` (-100) for it.
"""

import datetime
import enum
import os

from vfw.frontends.torch.distributed import _c10d
from vfw.frontends.torch.distributed._c10d import Backend, GroupMember, not_member, pg_count, resolve_group

__all__ = ["DebugLevel", "DistBackendError", "DistError", "DistNetworkError", "DistStoreError", "QueueEmptyError",
           "default_pg_timeout", "get_backend_config", "get_debug_level", "get_default_backend_for_device",
           "get_global_rank", "get_group_rank", "get_node_local_rank", "get_pg_count", "get_process_group_ranks",
           "is_backend_available", "is_torchelastic_launched", "is_ucc_available", "is_xccl_available",
           "new_subgroups", "new_subgroups_by_enumeration", "set_debug_level", "set_debug_level_from_env"]

default_pg_timeout = datetime.timedelta(seconds=1800)
"""The default timeout of a process group's collectives (30 minutes)."""


class DistError(RuntimeError):
    """A failure in torch.distributed."""


class DistBackendError(DistError):
    """A failure of a collective backend."""


class DistNetworkError(DistError):
    """A network failure."""


class DistStoreError(DistError):
    """A store failure (e.g. a wait that timed out)."""


class QueueEmptyError(DistStoreError):
    """``queue_pop`` on an empty store queue that did not fill in time."""


class _PlainClassRepr(enum.EnumMeta):
    def __repr__(cls):  # torch's DebugLevel is a pybind11 enum: its class prints as a plain class
        return type.__repr__(cls)


class DebugLevel(enum.IntEnum, metaclass=_PlainClassRepr):
    """torch.distributed's debug levels (``TORCH_DISTRIBUTED_DEBUG``); ``int(level)`` is its value, as torch's."""

    __str__ = enum.Enum.__str__

    OFF = 0
    INFO = 1
    DETAIL = 2


_debug = {"level": DebugLevel.OFF}


def get_debug_level():
    """The current :class:`DebugLevel`."""
    return _debug["level"]


def set_debug_level(level):
    """Set the :class:`DebugLevel`."""
    if not isinstance(level, DebugLevel):
        raise TypeError(f"set_debug_level(): expected a DebugLevel, got {type(level).__name__}")
    _debug["level"] = level


def set_debug_level_from_env():
    """Set the debug level from ``TORCH_DISTRIBUTED_DEBUG`` (OFF, INFO or DETAIL; OFF when unset)."""
    value = os.environ.get("TORCH_DISTRIBUTED_DEBUG", "OFF").upper()
    if value not in DebugLevel.__members__:
        raise ValueError(f"The value of TORCH_DISTRIBUTED_DEBUG must be OFF, INFO, or DETAIL, but got {value!r}")
    _debug["level"] = DebugLevel[value]


def get_process_group_ranks(group):
    """The global ranks of ``group``'s members, in group-rank order."""
    if not_member(group):  # torch files every group a process was left out of under one key: the latest's ranks
        return list(_c10d._registry["outside"])
    pg = resolve_group(group, "get_process_group_ranks")
    if not pg.is_registered():  # torch looks the destroyed group up in its map
        raise KeyError(pg)
    return list(pg.ranks)


def _rank_map(group, name):
    """``(global ranks in group-rank order, the group's name in torch's messages)``."""
    if group is None or group is GroupMember.WORLD:
        return None, None
    if not_member(group):
        return _c10d._registry["outside"], group
    pg = resolve_group(group, name)
    if not pg.is_registered():
        raise ValueError(f"Group {pg} is not registered, please create group with torch.distributed.new_group API")
    return pg.ranks, pg


def get_global_rank(group, group_rank):
    """The global rank of ``group``'s rank ``group_rank``."""
    ranks, pg = _rank_map(group, "get_global_rank")
    if ranks is None:  # the world: the same number
        return group_rank
    if not 0 <= group_rank < len(ranks):
        raise ValueError(f"Group rank {group_rank} is not part of group {pg}")
    return ranks[group_rank]


def get_group_rank(group, global_rank):
    """``global_rank``'s rank within ``group``."""
    ranks, pg = _rank_map(group, "get_group_rank")
    if ranks is None:
        return global_rank
    if global_rank not in ranks:
        raise ValueError(f"Global rank {global_rank} is not part of group {pg}")
    return ranks.index(global_rank)


def get_node_local_rank(fallback_rank=None):
    """This process's rank on its machine (``LOCAL_RANK``), else ``fallback_rank``."""
    if "LOCAL_RANK" in os.environ:
        return int(os.environ["LOCAL_RANK"])
    if fallback_rank is not None:
        return int(fallback_rank)
    raise RuntimeError("LOCAL_RANK is not in the environment. Consider passing fallback_rank to allow "
                       "`get_node_local_rank` to work, assuming you are not running in a multi-device context and "
                       "want the code to run locally instead.")


def is_torchelastic_launched():
    """Whether torchelastic (torchrun) started this process (it sets ``TORCHELASTIC_RUN_ID``)."""
    return os.getenv("TORCHELASTIC_RUN_ID") is not None


def is_backend_available(backend):
    """Whether ``backend`` can serve process groups here (``gloo``/``mpi``, when mpi4py is installed)."""
    from vfw.core import distributed as engine

    return backend.lower() in Backend._SERVED and engine.available()


def is_ucc_available():
    """False: vfw's backends are served by MPI."""
    return False


is_xccl_available = is_ucc_available


def get_pg_count():
    """How many process groups this process created since the default group (which counts; destroyed groups do
    too, as in torch)."""
    return pg_count()


def get_backend_config(group=None):
    """The group's backend per device type, as torch writes it (``"cpu:gloo,cuda:gloo"``)."""
    if not_member(group):
        raise ValueError("Invalid process group specified")
    backend = resolve_group(group, "get_backend_config").backend
    return f"cpu:{backend},cuda:{backend}"


def get_default_backend_for_device(device):
    """The default backend for ``device``'s type: ``"gloo"`` for the CPU (CUDA's ``"nccl"`` needs devices)."""
    kind = str(getattr(device, "type", device)).split(":")[0]
    defaults = {"cpu": "gloo", "cuda": "nccl", "xpu": "xccl", "mps": "gloo", "meta": "gloo"}
    if kind not in defaults:
        raise ValueError(f"Default backend not registered for device : {device}")
    return defaults[kind]


def new_subgroups(group_size=None, group=None, timeout=None, backend=None, pg_options=None, group_desc=None):
    """``(this rank's subgroup, every subgroup)``: ``group``'s ranks cut into consecutive runs of ``group_size``
    (torch's default size, one machine's GPUs, needs CUDA)."""
    if group_size is None:
        raise ValueError("Default group size only takes effect when CUDA is available.If your subgroup using a "
                         "backend that does not depend on CUDA,please pass in 'group_size' correctly.")
    if group_size <= 0:
        raise ValueError(f"The arg 'group_size' ({group_size}) must be positive")
    from vfw.frontends.torch.distributed import get_world_size

    world_size = get_world_size(group)
    if world_size < group_size:
        raise ValueError(f"The arg 'group_size' ({group_size}) must not exceed the world size ({world_size})")
    if world_size % group_size:
        raise ValueError(f"The world size ({world_size}) must be divisible by 'group_size={group_size}'")
    ranks = get_process_group_ranks(group)
    return new_subgroups_by_enumeration([ranks[k:k + group_size] for k in range(0, len(ranks), group_size)],
                                        timeout, backend, pg_options, group_desc)


def new_subgroups_by_enumeration(ranks_per_subgroup_list, timeout=None, backend=None, pg_options=None,
                                 group_desc=None):
    """``(this rank's subgroup, every subgroup)`` for the listed rank sets (disjoint; this rank's subgroup is
    ``None`` when no set holds it).  Every process must call it, as ``new_group``."""
    from vfw.frontends.torch.distributed import get_rank, new_group

    if not ranks_per_subgroup_list:
        raise ValueError("The arg 'ranks_per_subgroup_list' cannot be empty")
    subgroups, mine, seen = [], None, {}
    for ranks in ranks_per_subgroup_list:
        subgroup = new_group(ranks, timeout, backend, pg_options, group_desc=group_desc)
        subgroups.append(subgroup)
        for rank in ranks:  # checked after the group is made, as torch (whose members then have it)
            if rank in seen:
                raise ValueError(f"Rank {rank} has appeared in both subgroup {seen[rank]} and {ranks}")
            seen[rank] = ranks
            if rank == get_rank():
                mine = subgroup
    return mine, subgroups
