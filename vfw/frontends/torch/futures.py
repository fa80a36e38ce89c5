"""``torch.futures``: a :class:`Future` completed once with a value or an exception, ``wait_all``, ``collect_all``.

Completion may come from another thread: ``wait()`` blocks on a condition variable until ``set_result`` or
``set_exception`` is called.  Callbacks run in the thread that completes the future (immediately when it is
already complete), in the order they were added.
"""

import sys
import threading
import traceback
from typing import Generic, TypeVar

__all__ = ["Future", "collect_all", "wait_all"]

T = TypeVar("T")
S = TypeVar("S")


class Future(Generic[T]):
    """A value that becomes available later.

    Parameters
    ----------
    devices : list, optional
        Accepted for torch's signature (CPU only: nothing to synchronize).
    """

    def __init__(self, *, devices=None):
        self._condition = threading.Condition()
        self._done = False
        self._value = None
        self._error = None
        self._callbacks = []

    def done(self):
        """bool: whether a result or an exception has been set."""
        return self._done

    def wait(self):
        """Block until the future completes; return its value or raise its exception."""
        with self._condition:
            self._condition.wait_for(lambda: self._done)
        return self.value()

    def value(self):
        """The value of a completed future (its exception is raised).

        Raises
        ------
        RuntimeError
            When the future is not complete yet.
        """
        if not self._done:
            raise RuntimeError("Future.value() called on a Future that is not completed yet: call wait() first")
        if self._error is not None:
            raise self._error
        return self._value

    def then(self, callback):
        """A new future completed with ``callback(self)`` once this one completes.

        An exception raised by ``callback`` completes the new future with a RuntimeError naming it, as torch.
        """
        chained = Future()

        def run(future):
            try:
                result = callback(future)
            except Exception as error:  # noqa: BLE001 - the callback's failure becomes the new future's
                wrapped = RuntimeError(f"Got the following error when running the callback: "
                                       f"{type(error).__name__}: {error}")
                wrapped.__cause__ = error
                chained.set_exception(wrapped)
            else:
                chained.set_result(result)

        self.add_done_callback(run)
        return chained

    def add_done_callback(self, callback):
        """Call ``callback(self)`` once the future completes (now, when it already has).

        An exception from ``callback`` is printed and otherwise ignored, as torch logs it.
        """
        with self._condition:
            if not self._done:
                self._callbacks.append(callback)
                return
        self._run_callback(callback)

    def _run_callback(self, callback):
        try:
            callback(self)
        except Exception as error:  # noqa: BLE001 - torch logs a failing done-callback and goes on
            print(f"Got the following error when running the callback: {type(error).__name__}: {error}\n\n"
                  f"{traceback.format_exc()}", file=sys.stderr)

    def _complete(self, value, error):
        with self._condition:
            if self._done:
                raise RuntimeError("Attempting to mark a completed Future as complete again. Note that a Future can "
                                   "only be marked completed once.")
            self._value, self._error, self._done = value, error, True
            callbacks, self._callbacks = self._callbacks, []
            self._condition.notify_all()
        for callback in callbacks:
            self._run_callback(callback)

    def set_result(self, result):
        """Complete the future with ``result`` (RuntimeError when it is already complete); run its callbacks."""
        self._complete(result, None)

    def set_exception(self, result):
        """Complete the future with the exception ``result``: ``wait()`` and ``value()`` raise it."""
        if not isinstance(result, Exception):
            raise AssertionError(f"{result} is of type {type(result)}, not an Exception.")
        self._complete(None, result)


def collect_all(futures):
    """A future completed, once every future of ``futures`` is, with the list of those futures.

    Parameters
    ----------
    futures : list of Future

    Returns
    -------
    Future
    """
    futures = list(futures)
    collected = Future()
    remaining = [len(futures)]
    lock = threading.Lock()

    def count_down(_):
        with lock:
            remaining[0] -= 1
            last = remaining[0] == 0
        if last:
            collected.set_result(futures)

    if not futures:
        collected.set_result(futures)
    for future in futures:
        future.add_done_callback(count_down)
    return collected


def wait_all(futures):
    """Wait for every future of ``futures``; the list of their values (the first failure's exception raises)."""
    return [future.wait() for future in collect_all(futures).wait()]
