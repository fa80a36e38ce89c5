"""Data-parallel processes over MPI: the world process group, its collectives, bucketed gradient reduction.

Start several processes with an MPI launcher (``python -m vfw.distributed.run --nproc 2 script.py`` or
``mpirun -n 2 python script.py``); in each, :func:`init` gives the :class:`ProcessGroup` of all of them.
Frontends build on it: ``torch.distributed`` and ``DistributedDataParallel``, ``tf.distribute``
strategies.  In traced graphs the collectives are the engine ops AllReduce, AllGather, ReduceScatter and
Broadcast (``vfw.core.ops.collective``).
"""

import os

from vfw.core.distributed import mpi
from vfw.core.distributed.buckets import DEFAULT_BUCKET_BYTES, SOLO_BYTES, Buckets
from vfw.core.distributed.group import DEFAULT_TIMEOUT, REDUCE_OPS, ProcessGroup, divide_by, get_group
from vfw.core.distributed.mpi import DistributedError, MPIUnavailableError
from vfw.core.distributed.shared_average import SHARED_MEMORY_VARIABLE, SharedAverage

TIMEOUT_VARIABLE = "VFW_DISTRIBUTED_TIMEOUT"
"""Environment variable: seconds a collective may take before the job is aborted (overrides the default)."""

__all__ = ["DEFAULT_BUCKET_BYTES", "DEFAULT_TIMEOUT", "REDUCE_OPS", "SHARED_MEMORY_VARIABLE", "SOLO_BYTES", "Buckets",
           "DistributedError", "MPIUnavailableError", "ProcessGroup", "SharedAverage", "available", "destroy",
           "divide_by", "get_group", "init", "is_initialized", "world"]


def available():
    """Whether mpi4py is installed (without starting MPI)."""
    return mpi.available()


def is_initialized():
    """Whether the world group exists in this process."""
    try:
        get_group(0)
    except DistributedError:
        return False
    return True


def world():
    """The world :class:`ProcessGroup` (raises :class:`DistributedError` before :func:`init`)."""
    return get_group(0)


def init(timeout=None, world_size=None, rank=None):
    """Start MPI (once) and return the world :class:`ProcessGroup` of every process the launcher started.

    Parameters
    ----------
    timeout : float, optional
        Seconds a collective may take before the job is aborted: the ``VFW_DISTRIBUTED_TIMEOUT``
        environment variable, else :data:`DEFAULT_TIMEOUT`.
    world_size, rank : int, optional
        What the caller expects (from its own configuration, e.g. torch's ``WORLD_SIZE``/``RANK``): a
        mismatch with what MPI started raises :class:`DistributedError` saying how to launch.

    Raises
    ------
    MPIUnavailableError
        mpi4py or the MPI library is missing (the message says what to install).
    DistributedError
        The expected world size or rank differ from MPI's.
    """
    if is_initialized():
        group = world()
    else:
        mpi_module = mpi.load()
        if timeout is None:
            timeout = float(os.environ.get(TIMEOUT_VARIABLE, DEFAULT_TIMEOUT))
        if timeout <= 0:
            raise DistributedError(f"vfw.distributed.init: timeout must be positive, got {timeout}")
        group = ProcessGroup(mpi_module.COMM_WORLD, timeout=timeout, group_id=0)
        mpi.abort_on_uncaught_exception()
    _check_expected(group, world_size, rank)
    return group


def destroy():
    """Destroy the world group (MPI itself stays initialized until the process exits)."""
    if is_initialized():
        world().destroy()


def _check_expected(group, world_size, rank):
    if world_size is not None and int(world_size) != group.size:
        launched = ("this process was not started by an MPI launcher" if group.size == 1 else
                    f"the MPI launcher started {group.size} processes")
        raise DistributedError(f"vfw.distributed: world size {world_size} was asked for but {launched}; start "
                               f"{world_size} processes with `python -m vfw.distributed.run --nproc {world_size} "
                               f"script.py` or `mpirun -n {world_size} python script.py`")
    if rank is not None and int(rank) != group.rank:
        raise DistributedError(f"vfw.distributed: rank {rank} was asked for but MPI gave this process rank "
                               f"{group.rank} (of {group.size}); ranks come from the MPI launcher, so leave RANK "
                               "unset or equal to it")
