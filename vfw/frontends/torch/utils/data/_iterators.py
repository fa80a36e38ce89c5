"""DataLoader iterators: loading in the main process, or in worker processes.

Creating an iterator draws its base seed (one int64 from the loader's generator, the default
one when it has none), as torch does even without workers, so that the generators advance as
in torch; the index sampler starts drawing on the first index requested.

The multi-process iterator sends ``(task_id, index)`` to the workers round-robin, keeps
``prefetch_factor * num_workers`` tasks in flight, and delivers results in task order
(``in_order=True``) or as they arrive. Workers stop when the iterator is exhausted, deleted
or garbage collected (persistent workers: when the loader goes away), and are terminated if
they do not stop by themselves.
"""

import itertools
import multiprocessing
import queue

from vfw.frontends._warnings import warn_for_user
from vfw.frontends.torch.utils.data import _utils
from vfw.frontends.torch.utils.data._utils.fetch import ITERABLE, create_fetcher
from vfw.frontends.torch.utils.data._utils.worker import (
    ExceptionWrapper,
    IterableDatasetStopIteration,
    ResumeIteration,
    load_payload,
    worker_loop,
)
from vfw.frontends.torch.utils.data.sampler import draw_seed

_POLL_S = 1.0  # how often the main process checks that its workers are alive while it waits


class _BaseDataLoaderIter:
    """What both iterators share: the loader's settings, the base seed, the index sampler, the len warning."""

    def __init__(self, loader):
        self._dataset = loader.dataset
        self._dataset_kind = loader._dataset_kind
        self._IterableDataset_len_called = loader._IterableDataset_len_called
        self._auto_collation = loader._auto_collation
        self._drop_last = loader.drop_last
        self._index_sampler = loader._index_sampler
        self._num_workers = loader.num_workers
        if loader.pin_memory and loader.pin_memory_device:
            warn_for_user("pin_memory_device is deprecated, the current accelerator will be used as the device,"
                          f"ignore pin_memory_device='{loader.pin_memory_device}'.")
        if loader.pin_memory:
            warn_for_user("'pin_memory' argument is set as true but no accelerator is found, then device pinned "
                          "memory won't be used.")
        self._timeout = loader.timeout
        self._collate_fn = loader.collate_fn
        self._sampler_iter = iter(self._index_sampler)
        self._base_seed = draw_seed(loader.generator)
        self._persistent_workers = loader.persistent_workers
        self._num_yielded = 0

    def __iter__(self):
        return self

    def _reset(self, loader, first_iter=False):
        """Start a new pass over the index sampler."""
        self._sampler_iter = iter(self._index_sampler)
        self._num_yielded = 0
        self._IterableDataset_len_called = loader._IterableDataset_len_called

    def _next_index(self):
        return next(self._sampler_iter)

    def _next_data(self):
        raise NotImplementedError

    def __next__(self):
        data = self._next_data()
        self._num_yielded += 1
        reported = self._IterableDataset_len_called
        if self._dataset_kind == ITERABLE and reported is not None and self._num_yielded > reported:
            msg = (f"Length of IterableDataset {self._dataset} was reported to be {reported}(when accessing "
                   f"len(dataloader)), but {self._num_yielded} samples have been fetched. ")
            if self._num_workers > 0:
                msg += ("For multiprocessing data-loading, this could be caused by not properly configuring the "
                        "IterableDataset replica at each worker. Please see "
                        "https://pytorch.org/docs/stable/data.html#torch.utils.data.IterableDataset for examples.")
            warn_for_user(msg)
        return data

    def __len__(self):
        return len(self._index_sampler)

    def __getstate__(self):
        raise NotImplementedError("{} cannot be pickled", type(self).__name__)


class _SingleProcessDataLoaderIter(_BaseDataLoaderIter):
    """Loads every batch in the main process, when it is asked for."""

    def __init__(self, loader):
        super().__init__(loader)
        if self._timeout != 0:
            raise AssertionError("_SingleProcessDataLoaderIter requires timeout == 0")
        self._dataset_fetcher = create_fetcher(self._dataset_kind, self._dataset, self._auto_collation,
                                               self._collate_fn, self._drop_last)

    def _next_data(self):
        return self._dataset_fetcher.fetch(self._next_index())


