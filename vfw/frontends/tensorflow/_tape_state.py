"""Which GradientTapes are recording: the state that op dispatch and variable reads check.

TF records an op only on the tapes that are recording when it runs, so vfw.tensorflow records
autograd nodes only while some tape records: ``ACTIVE`` is the hot-path test (a plain list,
empty almost always), ``local.observers`` the precise per-thread list.

Hooks for the other families:

- op dispatch (``_dispatch.call``): when ``ACTIVE`` is empty and no graph trace is
  open, nothing can record: run the kernel on the arrays directly;
- ``tf.function``: ``recording()`` says whether a tape in this thread records (a traced
  function called then must run so that the tape sees its ops).
"""

import threading

ACTIVE = []
"""The observers (recording tapes, variable watchers) of every thread: empty when nothing records."""


class _Local(threading.local):
    """This thread's observers, innermost last."""

    def __init__(self):
        self.observers = []


local = _Local()


def push(observer):
    """Start notifying ``observer`` (a recording tape or a variable watcher) in this thread."""
    local.observers.append(observer)
    ACTIVE.append(observer)


def pop(observer):
    """Stop notifying ``observer``."""
    local.observers.remove(observer)
    ACTIVE.remove(observer)


def recording():
    """bool: whether a GradientTape records in this thread."""
    return any(o.records_ops for o in local.observers) if ACTIVE else False


def notify_read(variable, value):
    """Tell this thread's observers that ``variable`` was read as the tensor ``value``."""
    for observer in local.observers:
        observer.variable_read(variable, value)
