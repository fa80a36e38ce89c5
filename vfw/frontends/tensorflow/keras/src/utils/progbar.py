"""``keras.utils.Progbar``: Keras' console progress bar (the one ``fit`` prints)."""

import math
import time

import numpy as np

from vfw.frontends.tensorflow.keras.src.utils import io_utils

_BOLD, _GREEN, _GREY, _RESET = "\x1b[1m", "\x1b[32m", "\x1b[37m", "\x1b[0m"
_BAR = "\u2501"


class Progbar:
    """A progress bar with running metric averages.

    Parameters
    ----------
    target : int or None
        Total number of steps (None: unknown).
    width : int
        Bar width in characters.
    verbose : int
        1: a live bar redrawn in place; 2: one line when the target is reached; 0: silent.
    interval : float
        Minimum seconds between redraws.
    stateful_metrics, stateless_metrics : iterable of str, optional
        Metrics shown as given (stateful) rather than averaged over steps; give at most one of the
        two (the other metrics take the other kind).
    unit_name : str
        Shown in the time per unit ("step", "sample"...).
    """

    def __init__(self, target, width=20, verbose=1, interval=0.05, stateful_metrics=None, stateless_metrics=None,
                 unit_name="step"):
        if stateful_metrics is not None and stateless_metrics is not None:
            raise ValueError("Only one of `stateful_metrics` or `stateless_metrics` can be provided. "
                             "`stateful_metrics` is used to make metrics stateless by default (with an exclusion "
                             "list), while `stateless_metrics` is used to make metrics stateful by default (with an "
                             "exclusion list).")
        self.target = target
        self.width = width
        self.verbose = verbose
        self.interval = interval
        self.unit_name = unit_name
        self.stateless_metrics = None if stateless_metrics is None else set(stateless_metrics)
        self.stateful_metrics = None if stateless_metrics is not None else set(stateful_metrics or ())
        self._seen_so_far = 0
        self._values = {}
        self._values_order = []
        self._start = time.time()
        self._last_update = 0
        self._time_after_first_step = None
        self._prev_total_width = 0

    def _is_stateless(self, name):
        if self.stateful_metrics is not None:
            return name not in self.stateful_metrics
        return name in self.stateless_metrics

    def update(self, current, values=None, finalize=None):
        """Move the bar to step ``current`` with ``values`` (a list of ``(name, value)``).

        Stateless values are averaged over the steps since the start; ``finalize`` (default:
        ``current >= target``) ends the line.
        """
        if finalize is None:
            finalize = self.target is not None and current >= self.target
        for name, value in values or []:
            if name not in self._values_order:
                self._values_order.append(name)
            if self._is_stateless(name) and not finalize:
                weight = max(current - self._seen_so_far, 1)
                if name not in self._values:
                    self._values[name] = [value * weight, weight]
                else:
                    self._values[name][0] += value * weight
                    self._values[name][1] += weight
            else:
                self._values[name] = [value, 1]
        self._seen_so_far = current
        now = time.time()
        time_per_unit = self._step_duration(current, now)
        if self.verbose == 1:
            if now - self._last_update < self.interval and not finalize:
                return
            self._draw(current, now, time_per_unit, finalize)
        elif self.verbose == 2 and finalize and self.target is not None and self.target > 0:
            digits = int(math.log10(self.target)) + 1
            info = f"{current:{digits}d}/{self.target} - {now - self._start:.0f}s"
            info += f" -{self._format_time(time_per_unit)}"
            for name in self._values_order:
                average = self._average(name)
                # (Keras compares the signed value here, unlike the live bar)
                info += f" - {name}: {average:.4f}" if average > 0.001 else f" - {name}: {average:.4e}"
            io_utils.print_msg(info + "\n", line_break=False)
        self._last_update = now

    def _draw(self, current, now, time_per_unit, finalize):
        """Redraw the live bar (verbose 1) over the previous one."""
        message = "\b" * self._prev_total_width + "\r"
        hidden = 0  # characters of the terminal escapes, which take no width
        if self.target is not None and self.target > 0:
            digits = int(math.log10(self.target)) + 1
            bar = f"{_BOLD}{current:{digits}d}/{self.target}{_RESET} "
            hidden += 8
            done = int(self.width * float(current) / self.target)
            if done > 0:
                bar += f"{_GREEN}{_BAR * done}{_RESET}"
                hidden += 9
            bar += f"{_GREY}{_BAR * (self.width - done)}{_RESET}"
            hidden += 9
        else:
            bar = f"{current:7d}/Unknown"
        message += bar
        if self.target is not None and self.target > 0 and not finalize:
            info = f" {_BOLD}{self._format_eta(time_per_unit * (self.target - current))}{_RESET}"
        else:
            info = f" {_BOLD}{now - self._start:.0f}s{_RESET}"
        hidden += 8
        info += self._format_time(time_per_unit)
        for name in self._values_order:
            average = self._average(name)
            info += f" - {name}: {average:.4f}" if abs(average) > 0.001 else f" - {name}: {average:.4e}"
        message += info
        total_width = len(bar) + len(info) - hidden
        if self._prev_total_width > total_width:
            message += " " * (self._prev_total_width - total_width)
        if finalize:
            message += "\n"
        io_utils.print_msg(message, line_break=False)
        self._prev_total_width = total_width

    def _average(self, name):
        total, count = self._values[name]
        if not isinstance(total, float):
            total = np.mean(total)
        return total / max(1, count)

    def add(self, n, values=None):
        """Advance the bar by ``n`` steps."""
        self.update(self._seen_so_far + n, values)

    @staticmethod
    def _format_eta(seconds):
        if seconds > 3600:
            return f"{int(seconds // 3600)}:{int(seconds % 3600 // 60):02d}:{int(seconds % 60):02d}"
        if seconds > 60:
            return f"{int(seconds // 60)}:{int(seconds % 60):02d}"
        return f"{int(seconds)}s"

    def _format_time(self, time_per_unit):
        if time_per_unit >= 1 or time_per_unit == 0:
            return f" {time_per_unit:.0f}s/{self.unit_name}"
        if time_per_unit >= 1e-3:
            return f" {time_per_unit * 1e3:.0f}ms/{self.unit_name}"
        return f" {time_per_unit * 1e6:.0f}us/{self.unit_name}"

    def _step_duration(self, current, now):
        """Seconds per step, not counting the first step (compilation) once a second one is done."""
        if not current:
            return 0
        if self._time_after_first_step is not None and current > 1:
            duration = (now - self._time_after_first_step) / (current - 1)
        else:
            duration = (now - self._start) / current
        if current == 1:
            self._time_after_first_step = now
        return duration
