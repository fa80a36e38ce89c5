"""torch.distributed over MPI: one process group of every process an MPI launcher started.

Backends ``"mpi"`` and ``"gloo"`` (CPU) are both served by MPI through vfw's engine process group
(:mod:`vfw.core.distributed`).  Start the processes with ``python -m vfw.distributed.run --nproc N
script.py`` (torchrun's variables are set) or ``mpirun -n N python script.py``; the rendezvous is MPI's, so
``MASTER_ADDR``/``MASTER_PORT`` and ``init_method`` URLs are accepted but not needed, and ``RANK`` /
``WORLD_SIZE`` (from the environment or the arguments) must agree with MPI's.
"""

import datetime

import numpy as np

from vfw.core import distributed as _engine
from vfw.core.distributed import DistributedError, divide_by
from vfw.core.distributed.mpi import launcher_environment
from vfw.frontends.torch import _dispatch
from vfw.frontends.torch.autograd.grad_mode import no_grad
from vfw.frontends.torch.distributed import _c10d
from vfw.frontends.torch.distributed._c10d import (
    Backend,
    GroupMember,
    ProcessGroup,
    ReduceOp,
    Work,
    default_group,
    not_member,
    resolve_group,
    skip_outside,
    supports_complex,
)
from vfw.frontends.torch.distributed._fingerprint import check_agree

__all__ = ["Backend", "GroupMember", "ProcessGroup", "ReduceOp", "Work", "all_gather", "all_gather_into_tensor",
           "all_reduce", "barrier", "broadcast", "destroy_process_group", "get_backend", "get_rank", "get_world_size",
           "init_process_group", "irecv", "is_available", "is_gloo_available", "is_initialized", "is_mpi_available",
           "is_nccl_available", "isend", "new_group", "recv", "reduce", "reduce_scatter", "reduce_scatter_tensor",
           "send", "group"]


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
    name = Backend.served(backend or "gloo")
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
        if store is None and rank == -1 and world_size == -1 and launcher_environment()[1] is None:
            # neither torchrun's variables nor an MPI launcher: torch's env:// rendezvous fails the same way
            raise ValueError("Error initializing torch.distributed using env:// rendezvous: environment variable RANK "
                             "expected, but not set")
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
    """Destroy ``group``: the default group (``None``) and every group with it, or one made by :func:`new_group`
    (the world lives on)."""
    if not_member(group):  # a group this process was left out of: nothing of it lives here
        return
    pg = default_group()
    if pg is None:  # as torch: destroying the world twice (a cleanup() called again) is an assertion
        if group is None:
            raise AssertionError("Process group cannot be None")
        raise ValueError("Invalid process group specified")
    if group is None or group is pg:
        pg.engine.destroy()
        _c10d.unregister(pg)
        GroupMember.WORLD = None
        return
    if not isinstance(group, ProcessGroup) or not group.is_registered():
        raise ValueError("Invalid process group specified")
    _c10d.unregister(group)  # (and frees its engine group, unless it shares the world's)


def new_group(ranks=None, timeout=None, backend=None, pg_options=None, use_local_synchronization=False,
              group_desc=None, device_id=None):
    """A new group of the processes of global ``ranks`` (every rank when ``None``).

    Group ranks follow the sorted global ranks.  A process outside ``ranks`` gets
    ``GroupMember.NON_GROUP_MEMBER`` (``None`` with ``use_local_synchronization=True``, where only the members
    call), on which collectives warn and do nothing, as torch's.  A group of every rank shares the world's
    communicator; a smaller one runs on an MPI communicator of its members.  ``backend`` defaults to the world's.

    Raises
    ------
    ValueError
        Duplicate ranks, or a rank outside the world.
    """
    world = resolve_group(None, "new_group")
    members = list(range(world.size())) if ranks is None else sorted(int(r) for r in ranks)
    if len(set(members)) != len(members):
        raise ValueError(f"ranks list must not contain duplicate entries, got {members}")
    if len(members) > world.size():
        raise ValueError("the new group's world size should be less or equal to the world size set by "
                         "init_process_group")
    for r in members:
        if not 0 <= r < world.size():
            raise ValueError(f"Rank {r} is out of range. Valid ranks are 0 to {world.size() - 1} "
                             f"(world_size={world.size()})")
    if backend:
        try:
            backend = Backend.served(backend)
        except (ValueError, RuntimeError) as e:
            _c10d._registry["created"] += 1  # torch counted the group before its backend failed
            if isinstance(e, RuntimeError):
                raise
            # torch's Backend takes any name (a third-party backend's); new_group then asserts
            raise AssertionError(f"Unknown backend type {str(backend).lower()}") from None
    backend = backend or world.backend
    if members == list(range(world.size())):
        return ProcessGroup(world.engine, backend, parent=world)
    if world.rank() not in members:
        if use_local_synchronization:
            return None
        _c10d._registry["outside"] = members  # what torch's rank lookups on NON_GROUP_MEMBER then see
        return GroupMember.NON_GROUP_MEMBER
    seconds = None if timeout is None else timeout.total_seconds() if hasattr(timeout, "total_seconds") else timeout
    return ProcessGroup(world.engine.subgroup(members, seconds), backend, parent=world, ranks=members)


