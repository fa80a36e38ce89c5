"""The DataLoader worker process: seeding, ``get_worker_info``, and the loop that serves index requests.

A worker receives ``(task_id, index)`` on its own index queue and answers ``(task_id, payload)``
on the shared result queue, where the payload is the pickled collated batch, an
:class:`ExceptionWrapper` for an error, or :class:`IterableDatasetStopIteration` once its copy of
an iterable dataset is exhausted. ``None`` on the index queue ends the loop; a
:class:`ResumeIteration` starts a new epoch (persistent workers).
"""

import dataclasses
import os
import pickle
import queue
import random
import sys
import traceback
from multiprocessing.reduction import ForkingPickler

import numpy as np

from vfw.frontends.torch import random as torch_random
from vfw.frontends.torch._config import set_num_threads
from vfw.frontends.torch.utils.data._utils import WORKER_POLL_INTERVAL
from vfw.frontends.torch.utils.data._utils.fetch import ITERABLE, create_fetcher

__all__ = ["WorkerInfo", "get_worker_info"]

_MASK32 = (1 << 32) - 1


@dataclasses.dataclass(frozen=True, slots=True)
class WorkerInfo:
    """What :func:`get_worker_info` tells code running in a DataLoader worker process.

    Attributes
    ----------
    id : int
        The worker's number, ``0 .. num_workers - 1``.
    num_workers : int
    seed : int
        The seed of the worker's ``torch`` and ``random`` generators (base seed + id).
    dataset : Dataset
        The worker's own copy of the dataset.
    """

    id: int
    num_workers: int
    seed: int
    dataset: object
    rng: object = None
    worker_method: str = "multiprocessing"


_worker_info = None


def get_worker_info():
    """The :class:`WorkerInfo` of this DataLoader worker process, or ``None`` in the main process."""
    return _worker_info


class KeyErrorMessage(str):
    """A message that ``repr`` leaves as it is (KeyError shows its argument's repr)."""

    __slots__ = ()

    def __repr__(self):
        return self


class ExceptionWrapper:
    """An exception caught in a worker, carried to the main process with its formatted traceback.

    Parameters
    ----------
    exc_info : tuple, optional
        ``sys.exc_info()`` of the exception (the one being handled by default).
    where : str
        Where it was caught, e.g. ``"in DataLoader worker process 0"``.
    """

    def __init__(self, exc_info=None, where="in background"):
        exc_type, exc, tb = sys.exc_info() if exc_info is None else exc_info
        self.exc_type = exc_type
        self.exc_msg = "".join(traceback.format_exception(exc_type, exc, tb))
        self.where = where

    def reraise(self):
        """Raise the exception again here: its type, with the original traceback in the message."""
        # built by a helper: a local variable holding the exception would tie it, its traceback and
        # the iterator's frames into a reference cycle that keeps the iterator (and its workers) alive
        raise self._rebuilt()

    def _rebuilt(self):
        msg = f"Caught {self.exc_type.__name__} {self.where}.\nOriginal {self.exc_msg}"
        if self.exc_type is KeyError:
            msg = KeyErrorMessage(msg)
        elif getattr(self.exc_type, "message", None):
            return self.exc_type(message=msg)
        try:
            return self.exc_type(msg)
        except Exception:  # noqa: BLE001  (a type that cannot take one message argument)
            return RuntimeError(msg)


@dataclasses.dataclass(frozen=True)
class IterableDatasetStopIteration:
    """A worker's copy of an iterable dataset is exhausted."""

    worker_id: int


@dataclasses.dataclass(frozen=True)
class ResumeIteration:
    """Start a new epoch with the same (persistent) workers; echoed back as an acknowledgement."""

    seed: object = None


def numpy_seed_state(base_seed, worker_id):
    """The four 32-bit words torch seeds a worker's ``numpy.random`` with.

    A SeedSequence hash of ``(worker_id, base_seed's low and high words, 0)``, so numpy's
    stream differs from the ``random`` and ``torch`` streams seeded with ``base_seed + worker_id``.
    """
    entropy = [worker_id, base_seed & _MASK32, base_seed >> 32, 0]
    return np.random.SeedSequence(entropy).generate_state(4)


