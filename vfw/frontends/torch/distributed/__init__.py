"""torch.distributed over MPI: one process group of every process an MPI launcher started.

Backends ``"mpi"`` and ``"gloo"`` (CPU) are both served by MPI through vfw's engine process group
(:mod:`vfw.core.distributed`).  Start the processes with ``python -m vfw.distributed.run --nproc N
script.py`` (torchrun's variables are set) or ``mpirun -n N python script.py``; the rendezvous is MPI's, so
``MASTER_ADDR``/``MASTER_PORT`` and ``init_method`` URLs are accepted but not needed, and ``RANK`` /
``WORLD_SIZE`` (from the environment or the arguments) must agree with MPI's.
"""

import datetime

from vfw.core import distributed as _engine
from vfw.core.distributed import DistributedError
from vfw.frontends.torch import _dispatch
from vfw.frontends.torch.autograd.grad_mode import no_grad
from vfw.frontends.torch.distributed._c10d import (
    Backend,
    GroupMember,
    ProcessGroup,
    ReduceOp,
    Work,
    default_group,
    resolve_group,
)

__all__ = ["Backend", "GroupMember", "ProcessGroup", "ReduceOp", "Work", "all_gather", "all_gather_into_tensor",
           "all_gather_object", "all_reduce", "barrier", "broadcast", "broadcast_object_list", "destroy_process_group",
           "get_backend", "get_rank", "get_world_size", "init_process_group", "irecv", "is_available",
           "is_gloo_available", "is_initialized", "is_mpi_available", "is_nccl_available", "isend", "new_group", "recv",
           "reduce", "reduce_scatter", "reduce_scatter_tensor", "send", "group"]


def is_available():
    """True: the package exists (MPI itself is loaded by :func:`init_process_group`)."""
    return True


def is_mpi_available():
    """Whether mpi4py is installed."""
    return _engine.available()


is_gloo_available = is_mpi_available


def is_nccl_available():
    """False: vfw runs on the CPU."""
    return False


def is_initialized():
    """Whether the default process group has been initialized."""
    return default_group() is not None


def init_process_group(backend=None, init_method=None, timeout=None, world_size=-1, rank=-1, store=None,
                       group_name="", pg_options=None, device_id=None):
    """Join the default process group: every process the MPI launcher started.

    Parameters
    ----------
    backend : str, optional
        ``"mpi"`` or ``"gloo"`` (both MPI here; default ``"gloo"``, torch's CPU default).
    init_method : str, optional
        ``"env://"`` (default: ``WORLD_SIZE``/``RANK`` read from the environment when set), ``"tcp://..."``
        or ``"file://..."``: accepted, MPI does the rendezvous.
    timeout : datetime.timedelta, optional
        How long a collective may take before the job is aborted (default 30 minutes, or
        ``VFW_DISTRIBUTED_TIMEOUT`` seconds).
    world_size, rank : int
        When given (or set in the environment), they must match what MPI started.
    store : Store, optional
        Accepted with ``rank`` and ``world_size`` (both required, as in torch); MPI does the rendezvous.
    """
    import os

    if is_initialized():
        raise ValueError("trying to initialize the default process group twice!")
    name = Backend(backend or "gloo")
    if store is not None and init_method is not None:
        raise ValueError("Cannot specify both init_method and store.")
    if store is not None:  # torch's checks; MPI still does the rendezvous, the store stays the caller's
        if world_size <= 0:
            raise AssertionError("world_size must be positive if using store")
        if rank < 0:
            raise AssertionError("rank must be non-negative if using store")
    if init_method is None or init_method.startswith("env://"):
        world_size = int(os.environ["WORLD_SIZE"]) if world_size == -1 and "WORLD_SIZE" in os.environ else world_size
        rank = int(os.environ["RANK"]) if rank == -1 and "RANK" in os.environ else rank
    seconds = None
    if timeout is not None:
        if not isinstance(timeout, datetime.timedelta):
            raise TypeError(f"Expected timeout argument to be of type datetime.timedelta, got {type(timeout).__name__}")
        seconds = timeout.total_seconds()
    try:
        engine_group = _engine.init(timeout=seconds, world_size=None if world_size == -1 else world_size,
                                    rank=None if rank == -1 else rank)
    except DistributedError as e:
        raise RuntimeError(str(e)) from None
    GroupMember.WORLD = ProcessGroup(engine_group, str(name))


def destroy_process_group(group=None):
    """Leave the default process group (``group``: it or ``None``; other groups are the world group here)."""
    pg = default_group()
    if pg is None:
        raise ValueError("Default process group has not been initialized, please make sure to call "
                         "init_process_group.")
    if group is None or group is pg:
        pg.engine.destroy()
        GroupMember.WORLD = None


def new_group(ranks=None, timeout=None, backend=None, pg_options=None, use_local_synchronization=False,
              group_desc=None, device_id=None):
    """A group of ``ranks``: only the whole world is supported (``None`` or every rank)."""
    pg = resolve_group(None, "new_group")
    if ranks is not None and sorted(ranks) != list(range(pg.size())):
        raise ValueError(f"new_group: vfw supports only the group of all ranks (0..{pg.size() - 1}), got ranks "
                         f"{list(ranks)}")
    return pg


