"""torch.distributed.distributed_c10d: the module torch defines ``init_process_group``, the collectives, ``ReduceOp``,
``group`` and ``GroupMember`` in; ``torch.distributed`` re-exports them.  Here they are the very objects of
:mod:`vfw.torch.distributed` (one implementation, one default group), plus a few helpers scripts import from here.
"""

from vfw.frontends.torch.distributed import (  # the same objects as torch.distributed's
    Backend,
    DebugLevel,
    GroupMember,
    P2POp,
    PrefixStore,
    ProcessGroup,
    ReduceOp,
    Store,
    Work,
    all_gather,
    all_gather_coalesced,
    all_gather_into_tensor,
    all_gather_object,
    all_gather_single,
    all_reduce,
    all_reduce_coalesced,
    all_to_all,
    all_to_all_single,
    barrier,
    batch_isend_irecv,
    broadcast,
    broadcast_object_list,
    default_pg_timeout,
    destroy_process_group,
    gather,
    gather_object,
    get_backend,
    get_backend_config,
    get_debug_level,
    get_default_backend_for_device,
    get_global_rank,
    get_group_rank,
    get_node_local_rank,
    get_pg_count,
    get_process_group_ranks,
    get_rank,
    get_world_size,
    group,
    init_process_group,
    irecv,
    is_backend_available,
    is_gloo_available,
    is_initialized,
    is_mpi_available,
    is_nccl_available,
    is_torchelastic_launched,
    is_ucc_available,
    is_xccl_available,
    isend,
    monitored_barrier,
    new_group,
    new_subgroups,
    new_subgroups_by_enumeration,
    recv,
    recv_object_list,
    reduce,
    reduce_scatter,
    reduce_scatter_single,
    reduce_scatter_tensor,
    scatter,
    scatter_object_list,
    send,
    send_object_list,
)
from vfw.frontends.torch.distributed._c10d import supports_complex  # noqa: F401  (torch has it here)

# torch's distributed_c10d.__all__, less the option classes and experimental APIs vfw lacks (they still raise
# "does not provide" when served).
__all__ = ["Backend", "DebugLevel", "GroupMember", "P2POp", "PrefixStore", "ProcessGroup", "ReduceOp", "Store",
           "Work", "all_gather", "all_gather_coalesced", "all_gather_into_tensor", "all_gather_object",
           "all_gather_single", "all_reduce", "all_reduce_coalesced", "all_to_all", "all_to_all_single", "barrier",
           "batch_isend_irecv", "broadcast", "broadcast_object_list", "default_pg_timeout",
           "destroy_process_group", "gather", "gather_object", "get_backend", "get_backend_config",
           "get_debug_level", "get_default_backend_for_device", "get_global_rank", "get_group_rank",
           "get_node_local_rank", "get_pg_count", "get_process_group_ranks", "get_rank", "get_world_size", "group",
           "init_process_group", "irecv", "is_backend_available", "is_gloo_available", "is_initialized",
           "is_mpi_available", "is_nccl_available", "is_torchelastic_launched", "is_ucc_available",
           "is_xccl_available", "isend", "monitored_barrier", "new_group", "new_subgroups",
           "new_subgroups_by_enumeration", "recv", "recv_object_list", "reduce", "reduce_scatter",
           "reduce_scatter_single", "reduce_scatter_tensor", "scatter", "scatter_object_list", "send",
           "send_object_list", "supports_complex"]


def _get_default_group():
    """The default process group; torch's ValueError before ``init_process_group``."""
    if GroupMember.WORLD is None:
        raise ValueError("Default process group has not been initialized, please make sure to call "
                         "init_process_group.")
    return GroupMember.WORLD


def _rank_not_in_group(group):
    """Whether this process is outside ``group`` (never, here: every group is the world group)."""
    return group is GroupMember.NON_GROUP_MEMBER
