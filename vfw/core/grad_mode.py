"""Gradient mode: whether the eager executor records ops for autograd, per thread (torch's ``no_grad``...)."""

import threading


class _ThreadState(threading.local):
    """Per-thread autograd state, initialised in each thread (plain attribute reads are the fast path)."""

    def __init__(self):
        self.enabled = True


_local = _ThreadState()


def is_grad_enabled():
    """Whether ops on tensors that require grad are recorded (per thread; default True)."""
    return _local.enabled


class set_grad_enabled:  # noqa: N801  (used like a function, as torch's is)
    """Enable or disable recording, for this thread.

    Works as a plain call (takes effect at once) and as a context manager
    (restores the previous mode on exit).

    Parameters
    ----------
    mode : bool
    """

    def __init__(self, mode):
        self.prev = is_grad_enabled()
        _local.enabled = bool(mode)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        _local.enabled = self.prev
        return False


def no_grad():
    """Context manager that disables recording."""
    return set_grad_enabled(False)


def enable_grad():
    """Context manager that enables recording."""
    return set_grad_enabled(True)
