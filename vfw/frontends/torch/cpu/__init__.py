"""torch.cpu: the CPU device module (always available), its streams and events, and ``torch.cpu.amp``."""

from vfw.frontends.torch.cpu import amp  # noqa: F401
from vfw.frontends.torch.cpu._streams import Event, Stream, StreamContext, current_stream, set_device, stream

__all__ = ["Event", "Stream", "StreamContext", "current_device", "current_stream", "device_count", "is_available",
           "is_initialized", "set_device", "stream", "synchronize"]


def is_available():
    """bool: True."""
    return True


def is_initialized():
    return True


def device_count():
    """int: 1."""
    return 1


def current_device():
    """str: ``'cpu'``."""
    return "cpu"


def synchronize(device=None):
    """Nothing to wait for: CPU work is done when a call returns."""
