"""torch.distributed's rooted and personalised collectives: gather/scatter (tensors and objects), object
broadcast and all-gather, object send/recv, all_to_all, batched point-to-point (P2POp), monitored_barrier and the
deprecated coalesced forms.

Roots and peers are named by global rank (``dst``, ``src``, ``peer``) or by rank within the group (``group_dst``...).
"""

import datetime
import warnings

import numpy as np

from vfw.frontends.torch import _dispatch
from vfw.frontends.torch.distributed import (
    _check_tensor,
    _write,
    all_gather_into_tensor,
    all_reduce,
    irecv,
    isend,
    reduce_scatter_tensor,
)
from vfw.frontends.torch.distributed._c10d import ReduceOp, Work, resolve_group, skip_outside
from vfw.frontends.torch.distributed._fingerprint import check_agree, check_splits

__all__ = ["P2POp", "all_gather_coalesced", "all_gather_object", "all_gather_single", "all_reduce_coalesced",
           "all_to_all", "all_to_all_single", "batch_isend_irecv", "broadcast_object_list", "gather", "gather_object",
           "monitored_barrier", "recv_object_list", "reduce_scatter_single", "scatter", "scatter_object_list",
           "send_object_list"]

_DEPRECATED = ("`torch.distributed.{}` will be deprecated. If you must use it, please revisit our documentation later "
               "at https://pytorch.org/docs/main/distributed.html#collective-functions")


def _root(pg, rank, group_rank, name, argument):
    """The root's group rank from its global ``rank`` or its ``group_rank`` (global rank 0 when neither is given;
    both is an error, as torch)."""
    if rank is not None and group_rank is not None:
        raise ValueError(f"Can only specify {argument} or group_{argument}")
    return pg.peer(0 if rank is None and group_rank is None else rank, group_rank, name, argument)


def _check_list(tensors, name, argument):
    if not isinstance(tensors, list) or not all(_is_tensor(t) for t in tensors):
        raise TypeError(f"Invalid function argument. Expected parameter `{argument}` of type List[torch.Tensor]\n"
                        "             but got {} instead.".format(type(tensors)))
    for t in tensors:
        _check_tensor(t, name, argument)


def _is_tensor(value):
    from vfw.frontends.torch._tensor import Tensor

    return isinstance(value, Tensor)


def _check_same_dtype(tensor, tensors, name):
    for t in tensors:
        if t.array.dtype != tensor.array.dtype:
            raise ValueError(f"{name}: Invalid usage of tensors with different dtypes: found {tensor.dtype} and "
                             f"{t.dtype}")


def _check_root_list(pg, root, values, argument):
    """torch's check that a gathered list is given on the destination and only there."""
    if pg.rank() == root:
        if not values:
            raise ValueError(f"Argument ``{argument}`` must be specified on destination rank.")
    elif values:
        raise ValueError(f"Argument ``{argument}`` must NOT be specified on non-destination ranks.")


def _check_shapes(tensors, tensor, name):
    """gloo's check of a root's list: every tensor of ``tensor``'s shape."""
    for k, t in enumerate(tensors):
        if t.array.shape != tensor.array.shape:
            raise RuntimeError(f"ProcessGroupGloo::{name}: invalid tensor size at index {k} (expected "
                               f"({', '.join(map(str, tensor.array.shape))}), got "
                               f"({', '.join(map(str, t.array.shape))}))")


def _check_length(tensors, size, name, argument):
    if len(tensors) != size:
        raise ValueError(f"{name}: {argument} must hold world_size={size} tensors, got {len(tensors)}")


@skip_outside("gather", root="dst")
def gather(tensor, gather_list=None, dst=None, group=None, async_op=False, group_dst=None):
    """Every process's ``tensor`` into ``gather_list`` (one tensor per rank) on rank ``dst`` (default 0).

    ``gather_list`` must be given on ``dst`` only.
    """
    _check_tensor(tensor, "gather", "tensor")
    gather_list = gather_list or []
    if gather_list:
        _check_list(gather_list, "gather", "gather_list")
    _check_same_dtype(tensor, gather_list, "gather")
    pg = resolve_group(group, "gather")
    root = _root(pg, dst, group_dst, "gather", "dst")
    _check_root_list(pg, root, gather_list, "gather_list")
    if pg.rank() == root:
        _check_length(gather_list, pg.size(), "gather", "gather_list")
        _check_shapes(gather_list, tensor, "gather")
    check_agree(pg, "gather", tensor.array, f"dst={pg.ranks[root]}")
    stacked = pg.engine.gather(tensor.array, root)
    if stacked is not None:
        for out, part in zip(gather_list, stacked):
            _write(out, part)
    return Work(gather_list) if async_op else None