def get_rank(group=None):
    """This process's rank in ``group`` (the default group when ``None``)."""
    return resolve_group(group, "get_rank").rank()


def get_world_size(group=None):
    """The number of processes in ``group``."""
    return resolve_group(group, "get_world_size").size()


def get_backend(group=None):
    """The backend name the group was created with (``"gloo"`` or ``"mpi"``)."""
    return resolve_group(group, "get_backend").backend


# -- collectives on tensors -------------------------------------------------------------------------------------
def _write(tensor, array):
    """Put ``array`` into ``tensor``'s memory in place (as torch's collectives do: no autograd history)."""
    with no_grad():
        _dispatch.assign(tensor, _dispatch.wrap(array), "torch.distributed")


def _in_place(tensor, name, eager, traced):
    """Run a collective that overwrites ``tensor``: ``eager(array)`` writes into the array directly; in a
    trace, ``traced(tensor)`` returns the engine op's result, written back so the graph replays it."""
    _check_tensor(tensor, name, "tensor")
    if _dispatch._tracing:
        with no_grad():
            _dispatch.assign(tensor, traced(tensor), name)
    else:
        _dispatch.check_writeable(tensor, name)
        eager(tensor.array)
        _dispatch.bump_version(tensor)


def _check_tensor(tensor, name, argument):
    from vfw.frontends.torch._tensor import Tensor

    if not isinstance(tensor, Tensor):
        raise TypeError(f"Invalid function argument. Expected parameter `{argument}` of type torch.Tensor\n"
                        f"             but got {type(tensor)} instead.")


def all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduce ``tensor`` over all processes, in place; every process gets the result."""
    pg, reduction = resolve_group(group, "all_reduce"), ReduceOp.engine_name(op)
    _in_place(tensor, "all_reduce", lambda a: pg.engine.all_reduce(a, reduction, out=a),
              lambda t: _dispatch.call("AllReduce", t, reduction=reduction, group=pg.engine.group_id))
    return Work([tensor]) if async_op else None


def reduce(tensor, dst=None, op=ReduceOp.SUM, group=None, async_op=False, group_dst=None):
    """Reduce ``tensor`` onto rank ``dst`` (here every rank gets the reduced value: an all-reduce)."""
    pg = resolve_group(group, "reduce")
    pg.check_rank(dst if dst is not None else group_dst if group_dst is not None else 0, "reduce", "dst")
    return all_reduce(tensor, op, group, async_op)


def broadcast(tensor, src=None, group=None, async_op=False, group_src=None):
    """Overwrite ``tensor`` with rank ``src``'s, on every process."""
    pg = resolve_group(group, "broadcast")
    root = pg.check_rank(src if src is not None else group_src if group_src is not None else 0, "broadcast", "src")
    _in_place(tensor, "broadcast", lambda a: pg.engine.broadcast(a, root),
              lambda t: _dispatch.call("Broadcast", t, root=root, group=pg.engine.group_id))
    return Work([tensor]) if async_op else None


def _gathered(pg, tensor, name):
    _check_tensor(tensor, name, "tensor")
    if _dispatch._tracing:
        return _dispatch.call("AllGather", tensor, group=pg.engine.group_id).array
    return pg.engine.all_gather(tensor.array)


def all_gather(tensor_list, tensor, group=None, async_op=False):
    """Fill ``tensor_list`` (one tensor per rank) with every process's ``tensor``."""
    pg = resolve_group(group, "all_gather")
    if len(tensor_list) != pg.size():
        raise ValueError(f"all_gather: tensor_list must hold world_size={pg.size()} tensors, got {len(tensor_list)}")
    stacked = _gathered(pg, tensor, "all_gather")
    for out, part in zip(tensor_list, stacked):
        _write(out, part)
    return Work(tensor_list) if async_op else None


def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op=False):
    """Every process's ``input_tensor`` concatenated along dim 0 into ``output_tensor`` (or stacked, by its shape)."""
    pg = resolve_group(group, "all_gather_into_tensor")
    stacked = _gathered(pg, input_tensor, "all_gather_into_tensor")
    if stacked.size != output_tensor.array.size:
        raise RuntimeError(f"all_gather_into_tensor: output tensor of shape {list(output_tensor.array.shape)} "
                           f"cannot hold {pg.size()} tensors of shape {list(input_tensor.array.shape)}")
    _write(output_tensor, stacked.reshape(output_tensor.array.shape))
    return Work([output_tensor]) if async_op else None