class _MultiProcessingDataLoaderIter(_BaseDataLoaderIter):
    """Loads batches in ``num_workers`` worker processes, ahead of the consumer."""

    _shutdown = True  # nothing to shut down until the workers exist

    def __init__(self, loader):
        super().__init__(loader)
        self._prefetch_factor = loader.prefetch_factor
        if self._prefetch_factor <= 0:
            raise AssertionError("prefetch_factor must be greater than 0 for MultiProcessingDataLoaderIter")
        self._in_order = loader.in_order
        context = loader.multiprocessing_context or multiprocessing
        self._result_queue = context.Queue()
        self._workers_done_event = context.Event()
        self._index_queues = []
        self._workers = []
        self._shutdown = False
        for worker_id in range(self._num_workers):
            index_queue = context.Queue()
            index_queue.cancel_join_thread()  # requests left unread must not block the main process at exit
            worker = context.Process(target=worker_loop, daemon=True, args=(
                self._dataset_kind, self._dataset, index_queue, self._result_queue, self._workers_done_event,
                self._auto_collation, self._collate_fn, self._drop_last, self._base_seed, loader.worker_init_fn,
                worker_id, self._num_workers))
            self._index_queues.append(index_queue)
            worker.start()
            self._workers.append(worker)
        self._reset(loader, first_iter=True)

    def _reset(self, loader, first_iter=False):
        super()._reset(loader, first_iter)
        self._send_idx = 0  # the next task id to send
        self._rcvd_idx = 0  # the next task id to deliver (in order)
        self._tasks = {}  # task id -> [worker id] while pending, [worker id, data] once it arrived early
        self._worker_active = [True] * self._num_workers
        self._worker_load = [0] * self._num_workers  # tasks sent to each worker and not delivered yet
        self._worker_cycle = itertools.cycle(range(self._num_workers))
        if not first_iter:
            # persistent workers: start their new epoch; results of an abandoned epoch are dropped
            for index_queue in self._index_queues:
                index_queue.put(ResumeIteration())
            waiting = self._num_workers
            while waiting:
                task_id, _ = self._get_data()
                waiting -= isinstance(task_id, ResumeIteration)
        for _ in range(self._prefetch_factor * self._num_workers):
            self._try_put_index()

    # -- receiving ------------------------------------------------------------------------
    def _try_get_data(self, timeout):
        """``(True, (task_id, payload))``, or ``(False, None)`` after ``timeout`` seconds with nothing."""
        try:
            return True, self._result_queue.get(timeout=timeout)
        except queue.Empty:
            dead = [w for wid, w in enumerate(self._workers) if self._worker_active[wid] and not w.is_alive()]
            if dead:
                for w in dead:
                    self._worker_active[self._workers.index(w)] = False
                pids = ", ".join(str(w.pid) for w in dead)
                raise RuntimeError(f"DataLoader worker (pid(s) {pids}) exited unexpectedly") from None
            return False, None

    def _get_data(self):
        if self._timeout > 0:
            ok, item = self._try_get_data(self._timeout)
            if not ok:
                raise RuntimeError(f"DataLoader timed out after {self._timeout} seconds")
            return item
        while True:
            ok, item = self._try_get_data(_POLL_S)
            if ok:
                return item

    def _next_data(self):
        while True:
            # move past tasks that were delivered out of order or that no worker will answer any more
            while self._rcvd_idx < self._send_idx:
                task = self._tasks.get(self._rcvd_idx)
                if task is not None and (len(task) == 2 or self._worker_active[task[0]]):
                    break
                self._tasks.pop(self._rcvd_idx, None)
                self._rcvd_idx += 1
            else:
                if not self._persistent_workers:
                    self._shutdown_workers()
                raise StopIteration
            task = self._tasks[self._rcvd_idx]
            if len(task) == 2:  # arrived earlier
                del self._tasks[self._rcvd_idx]
                self._rcvd_idx += 1
                return self._process_data(task[1], task[0])
            task_id, payload = self._get_data()
            data = load_payload(payload)
            if isinstance(data, IterableDatasetStopIteration):
                worker_id = self._tasks.pop(task_id)[0]
                self._worker_load[worker_id] -= 1
                self._stop_worker(worker_id)
                self._try_put_index()
                continue
            if task_id != self._rcvd_idx and self._in_order:
                self._tasks[task_id].append(data)  # kept until its turn
                continue
            worker_id = self._tasks.pop(task_id)[0]
            if task_id == self._rcvd_idx:
                self._rcvd_idx += 1
            return self._process_data(data, worker_id)

    def _process_data(self, data, worker_id):
        self._worker_load[worker_id] -= 1
        self._try_put_index()
        if isinstance(data, ExceptionWrapper):
            data.reraise()
        return data

    # -- sending --------------------------------------------------------------------------
    def _pick_worker(self):
        """The next active worker round-robin (out of order: one below its share of tasks); None if none is active."""
        active = sum(self._worker_active)
        if not active:
            return None
        share = self._prefetch_factor * self._num_workers // active
        for _ in range(self._num_workers):
            wid = next(self._worker_cycle)
            if self._worker_active[wid] and (self._in_order or self._worker_load[wid] < share):
                return wid
        return min((wid for wid in range(self._num_workers) if self._worker_active[wid]),
                   key=self._worker_load.__getitem__)

    def _try_put_index(self):
        try:
            index = self._next_index()
        except StopIteration:
            return
        wid = self._pick_worker()
        if wid is None:
            return
        self._index_queues[wid].put((self._send_idx, index))
        self._tasks[self._send_idx] = [wid]
        self._worker_load[wid] += 1
        self._send_idx += 1

    # -- stopping -------------------------------------------------------------------------
    def _stop_worker(self, worker_id):
        """A worker's dataset copy is exhausted: send it no more tasks (and let it exit unless persistent)."""
        self._worker_active[worker_id] = False
        if not self._persistent_workers:
            self._index_queues[worker_id].put(None)

    def _shutdown_workers(self):
        """Stop the workers (once): ask them to exit, wait a little, terminate those still running."""
        if self._shutdown or _utils is None or _utils.python_exit_status:
            return  # at interpreter exit multiprocessing terminates the (daemonic) workers itself
        self._shutdown = True
        try:
            self._workers_done_event.set()
            for index_queue in self._index_queues:
                index_queue.put(None)
            for w in self._workers:
                w.join(timeout=_utils.MP_STATUS_CHECK_INTERVAL)
            for index_queue in self._index_queues:
                index_queue.close()
        finally:
            for w in self._workers:
                if w.is_alive():
                    w.terminate()
                    w.join(timeout=_utils.MP_STATUS_CHECK_INTERVAL)

    def __del__(self):
        self._shutdown_workers()
