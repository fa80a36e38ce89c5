"""``torch.utils.benchmark.utils.common``: what a timing is about (``TaskSpec``), the times measured
(``Measurement``: median, IQR, significant figures, torch's printed summary) and unit helpers."""

import contextlib
import math

import numpy as np

__all__ = ["Measurement", "TaskSpec", "ordered_unique", "select_unit", "set_torch_threads", "trim_sigfig",
           "unit_to_english"]

_IQR_WARN = 0.1  # relative IQR above which a measurement warns and does not meet confidence
_IQR_SEVERE = 0.25  # ... and above which the warning blames the environment
_MAX_SIGNIFICANT_FIGURES = 4
_MIN_CONFIDENCE_INTERVAL = 25e-9  # seconds: timer resolution, whatever the spread says
_UNITS = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1}
_ENGLISH = {"ns": "nanosecond", "us": "microsecond", "ms": "millisecond", "s": "second"}


def ordered_unique(elements):
    """``elements`` without repeats, in first-seen order."""
    return list(dict.fromkeys(elements))


def select_unit(t):
    """``(unit, seconds per unit)`` to show time ``t`` (seconds) with 1 to 3 digits before the point."""
    unit = {-3: "ns", -2: "us", -1: "ms"}.get(int(math.floor(math.log10(t) / 3)) if t > 0 else -3, "s")
    return unit, _UNITS[unit]


def unit_to_english(u):
    """``'us'`` -> ``'microsecond'``."""
    return _ENGLISH[u]


def trim_sigfig(x, n):
    """``x`` rounded to ``n`` significant figures."""
    if x == 0:
        return 0.0
    # counted from ceil(log10 |x|) and rounded in float32, as torch does
    scale = 10.0 ** (math.ceil(math.log10(abs(x))) - n)
    return float(np.round(np.float32(x / scale)) * np.float32(scale))


def set_torch_threads(n):
    """Context manager running its block with ``torch.set_num_threads(n)``."""
    import vfw.frontends.torch as torch  # here: the package imports this module

    @contextlib.contextmanager
    def threads():
        previous = torch.get_num_threads()
        torch.set_num_threads(n)
        try:
            yield
        finally:
            torch.set_num_threads(previous)

    return threads()


class TaskSpec:
    """What one measurement timed: statement, setup and the labels used to arrange results."""

    def __init__(self, stmt, setup, global_setup="", label=None, sub_label=None, description=None, env=None,
                 num_threads=1):
        self.stmt, self.setup, self.global_setup = stmt, setup, global_setup
        self.label, self.sub_label, self.description = label, sub_label, description
        self.env, self.num_threads = env, num_threads

    def _key(self):
        return (self.stmt, self.setup, self.global_setup, self.label, self.sub_label, self.description, self.env,
                self.num_threads)

    def __eq__(self, other):
        return isinstance(other, TaskSpec) and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    @property
    def title(self):
        """The label (with the sub label), else the statement."""
        sub = f": {self.sub_label}" if self.sub_label else ""
        if self.label is not None:
            return self.label + sub
        if "\n" not in self.stmt:
            return self.stmt + sub
        return f"stmt:{f' ({self.sub_label})' if self.sub_label else ''}\n" + _indented(self.stmt)

    def summarize(self):
        """The header lines of a measurement's printout (a multi-line part is followed by an empty line)."""
        lines = [self.title + ("\n" if "\n" in self.title else "")]
        if self.description:
            lines.append(self.description)
        if self.setup != "pass":
            lines.append(f"setup:\n{_indented(self.setup)}\n" if "\n" in self.setup else f"setup: {self.setup}")
        return "\n".join(lines)


def _indented(text):
    return "\n".join("  " + line for line in text.splitlines())


