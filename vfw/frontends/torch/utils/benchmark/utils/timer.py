"""``torch.utils.benchmark.Timer``: ``timeit`` with torch's measurement objects, thread control and
automatic block sizes (``blocked_autorange``, ``adaptive_autorange``)."""

import enum
import timeit

from vfw.frontends.torch.utils.benchmark.utils.common import Measurement, TaskSpec, set_torch_threads

__all__ = ["Language", "Timer", "timer"]

timer = timeit.default_timer
_MIN_BLOCK_SECONDS = 1e-3  # a block this long makes the timer's own overhead negligible


class Language(enum.Enum):
    PYTHON = 0
    CPP = 1


class Timer:
    """Times a Python statement.

    Parameters
    ----------
    stmt, setup : str
        The statement timed, and code run once before each timing.
    global_setup : str
        C++ only (must be empty for Python).
    timer : callable
        The clock (default ``timeit.default_timer``).
    globals : dict, optional
        The namespace (copied; ``torch`` is added when absent, as torch does).
    label, sub_label, description, env : str, optional
        How ``Compare`` arranges the results: tables, rows, columns, environments.
    num_threads : int
        ``torch.set_num_threads`` while timing.
    language : Language or str
        Only Python.
    """

    def __init__(self, stmt="pass", setup="pass", global_setup="", timer=timer, globals=None, label=None,
                 sub_label=None, description=None, env=None, num_threads=1, language=Language.PYTHON):
        if not isinstance(stmt, str):
            raise ValueError("Currently only a `str` stmt is supported.")
        if language not in (Language.PYTHON, "py", "python"):
            raise NotImplementedError("vfw's torch.utils.benchmark.Timer times Python statements only")
        if global_setup:
            raise ValueError("global_setup is C++ only.")
        namespace = dict(globals or {})
        if "torch" not in namespace:
            import vfw.frontends.torch as torch
            namespace["torch"] = torch
        self._task_spec = TaskSpec(stmt=stmt, setup=setup, global_setup=global_setup, label=label,
                                   sub_label=sub_label, description=description, env=env, num_threads=num_threads)
        self._timer = timeit.Timer(stmt=stmt, setup=setup, timer=timer, globals=namespace)

    def _timeit(self, number):
        with set_torch_threads(self._task_spec.num_threads):
            return self._timer.timeit(number)

    def timeit(self, number=1000000):
        """One block of ``number`` runs (after a short warm-up): a Measurement of one time."""
        self._timeit(max(number // 100, 2))
        return Measurement(number_per_run=number, raw_times=[self._timeit(number)], task_spec=self._task_spec)

    def repeat(self, repeat=-1, number=-1):
        raise NotImplementedError("See `Timer.blocked_autorange.`")

    def autorange(self, callback=None):
        raise NotImplementedError("See `Timer.blocked_autorange.`")

    def _block_size(self, min_block_seconds):
        """Runs per block: powers of ten until a block lasts ``min_block_seconds``."""
        number = 1
        while self._timeit(number) < min_block_seconds:
            number *= 10
        return number

    def _blocks(self, number, callback, done):
        times = []
        while True:
            elapsed = self._timeit(number)
            if callback is not None:
                callback(number, elapsed)
            times.append(elapsed)
            if done(times):
                return Measurement(number_per_run=number, raw_times=times, task_spec=self._task_spec)

    def blocked_autorange(self, callback=None, min_run_time=0.2):
        """Blocks of a fixed size (each long enough to hide the timer's overhead) until ``min_run_time``
        seconds were spent timing.

        Parameters
        ----------
        callback : callable, optional
            ``callback(number, seconds)`` after each block.
        min_run_time : float

        Returns
        -------
        Measurement
        """
        number = self._block_size(max(min_run_time / 1000, _MIN_BLOCK_SECONDS))
        return self._blocks(number, callback, lambda times: sum(times) >= min_run_time)

    def adaptive_autorange(self, threshold=0.1, *, min_run_time=0.01, max_run_time=10.0, callback=None):
        """Blocks until the IQR is below ``threshold`` times the median (after at least ``min_run_time``
        seconds and three blocks), or ``max_run_time`` seconds were spent.

        Returns
        -------
        Measurement
        """
        number = self._block_size(max(min_run_time / 100, _MIN_BLOCK_SECONDS))

        def done(times):
            total = sum(times)
            if total >= max_run_time:
                return True
            confident = Measurement(number, times, self._task_spec).meets_confidence(threshold)
            return total >= min_run_time and len(times) >= 3 and confident

        return self._blocks(number, callback, done)
