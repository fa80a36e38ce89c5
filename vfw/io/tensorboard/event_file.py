"""``EventFileWriter``: appends ``Event`` records to ``<logdir>/events.out.tfevents.<time>.<host>.<pid>.<n><suffix>``.

The first record is the file version event (``brain.Event:2``).  Records are buffered and written to disk when
``max_queue`` are pending, when ``flush_secs`` have passed since the last write, and on ``flush``/``close``.
"""

import itertools
import os
import socket
import time

from vfw.io.tensorboard.protos import Event, SourceMetadata
from vfw.io.tfrecord import frame

_FILE_NUMBERS = itertools.count()  # <n> of the file name: a per-process counter, as TF and torch number theirs


class EventFileWriter:
    """Writes events to a new event file in ``logdir`` (created if missing).

    Parameters
    ----------
    logdir : str or PathLike
    filename_suffix : str
        Appended to the file name (TF2 writers use ``".v2"``).
    max_queue : int
        Pending events that trigger a write to disk.
    flush_secs : float
        Seconds after which an ``add_event`` writes the pending events.
    source_writer : str or None
        ``Event.source_metadata.writer`` of the first record (TF names its writer there).
    """

    def __init__(self, logdir, filename_suffix="", max_queue=10, flush_secs=120, source_writer=None):
        self.logdir = os.fspath(logdir)
        os.makedirs(self.logdir, exist_ok=True)
        now = time.time()
        name = f"events.out.tfevents.{int(now):010d}.{socket.gethostname()}.{os.getpid()}.{next(_FILE_NUMBERS)}"
        self.path = os.path.join(self.logdir, name + filename_suffix)
        self._max_queue = max_queue
        self._flush_secs = flush_secs
        self._pending = []
        self._last_flush = now
        self._closed = False
        with open(self.path, "wb"):
            pass
        first = Event(wall_time=now, file_version="brain.Event:2")
        if source_writer:
            first.source_metadata.CopyFrom(SourceMetadata(writer=source_writer))
        self.add_event(first)
        self.flush()

    @property
    def closed(self):
        return self._closed

    def add_event(self, event):
        """Queue one ``Event``; written when the queue is full or ``flush_secs`` have passed."""
        self._pending.append(frame(event.SerializeToString()))
        if len(self._pending) >= self._max_queue or time.time() - self._last_flush >= self._flush_secs:
            self.flush()

    def add_summary(self, summary, step, wall_time=None):
        """Queue an event holding ``summary`` at ``step``."""
        event = Event(wall_time=time.time() if wall_time is None else wall_time, summary=summary)
        if step is not None:
            event.step = int(step)
        self.add_event(event)

    def flush(self):
        """Write the pending events to disk."""
        if self._pending:
            with open(self.path, "ab") as f:
                f.write(b"".join(self._pending))
            self._pending = []
        self._last_flush = time.time()

    def close(self):
        """Flush; later events reopen nothing (the writer is finished)."""
        self.flush()
        self._closed = True