def get_rank(group=None):
    """This process's rank in ``group`` (the default group when ``None``; -1 outside the group)."""
    if not_member(group):
        return -1
    pg = resolve_group(group, "get_rank")
    if not pg.is_registered():
        raise ValueError(f"Group {pg} is not registered, please create group with torch.distributed.new_group API")
    return pg.rank()


def get_world_size(group=None):
    """The number of processes in ``group`` (-1 on a process outside it)."""
    if not_member(group):
        return -1
    return resolve_group(group, "get_world_size").size()


def get_backend(group=None):
    """The backend name the group was created with (``"gloo"`` or ``"mpi"``)."""
    if not_member(group):
        raise ValueError("Invalid process group specified")
    pg = resolve_group(group, "get_backend")
    pg.check_registered()
    return pg.backend


# -- collectives on tensors -------------------------------------------------------------------------------------
def _write(tensor, array, versions=1):
    """Put ``array`` into ``tensor``'s memory in place (as torch's collectives do: no autograd history).

    ``versions``: how many in-place writes ``tensor``'s version counter counts, as many as the ``copy_`` calls
    torch's gloo backend makes into it (often none: then a tensor autograd saved stays usable, as in torch).
    """
    _put(tensor, _dispatch.wrap(array), versions, "torch.distributed")


def _put(tensor, value, versions, name):
    """Write tensor ``value`` into ``tensor``'s memory, counting ``versions`` writes on its version counter."""
    if versions:
        with no_grad():
            _dispatch.assign(tensor, value, name)
        _count_versions(tensor, versions - 1)
        return
    # c10d writes through its backend, beneath autograd: no version, no history change; a trace is still told
    _dispatch.check_writeable(tensor, name)
    trace = _dispatch.current_trace() if _dispatch._tracing else None
    if trace is not None:
        trace.record_write(tensor, value)
    np.copyto(tensor.array, value.array, casting="unsafe")
    if trace is not None:
        trace.confirm_write(tensor)


def _count_versions(tensor, versions):
    for _ in range(versions):
        _dispatch.count_version(tensor)


def _in_place(tensor, name, eager, traced, versions=0):
    """Run a collective that overwrites ``tensor``: ``eager(array)`` writes into the array directly; in a
    trace, ``traced(tensor)`` returns the engine op's result, written back so the graph replays it.
    ``versions``: the writes torch counts on the tensor's version counter (see :func:`_write`)."""
    _check_tensor(tensor, name, "tensor")
    if _dispatch._tracing:
        with no_grad():
            result = traced(tensor)
        _put(tensor, result, versions, name)
    else:
        _dispatch.check_writeable(tensor, name)
        eager(tensor.array)
        if versions:
            _dispatch.bump_version(tensor)
            _count_versions(tensor, versions - 1)


def _check_tensor(tensor, name, argument):
    from vfw.frontends.torch._tensor import Tensor

    if not isinstance(tensor, Tensor):
        raise TypeError(f"Invalid function argument. Expected parameter `{argument}` of type torch.Tensor\n"
                        f"             but got {type(tensor)} instead.")