@skip_outside("scatter", root="src")
def scatter(tensor, scatter_list=None, src=None, group=None, async_op=False, group_src=None):
    """Rank ``src``'s ``scatter_list[r]`` into ``tensor`` on rank ``r`` (``scatter_list`` given on ``src`` only)."""
    _check_tensor(tensor, "scatter", "tensor")
    scatter_list = scatter_list or []
    if scatter_list:
        _check_list(scatter_list, "scatter", "scatter_list")
    _check_same_dtype(tensor, scatter_list, "scatter")
    pg = resolve_group(group, "scatter")
    root = _root(pg, src, group_src, "scatter", "src")
    stacked = None
    if pg.rank() == root:
        if not scatter_list:
            raise ValueError("Argument ``scatter_list`` must be specified on source rank.")
        _check_length(scatter_list, pg.size(), "scatter", "scatter_list")
        _check_shapes(scatter_list, tensor, "scatter")
        stacked = np.stack([t.array for t in scatter_list])
    elif scatter_list:
        raise ValueError("Argument ``scatter_list`` must NOT be specified on non-source ranks.")
    check_agree(pg, "scatter", tensor.array, f"src={pg.ranks[root]}")
    received = pg.engine.scatter(stacked, np.empty_like(tensor.array), root)
    _write(tensor, received, versions=0)  # gloo receives into the tensor's memory: no version counted
    return Work([tensor]) if async_op else None


@skip_outside("all_gather_object")
def all_gather_object(object_list, obj, group=None):
    """Put every process's picklable ``obj`` into the first world_size entries of ``object_list`` (rank order; as
    torch, a longer list keeps its other entries, a shorter one fails after the exchange)."""
    pg = resolve_group(group, "all_gather_object")
    for k, gathered in enumerate(pg.engine.all_gather_object(obj)):
        object_list[k] = gathered


@skip_outside("broadcast_object_list")
def broadcast_object_list(object_list, src=None, group=None, device=None, group_src=None):
    """Overwrite ``object_list`` with rank ``src``'s list of picklable objects."""
    pg = resolve_group(group, "broadcast_object_list")
    src = 0 if src is None and group_src is None else src  # (torch's default: global rank 0)
    root = pg.peer(src, group_src, "broadcast_object_list", "src")
    object_list[:] = pg.engine.broadcast_object(list(object_list), root)


@skip_outside("gather_object")
def gather_object(obj, object_gather_list=None, dst=None, group=None, group_dst=None):
    """Every process's picklable ``obj`` into the first world_size entries of ``object_gather_list`` on rank ``dst``
    (given there only)."""
    pg = resolve_group(group, "gather_object")
    root = _root(pg, dst, group_dst, "gather_object", "dst")
    _check_root_list(pg, root, object_gather_list, "gather_list")
    gathered = pg.engine.gather_object(obj, root)
    for k, value in enumerate(gathered or ()):
        object_gather_list[k] = value


@skip_outside("scatter_object_list")
def scatter_object_list(scatter_object_output_list, scatter_object_input_list=None, src=None, group=None,
                        group_src=None):
    """Rank ``src``'s ``scatter_object_input_list[r]`` into ``scatter_object_output_list[0]`` on rank ``r``."""
    if not isinstance(scatter_object_output_list, list) or len(scatter_object_output_list) < 1:
        raise ValueError("Expected argument scatter_object_output_list to be a list of size at least 1.")
    pg = resolve_group(group, "scatter_object_list")
    root = _root(pg, src, group_src, "scatter_object_list", "src")
    objects = None
    if pg.rank() == root:
        if scatter_object_input_list is None:
            raise ValueError("source rank must provide non-None scatter_object_input_list")
        objects = list(scatter_object_input_list)
        if len(objects) != pg.size():
            raise ValueError(f"scatter_object_list: scatter_object_input_list must have world_size={pg.size()} "
                             f"entries, got {len(objects)}")
    scatter_object_output_list[0] = pg.engine.scatter_object(objects, root)