def reduce_scatter_tensor(output, input, op=ReduceOp.SUM, group=None, async_op=False):
    """``input`` (dim 0 = world_size * output's) reduced over all processes; rank ``r`` gets the ``r``-th chunk."""
    pg, reduction = resolve_group(group, "reduce_scatter_tensor"), ReduceOp.engine_name(op)
    _check_tensor(input, "reduce_scatter_tensor", "input")
    if output.array.ndim == 0 or input.array.shape[:1] != (output.array.shape[0] * pg.size(),):
        raise RuntimeError(f"reduce_scatter_tensor: input of shape {list(input.array.shape)} must have world_size="
                           f"{pg.size()} times the output's first dimension (output shape "
                           f"{list(output.array.shape)})")
    if _dispatch._tracing:
        part = _dispatch.call("ReduceScatter", input, reduction=reduction, group=pg.engine.group_id).array
    else:
        part = pg.engine.reduce_scatter(input.array, reduction)
    _write(output, part)
    return Work([output]) if async_op else None


def reduce_scatter(output, input_list, op=ReduceOp.SUM, group=None, async_op=False):
    """The ``rank``-th of the element-wise reductions of every process's ``input_list``, into ``output``."""
    pg = resolve_group(group, "reduce_scatter")
    if len(input_list) != pg.size():
        raise ValueError(f"reduce_scatter: input_list must hold world_size={pg.size()} tensors, got "
                         f"{len(input_list)}")
    from vfw.frontends.torch._joining import cat

    return reduce_scatter_tensor(output, cat([t.reshape(-1) for t in input_list]).reshape(
        (pg.size(),) + tuple(output.array.shape)), op, group, async_op)


def barrier(group=None, async_op=False, device_ids=None):
    """Wait until every process of the group reaches the barrier."""
    resolve_group(group, "barrier").engine.barrier()
    return Work([]) if async_op else None


def send(tensor, dst=None, group=None, tag=0, group_dst=None):
    """Send ``tensor`` to rank ``dst`` (blocking)."""
    pg = resolve_group(group, "send")
    dst = pg.check_rank(dst if dst is not None else group_dst, "send", "dst")
    if dst == pg.rank():
        raise ValueError("Invalid destination rank: destination rank should not be the same as the rank of the "
                         "current process.")
    _check_tensor(tensor, "send", "tensor")
    pg.engine.send(tensor.array, dst, tag)


def recv(tensor, src=None, group=None, tag=0, group_src=None):
    """Receive into ``tensor`` from rank ``src`` (any rank when ``None``); returns the sender's rank."""
    pg = resolve_group(group, "recv")
    src = src if src is not None else group_src
    if src is not None:
        pg.check_rank(src, "recv", "src")
    _check_tensor(tensor, "recv", "tensor")
    _dispatch.check_writeable(tensor, "recv")
    sender = pg.engine.recv(tensor.array, src, tag)
    _dispatch.bump_version(tensor)
    return sender


def isend(tensor, dst=None, group=None, tag=0, group_dst=None):
    """:func:`send`, returning a completed :class:`Work` (MPI's eager protocol hands small messages over at once)."""
    send(tensor, dst, group, tag, group_dst)
    return Work([tensor])


def irecv(tensor, src=None, group=None, tag=0, group_src=None):
    """:func:`recv`, returning a completed :class:`Work`."""
    recv(tensor, src, group, tag, group_src)
    return Work([tensor])


def all_gather_object(object_list, obj, group=None):
    """Fill ``object_list`` (world_size entries) with every process's picklable ``obj``."""
    pg = resolve_group(group, "all_gather_object")
    if len(object_list) != pg.size():
        raise ValueError(f"all_gather_object: object_list must have world_size={pg.size()} entries, got "
                         f"{len(object_list)}")
    object_list[:] = pg.engine.all_gather_object(obj)


def broadcast_object_list(object_list, src=None, group=None, device=None, group_src=None):
    """Overwrite ``object_list`` with rank ``src``'s list of picklable objects."""
    pg = resolve_group(group, "broadcast_object_list")
    root = pg.check_rank(src if src is not None else group_src if group_src is not None else 0,
                         "broadcast_object_list", "src")
    object_list[:] = pg.engine.broadcast_object(list(object_list), root)


# torch.distributed.group (``group.WORLD``), and the rest of torch.distributed (imported last: they use the helpers
# above).
from vfw.frontends.torch.distributed import (  # noqa: E402,F401  (algorithms: torch.distributed.algorithms)
    _collectives_more,
    _grad_bucket,
    _groups,
    _store,
    algorithms,
    device_mesh,
)
from vfw.frontends.torch.distributed._c10d import group  # noqa: E402
from vfw.frontends.torch.distributed._collectives_more import *  # noqa: E402,F401,F403
from vfw.frontends.torch.distributed._grad_bucket import GradBucket  # noqa: E402,F401
from vfw.frontends.torch.distributed._groups import *  # noqa: E402,F401,F403
from vfw.frontends.torch.distributed._store import *  # noqa: E402,F401,F403
from vfw.frontends.torch.distributed.device_mesh import DeviceMesh, init_device_mesh  # noqa: E402,F401

__all__ += _collectives_more.__all__ + _grad_bucket.__all__ + _groups.__all__ + _store.__all__ + device_mesh.__all__
