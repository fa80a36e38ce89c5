"""``torch.utils.benchmark.Compare``: measurements as text tables, one per label: a row per sub label (grouped
by thread count), a column per description, medians in one unit."""

import enum
import math

from vfw.frontends.torch.utils.benchmark.utils.common import (
    Measurement,
    ordered_unique,
    select_unit,
    trim_sigfig,
    unit_to_english,
)

__all__ = ["Colorize", "Compare"]

_BEST, _GOOD, _BAD, _VERY_BAD = "\033[92m", "\033[34m", "\033[2m\033[91m", "\033[31m"
_BOLD, _END = "\033[1m", "\033[0m"


class Colorize(enum.Enum):
    NONE = "none"
    COLUMNWISE = "columnwise"
    ROWWISE = "rowwise"


class Compare:
    """Tables of measurements.

    Parameters
    ----------
    results : list of Measurement
    """

    def __init__(self, results):
        self._results = []
        self.extend_results(results)
        self._trim_significant_figures = False
        self._colorize = Colorize.NONE
        self._highlight_warnings = False

    def extend_results(self, results):
        """Add measurements."""
        for r in results:
            if not isinstance(r, Measurement):
                raise ValueError(f"Expected an instance of `Measurement`, got {type(r)} instead.")
        self._results.extend(results)

    def trim_significant_figures(self):
        """Show each median only to the digits its spread supports."""
        self._trim_significant_figures = True

    def colorize(self, rowwise=False):
        """Colour each time by how it compares with the fastest of its column (``rowwise``: of its row)."""
        self._colorize = Colorize.ROWWISE if rowwise else Colorize.COLUMNWISE

    def highlight_warnings(self):
        """Mark times whose measurement warned about its spread."""
        self._highlight_warnings = True

    def print(self):
        print(str(self))

    def __str__(self):
        merged = Measurement.merge(self._results)
        labels = ordered_unique(m.task_spec.label for m in merged)
        return "\n".join(self._table(label, [m for m in merged if m.task_spec.label == label]) for label in labels)

    def _table(self, label, measurements):
        """One label's table: rows (thread count, env, row name), a column per description."""
        unit, scale = select_unit(min(m.median for m in measurements))
        row_keys = ordered_unique((m.task_spec.num_threads, m.task_spec.env, m.as_row_name) for m in measurements)
        row_keys.sort(key=lambda key: key[:2])  # grouped by threads and env, statements in first-seen order
        columns = ordered_unique(m.task_spec.description for m in measurements)
        grid = {(m.task_spec.num_threads, m.task_spec.env, m.as_row_name, m.task_spec.description): m
                for m in measurements}
        table = [[grid.get(key + (c,)) for c in columns] for key in row_keys]
        envs = {m.task_spec.env for m in measurements}
        env_width = max(len(str(e)) for e in envs) if len(envs) > 1 else 0
        formats = [_NumberFormat([row[j] for row in table if row[j] is not None], scale,
                                 self._trim_significant_figures, self._highlight_warnings)
                   for j in range(len(columns))]

        names, previous = [], None
        for threads, env, name in row_keys:
            shown_env = f"({env})" if env_width and (threads, env) != previous else ""
            names.append("  " + shown_env.ljust(env_width + 4) + name)
            previous = (threads, env)
        texts = [[formats[j].render(m, scale) for j, m in enumerate(row)] for row in table]
        widths = [max(len(n) for n in names)] + [
            max([len(c or "")] + [len(row[j]) for row in texts]) for j, c in enumerate(columns)]
        header = "  |  ".join(text.center(w) for text, w in zip([""] + [c or "" for c in columns], widths))
        width = len(header)

        lines, previous_threads = [header], None
        for (threads, _, _), name, row, row_texts in zip(row_keys, names, table, texts):
            if threads != previous_threads:
                lines.append(f"{threads} threads: ".ljust(width, "-"))
                previous_threads = threads
            same_group = [other for key, other in zip(row_keys, table) if key[0] == threads]
            cells = [name.ljust(widths[0])]
            for j, (m, text) in enumerate(zip(row, row_texts)):
                text = text.center(widths[j + 1])
                if m is not None and self._colorize is not Colorize.NONE:
                    peers = row if self._colorize is Colorize.ROWWISE else [other[j] for other in same_group]
                    text = _colored(text, m.median, min(p.median for p in peers if p is not None))
                cells.append(text)
            lines.append("  |  ".join(cells))
        title = "[" + f" {label or ''} ".center(width - 2, "-") + "]"
        footer = [f"Times are in {unit_to_english(unit)}s ({unit})."]
        if self._highlight_warnings and any(m.has_warnings for m in measurements):
            footer.append("(! XX%) Measurement has high variance, where XX is the IQR / median * 100.")
        return "\n".join([title, *lines, "", *footer, ""])


def _colored(text, value, best):
    """``text`` in the colour of ``value`` against the best of its peers (seconds)."""
    if value <= best * 1.01 or value <= best + 100e-9:
        return f"{_BEST}{_BOLD}{text}{_END}{_END}"
    if value <= best * 1.1:
        return f"{_GOOD}{_BOLD}{text}{_END}{_END}"
    if value >= best * 5:
        return f"{_VERY_BAD}{_BOLD}{text}{_END}{_END}"
    if value >= best * 2:
        return f"{_BAD}{text}{_END}{_END}"
    return text


class _NumberFormat:
    """How one column writes its medians: a common width and number of decimals (trimmed: the fewest
    significant figures its measurements support after the leading digits; else one decimal), and a
    right-aligned ``(! XX%)`` field when warnings are highlighted and one of them warns."""

    def __init__(self, column, scale, trim, highlight):
        leading = [math.ceil(math.log10(m.median / scale)) for m in column]
        self.trim = trim
        self.decimals = min(max(m.significant_figures - d, 0) for m, d in zip(column, leading)) if trim else 1
        self.length = max(leading) + self.decimals + (1 if self.decimals else 0)
        self.warn_width = 7 if highlight and any(m.has_warnings for m in column) else 0

    def render(self, m, scale):
        if m is None:
            return " " * (self.length + self.warn_width)
        value = m.median / scale
        if self.trim:
            value = trim_sigfig(value, m.significant_figures)
        spread = f" (! {m.iqr / m.median * 100:.0f}%)" if self.warn_width and m.has_warnings else ""
        return f"{value:>{self.length}.{self.decimals}f}{spread:>{self.warn_width}}"
