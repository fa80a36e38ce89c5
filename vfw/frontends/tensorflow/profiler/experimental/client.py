"""tf.profiler.experimental.client: tracing a remote profiler server.  vfw has no profiler service that collects
events, so a trace collects nothing and fails as TF's does when no server answers."""

__all__ = ["monitor", "trace"]

_NOTHING_COLLECTED = ("UNAVAILABLE: No trace event was collected because there were no responses from clients or "
                      "the responses did not have trace data.")


def trace(service_addr, logdir, duration_ms, worker_list="", num_tracing_attempts=3, options=None):
    """Trace the profiler server at ``service_addr`` for ``duration_ms``: RuntimeError, nothing is collected."""
    raise RuntimeError(_NOTHING_COLLECTED)


def monitor(service_addr, duration_ms, level=1):
    """Monitoring data of the profiler server at ``service_addr``: RuntimeError, nothing is collected."""
    raise RuntimeError(_NOTHING_COLLECTED)
