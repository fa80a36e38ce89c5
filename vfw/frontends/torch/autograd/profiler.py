"""torch.autograd.profiler: the recorder behind ``torch.profiler.profile``, ``record_function``, the legacy
``profile`` context manager, and ``emit_nvtx`` / ``emit_itt`` (no-ops: no NVTX/ITT here).

While a profiler records, ``_dispatch.execute`` (the one door through which torch functions run engine ops) is
replaced by a timing wrapper; otherwise nothing is installed, so eager code pays nothing for the profiler. Each
engine op is recorded under the ATen name torch gives the operation (``Gemm`` as ``aten::addmm``, ``Relu`` as
``aten::relu``...); torch's composite ops above them (``aten::linear``, ``aten::t``...) are not.
"""

import functools
import threading
import time

from vfw.frontends.torch import _dispatch
from vfw.frontends.torch._aten_names import aten_name
from vfw.frontends.torch.autograd.profiler_util import EventList, FunctionEvent

__all__ = ["EventList", "emit_itt", "emit_nvtx", "profile", "record_function"]

class _Recorder:
    """Events of one profiling session; ranges nest by a per-thread stack."""

    def __init__(self, record_shapes, profile_memory):
        self.record_shapes, self.profile_memory = record_shapes, profile_memory
        self.events = []
        self._stacks = threading.local()
        self._origin = time.perf_counter_ns()

    def _now_us(self):
        return (time.perf_counter_ns() - self._origin) / 1000.0

    def open(self, name, inputs=(), user=False):
        stack = self._stacks.__dict__.setdefault("stack", [])
        shapes = [list(getattr(x, "shape", ())) if hasattr(x, "shape") else [] for x in inputs] \
            if self.record_shapes else []
        event = FunctionEvent(len(self.events) + 1, name, threading.get_ident() % 2 ** 31, self._now_us(), 0.0,
                              shapes, is_user_annotation=user)
        if stack:
            event.cpu_parent = stack[-1]
            stack[-1].cpu_children.append(event)
        stack.append(event)
        self.events.append(event)
        return event

    def close(self, event, outputs=()):
        event.end_us = self._now_us()
        if self.profile_memory:
            event.cpu_memory_usage = sum(getattr(getattr(o, "array", None), "nbytes", 0) for o in outputs) + \
                sum(child.cpu_memory_usage for child in event.cpu_children)
        stack = self._stacks.stack
        while stack and stack.pop() is not event:  # ranges left open inside (an exception) end with this one
            pass


_recorders = []  # the sessions recording now
_plain_execute = _dispatch.execute


def _profiled_execute(bound, *inputs):
    name = "aten::" + aten_name(bound.schema.op_type)
    events = [(r, r.open(name, inputs)) for r in _recorders]
    result = None
    try:
        result = _plain_execute(bound, *inputs)
        return result
    finally:
        outputs = result if type(result) is tuple else (result,)
        for recorder, event in events:
            recorder.close(event, outputs)


def start_recording(recorder):
    """Start recording ``recorder``'s events (installs the timing wrapper when it is the first)."""
    _recorders.append(recorder)
    _dispatch.execute = _profiled_execute


def stop_recording(recorder):
    """Stop recording ``recorder``; the last one out restores the plain executor."""
    if recorder in _recorders:
        _recorders.remove(recorder)
    if not _recorders:
        _dispatch.execute = _plain_execute


class record_function:  # noqa: N801  (torch's name)
    """A labelled range in the profile: ``with record_function("label"):`` or ``@record_function("label")``.

    Parameters
    ----------
    name : str
    args : str, optional
    """

    def __init__(self, name, args=None):
        self.name, self.args = name, args
        self._open = []

    def __enter__(self):
        self._open = [(r, r.open(self.name, user=True)) for r in _recorders]
        return self

    def __exit__(self, *exc):
        for recorder, event in self._open:
            recorder.close(event)
        self._open = []
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with record_function(self.name, self.args):
                return fn(*args, **kwargs)

        return wrapper


class profile:  # noqa: N801  (torch's name)
    """The legacy profiler: ``with torch.autograd.profiler.profile() as prof:`` records ops; ``prof.key_averages()``,
    ``prof.table()``, ``prof.export_chrome_trace(path)`` summarize them."""

    def __init__(self, enabled=True, *, use_cuda=False, use_device=None, record_shapes=False, with_flops=False,
                 profile_memory=False, with_stack=False, with_modules=False, use_kineto=False, use_cpu=True,
                 experimental_config=None, acc_events=False, custom_trace_id_callback=None):
        self.enabled = enabled
        self.record_shapes, self.profile_memory, self.with_stack = record_shapes, profile_memory, with_stack
        self._recorder = None
        self.function_events = None

    def __enter__(self):
        if self.enabled:
            if self._recorder is not None:
                raise RuntimeError("Profiler context manager is not reentrant")
            self._recorder = _Recorder(self.record_shapes, self.profile_memory)
            start_recording(self._recorder)
        return self

    def __exit__(self, *exc):
        if self._recorder is not None:
            stop_recording(self._recorder)
            self.function_events = EventList(self._recorder.events, profile_memory=self.profile_memory)
            self._recorder = None
        return False

    def _events(self):
        if self.function_events is None:
            raise RuntimeError("Profiler didn't finish running")
        return self.function_events

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0, group_by_overload_name=False):
        """Per-name averages of the recorded events (an :class:`EventList`)."""
        return self._events().key_averages(group_by_input_shape)

    def table(self, sort_by=None, row_limit=100, **kwargs):
        """torch's summary table of the recorded events."""
        return self._events().key_averages().table(sort_by=sort_by, row_limit=row_limit, **kwargs)

    def export_chrome_trace(self, path):
        """Write the events as Chrome trace-event JSON."""
        self._events().export_chrome_trace(path)

    @property
    def self_cpu_time_total(self):
        return self._events().self_cpu_time_total


class emit_nvtx:  # noqa: N801  (torch's name)
    """No-op context manager (NVTX ranges need CUDA)."""

    def __init__(self, enabled=True, record_shapes=False):
        self.enabled = enabled

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


class emit_itt(emit_nvtx):  # noqa: N801  (torch's name)
    """No-op context manager (no Intel ITT here)."""
