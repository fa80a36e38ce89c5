"""tf.profiler.experimental.server: the profiler server a remote ``client.trace`` connects to (accepted: vfw
serves no trace events)."""

__all__ = ["start"]

_ports = []


def start(port):
    """Start a profiler server on ``port`` (recorded; vfw serves nothing)."""
    _ports.append(int(port))