def _dtype_kind(tensor):
    """numpy's kind of ``tensor``'s dtype (``"f"`` for a non-tensor, which the collective then refuses)."""
    return tensor.array.dtype.kind if hasattr(tensor, "array") else "f"


@skip_outside("all_reduce")
def all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduce ``tensor`` over all processes, in place; every process gets the result."""
    pg, reduction = resolve_group(group, "all_reduce"), ReduceOp.engine_name(op)
    op, kind = ReduceOp(op).op, _dtype_kind(tensor)
    if kind == "c" and not supports_complex(op):
        raise ValueError(f"all_reduce does not support {op} on complex tensors")
    if reduction in ("band", "bor", "bxor") and kind in "fc":
        raise RuntimeError(f"Cannot use ReduceOp.{op.name} with non-integral dtype")
    if reduction == "avg" and kind in "biu":  # gloo sums, then the in-place average cannot be stored
        all_reduce(tensor, ReduceOp.SUM, group)
        raise RuntimeError(f"result type Float can't be cast to the desired output type "
                           f"{_dispatch.type_name(tensor.array.dtype)}")
    _check_tensor(tensor, "all_reduce", "tensor")
    check_agree(pg, "all_reduce", tensor.array, f"op={op.name}")
    # gloo reduces in the tensor's memory (no version counted), then averages with an in-place division
    _in_place(tensor, "all_reduce", lambda a: pg.engine.all_reduce(a, reduction, out=a),
              lambda t: _dispatch.call("AllReduce", t, reduction=reduction, group=pg.engine.group_id),
              versions=int(reduction == "avg"))
    return Work([tensor]) if async_op else None


@skip_outside("reduce", root="dst")
def reduce(tensor, dst=None, op=ReduceOp.SUM, group=None, async_op=False, group_dst=None):
    """Reduce ``tensor`` onto rank ``dst``.

    Rank ``dst`` gets the reduction.  The other ranks' tensors end as gloo's ring leaves them (torch documents
    them as unspecified; code that reads them should get torch's values): see :func:`_gloo_reduce`.
    """
    pg = resolve_group(group, "reduce")
    root = pg.peer(dst, group_dst, "reduce", "dst")
    reduction = ReduceOp.engine_name(op)
    kind = _dtype_kind(tensor)
    if kind == "c" and not supports_complex(ReduceOp(op).op):
        # (sic: torch's message prints the op as the character of its number)
        raise RuntimeError(f"reduce does not support{chr(ReduceOp(op).op.value)}on complex tensors")
    if reduction in ("band", "bor", "bxor") and kind in "fc":
        raise RuntimeError(f"Cannot use ReduceOp.{ReduceOp(op).op.name} with non-integral dtype")
    if pg.size() == 1 or _dispatch._tracing:
        return all_reduce(tensor, op, group, async_op)  # (in a trace every rank gets the result)
    _check_tensor(tensor, "reduce", "tensor")
    _dispatch.check_writeable(tensor, "reduce")
    check_agree(pg, "reduce", tensor.array, f"op={ReduceOp(op).op.name}, dst={pg.ranks[root]}")
    gathered = pg.engine.all_gather(np.ascontiguousarray(tensor.array).reshape(-1))
    result = _gloo_reduce(gathered, pg.rank(), root, "sum" if reduction == "avg" else reduction)
    np.copyto(tensor.array, result.reshape(tensor.array.shape), casting="unsafe")  # beneath autograd, as gloo
    if reduction == "avg":  # gloo sums, then every rank divides what it holds in place (one version)
        if kind in "biu":
            raise RuntimeError(f"result type Float can't be cast to the desired output type "
                               f"{_dispatch.type_name(tensor.array.dtype)}")
        divide_by(tensor.array, pg.size(), out=tensor.array)
        _dispatch.bump_version(tensor)
    return Work([tensor]) if async_op else None


_REDUCERS = {"sum": np.add, "prod": np.multiply, "min": np.minimum, "max": np.maximum, "band": np.bitwise_and,
             "bor": np.bitwise_or, "bxor": np.bitwise_xor}


def _gloo_reduce(gathered, rank, root, reduction):
    """What gloo's reduce leaves in ``rank``'s (flat) tensor, from every rank's tensor (``gathered``, one row each).

    gloo cuts the tensor into ``2 * world_size`` segments of ``ceil(n / (2 * world_size))`` elements; rank ``c``
    owns chunk ``c`` (segments ``2c`` and ``2c + 1``).  A ring reduce-scatter passes each chunk from rank
    ``c - 1`` down to rank ``c``, every rank combining its own values with the partial result it receives:
    so rank ``r`` ends with chunk ``c`` reduced over ranks ``r, r + 1, ..., c - 1`` (its own chunk over all of
    them), and the root gets every owner's full chunk.  The nesting (own value op received value) is gloo's: small
    tensors match it bit for bit; gloo pipelines large ones in smaller pieces, so with 3 or more ranks their
    floating-point sums may differ from it in the last bit.
    """
    size, n = gathered.shape
    combine = _REDUCERS[reduction]
    segment = -(-n // (2 * size))
    result = gathered[rank].copy()
    for chunk in range(size):
        lo, hi = min(2 * chunk * segment, n), min((2 * chunk + 2) * segment, n)
        if lo == hi:
            continue
        first = chunk if rank == root else rank  # where the accumulation ends: the owner's or this rank's
        count = size if rank == root or chunk == rank else (chunk - rank) % size
        contributors = [(first + k) % size for k in range(count)]
        acc = gathered[contributors[-1], lo:hi]
        for r in reversed(contributors[:-1]):
            acc = combine(gathered[r, lo:hi], acc)
        result[lo:hi] = acc
    return result


@skip_outside("broadcast", root="src")
def broadcast(tensor, src=None, group=None, async_op=False, group_src=None):
    """Overwrite ``tensor`` with rank ``src``'s, on every process."""
    pg = resolve_group(group, "broadcast")
    root = pg.peer(src, group_src, "broadcast", "src")
    _check_tensor(tensor, "broadcast", "tensor")
    check_agree(pg, "broadcast", tensor.array, f"src={pg.ranks[root]}")
    _in_place(tensor, "broadcast", lambda a: pg.engine.broadcast(a, root),
              lambda t: _dispatch.call("Broadcast", t, root=root, group=pg.engine.group_id))
    return Work([tensor]) if async_op else None


def _gathered(pg, tensor, name):
    _check_tensor(tensor, name, "tensor")
    if _dispatch._tracing:
        return _dispatch.call("AllGather", tensor, group=pg.engine.group_id).array
    return pg.engine.all_gather(tensor.array)


@skip_outside("all_gather")
def all_gather(tensor_list, tensor, group=None, async_op=False):
    """Fill ``tensor_list`` (one tensor per rank) with every process's ``tensor``."""
    pg = resolve_group(group, "all_gather")
    for out in tensor_list:
        if hasattr(out, "dtype") and hasattr(tensor, "dtype") and out.dtype != tensor.dtype:
            raise ValueError(f"Invalid usage of tensors with different dtypesFound {out.dtype} and  {tensor.dtype}")
    if len(tensor_list) != pg.size():
        raise RuntimeError(f"ProcessGroupGloo::allgather: invalid output tensor list at index 0 (expected length "
                           f"{pg.size()}, got {len(tensor_list)})")
    for k, out in enumerate(tensor_list):
        if hasattr(out, "shape") and hasattr(tensor, "shape") and tuple(out.shape) != tuple(tensor.shape):
            raise RuntimeError(f"ProcessGroupGloo::allgather: invalid tensor size at index {k} (expected "
                               f"({', '.join(map(str, tensor.shape))}), got ({', '.join(map(str, out.shape))}))")
    _check_tensor(tensor, "all_gather", "tensor")
    check_agree(pg, "all_gather", tensor.array)
    stacked = _gathered(pg, tensor, "all_gather")
    for out, part in zip(tensor_list, stacked):
        _write(out, part)  # one copy_ into each output, as gloo
    return Work(tensor_list) if async_op else None


@skip_outside("all_gather_into_tensor")
def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op=False):
    """Every process's ``input_tensor`` concatenated along dim 0 into ``output_tensor``.

    As gloo, ``output_tensor`` must have ``input_tensor``'s dtype and, cut into world_size chunks along dim 0,
    chunks of ``input_tensor``'s shape (so ``(world_size * d0, ...)``; a 0-d input gathers into ``(world_size,)``).
    """
    pg = resolve_group(group, "all_gather_into_tensor")
    _check_tensor(output_tensor, "all_gather_into_tensor", "output_tensor")
    _check_tensor(input_tensor, "all_gather_into_tensor", "input_tensor")
    _check_gather_output(output_tensor.array, input_tensor.array, pg.size())
    check_agree(pg, "all_gather_into_tensor", input_tensor.array)
    stacked = _gathered(pg, input_tensor, "all_gather_into_tensor")
    # gloo copies each rank's part into its chunk of the output: one version per rank
    _write(output_tensor, stacked.reshape(output_tensor.array.shape), versions=pg.size())
    return Work([output_tensor]) if async_op else None