def seed_worker(base_seed, worker_id):
    """Seed ``random``, ``torch`` and ``numpy.random`` of a worker process as torch does; returns the seed."""
    seed = base_seed + worker_id
    random.seed(seed)
    torch_random.manual_seed(seed)
    np.random.seed(numpy_seed_state(base_seed, worker_id))
    return seed


def _parent_alive(parent_pid):
    return os.getppid() == parent_pid


def _payload(result, worker_id):
    """``result`` pickled here, so that an unpicklable one is reported instead of lost in the queue's thread.

    An error whose exception type cannot be pickled (a class defined inside a function) travels
    as a RuntimeError carrying the original traceback.
    """
    try:
        return bytes(ForkingPickler.dumps(result))
    except Exception:  # noqa: BLE001  (any pickling failure goes back to the main process)
        if isinstance(result, ExceptionWrapper) and result.exc_type is not RuntimeError:
            result.exc_type = RuntimeError
            return _payload(result, worker_id)
        return bytes(ForkingPickler.dumps(ExceptionWrapper(where=f"in DataLoader worker process {worker_id}")))


def load_payload(payload):
    """The object a worker sent with :func:`_payload` (an :class:`ExceptionWrapper` if it cannot be unpickled)."""
    try:
        return pickle.loads(payload)
    except Exception:  # noqa: BLE001  (re-raised by the iterator like a worker's error)
        return ExceptionWrapper(where="when unpickling a batch from a DataLoader worker")


def _new_fetcher(dataset_kind, dataset, auto_collation, collate_fn, drop_last, where):
    """``(fetcher, None)``, or ``(None, ExceptionWrapper)`` when making it failed (``iter(dataset)`` raised)."""
    try:
        return create_fetcher(dataset_kind, dataset, auto_collation, collate_fn, drop_last), None
    except Exception:  # noqa: BLE001  (reported for every batch asked for in this epoch)
        return None, ExceptionWrapper(where=where)


def _fetch(fetcher, index, dataset_kind, worker_id, where):
    """The batch for ``index``; an ExceptionWrapper for an error; IterableDatasetStopIteration at the stream's end."""
    try:
        return fetcher.fetch(index)
    except StopIteration:
        if dataset_kind == ITERABLE:
            return IterableDatasetStopIteration(worker_id)
        return ExceptionWrapper(where=where)
    except Exception:  # noqa: BLE001  (re-raised in the main process)
        return ExceptionWrapper(where=where)


def worker_loop(dataset_kind, dataset, index_queue, result_queue, done_event, auto_collation, collate_fn, drop_last,
                base_seed, init_fn, worker_id, num_workers):
    """Body of a worker process: seed, run ``init_fn``, then fetch batches for the indices received."""
    global _worker_info
    parent_pid = os.getppid()
    where = f"in DataLoader worker process {worker_id}"
    try:
        set_num_threads(1)
        seed = seed_worker(base_seed, worker_id)
        _worker_info = WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed, dataset=dataset)
        try:
            if init_fn is not None:
                init_fn(worker_id)
        except Exception:  # noqa: BLE001  (reported for every batch this worker is asked for)
            setup_error = ExceptionWrapper(where=where)
        else:
            setup_error = None
        fetcher, fetcher_error = _new_fetcher(dataset_kind, dataset, auto_collation, collate_fn, drop_last, where)
        exhausted = False
        while _parent_alive(parent_pid) and not done_event.is_set():
            try:
                request = index_queue.get(timeout=WORKER_POLL_INTERVAL)
            except queue.Empty:
                continue
            if request is None:
                break
            if isinstance(request, ResumeIteration):
                result_queue.put((request, None))
                exhausted = False
                fetcher, fetcher_error = _new_fetcher(dataset_kind, dataset, auto_collation, collate_fn, drop_last,
                                                      where)
                continue
            if exhausted:
                continue  # nothing left to read: the main process skips these tasks
            task_id, index = request
            if setup_error is not None or fetcher_error is not None:
                result = setup_error or fetcher_error
            else:
                result = _fetch(fetcher, index, dataset_kind, worker_id, where)
                exhausted = isinstance(result, IterableDatasetStopIteration)
            result_queue.put((task_id, _payload(result, worker_id)))
            del result, request, index
    except KeyboardInterrupt:
        pass  # the main process handles Ctrl-C and shuts the workers down
    if done_event.is_set():
        # the main process no longer reads: do not wait at exit for queued results to drain
        result_queue.cancel_join_thread()
        result_queue.close()
