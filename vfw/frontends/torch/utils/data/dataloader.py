"""``DataLoader``: iterate a dataset in (shuffled, collated) batches, in the main process or in workers."""

import math
import multiprocessing
import os
from typing import Generic, TypeVar

from vfw.frontends._warnings import warn_for_user
from vfw.frontends.torch.utils.data._iterators import (  # noqa: F401  (_BaseDataLoaderIter: torch's name here)
    _BaseDataLoaderIter,
    _MultiProcessingDataLoaderIter,
    _SingleProcessDataLoaderIter,
)
from vfw.frontends.torch.utils.data._utils import collate, fetch, worker
from vfw.frontends.torch.utils.data.dataset import IterableDataset
from vfw.frontends.torch.utils.data.sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler

__all__ = ["DataLoader", "get_worker_info", "default_collate", "default_convert"]

default_collate = collate.default_collate
default_convert = collate.default_convert
get_worker_info = worker.get_worker_info

T_co = TypeVar("T_co", covariant=True)

# attributes that define the batches: fixed once the loader is built
_FROZEN = ("batch_size", "batch_sampler", "sampler", "drop_last", "dataset", "persistent_workers")


class _DatasetKind:
    """Map-style (indexed) or iterable dataset."""

    Map = fetch.MAP
    Iterable = fetch.ITERABLE

    @staticmethod
    def create_fetcher(kind, dataset, auto_collation, collate_fn, drop_last):
        return fetch.create_fetcher(kind, dataset, auto_collation, collate_fn, drop_last)


class _InfiniteConstantSampler(Sampler):
    """Yields ``None`` forever: the "indices" of an iterable dataset, which is read in order until it ends."""

    def __iter__(self):
        while True:
            yield None


def _suggested_max_workers():
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()


