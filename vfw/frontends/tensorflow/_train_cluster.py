"""``tf.train.ClusterSpec`` (job names -> task addresses: bookkeeping only, vfw runs in one process) and
``tf.train.Coordinator`` (stop requests, exceptions and joins shared by Python threads)."""

import threading
import time

from vfw.frontends.tensorflow import errors


class ClusterSpec:
    """The tasks of a cluster: for each job name, task index -> network address.

    Parameters
    ----------
    cluster : dict or ClusterSpec
        Job name -> a list of addresses (task ``i`` at position ``i``) or a dict task index -> address.
    """

    def __init__(self, cluster):
        if isinstance(cluster, ClusterSpec):
            # TF rebuilds it from its ClusterDef, whose jobs are sorted by name.
            self._jobs = {job: dict(cluster._jobs[job]) for job in sorted(cluster._jobs)}
            return
        if not isinstance(cluster, dict):
            raise TypeError("`cluster` must be a dictionary mapping one or more job names to lists of network "
                            "addresses, or a `ClusterDef` protocol buffer")
        self._jobs = {}
        for job, tasks in cluster.items():
            if isinstance(tasks, (list, tuple)):
                tasks = dict(enumerate(tasks))
            elif isinstance(tasks, dict):
                tasks = {int(index): address for index, address in sorted(tasks.items())}
            else:
                raise TypeError(f"The tasks for job {job!r} must be a list or a dictionary from integers to strings.")
            for address in tasks.values():
                if not isinstance(address, (str, bytes)):
                    raise TypeError(f"Task address {address!r} must be bytes or unicode")
            self._jobs[job] = tasks

    def __bool__(self):
        return bool(self._jobs)

    def __eq__(self, other):
        return isinstance(other, ClusterSpec) and self._jobs == other._jobs

    def __ne__(self, other):
        return not self == other

    def __repr__(self):
        shown = {job: self._tasks_of(job) for job in sorted(self._jobs)}
        return f"ClusterSpec({shown!r})"

    def _tasks_of(self, job):
        tasks = self._jobs[job]
        if sorted(tasks) == list(range(len(tasks))):
            return [tasks[i] for i in range(len(tasks))]
        return dict(tasks)

    def _job(self, job_name):
        try:
            return self._jobs[job_name]
        except KeyError:
            raise ValueError(f"No such job in cluster: {job_name!r}") from None

    def as_dict(self):
        """dict: job name -> list of addresses (dict index -> address when the indices are not ``0..n-1``)."""
        return {job: self._tasks_of(job) for job in self._jobs}

    @property
    def jobs(self):
        """list of str: the job names."""
        return list(self._jobs)

    def num_tasks(self, job_name):
        """int: the number of tasks of ``job_name`` (ValueError for an unknown job)."""
        return len(self._job(job_name))

    def task_indices(self, job_name):
        """list of int: the task indices of ``job_name``, ascending."""
        return sorted(self._job(job_name))

    def task_address(self, job_name, task_index):
        """str: the address of task ``task_index`` of ``job_name``."""
        tasks = self._job(job_name)
        if task_index not in tasks:
            raise ValueError(f"No task with index {task_index} in job {job_name!r}")
        return tasks[task_index]

    def job_tasks(self, job_name):
        """list: the addresses of ``job_name`` by index up to the largest, None where an index has no task."""
        tasks = self._job(job_name)
        return [tasks.get(i) for i in range(max(tasks) + 1)] if tasks else []


class Coordinator:
    """Lets threads ask one another to stop, and reports the first exception of any of them at ``join``.

    Parameters
    ----------
    clean_stop_exception_types : tuple of exception types, optional
        Exceptions that request a stop without being reported (default ``(tf.errors.OutOfRangeError,)``).
    """

    def __init__(self, clean_stop_exception_types=None):
        if clean_stop_exception_types is None:
            clean_stop_exception_types = (errors.OutOfRangeError,)
        self._clean_stop_exception_types = tuple(clean_stop_exception_types)
        self._lock = threading.Lock()
        self._stop_event = threading.Event()
        self._exc_info_to_raise = None
        self._joined = False
        self._registered_threads = set()

    def _reported(self, ex):
        """``ex`` as an exc_info triple, or None when it is absent or a clean-stop exception."""
        if ex is None:
            return None
        instance = ex[1] if isinstance(ex, tuple) else ex
        if isinstance(instance, self._clean_stop_exception_types):
            return None
        return ex if isinstance(ex, tuple) else (type(ex), ex, ex.__traceback__)

    def request_stop(self, ex=None):
        """Ask the threads to stop; ``ex`` (an exception or an exc_info triple), the first one reported, is raised
        by ``join``.  After ``join`` the exception is raised at once."""
        with self._lock:
            reported = self._reported(ex)
            if self._joined and reported is not None:
                raise reported[1]
            if reported is not None and self._exc_info_to_raise is None:
                self._exc_info_to_raise = reported
            self._stop_event.set()

    def clear_stop(self):
        """Forget the stop request, the recorded exception and the join."""
        with self._lock:
            self._joined = False
            self._exc_info_to_raise = None
            self._stop_event.clear()

    def should_stop(self):
        """bool: whether a stop was requested."""
        return self._stop_event.is_set()

    def stop_on_exception(self):
        """A context manager that turns an exception raised inside it into ``request_stop(exception)``."""
        return _StopOnException(self)

    def wait_for_stop(self, timeout=None):
        """Wait until a stop is requested (at most ``timeout`` seconds); returns whether one was."""
        return self._stop_event.wait(timeout)

    def register_thread(self, thread):
        """Add ``thread`` to the threads ``join`` waits for."""
        with self._lock:
            self._registered_threads.add(thread)

    def join(self, threads=None, stop_grace_period_secs=120, ignore_live_threads=False):
        """Wait for the threads (given and registered) to end or a stop to be requested, then up to
        ``stop_grace_period_secs`` more for them to end.

        Raises
        ------
        Exception
            The first exception passed to ``request_stop``.
        RuntimeError
            When threads still run after the grace period (unless ``ignore_live_threads``).
        """
        with self._lock:
            self._registered_threads.update(threads or [])
            threads = set(self._registered_threads)

        def running():
            return [t for t in threads if t.is_alive()]

        while running() and not self.wait_for_stop(1.0):
            pass
        deadline = time.monotonic() + stop_grace_period_secs
        pause = 0.001
        while running() and time.monotonic() < deadline:
            time.sleep(min(pause, max(deadline - time.monotonic(), 0.0)))
            pause = min(pause * 2, 1.0)
        stragglers = [t.name for t in running()]
        with self._lock:
            self._joined = True
            self._registered_threads = set()
            if self._exc_info_to_raise is not None:
                raise self._exc_info_to_raise[1].with_traceback(self._exc_info_to_raise[2])
            if stragglers and not ignore_live_threads:
                raise RuntimeError(f"Coordinator stopped with threads still running: {' '.join(stragglers)}")

    @property
    def joined(self):
        """bool: whether ``join`` has run (since the last ``clear_stop``)."""
        return self._joined

    def raise_requested_exception(self):
        """Raise the exception passed to ``request_stop``, if any."""
        with self._lock:
            if self._exc_info_to_raise is not None:
                raise self._exc_info_to_raise[1].with_traceback(self._exc_info_to_raise[2])


class _StopOnException:
    def __init__(self, coordinator):
        self._coordinator = coordinator

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc_type is None:
            return False
        self._coordinator.request_stop((exc_type, exc, tb))
        return True


NAMESPACES = {"train": ["ClusterSpec", "Coordinator"]}
TENSOR_METHODS = {}
