"""Data helpers of keras.utils: ``PyDataset``/``Sequence`` and ``(x, y, sample_weight)`` packing."""

import itertools

from vfw.frontends._warnings import warn_for_user


class PyDataset:
    """Base class of Python batch sources for ``fit``: implement ``__getitem__(index)`` (a batch) and
    ``__len__`` (the number of batches) or the ``num_batches`` property.

    Parameters
    ----------
    workers : int
    use_multiprocessing : bool
    max_queue_size : int
        Accepted and kept (vfw reads batches in the calling thread).
    """

    def __init__(self, workers=1, use_multiprocessing=False, max_queue_size=10):
        self._workers = workers
        self._use_multiprocessing = use_multiprocessing
        self._max_queue_size = max_queue_size

    def _warn_if_super_not_called(self):
        missing = [name for name in ("_workers", "_use_multiprocessing", "_max_queue_size") if not hasattr(self, name)]
        defaults = {"_workers": 1, "_use_multiprocessing": False, "_max_queue_size": 10}
        for name in missing:
            setattr(self, name, defaults[name])
        if missing:
            warn_for_user("Your `PyDataset` class should call `super().__init__(**kwargs)` in its constructor. "
                          "`**kwargs` can include `workers`, `use_multiprocessing`, `max_queue_size`. Do not pass "
                          "these arguments to `fit()`, as they will be ignored.")

    @property
    def workers(self):
        """int: number of workers asked for."""
        self._warn_if_super_not_called()
        return self._workers

    @workers.setter
    def workers(self, value):
        self._workers = value

    @property
    def use_multiprocessing(self):
        """bool: whether processes were asked for."""
        self._warn_if_super_not_called()
        return self._use_multiprocessing

    @use_multiprocessing.setter
    def use_multiprocessing(self, value):
        self._use_multiprocessing = value

    @property
    def max_queue_size(self):
        """int: the prefetch queue size asked for."""
        self._warn_if_super_not_called()
        return self._max_queue_size

    @max_queue_size.setter
    def max_queue_size(self, value):
        self._max_queue_size = value

    def __getitem__(self, index):
        raise NotImplementedError

    def __iter__(self):
        try:
            count = self.num_batches
        except NotImplementedError:
            count = None
        for index in itertools.count() if count is None else range(count):
            yield self[index]

    @property
    def num_batches(self):
        """int or None: the number of batches (``len(self)`` by default)."""
        if hasattr(self, "__len__"):
            return len(self)
        raise NotImplementedError("You need to implement the `num_batches` property:\n\n@property\ndef "
                                  "num_batches(self):\n  return ...")

    def on_epoch_begin(self):
        """Called at the start of every epoch."""

    def on_epoch_end(self):
        """Called at the end of every epoch."""


Sequence = PyDataset


def unpack_x_y_sample_weight(data):
    """``(x, y, sample_weight)`` from ``x``, ``(x,)``, ``(x, y)`` or ``(x, y, sample_weight)`` (None if missing)."""
    if isinstance(data, list):
        data = tuple(data)
    if not isinstance(data, tuple):
        return data, None, None
    if len(data) in (1, 2, 3):
        return (*data, *(None,) * (3 - len(data)))
    raise ValueError(f"Data is expected to be in format `x`, `(x,)`, `(x, y)`, or `(x, y, sample_weight)`, found: "
                     f"{data}")


def pack_x_y_sample_weight(x, y=None, sample_weight=None):
    """What ``fit`` takes: ``x`` alone (``(x,)`` for a list/tuple ``x``), ``(x, y)`` or ``(x, y, sample_weight)``."""
    if y is None:
        return (x,) if isinstance(x, (tuple, list)) else x
    if sample_weight is None:
        return x, y
    return x, y, sample_weight