class DataLoader(Generic[T_co]):
    """Iterate over a dataset in batches.

    Parameters
    ----------
    dataset : Dataset
        Map-style (indexed) or :class:`IterableDataset`.
    batch_size : int or None
        Samples per batch (default 1). ``None`` disables batching: each sample is passed through
        ``default_convert`` (numpy -> tensors) instead of being collated.
    shuffle : bool, optional
        Visit a map-style dataset in a new random order each epoch (a :class:`RandomSampler`
        drawing from ``generator``).
    sampler : Sampler or iterable, optional
        The indices to load (not with ``shuffle``).
    batch_sampler : Sampler or iterable of lists, optional
        Lists of indices, one per batch (not with ``batch_size``, ``shuffle``, ``sampler``, ``drop_last``).
    num_workers : int
        Worker processes loading batches ahead (0: load in the main process).
    collate_fn : callable, optional
        Turns a list of samples into a batch (default :func:`default_collate`).
    pin_memory : bool
        Accepted; tensors live on the CPU, so there is no pinned memory (torch's warning is given).
    drop_last : bool
        Drop a last, incomplete batch.
    timeout : float
        Seconds to wait for a worker's batch before raising (0: wait as long as it takes).
    worker_init_fn : callable, optional
        Called as ``worker_init_fn(worker_id)`` in each worker after seeding, before loading.
    multiprocessing_context : str or multiprocessing context, optional
        Start method of the workers ('fork', 'spawn', 'forkserver'); the default context otherwise.
    generator : torch.Generator, optional
        Draws the base seed of each iterator (and the shuffle order); the default generator when ``None``.
    prefetch_factor : int, optional
        Batches each worker loads ahead (2 with workers; only with workers).
    persistent_workers : bool
        Keep the workers between epochs (only with workers).
    pin_memory_device : str
        Deprecated in torch; accepted.
    in_order : bool
        Deliver worker batches in sampler order (default), or as soon as they are ready.
    """

    _initialized = False

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None, num_workers=0,
                 collate_fn=None, pin_memory=False, drop_last=False, timeout=0, worker_init_fn=None,
                 multiprocessing_context=None, generator=None, *, prefetch_factor=None, persistent_workers=False,
                 pin_memory_device="", in_order=True):
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to disable "
                             "multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError("prefetch_factor option could only be specified in multiprocessing.let num_workers > 0 "
                             "to enable multiprocessing, otherwise set prefetch_factor to None.")
        if num_workers > 0 and prefetch_factor is None:
            prefetch_factor = 2
        elif prefetch_factor is not None and prefetch_factor < 0:
            raise ValueError("prefetch_factor option should be non-negative")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")
        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context
        self.in_order = in_order

        if isinstance(dataset, IterableDataset):
            self._dataset_kind = _DatasetKind.Iterable
            if shuffle not in (False, None):
                raise ValueError("DataLoader with IterableDataset: expected unspecified shuffle option, but got "
                                 f"shuffle={shuffle}")
            if sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified sampler option, but got "
                                 f"sampler={sampler}")
            if batch_sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified batch_sampler option, but "
                                 f"got batch_sampler={batch_sampler}")
        else:
            shuffle = bool(shuffle)
            self._dataset_kind = _DatasetKind.Map
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and "
                                 "drop_last")
            batch_size, drop_last = None, False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually exclusive with drop_last")

        if sampler is None:
            if self._dataset_kind == _DatasetKind.Iterable:
                sampler = _InfiniteConstantSampler()
            elif shuffle:
                sampler = RandomSampler(dataset, generator=generator)
            else:
                sampler = SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.generator = generator
        if collate_fn is None:
            collate_fn = default_collate if self._auto_collation else default_convert
        self.collate_fn = collate_fn
        self.persistent_workers = persistent_workers
        self._initialized = True
        # set by len(loader) for an iterable dataset: more items than that draw a warning
        self._IterableDataset_len_called = None
        self._iterator = None
        self.check_worker_number_rationality()

    @property
    def multiprocessing_context(self):
        """The multiprocessing context the workers start from (``None``: the default one)."""
        return self._multiprocessing_context

    @multiprocessing_context.setter
    def multiprocessing_context(self, context):
        if context is not None:
            if self.num_workers == 0:
                raise ValueError("multiprocessing_context can only be used with multi-process loading "
                                 f"(num_workers > 0), but got num_workers={self.num_workers}")
            if isinstance(context, str):
                methods = multiprocessing.get_all_start_methods()
                if context not in methods:
                    raise ValueError("multiprocessing_context option should specify a valid start method in "
                                     f"{methods!r}, but got multiprocessing_context={context!r}")
                context = multiprocessing.get_context(context)
            if not isinstance(context, multiprocessing.context.BaseContext):
                raise TypeError("multiprocessing_context option should be a valid context object or a string "
                                f"specifying the start method, but got multiprocessing_context={context}")
        self._multiprocessing_context = context

    def __setattr__(self, name, value):
        if self._initialized and name in _FROZEN:
            raise ValueError(f"{name} attribute should not be set after {type(self).__name__} is initialized")
        super().__setattr__(name, value)

    @property
    def _auto_collation(self):
        return self.batch_sampler is not None

    @property
    def _index_sampler(self):
        """What the iterators draw from: lists of indices when batching, single indices otherwise."""
        return self.batch_sampler if self._auto_collation else self.sampler

    def _get_iterator(self):
        if self.num_workers == 0:
            return _SingleProcessDataLoaderIter(self)
        self.check_worker_number_rationality()
        return _MultiProcessingDataLoaderIter(self)

    def __iter__(self):
        """A new iterator over one epoch (with persistent workers: the same one, restarted)."""
        if not (self.persistent_workers and self.num_workers > 0):
            return self._get_iterator()
        if self._iterator is None:
            self._iterator = self._get_iterator()
        else:
            self._iterator._reset(self)
        return self._iterator

    def __len__(self):
        """Batches per epoch; for an iterable dataset, derived from ``len(dataset)`` (and remembered)."""
        if self._dataset_kind != _DatasetKind.Iterable:
            return len(self._index_sampler)
        length = self._IterableDataset_len_called = len(self.dataset)
        if self.batch_size is None:
            return length
        return length // self.batch_size if self.drop_last else math.ceil(length / self.batch_size)

    def check_worker_number_rationality(self):
        """Warn when more workers are asked for than this process may run on CPUs."""
        if not self.num_workers:
            return
        suggested = _suggested_max_workers()
        if suggested is not None and self.num_workers <= suggested:
            return
        if suggested is None:
            advice = "DataLoader is not able to compute a suggested max number of worker in current system."
        else:
            cpuset = "" if hasattr(os, "sched_getaffinity") else " (`cpuset` is not taken into account)"
            advice = (f"Our suggested max number of worker in current system is {suggested}{cpuset}, which is "
                      "smaller than what this DataLoader is going to create.")
        warn_for_user(f"This DataLoader will create {self.num_workers} worker processes in total. {advice} Please "
                      "be aware that excessive worker creation might get DataLoader running slow or even freeze, "
                      "lower the worker number to avoid potential slowness/freeze if necessary.")
