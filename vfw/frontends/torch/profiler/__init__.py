"""torch.profiler: ``profile`` (context manager or ``start()``/``step()``/``stop()``) with a ``schedule`` and an
``on_trace_ready`` callback, ``record_function``, ``tensorboard_trace_handler``.

Only CPU activity exists here; the recorded ops are vfw's engine ops under torch's ATen names (see
``torch.autograd.profiler``), so the table lists the ops torch's kernels would run (``aten::addmm``,
``aten::relu``...) but not torch's composite wrappers above them (``aten::linear``, ``aten::t``).
"""

import enum
import os
import socket
import time

from vfw.frontends._warnings import warn_for_user
from vfw.frontends.torch._enum_types import CEnumType
from vfw.frontends.torch.autograd.profiler import _Recorder, record_function, start_recording, stop_recording
from vfw.frontends.torch.autograd.profiler_util import EventList

__all__ = ["ProfilerAction", "ProfilerActivity", "profile", "record_function", "schedule", "supported_activities",
           "tensorboard_trace_handler"]


class ProfilerActivity(enum.Enum, metaclass=CEnumType):
    """What a profiler records: CPU ops (the only activity this machine has) or device kernels."""

    CPU = 0
    XPU = 1
    MTIA = 2
    CUDA = 3
    HPU = 4
    PrivateUse1 = 5


class ProfilerAction(enum.Enum):
    """What the profiler does at a step of its schedule."""

    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3


def supported_activities():
    """The activities this machine can record: ``{ProfilerActivity.CPU}``."""
    return {ProfilerActivity.CPU}


def schedule(*, wait, warmup, active, repeat=0, skip_first=0, skip_first_wait=0):
    """A schedule: ``step -> ProfilerAction``. After ``skip_first`` steps, cycles of ``wait`` idle steps, ``warmup``
    steps and ``active`` recorded steps (the last one saves: ``on_trace_ready`` runs), ``repeat`` times (0: forever).
    With ``skip_first_wait`` the first cycle has no wait steps."""
    if wait < 0 or warmup < 0 or active <= 0 or repeat < 0 or skip_first < 0:
        raise AssertionError("Invalid profiler schedule arguments")
    if warmup == 0:
        warn_for_user("Profiler won't be using warmup, this can skew profiler results")

    def schedule_fn(step):
        if step < 0:
            raise AssertionError(f"Invalid step: {step}")
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        if skip_first_wait:
            step += wait
        cycle = wait + warmup + active
        if repeat > 0 and step // cycle >= repeat:
            return ProfilerAction.NONE
        position = step % cycle
        if position < wait:
            return ProfilerAction.NONE
        if position < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if position < cycle - 1 else ProfilerAction.RECORD_AND_SAVE

    return schedule_fn


def _always_record(step):
    return ProfilerAction.RECORD


_RECORDING = (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE)