_CPP_TYPES = {"float32": "float", "float64": "double", "float16": "c10::Half", "bfloat16": "c10::BFloat16",
              "int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char",
              "uint8": "unsigned char", "bool": "bool", "complex64": "c10::complex<float>",
              "complex128": "c10::complex<double>"}


def _tensor_options(dtype):
    name = _CPP_TYPES.get(dtype.name, dtype.name)
    return (f"TensorOptions(dtype={name}, device=cpu, layout=Strided, requires_grad=false (default), "
            "pinned_memory=false (default), memory_format=(nullopt))")


def _check_gather_output(output, input, size):
    """gloo's checks of all_gather_into_tensor: the output's dtype, then each of its world_size chunks' shape."""
    if output.dtype != input.dtype:
        raise RuntimeError(f"ProcessGroupGloo::allgather: invalid tensor type at index 0 (expected "
                           f"{_tensor_options(input.dtype)}, got {_tensor_options(output.dtype)})")
    if output.ndim == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    rows = output.shape[0]
    step = -(-rows // size) if rows else 0
    starts = range(0, rows, step) if step else [0] * size
    for k, start in enumerate(starts):
        chunk = (min(step, rows - start),) + output.shape[1:]
        if chunk != input.shape:
            raise RuntimeError(f"ProcessGroupGloo::allgather: invalid tensor size at index {k} (expected "
                               f"({', '.join(map(str, input.shape))}), got ({', '.join(map(str, chunk))}))")


@skip_outside("reduce_scatter_tensor")
def reduce_scatter_tensor(output, input, op=ReduceOp.SUM, group=None, async_op=False):
    """``input`` (dim 0 = world_size * output's) reduced over all processes; rank ``r`` gets the ``r``-th chunk."""
    pg, reduction = resolve_group(group, "reduce_scatter_tensor"), ReduceOp.engine_name(op)
    _check_tensor(input, "reduce_scatter_tensor", "input")
    if output.array.ndim == 0 or input.array.shape[:1] != (output.array.shape[0] * pg.size(),):
        raise RuntimeError(f"reduce_scatter_tensor: input of shape {list(input.array.shape)} must have world_size="
                           f"{pg.size()} times the output's first dimension (output shape "
                           f"{list(output.array.shape)})")
    check_agree(pg, "reduce_scatter_tensor", input.array, f"op={ReduceOp(op).op.name}")
    if _dispatch._tracing:
        part = _dispatch.call("ReduceScatter", input, reduction=reduction, group=pg.engine.group_id).array
    else:
        part = pg.engine.reduce_scatter(input.array, reduction)
    _write(output, part)
    return Work([output]) if async_op else None


@skip_outside("reduce_scatter")
def reduce_scatter(output, input_list, op=ReduceOp.SUM, group=None, async_op=False):
    """The ``rank``-th of the element-wise reductions of every process's ``input_list``, into ``output``.

    ``input_list`` holds world_size tensors of ``output``'s shape and dtype.
    """
    _check_tensor(output, "reduce_scatter", "output")
    from vfw.frontends.torch._tensor import Tensor

    if not isinstance(input_list, list) or not all(isinstance(t, Tensor) for t in input_list):
        raise TypeError("Invalid function argument. Expected parameter `input_list` of type List[torch.Tensor]\n"
                        f"             but got {type(input_list)} instead.")
    for t in input_list:
        if t.array.dtype != output.array.dtype:
            raise ValueError(f"Invalid usage of tensors with different dtypesFound {output.dtype} and  {t.dtype}")
    pg, reduction = resolve_group(group, "reduce_scatter"), ReduceOp.engine_name(op)
    if len(input_list) != pg.size():
        raise RuntimeError("invalid input tensor list size, must be world size")
    for t in input_list:
        if t.array.shape != output.array.shape:
            raise RuntimeError(f"reduce_scatter: every tensor of input_list must have the output's shape "
                               f"{list(output.array.shape)}, got {list(t.array.shape)}")
    check_agree(pg, "reduce_scatter", output.array, f"op={ReduceOp(op).op.name}")
    if _dispatch._tracing:
        from vfw.frontends.torch._joining import stack

        part = _dispatch.call("ReduceScatter", stack(input_list), reduction=reduction,
                              group=pg.engine.group_id).array
    else:  # rows of the stacked lists: rank r's row is the reduction of everyone's input_list[r]
        part = pg.engine.reduce_scatter(np.stack([t.array for t in input_list]), reduction)
    # gloo copies the reduction into the output, then averages it there
    _write(output, part.reshape(output.array.shape), versions=1 + (reduction == "avg"))
    return Work([output]) if async_op else None


@skip_outside("barrier")
def barrier(group=None, async_op=False, device_ids=None):
    """Wait until every process of the group reaches the barrier."""
    resolve_group(group, "barrier").engine.barrier()
    return Work([]) if async_op else None


def _destination(tensor, dst, group, group_dst, name):
    pg = resolve_group(group, name)
    dst = pg.peer(dst, group_dst, name, "dst")
    if dst == pg.rank():
        raise ValueError("Invalid destination rank: destination rank should not be the same as the rank of the "
                         "current process.")
    _check_contiguous(tensor, name)
    return pg, dst


def _source(tensor, src, group, group_src, name):
    pg = resolve_group(group, name)
    if src is not None or group_src is not None:
        src = pg.peer(src, group_src, name, "src")
    _check_contiguous(tensor, name)
    _dispatch.check_writeable(tensor, name)
    return pg, src


def _check_contiguous(tensor, name):
    _check_tensor(tensor, name, "tensor")
    if not tensor.is_contiguous():  # gloo's point-to-point transfers need it (its collectives do not)
        raise RuntimeError("input tensor has to be contiguous")


@skip_outside("send")
def send(tensor, dst=None, group=None, tag=0, group_dst=None):
    """Send ``tensor`` to rank ``dst`` (blocking)."""
    pg, dst = _destination(tensor, dst, group, group_dst, "send")
    pg.engine.send(tensor.array, dst, tag)


@skip_outside("recv", result=-1)
def recv(tensor, src=None, group=None, tag=0, group_src=None):
    """Receive into ``tensor`` from rank ``src`` (any rank when ``None``); returns the sender's rank.

    Like gloo, it writes beneath autograd: ``tensor``'s version counter does not change.
    """
    pg, src = _source(tensor, src, group, group_src, "recv")
    return pg.ranks[pg.engine.recv(tensor.array, src, tag)]


@skip_outside("isend")
def isend(tensor, dst=None, group=None, tag=0, group_dst=None):
    """Start sending ``tensor`` to rank ``dst``; returns the :class:`Work` in flight (``wait()`` for it, and leave
    ``tensor`` unchanged until then).

    The send does not wait for the receiver, so a process may ``isend`` and then ``recv`` from the same peer.
    """
    pg, dst = _destination(tensor, dst, group, group_dst, "isend")
    return Work([tensor], pg.engine.isend(tensor.array, dst, tag))


@skip_outside("irecv")
def irecv(tensor, src=None, group=None, tag=0, group_src=None):
    """Start receiving into ``tensor`` from rank ``src`` (any rank when ``None``); returns the :class:`Work` in
    flight: ``tensor`` holds the message once ``wait()`` returns (``source_rank()`` then names the sender)."""
    pg, src = _source(tensor, src, group, group_src, "irecv")
    return Work([tensor], pg.engine.irecv(tensor.array, src, tag), receive=True)


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
from vfw.frontends.torch.distributed import constants, distributed_c10d  # noqa: E402,F401  (torch's submodules)