def _peer(pg, rank, group_rank, name, argument):
    if rank is not None and group_rank is not None:
        raise ValueError(f"Can only specify {argument} or group_{argument}")
    return pg.peer(rank, group_rank, name, argument)


@skip_outside("send_object_list")
def send_object_list(object_list, dst=None, group=None, device=None, group_dst=None, use_batch=False):
    """Send the picklable objects of ``object_list`` to rank ``dst`` (which calls :func:`recv_object_list`)."""
    pg = resolve_group(group, "send_object_list")
    peer = _peer(pg, dst, group_dst, "send_object_list", "dst")
    if peer == pg.rank():
        raise ValueError("Invalid destination rank: destination rank should not be the same as the rank of the "
                         "current process.")
    pg.engine.send_object(list(object_list), peer)


@skip_outside("recv_object_list", result=-1)
def recv_object_list(object_list, src=None, group=None, device=None, group_src=None, use_batch=False):
    """Overwrite ``object_list`` with the list rank ``src`` (any rank when ``None``) sent; returns the sender's rank.

    The sent list must have ``len(object_list)`` entries.
    """
    pg = resolve_group(group, "recv_object_list")
    if src is not None or group_src is not None:
        src = _peer(pg, src, group_src, "recv_object_list", "src")
    received, sender = pg.engine.recv_object(src)
    sender = pg.ranks[sender]  # (a global rank, as torch returns)
    if len(received) != len(object_list):
        raise RuntimeError(f"recv_object_list: rank {sender} sent {len(received)} objects but object_list has "
                           f"{len(object_list)} entries")
    object_list[:] = received
    return sender


@skip_outside("all_to_all")
def all_to_all(output_tensor_list, input_tensor_list, group=None, async_op=False):
    """``input_tensor_list[r]`` goes to rank ``r``, which gets it as ``output_tensor_list[`` this rank ``]``."""
    _check_list(output_tensor_list, "all_to_all", "output_tensor_list")
    _check_list(input_tensor_list, "all_to_all", "input_tensor_list")
    pg = resolve_group(group, "all_to_all")
    _check_length(input_tensor_list, pg.size(), "all_to_all", "input_tensor_list")
    _check_length(output_tensor_list, pg.size(), "all_to_all", "output_tensor_list")
    dtype = input_tensor_list[0].array.dtype
    _check_same_dtype(input_tensor_list[0], input_tensor_list + output_tensor_list, "all_to_all")
    # gloo's all_to_all exchanges blocks of one shape (all_to_all_single takes uneven splits)
    _check_shapes(output_tensor_list, output_tensor_list[0], "alltoall")
    _check_shapes(input_tensor_list, input_tensor_list[0], "alltoall")
    if output_tensor_list[0].array.shape != input_tensor_list[0].array.shape:
        raise RuntimeError("ProcessGroupGloo::alltoall: input and output tensors must have the same size")
    check_agree(pg, "all_to_all", input_tensor_list[0].array)
    send = np.concatenate([t.array.reshape(-1) for t in input_tensor_list])
    recv_counts = [t.array.size for t in output_tensor_list]
    received = pg.engine.all_to_all(send, [t.array.size for t in input_tensor_list],
                                    np.empty(sum(recv_counts), dtype), recv_counts)
    offsets = np.cumsum([0] + recv_counts)
    for out, start, stop in zip(output_tensor_list, offsets, offsets[1:]):
        _write(out, received[start:stop].reshape(out.array.shape))
    return Work(output_tensor_list) if async_op else None


