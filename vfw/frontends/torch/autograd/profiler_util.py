"""torch.autograd.profiler_util: the events a profiler records, their averages and torch's summary table."""

import collections
import json
import os

__all__ = ["EventList", "FunctionEvent", "FunctionEventAvg"]


def _format_time(us):
    """Microseconds as torch prints them (``s``, ``ms`` or ``us``, three decimals)."""
    if us >= 1e6:
        return f"{us / 1e6:.3f}s"
    if us >= 1e3:
        return f"{us / 1e3:.3f}ms"
    return f"{us:.3f}us"


def _format_memory(nbytes):
    """Bytes as torch prints them (``Gb``, ``Mb``, ``Kb`` with two decimals, else ``B``)."""
    for unit, size in (("Gb", 1024 ** 3), ("Mb", 1024 ** 2), ("Kb", 1024)):
        if abs(nbytes) >= size:
            return f"{nbytes / size:.2f} {unit}"
    return f"{int(nbytes)} B"


class FunctionEvent:
    """One recorded range: an op or a ``record_function`` label, with its start/end (microseconds), the events
    nested in it (``cpu_children``), its input shapes and the bytes its outputs hold."""

    def __init__(self, id, name, thread, start_us, end_us, input_shapes=None, cpu_memory_usage=0,
                 is_user_annotation=False):
        self.id, self.name, self.key, self.thread = id, name, name, thread
        self.start_us, self.end_us = start_us, end_us
        self.input_shapes = input_shapes if input_shapes is not None else []
        self.cpu_memory_usage = cpu_memory_usage
        self.is_user_annotation = is_user_annotation
        self.cpu_children = []
        self.cpu_parent = None
        self.count = 1
        self.stack = []

    @property
    def cpu_time_total(self):
        return self.end_us - self.start_us

    @property
    def self_cpu_time_total(self):
        return self.cpu_time_total - sum(child.cpu_time_total for child in self.cpu_children)

    @property
    def self_cpu_memory_usage(self):
        return self.cpu_memory_usage - sum(child.cpu_memory_usage for child in self.cpu_children)

    @property
    def cpu_time(self):
        return self.cpu_time_total

    def __repr__(self):
        return (f"<FunctionEvent id={self.id} name={self.name} cpu_time={_format_time(self.cpu_time_total)} "
                f"start_us={self.start_us:.3f} end_us={self.end_us:.3f} "
                f"cpu_children={[c.id for c in self.cpu_children]} "
                f"thread={self.thread} input_shapes={self.input_shapes} cpu_memory_usage={self.cpu_memory_usage}>")


class FunctionEventAvg:
    """The events of one key (name, and input shapes when grouped by them) added together."""

    def __init__(self, key, input_shapes, is_user_annotation):
        self.key, self.input_shapes, self.is_user_annotation = key, input_shapes, is_user_annotation
        self.count = 0
        self.cpu_time_total = self.self_cpu_time_total = 0.0
        self.cpu_memory_usage = self.self_cpu_memory_usage = 0

    def add(self, event):
        """Add one event (or another average) to this one; returns self."""
        self.count += event.count
        self.cpu_time_total += event.cpu_time_total
        self.self_cpu_time_total += event.self_cpu_time_total
        self.cpu_memory_usage += event.cpu_memory_usage
        self.self_cpu_memory_usage += event.self_cpu_memory_usage
        return self

    @property
    def cpu_time(self):
        """Average CPU time per call (microseconds)."""
        return self.cpu_time_total / self.count if self.count else 0.0

    def __repr__(self):
        return (f"<FunctionEventAvg key={self.key} self_cpu_time={_format_time(self.self_cpu_time_total)} "
                f"cpu_time={_format_time(self.cpu_time)} input_shapes={self.input_shapes} "
                f"cpu_memory_usage={self.cpu_memory_usage}>")


_SORT_KEYS = {"cpu_time": "cpu_time", "cpu_time_total": "cpu_time_total", "self_cpu_time_total":
              "self_cpu_time_total", "count": "count", "cpu_memory_usage": "cpu_memory_usage",
              "self_cpu_memory_usage": "self_cpu_memory_usage"}