class profile:  # noqa: N801  (torch's name)
    """Profile CPU ops: ``with profile(activities=[ProfilerActivity.CPU]) as prof: ...`` then
    ``prof.key_averages().table(sort_by="cpu_time_total")``.

    Parameters
    ----------
    activities : iterable of ProfilerActivity, optional
    schedule : callable, optional
        ``step -> ProfilerAction`` (see :func:`schedule`); without it every step records and the trace is ready
        at ``stop()``.
    on_trace_ready : callable, optional
        Called with the profiler when a recording cycle ends.
    record_shapes, profile_memory, with_stack, with_flops, with_modules : bool
        Shapes of op inputs; bytes of op outputs; the others are accepted.
    acc_events : bool
        Keep the events of earlier cycles too.
    """

    def __init__(self, *, activities=None, schedule=None, on_trace_ready=None, record_shapes=False,
                 profile_memory=False, with_stack=False, with_flops=False, with_modules=False,
                 experimental_config=None, execution_trace_observer=None, acc_events=False, use_cuda=None,
                 custom_trace_id_callback=None):
        self.activities = set(activities) if activities is not None else supported_activities()
        self.schedule = schedule if schedule is not None else _always_record
        self.on_trace_ready = on_trace_ready
        self.record_shapes, self.profile_memory, self.with_stack = record_shapes, profile_memory, with_stack
        self.acc_events = acc_events
        self.step_num = 0
        self.current_action = self.schedule(0)
        self._recorder = None
        self._finished = []  # events of the cycles that ended
        self.profiler = None

    # -- control -------------------------------------------------------------------------------
    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.stop()
        return False

    def start(self):
        """Start profiling (at step 0 of the schedule)."""
        self._enter_action(None, self.current_action)

    def stop(self):
        """Stop profiling; a cycle still recording ends and ``on_trace_ready`` runs for it."""
        if self.current_action in _RECORDING or self.current_action is ProfilerAction.WARMUP:
            self._end_cycle(save=self.current_action in _RECORDING)
        self.current_action = ProfilerAction.NONE

    def step(self):
        """Signal the end of a step: moves the schedule on (recording, saving, idling as it says)."""
        previous = self.current_action
        self.step_num += 1
        self.current_action = self.schedule(self.step_num)
        if previous is ProfilerAction.RECORD_AND_SAVE:
            self._end_cycle(save=True)
            previous = ProfilerAction.NONE
        elif previous in _RECORDING and self.current_action not in _RECORDING:
            self._end_cycle(save=True)
            previous = ProfilerAction.NONE
        self._enter_action(previous, self.current_action)

    def _enter_action(self, previous, action):
        if action in _RECORDING or action is ProfilerAction.WARMUP:
            if self._recorder is None:
                self._recorder = _Recorder(self.record_shapes, self.profile_memory)
                start_recording(self._recorder)
            if action in _RECORDING and previous is ProfilerAction.WARMUP:
                self._recorder.events.clear()  # warmup steps run but are not reported
        elif self._recorder is not None:
            self._stop_recorder()

    def _stop_recorder(self):
        recorder, self._recorder = self._recorder, None
        stop_recording(recorder)
        return recorder

    def _end_cycle(self, save):
        if self._recorder is None:
            return
        recorder = self._stop_recorder()
        if not save:
            return
        if self._finished and not self.acc_events:
            warn_for_user("Warning: Profiler clears events at the end of each cycle. Only events from the current "
                          "cycle will be reported. To keep events across cycles, set acc_events=True.")
        self._finished = (self._finished if self.acc_events else []) + recorder.events
        if self.on_trace_ready is not None:
            self.on_trace_ready(self)

    # -- results -------------------------------------------------------------------------------
    def events(self):
        """The recorded events (an :class:`EventList`)."""
        return EventList(self._finished, profile_memory=self.profile_memory)

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0, group_by_overload_name=False):
        """Per-name (and, with ``group_by_input_shape``, per-shapes) totals of the recorded events."""
        return self.events().key_averages(group_by_input_shape)

    def export_chrome_trace(self, path):
        """Write the recorded events as Chrome trace-event JSON to ``path``."""
        self.events().export_chrome_trace(path)

    def export_stacks(self, path, metric="self_cpu_time_total"):
        """Not available: vfw records no Python stacks."""
        raise NotImplementedError("vfw's profiler records no stacks (export_stacks)")


def tensorboard_trace_handler(dir_name, worker_name=None, use_gzip=False):
    """An ``on_trace_ready`` callback writing each trace to ``dir_name/<worker>.<ms>.pt.trace.json`` (TensorBoard's
    profiler plugin layout)."""
    def handler(prof):
        os.makedirs(dir_name, exist_ok=True)
        worker = worker_name or f"{socket.gethostname()}_{os.getpid()}"
        name = f"{worker}.{time.time_ns() // 1_000_000}.pt.trace.json"
        if use_gzip:
            raise NotImplementedError("tensorboard_trace_handler(use_gzip=True) is not supported by vfw")
        prof.export_chrome_trace(os.path.join(dir_name, name))

    return handler
