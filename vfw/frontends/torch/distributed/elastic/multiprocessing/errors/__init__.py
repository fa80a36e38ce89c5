"""torch.distributed.elastic.multiprocessing.errors: ``@record`` for a worker's entry point, ``ChildFailedError``.

``@record`` runs the function; an exception it raises is written to ``TORCHELASTIC_ERROR_FILE`` (when set) with its
traceback, then re-raised, as in torch.  ``vfw.distributed.run`` does not set that variable: there each failing
rank prints its traceback and the MPI job stops, so ``@record`` only re-raises.
"""

import datetime
import functools
import json
import os
import signal
import socket
import time
from dataclasses import dataclass, field
from string import Template

from vfw.frontends.torch.distributed.elastic.multiprocessing.errors.error_handler import ErrorHandler

__all__ = ["ProcessFailure", "ChildFailedError", "record", "ErrorHandler", "get_error_handler"]

_NOT_AVAILABLE = "<N/A>"
_EMPTY_ERROR_DATA = {"message": "<NONE>"}

_MSG_FORMAT_TEMPLATE = """
${boarder}
${title}
${section}
Failures:
${other_failures}
${section}
Root Cause (first observed failure):
${root_failure}
${boarder}"""

_FAILURE_FORMAT_TEMPLATE = """[${idx}]:
  time      : ${time}
  host      : ${hostname}
  rank      : ${rank} (local_rank: ${local_rank})
  exitcode  : ${exitcode} (pid: ${pid}) ${signal_name}
  error_file: ${error_file}
  traceback : ${message}"""


def get_error_handler():
    """A new :class:`ErrorHandler`."""
    return ErrorHandler()


@dataclass
class ProcessFailure:
    """A failed worker: its ``local_rank``, ``pid``, ``exitcode`` (negative: killed by that signal) and the
    ``error_file`` it may have written through ``@record``; ``message`` and ``timestamp`` are read from that file,
    or made up (now, and a note on the signal or on ``@record``) when there is none."""

    local_rank: int
    pid: int
    exitcode: int
    error_file: str
    error_file_data: dict = field(init=False)
    message: str = field(init=False)
    timestamp: int = field(init=False)

    def __post_init__(self):
        self.error_file_data = dict(_EMPTY_ERROR_DATA)
        self.message = ""
        if os.path.isfile(self.error_file):
            with open(self.error_file) as fp:
                self.error_file_data = json.load(fp)
            self.message = self.error_file_data["message"]
            if isinstance(self.message, str):
                self.timestamp = int(self.error_file_data.get("timestamp", 0))
            else:
                self.timestamp = int(self.message["extraInfo"]["timestamp"])
        else:
            self.error_file = _NOT_AVAILABLE
            self.timestamp = int(time.time())
        if not self.message:
            if self.exitcode < 0:
                self.message = f"Signal {-self.exitcode} ({self.signal_name()}) received by PID {self.pid}"
            else:
                self.error_file_data["errorTraits"] = {"category": "system_terminated_error",
                                                       "retryability": "False"}
                self.message = "To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html"

    def signal_name(self):
        """The name of the signal that killed the process (``exitcode < 0``), else ``"<N/A>"``."""
        if self.exitcode < 0:
            try:
                return signal.Signals(-self.exitcode).name
            except ValueError:
                return _NOT_AVAILABLE
        return _NOT_AVAILABLE

    def timestamp_isoformat(self):
        """The failure's time as ``YYYY-MM-DD_HH:MM:SS``."""
        return datetime.datetime.fromtimestamp(self.timestamp).isoformat(sep="_")


class ChildFailedError(Exception):
    """Worker processes of ``name`` failed: ``failures`` maps each failed global rank to its
    :class:`ProcessFailure`.  Raised from a ``@record`` function, the first failure's error file becomes this
    process's own."""

    def __init__(self, name, failures):
        self.name = name
        self.failures = failures
        if not self.failures:
            raise AssertionError  # torch's check: a ChildFailedError without failures means nothing
        super().__init__(self.format_msg())

    def get_first_failure(self):
        """``(rank, failure)`` of the earliest failure."""
        rank = min(self.failures, key=lambda r: self.failures[r].timestamp)
        return rank, self.failures[rank]

    def format_msg(self, boarder_delim="=", section_delim="-"):
        """The report: every failure, the first one as the root cause."""
        title = f"{self.name} FAILED"
        root_rank, _ = self.get_first_failure()
        root, others, width = "", [], len(title)
        for idx, (rank, failure) in enumerate(self.failures.items()):
            text = self._format_failure(idx, rank, failure)
            width = max(width, *(len(line) for line in text.split("\n")))
            if rank == root_rank:
                root = text
            else:
                others.append(text)
        width = min(width, 60)
        return Template(_MSG_FORMAT_TEMPLATE).substitute(
            boarder=boarder_delim * width, title=title, section=section_delim * width, root_failure=root,
            other_failures="\n".join(others or ["  <NO_OTHER_FAILURES>"]))

    def _format_failure(self, idx, rank, failure):
        message = failure.message
        if isinstance(message, dict):  # from an error file: show its traceback
            message = message.get("extraInfo", {}).get("py_callstack", message.get("message", "<N/A>"))
            message = message.replace("\n", "\n  ")
        signal_name = failure.signal_name()
        return Template(_FAILURE_FORMAT_TEMPLATE).substitute(
            idx=idx, time=failure.timestamp_isoformat(), hostname=socket.getfqdn(), rank=rank,
            local_rank=failure.local_rank, exitcode=failure.exitcode, pid=failure.pid,
            signal_name=f" ({signal_name})" if signal_name != _NOT_AVAILABLE else "", error_file=failure.error_file,
            message=message)


def record(fn, error_handler=None):
    """Decorate a worker's entry point: an exception it raises is recorded in the error file, then re-raised.

    ``SystemExit(0)`` returns ``None`` (a script run through ``runpy`` that exits cleanly); a
    :class:`ChildFailedError` copies its first failure's error file instead.
    """
    if not error_handler:
        error_handler = get_error_handler()

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        error_handler.initialize()
        try:
            return fn(*args, **kwargs)
        except SystemExit as e:
            if e.code == 0:
                return None
            raise
        except ChildFailedError as e:
            _, failure = e.get_first_failure()
            if failure.error_file != _NOT_AVAILABLE:
                error_handler.dump_error_file(failure.error_file, failure.exitcode)
            raise
        except Exception as e:
            error_handler.record_exception(e)
            raise

    return wrapper
