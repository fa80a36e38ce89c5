"""``torch.multiprocessing.spawn``: run ``fn(rank, *args)`` in ``nprocs`` processes and report their failures.

Each child writes the traceback of an exception escaping ``fn`` into an error file of its own and exits with
status 1; the parent waits on the processes' sentinels, and at the first failure terminates the others and
raises :class:`ProcessRaisedException` (with the child's traceback text) or, for a child that died without
writing one (a crash, a signal, ``os._exit``), :class:`ProcessExitedException`.

Where MPI is installed, ``spawn`` of several processes runs them as one MPI job instead (:mod:`._mpi_spawn`),
so that they can call ``torch.distributed.init_process_group(rank=rank, world_size=nprocs)``, as the DDP
tutorial's workers do; failures are reported the same way.
"""

import multiprocessing
import multiprocessing.connection
import multiprocessing.util
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback
import warnings

from vfw.frontends.torch.multiprocessing import _mpi_spawn

__all__ = ["ProcessContext", "ProcessException", "ProcessExitedException", "ProcessRaisedException", "SpawnContext",
           "spawn", "start_processes"]

# torch reads it to start processes from threads; vfw starts them one after another and only names it.
ENV_VAR_PARALLEL_START = "TORCH_MP_PARALLEL_START"


class ProcessException(Exception):  # noqa: N818  (torch's name)
    """A spawned process failed.

    Parameters
    ----------
    msg : str
    error_index : int
        The failed process's rank.
    error_pid : int
        Its process id.
    """

    __slots__ = ["error_index", "error_pid"]

    def __init__(self, msg, error_index, pid):
        super().__init__(msg)
        self.msg = msg
        self.error_index = error_index
        self.error_pid = pid

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.error_pid)


class ProcessRaisedException(ProcessException):
    """A spawned process raised an exception; the message holds its traceback."""


class ProcessExitedException(ProcessException):
    """A spawned process exited with a nonzero status or was killed by a signal (``signal_name``)."""

    __slots__ = ["exit_code"]

    def __init__(self, msg, error_index, error_pid, exit_code, signal_name=None):
        super().__init__(msg, error_index, error_pid)
        self.exit_code = exit_code
        self.signal_name = signal_name

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.error_pid, self.exit_code, self.signal_name)


def _wrap(fn, rank, args, error_file):
    """The child's entry point: ``fn(rank, *args)``; an escaping exception's traceback goes to ``error_file``."""
    try:
        fn(rank, *args)
    except KeyboardInterrupt:
        pass  # the parent was interrupted too (same process group): it reports that itself
    except Exception:
        with open(error_file, "w", encoding="utf-8") as file:
            file.write(traceback.format_exc())
        sys.exit(1)


class ProcessContext:
    """The processes started by :func:`start_processes` (``join=False`` returns it).

    Attributes
    ----------
    processes : list of multiprocessing.Process
    error_files : list of str
        Where each child writes the traceback of a failure.
    sentinels : dict
        Sentinel -> rank, for the processes not yet seen to exit.
    """

    def __init__(self, processes, error_files):
        self.error_files = error_files
        self.processes = processes
        self.sentinels = {process.sentinel: index for index, process in enumerate(processes)}

    def pids(self):
        """list[int]: the processes' ids, by rank."""
        return [int(process.pid) for process in self.processes]

    def join(self, timeout=None, grace_period=None):
        """Wait for processes to exit.

        Parameters
        ----------
        timeout : float, optional
            Seconds to wait for some process to exit (None: until one does).
        grace_period : float, optional
            After a failure, seconds the other processes get after SIGTERM before SIGKILL (None: wait).

        Returns
        -------
        bool
            True once every process has exited successfully, False while some still run.

        Raises
        ------
        ProcessRaisedException
            A process raised; the message holds its traceback.
        ProcessExitedException
            A process exited with a nonzero status or by a signal.
        """
        if not self.sentinels:
            return True
        ready = multiprocessing.connection.wait(list(self.sentinels), timeout=timeout)
        failed_index = None
        for sentinel in ready:
            index = self.sentinels.pop(sentinel)
            process = self.processes[index]
            process.join()
            if process.exitcode != 0:
                failed_index = index
                break
        if failed_index is None:
            return not self.sentinels
        self._stop_others(grace_period)
        raise self._failure(failed_index)

    def _stop_others(self, grace_period):
        """SIGTERM the processes still running, SIGKILL those still there after ``grace_period`` seconds."""
        for process in self.processes:
            if process.is_alive():
                process.terminate()
        if grace_period is not None:
            deadline = time.monotonic() + grace_period
            for process in self.processes:
                process.join(max(0.0, deadline - time.monotonic()))
            for process in self.processes:
                if process.is_alive():
                    process.kill()
        for process in self.processes:
            process.join()

    def _failure(self, index):
        """The exception describing the failure of process ``index``."""
        process = self.processes[index]
        error_file = self.error_files[index]
        if not os.path.exists(error_file):
            if process.exitcode < 0:
                name = signal.Signals(-process.exitcode).name
                return ProcessExitedException(f"process {index} terminated with signal {name}", error_index=index,
                                              error_pid=process.pid, exit_code=process.exitcode, signal_name=name)
            return ProcessExitedException(f"process {index} terminated with exit code {process.exitcode}",
                                          error_index=index, error_pid=process.pid, exit_code=process.exitcode)
        with open(error_file, encoding="utf-8") as file:
            child_traceback = file.read()
        message = f"\n\n-- Process {index} terminated with the following error:\n{child_traceback}"
        return ProcessRaisedException(message, index, process.pid)