class EventList(list):
    """A list of :class:`FunctionEvent` (or averages) with torch's summaries."""

    def __init__(self, *args, profile_memory=False, with_shapes=False, **kwargs):
        super().__init__(*args)
        self._profile_memory = profile_memory
        self._with_shapes = with_shapes

    @property
    def self_cpu_time_total(self):
        """Sum of the events' self CPU times (microseconds)."""
        return sum(event.self_cpu_time_total for event in self)

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0, group_by_overload_name=False):
        """One :class:`FunctionEventAvg` per name (and input shapes), in order of first occurrence."""
        averages = collections.OrderedDict()
        for event in self:
            shapes = str(event.input_shapes) if group_by_input_shape else ""
            key = (event.key, shapes)
            if key not in averages:
                averages[key] = FunctionEventAvg(event.key, event.input_shapes if group_by_input_shape else [],
                                                 event.is_user_annotation)
            averages[key].add(event)
        return EventList(averages.values(), profile_memory=self._profile_memory, with_shapes=group_by_input_shape)

    def table(self, sort_by=None, row_limit=100, max_src_column_width=75, max_name_column_width=55,
              max_shapes_column_width=80, header=None, top_level_events_only=False, time_unit=None):
        """torch's summary table of these events (after ``key_averages()``), as a string.

        Parameters
        ----------
        sort_by : str, optional
            ``"cpu_time_total"``, ``"self_cpu_time_total"``, ``"cpu_time"``, ``"count"``, ``"cpu_memory_usage"`` or
            ``"self_cpu_memory_usage"`` (descending); None keeps the events' order.
        row_limit : int
            Rows shown at most (negative: all).
        """
        events = list(self)
        if sort_by is not None:
            if sort_by not in _SORT_KEYS:
                raise AttributeError(f"'FunctionEventAvg' object has no attribute '{sort_by}'")
            events.sort(key=lambda e: getattr(e, _SORT_KEYS[sort_by]), reverse=True)
        if row_limit is not None and row_limit >= 0:
            events = events[:row_limit]
        total = self.self_cpu_time_total
        name_width = min(max([len(e.key) for e in events] + [len("Name")]) + 4, max_name_column_width)
        columns = [("Name", name_width), ("Self CPU %", 12), ("Self CPU", 12), ("CPU total %", 12),
                   ("CPU total", 12), ("CPU time avg", 12)]
        if self._profile_memory:
            columns += [("CPU Mem", 12), ("Self CPU Mem", 12)]
        columns.append(("# of Calls", 12))
        if self._with_shapes:
            shapes_width = min(max([len(str(e.input_shapes)) for e in events] + [len("Input Shapes")]) + 4,
                               max_shapes_column_width)
            columns.append(("Input Shapes", shapes_width))
        rule = "".join("-" * width + "  " for _, width in columns)
        lines = [rule, "".join(title.rjust(width) + "  " for title, width in columns), rule]
        for e in events:
            name = e.key if len(e.key) <= name_width - 3 else e.key[:name_width - 6] + "..."
            cells = [name, f"{_percent(e.self_cpu_time_total, total)}", _format_time(e.self_cpu_time_total),
                     f"{_percent(e.cpu_time_total, total)}", _format_time(e.cpu_time_total), _format_time(e.cpu_time)]
            if self._profile_memory:
                cells += [_format_memory(e.cpu_memory_usage), _format_memory(e.self_cpu_memory_usage)]
            cells.append(str(e.count))
            if self._with_shapes:
                cells.append(str(e.input_shapes)[:shapes_width])
            lines.append("".join(cell.rjust(width) + "  " for cell, (_, width) in zip(cells, columns)))
        lines += [rule, f"Self CPU time total: {_format_time(total)}", ""]
        return "\n".join(lines)

    def __str__(self):
        return self.table()

    def export_chrome_trace(self, path):
        """Write the events as Chrome trace-event JSON (``chrome://tracing``, Perfetto) to ``path``."""
        pid = os.getpid()
        trace = [{"ph": "X", "cat": "user_annotation" if e.is_user_annotation else "cpu_op", "name": e.name,
                  "pid": pid, "tid": e.thread, "ts": e.start_us, "dur": e.cpu_time_total,
                  "args": {"Input Dims": e.input_shapes} if e.input_shapes else {}} for e in self]
        with open(os.fspath(path), "w") as f:
            json.dump({"schemaVersion": 1, "displayTimeUnit": "ms", "traceEvents": trace, "traceName": str(path)}, f)


def _percent(part, total):
    return f"{100.0 * part / total:.2f}%" if total else "0.00%"
