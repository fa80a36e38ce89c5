"""A process group over an MPI communicator: collectives on numpy arrays, guarded by a timeout watchdog.

Every collective is blocking (MPI's own algorithms; shared memory between processes of one machine, TCP
between machines).  A collective that does not finish within the group's ``timeout`` means a peer died,
hangs, or called a different collective: the watchdog thread prints which collective on which rank timed
out and aborts the MPI job, so every process exits instead of waiting forever.  Point-to-point ``isend`` and
``irecv`` return a :class:`Transfer` in flight, whose ``wait`` the watchdog guards the same way.
"""

import itertools
import threading
import time
import zlib

import numpy as np

from vfw.core.distributed import mpi as _mpi
from vfw.core.distributed.mpi import DistributedArgumentError, DistributedError


def divide_by(array, size, out):
    """``array / size`` into ``out``: a multiply by the reciprocal when ``size`` is a power of two (the same
    correctly rounded result, twice as fast as a division pass over gradients)."""
    if size & (size - 1) == 0 and out.dtype.kind == "f":
        return np.multiply(array, 1.0 / size, out=out)
    return np.divide(array, size, out=out)

REDUCE_OPS = ("sum", "avg", "prod", "max", "min", "band", "bor", "bxor")
"""Reductions of :meth:`ProcessGroup.all_reduce` and :meth:`ProcessGroup.reduce_scatter` (``avg``: floats only)."""

DEFAULT_TIMEOUT = 1800.0
"""Seconds a collective may take before the job is aborted (torch's default process-group timeout)."""

_GROUPS = {}
_GROUP_IDS = itertools.count(1)  # ids of subgroups (0 is the world), never reused: a graph names at most one group


def get_group(group_id):
    """The live :class:`ProcessGroup` registered under ``group_id`` (0 is the world group)."""
    group = _GROUPS.get(group_id)
    if group is None:
        raise DistributedError(f"vfw.distributed: no process group {group_id} (initialize the world group first "
                               "with vfw.distributed.init() or torch.distributed.init_process_group())")
    return group


class _Watchdog:
    """A daemon thread per group that aborts the MPI job when a collective outlives its deadline.

    Arming is a plain attribute store (no lock, no wake-up: a collective pays nothing measurable); the
    thread polls a few times per timeout, so it aborts between ``timeout`` and ``1.25 * timeout`` (at most
    one second late) after the collective began.
    """

    def __init__(self, group):
        self._group = group
        self._pending = None  # (deadline, description) of the collective in flight
        self._closed = threading.Event()
        self._poll = min(1.0, group.timeout / 4)
        self._thread = threading.Thread(target=self._watch, name="vfw-distributed-watchdog", daemon=True)
        self._thread.start()

    def arm(self, description):
        self._pending = (time.monotonic() + self._group.timeout, description)

    def disarm(self):
        self._pending = None

    def close(self):
        self._closed.set()

    def _watch(self):
        while not self._closed.wait(self._poll):
            pending = self._pending
            if pending is not None and time.monotonic() > pending[0] and self._pending is pending:
                self._group._abort_timed_out(pending[1])
                return