class _MPIJobContext(ProcessContext):
    """The processes of a spawn run as one MPI job (see :mod:`._mpi_spawn`): joined through their launcher."""

    def __init__(self, launcher, error_files, error_dir):
        self.launcher, self.error_files, self.error_dir = launcher, error_files, error_dir
        self.processes, self.sentinels = [], {}

    def pids(self):
        return [_mpi_spawn.pid_of(self.error_dir, rank) for rank in range(len(self.error_files))]

    def join(self, timeout=None, grace_period=None):
        try:
            status = self.launcher.wait(timeout)
        except subprocess.TimeoutExpired:
            return False
        if status == 0:
            return True
        _mpi_spawn.stop(self.launcher, grace_period)
        index = _mpi_spawn.failed_rank(self.error_dir, len(self.error_files))
        pid = _mpi_spawn.pid_of(self.error_dir, index)
        if os.path.exists(self.error_files[index]):
            with open(self.error_files[index], encoding="utf-8") as file:
                child_traceback = file.read()
            message = f"\n\n-- Process {index} terminated with the following error:\n{child_traceback}"
            raise ProcessRaisedException(message, index, pid)
        raise ProcessExitedException(f"process {index} terminated with exit code {status}", error_index=index,
                                     error_pid=pid, exit_code=status)


class SpawnContext(ProcessContext):
    """The pre-1.4 name of :class:`ProcessContext` (warns)."""

    def __init__(self, processes, error_files):
        warnings.warn("SpawnContext is renamed to ProcessContext since 1.4 release.", stacklevel=2)
        super().__init__(processes, error_files)


def start_processes(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """Start ``nprocs`` processes running ``fn(rank, *args)`` with the start method ``start_method``.

    Parameters
    ----------
    fn : callable
        A picklable (module-level) function called as ``fn(rank, *args)``, ``rank`` in ``range(nprocs)``.
    args : tuple
    nprocs : int
    join : bool
        Wait for every process (raising on the first failure); otherwise return the :class:`ProcessContext`.
    daemon : bool
        Start daemonic processes.
    start_method : str
        ``'spawn'``, ``'fork'`` or ``'forkserver'``.  With ``'spawn'``, several processes and MPI installed, the
        processes are one MPI job (``daemon`` does not apply; see :mod:`._mpi_spawn`).

    Returns
    -------
    ProcessContext or None
        The context when ``join`` is False.
    """
    context = multiprocessing.get_context(start_method)
    # The error files live in a directory removed when the parent exits; a child creates its file only on failure.
    error_dir = tempfile.mkdtemp(prefix="vfw-spawn-errors-")
    multiprocessing.util.Finalize(None, shutil.rmtree, args=(error_dir, True), exitpriority=0)
    job = _mpi_spawn.start(fn, args, nprocs, error_dir) if start_method == "spawn" else None
    if job is not None:  # one MPI job: the children can form a torch.distributed process group
        process_context = _MPIJobContext(*job, error_dir)
    else:
        process_context = _start_children(context, fn, args, nprocs, daemon, error_dir)
    if not join:
        return process_context
    while not process_context.join():
        pass
    return None


def _start_children(context, fn, args, nprocs, daemon, error_dir):
    """A :class:`ProcessContext` of ``nprocs`` processes of ``context`` running ``fn(rank, *args)``."""
    error_files, processes = [], []
    for rank in range(nprocs):
        error_file = os.path.join(error_dir, f"process-{rank}.traceback")
        process = context.Process(target=_wrap, args=(fn, rank, args, error_file), daemon=daemon)
        process.start()
        error_files.append(error_file)
        processes.append(process)
    return ProcessContext(processes, error_files)


def spawn(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """:func:`start_processes` with the ``'spawn'`` start method.

    Another ``start_method`` gives torch's FutureWarning, and the processes are still spawned, as in torch.
    """
    if start_method != "spawn":
        warnings.warn(f"This method only supports start_method=spawn (got: {start_method}).\nTo use a different "
                      "start_method use:\n\t\t torch.multiprocessing.start_processes(...)", FutureWarning,
                      stacklevel=2)
    return start_processes(fn, args, nprocs, join, daemon, start_method="spawn")
