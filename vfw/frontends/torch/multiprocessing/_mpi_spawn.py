"""``torch.multiprocessing.spawn`` as one MPI job, so that the children can form a process group.

vfw's process groups are MPI communicators (:mod:`vfw.core.distributed`): only processes an MPI launcher started
together share one.  The DDP tutorial starts its workers with ``mp.spawn(run, args=(world_size,),
nprocs=world_size)`` from a plain ``python script.py`` and has each call
``init_process_group("gloo", rank=rank, world_size=world_size)``.  So when mpi4py and an MPI launcher are
installed, :func:`start` runs the children under ``mpirun -n nprocs``: each prepares as a child of the
``spawn`` start method does (the parent's main script imported as ``__mp_main__``, so a ``fn`` defined there
unpickles), takes its MPI rank as ``rank`` and calls ``fn(rank, *args)``.  A child's exception is reported
as :mod:`spawn` reports it (its traceback in an error file, :class:`ProcessRaisedException` in the parent).

Not taken (the multiprocessing route is): one process, a parent that is itself one of several MPI processes,
arguments only inheritance can pass (queues, pipes), ``VFW_SPAWN_MPI=0``, or no MPI installed.
"""

import importlib.util
import multiprocessing.spawn
import os
import pickle
import signal
import subprocess
import sys
import traceback

from vfw.core.distributed.mpi import launcher_environment

SPAWN_MPI_VARIABLE = "VFW_SPAWN_MPI"
"""Environment variable: ``0`` makes ``spawn`` start plain multiprocessing children even where MPI is installed."""


def _launcher():
    """The MPI launcher's path and whether it is Open MPI's, or None when mpi4py or a launcher is missing."""
    if importlib.util.find_spec("mpi4py") is None:
        return None
    from vfw.distributed.run import _is_open_mpi, find_launcher

    try:
        launcher = find_launcher()
    except SystemExit:
        return None
    return launcher, _is_open_mpi(launcher)


def start(fn, args, nprocs, error_dir):
    """Start ``fn(rank, *args)`` in ``nprocs`` processes of one MPI job, or return None where the job cannot be
    used (see the module docstring).

    Returns
    -------
    (subprocess.Popen, list of str) or None
        The launcher's process and each rank's error file.
    """
    if nprocs < 2 or os.environ.get(SPAWN_MPI_VARIABLE, "1").strip() == "0" or \
            (launcher_environment()[1] or 1) > 1:
        return None
    try:
        payload = pickle.dumps((fn, args))
    except Exception:  # noqa: BLE001  (queues, pipes, locks: objects only process inheritance passes)
        return None
    found = _launcher()
    if found is None:
        return None
    launcher, open_mpi = found
    preparation = multiprocessing.spawn.get_preparation_data("vfw-spawn")
    preparation["authkey"] = bytes(preparation["authkey"])  # (pickled only for a spawned child's start)
    path = os.path.join(error_dir, "job.pickle")
    with open(path, "wb") as file:
        pickle.dump((preparation, error_dir, payload), file)
    from vfw import _child_serving

    served = _child_serving.served_frameworks()
    child = ["-c", _child_serving.prelude(served) + "from vfw.frontends.torch.multiprocessing import _mpi_spawn; "
             "_mpi_spawn.child(__import__('sys').argv[1])", path] if served else \
        ["-m", "vfw.frontends.torch.multiprocessing._mpi_spawn", path]
    command = [launcher, "-n", str(nprocs)] + (["--oversubscribe"] if open_mpi else []) + [sys.executable] + child
    env = dict(os.environ)
    if hasattr(os, "geteuid") and os.geteuid() == 0:  # containers run as root; Open MPI refuses it unless told
        env.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
        env.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    process = subprocess.Popen(command, env=env)
    return process, [os.path.join(error_dir, f"process-{rank}.traceback") for rank in range(nprocs)]


def child(path):
    """A child's entry point: prepare as a spawned child, then ``fn(rank, *args)`` with this process's MPI rank."""
    with open(path, "rb") as file:
        preparation, error_dir, payload = pickle.load(file)
    multiprocessing.spawn.prepare(preparation)
    rank = launcher_environment()[0]
    with open(os.path.join(error_dir, f"process-{rank}.pid"), "w", encoding="utf-8") as file:
        file.write(str(os.getpid()))
    try:
        fn, args = pickle.loads(payload)
        fn(rank, *args)
    except KeyboardInterrupt:
        os._exit(130)
    except Exception:  # noqa: BLE001  (reported to the parent, as the multiprocessing route does)
        with open(os.path.join(error_dir, f"process-{rank}.traceback"), "w", encoding="utf-8") as file:
            file.write(traceback.format_exc())
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(1)  # not sys.exit: finalizing MPI would wait for peers stuck in a collective
    with open(os.path.join(error_dir, f"process-{rank}.done"), "w", encoding="utf-8"):
        pass


def stop(process, grace_period):
    """Stop the job: SIGTERM to the launcher (it stops every rank), SIGKILL after ``grace_period`` seconds."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(grace_period)
        except subprocess.TimeoutExpired:
            process.kill()
    process.wait()


def pid_of(error_dir, rank):
    """The process id rank ``rank`` recorded, or -1."""
    try:
        with open(os.path.join(error_dir, f"process-{rank}.pid"), encoding="utf-8") as file:
            return int(file.read())
    except (OSError, ValueError):
        return -1


def failed_rank(error_dir, nprocs):
    """The first rank that wrote a traceback, else the first that did not finish."""
    for suffix in (".traceback", ".done"):
        for rank in range(nprocs):
            exists = os.path.exists(os.path.join(error_dir, f"process-{rank}{suffix}"))
            if exists == (suffix == ".traceback"):
                return rank
    return 0


if __name__ == "__main__":
    child(sys.argv[1])