class ProcessGroup:
    """The processes of an MPI communicator, with collectives on numpy arrays.

    Parameters
    ----------
    comm : mpi4py.MPI.Comm
        The communicator (the group duplicates it, so its messages never mix with the caller's).
    timeout : float
        Seconds any one collective may take before the watchdog aborts the job.
    group_id : int
        The id collective ops inside graphs name the group by (0: the world group).

    Notes
    -----
    Every process of the group must call the same collectives in the same order with arrays of the same
    shape and dtype (MPI's rule); ``all_reduce`` and friends return new arrays unless ``out`` is given.
    """

    def __init__(self, comm, timeout=DEFAULT_TIMEOUT, group_id=0):
        self.MPI = _mpi.load()
        self.comm = comm.Dup()
        self.rank = self.comm.Get_rank()
        self.size = self.comm.Get_size()
        self.timeout = float(timeout)
        self.group_id = group_id
        self._watchdog = _Watchdog(self) if self.size > 1 else None
        self._windows = []  # shared-memory windows (see shared_window), freed by destroy
        self._reduce_ops = {"sum": self.MPI.SUM, "prod": self.MPI.PROD, "max": self.MPI.MAX, "min": self.MPI.MIN,
                            "band": self.MPI.BAND, "bor": self.MPI.BOR, "bxor": self.MPI.BXOR, "avg": self.MPI.SUM}
        _GROUPS[group_id] = self

    def __repr__(self):
        return f"ProcessGroup(rank={self.rank}, size={self.size}, timeout={self.timeout:g}s)"

    # -- running a collective under the watchdog ------------------------------------------------------
    def _guarded(self, description, call, *args):
        """``call(*args)`` under the watchdog; ``description`` (a str, or a callable giving one when a hot path
        should not pay for formatting) names the collective if it times out."""
        if self._watchdog is None:
            return call(*args)
        self._watchdog.arm(description)
        try:
            return call(*args)
        except self.MPI.Exception as e:
            self._explain_truncation(e, description)
            raise
        finally:
            self._watchdog.disarm()

    def _explain_truncation(self, error, description):
        """Raise a :class:`DistributedError` saying which transfer got a message too large for its buffer, when
        MPI's ``error`` is that (other MPI errors stay as they are: some callers handle them)."""
        if error.Get_error_class() == self.MPI.ERR_TRUNCATE:
            if callable(description):
                description = description()
            raise DistributedError(f"vfw.distributed: rank {self.rank}: {description}: a message arrived that is "
                                   "larger than the receiving buffer (the sender's tensor has more bytes than this "
                                   "process's)") from None

    def _abort_timed_out(self, description):
        import sys

        if callable(description):
            description = description()
        sys.stderr.write(f"vfw.distributed: rank {self.rank}/{self.size}: {description} did not complete within "
                         f"{self.timeout:g} s: a peer process died, hangs, or called a different collective; "
                         "aborting the MPI job\n")
        sys.stderr.flush()
        self.comm.Abort(1)

    def _check_live(self, name):
        if self.comm is None:
            raise DistributedError(f"vfw.distributed.{name}: the process group has been destroyed")

    # -- collectives --------------------------------------------------------------------------------------
    def barrier(self):
        """Wait until every process of the group reaches the barrier."""
        self._check_live("barrier")
        self._guarded("barrier", self.comm.Barrier)

    def barrier_within(self, seconds):
        """A barrier that gives up after ``seconds``: whether every process reached it in time."""
        self._check_live("barrier_within")
        request = self.comm.Ibarrier()
        deadline = time.monotonic() + seconds
        while not request.Test():
            if time.monotonic() > deadline:
                return False
            time.sleep(0.001)
        return True

    def all_reduce(self, array, op="sum", out=None, description=None):
        """Reduce ``array`` elementwise over all processes; every process gets the result.

        Parameters
        ----------
        array : numpy.ndarray
            Same shape and dtype on every process.
        op : str
            One of :data:`REDUCE_OPS`.
        out : numpy.ndarray, optional
            Where to write the result (may be ``array`` itself: in place).
        description : callable, optional
            What the watchdog names if it times out (a caller's collective this reduction is part of).
        """
        self._check_live("all_reduce")
        mpi_op, work = self._reduction(op, array)

        if description is None:
            def description():  # formatted only if the watchdog fires: all_reduce is on DDP's per-step path
                return f"all_reduce({op}) of {array.shape} {array.dtype}"

        if work is not array:  # a converted copy (half precision, bool, non-contiguous): reduce it in place
            self._guarded(description, self.comm.Allreduce, self.MPI.IN_PLACE, work, mpi_op)
            result = self._finish_reduction(work, array, op)
            if out is None:
                return result
            np.copyto(out, result, casting="unsafe")
            return out
        direct = out is not None and out.flags.c_contiguous and out.dtype == array.dtype
        target = out if direct else np.empty_like(array)
        if target is array or np.shares_memory(target, array):
            self._guarded(description, self.comm.Allreduce, self.MPI.IN_PLACE, target, mpi_op)
        else:
            self._guarded(description, self.comm.Allreduce, array, target, mpi_op)
        if op == "avg":
            divide_by(target, self.size, out=target)
        if out is not None and not direct:
            np.copyto(out, target, casting="unsafe")
            return out
        return target

    def reduce_scatter(self, array, op="sum"):
        """Reduce ``array`` (leading dim ``size * k``) over all processes; process ``r`` gets rows ``r*k`` to
        ``(r+1)*k``."""
        self._check_live("reduce_scatter")
        if array.ndim == 0 or array.shape[0] % self.size:
            raise DistributedArgumentError(f"vfw.distributed.reduce_scatter: the input's first dimension must be a "
                                           f"multiple of the world size {self.size}, got shape {array.shape}")
        mpi_op, work = self._reduction(op, array)
        result = np.empty((array.shape[0] // self.size,) + array.shape[1:], work.dtype)
        self._guarded(f"reduce_scatter({op}) of {array.shape} {array.dtype}", self.comm.Reduce_scatter_block,
                      work, result, mpi_op)
        return self._finish_reduction(result, array, op)

    def broadcast(self, array, root=0):
        """Process ``root``'s ``array`` on every process, written into ``array`` (which is returned)."""
        self._check_live("broadcast")
        self._check_rank(root, "broadcast", "src")
        buffer = array if array.flags.c_contiguous else np.ascontiguousarray(array)
        self._guarded(f"broadcast from rank {root} of {array.shape} {array.dtype}", self.comm.Bcast,
                      _bytes(buffer), root)
        if buffer is not array:
            np.copyto(array, buffer)
        return array

    def all_gather(self, array):
        """Every process's ``array`` stacked along a new leading axis of length ``size`` (in rank order)."""
        self._check_live("all_gather")
        source = np.ascontiguousarray(array)
        result = np.empty((self.size,) + array.shape, array.dtype)
        self._guarded(f"all_gather of {array.shape} {array.dtype}", self.comm.Allgather, _bytes(source),
                      _bytes(result))
        return result

    def all_gather_object(self, obj):
        """Every process's picklable ``obj``, as a list in rank order."""
        self._check_live("all_gather_object")
        return self._guarded("all_gather_object", self.comm.allgather, obj)

    def broadcast_object(self, obj, root=0):
        """Process ``root``'s picklable ``obj`` on every process."""
        self._check_live("broadcast_object")
        self._check_rank(root, "broadcast_object", "src")
        return self._guarded(f"broadcast_object from rank {root}", self.comm.bcast, obj, root)

    def gather(self, array, root=0):
        """Every process's ``array`` stacked (rank order) on process ``root``; ``None`` on the others."""
        self._check_live("gather")
        self._check_rank(root, "gather", "dst")
        source = np.ascontiguousarray(array)
        result = np.empty((self.size,) + array.shape, array.dtype) if self.rank == root else None
        self._guarded(f"gather to rank {root} of {array.shape} {array.dtype}", self.comm.Gather, _bytes(source),
                      None if result is None else _bytes(result), root)
        return result

    def scatter(self, stacked, out, root=0):
        """Row ``r`` of process ``root``'s ``stacked`` (leading dim ``size``) into ``out`` on process ``r``."""
        self._check_live("scatter")
        self._check_rank(root, "scatter", "src")
        buffer = out if out.flags.c_contiguous else np.empty_like(out, order="C")
        source = None if stacked is None else _bytes(np.ascontiguousarray(stacked, dtype=out.dtype))
        self._guarded(f"scatter from rank {root} of {out.shape} {out.dtype}", self.comm.Scatter, source,
                      _bytes(buffer), root)
        if buffer is not out:
            np.copyto(out, buffer)
        return out

    def all_to_all(self, send, send_counts, recv, recv_counts):
        """Process ``r`` sends the ``send_counts[r']``-element block ``r'`` of flat ``send`` to process ``r'``,
        which receives it as block ``r`` (``recv_counts[r]`` elements) of flat ``recv``; same dtype everywhere."""
        self._check_live("all_to_all")
        itemsize = send.dtype.itemsize
        send_bytes = [int(c) * itemsize for c in send_counts]
        recv_bytes = [int(c) * itemsize for c in recv_counts]
        buffer = recv if recv.flags.c_contiguous else np.empty_like(recv, order="C")
        self._guarded(f"all_to_all of {send.shape} {send.dtype}", self.comm.Alltoallv,
                      [_bytes(np.ascontiguousarray(send)), (send_bytes, _displacements(send_bytes))],
                      [_bytes(buffer), (recv_bytes, _displacements(recv_bytes))])
        if buffer is not recv:
            np.copyto(recv, buffer)
        return recv

    def exchange(self, transfers):
        """Run point-to-point ``transfers`` concurrently: ``(is_send, array, peer, tag)`` each (received arrays are
        written in place); safe in any order, as every send and receive is posted before any is waited on."""
        self._check_live("exchange")
        requests, copies, outgoing = [], [], []  # outgoing: send buffers, alive until the sends complete
        for is_send, array, peer, tag in transfers:
            self._check_rank(peer, "exchange", "peer")
            if is_send:
                outgoing.append(_bytes(np.ascontiguousarray(array)))
                requests.append(self.comm.Isend(outgoing[-1], peer, tag))
                continue
            buffer = array if array.flags.c_contiguous else np.empty_like(array, order="C")
            if buffer is not array:
                copies.append((array, buffer))
            requests.append(self.comm.Irecv(_bytes(buffer), peer, tag))
        self._guarded(f"{len(requests)} batched sends/receives", self.MPI.Request.Waitall, requests)
        for array, buffer in copies:
            np.copyto(array, buffer)

    def gather_object(self, obj, root=0):
        """Every process's picklable ``obj`` as a list (rank order) on process ``root``; ``None`` elsewhere."""
        self._check_live("gather_object")
        self._check_rank(root, "gather_object", "dst")
        return self._guarded(f"gather_object to rank {root}", self.comm.gather, obj, root)

    def scatter_object(self, objects, root=0):
        """Entry ``r`` of process ``root``'s list ``objects`` (``size`` picklable entries), on process ``r``."""
        self._check_live("scatter_object")
        self._check_rank(root, "scatter_object", "src")
        return self._guarded(f"scatter_object from rank {root}", self.comm.scatter, objects, root)

    def send_object(self, obj, dst, tag=0):
        """Send a picklable ``obj`` to process ``dst``."""
        self._check_live("send_object")
        self._check_rank(dst, "send_object", "dst")
        self._guarded(f"send_object to rank {dst}", self.comm.send, obj, dst, tag)

    def recv_object(self, src=None, tag=None):
        """``(obj, sender)``: a picklable object received from process ``src`` (any process when ``None``)."""
        self._check_live("recv_object")
        if src is not None:
            self._check_rank(src, "recv_object", "src")
        status = self.MPI.Status()
        obj = self._guarded(f"recv_object from rank {src}", self.comm.recv, None,
                            self.MPI.ANY_SOURCE if src is None else src, self.MPI.ANY_TAG if tag is None else tag,
                            status)
        return obj, status.Get_source()

    def send(self, array, dst, tag=0):
        """Send ``array`` to process ``dst`` (blocks until the message is handed over)."""
        self._check_live("send")
        self._check_rank(dst, "send", "dst")
        self._guarded(f"send to rank {dst} of {array.shape} {array.dtype}", self.comm.Send,
                      _bytes(np.ascontiguousarray(array)), dst, tag)

    def recv(self, array, src=None, tag=None):
        """Receive into ``array`` from process ``src`` (any process when ``None``); returns the sender's rank."""
        self._check_live("recv")
        source = self.MPI.ANY_SOURCE if src is None else src
        if src is not None:
            self._check_rank(src, "recv", "src")
        buffer = array if array.flags.c_contiguous else np.empty_like(array, order="C")
        status = self.MPI.Status()
        self._guarded(f"recv from rank {src} of {array.shape} {array.dtype}", self.comm.Recv, _bytes(buffer), source,
                      self.MPI.ANY_TAG if tag is None else tag, status)
        if buffer is not array:
            np.copyto(array, buffer)
        return status.Get_source()

    def isend(self, array, dst, tag=0):
        """Start sending ``array`` to process ``dst``; the :class:`Transfer` in flight (the bytes sent are
        ``array``'s at the call, or at some moment before the transfer completes: do not write it meanwhile)."""
        self._check_live("isend")
        self._check_rank(dst, "isend", "dst")
        buffer = np.ascontiguousarray(array)
        return Transfer(self, self.comm.Isend(_bytes(buffer), dst, tag), f"isend to rank {dst} of {array.shape} "
                        f"{array.dtype}", buffer)

    def irecv(self, array, src=None, tag=None):
        """Start receiving into ``array`` from process ``src`` (any process when ``None``); the :class:`Transfer`
        in flight (``array`` holds the message once it completes)."""
        self._check_live("irecv")
        if src is not None:
            self._check_rank(src, "irecv", "src")
        buffer = array if array.flags.c_contiguous else np.empty_like(array, order="C")
        request = self.comm.Irecv(_bytes(buffer), self.MPI.ANY_SOURCE if src is None else src,
                                  self.MPI.ANY_TAG if tag is None else tag)
        return Transfer(self, request, f"irecv from rank {src} of {array.shape} {array.dtype}", buffer,
                        None if buffer is array else array)

    def shared_window(self, nbytes):
        """A slot of ``nbytes`` bytes for every process in one MPI shared-memory window, when every process of the
        group runs on this machine.

        Returns ``(window, slots)``: ``slots`` are uint8 arrays in rank order (this process's to write, the others'
        to read after :meth:`shared_barrier`); ``None`` when the group spans machines or MPI cannot allocate the
        memory.  Collective; the window lives until :meth:`destroy`.
        """
        self._check_live("shared_window")
        MPI = self.MPI
        node = self._guarded("splitting the group by machine", self.comm.Split_type, MPI.COMM_TYPE_SHARED)
        try:
            if node.Get_size() != self.size:
                return None
            try:  # key 0 everywhere: node ranks keep the group's rank order
                padded = max(64, -(-nbytes // 64) * 64)  # slots on cache lines of their own
                window = self._guarded("allocating a shared-memory window", MPI.Win.Allocate_shared, padded, 1,
                                       MPI.INFO_NULL, node)
            except MPI.Exception:
                window = None
            if not self._guarded("allocating a shared-memory window", self.comm.allreduce, int(window is not None),
                                 MPI.MIN):
                if window is not None:
                    window.Free()
                return None
        finally:
            node.Free()
        window.Lock_all(MPI.MODE_NOCHECK)  # a passive epoch for the loads and stores, synced by shared_barrier
        self._windows.append(window)
        slots = [np.frombuffer(window.Shared_query(r)[0], np.uint8, nbytes) for r in range(self.size)]
        return window, slots

    def shared_barrier(self, window, description):
        """A barrier that also orders every process's stores to ``window`` (from :meth:`shared_window`) before any
        process's loads after it."""
        window.Sync()
        self._guarded(description, self.comm.Barrier)
        window.Sync()

    def subgroup(self, ranks, timeout=None):
        """A new :class:`ProcessGroup` of this group's ``ranks`` (sorted, distinct), or ``None`` on a process not in it.

        Only the members call into MPI (``MPI_Comm_create_group``), so processes outside ``ranks`` need not take
        part; the members must create their common groups in the same order.  The new group's ``group_id`` (how
        collective ops in graphs name it) is new in this process; its ``timeout`` defaults to this group's.
        """
        self._check_live("subgroup")
        if self.rank not in ranks:
            return None
        # the tag keeps the creations of different groups that run at once (overlapping members) apart
        tag = zlib.crc32(",".join(map(str, ranks)).encode()) % 32_000
        everyone = self.comm.Get_group()
        members = everyone.Incl(list(ranks))
        try:
            comm = self._guarded(f"creating the subgroup of ranks {list(ranks)}", self.comm.Create_group, members, tag)
        finally:
            members.Free()
            everyone.Free()
        try:
            return ProcessGroup(comm, timeout=self.timeout if timeout is None else timeout, group_id=next(_GROUP_IDS))
        finally:
            comm.Free()  # the new group holds its own duplicate

    def destroy(self):
        """Free the communicator and any shared windows, and stop the watchdog (collectives then raise)."""
        if self.comm is None:
            return
        for window in self._windows:
            window.Unlock_all()
            self._guarded("freeing a shared-memory window", window.Free)
        self._windows = []
        if self._watchdog is not None:
            self._watchdog.close()
        self.comm.Free()
        self.comm = None
        if _GROUPS.get(self.group_id) is self:
            del _GROUPS[self.group_id]

    # -- helpers ----------------------------------------------------------------------------------------------
    def _check_rank(self, rank, name, argument):
        if not isinstance(rank, (int, np.integer)) or not 0 <= rank < self.size:
            raise DistributedArgumentError(f"vfw.distributed.{name}: {argument}={rank!r} is not a rank of this "
                                           f"group (ranks 0..{self.size - 1})")

    def _reduction(self, op, array):
        """The MPI op for ``op``, and the array to reduce: ``array`` itself, or a copy in a dtype MPI reduces."""
        if op not in self._reduce_ops:
            raise DistributedArgumentError(f"vfw.distributed: unknown reduction {op!r}; expected one of {REDUCE_OPS}")
        kind = array.dtype.kind
        if op == "avg" and kind not in "fc" and array.dtype.name != "bfloat16":
            raise DistributedArgumentError(f"vfw.distributed: reduction 'avg' needs a floating-point array, got "
                                           f"{array.dtype}")
        if op in ("band", "bor", "bxor") and kind not in "iub":
            raise DistributedArgumentError(f"vfw.distributed: reduction {op!r} needs an integer or bool array, "
                                           f"got {array.dtype}")
        if array.dtype.itemsize == 2 and (kind == "f" or array.dtype.name == "bfloat16"):
            return self._reduce_ops[op], array.astype(np.float32)  # MPI has no half-precision reductions
        if kind == "b":
            return self._reduce_ops[op], array.astype(np.uint8)
        return self._reduce_ops[op], (array if array.flags.c_contiguous else np.ascontiguousarray(array))

    def _finish_reduction(self, work, array, op):
        """The reduced ``work`` averaged for ``avg``, in ``array``'s dtype (a summed bool: true where any was)."""
        if op == "avg":
            divide_by(work, self.size, out=work)
        if work.dtype == array.dtype:
            return work
        return work.astype(bool) if array.dtype.kind == "b" else work.astype(array.dtype)


class Transfer:
    """A non-blocking send or receive in flight (from :meth:`ProcessGroup.isend` / :meth:`ProcessGroup.irecv`).

    It holds the send's buffer until the message is handed over (MPI reads it meanwhile), and a receive's
    contiguous buffer, copied into the (non-contiguous) destination array when the receive completes.
    """

    def __init__(self, group, request, description, buffer, target=None):
        self._group = group
        self._request = request
        self._description = description
        self._buffer = buffer
        self._target = target
        self._status = group.MPI.Status()
        self.done = False
        self.source = None  # a receive's sender, once it completed

    def test(self):
        """Whether the transfer has completed (never blocks)."""
        try:
            if not self.done and self._request.Test(self._status):
                self._finish()
        except self._group.MPI.Exception as e:
            self._group._explain_truncation(e, self._description)
            raise
        return self.done

    def wait(self, seconds=None):
        """Block until the transfer completes: True.  Without ``seconds`` the group's watchdog aborts the job
        when it takes longer than the group's timeout (a peer that died or never sends); with ``seconds``, give
        up after that long instead: whether it completed (it stays in flight)."""
        if self.done:
            return True
        if seconds is None:
            self._group._guarded(self._description, self._request.Wait, self._status)
            self._finish()
            return True
        deadline = time.monotonic() + seconds
        while not self.test():
            if time.monotonic() > deadline:
                return False
            time.sleep(0.0005)
        return True

    def _finish(self):
        self.done = True
        self.source = self._status.Get_source()
        if self._target is not None:
            np.copyto(self._target, self._buffer)
        self._buffer = self._target = None  # MPI is done with them


def _bytes(array):
    """``array``'s memory as an MPI byte buffer: data movement needs no MPI datatype for the dtype."""
    return array.reshape(-1).view(np.uint8)


def _displacements(counts):
    """Where each of consecutive blocks of ``counts`` starts."""
    return np.concatenate([[0], np.cumsum(counts[:-1], dtype=np.int64)]).astype(int).tolist()
