"""tf.profiler.experimental: the profiler session API as a recorder of what TF's profiler would trace.

vfw has no device tracer: ``start``/``stop`` keep TF's session rules and errors (one session at a time, ``stop``
without ``start``), and ``stop(save=True)`` writes the run directory TensorBoard's profile plugin reads,
``<logdir>/plugins/profile/<YYYY_MM_DD_HH_MM_SS>/<host>.xplane.pb``, holding an empty XSpace (no events: vfw
records none).  ``Trace`` and ``Profile`` are the context managers TF scripts use.
"""

import collections
import os
import socket
import time

from vfw.frontends.tensorflow import errors
from vfw.frontends.tensorflow.profiler.experimental import client, server  # noqa: F401

__all__ = ["Profile", "ProfilerOptions", "Trace", "client", "server", "start", "stop"]

_ProfilerOptionsFields = collections.namedtuple(
    "ProfilerOptions", ["host_tracer_level", "python_tracer_level", "device_tracer_level", "delay_ms"])


class ProfilerOptions(_ProfilerOptionsFields):
    """What a profiler session would trace: host (1-3), Python (0/1) and device (0/1) tracer levels and a delay
    before tracing starts (accepted; vfw traces nothing)."""

    __slots__ = ()

    def __new__(cls, host_tracer_level=2, python_tracer_level=0, device_tracer_level=1, delay_ms=None):
        return super().__new__(cls, host_tracer_level, python_tracer_level, device_tracer_level, delay_ms)


_session = {"logdir": None, "options": None}


def start(logdir, options=None):
    """Start the profiler session that writes to ``logdir`` on ``stop``.

    Raises
    ------
    AlreadyExistsError
        When a session is already running.
    TypeError
        When ``logdir`` is not a string.
    """
    if _session["logdir"] is not None:
        raise errors.AlreadyExistsError(None, None, "Another profiler is running.")
    options = (options or ProfilerOptions())._asdict()  # as TF, options must be a ProfilerOptions
    if not isinstance(logdir, (str, os.PathLike)):
        raise TypeError(f"start(): logdir must be a string, got {type(logdir).__name__}")
    _session["logdir"], _session["options"] = os.fspath(logdir), options


def stop(save=True):
    """Stop the running session; with ``save``, write its run directory under the session's logdir.

    Raises
    ------
    UnavailableError
        When no session is running.
    """
    logdir = _session["logdir"]
    if logdir is None:
        raise errors.UnavailableError(None, None, "Cannot export profiling results. No profiler is running.")
    _session["logdir"] = _session["options"] = None
    if save:
        run = os.path.join(logdir, "plugins", "profile", time.strftime("%Y_%m_%d_%H_%M_%S"))
        os.makedirs(run, exist_ok=True)
        with open(os.path.join(run, f"{socket.gethostname()}.xplane.pb"), "wb"):
            pass  # an empty XSpace message: no trace events


class Trace:
    """Context manager marking a traced region (``name`` and keyword metadata such as ``step_num``); it records
    nothing in vfw."""

    def __init__(self, name, **kwargs):
        self._name = name
        self._metadata = kwargs

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


class Profile:
    """Context manager running a profiler session writing to ``logdir`` (``start`` on entry, ``stop`` on exit)."""

    def __init__(self, logdir, options=None):
        self._logdir = logdir
        self._options = options

    def __enter__(self):
        start(self._logdir, self._options)

    def __exit__(self, *exc):
        stop()
        return False
