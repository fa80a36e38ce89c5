"""``EpochIterator``: one epoch of batches at a time, in groups of ``steps_per_execution``.

Iterating gives ``(begin_step, end_step, batches)`` with up to ``steps_per_execution`` batches (fewer in the
last group of the data, quietly).
With ``steps_per_epoch`` the data's iterator carries over from epoch to epoch until it is
exhausted (then it restarts); without it every epoch reads the data once.  Data that runs out
early interrupts the epoch with Keras' warning; the number of batches of data of unknown length
is learnt at the end of its first epoch.
"""

import contextlib

from vfw.frontends._warnings import warn_for_user
from vfw.frontends.tensorflow.keras.src.backend.config import max_steps_per_epoch
from vfw.frontends.tensorflow.keras.src.engine import data_adapters


class EpochIterator:
    """Batches of the data ``fit``/``evaluate``/``predict`` got, epoch by epoch (see the module docstring)."""

    def __init__(self, x, y=None, sample_weight=None, batch_size=None, steps_per_epoch=None, shuffle=False,
                 class_weight=None, steps_per_execution=1):
        cap = max_steps_per_epoch()
        if cap and (not steps_per_epoch or cap < steps_per_epoch):
            warn_for_user(f"Limiting steps_per_epoch to {cap}")
            steps_per_epoch = cap
        self.steps_per_epoch = steps_per_epoch
        self.steps_per_execution = steps_per_execution
        self.data_adapter = data_adapters.get_data_adapter(x, y, sample_weight=sample_weight, batch_size=batch_size,
                                                           steps_per_epoch=steps_per_epoch, shuffle=shuffle,
                                                           class_weight=class_weight)
        self._num_batches = self.data_adapter.num_batches
        self._current_iterator = None
        self._epoch_iterator = None
        self._steps_seen = 0
        self.ran_out_at_step = False  # this epoch's data ended where a step expected a batch

    def _interrupted_warning(self):
        warn_for_user("Your input ran out of data; interrupting training. Make sure that your dataset or generator "
                      "can generate at least `steps_per_epoch * epochs` batches. You may need to use the "
                      "`.repeat()` function when building your dataset.")

    def reset(self):
        """Start over: a fresh data iterator on the next epoch."""
        self._current_iterator = None
        self._num_batches = self.data_adapter.num_batches
        self._steps_seen = 0
        self._epoch_iterator = None
        self.data_adapter.on_epoch_end()

    def _steps(self):
        self.data_adapter.on_epoch_begin()
        steps = self.steps_per_epoch or self._num_batches or -1
        if steps > 0:
            if self._current_iterator is None or self.steps_per_epoch is None:
                self._current_iterator = iter(self.data_adapter.get_iterator())
                self._steps_seen = 0
            for step in range(0, steps, self.steps_per_execution):
                if self._num_batches and self._steps_seen >= self._num_batches:
                    if self.steps_per_epoch:
                        self._interrupted_warning()
                    break
                self._steps_seen += self.steps_per_execution
                yield step, step + self.steps_per_execution - 1, self._current_iterator
            if self._num_batches and self._steps_seen >= self._num_batches:
                self._current_iterator = iter(self.data_adapter.get_iterator())
                self._steps_seen = 0
        else:
            iterator = iter(self.data_adapter.get_iterator())
            step = -self.steps_per_execution
            while True:
                step += self.steps_per_execution
                self._steps_seen = step + self.steps_per_execution
                yield step, step + self.steps_per_execution - 1, iterator
        self.data_adapter.on_epoch_end()

    def __iter__(self):
        self._epoch_iterator = self._steps()
        self.ran_out_at_step = False
        return self

    def __next__(self):
        begin, end, iterator = next(self._epoch_iterator)
        batches = []
        with self.catch_stop_iteration():
            try:
                for _ in range(self.steps_per_execution):
                    batches.append(next(iterator))
            except StopIteration:
                # Keras on TF runs a group's steps in a loop while the iterator still has data: only a group that
                # finds no batch at all interrupts the epoch (and warns)
                if not batches:
                    raise
            return begin, end, batches
        self.ran_out_at_step = True
        raise StopIteration

    @contextlib.contextmanager
    def catch_stop_iteration(self):
        """End the epoch quietly (with Keras' warning) when the data runs out."""
        try:
            yield
        except StopIteration:
            if self._num_batches is None:
                self._num_batches = self._steps_seen
            self._interrupted_warning()
            self._current_iterator = None
            self.data_adapter.on_epoch_end()

    @property
    def num_batches(self):
        """int or None: the steps of an epoch (``steps_per_epoch``, else the data's number of batches)."""
        if self.steps_per_epoch:
            return self.steps_per_epoch
        return self._num_batches