class Measurement:
    """The times of one task: ``raw_times[i]`` seconds for ``number_per_run`` runs of the statement.

    Parameters
    ----------
    number_per_run : int
    raw_times : list of float
    task_spec : TaskSpec
    metadata : dict, optional

    Attributes
    ----------
    times : list of float
        Seconds per run of the statement, one per block.
    median, mean, iqr : float
        Of ``times`` (IQR: 75th minus 25th percentile, linearly interpolated).
    """

    def __init__(self, number_per_run, raw_times, task_spec, metadata=None):
        self.number_per_run, self.raw_times = number_per_run, list(raw_times)
        self.task_spec, self.metadata = task_spec, metadata
        self.times = [t / number_per_run for t in self.raw_times]
        self._sorted = np.sort(np.asarray(self.times, dtype=np.float64))
        self.median = float(np.median(self._sorted)) if len(self._sorted) else math.nan
        self.mean = float(np.mean(self._sorted)) if len(self._sorted) else math.nan
        quartiles = np.quantile(self._sorted, [0.25, 0.75]) if len(self._sorted) else [math.nan] * 2
        self._p25, self._p75 = float(quartiles[0]), float(quartiles[1])
        self.iqr = self._p75 - self._p25

    def __getattr__(self, name):  # the task's fields: stmt, label, sub_label, description, num_threads...
        if name != "task_spec" and "task_spec" in self.__dict__ and hasattr(self.task_spec, name):
            return getattr(self.task_spec, name)
        raise AttributeError(f"'Measurement' object has no attribute '{name}'")

    @property
    def title(self):
        return self.task_spec.title

    @property
    def as_row_name(self):
        return self.task_spec.sub_label or self.task_spec.stmt or "[Unknown]"

    def _relative_iqr(self):
        return self.iqr / self.median if self.median > 0 else 0.0

    def meets_confidence(self, threshold=_IQR_WARN):
        """Whether the IQR is below ``threshold`` times the median."""
        return self._relative_iqr() < threshold

    @property
    def has_warnings(self):
        return not self.meets_confidence()

    @property
    def significant_figures(self):
        """Digits of the median the spread supports: the 90% confidence interval of the mean of the middle
        half of the times (no narrower than the timer's resolution), 1 to 4."""
        n = len(self._sorted)
        middle = self._sorted[n // 4:math.ceil(3 * n / 4)]
        if not len(middle):
            return 1
        interval = max(1.645 * float(np.std(middle)) / math.sqrt(len(middle)), _MIN_CONFIDENCE_INTERVAL)
        return min(max(int(math.floor(math.log10(self.median / interval))), 1), _MAX_SIGNIFICANT_FIGURES)

    def _warnings(self):
        if self.meets_confidence():
            return []
        cause = ("This suggests significant environmental influence." if self._relative_iqr() > _IQR_SEVERE
                 else "This could indicate system fluctuation.")
        return [f"  WARNING: Interquartile range is {self._relative_iqr() * 100:.1f}% of the median measurement.\n"
                f"           {cause}"]

    def __repr__(self):
        unit, scale = select_unit(self.median)
        # torch's module path, where vfw's class would print its own
        lines = [f"<torch.utils.benchmark.utils.common.Measurement object at {id(self):#x}>",
                 self.task_spec.summarize()]
        count = len(self.times)
        if count >= 4:
            lines += [f"  Median: {self.median / scale:.2f} {unit}",
                      f"  IQR:    {self.iqr / scale:.2f} {unit} ({self._p25 / scale:.2f} to {self._p75 / scale:.2f})"]
        elif count > 1:
            lines.append(f"  Median: {self.median / scale:.2f} {unit}")
        else:
            lines.append(f"  {self.median / scale:.2f} {unit}")
        threads = self.task_spec.num_threads
        lines.append(f"  {count} measurement{'s' if count > 1 else ''}, {self.number_per_run} runs "
                     f"{'per measurement' if count > 1 else ''}, {threads} thread{'s' if threads > 1 else ''}")
        return "\n".join(lines + self._warnings())

    __str__ = __repr__

    @staticmethod
    def merge(measurements):
        """One measurement per task: the times of measurements of one ``task_spec`` pooled (per run)."""
        pooled = {}
        for m in measurements:
            pooled.setdefault(m.task_spec, []).extend(m.times)
        return [Measurement(1, times, spec) for spec, times in pooled.items()]
