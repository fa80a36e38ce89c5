"""``torch.cpu.Stream`` / ``Event`` / ``StreamContext`` / ``stream`` / ``current_stream`` / ``set_device``.

CPU work is finished when a call returns, so streams and events order nothing: they exist so that device-generic
code (``torch.get_device_module(device).stream(...)``) runs on the CPU as it does under torch.
"""

__all__ = ["Event", "Stream", "StreamContext", "current_stream", "set_device", "stream"]


class Stream:
    """A CPU stream: work is already in order, so waiting and recording do nothing."""

    def __init__(self, priority=-1):
        self.priority = priority

    def wait_stream(self, stream):
        """Nothing to wait for."""

    def wait_event(self, event):
        """Nothing to wait for."""

    def record_event(self, event=None):
        """Nothing to record (torch's CPU stream returns None)."""


class Event:
    """A CPU event: complete as soon as it is recorded."""

    def query(self):
        """bool: True (CPU work is done)."""
        return True

    def record(self, stream=None):
        """Nothing to record."""

    def synchronize(self):
        """Nothing to wait for."""

    def wait(self, stream=None):
        """Nothing to wait for."""


_default_stream = Stream()
_current = [_default_stream]


def current_stream(device=None):
    """Stream: the stream selected by :func:`stream` (the default stream outside one)."""
    return _current[-1]


class StreamContext:
    """Selects ``stream`` as the current stream inside a ``with`` block (``None``: no change)."""

    def __init__(self, stream):
        self.stream = stream
        self.prev_stream = _default_stream

    def __enter__(self):
        if self.stream is None:
            return None
        self.prev_stream = current_stream()
        _current.append(self.stream)
        return None

    def __exit__(self, *exc_info):
        if self.stream is not None:
            _current.pop()
        return False


def stream(stream):
    """StreamContext: ``with torch.cpu.stream(s):`` makes ``s`` the current stream."""
    return StreamContext(stream)


def set_device(device):
    """Nothing to select: there is one CPU device."""