def _split_counts(tensor, splits, pg, name, argument):
    """Elements per rank of ``tensor`` split along dim 0 by ``splits`` (equal parts when None/empty)."""
    rows = tensor.array.shape[0] if tensor.array.ndim else 1
    row_size = tensor.array.size // rows if rows else int(np.prod(tensor.array.shape[1:], dtype=np.int64))
    if not splits:
        if rows % pg.size():
            raise RuntimeError(f"{name}: {argument}'s first dimension ({rows}) must be divisible by the world size "
                               f"{pg.size()} when no split sizes are given")
        return [rows // pg.size() * row_size] * pg.size()
    splits = [int(s) for s in splits]
    if len(splits) != pg.size() or sum(splits) != rows or min(splits) < 0:
        raise RuntimeError(f"{name}: split sizes {splits} for {argument} must be world_size={pg.size()} "
                           f"non-negative sizes summing to its first dimension {rows}")
    return [s * row_size for s in splits]


@skip_outside("all_to_all_single")
def all_to_all_single(output, input, output_split_sizes=None, input_split_sizes=None, group=None, async_op=False):
    """Split ``input`` along dim 0 (``input_split_sizes`` rows per rank, or equally), send part ``r`` to rank
    ``r``, and concatenate what every rank sent into ``output`` (``output_split_sizes`` rows from each)."""
    _check_tensor(output, "all_to_all_single", "output")
    _check_tensor(input, "all_to_all_single", "input")
    _check_same_dtype(input, [output], "all_to_all_single")
    pg = resolve_group(group, "all_to_all_single")
    send_counts = _split_counts(input, input_split_sizes, pg, "all_to_all_single", "input")
    recv_counts = _split_counts(output, output_split_sizes, pg, "all_to_all_single", "output")
    check_splits(pg, "all_to_all_single", input.array.dtype, send_counts, recv_counts)
    received = pg.engine.all_to_all(input.array.reshape(-1), send_counts, np.empty(sum(recv_counts),
                                    output.array.dtype), recv_counts)
    _write(output, received.reshape(output.array.shape), versions=0)  # gloo writes it in place, uncounted
    return Work([output]) if async_op else None


class P2POp:
    """One point-to-point operation for :func:`batch_isend_irecv`: ``op`` (``isend`` or ``irecv``) of ``tensor``
    with rank ``peer``."""

    def __init__(self, op, tensor, peer=None, group=None, tag=0, group_peer=None):
        if op not in (isend, irecv):
            raise ValueError("Invalid ``op``. Expected ``op`` to be of type ``torch.distributed.isend`` or "
                             "``torch.distributed.irecv``.")
        _check_tensor(tensor, "P2POp", "tensor")
        if peer is not None and group_peer is not None:
            raise ValueError("Can only specify peer or group_peer")
        self.op, self.tensor, self.group, self.tag = op, tensor, group, tag
        self.peer = peer if peer is not None else group_peer
        self.group_peer = self.peer

    def __repr__(self):
        return f"P2POp(op={self.op.__name__}, peer={self.peer}, tag={self.tag}, tensor={list(self.tensor.shape)})"


def batch_isend_irecv(p2p_op_list):
    """Start every send and receive of ``p2p_op_list`` (no ordering deadlock); their :class:`Work` handles, in
    flight until waited for."""
    if not isinstance(p2p_op_list, list) or not all(isinstance(op, P2POp) for op in p2p_op_list):
        raise ValueError("Invalid ``p2p_op_list``. Each op is expected to to be of type ``torch.distributed.P2POp``.")
    if not p2p_op_list:  # torch fails looking at the first op's group
        raise IndexError("batch_isend_irecv: p2p_op_list is empty (list index out of range)")
    if not all(op.group is p2p_op_list[0].group for op in p2p_op_list):
        raise ValueError("All ops need to use the same group.")
    pg = resolve_group(p2p_op_list[0].group, "batch_isend_irecv")
    for op in p2p_op_list:
        pg.peer(op.peer, None, "batch_isend_irecv", "peer")
        if op.op is irecv:
            _dispatch.check_writeable(op.tensor, "batch_isend_irecv")
    # each is posted at once (MPI Isend/Irecv), so any order of the ops on any rank completes
    return [op.op(op.tensor, op.peer, op.group, op.tag) for op in p2p_op_list]


@skip_outside("monitored_barrier")
def monitored_barrier(group=None, timeout=None, wait_all_ranks=False):
    """A barrier that raises RuntimeError (instead of hanging) when some rank does not reach it within ``timeout``
    (a timedelta; default the group's timeout)."""
    pg = resolve_group(group, "monitored_barrier")
    if pg.backend != "gloo":
        raise ValueError("monitored_barrier is only implemented for GLOO backend.")
    if timeout is None:
        seconds = pg.engine.timeout
    elif isinstance(timeout, datetime.timedelta):
        seconds = timeout.total_seconds()
    else:
        raise TypeError(f"Expected timeout argument to be of type datetime.timedelta, got {timeout}")
    # As gloo's, rank 0 learns who arrived: every other rank first sends it a token numbered by the call (the
    # count lives on the engine group, which new_group handles share)
    calls = vars(pg.engine)["_monitored_calls"] = vars(pg.engine).get("_monitored_calls", 0) + 1
    if pg.rank() != 0:
        sends = [t for t in vars(pg.engine).get("_monitor_sends", []) if not t.test()]
        sends.append(pg.engine.isend(np.array([calls], np.int64), 0, _MONITOR_TAG))
        vars(pg.engine)["_monitor_sends"] = sends
    arrived = pg.engine.barrier_within(seconds)
    missing = _ranks_missing(pg, calls, wait=arrived) if pg.rank() == 0 else []
    if arrived:
        return
    milliseconds = int(seconds * 1000)
    if missing:
        names = f"Ranks {', '.join(map(str, missing))}" if wait_all_ranks else f"Rank {missing[0]}"
        raise RuntimeError(f"[Rank 0]: {names} failed to pass monitoredBarrier in {milliseconds} ms")
    raise RuntimeError(f"Rank {pg.rank()} failed to pass monitoredBarrier in {milliseconds} ms: some rank of the "
                       f"{pg.size()} did not reach it")


_MONITOR_TAG = 32_000  # monitored_barrier's tokens (a tag of their own: far above the tags users pass to send)


def _ranks_missing(pg, calls, wait):
    """On rank 0: the ranks whose token of monitored barrier number ``calls`` has not arrived.  ``wait``: every
    rank reached the barrier, so each token is on its way (received, so none is left behind).  A token of an
    earlier call (from a rank that came late to it) is read and skipped."""
    seen = vars(pg.engine).setdefault("_monitor_seen", {})
    comm, missing = pg.engine.comm, []
    token = np.zeros(1, np.int64)
    for peer in range(1, pg.size()):
        while seen.get(peer, 0) < calls:
            if not wait and not comm.Iprobe(source=peer, tag=_MONITOR_TAG):
                missing.append(peer)
                break
            pg.engine.recv(token, peer, _MONITOR_TAG)
            seen[peer] = max(seen.get(peer, 0), int(token[0]))
    return missing


@skip_outside("all_reduce_coalesced")
def all_reduce_coalesced(tensors, op=ReduceOp.SUM, group=None, async_op=False):
    """Deprecated (torch's FutureWarning): :func:`all_reduce` of each tensor of ``tensors``."""
    warnings.warn(_DEPRECATED.format("all_reduce_coalesced"), FutureWarning, stacklevel=2)
    if _is_tensor(tensors):
        tensors = [tensors]
    _check_list(tensors, "all_reduce_coalesced", "tensors")
    for t in tensors:
        all_reduce(t, op, group)
        _dispatch.count_version(t)  # gloo reduces a flattened copy, then copies it back into each tensor
    return Work(tensors) if async_op else None


@skip_outside("all_gather_coalesced")
def all_gather_coalesced(output_tensor_lists, input_tensor_list, group=None, async_op=False):
    """Deprecated (torch's FutureWarning): ``output_tensor_lists[r][i]`` gets rank ``r``'s ``input_tensor_list[i]``."""
    warnings.warn(_DEPRECATED.format("all_gather_coalesced"), FutureWarning, stacklevel=2)
    if not isinstance(output_tensor_lists, list):
        raise TypeError("Invalid function argument: output_tensor_lists should be a list")
    _check_list(input_tensor_list, "all_gather_coalesced", "input_tensor_list")
    for outputs in output_tensor_lists:
        _check_list(outputs, "all_gather_coalesced", "output_tensor_lists")
    pg = resolve_group(group, "all_gather_coalesced")
    _check_length(output_tensor_lists, pg.size(), "all_gather_coalesced", "output_tensor_lists")
    gathered = pg.engine.all_gather_object([t.array for t in input_tensor_list])
    for outputs, arrays in zip(output_tensor_lists, gathered):
        for out, array in zip(outputs, arrays):
            _write(out, array.reshape(out.array.shape))
    return Work(sum(output_tensor_lists, [])) if async_op else None


def all_gather_single(output_tensor, input_tensor, group=None, async_op=False):
    """:func:`all_gather_into_tensor` (torch's alias)."""
    return all_gather_into_tensor(output_tensor, input_tensor, group, async_op)


def reduce_scatter_single(output, input, op=ReduceOp.SUM, group=None, async_op=False):
    """:func:`reduce_scatter_tensor` (torch's alias)."""
    return reduce_scatter_tensor(output, input, op, group, async_op)
